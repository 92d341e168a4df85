//! What `payctl serve` keeps from one request to the next on a JSON store,
//! for as long as no writer has been inside it: the answers of `GET
//! /customer-profiles/{id}` as the bytes sent, and the API key each
//! credential names (see [`super::auth`]).
//!
//! Every writer of the store, this server or any other payctl, changes
//! `payctl.lock` before it writes (see [`crate::store::lock::stamp`]); a
//! request reads that stamp first (one `stat`), and what was kept under
//! another stamp is dropped. A value is kept under the stamp read *before*
//! the store was read for it: a writer that came in between changed the
//! stamp, so the value is dropped at the next request rather than served
//! after the change. So a write acknowledged to anyone (a CLI `profile
//! update` included) is seen by the very next request.
//!
//! On a database the stamps are numbers that every transaction changing a
//! customer, or an API key, bumps inside itself, whoever runs it (triggers:
//! see `store::pg::schema::STAMP`). A request waits for a read of it that
//! *began* after the request arrived ([`DbStamp`]): every commit
//! acknowledged before then is in that read. One read serves every request
//! that arrived while the read before it was under way, so that 64 requests
//! in flight cost a few reads of one indexed row, not 64.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::body::Bytes;

use super::Local;
use super::endpoints::{Op, Request};
use crate::store::lock::Stamp;

/// At most this many answers are kept (then they are dropped all at once):
/// about 16 MB of profiles of 1 KB.
const ANSWERS: usize = 16 * 1024;

/// Values kept under one stamp of the store.
#[derive(Debug)]
pub struct Memo<V, S = Stamp> {
    inner: Mutex<Inner<V, S>>,
    cap: usize,
}

#[derive(Debug)]
struct Inner<V, S> {
    stamp: Option<S>,
    /// Earlier stamps that [`Memo::advance`] moved the values from: a
    /// request that read one of them before this process's writer came in
    /// sees the same values (at most [`ALIASES`], the latest kept).
    aliases: Vec<S>,
    map: HashMap<String, V>,
}

/// The earlier stamps a memo keeps as its own (see [`Inner::aliases`]):
/// a request reads its stamp well under a millisecond before it looks its
/// values up, while the group commit of creates moves the stamp at most
/// once a checkpoint.
const ALIASES: usize = 8;

impl<V, S: PartialEq> Inner<V, S> {
    /// Whether the values kept hold under `stamp`.
    fn holds(&self, stamp: &S) -> bool {
        self.stamp.as_ref() == Some(stamp) || self.aliases.contains(stamp)
    }
}

impl<V: Clone, S: PartialEq + Copy> Memo<V, S> {
    pub fn new(cap: usize) -> Self {
        Memo {
            inner: Mutex::new(Inner {
                stamp: None,
                aliases: Vec::new(),
                map: HashMap::new(),
            }),
            cap,
        }
    }

    /// The value kept for `key`, when `stamp` is still the store's stamp
    /// the memo holds (or one it was advanced from); anything kept under
    /// another stamp is dropped.
    pub fn get(&self, stamp: S, key: &str) -> Option<V> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if !inner.holds(&stamp) {
            inner.map.clear();
            inner.aliases.clear();
            inner.stamp = Some(stamp);
            return None;
        }
        inner.map.get(key).cloned()
    }

    /// What is kept under the stamp `f` maps to `Some`, kept under that
    /// one as well: for a writer of this process whose changes cannot
    /// change these values (see [`super::Local`]'s `create_with`). A
    /// request that read the stamp before the writer came in still finds
    /// them, instead of dropping them and waiting for the store (which the
    /// writer holds) to read them again.
    pub fn advance(&self, f: impl FnOnce(&S) -> Option<S>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(before) = inner.stamp
            && let Some(next) = f(&before)
        {
            if inner.aliases.len() >= ALIASES {
                inner.aliases.remove(0);
            }
            inner.aliases.push(before);
            inner.stamp = Some(next);
        }
    }

    /// Keep `value` for `key`, read from the store after `stamp` was read;
    /// nothing when the memo has seen another stamp since.
    pub fn put(&self, stamp: S, key: String, value: V) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if !inner.holds(&stamp) {
            return;
        }
        if inner.map.len() >= self.cap {
            inner.map.clear();
        }
        inner.map.insert(key, value);
    }
}

/// The stamp of a store, as read for a request: a JSON directory's (its
/// lock file's, see [`Stamp`]) or a database's (see [`DbStamp`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    Dir(Stamp),
    Db(i64),
}

/// The stamps read for a request: the one its answer is kept under, and
/// the one its API key is (with the stamp of a directory's key file).
#[derive(Debug, Clone, Copy)]
pub struct Stamps {
    pub answers: Seen,
    pub keys: (Seen, Option<Stamp>),
}

