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
    map: HashMap<String, V>,
}

impl<V: Clone, S: PartialEq + Copy> Memo<V, S> {
    pub fn new(cap: usize) -> Self {
        Memo {
            inner: Mutex::new(Inner {
                stamp: None,
                map: HashMap::new(),
            }),
            cap,
        }
    }

    /// The value kept for `key`, when `stamp` is still the store's stamp
    /// the memo holds; anything kept under another stamp is dropped.
    pub fn get(&self, stamp: S, key: &str) -> Option<V> {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.stamp != Some(stamp) {
            inner.map.clear();
            inner.stamp = Some(stamp);
            return None;
        }
        inner.map.get(key).cloned()
    }

    /// What is kept under the stamp `f` maps to `Some`, kept under that
    /// one instead: for a writer of this process whose changes cannot
    /// change these values (see [`super::Local`]'s `create_with`).
    pub fn advance(&self, f: impl FnOnce(&S) -> Option<S>) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(next) = inner.stamp.as_ref().and_then(f) {
            inner.stamp = Some(next);
        }
    }

    /// Keep `value` for `key`, read from the store after `stamp` was read;
    /// nothing when the memo has seen another stamp since.
    pub fn put(&self, stamp: S, key: String, value: V) {
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.stamp != Some(stamp) {
            return;
        }
        if inner.map.len() >= self.cap {
            inner.map.clear();
        }
        inner.map.insert(key, value);
    }
}

/// The answers kept (see the module doc).
pub type Answers = Memo<Bytes>;

pub fn answers() -> Answers {
    Memo::new(ANSWERS)
}

/// A request whose answer may be kept: the stamp read before the store is,
/// and the key of the answer.
pub struct Ticket(Stamp, String);

/// For a request whose answer depends only on the store and its path (a
/// profile's GET, not a dry run): its answer kept under `stamp` (the
/// store's, read before anything of the store was for this request), else the ticket to keep the answer with once it is made. `(None,
/// None)` for any other request, a database, or a store without a stamp.
pub fn lookup(
    store: &Local,
    req: &Request,
    stamp: Option<Stamp>,
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
