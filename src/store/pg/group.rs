//! Group commit on a database, for the creates of `payctl serve`: the
//! commits of concurrent requests on one pool written in one database
//! transaction, with one `COMMIT`, instead of one after the other.
//!
//! Each request runs its create in a transaction of its own, on its own
//! connection, as a command does (its customer_key and idempotency key
//! locked there, see interface.rs), up to its commit. Its writes then join
//! the group: the first request to commit while no group commit is under
//! way leads, and writes the writes of every request waiting at that point
//! (its own included) in its transaction, in their order (one statement per
//! table, the events sealed one after the other under the head's lock),
//! then commits. The others wait, their transactions open with their locks
//! held, and are answered with the outcome of that `COMMIT`: acknowledged
//! when it is durable, failed when it failed. Then each ends its own
//! transaction, which wrote nothing, and lets its locks go: a create of the
//! same customer_key waiting for one of them finds the committed customer.
//! Requests that come while a group commits form the next group.
//!
//! Only writes that lock no row join (a profile's create: see
//! [`PgStore::group_for`]); a leader never waits for the requests it
//! commits for, so no wait goes round. When the writes of the group are
//! refused together (a unique index, a write a rule let through), they are
//! undone to a savepoint and each request commits its own alone, as it
//! would have without the group.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

use super::PgStore;
use super::pool::Pool;
use super::tx::{self, Work};
use crate::error::Result;
use crate::store::pending::Pending;

/// The creates of one pool waiting to commit.
#[derive(Default)]
pub struct Group {
    state: Mutex<State>,
    turn: Condvar,
}

#[derive(Default)]
struct State {
    /// The number of the next write to join.
    next: u64,
    /// The writes waiting for the next group commit.
    waiting: Vec<(u64, Work)>,
    /// A group commit is under way.
    committing: bool,
    /// The outcome of each write whose group commit ended.
    done: HashMap<u64, Done>,
}

enum Done {
    /// Committed with its group (Ok), or not (the error of the commit).
    Committed(Result<()>),
    /// To be committed alone: the group's writes were refused together.
    Alone(Box<Work>),
}

impl PgStore {
    /// The group of this store's pool, when `w` may be committed with the
    /// writes of other requests: a pooled store (`payctl serve`) that
    /// locked no row (a row it locked could be one that another write of
    /// the group is waiting for), writing new customers and their events
    /// only.
    pub(super) fn group_for(&self, w: &Pending) -> Option<Arc<Pool>> {
        if !self.pooled || self.locked_rows() {
            return None;
        }
        let creates_only =
            !w.customers.is_empty() && !w.events.is_empty() && w.only_customers_and_events();
        if !creates_only {
            return None;
        }
        self.pool()
    }

    /// Commit `work` with the writes of the other requests waiting (see the
    /// module doc); Ok once it is durable.
    pub(super) fn commit_grouped(&self, pool: &Pool, work: Work) -> Result<()> {
        let group = &pool.group;
        let mut st = group.state.lock().unwrap_or_else(|e| e.into_inner());
        let me = st.next;
        st.next += 1;
        st.waiting.push((me, work));
        loop {
            if let Some(done) = st.done.remove(&me) {
                drop(st);
                // This request's own transaction wrote nothing (or was
                // committed as the group's): ending it lets its locks go.
                return match done {
                    Done::Committed(Ok(())) => self.finish(true),
                    Done::Committed(Err(e)) => {
                        let _ = self.finish(false);
                        Err(e)
                    }
                    Done::Alone(work) => self.apply_alone(work.0, work.1),
                };
            }
            if !st.committing {
                // Lead: every write waiting, this one's among them.
                st.committing = true;
                let batch = std::mem::take(&mut st.waiting);
                drop(st);
                let outcomes = self.commit_batch(me, batch);
                st = group.state.lock().unwrap_or_else(|e| e.into_inner());
                st.committing = false;
                st.done.extend(outcomes);
                group.turn.notify_all();
                continue;
            }
            st = group.turn.wait(st).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Write `batch` in this store's transaction and commit it (`me`: the
    /// number of this store's own write, which is in it).
    fn commit_batch(&self, me: u64, mut batch: Vec<(u64, Work)>) -> Vec<(u64, Done)> {
        if batch.len() == 1 && batch[0].0 == me {
            // Alone, but as the group's commit: the writes that come
            // meanwhile wait for it and form the next group.
            let (n, (w, idem)) = batch.remove(0);
            return vec![(n, Done::Committed(self.apply_alone(w, idem)))];
        }
        let written = self.with_prep(|c| {
            c.c.batch_execute("SAVEPOINT payctl_group")?;
            let refs: Vec<_> = batch.iter().map(|(_, (w, i))| (w, i.as_ref())).collect();
            match tx::write(c, &refs) {
                Ok(()) => Ok(true),
                Err(e) if e.as_db_error().is_some() => {
                    c.c.batch_execute("ROLLBACK TO SAVEPOINT payctl_group")?;
                    Ok(false)
                }
                Err(e) => Err(e),
            }
        });
        let committed = match written {
            Ok(false) => {
                return batch
                    .into_iter()
                    .map(|(n, w)| (n, Done::Alone(Box::new(w))))
                    .collect();
            }
            Ok(true) => self.finish(true),
            Err(e) => {
                let _ = self.finish(false);
                Err(e)
            }
        };
        batch
            .into_iter()
            .map(|(n, _)| (n, Done::Committed(committed.clone())))
            .collect()
    }
}
