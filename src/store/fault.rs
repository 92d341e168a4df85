//! Fault injection for crash and full-disk tests. `PAYCTL_FAULT` names a
//! point of the write path (`before-write`, `after-write`, `after-sync`,
//! `after-rename`, `before-dir-sync`, `after-journal`,
//! `before-journal-remove`, `before-settle`: point commits' changes about to
//! be synced in bulk under the lock, see store/journal.rs,
//! `before-settle-ahead`: the same by the next writer before it takes the
//! lock, `before-checkpoint`: a group
//! commit's journal about to be applied, see store/json/group/) and what
//! happens there:
//!
//! - `after-rename` or `after-rename:3`: the process aborts at the first (the
//!   third) time the point is reached, as a power cut or `kill -9` would stop
//!   it;
//! - `enospc@after-rename` or `enospc@after-rename:3`: from the first (the
//!   third) time on, reaching the point fails with ENOSPC ("No space left on
//!   device"), as a full disk would fail the step that follows it (a full
//!   disk stays full: every later hit fails too).
//!
//! Unset, this costs one env lookup.
//!
//! All of it is compiled only with the `fault-injection` feature, which the
//! test suite turns on (see Cargo.toml) and no build for users has: without
//! it every knob here is a constant (no fault, no sleep, the defaults), and
//! the environment is never read. The names of the points are always here
//! ([`POINTS`]), for the tests to iterate.

#[cfg(feature = "fault-injection")]
use std::sync::OnceLock;
#[cfg(feature = "fault-injection")]
use std::sync::atomic::{AtomicU32, Ordering};

/// The points of the write path of every commit (see store/atomic.rs and
/// store/journal.rs), in the order a commit reaches them: what the crash
/// and full-disk tests stop each command at.
pub const WRITE_PATH: &[&str] = &[
    "before-write",
    "after-write",
    "after-sync",
    "after-rename",
    "before-dir-sync",
    "after-journal",
    "before-journal-remove",
    "before-settle",
];

/// Every point `PAYCTL_FAULT` may name: the [`WRITE_PATH`], then those of
/// one operation (the sync that a writer makes before it takes the lock, a
/// group commit's checkpoint, a piece of `store check --repair`'s rebuild,
/// the steps of a snapshot and of a restore).
pub const POINTS: &[&str] = &[
    "before-write",
    "after-write",
    "after-sync",
    "after-rename",
    "before-dir-sync",
    "after-journal",
    "before-journal-remove",
    "before-settle",
    "before-settle-ahead",
    "before-checkpoint",
    "before-log-compact",
    "after-log-compact",
    "rebuild-piece",
    "snapshot-copied",
    "restore-staged",
    "restore-swapped",
    "restore-done",
];

/// ENOSPC on Linux and the BSDs.
#[cfg(feature = "fault-injection")]
const ENOSPC: i32 = 28;

#[cfg(feature = "fault-injection")]
#[derive(Debug, PartialEq, Eq)]
enum Mode {
    Abort,
    NoSpace,
}

#[cfg(feature = "fault-injection")]
struct Target {
    mode: Mode,
    point: String,
    from: u32,
}

// The knobs of the process under test, as its environment set them: a
// test process's, never a store's (each test runs payctl as a process of
// its own with the knob it wants).
#[cfg(feature = "fault-injection")]
static TARGET: OnceLock<Option<Target>> = OnceLock::new();
#[cfg(feature = "fault-injection")]
static HITS: AtomicU32 = AtomicU32::new(0);

#[cfg(feature = "fault-injection")]
fn parse(v: &str) -> Target {
    let (mode, rest) = match v.strip_prefix("enospc@") {
        Some(rest) => (Mode::NoSpace, rest),
        None => (Mode::Abort, v),
    };
    let (point, from) = match rest.split_once(':') {
        Some((n, c)) => (n.to_string(), c.parse().unwrap_or(1)),
        None => (rest.to_string(), 1),
    };
    Target { mode, point, from }
}

/// Reached a point of the write path: abort, fail with ENOSPC, or go on
/// (see the module doc). The caller maps the error to the file concerned.
// The tests' fault injection is switched on by the environment of the
// process under test, read once here where the faults are; never set in use.
#[cfg(feature = "fault-injection")]
#[allow(clippy::disallowed_methods)]
pub fn point(name: &str) -> std::io::Result<()> {
    debug_assert!(POINTS.contains(&name), "{name} is not in fault::POINTS");
    let target = TARGET.get_or_init(|| std::env::var("PAYCTL_FAULT").ok().map(|v| parse(&v)));
    if let Some(t) = target
        && t.point == name
        && HITS.fetch_add(1, Ordering::SeqCst) + 1 >= t.from
    {
        match t.mode {
            Mode::Abort => std::process::abort(),
            Mode::NoSpace => return Err(std::io::Error::from_raw_os_error(ENOSPC)),
        }
    }
    Ok(())
}

/// Without the `fault-injection` feature: go on.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn point(_name: &str) -> std::io::Result<()> {
    Ok(())
}

