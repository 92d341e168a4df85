//! Durable file replacement: temp file in the same directory, write, `sync_all`,
//! rename over the target, fsync the directory. Files are created 0600 and
//! directories 0700 whatever the umask, because the store holds account numbers
//! and SSNs.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

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

/// Create `dir` and its missing parents with mode 0700.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io(dir, e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(|e| Error::io(dir, e))
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

/// Open (creating if needed) a file with mode 0600.
pub fn open_private(path: &Path, opts: &mut OpenOptions) -> Result<File> {
    let f = opts
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let meta = f.metadata().map_err(|e| Error::io(path, e))?;
    if meta.permissions().mode() & 0o777 != 0o600 {
        f.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(|e| Error::io(path, e))?;
    }
    Ok(f)
}

/// Replace `target` with `bytes` atomically; the caller syncs the directory
/// (see [`sync_dir`]) before it reports success.
pub fn write_file(target: &Path, bytes: &[u8]) -> Result<()> {
    crate::store::fault::point("before-write");
    let tmp = temp_path(target);
    // A killed writer may have left the temp behind.
    let _ = fs::remove_file(&tmp);
    let mut f = open_private(&tmp, OpenOptions::new().write(true).create_new(true))?;
    f.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
    crate::store::fault::point("after-write");
    f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    drop(f);
    crate::store::fault::point("after-sync");
    fs::rename(&tmp, target).map_err(|e| Error::io(target, e))?;
    crate::store::fault::point("after-rename");
    Ok(())
}

/// fsync a directory so that renames and removals in it are durable.
pub fn sync_dir(dir: &Path) -> Result<()> {
    crate::store::fault::point("before-dir-sync");
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// Remove a file if it exists.
pub fn remove_file(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Read a whole file; `None` when it does not exist.
pub fn read_opt(path: &Path) -> Result<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(path, e)),
    }
}
