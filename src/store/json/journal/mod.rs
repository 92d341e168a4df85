//! Multi-file atomicity. A write transaction collects its operations, writes
//! them all to `journal.json` (temp, sync, rename, sync dir: the commit point),
//! applies them, syncs the directories whose entries changed and removes the
//! journal (the removal is made durable by the next commit's sync of the
//! directory: until then a crash may bring the journal back, which is
//! harmless since a replay is exact). A
//! process killed after the commit point leaves the journal behind and the
//! next payctl to open the store replays it; every operation is idempotent
//! (a put is a whole file, an append truncates to the length the file had
//! when the transaction began), so a replay after a partial apply is exact.
//!
//! A small journal (a point operation, at most [`BATCH_OPS`] operations) is
//! applied without a sync of its files, and kept as [`APPLIED`] until many
//! such commits are made durable by one `syncfs` ([`commit_applied`]: two
//! syncs a commit instead of one per file; a machine that restarts before
//! that replays [`APPLIED`], known by its boot id). A large one (an import
//! chunk, a worker batch, a repair) is applied without a sync per file: puts
//! write their file in place, and one [`atomic::BatchSync`] makes everything
//! durable before the journal is removed. The crash guarantee is the same:
//! until every applied file is durable a journal stays, and its replay
//! rewrites every file whole (a file torn by the crash included) before any
//! command reads.
//!
//! (Without a boot id, off Linux, a small journal is applied file by file,
//! each with temp file, `sync_all`, rename and a sync of its directory.)

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::atomic;
use super::safefs::{self, Root};
use crate::error::{Error, Result};
use crate::store::outcomes::Outcomes;

mod applied;
mod apply;
mod log;
use applied::*;
pub use applied::{applied_is_stale, settle};
use apply::*;
pub use log::Log;

pub const JOURNAL: &str = "journal.json";

/// The operations of the point commits applied since their files were last
/// synced (see [`commit_applied`]).
pub const APPLIED: &str = "applied.json";

/// The [`APPLIED`] that a point commit made obsolete (its journal holds
/// all of it), renamed aside instead of replaced: replacing a file frees its
/// blocks, which on a file system mounted with `discard` waits for the
/// device (0.5-0.9 ms on this machine, a sixth of a profile create's time
/// under the store's lock). The process removes it once it has let go of the
/// lock ([`remove_retired`]); one left by a killed payctl is replaced by the
/// next point commit. Nothing reads it, and `store check` passes over it as
/// over any name that is not the store's.
pub const RETIRED: &str = "applied.old";

/// What the journal keeps from one commit of an open store to the next:
/// owned by the store ([`super::JsonStore`]), never by the process, so two
/// stores in one process keep apart.
#[derive(Debug, Default)]
pub struct State {
    /// What the commits did (see [`Outcomes`]).
    pub outcomes: Arc<Outcomes>,
    /// Whether a point commit renamed an [`APPLIED`] aside that is not
    /// removed yet.
    retired_pending: AtomicBool,
    /// What [`settle_ahead`] made durable: the text of the [`APPLIED`] it
    /// read.
    settled_ahead: Mutex<Option<Vec<u8>>>,
}

/// Remove what the store's point commits renamed aside ([`RETIRED`]), if
/// anything: called when the store is let go. (Another payctl may have
/// renamed its own there since, which is as obsolete.)
pub fn remove_retired(root: &Root, st: &State) {
    if st.retired_pending.swap(false, Ordering::SeqCst) {
        let _ = safefs::remove(root, &root.join(RETIRED));
    }
}

/// Past this size of [`APPLIED`] (about 20 profile creates), the next
/// writer syncs the files it names before it takes the store's lock
/// ([`settle_ahead`]), and its point commit leaves them out of its journal:
/// each point commit rewrites [`APPLIED`] whole, so it stays small.
pub const SETTLE_BYTES: usize = 32 * 1024;

