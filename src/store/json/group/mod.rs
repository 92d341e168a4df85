//! Group commit: concurrent writes of one process (the requests of
//! `payctl serve`) gathered into one journal commit and one sync.
//!
//! The writes run one after another on one store opened for writing (the
//! exclusive lock is held from the first of them until the store is let go,
//! below), each on the state that the earlier writes left. Their
//! transactions are not written to the store's files: their commits are
//! kept in [`Staged`], and the store's reads consult it first (see
//! `JsonStore::overlaid`), so that a later write sees the customers, keys
//! and records of the earlier ones (a key taken earlier is refused with
//! 21002, as it would be after a commit). A write refused by the rules
//! stages nothing (a transaction is staged whole at its commit, or not at
//! all) and does not affect the others.
//!
//! The writes that ran while no commit was in progress form a group, and
//! one of them commits it: what the group's writes staged is appended to
//! the store's journal, a log of one record a group (`journal/log.rs`), and
//! the log is synced: the commit point, after which any payctl that opens
//! the store replays it. The group's writes are answered only after that:
//! acknowledged when it is durable, or failed with its error (a full disk)
//! when it is not, so that no write of a failed group is acknowledged. The
//! writes that arrive during that commit do not wait for it: they run and
//! form the next group (a pipeline), whose record follows.
//!
//! The log is applied to the files (with one sync) and removed at a
//! checkpoint: when no write came for [`IDLE`], or when the log has grown past
//! [`CHECKPOINT_BYTES`]. The store is let go after a checkpoint, so that
//! other processes and the server's own readers get their turn; they never
//! read a store whose journal is not applied, since the exclusive lock is
//! held until then.
//!
//! A checkpoint for a large log does not stop the writes when nobody waits
//! for the store: its records are applied by a thread of their own while
//! the writes go on and append theirs (see `Staged::freeze`: the writes
//! read what is being applied from memory, never from the files being
//! written), then the records that came meanwhile become the whole log
//! (`journal::Log::compact`), and the store is kept. A payctl that waits
//! for the lock says so ([`crate::store::lock`]'s knock): after the next
//! commit, a checkpoint then stops the writes, applies everything and lets
//! the store go, whatever the log's size; so does one whose writes split a
//! key bucket, or that comes while the last is still being applied and the
//! log has grown past the size again.
//!
//! When a commit fails, the groups built on it fail too: no write joins any
//! more, the open group fails with the same error, and the store is let go
//! without applying anything (the log on disk ends with the last record
//! that was committed, which the next open replays).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::journal;
use super::{JsonStore, atomic};

mod known;
mod stage;
mod staged;
pub(crate) use self::stage::Stage;
use self::stage::checkpoint_bytes;
pub(crate) use self::staged::Staged;
use crate::error::{Error, Result, code};
use crate::store::backend::Store;

/// See [`IDLE`] (a test may make it longer).
fn idle_for() -> Duration {
    Duration::from_millis(crate::store::fault::idle_ms(IDLE.as_millis() as usize) as u64)
}

/// A checkpoint is made when no write came for this long after a commit.
pub const IDLE: Duration = Duration::from_millis(2);

/// A checkpoint is made when the log of the staged changes is larger than
/// this (in the background while nobody waits for the store, see the
/// module doc).
pub const CHECKPOINT_BYTES: usize = 512 * 1024;

/// See `Inner::commit_open`: how many times [`CHECKPOINT_BYTES`] of
/// records may be appended while a checkpoint applies the log's first
/// records in the background, before the writes stop for one.
const BEHIND: usize = 8;

/// How long new writes wait after a checkpoint made while they were
/// coming: longer than the interval at which a payctl waiting for the lock
/// tries it, so that other processes and readers are not starved.
const TURN: Duration = Duration::from_millis(6);

/// How long the writes wait, after a checkpoint that a payctl waiting for
/// the store knocked for, for it to get in (see [`super::lock::KNOCK`]).
const KNOCK_WAIT: Duration = Duration::from_millis(100);

