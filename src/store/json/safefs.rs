//! Opening the store's files so that nothing outside the store is ever
//! touched and nothing can hang a command.
//!
//! - **No links.** A path inside the store is reached from the store's root
//!   directory one component at a time with `openat(O_NOFOLLOW)`: a symbolic
//!   link in place of a directory or of the file itself is refused (`ELOOP`),
//!   never followed, so a link can neither make payctl read, write, create or
//!   chmod a file elsewhere nor lead a journal operation out of the store.
//!   Renames, removals and directory creation are done relative to the
//!   directory so reached (`renameat`, `unlinkat`, `mkdirat`), so they never
//!   follow a link either. The root itself (`--data-dir`) is taken as given:
//!   a link on the way to it is the user's choice.
//! - **No FIFOs.** Files are opened with `O_NONBLOCK` and checked with `fstat`
//!   before any read or write: a FIFO, a socket, a device or a directory in
//!   place of a file is refused at once instead of blocking forever.
//! - **No oversized reads.** A caller that knows a bound (a record, see
//!   [`crate::core::rules::MAX_RECORD_BYTES`]) has the file's size checked
//!   by `fstat` before a byte of it is read.
//!
//! The store's root is registered once per process by [`set_root`] (the
//! store opens it); a path outside a registered root (no store yet) is opened
//! the ordinary way, its last component still not followed.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};

static ROOT: RwLock<Option<PathBuf>> = RwLock::new(None);

/// Register the store's root: every path under it is then opened component
/// by component without following links.
pub fn set_root(root: &Path) {
    let mut r = ROOT.write().unwrap_or_else(|e| e.into_inner());
    *r = Some(root.to_path_buf());
}

fn errno_io(e: Errno) -> std::io::Error {
    std::io::Error::from_raw_os_error(e.raw_os_error())
}

fn io(path: &Path, e: Errno) -> Error {
    Error::io(path, errno_io(e))
}

/// What a file type is called in a message.
pub fn type_name(t: FileType) -> &'static str {
    match t {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "a file of unknown type",
    }
}

/// A file of the store that is not what it should be: named, with what it is.
fn damaged(path: &Path, what: &str) -> Error {
    Error::corrupt(
        path,
        format!(
            "{what}; payctl never follows links or opens anything but regular files in the store"
        ),
    )
}

/// `path` as (the directory to start from, the directories to walk, the last
/// component); `None` for a path with no last component.
fn split(path: &Path) -> Option<(PathBuf, Vec<OsString>, OsString)> {
    let root = ROOT.read().unwrap_or_else(|e| e.into_inner()).clone();
    let name = path.file_name()?.to_os_string();
    if let Some(root) = root
        && let Ok(rest) = path.strip_prefix(&root)
        && !rest.as_os_str().is_empty()
    {
        let mut dirs = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(c) => dirs.push(c.to_os_string()),
                _ => return None,
            }
        }
        dirs.pop();
        return Some((root, dirs, name));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some((parent, Vec::new(), name))
}

const DIR_FLAGS: OFlags = OFlags::DIRECTORY
    .union(OFlags::RDONLY)
    .union(OFlags::CLOEXEC)
    .union(OFlags::NOFOLLOW);

/// Why `name` in `dir` could not be opened as a directory: a link, or not a
/// directory at all.
fn not_a_dir(dir: &OwnedFd, name: &OsStr, shown: &Path, e: Errno) -> Error {
    match rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => {
            let t = FileType::from_raw_mode(st.st_mode);
            damaged(shown, &format!("is {}, not a directory", type_name(t)))
        }
        Err(_) => io(shown, e),
    }
}

/// Open the directory `name` of the open directory `dir` (`shown` is its
/// path, for errors) without following a link; created (0700) when missing
/// and `create`. `None`: it is missing.
fn sub_dir(dir: &OwnedFd, name: &OsStr, shown: &Path, create: bool) -> Result<Option<OwnedFd>> {
    match rfs::openat(dir, name, DIR_FLAGS, Mode::empty()) {
        Ok(next) => Ok(Some(next)),
        Err(Errno::NOENT) if !create => Ok(None),
        Err(Errno::NOENT) => {
            match rfs::mkdirat(dir, name, Mode::from_raw_mode(0o700)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(io(shown, e)),
            }
            let next = rfs::openat(dir, name, DIR_FLAGS, Mode::empty())
                .map_err(|e| not_a_dir(dir, name, shown, e))?;
            // Whatever the umask: the store's directories are private.
            let st = rfs::fstat(&next).map_err(|e| io(shown, e))?;
            if st.st_mode & 0o777 != 0o700 {
                rfs::fchmod(&next, Mode::from_raw_mode(0o700)).map_err(|e| io(shown, e))?;
            }
            Ok(Some(next))
        }
        Err(e) => Err(not_a_dir(dir, name, shown, e)),
    }
}

