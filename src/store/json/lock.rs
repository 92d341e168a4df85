//! The store's lock, in two parts, both taken with the standard library's
//! `File::lock` (`flock(2)`):
//!
//! - **The store's directory** decides who is inside: readers share it,
//!   a writer holds it exclusively across read-modify-write. A directory
//!   cannot be unlinked from under its holder the way a lock file can (a
//!   deleted `payctl.lock` let a second writer in), and it can be locked on
//!   a read-only mount, where a lock file cannot be opened for writing.
//! - **`payctl.lock`** is the writers' turn: a writer takes it exclusively
//!   first and keeps it until it is done; a reader passes through it
//!   (takes it shared, and lets go once inside). So a waiting writer holds
//!   back the readers that come after it and gets in as soon as the readers
//!   already inside finish: back-to-back readers cannot starve it. After
//!   taking it, a payctl checks that the path still names the file it
//!   locked (device and inode) and starts again if not. Should `payctl.lock`
//!   be missing on a read-only mount, or be a link or anything but a regular
//!   file (damage `store check` reports and `--repair` fixes), the directory
//!   lock alone still keeps writers apart; only the fairness is lost.
//!
//! A payctl that waits says so: it creates `payctl.knock` ([`KNOCK`]) in
//! the store's directory, again every [`KNOCK_EVERY`] while it waits. A
//! `payctl serve` that holds the store across its creates (see
//! `store/json/group/`) lets it go at its next checkpoint when it finds
//! one, and waits for the knock to be taken back (by the payctl, once it
//! is in, or when it gives up) before it takes the store again; without a
//! knock it keeps the store.
//!
//! The directory is checked the same way (the path must still name the
//! directory locked), a writer is refused on a read-only file system, and
//! on a store whose directory another user owns (see [`owner_check`]).

use std::fs::{File, TryLockError};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::safefs::{self, Root};
use crate::error::{Error, Result, code};

/// Name of the writers' turn file in the store's directory.
pub const LOCK: &str = "payctl.lock";

/// Name of the file that a payctl waiting for the lock creates (see the
/// module doc): empty, never part of the store.
pub const KNOCK: &str = "payctl.knock";

/// How often a waiting payctl creates [`KNOCK`] again (another waiter that
/// got in first took it back).
const KNOCK_EVERY: Duration = Duration::from_millis(16);

/// The environment variable that lets a user write a store whose directory
/// another user owns (see [`owner_check`]).
pub const ALLOW_OTHER_OWNER: &str = "PAYCTL_ALLOW_OTHER_OWNER";

/// What a waiting payctl is told, once: what it waits for.
pub type OnWait = Arc<dyn Fn(&str) + Send + Sync>;

/// How to wait for the lock.
#[derive(Clone)]
pub struct Wait {
    /// How long at most (`--lock-timeout`).
    pub timeout: Duration,
    /// Told once, when the lock is not free at once, what is waited for.
    pub on_wait: Option<OnWait>,
    /// Set (by a signal handler) to stop waiting.
    pub stop: Option<&'static AtomicBool>,
}

impl From<Duration> for Wait {
    fn from(timeout: Duration) -> Wait {
        Wait {
            timeout,
            on_wait: None,
            stop: None,
        }
    }
}

pub struct Lock {
    /// The store's directory, locked.
    dir: File,
    /// `payctl.lock`, held by a writer (a reader has let go of it).
    _gate: Option<File>,
    root: Root,
    /// A writer's stamps of `payctl.lock` just before and just after it
    /// marked itself inside (see [`mark_writer`]).
    marked: Option<(Stamp, Stamp)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Shared,
    Exclusive,
}

/// Why the wait ended without the lock.
enum Stopped {
    Timeout,
    Signal,
    Io(std::io::Error),
}

// The one place files are locked (clippy.toml denies it elsewhere).
#[allow(clippy::disallowed_methods)]
fn try_take(f: &File, mode: Mode) -> std::result::Result<(), TryLockError> {
    match mode {
        Mode::Shared => f.try_lock_shared(),
        Mode::Exclusive => f.try_lock(),
    }
}

