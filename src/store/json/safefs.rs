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
//! Every operation takes the [`Root`] to walk from, passed by the store that
//! owns it (a `JsonStore` holds its own; nothing is kept in the process, so
//! two stores open in one process each walk from their own root). A path
//! under the root is walked from it; a path outside it is opened the
//! ordinary way, its last component still not followed. A scratch file
//! outside any store (in the system's temp directory) is given that
//! directory as its root.
//!
//! Reading a file whole or by lines is in `safefs/reading.rs`, the
//! directories opened once for many files in `safefs/dir.rs`; here, reaching
//! a path and opening, renaming, removing and listing what is there.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};

mod dir;
mod reading;

pub use self::dir::{Dir, Dirs};
pub use self::reading::{LINES_BUFFER, each_lines_piece, read};

/// The root directory of a store (`--data-dir`), where the walk of each
/// path under it starts (see the module doc): owned by the store, which
/// passes it to every operation.
#[derive(Debug, Clone)]
pub struct Root(PathBuf);

impl Root {
    /// The directory `path`, taken as given (a link to it is followed).
    pub fn new(path: impl Into<PathBuf>) -> Root {
        Root(path.into())
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// The path of `rel` under the root.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.0.join(rel)
    }

    pub fn display(&self) -> std::path::Display<'_> {
        self.0.display()
    }
}

impl AsRef<Path> for Root {
    fn as_ref(&self) -> &Path {
        &self.0
    }
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
fn split(root: &Root, path: &Path) -> Option<(PathBuf, Vec<OsString>, OsString)> {
    let name = path.file_name()?.to_os_string();
    if let Ok(rest) = path.strip_prefix(root.path())
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
        return Some((root.0.clone(), dirs, name));
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
fn parent(root: &Root, path: &Path, create: bool) -> Result<Option<(OwnedFd, OsString)>> {
    let Some((base, dirs, name)) = split(root, path) else {
        return Err(damaged(path, "is not a file path inside the store"));
    };
    Ok(walk(&base, &dirs, create)?.map(|fd| (fd, name)))
}

/// The directory `path` as (the directory to start from, the directories
/// to walk from it).
fn dir_parts(root: &Root, path: &Path) -> Result<(PathBuf, Vec<OsString>)> {
    if let Ok(rest) = path.strip_prefix(root.path()) {
        let mut dirs = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(c) => dirs.push(c.to_os_string()),
                _ => return Err(damaged(path, "is not a directory path inside the store")),
            }
        }
        return Ok((root.0.clone(), dirs));
    }
    Ok((path.to_path_buf(), Vec::new()))
}

/// Check that every directory on the way to `path` inside the store is a
/// real directory, not a link (a missing one is fine: the open that
/// follows says so). For callers that open `path` themselves with
/// `O_NOFOLLOW` (see [`open_error`]).
pub fn check_dirs(root: &Root, path: &Path) -> Result<()> {
    let Some((base, dirs, _)) = split(root, path) else {
        return Err(damaged(path, "is not a file path inside the store"));
    };
    walk(&base, &dirs, false).map(|_| ())
}

/// The error of an `O_NOFOLLOW | O_NONBLOCK` open of `path` that failed
/// with `e`: a link, a FIFO without a writer, a directory is named as what
/// it is.
pub fn open_error(root: &Root, path: &Path, e: std::io::Error) -> Error {
    let describe = matches!(
        e.raw_os_error(),
        Some(c) if c == Errno::LOOP.raw_os_error()
            || c == Errno::NXIO.raw_os_error()
            || c == Errno::ISDIR.raw_os_error()
            || c == Errno::NOTDIR.raw_os_error()
    );
    if describe && let Ok(Some(st)) = lstat(root, path) {
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
pub fn open_dir(root: &Root, path: &Path) -> Result<Option<File>> {
    let (base, dirs) = dir_parts(root, path)?;
    Ok(walk(&base, &dirs, false)?.map(File::from))
}

/// Create the directory `path` and the missing ones on the way (0700).
pub fn ensure_dir(root: &Root, path: &Path) -> Result<()> {
    let (base, dirs) = dir_parts(root, path)?;
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
pub fn open(root: &Root, path: &Path, how: How) -> Result<Option<File>> {
    Ok(open_len(root, path, how)?.map(|(f, _)| f))
}

/// [`open`] with the file's length when it was opened (from the `fstat`
/// the open makes anyway: `File::metadata` would ask again).
pub fn open_len(root: &Root, path: &Path, how: How) -> Result<Option<(File, u64)>> {
    let Some((dir, name)) = parent(root, path, false)? else {
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

/// What `path` itself is (a link is not followed); `None` when it does not
/// exist.
pub fn lstat(root: &Root, path: &Path) -> Result<Option<rfs::Stat>> {
    let Some((dir, name)) = parent(root, path, false)? else {
        return Ok(None);
    };
    match rfs::statat(&dir, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(st)),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

/// Whether something exists at `path` (a link counts, unfollowed).
pub fn exists(root: &Root, path: &Path) -> Result<bool> {
    Ok(lstat(root, path)?.is_some())
}

/// Rename `from` to `to`, both in one directory (a temp file over its
/// target). A link at `to` is replaced, never followed.
pub fn rename(root: &Root, from: &Path, to: &Path) -> Result<()> {
    let Some((dir, from_name)) = parent(root, from, false)? else {
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
pub fn remove(root: &Root, path: &Path) -> Result<()> {
    let Some((dir, name)) = parent(root, path, false)? else {
        return Ok(());
    };
    match rfs::unlinkat(&dir, name.as_os_str(), AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(e) => Err(io(path, e)),
    }
}

/// The entries of the directory `path` with their types (a link is listed
/// as a link); `None` when it does not exist.
pub fn list(root: &Root, path: &Path) -> Result<Option<Vec<(OsString, FileType)>>> {
    let Some(dir) = open_dir(root, path)? else {
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

    fn refused(r: Result<Option<Vec<u8>>>) -> String {
        r.expect_err("refused").errors[0].message.clone()
    }

    /// A path is walked from the root it is given, never through a link
    /// under it; for another root (another store's) the same path is
    /// outside, opened the ordinary way, its last component still not
    /// followed.
    #[test]
    fn a_path_is_walked_from_the_root_it_is_given() {
        let dir = tempfile::tempdir().unwrap();
        let (a, elsewhere) = (dir.path().join("a"), dir.path().join("elsewhere"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("f"), b"outside").unwrap();
        std::os::unix::fs::symlink(&elsewhere, a.join("linked")).unwrap();
        std::os::unix::fs::symlink(elsewhere.join("f"), a.join("l")).unwrap();
        let path = a.join("linked").join("f");

        let store = Root::new(&a);
        assert!(refused(read(&store, &path, None)).contains("symbolic link"));
        assert!(refused(read(&store, &a.join("l"), None)).contains("symbolic link"));

        let other = Root::new(dir.path().join("b"));
        assert_eq!(read(&other, &path, None).unwrap().unwrap(), b"outside");
        assert!(refused(read(&other, &a.join("l"), None)).contains("symbolic link"));
    }
}
