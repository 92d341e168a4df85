//! The PostgreSQL backend (`--database-url`): the same aggregates as the
//! JSON directory, as JSONB rows of one database that any number of payctl
//! processes on any number of machines share (see schema.rs).
//!
//! The database decides every race. A store opened for reading runs each
//! query on its own. A store opened for writing runs one database
//! transaction from its first query to its commit: the customer and
//! transaction rows it reads are locked (`SELECT … FOR UPDATE`) until then,
//! a customer_key looked up is locked too (a transaction-scoped advisory
//! lock on the key, the UNIQUE index as the last word), and a queue item is
//! claimed with `FOR UPDATE SKIP LOCKED` so that each item is processed by
//! exactly one worker. A command that ends without committing rolls back.
//!
//! Opening a store and its schema version are in open.rs, the reads the
//! storage interface names (by id, by key, the queue, the keys, the events,
//! the webhooks) in interface.rs, the records read all at once in reads.rs,
//! the queries across records in queries.rs; here, the store, its
//! connection, and the statements run on it.

mod api_keys;
pub mod check;
pub mod conn;
mod events;
mod group;
mod interface;
mod open;
pub mod pool;
mod queries;
mod reads;
pub mod schema;
pub mod snapshot;
pub mod tx;
mod webhooks;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use postgres::Client;
use postgres::types::{ToSql, Type};

use super::types::{Field, IdPage, ProfileSummary, QueueItem, TxnQuery, TxnSummary, Window};
use super::{Mode, Opened, idempotency};
use crate::error::{Error, Result, code};
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};
pub use conn::Target;

/// The most customer rows a store opened for reading reads ahead with the
/// ids of a page or of a filter's matches (see `PgStore::prefetched`).
const PREFETCHED: i64 = 1000;

/// An open database store.
pub struct PgStore {
    target: Target,
    mode: Mode,
    /// On a connection of a pool (`payctl serve`): statements are kept prepared.
    pooled: bool,
    conn: Mutex<Conn>,
    /// Customer rows read together with the ids that found them, by a store
    /// opened for reading (a page of `profile list`, a filter's matches):
    /// the `customer` call that follows for each is answered from here, once,
    /// instead of one query per profile.
    prefetched: Mutex<HashMap<String, String>>,
    /// The idempotency key of the next `commit_created` (see the facade).
    pub(crate) armed: idempotency::ArmedSlot,
    /// A row was locked (`FOR UPDATE`) in the transaction: its commit is
    /// not one that may join a group (see group.rs).
    locked: std::sync::atomic::AtomicBool,
}

struct Conn {
    /// Always `Some` until dropped (then given back to its pool).
    client: Option<Client>,
    /// The statements prepared on `client` (a pooled connection's only).
    stmts: pool::Stmts,
    /// A transaction is open (a store opened for writing, since its first query).
    in_tx: bool,
    /// The pool the connection is borrowed from (`payctl serve`).
    pool: Option<Arc<pool::Pool>>,
}

impl Conn {
    fn client(&mut self) -> &mut Client {
        self.client.as_mut().expect("a connection until dropped")
    }
}

impl Drop for Conn {
    /// A pooled connection goes back to its pool, its uncommitted
    /// transaction rolled back first (dropped when that fails); an owned
    /// one is closed (the server rolls back).
    fn drop(&mut self) {
        let (Some(mut c), Some(pool)) = (self.client.take(), self.pool.take()) else {
            return;
        };
        if self.in_tx && c.batch_execute("ROLLBACK").is_err() {
            return pool.discard();
        }
        pool.put(c, std::mem::take(&mut self.stmts));
    }
}

impl PgStore {
    fn connect(url: &str, mode: Mode) -> Result<PgStore> {
        let target = Target::parse(url)?;
        let client = target.connect()?;
        Ok(PgStore::with_client(target, mode, client, None))
    }

    fn with_client(
        target: Target,
        mode: Mode,
        client: Client,
        pool: Option<Arc<pool::Pool>>,
    ) -> PgStore {
        PgStore {
            target,
            mode,
            pooled: pool.is_some(),
            conn: Mutex::new(Conn {
                client: Some(client),
                stmts: pool::Stmts::new(),
                in_tx: false,
                pool,
            }),
            prefetched: Default::default(),
            armed: Default::default(),
            locked: Default::default(),
        }
    }

    /// The pool this store's connection is borrowed from (`payctl serve`).
    fn pool(&self) -> Option<Arc<pool::Pool>> {
        self.conn
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pool
            .clone()
    }

    /// The database's URL without its password.
    pub fn shown(&self) -> &str {
        &self.target.shown
    }

    pub(crate) fn err(&self, e: &postgres::Error) -> Error {
        conn::db_error(&self.target.shown, e)
    }

    /// A database in a state that this payctl did not leave (like a corrupt file).
    pub(crate) fn corrupt(&self, what: impl std::fmt::Display) -> Error {
        Error::store(
            code::STORE_UNREADABLE,
            format!(
                "the database {} is corrupt or unreadable ({}); run `payctl store check`",
                self.target.shown,
                crate::mask::mask_text(&what.to_string())
            ),
        )
    }

