//! Point commits that share one cumulative journal, `applied.json`: how a
//! commit extends it, settles it, and how a boot that is not the running
//! one is told apart (see [`commit_applied`]).

use super::*;

/// A point commit whose files are not synced one by one (issue 17: a create
/// synced nine files, about 5 ms of a 2-core machine's flushes, all under
/// the store's lock).
///
/// The journal written is cumulative: the operations of every point commit
/// applied since the last [`settle`] (kept in [`APPLIED`]), then this one's,
/// written as [`commit_durable`] writes it (temp, sync, rename, sync of the
/// directory: the commit point). Its operations are then applied without a
/// sync and the journal renamed [`APPLIED`]. Past [`SETTLE_BYTES`] the next
/// writer makes everything durable with one `syncfs` before it takes the
/// lock, and its journal leaves those changes out ([`settle_ahead`]); past
/// [`SETTLE_UNDER_LOCK_BYTES`] a commit does it under the lock and removes
/// [`APPLIED`]. Two syncs a commit instead of nine, and one `syncfs` every
/// few dozen.
///
/// Crashes: a process killed before the rename to [`APPLIED`] leaves
/// `journal.json`, replayed by the next payctl as always (the whole
/// cumulative journal: every operation is idempotent and they are replayed
/// in order, so the files end as the last commit left them). A machine that
/// stops loses what the page cache had not written: [`APPLIED`] then names a
/// boot that is not the running one ([`boot_id`]), and the next payctl
/// replays it (a reader too) before anything reads the files. A commit that
/// does not extend [`APPLIED`] settles it first ([`finish_pending`]), so
/// [`APPLIED`] only ever holds every change since the files were last
/// synced, and `journal.json`, when both are there, holds all of it but
/// what [`settle_ahead`] synced before it was written.
pub(super) fn commit_applied(root: &Root, journal: &Journal, boot: &str, st: &State) -> Result<()> {
    let path = root.join(JOURNAL);
    // A journal an earlier commit left unfinished, or changes applied before
    // the machine restarted: replayed and synced first.
    let before = match pending_applied(root)? {
        Some(Applied::Current(text)) => Some(without_settled(text, boot, st)),
        Some(Applied::Stale) => {
            recover(root)?;
            None
        }
        None => None,
    };
    let mut text: Vec<u8> =
        Vec::with_capacity(before.as_ref().map_or(0, Vec::len) + journal.size() + boot.len() + 32);
    match &before {
        Some(t) => {
            // `{"boot":"..","ops":[...` without its closing `]}`.
            text.extend_from_slice(&t[..t.len() - 2]);
            if !t.ends_with(b"[]}") {
                text.push(b',');
            }
        }
        None => text.extend_from_slice(applied_prefix(boot).as_bytes()),
    }
    for (i, op) in journal.ops.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        serde_json::to_writer(&mut text, op).expect("journal serializes");
    }
    text.extend_from_slice(b"]}");
    commit_text(
        root,
        &path,
        || atomic::write_temp(root, &path, &text),
        || finish_applied(root, journal, &path, text.len(), st),
        &st.outcomes,
    )
}

/// What follows the commit point of [`commit_applied`].
pub(super) fn finish_applied(
    root: &Root,
    journal: &Journal,
    path: &Path,
    size: usize,
    st: &State,
) -> Result<()> {
    atomic::fault(path, "after-rename")?;
    atomic::sync_dir(root, root.path())?;
    atomic::fault(path, "after-journal")?;
    apply_unsynced(root, journal, false)?;
    atomic::fault(path, "before-journal-remove")?;
    // Not synced: lost in a crash, `journal.json` is back, which holds the
    // same operations. The earlier APPLIED goes aside first ([`RETIRED`]);
    // should that fail (there was none), the rename replaces whatever is
    // there.
    let applied = root.join(APPLIED);
    if safefs::rename(root, &applied, &root.join(RETIRED)).is_ok() {
        st.retired_pending.store(true, Ordering::SeqCst);
    }
    safefs::rename(root, path, &applied)?;
    if size > SETTLE_UNDER_LOCK_BYTES {
        settle(root)?;
    }
    Ok(())
}