/// The writes of one process gathered into groups (see the module doc).
/// One per store, shared by the threads that write to it.
#[derive(Default)]
pub struct GroupCommit {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    /// Held by the write that runs (one at a time).
    exec: Mutex<()>,
    /// The state's transitions: a checkpoint ended, the writes paused (for
    /// the idler and `close`).
    done: Condvar,
    /// The members of group `seq` wait on `groups[seq % 2]` (only the group
    /// being committed and the open one have members): a commit wakes its
    /// own members and one member of the next group, which commits it,
    /// never every waiting write (64 writes woken at every commit, each
    /// taking the state's lock in turn, were a fifth of the server's time).
    groups: [Condvar; 2],
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GroupCommit")
    }
}

#[derive(Default)]
struct State {
    /// The store opened for writing, staging (holding the exclusive lock);
    /// a write holds it while it runs (`running`).
    store: Option<Arc<Store>>,
    /// Writes that arrived and have not been let in yet.
    waiting: usize,
    /// Writes let in that have not joined a group yet (they run, or wait
    /// for their turn to run).
    running: usize,
    /// A group's commit is in progress.
    committing: bool,
    /// The journal is being applied (the store's files change): no write
    /// runs meanwhile.
    checkpointing: bool,
    /// No write joins until the next checkpoint (the journal is large, or a
    /// commit failed).
    closing: bool,
    /// The number of the open group.
    seq: u64,
    /// Writes that ran in the open group.
    members: usize,
    /// The outcome of committed groups, and how many of their writes have
    /// not collected it yet.
    outcomes: HashMap<u64, (Option<Error>, usize)>,
    /// The background thread that makes the idle checkpoints runs.
    idler: bool,
    /// Commits made since the store was opened (to tell, after [`IDLE`],
    /// whether another came).
    commits: u64,
}

impl GroupCommit {
    pub fn new() -> GroupCommit {
        GroupCommit::default()
    }

    /// Run the write `f` in the next group, on a store that `open` opens for
    /// writing (a JSON directory: any other backend runs `f` alone), and
    /// answer once the group's commit returned: `f`'s answer when the commit
    /// made the group durable, else the commit's error.
    pub fn write<T>(
        &self,
        open: impl FnOnce() -> Result<Store>,
        f: impl FnOnce(&Store) -> Result<T>,
    ) -> Result<T> {
        let inner = &*self.inner;
        let mut st = inner.lock();
        st.waiting += 1;
        while st.checkpointing || st.closing {
            st = inner.wait(st);
        }
        if st.store.is_none() {
            match open() {
                Ok(Store::Json(mut s)) => {
                    if let Err(e) = s.start_group() {
                        st.waiting -= 1;
                        inner.wake_open_group(&st);
                        return Err(e);
                    }
                    st.store = Some(Arc::new(Store::Json(s)));
                    st.commits = 0;
                }
                Ok(other) => {
                    st.waiting -= 1;
                    inner.wake_open_group(&st);
                    drop(st);
                    return f(&other);
                }
                Err(e) => {
                    st.waiting -= 1;
                    inner.wake_open_group(&st);
                    return Err(e);
                }
            }
        }
        if !st.idler {
            st.idler = true;
            let weak = Arc::downgrade(&self.inner);
            std::thread::spawn(move || idler(weak));
        }
        st.waiting -= 1;
        st.running += 1;
        let store = st.store.clone();
        drop(st);
        // One write at a time, on the state the earlier ones left; the
        // state's lock is free meanwhile, for the commits' bookkeeping (a
        // write that waits for it behind the others' writes kept a
        // committed group from being answered and the next from starting).
        let answer = {
            let _one = inner.exec.lock().unwrap_or_else(|e| e.into_inner());
            match store.as_deref() {
                Some(store) => {
                    // A panic must not leave the group without the write
                    // that was to commit it.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(store)))
                        .unwrap_or_else(|_| {
                            Err(Error::store(
                                code::STORE_IO,
                                "the write failed inside payctl (a bug): nothing of it was staged",
                            ))
                        })
                }
                None => Err(Error::store(code::STORE_IO, "no store open for the group")),
            }
        };
        // The store is let go only by the last holder (see `checkpoint`).
        drop(store);
        // What `f` staged is in whichever group commits after this point:
        // the open one, or one committing now (whose record then holds it
        // too, which only makes it durable sooner).
        let mut st = inner.lock();
        st.running -= 1;
        st.members += 1;
        let group = st.seq;
        loop {
            if let Some((failed, left)) = st.outcomes.get_mut(&group) {
                let failed = failed.clone();
                *left -= 1;
                if *left == 0 {
                    st.outcomes.remove(&group);
                }
                return match failed {
                    Some(e) => Err(e),
                    None => answer,
                };
            }
            // The group is committed when no commit is in progress and no
            // write waits to be let in (after a checkpoint).
            if !st.committing && st.seq == group && (st.waiting == 0 || st.closing) {
                st = inner.commit_open(st);
                continue;
            }
            st = inner.wait_for_group(st, group);
        }
    }

