//! Group commit: concurrent writes of one process (the requests of
//! `payctl serve`) gathered into one journal commit and one set of syncs.
//!
//! A write that arrives while a commit is in progress waits for it to end;
//! the writes waiting then run one after another on one store opened for
//! writing (the exclusive lock is held from the first of them to the end of
//! their commit, as one CLI write holds it), each on the state that the
//! earlier writes of its group left, and the last of them commits the
//! changes of all in one journal ([`journal::commit`]). Each write is
//! answered only after that commit returned: acknowledged when it is durable,
//! or failed with its error (a full disk) when it is not, so that no write of
//! a failed group is acknowledged.
//!
//! While a group is open its writes' transactions are not written to disk:
//! their commits are kept in [`Staged`], and the store's reads consult it
//! first (see `JsonStore::overlaid`), so that a later write of the group sees
//! the customers, keys and records of the earlier ones (a key taken earlier
//! in the group is refused with 21002, as it would be after a commit). A
//! write refused by the rules stages nothing (a transaction is staged whole
//! at its commit, or not at all) and does not affect the others.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};

use super::backend::Store;
use super::journal::{self, Journal, Op};
use super::{JsonStore, QUEUE_DIR, atomic};
use crate::error::{Error, Result, code};

/// What the group's transactions changed so far, per store-relative path.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    files: HashMap<String, File>,
    /// Paths in the order they were first staged (the journal's order).
    order: Vec<String>,
    /// The error of a commit of the group made before its end (see
    /// [`JsonStore::flush_group`]): the whole group fails with it.
    failed: Option<Error>,
}

#[derive(Debug)]
enum File {
    /// A whole-file put or a delete ([`Op::Put`], [`Op::PutJson`], [`Op::Delete`]).
    Whole(Op),
    /// Lines appended after the first `base_len` bytes of the file on disk.
    Tail { base_len: u64, data: String },
}

impl Staged {
    /// The error of a failed commit of this group, if one failed.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Add the operations of one committed transaction.
    pub(crate) fn stage(&mut self, ops: Vec<Op>) {
        for op in ops {
            let path = match &op {
                Op::Put { path, .. }
                | Op::PutJson { path, .. }
                | Op::Delete { path }
                | Op::Append { path, .. } => path.clone(),
            };
            let entry = self.files.remove(&path);
            if entry.is_none() {
                self.order.push(path.clone());
            }
            let next = match (entry, op) {
                (
                    Some(File::Tail { base_len, mut data }),
                    Op::Append {
                        data: more,
                        base_len: _,
                        ..
                    },
                ) => {
                    data.push_str(&more);
                    File::Tail { base_len, data }
                }
                (Some(File::Whole(whole)), Op::Append { data: more, .. }) => {
                    // Appended to a file the group rewrote: the rewrite grows.
                    let mut data = match &whole {
                        Op::Put { data, .. } => data.clone(),
                        Op::PutJson { json, .. } => {
                            String::from_utf8_lossy(&journal::json_file(json)).into_owned()
                        }
                        _ => String::new(),
                    };
                    data.push_str(&more);
                    File::Whole(Op::Put {
                        path: path.clone(),
                        data,
                    })
                }
                (None, Op::Append { base_len, data, .. }) => File::Tail { base_len, data },
                (_, whole) => File::Whole(whole),
            };
            self.files.insert(path, next);
        }
    }

    /// The journal of everything staged, emptying it.
    pub(crate) fn take(&mut self) -> Journal {
        let mut files = std::mem::take(&mut self.files);
        let ops = std::mem::take(&mut self.order)
            .into_iter()
            .filter_map(|path| {
                Some(match files.remove(&path)? {
                    File::Whole(op) => op,
                    File::Tail { base_len, data } => Op::Append {
                        path,
                        base_len,
                        data,
                    },
                })
            })
            .collect();
        Journal { ops }
    }

    /// The content of `rel` as the group leaves it (`Some(None)`: removed);
    /// `None` when the group did not touch it. `root` is the store's, for the
    /// committed part of an appended file.
    pub(crate) fn read(
        &self,
        root: &std::path::Path,
        rel: &str,
    ) -> Result<Option<Option<Vec<u8>>>> {
        Ok(Some(match self.files.get(rel) {
            None => return Ok(None),
            Some(File::Whole(Op::Put { data, .. })) => Some(data.as_bytes().to_vec()),
            Some(File::Whole(Op::PutJson { json, .. })) => Some(journal::json_file(json)),
            Some(File::Whole(_)) => None,
            Some(File::Tail { base_len, data }) => {
                let mut content = atomic::read_opt(&root.join(rel))?.unwrap_or_default();
                content.truncate(usize::try_from(*base_len).unwrap_or(usize::MAX));
                content.extend_from_slice(data.as_bytes());
                Some(content)
            }
        }))
    }

    /// Whether `rel` exists as the group leaves it, when it touched it
    /// (without reading an appended file).
    pub(crate) fn exists(&self, rel: &str) -> Option<bool> {
        Some(!matches!(
            self.files.get(rel)?,
            File::Whole(Op::Delete { .. })
        ))
    }