/// Open the directory `dirs` under `base` without following a link; the
/// missing ones are created (0700) when `create`. `None`: one is missing.
fn walk(base: &Path, dirs: &[OsString], create: bool) -> Result<Option<OwnedFd>> {
    let mut fd = match rfs::openat(
        rfs::CWD,
        base,
        DIR_FLAGS.difference(OFlags::NOFOLLOW),
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        Err(Errno::NOENT) if !create => return Ok(None),
        Err(Errno::NOENT) => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .create(base)
                .map_err(|e| Error::io(base, e))?;
            let fd = rfs::openat(
                rfs::CWD,
                base,
                DIR_FLAGS.difference(OFlags::NOFOLLOW),
                Mode::empty(),
            )
            .map_err(|e| io(base, e))?;
            rfs::fchmod(&fd, Mode::from_raw_mode(0o700)).map_err(|e| io(base, e))?;
            fd
        }
        Err(e) => return Err(io(base, e)),
    };
    let mut shown = base.to_path_buf();
    for d in dirs {
        shown.push(d);
        let Some(next) = sub_dir(&fd, d, &shown, create)? else {
            return Ok(None);
        };
        fd = next;
    }
    Ok(Some(fd))
}

/// The directory holding `path` and the name of `path` in it.
fn parent(path: &Path, create: bool) -> Result<Option<(OwnedFd, OsString)>> {
    let Some((base, dirs, name)) = split(path) else {
        return Err(damaged(path, "is not a file path inside the store"));
    };
    Ok(walk(&base, &dirs, create)?.map(|fd| (fd, name)))
}

/// The directory `path` as (the directory to start from, the directories
/// to walk from it).
fn dir_parts(path: &Path) -> Result<(PathBuf, Vec<OsString>)> {
    let root = ROOT.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(root) = root
        && let Ok(rest) = path.strip_prefix(&root)
    {
        let mut dirs = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(c) => dirs.push(c.to_os_string()),
                _ => return Err(damaged(path, "is not a directory path inside the store")),
            }
        }
        return Ok((root, dirs));
    }
    Ok((path.to_path_buf(), Vec::new()))
}

/// Check that every directory on the way to `path` inside the store is a
/// real directory, not a link (a missing one is fine: the open that
/// follows says so). For callers that open `path` themselves with
/// `O_NOFOLLOW` (see [`open_error`]).
pub fn check_dirs(path: &Path) -> Result<()> {
    let Some((base, dirs, _)) = split(path) else {
        return Err(damaged(path, "is not a file path inside the store"));
    };
    walk(&base, &dirs, false).map(|_| ())
}

/// The error of an `O_NOFOLLOW | O_NONBLOCK` open of `path` that failed
/// with `e`: a link, a FIFO without a writer, a directory is named as what
/// it is.
pub fn open_error(path: &Path, e: std::io::Error) -> Error {
    let describe = matches!(
        e.raw_os_error(),
        Some(c) if c == Errno::LOOP.raw_os_error()
            || c == Errno::NXIO.raw_os_error()
            || c == Errno::ISDIR.raw_os_error()
            || c == Errno::NOTDIR.raw_os_error()
    );
    if describe && let Ok(Some(st)) = lstat(path) {
        return damaged(
            path,
            &format!("is {}", type_name(FileType::from_raw_mode(st.st_mode))),
        );
    }
    Error::io(path, e)
}

/// Refuse `f` (opened from `path`) unless it is a regular file.
pub fn check_regular(f: &File, path: &Path) -> Result<std::fs::Metadata> {
    use std::os::unix::fs::MetadataExt;
    let meta = f.metadata().map_err(|e| Error::io(path, e))?;
    let t = FileType::from_raw_mode(meta.mode() as _);
    if t != FileType::RegularFile {
        return Err(damaged(path, &format!("is {}", type_name(t))));
    }
    Ok(meta)
}

/// Open the directory `path` (every component inside the store a real
/// directory); `None` when it does not exist.
pub fn open_dir(path: &Path) -> Result<Option<File>> {
    let (base, dirs) = dir_parts(path)?;
    Ok(walk(&base, &dirs, false)?.map(File::from))
}