/// Make durable what point commits applied unsynced ([`commit_applied`]):
/// one `syncfs` of the store's file system, then [`APPLIED`] removed (not
/// synced: the next commit's sync of the directory makes the removal
/// durable before it applies anything; until then a crash may bring it
/// back, and its replay rewrites what the files already hold).
///
/// (`syncfs` reports the write-back errors of the file system since the
/// descriptor it is given was opened, and an error no one has seen yet: one
/// that an earlier process saw and dropped is not reported again. The
/// journal of that process stays replayable until its boot ends, so such a
/// lost write is found as damage by `store check`, never silently.)
pub fn settle(root: &Root) -> Result<()> {
    let applied = root.join(APPLIED);
    if !safefs::exists(root, &applied)? {
        return Ok(());
    }
    atomic::fault(&applied, "before-settle")?;
    atomic::sync_filesystem(root)?;
    atomic::remove_file(root, &applied)
}

/// What [`APPLIED`] holds, as a commit sees it.
pub(super) enum Applied {
    /// Written since this machine started: its changes are in the files
    /// (maybe not on the disk yet); the text, to extend.
    Current(Vec<u8>),
    /// Written before the machine restarted, or not as this payctl writes
    /// it: its changes may not be in the files.
    Stale,
}

/// `journal.json` replayed when there is one (an unfinished commit), then
/// what [`APPLIED`] holds: `None` when there is none.
pub(super) fn pending_applied(root: &Root) -> Result<Option<Applied>> {
    if safefs::exists(root, &root.join(JOURNAL))? {
        recover(root)?;
    }
    applied(root)
}

pub(super) fn applied(root: &Root) -> Result<Option<Applied>> {
    let Some(text) = atomic::read_opt(root, &root.join(APPLIED))? else {
        return Ok(None);
    };
    Ok(Some(if written_this_boot(&text, &text) {
        Applied::Current(text)
    } else {
        Applied::Stale
    }))
}

/// Whether an [`APPLIED`] that begins with `head` and ends with `tail` was
/// written as this payctl writes it, since this machine started. (Its
/// prefix ends with `[`, so a text short enough for the two to overlap
/// never passes.)
pub(super) fn written_this_boot(head: &[u8], tail: &[u8]) -> bool {
    boot_id().is_some_and(|boot| {
        head.starts_with(applied_prefix(boot).as_bytes()) && tail.ends_with(b"]}")
    })
}

/// Whether [`APPLIED`] holds changes that must be replayed before the files
/// are read: written before this machine started (see [`commit_applied`]).
/// The caller checked that it exists.
/// Reads its first and last bytes only (every request of `payctl serve`
/// asks).
pub fn applied_is_stale(root: &Root) -> Result<bool> {
    use std::os::unix::fs::FileExt;
    let path = root.join(APPLIED);
    let Some(boot) = boot_id() else {
        return safefs::exists(root, &path);
    };
    let Some(f) = safefs::open(root, &path, safefs::How::READ)? else {
        return Ok(false);
    };
    let len = f.metadata().map_err(|e| Error::io(&path, e))?.len();
    let prefix = applied_prefix(boot);
    let n = prefix.len() as u64;
    if len < n + 2 {
        return Ok(true);
    }
    let mut head = vec![0; prefix.len()];
    let mut tail = [0u8; 2];
    f.read_exact_at(&mut head, 0)
        .and_then(|()| f.read_exact_at(&mut tail, len - 2))
        .map_err(|e| Error::io(&path, e))?;
    Ok(!written_this_boot(&head, &tail))
}

pub(super) fn applied_prefix(boot: &str) -> String {
    format!("{{\"boot\":\"{boot}\",\"ops\":[")
}

/// This machine's boot, as Linux names it: the page cache lives as long as
/// it. `None` elsewhere (then every commit is [`commit_durable`]).
pub(super) fn boot_id() -> Option<&'static str> {
    static BOOT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BOOT.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        let id = text.trim();
        (!id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
            .then(|| id.to_string())
    })
    .as_deref()
}