/// Wait until `f` is locked in `mode`, or the deadline passes, or the stop
/// flag is set; `said` is set once `wait.on_wait` was told `what`. While it
/// waits, `knock(true)` knocks every [`KNOCK_EVERY`] (see the module doc);
/// when the wait ends, `knock(false)` takes the knock back (in or not, it
/// leaves the store as it found it; another waiter knocks again).
fn take(
    f: &File,
    mode: Mode,
    deadline: Instant,
    wait: &Wait,
    what: &str,
    said: &mut bool,
    knock: &dyn Fn(bool),
) -> std::result::Result<(), Stopped> {
    let began = Instant::now();
    let mut waited = Duration::ZERO;
    // When it knocked last.
    let mut knocked: Option<Duration> = None;
    let taken = loop {
        match try_take(f, mode) {
            Ok(()) => break Ok(()),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => break Err(Stopped::Io(e)),
        }
        if wait.stop.is_some_and(|s| s.load(Ordering::SeqCst)) {
            break Err(Stopped::Signal);
        }
        if Instant::now() >= deadline {
            break Err(Stopped::Timeout);
        }
        if !*said {
            if let Some(tell) = &wait.on_wait {
                tell(what);
            }
            *said = true;
        }
        if knocked.is_none_or(|at| waited >= at + KNOCK_EVERY) {
            knock(true);
            knocked = Some(waited);
        }
        // A short wait is retried often: a writer's commit holds the lock
        // for a millisecond or two, and the next one should not idle long
        // after it (retried every millisecond, 4 parallel create loops
        // left a sixth of the two cores idle; every 100 µs at first, each
        // round of an A/B made more creates:
        // bench/results/2026-11-28-1558-parallel-ab-100k.md).
        let pause = match waited {
            w if w < RETRY_SOON_FOR => RETRY_SOON,
            w if w < RETRY_FAST_FOR => Duration::from_millis(1),
            _ => Duration::from_millis(5),
        };
        std::thread::sleep(pause);
        // The time it took (a sleep this short overshoots by half).
        waited = began.elapsed();
    };
    if knocked.is_some() {
        knock(false);
    }
    taken
}

/// How long a waiting payctl retries the lock every [`RETRY_SOON`] (then
/// every millisecond up to [`RETRY_FAST_FOR`], then every 5 ms).
const RETRY_SOON_FOR: Duration = Duration::from_millis(20);
const RETRY_SOON: Duration = Duration::from_micros(100);

/// How long a waiting payctl retries the lock every millisecond at most.
const RETRY_FAST_FOR: Duration = Duration::from_millis(200);

/// Whether `f` and what `path` names now (a link followed: the root as
/// given) are one file (device and inode).
fn same_file(f: &File, path: &Path) -> bool {
    let Ok(a) = f.metadata() else {
        return false;
    };
    std::fs::metadata(path).is_ok_and(|b| b.dev() == a.dev() && b.ino() == a.ino())
}

/// Whether `f` is the entry `name` of the open directory `dir` now (device
/// and inode; a link is not followed): [`same_file`] without a walk from
/// the store's path (`dir` itself is checked against it afterwards).
fn same_entry(f: &File, dir: &File, name: &str) -> bool {
    let Ok(a) = f.metadata() else {
        return false;
    };
    rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|st| st.st_dev == a.dev() && st.st_ino == a.ino())
}

/// Refuse to write a store whose directory another user owns, as git does
/// with "dubious ownership": root writing a user's store would leave
/// records the user can no longer read. `PAYCTL_ALLOW_OTHER_OWNER=1` allows
/// it (the files written are then the writer's).
// The operator's override of this refusal is read where the refusal is
// made, so that no way of opening the store (CLI, serve, tests) skips it.
#[allow(clippy::disallowed_methods)]
pub fn owner_check(dir: &File, root: &Path) -> Result<()> {
    let meta = dir.metadata().map_err(|e| Error::io(root, e))?;
    if meta.uid() == rustix::process::geteuid().as_raw()
        || std::env::var(ALLOW_OTHER_OWNER).is_ok_and(|v| v == "1")
    {
        return Ok(());
    }
    Err(Error::store(
        code::STORE_OTHER_OWNER,
        format!(
            "the store at {} is owned by another user than the one this payctl runs \
             as: nothing was written (the files it wrote would not be the owner's); run \
             payctl as the store's owner, or set {ALLOW_OTHER_OWNER}=1 to write it anyway",
            root.display(),
        ),
    ))
}

/// Refuse a writer on a read-only file system, saying so.
fn writable_check(dir: &File, root: &Path) -> Result<()> {
    match rustix::fs::fstatvfs(dir) {
        Ok(st) if st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY) => Err(Error::store(
            code::STORE_IO,
            format!(
                "the store at {} is on a read-only file system: commands that only read \
                     work, this one writes (remount it read-write, or copy the store)",
                root.display()
            ),
        )),
        _ => Ok(()),
    }
}