/// The answers kept (see the module doc).
pub type Answers = Memo<Bytes, Seen>;

pub fn answers() -> Answers {
    Memo::new(ANSWERS)
}

/// A request whose answer may be kept: the stamp read before the store is,
/// and the key of the answer.
pub struct Ticket(Seen, String);

/// For a request whose answer depends only on the store and its path (a
/// profile's GET, not a dry run): its answer kept under `stamp` (the
/// store's, read before anything of the store was for this request), else the ticket to keep the answer with once it is made. `(None,
/// None)` for any other request, a database, or a store without a stamp.
pub fn lookup(
    store: &Local,
    req: &Request,
    stamp: Option<Seen>,
) -> (Option<Bytes>, Option<Ticket>) {
    if req.endpoint.op != Op::ProfileGet || req.dry_run {
        return (None, None);
    }
    let (Some(kept), Some(stamp)) = (&store.kept, stamp) else {
        return (None, None);
    };
    let key = req.params.join("/");
    match kept.answers.get(stamp, &key) {
        Some(body) => (Some(body), None),
        None => (None, Some(Ticket(stamp, key))),
    }
}

impl Ticket {
    /// Keep `body`, the success answer of the request.
    pub fn keep(self, store: &Local, body: Bytes) {
        if let Some(kept) = &store.kept {
            kept.answers.put(self.0, self.1, body);
        }
    }
}

/// The reads of a database's stamp, one at a time, each one answering every
/// request that arrived before it began (see the module doc).
#[derive(Debug)]
pub struct DbStamp {
    flight: Mutex<Flight>,
    /// The number of the last read done, and what it read (`None`: it
    /// failed, and nothing is kept or taken from the memos for its requests).
    done: tokio::sync::watch::Sender<(u64, Option<(i64, i64)>)>,
}

#[derive(Debug, Default)]
struct Flight {
    /// The number of the last read begun.
    begun: u64,
    running: bool,
    /// A request came while the read `begun` was under way: it waits for the next.
    wanted: bool,
}

impl Default for DbStamp {
    fn default() -> Self {
        DbStamp {
            flight: Mutex::new(Flight::default()),
            done: tokio::sync::watch::Sender::new((0, None)),
        }
    }
}

impl DbStamp {
    /// The stamps of `store`'s database (its customers', its keys'), read
    /// after this call began.
    pub async fn read(&self, store: &Local) -> Option<(i64, i64)> {
        let mut done = self.done.subscribe();
        let want = {
            let mut f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
            if f.running {
                f.wanted = true;
                f.begun + 1
            } else {
                f.running = true;
                f.begun += 1;
                let (local, first) = (store.clone(), f.begun);
                tokio::task::spawn_blocking(move || {
                    if let Some(kept) = &local.kept {
                        kept.db_stamp.run(&local, first);
                    }
                });
                f.begun
            }
        };
        loop {
            let (n, stamp) = *done.borrow_and_update();
            if n >= want {
                return stamp;
            }
            done.changed().await.ok()?;
        }
    }

    /// Read, from the read numbered `n`, for as long as requests wait.
    fn run(&self, store: &Local, mut n: u64) {
        loop {
            // A failed read keeps nothing: the requests read the store
            // without the memos, and its failure is theirs to answer. (A
            // panic too: the reads go on.)
            let read =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| store.read_stamp()));
            let stamp = read.ok().and_then(|r| r.ok()).flatten();
            let mut f = self.flight.lock().unwrap_or_else(|e| e.into_inner());
            self.done.send_replace((n, stamp));
            if !f.wanted {
                f.running = false;
                return;
            }
            f.wanted = false;
            f.begun += 1;
            n = f.begun;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Memo;

    #[test]
    fn a_stamp_advanced_from_still_finds_the_values_and_a_new_one_drops_them() {
        let m: Memo<u32, u32> = Memo::new(8);
        assert_eq!(m.get(1, "k"), None);
        m.put(1, "k".into(), 7);
        // This process's writer moved the stamp from 1 to 2 without
        // changing the values: a request that read 1 before it still finds
        // them, and so does one that read 2.
        m.advance(|s| (*s == 1).then_some(2));
        assert_eq!(m.get(1, "k"), Some(7));
        assert_eq!(m.get(2, "k"), Some(7));
        m.put(1, "j".into(), 8);
        assert_eq!(m.get(2, "j"), Some(8));
        // No advance from a stamp the memo does not hold.
        m.advance(|s| (*s == 5).then_some(6));
        assert_eq!(m.get(6, "k"), None);
        // Another writer's stamp dropped everything, aliases included.
        assert_eq!(m.get(1, "k"), None);
        assert_eq!(m.get(6, "k"), None);
    }
}