    /// The length of `rel` as the group leaves it, when it touched it
    /// (the length of its complete lines, for an appended file).
    pub(crate) fn len(&self, rel: &str) -> Option<u64> {
        Some(match self.files.get(rel)? {
            File::Whole(Op::Put { data, .. }) => data.len() as u64,
            File::Whole(Op::PutJson { json, .. }) => json.get().len() as u64 + 1,
            File::Whole(_) => 0,
            File::Tail { base_len, data } => base_len + data.len() as u64,
        })
    }

    /// The queue files the group put (`true`) or removed (`false`), by name.
    pub(crate) fn queue(&self) -> Vec<(String, bool)> {
        let prefix = format!("{QUEUE_DIR}/");
        self.files
            .iter()
            .filter_map(|(rel, f)| {
                let name = rel.strip_prefix(&prefix)?;
                Some((
                    name.to_string(),
                    !matches!(f, File::Whole(Op::Delete { .. })),
                ))
            })
            .collect()
    }
}

/// The writes of one process gathered into groups (see the module doc).
/// One per store, shared by the threads that write to it.
#[derive(Default)]
pub struct GroupCommit {
    state: Mutex<State>,
    done: Condvar,
}

impl std::fmt::Debug for GroupCommit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GroupCommit")
    }
}

#[derive(Default)]
struct State {
    /// The store of the open group, opened for writing, staging.
    store: Option<Store>,
    /// Writes waiting to run in the open group (or for a commit to end).
    waiting: usize,
    /// A group's commit is in progress (its store is out of `store`).
    committing: bool,
    /// The number of the open group.
    seq: u64,
    /// Writes that ran in the open group.
    members: usize,
    /// The outcome of committed groups, and how many of their writes have
    /// not collected it yet.
    outcomes: HashMap<u64, (Option<Error>, usize)>,
}

impl GroupCommit {
    pub fn new() -> GroupCommit {
        GroupCommit::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.done.wait(g).unwrap_or_else(|e| e.into_inner())
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
        let mut st = self.lock();
        st.waiting += 1;
        while st.committing {
            st = self.wait(st);
        }
        if st.store.is_none() {
            // No group is open (so none has members): this write opens one.
            match open() {
                Ok(Store::Json(mut s)) => {
                    s.start_group();
                    st.store = Some(Store::Json(s));
                }
                Ok(other) => {
                    st.waiting -= 1;
                    drop(st);
                    return f(&other);
                }
                Err(e) => {
                    st.waiting -= 1;
                    return Err(e);
                }
            }
        }
        st.waiting -= 1;
        st.members += 1;
        let group = st.seq;
        let answer = match &st.store {
            Some(store) => {
                // A panic must not leave the group without the write that
                // was to commit it.
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(store))).unwrap_or_else(
                    |_| {
                        Err(Error::store(
                            code::STORE_IO,
                            "the write failed inside payctl (a bug): nothing of it was staged",
                        ))
                    },
                )
            }
            None => Err(Error::store(code::STORE_IO, "no store open for the group")),
        };
        if st.waiting > 0 {
            // A later write of this group commits it.
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
                st = self.wait(st);
            }
        }
        // The last write of the group: commit it, without the state's lock
        // (the writes that arrive meanwhile gather for the next group).
        st.committing = true;
        let store = st.store.take();
        let members = std::mem::take(&mut st.members);
        drop(st);
        let committed = match &store {
            Some(Store::Json(s)) => s.commit_group(),
            _ => Ok(()),
        };
        // The lock is let go of between groups: other processes get their turn.
        drop(store);
        let mut st = self.lock();
        st.committing = false;
        st.seq += 1;
        if members > 1 {
            st.outcomes
                .insert(group, (committed.clone().err(), members - 1));
        }
        drop(st);
        self.done.notify_all();
        committed.and(answer)
    }
}

impl JsonStore {
    /// The commit of the open group (see [`GroupCommit`]): everything its
    /// writes staged, in one journal. Nothing is staged afterwards.
    pub(crate) fn commit_group(&self) -> Result<()> {
        let Some(group) = &self.group else {
            return Ok(());
        };
        let mut staged = group.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = &staged.failed {
            return Err(e.clone());
        }
        let journal = staged.take();
        journal::commit(&self.root, &journal)
    }

    /// Commit what the open group staged so far, before its end: for a
    /// change computed from the files on disk (a key bucket split, see
    /// [`super::keys`]), which must then hold the group's earlier changes.
    /// The group's writes are still answered at its end; when this fails,
    /// all of them fail with its error.
    pub(crate) fn flush_group(&self) -> Result<()> {
        let Some(group) = &self.group else {
            return Ok(());
        };
        let mut staged = group.lock().unwrap_or_else(|e| e.into_inner());
        staged.check()?;
        let journal = staged.take();
        journal::commit(&self.root, &journal).inspect_err(|e| staged.failed = Some(e.clone()))
    }
}