/// How far the writers' count kept as the size of `payctl.lock` goes
/// before it starts again at 1 (a sparse file: no block is written).
const TURNS: u64 = 1 << 16;

/// A writer is inside: `payctl.lock` grows by a byte (its size is the
/// count of writers modulo [`TURNS`], its modification time changes), so
/// that a process that keeps answers across requests (`payctl serve`, see
/// [`stamp`]) knows, with one `stat`, that the store may have changed,
/// whoever changed it. Done before anything is written; a failure stops the
/// writer (an answer kept would otherwise outlive the change).
/// Its stamps before and after (see [`Lock::marked`]).
fn mark_writer(gate: &File) -> std::io::Result<(Stamp, Stamp)> {
    let before = gate.metadata()?;
    gate.set_len(before.len() % TURNS + 1)?;
    Ok((stamp_of(&before), stamp_of(&gate.metadata()?)))
}

fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    Stamp([
        m.dev() as i64,
        m.ino() as i64,
        m.size() as i64,
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    ])
}

/// What `payctl.lock` of the store at `root` says of its writers: device,
/// inode, size, modification and change times. Every writer changes it
/// before it writes (see [`mark_writer`]): while it is the same, no writer
/// has been inside since it was read. `None` when `payctl.lock` is missing
/// or is not a regular file (nothing can then be known without opening the
/// store). The count wraps at [`TURNS`] writers, which takes far longer than
/// a tick of the file system's clock, whose times are part of the stamp.
pub fn stamp(root: &Path) -> Option<Stamp> {
    file_stamp(&root.join(LOCK))
}