    /// Whether the worker's queue is empty, when this group holds the store
    /// (`None` when it does not: the store must then be opened to know).
    /// Holding the store exclusively, the group sees the queue as every
    /// writer left it: its files and the group's staged changes.
    pub fn held_queue_is_empty(&self) -> Option<bool> {
        self.held(|store| store.queue().ok().map(|q| q.is_empty()))
            .flatten()
    }

    /// The webhooks, read through the store this group holds (`None` when
    /// it holds none: the store must then be opened to know). Webhooks are
    /// written by writes of their own, never by the group's creates, which
    /// hold the store exclusively: what it reads is what any reader would.
    pub fn held_webhooks(&self) -> Option<Result<Vec<crate::model::webhook::Webhook>>> {
        self.held(Store::webhooks)
    }

    /// `f` of the store this group holds, between its writes (`None` when
    /// it holds none: the store must then be opened). For what the group's
    /// writes never change (they are creates): the API keys, the webhooks,
    /// the worker's queue.
    pub fn held<R>(&self, f: impl FnOnce(&Store) -> R) -> Option<R> {
        // Between two writes; the write's lock first, so that the commits'
        // bookkeeping does not wait while this waits for a write.
        let _one = self.inner.exec.lock().unwrap_or_else(|e| e.into_inner());
        let st = self.inner.lock();
        if st.checkpointing {
            return None;
        }
        st.store.as_deref().map(f)
    }

