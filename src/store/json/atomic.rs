//! Durable file replacement: temp file in the same directory, write, `sync_all`,
//! rename over the target, fsync the directory. Files are created 0600 and
//! directories 0700 whatever the umask, because the store holds account numbers
//! and SSNs. Each path is reached from the store's [`Root`], which the caller
//! passes (see safefs.rs).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::safefs::{self, Root};
use crate::error::{Error, Result};

/// The open flags [`open_private`] adds.
mod libc_flags {
    use rustix::fs::OFlags;
    pub const NOFOLLOW: i32 = OFlags::NOFOLLOW.bits() as i32;
    pub const NONBLOCK: i32 = OFlags::NONBLOCK.bits() as i32;
}

/// Suffix of temp files. A writer holds the exclusive lock, so a temp name
/// derived from the target is never used by two live writers at once; a temp
/// left by a killed writer is removed before the name is used again, and by
/// journal recovery and `store check --repair`.
pub const TEMP_SUFFIX: &str = ".payctl-tmp";

pub fn temp_path(target: &Path) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(TEMP_SUFFIX);
    target.with_file_name(name)
}

pub fn is_temp(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(TEMP_SUFFIX))
}

/// Create `dir` and its missing parents with mode 0700 (never through a
/// link under `root`: see safefs.rs).
pub fn ensure_dir(root: &Root, dir: &Path) -> Result<()> {
    safefs::ensure_dir(root, dir)
}