/// The same of any regular file (a link is not followed); `None` when
/// there is none.
pub fn file_stamp(path: &Path) -> Option<Stamp> {
    let st =
        rustix::fs::statat(rustix::fs::CWD, path, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()?;
    if rustix::fs::FileType::from_raw_mode(st.st_mode) != rustix::fs::FileType::RegularFile {
        return None;
    }
    Some(Stamp([
        st.st_dev as i64,
        st.st_ino as i64,
        st.st_size as i64,
        st.st_mtime as i64,
        st.st_mtime_nsec as i64,
        st.st_ctime as i64,
        st.st_ctime_nsec as i64,
    ]))
}

/// See [`stamp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp([i64; 7]);

/// Open `payctl.lock`: a writer creates it, a reader only opens it (a
/// reader may be on a read-only mount). `None` when it cannot be used (see
/// the module doc).
fn open_gate(root: &Root, path: &Path, mode: Mode, may_create: bool) -> Option<File> {
    let how = match mode {
        Mode::Exclusive => safefs::How {
            read: true,
            write: true,
            create: true,
            ..Default::default()
        },
        Mode::Shared => safefs::How::READ,
    };
    match safefs::open(root, path, how) {
        Ok(Some(f)) => Some(f),
        // A reader before any writer: make it if it can (never mind if not),
        // unless the store is another user's (a file of ours in it).
        Ok(None) if !may_create => None,
        Ok(None) => safefs::open(
            root,
            path,
            safefs::How {
                read: true,
                write: true,
                create: true,
                ..Default::default()
            },
        )
        .ok()
        .flatten(),
        Err(_) => None,
    }
}

impl Lock {
    /// Take the lock of the store at `root` in `mode`, waiting as `wait` says.
    pub fn acquire(root: &Root, mode: Mode, wait: &Wait) -> Result<Lock> {
        let start = Instant::now();
        let deadline = start + wait.timeout;
        let gate_path = root.join(LOCK);
        let mut said = false;
        // Never mind when it cannot be made (a read-only mount), and never
        // in another user's store (a file of ours in it): the holder lets
        // go when its writes pause.
        let mine = std::fs::metadata(root.path())
            .is_ok_and(|m| m.uid() == rustix::process::geteuid().as_raw());
        let knock = |on: bool| {
            if !mine {
                return;
            }
            let path = root.join(KNOCK);
            if !on {
                let _ = safefs::remove(root, &path);
                return;
            }
            let how = safefs::How {
                write: true,
                create: true,
                ..Default::default()
            };
            let _ = safefs::open(root, &path, how);
        };
        let stopped = |why: Stopped, what: &str| -> Error {
            match why {
                Stopped::Io(e) => Error::io(root.path(), e),
                Stopped::Signal => Error::store(
                    code::STORE_BUSY,
                    format!("stopped by a signal while waiting for {what}"),
                ),
                Stopped::Timeout => Error::store(
                    code::STORE_BUSY,
                    format!(
                        "waited {}s for {what} (see --lock-timeout)",
                        wait.timeout.as_secs_f64()
                    ),
                ),
            }
        };
        loop {
            let dir = safefs::open_dir(root, root.path())?.ok_or_else(|| {
                Error::io(
                    root.path(),
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                )
            })?;
            if mode == Mode::Exclusive {
                owner_check(&dir, root.path())?;
                writable_check(&dir, root.path())?;
            }
            let mine = dir
                .metadata()
                .is_ok_and(|m| m.uid() == rustix::process::geteuid().as_raw());
            let gate = open_gate(root, &gate_path, mode, mine);
            if let Some(g) = &gate {
                let what = match mode {
                    Mode::Exclusive => format!(
                        "the writers' turn {}: another payctl is writing to this store or waiting to",
                        gate_path.display()
                    ),
                    Mode::Shared => format!(
                        "the writers' turn {}: a payctl is writing to this store or waiting for the readers before it",
                        gate_path.display()
                    ),
                };
                take(
                    g,
                    mode,
                    deadline,
                    wait,
                    &format!("lock on {what}"),
                    &mut said,
                    &knock,
                )
                .map_err(|w| stopped(w, &what))?;
                if !same_entry(g, &dir, LOCK) {
                    // Deleted or replaced while we waited: the next payctl
                    // locks the new one, so must we.
                    continue;
                }
            }
            let what = match mode {
                Mode::Exclusive => format!(
                    "the readers (or the writer) already inside the store at {} to finish",
                    root.display()
                ),
                Mode::Shared => format!(
                    "the writer inside the store at {} to finish",
                    root.display()
                ),
            };
            take(
                &dir,
                mode,
                deadline,
                wait,
                &format!("lock on {}: {what}", root.display()),
                &mut said,
                &knock,
            )
            .map_err(|w| stopped(w, &what))?;
            if !same_file(&dir, root.path()) {
                continue;
            }
            let gate = match mode {
                // A reader is inside: it no longer holds back anyone.
                Mode::Shared => None,
                Mode::Exclusive => gate,
            };
            let marked = match &gate {
                Some(g) => Some(mark_writer(g).map_err(|e| Error::io(&gate_path, e))?),
                None => None,
            };
            return Ok(Lock {
                dir,
                _gate: gate,
                root: root.clone(),
                marked,
            });
        }
    }

    /// What the entry `name` of the store's directory locked is (a link is
    /// not followed); `None` when there is none. One `fstatat` on the
    /// directory held, where a walk from the store's path would open it
    /// again (every request of `payctl serve` checks a few names).
    pub fn lstat_entry(&self, name: &str) -> Result<Option<rustix::fs::Stat>> {
        use rustix::fs::{AtFlags, statat};
        match statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => Ok(Some(st)),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::io(&self.root.join(name), e.into())),
        }
    }

    /// Whether a payctl waiting for this lock knocked (see the module doc).
    pub fn knocked(&self) -> bool {
        self.lstat_entry(KNOCK).is_ok_and(|e| e.is_some())
    }

    /// Let go of the lock now, before this is dropped (see `JsonStore`'s
    /// `Drop`).
    // Letting go of the lock is locking too: here only (clippy.toml).
    #[allow(clippy::disallowed_methods)]
    pub fn release(&mut self) {
        let _ = self.dir.unlock();
        self._gate = None;
    }

    /// A writer's stamps of `payctl.lock` (see [`stamp`]) just before it
    /// marked itself inside, when no other writer could come between, and
    /// just after: `None` for a reader, or without `payctl.lock`.
    pub fn marked(&self) -> Option<(Stamp, Stamp)> {
        self.marked
    }

    /// The device and inode of the store's directory locked.
    pub fn dir_id(&self) -> Option<(u64, u64)> {
        self.dir.metadata().ok().map(|m| (m.dev(), m.ino()))
    }

    /// Change the mode of a held lock: let go of it all, then take it again
    /// (as a newcomer: a reader becoming a writer waits for its turn).
    // Letting go of the lock is locking too: here only (clippy.toml).
    #[allow(clippy::disallowed_methods)]
    pub fn relock(&mut self, mode: Mode, wait: &Wait) -> Result<()> {
        let _ = self.dir.unlock();
        self._gate = None;
        let root = self.root.clone();
        *self = Lock::acquire(&root, mode, wait)?;
        Ok(())
    }
}
