//! Whole directory trees of the store, for snapshots (see `snapshot.rs`):
//! copied, removed, renamed and exchanged through open directories, one
//! component at a time, never through a link (as `safefs` reaches files):
//! a link, a FIFO or a device inside a tree is left out of a copy, and
//! removed (the link itself) with the tree.
//!
//! A copy writes every file new (0600, directories 0700) and does not sync
//! it: the caller makes a whole copy durable with one `syncfs` before
//! anything depends on it. Files are copied with `copy_file_range` (the
//! file system may share the blocks: a reflink on Btrfs or XFS); packs,
//! which nothing changes while a link shares them (see
//! `packs::group_pack`), are hard-linked where the file system allows.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::atomic;
use super::safefs::Root;
use crate::error::{Error, Result};

/// An open directory of the store and its path (for messages).
pub struct Tree {
    fd: OwnedFd,
    path: PathBuf,
}

fn io(path: &Path, e: Errno) -> Error {
    Error::io(path, std::io::Error::from_raw_os_error(e.raw_os_error()))
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Tree {
    /// The directory `path` (the store's root or one of its own, reached
    /// as `safefs` reaches it); `None` when it does not exist.
    pub fn open(root: &Root, path: &Path) -> Result<Option<Tree>> {
        Ok(super::safefs::open_dir(root, path)?.map(|f| Tree {
            fd: OwnedFd::from(f),
            path: path.to_path_buf(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `name` in this one (not a link to one); `None` when
    /// there is none.
    pub fn sub(&self, name: &str) -> Result<Option<Tree>> {
        let path = self.path.join(name);
        match rfs::openat(&self.fd, name, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Some(Tree { fd, path })),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(io(&path, e)),
        }
    }

    /// The directory `name` in this one, created (0700) when missing.
    pub fn ensure(&self, name: &str) -> Result<Tree> {
        let path = self.path.join(name);
        match rfs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o700)) {
            Ok(()) | Err(Errno::EXIST) => {}
            Err(e) => return Err(io(&path, e)),
        }
        self.sub(name)?
            .ok_or_else(|| io(&path, Errno::NOENT))
            .and_then(|t| {
                rfs::fchmod(&t.fd, Mode::from_raw_mode(0o700)).map_err(|e| io(&path, e))?;
                Ok(t)
            })
    }

    /// Whether `name` is in this directory (a link counts, unfollowed).
    pub fn has(&self, name: &str) -> Result<bool> {
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(_) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(io(&self.path.join(name), e)),
        }
    }

    /// The entries, with their types (a link is a link).
    fn entries(&self) -> Result<Vec<(OsString, FileType)>> {
        let list = rfs::Dir::read_from(&self.fd).map_err(|e| io(&self.path, e))?;
        let mut out = Vec::new();
        for e in list {
            let e = e.map_err(|e| io(&self.path, e))?;
            let name = e.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let name = OsStr::from_bytes(name).to_os_string();
            let mut t = e.file_type();
            if t == FileType::Unknown {
                t = rfs::statat(&self.fd, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW)
                    .map(|st| FileType::from_raw_mode(st.st_mode))
                    .unwrap_or(FileType::Unknown);
            }
            out.push((name, t));
        }
        Ok(out)
    }

    /// The names of the directories in this one (not links to them).
    pub fn dirs(&self) -> Result<Vec<String>> {
        Ok(self
            .entries()?
            .into_iter()
            .filter(|(_, t)| *t == FileType::Directory)
            .filter_map(|(n, _)| n.into_string().ok())
            .collect())
    }

    /// Copy the tree `name` of this directory into `to` (as `name`, which
    /// must not exist there); with `link`, its files are hard-linked when
    /// the file system allows (files never changed while a link shares them).
    pub fn copy(&self, name: &str, to: &Tree, link: bool) -> Result<()> {
        let Some(from) = self.sub(name)? else {
            return Ok(());
        };
        let into = to.ensure(name)?;
        from.copy_entries(&into, link)
    }

    fn copy_entries(&self, to: &Tree, link: bool) -> Result<()> {
        for (name, t) in self.entries()? {
            let path = self.path.join(&name);
            if atomic::is_temp(&path) {
                continue;
            }
            match t {
                FileType::Directory => {
                    let Some(n) = name.to_str() else { continue };
                    self.copy(n, to, link)?;
                }
                FileType::RegularFile => self.copy_file(&name, to, link)?,
                // A link, a FIFO, a device: `store check` names it; a copy
                // never opens it.
                _ => {}
            }
        }
        Ok(())
    }

    fn copy_file(&self, name: &OsStr, to: &Tree, link: bool) -> Result<()> {
        let target = to.path.join(name);
        if link && rfs::linkat(&self.fd, name, &to.fd, name, AtFlags::empty()).is_ok() {
            return Ok(());
        }
        let source = self.path.join(name);
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let from = rfs::openat(&self.fd, name, flags, Mode::empty()).map_err(|e| io(&source, e))?;
        let st = rfs::fstat(&from).map_err(|e| io(&source, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Ok(());
        }
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let into = rfs::openat(&to.fd, name, flags, Mode::from_raw_mode(0o600))
            .map_err(|e| io(&target, e))?;
        rfs::fchmod(&into, Mode::from_raw_mode(0o600)).map_err(|e| io(&target, e))?;
        let (mut from, mut into) = (File::from(from), File::from(into));
        std::io::copy(&mut from, &mut into).map_err(|e| Error::io(&target, e))?;
        Ok(())
    }

    /// Remove the tree `name` of this directory (nothing when there is
    /// none): its files and links, then its directories, deepest first.
    pub fn remove(&self, name: &str) -> Result<()> {
        let path = self.path.join(name);
        match rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Err(Errno::NOENT) => return Ok(()),
            Err(e) => return Err(io(&path, e)),
            Ok(st) if FileType::from_raw_mode(st.st_mode) != FileType::Directory => {
                return rfs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(|e| io(&path, e));
            }
            Ok(_) => {}
        }
        if let Some(sub) = self.sub(name)? {
            for (n, t) in sub.entries()? {
                match (t, n.to_str()) {
                    (FileType::Directory, Some(n)) => sub.remove(n)?,
                    _ => match rfs::unlinkat(&sub.fd, n.as_os_str(), AtFlags::empty()) {
                        Ok(()) | Err(Errno::NOENT) => {}
                        Err(e) => return Err(io(&sub.path.join(&n), e)),
                    },
                }
            }
        }
        match rfs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(e) => Err(io(&path, e)),
        }
    }

    /// Rename `from` (in this directory) to `to` in `into`: a directory
    /// over nothing, or over an empty one.
    pub fn rename(&self, from: &str, into: &Tree, to: &str) -> Result<()> {
        rfs::renameat(&self.fd, from, &into.fd, to).map_err(|e| io(&into.path.join(to), e))
    }

    /// Exchange the entries `a` and `b` of this directory at once (Linux's
    /// `RENAME_EXCHANGE`): a snapshot replaced by its new copy in one step.
    /// Elsewhere (or on a file system without it): `a` renamed aside to
    /// `aside`, then `b` to `a`, then the old `a` to `b` (a crash between
    /// them leaves `aside`, which the caller knows to put back).
    pub fn exchange(&self, a: &str, b: &str, aside: &str) -> Result<()> {
        #[cfg(target_os = "linux")]
        {
            use rfs::RenameFlags;
            match rfs::renameat_with(&self.fd, a, &self.fd, b, RenameFlags::EXCHANGE) {
                Ok(()) => return Ok(()),
                Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
                Err(e) => return Err(io(&self.path.join(a), e)),
            }
        }
        self.rename(a, self, aside)?;
        self.rename(b, self, a)?;
        self.rename(aside, self, b)
    }

    /// fsync this directory (its entries' renames and removals durable).
    pub fn sync(&self) -> Result<()> {
        rfs::fsync(&self.fd).map_err(|e| io(&self.path, e))
    }
}