/// Past this size a point commit syncs the files under the lock itself
/// ([`settle`]): when writers came in faster than [`settle_ahead`] could
/// leave changes out (or a test knob turned it off).
pub const SETTLE_UNDER_LOCK_BYTES: usize = 2 * SETTLE_BYTES;

/// A writer about to take the store's lock: when [`APPLIED`] of this boot
/// has grown past [`SETTLE_BYTES`], one `syncfs` now, outside the lock,
/// makes durable every change it names (each was applied before its
/// journal was renamed [`APPLIED`], and it is read before the sync starts),
/// and the point commit that follows leaves them out of its journal
/// ([`without_settled`]). Under the lock that `syncfs` (3-15 ms every 20
/// creates) held back every other writer: with 4 loops of creates, 8% of
/// the time a create held the lock. Nothing is changed here: on any error,
/// or when a commit settled [`APPLIED`] meanwhile, the commit carries the
/// changes as before.
pub fn settle_ahead(root: &Root, st: &State) {
    if boot_id().is_none() || !crate::store::fault::settle_ahead() {
        return;
    }
    let path = root.join(APPLIED);
    let Ok(Some(stat)) = safefs::lstat(root, &path) else {
        return;
    };
    if (stat.st_size.max(0) as usize) <= SETTLE_BYTES {
        return;
    }
    let Ok(Some(text)) = safefs::read(root, &path, Some(4 * SETTLE_UNDER_LOCK_BYTES as u64)) else {
        return;
    };
    if text.len() <= SETTLE_BYTES || !written_this_boot(&text, &text) {
        return;
    }
    if atomic::fault(&path, "before-settle-ahead").is_err()
        || atomic::sync_filesystem(root).is_err()
    {
        return;
    }
    *st.settled_ahead.lock().unwrap_or_else(|e| e.into_inner()) = Some(text);
}

/// `text`, the [`APPLIED`] of this boot as a point commit found it under
/// the lock, without the changes that [`settle_ahead`] made durable: they
/// are the start of it, unless a commit settled it since (until then each
/// point commit only adds to its end).
fn without_settled(text: Vec<u8>, boot: &str, st: &State) -> Vec<u8> {
    let Some(synced) = st
        .settled_ahead
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    else {
        return text;
    };
    // Both are `{"boot":"..","ops":[...]}`: the synced one without its
    // closing `]}` begins the current one, whose rest is `]}` or `,...]}`.
    let head = &synced[..synced.len().saturating_sub(2)];
    let prefix = applied_prefix(boot);
    if head.len() <= prefix.len() || !text.starts_with(head) {
        return text;
    }
    let rest = &text[head.len()..];
    let mut out = Vec::with_capacity(prefix.len() + rest.len());
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(rest.strip_prefix(b",").unwrap_or(rest));
    out
}

/// Journals with more operations than this are applied as a batch (see the
/// module doc). A profile create has 4, an address create 1, a worker batch
/// of 200 attachments 400.
pub const BATCH_OPS: usize = 16;

#[derive(Debug, Clone)]
pub enum Op {
    Put {
        path: String,
        data: String,
    },
    /// A put whose content is one JSON document and a newline (a record):
    /// the journal holds the document as JSON rather than as a string, so
    /// writing a journal of thousands of records costs no escaping.
    PutJson {
        path: String,
        json: Box<RawValue>,
    },
    Delete {
        path: String,
    },
    Append {
        path: String,
        base_len: u64,
        data: String,
    },
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Put { path, .. }
            | Op::PutJson { path, .. }
            | Op::Delete { path }
            | Op::Append { path, .. } => path,
        }
    }
}

/// The record `value` as a [`Op::PutJson`] of `path`.
pub fn put_json<T: Serialize>(path: String, value: &T) -> Op {
    Op::PutJson {
        path,
        json: serde_json::value::to_raw_value(value).expect("records serialize"),
    }
}

