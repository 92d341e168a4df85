//! The config file on disk: read (a regular file of bounded size),
//! written atomically (mode 0600, a link followed), and changed under a
//! lock on its directory so that two changes at once take turns.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::Config;
use super::check::file_error;
use crate::error::{Error, Result, code};

/// A config file larger than this is refused unread (it holds a few lines).
const MAX_BYTES: u64 = 1 << 20;

impl Config {
    /// Write the file atomically: a temp file beside it (0600), synced,
    /// renamed over it, the directory synced. A missing directory is
    /// created 0700. A link in place of the file is followed: the file it
    /// points to is replaced (dotfile managers link config files).
    fn save(&self) -> Result<()> {
        let target = real_target(&self.path)?;
        let dir = target.parent().unwrap_or(Path::new(".")).to_path_buf();
        let io = |p: &Path, e: std::io::Error| {
            Error::store(
                code::STORE_IO,
                format!("cannot write the config file {}: {e}", p.display()),
            )
        };
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(".payctl-tmp");
        let tmp = dir.join(name);
        let _ = std::fs::remove_file(&tmp);
        let written = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            // Exactly 0600, whatever the umask.
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.write_all(self.text().as_bytes())?;
            f.sync_all()?;
            drop(f);
            std::fs::rename(&tmp, &target)?;
            File::open(&dir)?.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&target, e));
        }
        Ok(())
    }
}

/// The file a write replaces: `path`, or what it links to.
fn real_target(path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            file_error(
                path,
                None,
                format!("is a link that cannot be followed: {e}"),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// The text of the file at `path`; None when it does not exist. Only a
/// regular file of at most [`MAX_BYTES`] is read (a FIFO would block).
pub(super) fn read(path: &Path) -> Result<Option<String>> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(file_error(path, None, format!("cannot be read: {e}"))),
    };
    if !meta.is_file() {
        return Err(file_error(path, None, "is not a regular file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(file_error(
            path,
            None,
            format!("is larger than {} KiB", MAX_BYTES >> 10),
        ));
    }
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| file_error(path, None, format!("cannot be read: {e}")))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| file_error(path, None, "is not UTF-8 text"))
}

/// Read the config file at `path`, change it with `f`, and write it back
/// when `f` succeeds, holding a lock on the file's directory throughout so
/// that two such changes at once take turns and neither is lost. The
/// directory is created 0700 when missing.
pub fn edit<T>(path: &Path, f: impl FnOnce(&mut Config) -> Result<T>) -> Result<T> {
    let target = real_target(path)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| {
                Error::store(
                    code::STORE_IO,
                    format!(
                        "cannot create the directory {} of the config file: {e}",
                        dir.display()
                    ),
                )
            })?;
    }
    let _turn = lock_dir(&dir)?;
    let mut config = Config::load(path)?;
    let out = f(&mut config)?;
    config.save()?;
    Ok(out)
}

/// The exclusive lock of `dir`, released when the file is dropped.
// The store's locks live in store/lock.rs; this one keeps two `payctl
// config` commands from losing each other's change to the config file,
// which is no store's.
#[allow(clippy::disallowed_methods)]
fn lock_dir(dir: &Path) -> Result<File> {
    let d = File::open(dir).map_err(|e| {
        Error::store(
            code::STORE_IO,
            format!(
                "cannot open the config file's directory {}: {e}",
                dir.display()
            ),
        )
    })?;
    d.lock().map_err(|e| {
        Error::store(
            code::STORE_IO,
            format!(
                "cannot lock the config file's directory {}: {e}",
                dir.display()
            ),
        )
    })?;
    Ok(d)
}
