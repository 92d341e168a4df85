//! Directories of the store opened once, their files then reached by name
//! (`openat`, `fstatat`) by the rules of [`super`] instead of by a walk from
//! the store's root for each.

use super::reading::read_at;
use super::*;

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
    pub fn open(root: &Root, path: &Path, create: bool) -> Result<Option<Dir>> {
        let (base, dirs) = dir_parts(root, path)?;
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
    root: &'a Root,
    open: std::collections::HashMap<String, Option<Dir>>,
}

impl<'a> Dirs<'a> {
    pub fn new(root: &'a Root) -> Self {
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
            None => Dir::open(self.root, &self.root.join(dir), create)?,
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

    /// The store's root these directories are under.
    pub fn root(&self) -> &'a Root {
        self.root
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