/// `PAYCTL_SLOW=<point>:<milliseconds>[,<point>:<milliseconds>...]`
/// (tests): sleep that long each time `point` is reached, to widen a
/// window that other commands must be able to use (`import-chunk`: before
/// each chunk of `profile import` takes the store's lock; `store-listed`:
/// after a first use listed a directory that has no `meta.json` yet).
/// Unset, this costs one env lookup.
// Read from the environment for the same reason as `PAYCTL_FAULT` above.
#[cfg(feature = "fault-injection")]
#[allow(clippy::disallowed_methods)]
pub fn slow(point: &str) {
    static SLOW: OnceLock<Vec<(String, u64)>> = OnceLock::new();
    let slow = SLOW.get_or_init(|| {
        let v = std::env::var("PAYCTL_SLOW").unwrap_or_default();
        v.split(',')
            .filter_map(|one| {
                let (p, ms) = one.rsplit_once(':')?;
                Some((p.to_string(), ms.parse().ok()?))
            })
            .collect()
    });
    if let Some((_, ms)) = slow.iter().find(|(p, _)| p == point) {
        std::thread::sleep(std::time::Duration::from_millis(*ms));
    }
}

/// Without the `fault-injection` feature: no sleep.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn slow(_point: &str) {}

/// `PAYCTL_REBUILD_PIECE=<records>` (tests): the records per commit of
/// `store check --repair`'s rebuild (see store/rebuild.rs), so that a small
/// store is rebuilt in several pieces. Unset, `default`.
pub fn rebuild_piece(default: usize) -> usize {
    positive("PAYCTL_REBUILD_PIECE", default)
}

/// `PAYCTL_PACK_MIN=<customers>` (tests): how many new customers a commit
/// must create to pack them (see store/packs.rs), so that an import of a
/// few lines is packed under the crash and full-disk tests. Unset,
/// `default`.
pub fn pack_min(default: usize) -> usize {
    positive("PAYCTL_PACK_MIN", default)
}

/// `PAYCTL_CHECKPOINT_BYTES=<bytes>` (tests): the size of a group commit's
/// log past which it is applied (see store/json/group/), so that a test
/// makes many checkpoints with a few hundred creates. Unset, `default`.
pub fn checkpoint_bytes(default: usize) -> usize {
    positive("PAYCTL_CHECKPOINT_BYTES", default)
}

/// `PAYCTL_IDLE_MS=<milliseconds>` (tests): how long a group commit's
/// writes pause before its log is applied and the store let go (see
/// store/json/group/), so that a test's load, slow in a debug build, never
/// pauses that long. Unset, `default`.
pub fn idle_ms(default: usize) -> usize {
    positive("PAYCTL_IDLE_MS", default)
}

/// `PAYCTL_GROUP_PACK_BYTES=<bytes>` (tests): the size past which a group
/// commit's creates go to a new pack (see store/json/packs.rs), so that a
/// test fills several. Unset, `default`.
pub fn group_pack_bytes(default: u64) -> u64 {
    positive("PAYCTL_GROUP_PACK_BYTES", default as usize) as u64
}

/// `PAYCTL_SPLIT_BYTES=<bytes>` (tests): the size past which a key bucket
/// is split (see store/keys.rs), so that a test splits one with a few
/// hundred keys. Unset, `default`.
pub fn split_bytes(default: usize) -> usize {
    positive("PAYCTL_SPLIT_BYTES", default)
}

/// `PAYCTL_SETTLE_AHEAD=0` (tests): writers do not sync the point commits'
/// changes before they take the lock (see store/journal.rs), so that a test
/// reaches the sync under the lock. Unset, they do.
// Read from the environment for the same reason as `PAYCTL_FAULT` above.
#[cfg(feature = "fault-injection")]
#[allow(clippy::disallowed_methods)]
pub fn settle_ahead() -> bool {
    std::env::var_os("PAYCTL_SETTLE_AHEAD").is_none_or(|v| v != "0")
}

/// Without the `fault-injection` feature: they do.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn settle_ahead() -> bool {
    true
}

/// The positive count in the test knob `var`; `default` when it is unset
/// or not one.
// Read from the environment for the same reason as `PAYCTL_FAULT` above.
#[cfg(feature = "fault-injection")]
#[allow(clippy::disallowed_methods)]
fn positive(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(default)
}

/// Without the `fault-injection` feature: `default`.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
fn positive(_var: &str, default: usize) -> usize {
    default
}

#[cfg(all(test, feature = "fault-injection"))]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse() {
        let t = parse("after-rename:3");
        assert_eq!(
            (t.mode, t.point.as_str(), t.from),
            (Mode::Abort, "after-rename", 3)
        );
        let t = parse("enospc@before-write");
        assert_eq!(
            (t.mode, t.point.as_str(), t.from),
            (Mode::NoSpace, "before-write", 1)
        );
        let t = parse("enospc@after-sync:2");
        assert_eq!(
            (t.mode, t.point.as_str(), t.from),
            (Mode::NoSpace, "after-sync", 2)
        );
        let e = std::io::Error::from_raw_os_error(ENOSPC);
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    }
}