/// Create the directory `path` and the missing ones on the way (0700).
pub fn ensure_dir(path: &Path) -> Result<()> {
    let (base, dirs) = dir_parts(path)?;
    walk(&base, &dirs, true).map(|_| ())
}

/// How to open a file (see [`open`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct How {
    pub read: bool,
    pub write: bool,
    pub create: bool,
    pub create_new: bool,
    pub truncate: bool,
}

impl How {
    pub const READ: How = How {
        read: true,
        write: false,
        create: false,
        create_new: false,
        truncate: false,
    };
    /// For writing it whole: created if missing, else emptied.
    pub const WRITE_NEW: How = How {
        read: false,
        write: true,
        create: true,
        create_new: false,
        truncate: true,
    };
    /// For writing into it: created if missing, kept as it is else.
    pub const WRITE_OLD: How = How {
        read: false,
        write: true,
        create: true,
        create_new: false,
        truncate: false,
    };
}

/// Open the regular file `path` without following a link and without
/// blocking; created 0600 when asked, chmodded to 0600 when opened for
/// writing. `None` when it (or a directory on the way) does not exist and
/// was not to be created. Anything but a regular file is refused, naming it.
pub fn open(path: &Path, how: How) -> Result<Option<File>> {
    Ok(open_len(path, how)?.map(|(f, _)| f))
}

/// [`open`] with the file's length when it was opened (from the `fstat`
/// the open makes anyway: `File::metadata` would ask again).
pub fn open_len(path: &Path, how: How) -> Result<Option<(File, u64)>> {
    let Some((dir, name)) = parent(path, false)? else {
        if how.create || how.create_new {
            return Err(Error::io(
                path,
                std::io::Error::from(std::io::ErrorKind::NotFound),
            ));
        }
        return Ok(None);
    };
    open_at(&dir, &name, path, how).map(|o| o.map(|(f, st)| (f, opened_len(&st, how))))
}

/// The length of a file that [`open_at`] opened with `how` and found as `st`.
fn opened_len(st: &rfs::Stat, how: How) -> u64 {
    if how.truncate {
        0
    } else {
        st.st_size.max(0) as u64
    }
}

/// [`open`] of `name` in the open directory `dir` (`path` names it in
/// messages), with the file's `fstat`.
fn open_at(
    dir: &OwnedFd,
    name: &OsStr,
    path: &Path,
    how: How,
) -> Result<Option<(File, rfs::Stat)>> {
    let mut flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    flags |= match (how.read, how.write) {
        (_, false) => OFlags::RDONLY,
        (false, true) => OFlags::WRONLY,
        (true, true) => OFlags::RDWR,
    };
    if how.create || how.create_new {
        flags |= OFlags::CREATE;
    }
    if how.create_new {
        flags |= OFlags::EXCL;
    }
    let fd = match rfs::openat(dir, name, flags, Mode::from_raw_mode(0o600)) {
        Ok(fd) => fd,
        Err(Errno::NOENT) if !(how.create || how.create_new) => return Ok(None),
        Err(e @ (Errno::LOOP | Errno::NXIO | Errno::ISDIR | Errno::NOTDIR)) => {
            return Err(match rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) => damaged(
                    path,
                    &format!("is {}", type_name(FileType::from_raw_mode(st.st_mode))),
                ),
                Err(_) => io(path, e),
            });
        }
        Err(e) => return Err(io(path, e)),
    };
    let st = rfs::fstat(&fd).map_err(|e| io(path, e))?;
    let t = FileType::from_raw_mode(st.st_mode);
    if t != FileType::RegularFile {
        return Err(damaged(path, &format!("is {}", type_name(t))));
    }
    if how.write && st.st_mode & 0o777 != 0o600 {
        rfs::fchmod(&fd, Mode::from_raw_mode(0o600)).map_err(|e| io(path, e))?;
    }
    let f = File::from(fd);
    // (A file just created is empty already.)
    if how.truncate && st.st_size != 0 {
        f.set_len(0).map_err(|e| Error::io(path, e))?;
    }
    Ok(Some((f, st)))
}