/// Restrict an existing directory to mode 0700: a store created in a
/// directory the user made beforehand (`mkdir` gives 0755) is private too.
pub fn restrict_dir(dir: &Path) -> Result<()> {
    let meta = fs::metadata(dir).map_err(|e| Error::io(dir, e))?;
    if meta.permissions().mode() & 0o777 == 0o700 {
        return Ok(());
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(|e| Error::io(dir, e))
}

/// Open (creating if needed) a file with mode 0600: never through a link
/// (in its directories or itself), never blocking on a FIFO, and only a
/// regular file (see safefs.rs).
pub fn open_private(root: &Root, path: &Path, opts: &mut OpenOptions) -> Result<File> {
    safefs::check_dirs(root, path)?;
    let f = opts
        .mode(0o600)
        .custom_flags(libc_flags::NOFOLLOW | libc_flags::NONBLOCK)
        .open(path)
        .map_err(|e| safefs::open_error(root, path, e))?;
    let meta = safefs::check_regular(&f, path)?;
    if meta.permissions().mode() & 0o777 != 0o600 {
        f.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(f)
}

/// Replace `target` with `bytes` atomically; the caller syncs the directory
/// (see [`sync_dir`]) before it reports success. On an error before the
/// rename, `target` is untouched and the temp file is removed (on a full
/// disk, it would hold space and be a stray file).
pub fn write_file(root: &Root, target: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = write_temp(root, target, bytes)?;
    rename_temp(root, &tmp, target)?;
    fault(target, "after-rename")
}

/// A fault-injection point (see fault.rs) whose ENOSPC names `path`.
pub fn fault(path: &Path, name: &str) -> Result<()> {
    crate::store::fault::point(name).map_err(|e| Error::io(path, e))
}

/// The first half of [`write_file`]: `bytes` written and synced to the temp
/// file of `target`, whose path is returned. On error nothing is left.
pub fn write_temp(root: &Root, target: &Path, bytes: &[u8]) -> Result<PathBuf> {
    // At once: a buffer would only copy them, and its 64 KB, new to the
    // process, cost a page fault each 4 KB (a point commit's journal is
    // written so under the store's lock).
    write_temp_file(root, target, |f| f.write_all(bytes))
}

/// [`write_temp`] of what `write` writes, through a buffer: a large journal
/// (a repair of a million records) is serialized straight into its file
/// instead of first into memory.
pub fn write_temp_with(
    root: &Root,
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<PathBuf> {
    write_temp_file(root, target, |f| {
        let mut w = std::io::BufWriter::with_capacity(64 << 10, f);
        write(&mut w)?;
        w.flush()
    })
}

/// The temp file of `target` created, written by `write`, synced; its path.
fn write_temp_file(
    root: &Root,
    target: &Path,
    write: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> Result<PathBuf> {
    let tmp = temp_path(target);
    fault(&tmp, "before-write")?;
    // A killed writer may have left the temp behind.
    let _ = remove_file(root, &tmp);
    let written = (|| {
        let mut f = open_private(root, &tmp, OpenOptions::new().write(true).create_new(true))?;
        write(&mut f).map_err(|e| Error::io(&tmp, e))?;
        fault(&tmp, "after-write")?;
        f.sync_all().map_err(|e| Error::io(&tmp, e))?;
        drop(f);
        fault(&tmp, "after-sync")
    })();
    if let Err(e) = written {
        let _ = remove_file(root, &tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// The second half of [`write_file`]: the temp file `tmp` renamed over
/// `target` (removed if the rename fails).
pub fn rename_temp(root: &Root, tmp: &Path, target: &Path) -> Result<()> {
    safefs::rename(root, tmp, target).inspect_err(|_| {
        let _ = remove_file(root, tmp);
    })
}

/// fsync a directory so that renames and removals in it are durable.
pub fn sync_dir(root: &Root, dir: &Path) -> Result<()> {
    fault(dir, "before-dir-sync")?;
    let d = safefs::open_dir(root, dir)?
        .ok_or_else(|| Error::io(dir, std::io::Error::from(std::io::ErrorKind::NotFound)))?;
    d.sync_all().map_err(|e| Error::io(dir, e))
}

/// Remove a file if it exists (a link itself, never what it points to).
pub fn remove_file(root: &Root, path: &Path) -> Result<()> {
    safefs::remove(root, path)
}

/// Read a whole regular file; `None` when it does not exist.
pub fn read_opt(root: &Root, path: &Path) -> Result<Option<Vec<u8>>> {
    safefs::read(root, path, None)
}

/// Read a whole record file (a customer, a transaction, the catalog, the
/// metadata); one larger than [`RECORD_BYTES`] is refused by its size,
/// unread. `None` when it does not exist.
pub fn read_record(root: &Root, path: &Path) -> Result<Option<Vec<u8>>> {
    safefs::read(root, path, Some(RECORD_BYTES))
}

pub use crate::limits::RECORD_BYTES;

/// Write `bytes` to `target` in place (create or truncate), without a sync.
/// Only for files a durable journal covers: a crash mid-write leaves the
/// journal behind, and its replay rewrites the whole file before anyone reads
/// it. The caller makes the files durable with [`sync_written`] before it
/// removes the journal.
pub fn write_unsynced(root: &Root, target: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = open_private(
        root,
        target,
        OpenOptions::new().write(true).create(true).truncate(true),
    )?;
    f.write_all(bytes).map_err(|e| Error::io(target, e))
}

/// Durability for a batch of files written with [`write_unsynced`]: begun
/// before the first write, finished once after the last.
///
/// On Linux this is one `syncfs(2)` on the store's file system: it flushes
/// the data and metadata of every file of that file system, ours included.
/// The descriptor is opened before the writes because `syncfs` reports the
/// writeback errors the file system saw since the descriptor was opened
/// (Linux 5.8+). One call costs about what a handful of `fsync`s do, where a
/// bulk write would otherwise need one `fsync` per file and directory (an
/// import of 5,000 profiles writes 10,000 files). std has no binding for it:
/// rustix's. Elsewhere each file and directory is synced in turn. The price of `syncfs`: it flushes what other programs left unwritten
/// on the same file system too, so a bulk write beside a heavy writer waits
/// for that writer's data as well; point operations, which write a few files,
/// keep their per-file `fsync`.
pub struct BatchSync {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    root: File,
    root_path: Root,
}

impl BatchSync {
    pub fn begin(root: &Root) -> Result<Self> {
        Ok(BatchSync {
            root: File::open(root.path()).map_err(|e| Error::io(root.path(), e))?,
            root_path: root.clone(),
        })
    }

    /// Make durable what was written since [`BatchSync::begin`]: `files`
    /// written, `dirs` whose entries changed.
    pub fn finish(self, files: &[PathBuf], dirs: &[PathBuf]) -> Result<()> {
        fault(self.root_path.path(), "before-dir-sync")?;
        #[cfg(target_os = "linux")]
        {
            let _ = (files, dirs);
            sync_fs(&self.root, self.root_path.path())
        }
        #[cfg(not(target_os = "linux"))]
        {
            for f in files {
                File::open(f)
                    .and_then(|f| f.sync_all())
                    .map_err(|e| Error::io(f, e))?;
            }
            for d in dirs {
                sync_dir(&self.root_path, d)?;
            }
            Ok(())
        }
    }
}

/// Make durable everything written on the file system of the store at
/// `root` (one `syncfs(2)`; where there is none, nothing: only Linux has the
/// boot id under which writes are left unsynced, see `journal::settle`).
pub fn sync_filesystem(root: &Root) -> Result<()> {
    #[cfg(target_os = "linux")]
    {
        let dir = File::open(root.path()).map_err(|e| Error::io(root.path(), e))?;
        sync_fs(&dir, root.path())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = root;
        Ok(())
    }
}

/// `syncfs(2)` on the file system holding the open directory `dir`.
#[cfg(target_os = "linux")]
fn sync_fs(dir: &File, path: &Path) -> Result<()> {
    rustix::fs::syncfs(dir).map_err(|e| Error::io(path, e.into()))
}

/// [`unlinked_scratch`] in the system's temporary directory, named for
/// `what`: for what has no store directory of its own (the memory and
/// PostgreSQL stores, the answer of a remote import).
pub(crate) fn temp_scratch(what: &str) -> Result<File> {
    let tmp = Root::new(std::env::temp_dir());
    let path = tmp.join(format!(
        "payctl-{what}-{}-{}{TEMP_SUFFIX}",
        std::process::id(),
        rand::random::<u64>(),
    ));
    unlinked_scratch(&tmp, &path)
}

/// A new private (0600) file at `path`, open for reading and writing and
/// already unlinked: scratch space that disappears with the process, whatever
/// way it ends.
pub(crate) fn unlinked_scratch(root: &Root, path: &Path) -> Result<File> {
    let f = open_private(
        root,
        path,
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true),
    )?;
    std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    Ok(f)
}
