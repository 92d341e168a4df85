//! The staged changes of a group commit's store and its log, shared by the
//! store's writes and the commits of its groups, and the checkpoint that
//! applies the log in the background (see the module above).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, LockResult, Mutex, MutexGuard};

use super::super::atomic;
use super::super::journal;
use super::super::safefs::Root;
use super::{CHECKPOINT_BYTES, Staged};
use crate::error::Result;
use crate::store::outcomes::Outcomes;

/// The staged changes of a store in a group commit, shared by the store
/// (its reads and its transactions' commits) and by the commit in progress.
#[derive(Debug, Default)]
pub(crate) struct Stage {
    staged: Mutex<Staged>,
    /// The group's log, held while a record is appended: one at a time,
    /// in the order of the commits.
    writer: Mutex<Writer>,
    /// A checkpoint applies the log's first records in the background
    /// (see the module doc): set when they are set aside, cleared (and
    /// [`Stage::applied`] told) when the thread is done.
    applying: Mutex<bool>,
    applied: Condvar,
    /// The last background checkpoint failed: the next one stops the
    /// writes and replays the whole log.
    pub(super) apply_failed: AtomicBool,
    /// The pack the group's creates append to (see `packs::group_pack`).
    pack: AtomicU64,
    /// (Unit tests) run where a background checkpoint has let the log's
    /// lock go and not yet ended.
    #[cfg(test)]
    after_unlock: Mutex<Option<fn(&Stage)>>,
}

/// The log, and how much of it a background checkpoint applies.
#[derive(Debug, Default)]
pub(super) struct Writer {
    pub(super) log: journal::Log,
    /// The log's length when its records were set aside to be applied in
    /// the background (those after it are the writes since).
    pub(super) applying_to: Option<u64>,
}

/// What a commit of the group did.
pub(super) struct Committed {
    /// The bytes of the log's records that no checkpoint is applying.
    pub(super) size: usize,
    /// The records up to this commit's, set aside to be applied in the
    /// background (see [`Staged::freeze`]), and the log's length after them.
    pub(super) frozen: Option<(journal::Journal, u64)>,
    /// A checkpoint set aside by an earlier commit applies the log's first
    /// records in the background.
    pub(super) behind: bool,
}

impl Stage {
    /// The staged changes of a group whose creates append to `pack`.
    pub(crate) fn new(pack: u64) -> Stage {
        let stage = Stage::default();
        stage.pack.store(pack, Ordering::SeqCst);
        stage
    }

    /// The pack the group's creates append to.
    pub(crate) fn pack(&self) -> u64 {
        self.pack.load(Ordering::SeqCst)
    }

    /// The pack after [`Stage::pack`], which the creates append to from
    /// now on: the store is held, so nothing else makes it.
    pub(crate) fn next_pack(&self) -> u64 {
        self.pack.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The staged changes (the lock of [`Mutex::lock`]).
    pub(crate) fn lock(&self) -> LockResult<MutexGuard<'_, Staged>> {
        self.staged.lock()
    }

    pub(super) fn staged(&self) -> MutexGuard<'_, Staged> {
        self.staged.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn writer(&self) -> MutexGuard<'_, Writer> {
        self.writer.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Commit everything staged so far (see the module doc): one record
    /// appended to the log. `may_freeze`: when the log grows past
    /// [`checkpoint_bytes`] and no checkpoint is applying it, its records
    /// are set aside for one in the background. What the commit did, or the
    /// error of an earlier commit or of this one (which every later commit
    /// then answers too).
    pub(super) fn commit(
        &self,
        root: &Root,
        outcomes: &Outcomes,
        may_freeze: bool,
    ) -> Result<Committed> {
        self.commit_with(&mut self.writer(), root, outcomes, may_freeze)
    }