/// The complete lines of the regular file `path`, streamed through a
/// buffer of `buffer` bytes: `f` is given the file in pieces of whole lines
/// (each ending with its newline), in order. `None` when the file does not
/// exist; else whether it ends with a partial line (only a damaged file has
/// one), which is not given.
///
/// A key bucket is read so on every create under the store's lock
/// ([`LINES_BUFFER`]): whole, the 150 KB buckets of a million customers
/// cost a fresh allocation (`mmap`), a page fault for each 4 KB of it and
/// an `munmap`: a quarter of the time a create held the lock. `store check`
/// reads its index files so, a MiB at a time.
pub fn each_lines_piece(
    path: &Path,
    buffer: usize,
    f: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Option<bool>> {
    let Some(mut file) = open(path, How::READ)? else {
        return Ok(None);
    };
    let mut buf = vec![0u8; buffer.max(1)];
    // Bytes of `buf` filled: the partial line carried over, then new ones.
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // One line longer than the buffer (a damaged file): it grows.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        if n == 0 {
            return Ok(Some(filled > 0));
        }
        let start = filled;
        filled += n;
        if let Some(i) = buf[start..filled].iter().rposition(|&b| b == b'\n') {
            let end = start + i + 1;
            f(&buf[..end])?;
            buf.copy_within(end..filled, 0);
            filled -= end;
        }
    }
}

/// The buffer of [`each_lines_piece`] for a key bucket: small, since each
/// 4 KB of it is a page fault when first written (a 64 KB buffer cost 45 µs
/// of a create's key lookup, this one 17 µs; the few more `read`s cost
/// less).
pub const LINES_BUFFER: usize = 16 * 1024;

/// The whole regular file `path`; `None` when it does not exist. With
/// `limit`, a file larger than that is refused by its size, unread.
pub fn read(path: &Path, limit: Option<u64>) -> Result<Option<Vec<u8>>> {
    let Some((dir, name)) = parent(path, false)? else {
        return Ok(None);
    };
    read_at(&dir, &name, path, limit)
}

fn read_at(
    dir: &OwnedFd,
    name: &OsStr,
    path: &Path,
    limit: Option<u64>,
) -> Result<Option<Vec<u8>>> {
    let Some((mut f, st)) = open_at(dir, name, path, How::READ)? else {
        return Ok(None);
    };
    let len = st.st_size.max(0) as u64;
    if let Some(limit) = limit
        && len > limit
    {
        return Err(Error::corrupt(
            path,
            format!("{len} bytes, above the limit of {limit} bytes for a record file"),
        ));
    }
    // One byte more than the size: the read that returns 0 then ends it
    // without growing the buffer.
    let mut bytes = Vec::with_capacity(len as usize + 1);
    // Through `take`: a `File`'s own `read_to_end` asks for the size again
    // (`statx`, `lseek`), two system calls for each of the dozen files a
    // point operation reads.
    (&mut f)
        .take(u64::MAX)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(Some(bytes))
}

/// A directory of the store opened once (reached as [`open_dir`] reaches
/// it, never through a link), whose files are then reached by name with one
/// `openat` each instead of a walk from the store's root: for the commands
/// that touch thousands of files of one directory (`store check`, an
/// import's commit). The same rules hold for each file as for [`open`].
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

