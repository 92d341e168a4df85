//! A small pool of database connections, for `payctl serve`: a request
//! borrows a connection and gives it back when its store is dropped, so
//! the server holds at most [`POOL_SIZE`] connections to the database
//! whatever the number of requests in flight (a request finding them all
//! busy waits, up to the lock timeout, then answers 30001 store busy), and
//! fewer when the database refuses more (SQLSTATE 53300: its
//! `max_connections`, or a role's `CONNECTION LIMIT`): the pool then keeps
//! the number it has as its size, and its requests wait for one of them.
//!
//! Hand-written rather than r2d2 + r2d2_postgres: the store must roll back
//! a transaction it did not commit before its connection is reused, and
//! drop a connection that was lost; that is the whole of what it needs from
//! a pool (about 80 lines), against two more crates and a scheduler thread.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use postgres::Client;

use super::conn::Target;
use crate::error::{Error, code};

/// The most connections one `payctl serve` process holds to one database:
/// as many as half the requests in flight that a busy server sees (64), so
/// that creates waiting to commit together (see group.rs) make groups of
/// that size; two servers hold 64 of PostgreSQL's default 100.
pub const POOL_SIZE: usize = 32;

pub struct Pool {
    pub(super) target: Target,
    state: Mutex<State>,
    freed: Condvar,
    /// The schema was found (or created) at the version this payctl reads.
    pub(super) ready: OnceLock<()>,
    /// The creates waiting to commit together (see group.rs).
    pub(super) group: super::group::Group,
    /// The store's catalog, read once: written with the schema, it never
    /// changes in a database (as the schema's check, once per pool).
    pub(super) catalog: OnceLock<crate::model::catalog::Catalog>,
    /// The connection of the stamps' reads (see [`Pool::stamps`]).
    stamp_conn: Mutex<Option<(Client, Stmts)>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never its target: the URL holds the password.
        f.write_str("Pool(..)")
    }
}

/// The statements prepared on a connection, by their SQL: kept with it
/// while it is pooled, so that a request runs each of its statements in one
/// round trip (see [`super::PgStore::rows`]).
pub type Stmts = HashMap<String, postgres::Statement>;

struct State {
    idle: Vec<(Client, Stmts)>,
    /// Connections lent or idle.
    open: usize,
    /// The most connections open at once: [`POOL_SIZE`], or fewer once the
    /// database refused one more.
    cap: usize,
}

impl Pool {
    /// A pool for the database at `url`, empty (no connection is made
    /// here): owned by whoever keeps it between opens (`payctl serve`, one
    /// for its database), never by the process.
    pub fn new(url: &str) -> crate::error::Result<Arc<Pool>> {
        let pool = Arc::new(Pool {
            target: Target::parse(url)?,
            state: Mutex::new(State {
                idle: Vec::new(),
                open: 0,
                cap: POOL_SIZE,
            }),
            freed: Condvar::new(),
            ready: OnceLock::new(),
            group: Default::default(),
            catalog: OnceLock::new(),
            stamp_conn: Mutex::new(None),
        });
        Ok(pool)
    }

    /// An idle connection, a new one while fewer than [`POOL_SIZE`] are
    /// open, else the first one given back within `wait`.
    pub fn get(&self, wait: Duration) -> crate::error::Result<(Client, Stmts)> {
        let deadline = Instant::now() + wait;
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some((c, stmts)) = st.idle.pop() {
                if c.is_closed() {
                    st.open -= 1;
                    continue;
                }
                return Ok((c, stmts));
            }
            if st.open < st.cap {
                st.open += 1;
                drop(st);
                let err = match self.target.connect() {
                    Ok(c) => return Ok((c, Stmts::new())),
                    Err(e) => e,
                };
                st = self.state.lock().unwrap_or_else(|e| e.into_inner());
                st.open -= 1;
                let full = err
                    .errors
                    .iter()
                    .any(|a| a.message.contains("SQLSTATE 53300"));
                if !(full && st.open > 0) {
                    drop(st);
                    self.freed.notify_one();
                    return Err(err);
                }
                // The database takes no more of this server's connections:
                // wait for one of those open.
                st.cap = st.open;
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::store(
                    code::STORE_BUSY,
                    format!(
                        "all {} connections to the database {} are busy; retry",
                        st.cap, self.target.shown
                    ),
                ));
            }
            st = self
                .freed
                .wait_timeout(st, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// The stamps of the customers and of the API keys (see
    /// `schema::STAMP`), read on a connection of their own, beside the
    /// pool's: the read that the server's requests wait for (see
    /// `api::cache::DbStamp`, one at a time) never waits for a connection
    /// that they hold. `Ok(None)`: the database has no stamps (yet).
    pub fn stamps(&self) -> crate::error::Result<Option<(i64, i64)>> {
        let mut slot = self.stamp_conn.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|(c, _)| c.is_closed()) {
            *slot = Some((self.target.connect()?, Stmts::new()));
        }
        let (c, stmts) = slot.as_mut().expect("connected above");
        let read = super::reads::read_stamps(&mut Prep::new(c, Some(stmts)));
        match read {
            Ok(stamps) => Ok(stamps),
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => {
                *slot = None;
                Ok(None)
            }
            Err(e) => {
                *slot = None;
                Err(super::conn::db_error(&self.target.shown, &e))
            }
        }
    }

    /// Give a connection back (a lost one is dropped).
    pub fn put(&self, c: Client, stmts: Stmts) {
        if c.is_closed() {
            return self.discard();
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.idle.push((c, stmts));
        drop(st);
        self.freed.notify_one();
    }

    /// A lent connection that will not come back.
    pub fn discard(&self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.open = st.open.saturating_sub(1);
        drop(st);
        self.freed.notify_one();
    }
}

/// A connection and, when it is pooled, the statements kept with it: a
/// statement run through it is prepared at its first run on the connection
/// and then runs in one round trip (a command's connection, used for a few
/// statements, sends each with its parameters as `postgres` does).
pub struct Prep<'a> {
    pub c: &'a mut Client,
    stmts: Option<&'a mut Stmts>,
}

impl<'a> Prep<'a> {
    pub fn new(c: &'a mut Client, stmts: Option<&'a mut Stmts>) -> Self {
        Prep { c, stmts }
    }

    fn kept(&mut self, sql: &str) -> Result<Option<postgres::Statement>, postgres::Error> {
        let Some(stmts) = self.stmts.as_deref_mut() else {
            return Ok(None);
        };
        if let Some(st) = stmts.get(sql) {
            return Ok(Some(st.clone()));
        }
        let st = self.c.prepare(sql)?;
        stmts.insert(sql.to_string(), st.clone());
        Ok(Some(st))
    }

    pub fn execute(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        match self.kept(sql)? {
            Some(st) => self.c.execute(&st, params),
            None => self.c.execute(sql, params),
        }
    }

    pub fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, postgres::Error> {
        match self.kept(sql)? {
            Some(st) => self.c.query(&st, params),
            None => self.c.query(sql, params),
        }
    }

    pub fn query_one(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<postgres::Row, postgres::Error> {
        match self.kept(sql)? {
            Some(st) => self.c.query_one(&st, params),
            None => self.c.query_one(sql, params),
        }
    }
}