    /// Apply what is committed and let the store go (at the end of
    /// `payctl serve`): afterwards the store has no journal left by it.
    pub fn close(&self) {
        let inner = &*self.inner;
        let mut st = inner.lock();
        while st.committing || st.checkpointing || st.members > 0 || st.running > 0 {
            st = inner.wait(st);
        }
        drop(inner.checkpoint(st));
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.done.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    /// Wait, as a member of `group`, for its outcome or its turn to commit.
    fn wait_for_group<'a>(&self, g: MutexGuard<'a, State>, group: u64) -> MutexGuard<'a, State> {
        self.groups[(group % 2) as usize]
            .wait(g)
            .unwrap_or_else(|e| e.into_inner())
    }

    /// A write that was waiting (`st.waiting`) left without joining the open
    /// group: a member of it may now be the one to commit it.
    fn wake_open_group(&self, st: &State) {
        self.groups[(st.seq % 2) as usize].notify_all();
    }

    /// Every waiting write and the idler re-read the state (a checkpoint
    /// ended).
    fn wake_all(&self) {
        self.done.notify_all();
        self.groups.iter().for_each(Condvar::notify_all);
    }

    /// Commit the open group (it has members, no commit is in progress),
    /// without the state's lock meanwhile: writes that arrive run and
    /// gather for the next group. Its outcome is left in `outcomes`.
    fn commit_open<'a>(&'a self, mut st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        st.committing = true;
        let group = st.seq;
        st.seq += 1;
        let members = std::mem::take(&mut st.members);
        let target = match st.store.as_deref() {
            Some(Store::Json(s)) => s.group.clone().map(|stage| {
                let outcomes = s.journal.outcomes.clone();
                // Nobody waits for the store: a checkpoint need not let it go.
                let quiet = !s.knocked();
                (stage, s.root.clone(), outcomes, quiet)
            }),
            _ => None,
        };
        drop(st);
        let committed = match &target {
            Some((stage, root, outcomes, quiet)) => stage.commit(root, outcomes, *quiet),
            None => Err(Error::store(code::STORE_IO, "no store open for the group")),
        };
        let committed = committed.map(|c| {
            if let (Some((journal, to)), Some((stage, root, outcomes, _))) = (c.frozen, &target) {
                let (stage, root, outcomes) = (stage.clone(), root.clone(), outcomes.clone());
                let (kept, kept_outcomes) = (stage.clone(), outcomes.clone());
                let started = std::thread::Builder::new()
                    .name("payctl-checkpoint".into())
                    .spawn(move || {
                        let run = std::panic::AssertUnwindSafe(|| {
                            stage.apply_in_background(&root, &outcomes, journal, to)
                        });
                        if std::panic::catch_unwind(run).is_err() {
                            stage.apply_lost(&outcomes, "it stopped inside payctl (a bug)");
                        }
                    });
                if let Err(e) = started {
                    kept.apply_lost(&kept_outcomes, &format!("no thread for it: {e}"));
                }
            }
            (c.size, c.behind)
        });
        // While a checkpoint applies the log in the background, the records
        // appended since may grow to BEHIND times the size before the writes
        // stop for one (at 4,500 creates a second, one applied in the
        // background took longer than the next 512 KB of records: every such
        // stop was a create's p99).
        let large = committed.as_ref().is_ok_and(|(size, behind)| {
            *size > checkpoint_bytes() * if *behind { BEHIND } else { 1 }
        });
        let apply_failed = target
            .as_ref()
            .is_some_and(|t| t.0.apply_failed.load(Ordering::SeqCst));
        // A payctl waits for the store: it gets in after this group.
        let knocked = target.as_ref().is_some_and(|t| !t.3);
        let mut st = self.lock();
        st.committing = false;
        st.commits += 1;
        if committed.is_err() || large || apply_failed || knocked {
            st.closing = true;
        }
        st.outcomes.insert(group, (committed.err(), members));
        // The group's members collect its outcome; one member of the next
        // commits it (or, when nobody is in it, the idler and `close` see the
        // writes pause).
        self.groups[(group % 2) as usize].notify_all();
        if st.members > 0 {
            self.groups[((group + 1) % 2) as usize].notify_one();
        } else if st.running == 0 {
            self.done.notify_all();
        }
        // (A write that runs joins the next group, and commits it.)
        if st.closing && st.members == 0 && st.running == 0 {
            st = self.checkpoint(st);
        }
        st
    }

    /// Apply the committed journal to the store's files and let the store
    /// go (or, after a failed commit, let it go without applying anything).
    /// No write runs meanwhile, none is open (`members` and `running` are
    /// 0): the store is let go with its last holder.
    fn checkpoint<'a>(&'a self, mut st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        let Some(store) = st.store.take() else {
            st.closing = false;
            return st;
        };
        st.checkpointing = true;
        let st_closing = st.closing;
        drop(st);
        let mut knocked = None;
        if let Store::Json(s) = &*store {
            s.checkpoint_group();
            knocked = s.knocked().then(|| s.root.clone());
        }
        // The lock is let go of: other processes and readers get their turn.
        drop(store);
        if let Some(root) = knocked {
            // Who knocked takes back the knock once in (or when it gives
            // up): the writes wait for that, not longer than KNOCK_WAIT
            // (a knock left by a payctl that was killed is removed then).
            let path = root.join(super::lock::KNOCK);
            let until = std::time::Instant::now() + KNOCK_WAIT;
            while super::safefs::exists(&root, &path).unwrap_or(false) {
                if std::time::Instant::now() >= until {
                    let _ = atomic::remove_file(&root, &path);
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        } else if st_closing {
            // Writes are waiting to take it again at once: a payctl that
            // waits for the lock tries every few milliseconds (store/lock.rs),
            // so it is given that long to get in.
            std::thread::sleep(TURN);
        }
        let mut st = self.lock();
        st.checkpointing = false;
        st.closing = false;
        self.wake_all();
        st
    }
}