impl Dir {
    /// The directory `path`; `None` when it does not exist. With `create`,
    /// it and the missing ones on the way are created (0700).
    pub fn open(path: &Path, create: bool) -> Result<Option<Dir>> {
        let (base, dirs) = dir_parts(path)?;
        Ok(walk(&base, &dirs, create)?.map(|fd| Dir {
            fd,
            path: path.to_path_buf(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `name` in this one, never through a link (as
    /// [`Dir::open`] reaches each directory on its way); with `create`,
    /// created (0700) when missing, else `None` then.
    pub fn sub(&self, name: &OsStr, create: bool) -> Result<Option<Dir>> {
        let path = self.path.join(name);
        Ok(sub_dir(&self.fd, name, &path, create)?.map(|fd| Dir { fd, path }))
    }

    /// [`open`] of the file `name` in this directory.
    pub fn file(&self, name: &OsStr, how: How) -> Result<Option<File>> {
        Ok(self.file_len(name, how)?.map(|(f, _)| f))
    }

    /// [`Dir::file`] with the file's length when it was opened (from the
    /// `fstat` the open makes anyway).
    pub fn file_len(&self, name: &OsStr, how: How) -> Result<Option<(File, u64)>> {
        open_at(&self.fd, name, &self.path.join(name), how)
            .map(|o| o.map(|(f, st)| (f, opened_len(&st, how))))
    }

    /// [`read`] of the file `name` in this directory.
    pub fn read(&self, name: &OsStr, limit: Option<u64>) -> Result<Option<Vec<u8>>> {
        read_at(&self.fd, name, &self.path.join(name), limit)
    }

    /// [`lstat`] of `name` in this directory.
    pub fn lstat(&self, name: &OsStr) -> Result<Option<rfs::Stat>> {
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(st)),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(io(&self.path.join(name), e)),
        }
    }

    /// The names of the entries (not `.` and `..`).
    pub fn names(&self) -> Result<Vec<OsString>> {
        let entries = rfs::Dir::read_from(&self.fd).map_err(|e| io(&self.path, e))?;
        let mut out = Vec::new();
        for e in entries {
            let e = e.map_err(|e| io(&self.path, e))?;
            let name = e.file_name().to_bytes();
            if name != b"." && name != b".." {
                out.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(out)
    }
}

/// Directories of one store opened once each for many reads in them (see
/// [`Dir`]), by store-relative path: a batch of key lookups at a million
/// customers reads thousands of small buckets in 256 directories, and each
/// read is then one `openat` instead of a walk from the store's root.
pub struct Dirs<'a> {
    root: &'a Path,
    open: std::collections::HashMap<String, Option<Dir>>,
}

impl<'a> Dirs<'a> {
    pub fn new(root: &'a Path) -> Self {
        Dirs {
            root,
            open: Default::default(),
        }
    }

    /// The directory of the store-relative file `rel` (opened at its first
    /// use; `None` when it does not exist) and the file's name.
    fn at<'r>(&mut self, rel: &'r str) -> Result<(Option<&Dir>, &'r OsStr)> {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        self.reach(dir, false)?;
        Ok((self.open[dir].as_ref(), OsStr::new(name)))
    }

    /// The store-relative directory `dir`, created (0700) with the missing
    /// ones on its way, each through its parent as [`Dirs::read`] reaches
    /// them (a batch's commit writes in thousands of directories).
    pub fn ensure(&mut self, dir: &str) -> Result<&Dir> {
        self.reach(dir, true)?;
        self.get(dir)
            .ok_or_else(|| Error::io(&self.root.join(dir), std::io::ErrorKind::NotFound.into()))
    }

    /// The directory `dir` as [`Dirs::ensure`] left it open.
    pub fn get(&self, dir: &str) -> Option<&Dir> {
        self.open.get(dir).and_then(Option::as_ref)
    }

    /// Open the store-relative directory `dir` into the cache (created
    /// with the missing ones on its way when `create`): through its parent,
    /// itself cached (one `openat`, and none at all under a parent known to
    /// be missing: the levels of a key's path that were never split), the
    /// store's root walked to once.
    fn reach(&mut self, dir: &str, create: bool) -> Result<()> {
        match self.open.get(dir) {
            Some(Some(_)) => return Ok(()),
            Some(None) if !create => return Ok(()),
            _ => {}
        }
        let d = match dir.rsplit_once('/') {
            None => Dir::open(&self.root.join(dir), create)?,
            Some((_, "" | "." | "..")) => {
                return Err(damaged(
                    &self.root.join(dir),
                    "is not a directory path inside the store",
                ));
            }
            Some((parent, name)) => {
                self.reach(parent, create)?;
                match &self.open[parent] {
                    Some(p) => p.sub(OsStr::new(name), create)?,
                    None => None,
                }
            }
        };
        self.open.insert(dir.to_string(), d);
        Ok(())
    }

    /// [`read`] of the store-relative file `rel` (refused past `limit`
    /// bytes, when there is one).
    pub fn read(&mut self, rel: &str, limit: Option<u64>) -> Result<Option<Vec<u8>>> {
        match self.at(rel)? {
            (Some(d), name) => d.read(name, limit),
            (None, _) => Ok(None),
        }
    }

    /// The path of the store-relative `rel`.
    pub fn path_of(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// [`open`] of the store-relative file `rel` (not created: `None` when
    /// it or its directory does not exist).
    /// The file's length comes with it (see [`Dir::file_len`]).
    pub fn open_file(&mut self, rel: &str) -> Result<Option<(File, u64)>> {
        match self.at(rel)? {
            (Some(d), name) => d.file_len(name, How::READ),
            (None, _) => Ok(None),
        }
    }

    /// [`lstat`] of the store-relative `rel`.
    pub fn lstat(&mut self, rel: &str) -> Result<Option<rfs::Stat>> {
        match self.at(rel)? {
            (Some(d), name) => d.lstat(name),
            (None, _) => Ok(None),
        }
    }

    /// Whether the store-relative `rel` is a directory (not a link to one).
    pub fn is_dir(&mut self, rel: &str) -> Result<bool> {
        Ok(self
            .lstat(rel)?
            .is_some_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Directory))
    }
}

/// What `path` itself is (a link is not followed); `None` when it does not
/// exist.
pub fn lstat(path: &Path) -> Result<Option<rfs::Stat>> {
    let Some((dir, name)) = parent(path, false)? else {
        return Ok(None);
    };
    match rfs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(st)),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

/// Whether something exists at `path` (a link counts, unfollowed).
pub fn exists(path: &Path) -> Result<bool> {
    Ok(lstat(path)?.is_some())
}

/// Rename `from` to `to`, both in one directory (a temp file over its
/// target). A link at `to` is replaced, never followed.
pub fn rename(from: &Path, to: &Path) -> Result<()> {
    let Some((dir, from_name)) = parent(from, false)? else {
        return Err(Error::io(
            from,
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
    };
    if from.parent() != to.parent() {
        return Err(damaged(to, "is not in the directory of its temp file"));
    }
    let to_name = to.file_name().unwrap_or_default();
    rfs::renameat(&dir, from_name.as_os_str(), &dir, to_name).map_err(|e| io(to, e))
}

/// Remove the file `path` (a link itself, never its target); nothing to do
/// when it does not exist.
pub fn remove(path: &Path) -> Result<()> {
    let Some((dir, name)) = parent(path, false)? else {
        return Ok(());
    };
    match rfs::unlinkat(&dir, name.as_os_str(), AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(io(path, e)),
    }
}

/// The entries of the directory `path` with their types (a link is listed
/// as a link); `None` when it does not exist.
pub fn list(path: &Path) -> Result<Option<Vec<(OsString, FileType)>>> {
    let Some(dir) = open_dir(path)? else {
        return Ok(None);
    };
    let fd = OwnedFd::from(dir);
    let entries = rfs::Dir::read_from(&fd).map_err(|e| io(path, e))?;
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|e| io(path, e))?;
        let name = e.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let name = OsStr::from_bytes(name).to_os_string();
        let mut t = e.file_type();
        if t == FileType::Unknown {
            t = rfs::statat(&fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
                .map(|st| FileType::from_raw_mode(st.st_mode))
                .unwrap_or(FileType::Unknown);
        }
        out.push((name, t));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`each_lines_piece`] gives of `bytes`, as one text, in how many
    /// pieces, and whether it found a partial last line.
    fn streamed(bytes: &[u8]) -> (Vec<u8>, usize, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bucket.log");
        std::fs::write(&path, bytes).unwrap();
        let (mut text, mut pieces) = (Vec::new(), 0);
        let partial = each_lines_piece(&path, LINES_BUFFER, &mut |p| {
            assert_eq!(p.last(), Some(&b'\n'), "a piece ends with its line");
            text.extend_from_slice(p);
            pieces += 1;
            Ok(())
        })
        .unwrap()
        .expect("the file exists");
        (text, pieces, partial)
    }

    #[test]
    fn lines_are_streamed_whole_across_the_buffer() {
        // Lines of 37 bytes do not divide the buffer: some straddle it.
        let mut bytes = Vec::new();
        for i in 0..10_000 {
            bytes.extend_from_slice(format!("cust-{i:08} csp_{i:020}\n").as_bytes());
        }
        assert!(bytes.len() > 3 * LINES_BUFFER);
        let (text, pieces, partial) = streamed(&bytes);
        assert_eq!(text, bytes);
        assert!(pieces > 3 && !partial, "{pieces}");
        // A partial last line is not one of the file's lines.
        bytes.extend_from_slice(b"torn-key csp_");
        assert_eq!(streamed(&bytes).0, text);
        assert!(streamed(&bytes).2);
        // A line longer than the buffer comes whole.
        let long = [vec![b'x'; 3 * LINES_BUFFER], b"\nnext csp_1\n".to_vec()].concat();
        assert_eq!(streamed(&long).0, long);
        assert_eq!(streamed(b""), (Vec::new(), 0, false));
    }

    #[test]
    fn a_missing_file_is_no_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut called = false;
        let found = each_lines_piece(&dir.path().join("none.log"), LINES_BUFFER, &mut |_| {
            called = true;
            Ok(())
        });
        assert!(found.unwrap().is_none() && !called);
    }
}