    /// Run `f` on the connection: inside the transaction of a store opened
    /// for writing (begun at its first query), else on its own, retried a
    /// bounded number of times when the connection was lost.
    pub(crate) fn with<T>(
        &self,
        f: impl Fn(&mut Client) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        self.with_stmts(|c, _| f(c))
    }

    /// [`Self::with`], `f` given the connection's prepared statements too.
    fn with_stmts<T>(
        &self,
        f: impl Fn(&mut Client, &mut pool::Stmts) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let mut guard = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let conn = &mut *guard;
        if self.mode == Mode::Exclusive {
            if !conn.in_tx {
                conn.client()
                    .batch_execute("BEGIN")
                    .map_err(|e| self.err(&e))?;
                conn.in_tx = true;
            }
            let client = conn.client.as_mut().expect("a connection until dropped");
            return f(client, &mut conn.stmts).map_err(|e| self.err(&e));
        }
        let mut attempt = 0;
        loop {
            let client = conn.client.as_mut().expect("a connection until dropped");
            match f(client, &mut conn.stmts) {
                Ok(v) => return Ok(v),
                Err(e) if attempt + 1 < conn::ATTEMPTS && conn::retryable(&e) => {
                    attempt += 1;
                    if conn.client().is_closed() {
                        conn.client = Some(self.target.connect()?);
                        conn.stmts.clear();
                    }
                }
                Err(e) => return Err(self.err(&e)),
            }
        }
    }

    /// [`Self::with`], the statements run through a [`pool::Prep`]: kept
    /// prepared on a pooled connection (`payctl serve`), so that each is
    /// one round trip from its second run on.
    pub(crate) fn with_prep<T>(
        &self,
        f: impl Fn(&mut pool::Prep<'_>) -> std::result::Result<T, postgres::Error>,
    ) -> Result<T> {
        let pooled = self.pooled;
        self.with_stmts(|c, stmts| f(&mut pool::Prep::new(c, pooled.then_some(stmts))))
    }

    /// The rows of the statement `sql`, its parameters `params` of the
    /// types `types`, in one round trip: on a pooled connection (`payctl
    /// serve`) the statement is prepared at its first run and kept with the
    /// connection, else it is sent with its parameters (`query_typed`: a
    /// command runs each statement once or a few times, and preparing it
    /// would cost a round trip more).
    fn rows(
        &self,
        sql: &str,
        types: &[Type],
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>> {
        let pooled = self.pooled;
        self.with_stmts(|c, stmts| {
            if !pooled {
                let typed: Vec<(&(dyn ToSql + Sync), Type)> = params
                    .iter()
                    .zip(types)
                    .map(|(p, t)| (*p, t.clone()))
                    .collect();
                return c.query_typed(sql, &typed);
            }
            let st = match stmts.get(sql) {
                Some(st) => st.clone(),
                None => {
                    let st = c.prepare_typed(sql, types)?;
                    stmts.insert(sql.to_string(), st.clone());
                    st
                }
            };
            c.query(&st, params)
        })
    }

    /// The first row of [`Self::rows`], if any.
    fn row(
        &self,
        sql: &str,
        types: &[Type],
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<postgres::Row>> {
        Ok(self.rows(sql, types, params)?.into_iter().next())
    }

    /// End the transaction of a store opened for writing: `COMMIT`, and the
    /// next query begins another.
    pub(crate) fn finish(&self, commit: bool) -> Result<()> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if !conn.in_tx {
            return Ok(());
        }
        conn.in_tx = false;
        let sql = if commit { "COMMIT" } else { "ROLLBACK" };
        conn.client()
            .batch_execute(sql)
            .map_err(|e| conn::commit_error(&self.target.shown, &e))
    }

    /// Note that a row was found by a query with [`Self::lock_clause`]
    /// (or another that locks what it finds): it is locked until the end
    /// of the transaction.
    fn note_locked(&self, found: bool) {
        if found && self.mode == Mode::Exclusive {
            self.locked
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether a row was locked since the store was opened.
    fn locked_rows(&self) -> bool {
        self.locked.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// `FOR UPDATE` when this store writes: the row stays locked until the commit.
    fn lock_clause(&self) -> &'static str {
        if self.mode == Mode::Exclusive {
            " FOR UPDATE"
        } else {
            ""
        }
    }

    fn doc<T: serde::de::DeserializeOwned>(&self, what: &str, text: &str) -> Result<T> {
        serde_json::from_str(text).map_err(|e| self.corrupt(format!("{what}: {e}")))
    }
}

/// Every customer_key and its holder, read once (an import).
pub struct PgKeyIndex {
    owners: HashMap<String, String>,
}

impl PgKeyIndex {
    pub fn owner(&self, key: &str) -> Option<String> {
        self.owners.get(key).cloned()
    }
}