/// How an operation is written in `journal.json`: `{"op": "put", "path",
/// "data"}` (or `"json"`: the document itself), `{"op": "delete", "path"}`,
/// `{"op": "append", "path", "base_len", "data"}`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Put,
    Delete,
    Append,
}

#[derive(Serialize)]
struct EntryRef<'a> {
    op: Kind,
    path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    base_len: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    json: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Entry {
    op: Kind,
    path: String,
    #[serde(default)]
    base_len: Option<u64>,
    #[serde(default)]
    data: Option<String>,
    #[serde(default)]
    json: Option<Box<RawValue>>,
}

impl Serialize for Op {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let (op, base_len, data, json) = match self {
            Op::Put { data, .. } => (Kind::Put, None, Some(data.as_str()), None),
            Op::PutJson { json, .. } => (Kind::Put, None, None, Some(&**json)),
            Op::Delete { .. } => (Kind::Delete, None, None, None),
            Op::Append { base_len, data, .. } => {
                (Kind::Append, Some(*base_len), Some(data.as_str()), None)
            }
        };
        EntryRef {
            op,
            path: self.path(),
            base_len,
            data,
            json,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Op {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let e = Entry::deserialize(d)?;
        let path = e.path;
        // Relative, inside the store: a damaged journal never writes elsewhere.
        if path.is_empty()
            || path.starts_with('/')
            || path
                .split('/')
                .any(|c| c.is_empty() || c == "." || c == "..")
        {
            return Err(serde::de::Error::custom(format!(
                "journal path {path:?} is not inside the store"
            )));
        }
        Ok(match (e.op, e.base_len, e.data, e.json) {
            (Kind::Put, None, Some(data), None) => Op::Put { path, data },
            (Kind::Put, None, None, Some(json)) => Op::PutJson { path, json },
            (Kind::Delete, None, None, None) => Op::Delete { path },
            (Kind::Append, Some(base_len), Some(data), None) => Op::Append {
                path,
                base_len,
                data,
            },
            _ => return Err(serde::de::Error::custom("not a journal operation")),
        })
    }
}

/// The bytes a put writes: a record's document and its newline.
pub(crate) fn json_file(json: &RawValue) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(json.get().len() + 1);
    bytes.extend_from_slice(json.get().as_bytes());
    bytes.push(b'\n');
    bytes
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Journal {
    pub ops: Vec<Op>,
}

impl Journal {
    /// About the size of its JSON text, in bytes.
    pub(crate) fn size(&self) -> usize {
        self.ops
            .iter()
            .map(|op| match op {
                Op::Put { path, data } | Op::Append { path, data, .. } => {
                    path.len() + data.len() + 64
                }
                Op::PutJson { path, json } => path.len() + json.get().len() + 64,
                Op::Delete { path } => path.len() + 32,
            })
            .sum()
    }
}

/// Write the journal durably, apply it, remove it.
///
/// The rename of `journal.json` into place is the commit point. An error
/// before it means nothing changed (the temp journal is removed): `Err`.
/// From it on the change is made, whatever happens next, since any payctl
/// that opens the store replays the journal: so an error while applying it,
/// syncing or removing it (a full disk: ENOSPC, EDQUOT, no inodes) is not
/// the caller's failure. The change is left to the next payctl's replay,
/// a warning naming the file is kept in the store's [`Outcomes`], and the answer
/// is `Ok`: a command never reports as failed a change that it made.
///
/// A point commit (at most [`BATCH_OPS`] operations, on a system that names
/// its boot) takes the cheaper way of [`commit_applied`]; the rest
/// [`commit_durable`].
pub fn commit(root: &Root, journal: &Journal, st: &State) -> Result<()> {
    match boot_id() {
        Some(boot) if !journal.ops.is_empty() && journal.ops.len() <= BATCH_OPS => {
            commit_applied(root, journal, boot, st)
        }
        _ => commit_durable(root, journal, st),
    }
}

/// [`commit`], every file it changes made durable before it returns (and
/// the changes that point commits left unsynced first, see [`settle`]):
/// for large journals, a store's creation and upgrade, a repair, a group.
pub fn commit_durable(root: &Root, journal: &Journal, st: &State) -> Result<()> {
    if journal.ops.is_empty() {
        return Ok(());
    }
    let path = root.join(JOURNAL);
    // An earlier commit of this process left unfinished: finish it first
    // (writing this journal over it would lose it). What point commits
    // applied unsynced is made durable, since this journal does not hold
    // it; APPLIED is removed with this journal's commit point (see
    // [`finish`]), so a refused commit leaves the store as it was.
    recover_pending(root)?;
    let applied = safefs::exists(root, &root.join(APPLIED))?;
    if applied {
        atomic::sync_filesystem(root)?;
    }
    // Serialized straight into its file: a large journal (an import chunk,
    // a repair) is megabytes, hundreds of them for a repair of a million
    // records.
    commit_text(
        root,
        &path,
        || {
            atomic::write_temp_with(root, &path, |w| {
                serde_json::to_writer(w, journal).map_err(std::io::Error::from)
            })
        },
        || finish(root, journal, &path, applied),
        &st.outcomes,
    )
}

/// The journal at `path`: `write_temp` writes and syncs its temp file, the
/// rename is the commit point, then `finish`: an error of `finish` is the
/// committed change's, kept as a warning (see [`commit`]), never the
/// caller's.
fn commit_text(
    root: &Root,
    path: &Path,
    write_temp: impl FnOnce() -> Result<PathBuf>,
    finish: impl FnOnce() -> Result<()>,
    outcomes: &Outcomes,
) -> Result<()> {
    let tmp = write_temp()?;
    atomic::rename_temp(root, &tmp, path)?;
    // The commit point.
    outcomes.count_committed();
    if let Err(e) = finish() {
        outcomes.count_unfinished();
        let why = e.first_message();
        outcomes.warn(format!(
            "the change was committed ({}), but finishing it failed: {why}; \
             the next payctl that can write completes it",
            path.display()
        ));
    }
    Ok(())
}

/// What follows the commit point: make the journal durable, apply it,
/// remove it.
fn finish(root: &Root, journal: &Journal, path: &Path, applied: bool) -> Result<()> {
    atomic::fault(path, "after-rename")?;
    if applied {
        // Synced before the commit point; removed before anything is
        // applied, durably (the sync of the directory below): a replay of
        // it after this journal's changes would undo them.
        atomic::remove_file(root, &root.join(APPLIED))?;
    }
    atomic::sync_dir(root, root.path())?;
    atomic::fault(path, "after-journal")?;
    apply(root, journal, false)?;
    atomic::fault(path, "before-journal-remove")?;
    // Not synced: until the next commit syncs the directory, a crash may
    // bring this journal back, and its replay rewrites what is already there
    // (every operation is idempotent, and no later write can have been
    // applied: the next commit syncs the directory before it applies).
    atomic::remove_file(root, path)
}

/// Apply the records of a group commit's log that a checkpoint applies
/// while the group's writes go on (see `store/json/group/`), and make them
/// durable; the log is left as it is.
pub fn apply_group(root: &Root, journal: &Journal) -> Result<()> {
    apply(root, journal, false)
}

/// Complete a journal that a commit of this process left unfinished (see
/// [`commit`]) before anything is built on the files it changes, and make
/// durable what point commits applied unsynced ([`settle`]): the files are
/// then exactly what the disk holds. Costs two `stat`s when there is
/// nothing. The caller holds the exclusive lock.
pub fn finish_pending(root: &Root) -> Result<()> {
    recover_pending(root)?;
    settle(root)
}

/// Complete a journal that a commit left unfinished, and replay changes
/// applied before the machine restarted ([`commit_applied`]): the files then
/// hold every commit. The caller holds the exclusive lock.
pub fn recover_pending(root: &Root) -> Result<()> {
    // Unfollowed: a link in place of the journal is damage that `recover`
    // names, never a journal to skip.
    if super::safefs::exists(root, &root.join(JOURNAL))?
        || (super::safefs::exists(root, &root.join(APPLIED))? && applied_is_stale(root)?)
    {
        recover(root)?;
    }
    Ok(())
}

/// The journal `bytes` read from `path`: one commit's, or the log of a
/// group commit's (see `journal/log.rs`).
fn parse(path: &Path, bytes: &[u8]) -> Result<Journal> {
    if log::is_log(bytes) {
        return log::parse(path, bytes);
    }
    serde_json::from_slice(bytes).map_err(|e| {
        Error::corrupt(
            path,
            format!("{e}; `payctl store check --repair` moves it aside"),
        )
    })
}

/// Replay a journal left by a killed writer. The caller holds the exclusive lock.
pub fn recover(root: &Root) -> Result<bool> {
    let path = root.join(JOURNAL);
    // A temp journal never reached the commit point: the transaction did not happen.
    atomic::remove_file(root, &atomic::temp_path(&path))?;
    let applied_path = root.join(APPLIED);
    // `journal.json` holds what APPLIED holds, when both are there (see
    // [`commit_applied`]), but for what [`settle_ahead`] synced before it
    // was written; APPLIED alone is replayed when it is stale.
    let (path, bytes) = match atomic::read_opt(root, &path)? {
        Some(bytes) => (path, bytes),
        None => match applied(root)? {
            Some(Applied::Stale) => match atomic::read_opt(root, &applied_path)? {
                Some(bytes) => (applied_path.clone(), bytes),
                None => return Ok(false),
            },
            _ => return Ok(false),
        },
    };
    let journal = parse(&path, &bytes)?;
    let replayed = (|| {
        if path == applied_path {
            apply_batch(root, &journal, true)?;
        } else {
            apply(root, &journal, true)?;
            // Its changes are durable now, and APPLIED's with them (those
            // it left out were synced before it was written).
            atomic::remove_file(root, &applied_path)?;
        }
        atomic::remove_file(root, &path)?;
        atomic::sync_dir(root, root.path())
    })();
    replayed.map_err(|mut e| {
        // Say whose write this is: not the command's own.
        for a in &mut e.errors {
            a.message = format!(
                "{} (while completing a change committed earlier, kept in {}; nothing else \
                 was changed; the next payctl that can write completes it)",
                a.message,
                path.display()
            );
        }
        e
    })?;
    Ok(true)
}

/// The files a pending journal changes, as its replay would leave them
/// (`None`: removed), computed in memory without writing anything: what a
/// reader shows when the replay cannot be written (a full disk). Store
/// relative paths.
pub fn overlay(root: &Root) -> Result<std::collections::HashMap<String, Option<Vec<u8>>>> {
    use std::collections::HashMap;
    let mut path = root.join(JOURNAL);
    let mut bytes = atomic::read_opt(root, &path)?;
    if bytes.is_none() {
        // Changes applied before the machine restarted (see [`recover`]).
        path = root.join(APPLIED);
        bytes = atomic::read_opt(root, &path)?;
    }
    let Some(bytes) = bytes else {
        return Ok(HashMap::new());
    };
    let journal = parse(&path, &bytes)?;
    let mut files: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    for op in journal.ops {
        match op {
            Op::Put { path, data } => {
                files.insert(path, Some(data.into_bytes()));
            }
            Op::PutJson { path, json } => {
                files.insert(path, Some(json_file(&json)));
            }
            Op::Delete { path } => {
                files.insert(path, None);
            }
            Op::Append {
                path,
                base_len,
                data,
            } => {
                let mut content = match files.remove(&path) {
                    Some(c) => c.unwrap_or_default(),
                    None => atomic::read_opt(root, &root.join(&path))?.unwrap_or_default(),
                };
                content.truncate(usize::try_from(base_len).unwrap_or(usize::MAX));
                content.extend_from_slice(data.as_bytes());
                files.insert(path, Some(content));
            }
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests;