/// How often the background thread of a [`GroupCommit`] looks for a knock
/// while the writes pause.
const KNOCK_POLL: Duration = Duration::from_millis(1);

/// The background thread of a [`GroupCommit`]: a checkpoint when the store
/// is held and no write came for [`IDLE`] after the last commit, or a
/// payctl knocked meanwhile. Ends with the group commit.
fn idler(inner: Weak<Inner>) {
    loop {
        let Some(inner) = inner.upgrade() else {
            return;
        };
        let mut st = inner.lock();
        let idle = |st: &State| {
            st.store.is_some()
                && !st.committing
                && !st.checkpointing
                && st.members == 0
                && st.running == 0
                && st.waiting == 0
        };
        if idle(&st) {
            // Until the writes have paused for IDLE, or a payctl knocks
            // (the server's own readers do too, see `store::lock`).
            let commits = st.commits;
            let until = std::time::Instant::now() + idle_for();
            loop {
                let left = until.saturating_duration_since(std::time::Instant::now());
                st = inner
                    .done
                    .wait_timeout(st, left.min(KNOCK_POLL))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                if !idle(&st) || st.commits != commits {
                    break;
                }
                let knocked = matches!(st.store.as_deref(), Some(Store::Json(s)) if s.knocked());
                if knocked || std::time::Instant::now() >= until {
                    st = inner.checkpoint(st);
                    break;
                }
            }
            drop(st);
        } else {
            drop(
                inner
                    .done
                    .wait_timeout(st, Duration::from_millis(100))
                    .unwrap_or_else(|e| e.into_inner()),
            );
        }
    }
}

impl JsonStore {
    /// Whether a payctl waits for this store (see [`super::lock::KNOCK`]).
    fn knocked(&self) -> bool {
        self.lock.knocked()
    }

    /// Apply the journal of a group commit's store (see [`GroupCommit`]) to
    /// its files, and remove it; nothing when a commit of the group failed
    /// (the journal on disk is the last committed, replayed by the next
    /// open). A failure to apply is left to that replay too.
    fn checkpoint_group(&self) {
        let Some(stage) = &self.group else {
            return;
        };
        // Nothing is written under a checkpoint in the background, and the
        // store is not let go before it is done.
        let _writer = stage.writer_alone();
        if stage.staged().check().is_err() {
            return;
        }
        let applied = atomic::fault(self.root.path(), "before-checkpoint")
            .and_then(|()| journal::finish_pending(&self.root));
        if let Err(e) = applied {
            let why = e.first_message();
            self.journal.outcomes.warn(format!(
                "applying the committed changes failed: {why}; the next payctl that can write completes them"
            ));
        }
    }

    /// Commit what the open group staged so far and apply it, before its
    /// end: for a change computed from the files on disk (a key bucket
    /// split, see [`super::keys`]), which must then hold the group's earlier
    /// changes. The group's writes are still answered at its end; when this
    /// fails, all of them fail with its error.
    pub(crate) fn flush_group(&self) -> Result<()> {
        let Some(stage) = &self.group else {
            return Ok(());
        };
        // What is staged is committed (a record of the log), then the log
        // is applied and removed, as a checkpoint does; the store is kept.
        // A checkpoint in the background finishes first: the whole log is
        // applied here. The log's lock is held from then to the end, so
        // that no commit of the group sets another aside meanwhile (one
        // did, between the wait and the commit below: both applied the
        // log, and its compaction then cut the records appended after this
        // flush, acknowledged creates lost when the server was killed).
        let mut w = stage.writer_alone();
        stage.commit_with(&mut w, &self.root, &self.journal.outcomes, false)?;
        let mut staged = stage.staged();
        journal::recover(&self.root).inspect_err(|e| staged.failed = Some(e.clone()))?;
        w.log.reset();
        w.applying_to = None;
        stage.apply_failed.store(false, Ordering::SeqCst);
        staged.thaw();
        drop(staged.take());
        Ok(())
    }
}