    /// The log's lock, once no checkpoint applies it in the background:
    /// none can start while it is held (only a commit sets one aside).
    pub(super) fn writer_alone(&self) -> MutexGuard<'_, Writer> {
        loop {
            let w = self.writer();
            if !*self.applying.lock().unwrap_or_else(|e| e.into_inner()) {
                return w;
            }
            drop(w);
            self.wait_applied();
        }
    }

    /// [`Stage::commit`] with the log's lock `w` held by the caller.
    pub(super) fn commit_with(
        &self,
        w: &mut Writer,
        root: &Root,
        outcomes: &Outcomes,
        may_freeze: bool,
    ) -> Result<Committed> {
        let (delta, frozen) = {
            let mut staged = self.staged();
            staged.check()?;
            let delta = staged.take_delta();
            // The record's line: its hash, a space, its text, a line end.
            let after = w.log.bytes() as usize + delta.as_ref().map_or(0, |d| d.len() + 66);
            let frozen = match may_freeze && w.applying_to.is_none() && after > checkpoint_bytes() {
                true => staged.freeze(),
                false => None,
            };
            (delta, frozen)
        };
        if let Some(text) = delta {
            let appended = w.log.append(root, &text, outcomes);
            if let Err(e) = appended {
                let mut staged = self.staged();
                staged.failed = Some(e.clone());
                // Nothing of the group is applied now (see `checkpoint_group`).
                staged.thaw();
                return Err(e);
            }
        }
        let behind = frozen.is_none() && w.applying_to.is_some();
        let frozen = frozen.map(|journal| {
            let to = w.log.bytes();
            w.applying_to = Some(to);
            *self.applying.lock().unwrap_or_else(|e| e.into_inner()) = true;
            (journal, to)
        });
        let size = w.log.bytes() - w.applying_to.unwrap_or(0);
        Ok(Committed {
            size: usize::try_from(size).unwrap_or(usize::MAX),
            frozen,
            behind,
        })
    }

    /// Wait until no checkpoint applies the log in the background.
    pub(super) fn wait_applied(&self) {
        let mut applying = self.applying.lock().unwrap_or_else(|e| e.into_inner());
        while *applying {
            applying = self
                .applied
                .wait(applying)
                .unwrap_or_else(|e| e.into_inner());
        }
    }

    /// The background checkpoint (see the module doc): apply `journal`,
    /// the log's records up to byte `to`, and make those after them the
    /// whole log. On error what is set aside stays the group's reads
    /// (the files may be half written), and the next checkpoint stops the
    /// writes and replays the whole log.
    pub(super) fn apply_in_background(
        &self,
        root: &Root,
        outcomes: &Outcomes,
        journal: journal::Journal,
        to: u64,
    ) {
        // (Tests widen the time in which the writes go on beside it.)
        crate::store::fault::slow("background-checkpoint");
        let applied = atomic::fault(root.path(), "before-checkpoint")
            .and_then(|()| journal::apply_group(root, &journal))
            .and_then(|()| {
                let mut w = self.writer();
                let compacted = w.log.compact(root, to);
                if compacted.is_ok() {
                    w.applying_to = None;
                    // Under the log's lock: a commit never sees the log
                    // compacted while what it applied is still kept below
                    // (it could set no checkpoint aside then, and stopped
                    // the writes for one).
                    self.staged().thaw();
                    // Done, under the log's lock as well: once it is let
                    // go, a commit may set the next checkpoint aside, and
                    // `applying` is then that one's (cleared after the
                    // lock, it let a flush apply the log beside it).
                    self.done_applying();
                }
                drop(w);
                // The replaced log is closed here, the commits free to go
                // on: closing it frees (and may trim) its blocks. (Tests
                // widen this time, in which a commit may set the next
                // checkpoint aside.)
                crate::store::fault::slow("background-checkpoint-unlocked");
                #[cfg(test)]
                if let Some(hook) = *self.after_unlock.lock().unwrap() {
                    hook(self);
                }
                compacted.map(drop)
            });
        if let Err(e) = applied {
            self.apply_failed.store(true, Ordering::SeqCst);
            let why = e.first_message();
            outcomes.warn(format!(
                "applying the committed changes failed: {why}; they are applied again when the store is let go"
            ));
            // No checkpoint is set aside after this one (the log's records
            // it applied are still marked applying).
            self.done_applying();
        }
    }

    /// No checkpoint applies the log in the background any more.
    fn done_applying(&self) {
        *self.applying.lock().unwrap_or_else(|e| e.into_inner()) = false;
        self.applied.notify_all();
    }

    /// The background checkpoint did not run to its end (its thread could
    /// not be started, or it panicked: a bug): as when it fails, the next
    /// checkpoint stops the writes and replays the whole log.
    pub(super) fn apply_lost(&self, outcomes: &Outcomes, why: &str) {
        self.apply_failed.store(true, Ordering::SeqCst);
        outcomes.warn(format!(
            "applying the committed changes in the background failed: {why}; they are applied again when the store is let go"
        ));
        self.done_applying();
    }
}

/// See [`CHECKPOINT_BYTES`] (a test may make it smaller).
pub(super) fn checkpoint_bytes() -> usize {
    crate::store::fault::checkpoint_bytes(CHECKPOINT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::json::journal::Op;
    use std::cell::RefCell;
    use std::path::PathBuf;

    thread_local! {
        /// The store of the test below, for its hook (a plain `fn`, run on
        /// the test's thread).
        static ROOT: RefCell<PathBuf> = RefCell::default();
    }

    fn root() -> Root {
        ROOT.with(|r| Root::new(r.borrow().clone()))
    }

    /// Stage a write of `path` large enough for its commit to set a
    /// checkpoint aside, and commit it: what was set aside.
    fn commit_past_the_size(stage: &Stage, path: &str) -> Option<(journal::Journal, u64)> {
        stage.staged().stage(vec![Op::Put {
            path: path.into(),
            data: "x".repeat(checkpoint_bytes() + 1),
        }]);
        let c = stage.commit(&root(), &Outcomes::default(), true).unwrap();
        c.frozen
    }

    /// A background checkpoint goes on after it lets the log's lock go (it
    /// closes the log it replaced there); a commit that sets the next one
    /// aside meanwhile makes that one the checkpoint in progress, which a
    /// flush must wait for. (When the first said it was done only as it
    /// ended, a flush took that for the second's end and applied the log
    /// beside it: acknowledged creates lost, or applied twice.)
    #[test]
    fn a_checkpoint_set_aside_as_the_last_one_ends_is_the_one_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        ROOT.with(|r| *r.borrow_mut() = dir.path().to_path_buf());
        let stage = Stage::new(1);
        let (journal, to) = commit_past_the_size(&stage, "one").expect("set aside");
        *stage.after_unlock.lock().unwrap() = Some(|stage: &Stage| {
            assert!(commit_past_the_size(stage, "two").is_some(), "the next one");
        });
        stage.apply_in_background(&root(), &Outcomes::default(), journal, to);
        assert!(
            *stage.applying.lock().unwrap(),
            "the checkpoint set aside last is in progress"
        );
        assert!(stage.writer().applying_to.is_some());
        assert_eq!(
            std::fs::read(root().join("one")).unwrap().len(),
            checkpoint_bytes() + 1
        );
    }
}
