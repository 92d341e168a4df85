//! The store's lock: a dedicated `payctl.lock` file (never a data file, since a
//! rename over a locked file would defeat the lock), locked with the standard
//! library's `File::lock`. Writers hold it exclusively across
//! read-modify-write; readers share it so they never see half of a change.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::{Error, Result, code};

pub struct Lock {
    file: File,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Shared,
    Exclusive,
}

impl Lock {
    /// Take the lock on `path`, waiting up to `timeout` and saying so on stderr.
    pub fn acquire(path: &Path, mode: Mode, timeout: Duration) -> Result<Lock> {
        let file = super::atomic::open_private(
            path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
        )?;
        let lock = Lock { file };
        lock.take(path, mode, timeout)?;
        Ok(lock)
    }

    fn try_take(&self, mode: Mode) -> std::result::Result<(), TryLockError> {
        match mode {
            Mode::Shared => self.file.try_lock_shared(),
            Mode::Exclusive => self.file.try_lock(),
        }
    }

    fn take(&self, path: &Path, mode: Mode, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        let mut said = false;
        loop {
            match self.try_take(mode) {
                Ok(()) => return Ok(()),
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => return Err(Error::io(path, e)),
            }
            if start.elapsed() >= timeout {
                return Err(Error::store(
                    code::STORE_BUSY,
                    format!(
                        "another payctl holds {} (waited {}s; see --lock-timeout)",
                        path.display(),
                        timeout.as_secs_f64()
                    ),
                ));
            }
            if !said {
                eprintln!("waiting for lock on {}", path.display());
                said = true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Change the mode of a held lock (release, then take again).
    pub fn relock(&self, path: &Path, mode: Mode, timeout: Duration) -> Result<()> {
        self.file.unlock().map_err(|e| Error::io(path, e))?;
        self.take(path, mode, timeout)
    }
}
