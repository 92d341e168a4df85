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

mod api_keys;
pub mod check;
pub mod conn;
mod events;
pub mod pool;
pub mod schema;
pub mod tx;
mod webhooks;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use postgres::Client;
use postgres::types::{ToSql, Type};

use super::types::{Field, ProfileSummary, QueueItem, TxnMatches, TxnQuery, TxnSummary};
use super::{Mode, Opened, idempotency};
use crate::error::{Error, Result, code};
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};
pub use conn::Target;
pub use tx::PgTx;

/// The most customer rows a store opened for reading reads ahead with the
/// ids of a page or of a filter's matches (see `PgStore::prefetched`).
const PREFETCHED: i64 = 1000;

/// An open database store.
pub struct PgStore {
    target: Target,
    shown_path: PathBuf,
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
    /// Open the store in the database at `url`; an empty database gets the
    /// schema and `default_catalog()`.
    pub fn open(
        url: &str,
        mode: Mode,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<(PgStore, Opened)> {
        let store = PgStore::connect(url, mode)?;
        let opened = match store.version()? {
            Some(v) => {
                store.refuse_newer(v)?;
                store.upgrade(v)?;
                Opened::Existing
            }
            None => {
                if store.create(&default_catalog())? {
                    Opened::Created
                } else {
                    Opened::Existing
                }
            }
        };
        Ok((store, opened))
    }

    /// Open the store in the database at `url` for reading when it holds
    /// one of this payctl's schema version, else `None`: an empty database
    /// gets no schema and an older one is not upgraded (shell completion).
    pub fn open_existing(url: &str) -> Result<Option<PgStore>> {
        let store = PgStore::connect(url, Mode::Shared)?;
        Ok(match store.version()? {
            Some(v) if v == schema::SCHEMA_VERSION => Some(store),
            _ => None,
        })
    }

    /// Create a store with `catalog` in the database at `url`; refused when
    /// it holds one.
    pub fn init(url: &str, catalog: &Catalog) -> Result<PgStore> {
        let store = PgStore::connect(url, Mode::Exclusive)?;
        if store.version()?.is_some() || !store.create(catalog)? {
            return Err(Error::one(
                code::INVALID_VALUE,
                format!(
                    "a store already exists in the database {}",
                    store.target.shown
                ),
            ));
        }
        Ok(store)
    }

    /// Open the store in the database of `pool` on one of its connections
    /// (`payctl serve`); the schema is checked (or created) once per pool.
    pub fn open_pooled(
        pool: &Arc<pool::Pool>,
        mode: Mode,
        wait: std::time::Duration,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<PgStore> {
        let (client, stmts) = pool.get(wait)?;
        let store = PgStore::with_client(pool.target.clone(), mode, client, Some(pool.clone()));
        store.conn.lock().unwrap_or_else(|e| e.into_inner()).stmts = stmts;
        if pool.ready.get().is_none() {
            match store.version()? {
                Some(v) => {
                    store.refuse_newer(v)?;
                    store.upgrade(v)?;
                }
                None => {
                    store.create(&default_catalog())?;
                }
            }
            let _ = pool.ready.set(());
        }
        Ok(store)
    }

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
            shown_path: PathBuf::from(&target.shown),
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
        }
    }

    /// The database's URL without its password.
    pub fn shown(&self) -> &str {
        &self.target.shown
    }

    pub fn root(&self) -> &Path {
        &self.shown_path
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

    /// The schema version of the database; `None` when it has no store.
    /// One round trip when it has one (every command's first statement):
    /// the version is read, and a missing table (SQLSTATE 42P01) means no
    /// store. Run before any transaction begins, so that the error aborts
    /// none.
    fn version(&self) -> Result<Option<u32>> {
        let read = {
            let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
            debug_assert!(!conn.in_tx, "the version is read before any transaction");
            conn.client().query_typed(
                "SELECT value FROM payctl_meta WHERE name = 'schema_version'",
                &[],
            )
        };
        let v = match read {
            Ok(rows) => rows.into_iter().next().map(|r| r.get::<_, String>(0)),
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => None,
            Err(e) => return Err(self.err(&e)),
        };
        match v {
            None => Ok(None),
            Some(text) => text
                .parse()
                .map(Some)
                .map_err(|_| self.corrupt("payctl_meta.schema_version is not a number")),
        }
    }

    fn refuse_newer(&self, v: u32) -> Result<()> {
        if v > schema::SCHEMA_VERSION {
            return Err(Error::store(
                code::STORE_VERSION,
                format!(
                    "the database {} has schema version {v}, this payctl reads up to {}: \
                     upgrade payctl",
                    self.target.shown,
                    schema::SCHEMA_VERSION
                ),
            ));
        }
        if v < 1 {
            return Err(self.corrupt("unknown schema version"));
        }
        Ok(())
    }

    /// Bring a database of an older schema version to this one, in place
    /// (one transaction, serialized with any other payctl doing the same).
    fn upgrade(&self, v: u32) -> Result<()> {
        if v >= schema::SCHEMA_VERSION {
            return Ok(());
        }
        let sql = format!(
            "SELECT pg_advisory_xact_lock({lock}); {tables} {indexes} {counts} \
             UPDATE payctl_meta SET value = '{version}' WHERE name = 'schema_version';",
            lock = schema::CREATE_LOCK,
            tables = schema::TABLES,
            indexes = schema::INDEXES,
            counts = schema::COUNTS,
            version = schema::SCHEMA_VERSION
        );
        // One simple query is one transaction; a store opened for writing
        // runs it in its own and commits it here.
        self.with(|c| c.batch_execute(&sql))?;
        self.finish(true)
    }

    /// Create the schema and the catalog in one transaction, serialized with
    /// any other payctl doing the same; `false` when another did it first.
    fn create(&self, catalog: &Catalog) -> Result<bool> {
        let text = serde_json::to_string(catalog).expect("catalog serializes");
        let version = schema::SCHEMA_VERSION.to_string();
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let created = (|| {
            let mut t = conn.client().transaction()?;
            t.execute("SELECT pg_advisory_xact_lock($1)", &[&schema::CREATE_LOCK])?;
            t.batch_execute(schema::TABLES)?;
            t.batch_execute(schema::INDEXES)?;
            t.batch_execute(schema::COUNTS)?;
            let had = t
                .query_opt(
                    "SELECT value FROM payctl_meta WHERE name = 'schema_version'",
                    &[],
                )?
                .is_some();
            if had {
                t.commit()?;
                return Ok(false);
            }
            t.execute(
                "INSERT INTO payctl_meta (name, value) VALUES ('catalog', $1), ('schema_version', $2)",
                &[&text, &version],
            )?;
            t.commit()?;
            Ok(true)
        })()
        .map_err(|e: postgres::Error| self.err(&e))?;
        Ok(created)
    }

    /// `FOR UPDATE` when this store writes: the row stays locked until the commit.
    fn lock_clause(&self) -> &'static str {
        if self.mode == Mode::Exclusive {
            " FOR UPDATE"
        } else {
            ""
        }
    }

    pub fn scratch_file(&self) -> Result<std::fs::File> {
        let path = std::env::temp_dir().join(format!(
            "payctl-import-{}-{}{}",
            std::process::id(),
            rand::random::<u64>(),
            super::atomic::TEMP_SUFFIX
        ));
        super::atomic::unlinked_scratch(&path)
    }

    pub fn catalog(&self) -> Result<Catalog> {
        let text: Option<String> = self
            .row(
                "SELECT value FROM payctl_meta WHERE name = 'catalog'",
                &[],
                &[],
            )?
            .map(|r| r.get(0));
        let text = text.ok_or_else(|| self.corrupt("the catalog is missing"))?;
        serde_json::from_str(&text).map_err(|e| self.corrupt(format!("the catalog: {e}")))
    }

    fn doc<T: serde::de::DeserializeOwned>(&self, what: &str, text: &str) -> Result<T> {
        serde_json::from_str(text).map_err(|e| self.corrupt(format!("{what}: {e}")))
    }

    pub fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        if !id::is_valid(id::CUSTOMER, cid) {
            return Ok(None);
        }
        let read = self
            .prefetched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(cid);
        let text: Option<String> = match read {
            Some(text) => Some(text),
            None => {
                let sql = format!(
                    "SELECT doc::text FROM payctl_customers WHERE id = $1{}",
                    self.lock_clause()
                );
                self.row(&sql, &[Type::TEXT], &[&cid])?.map(|r| r.get(0))
            }
        };
        let Some(text) = text else { return Ok(None) };
        let c: Customer = self.doc(&format!("customer {cid}"), &text)?;
        if c.id() != cid {
            return Err(self.corrupt(format!("the row of customer {cid} holds another customer")));
        }
        Ok(Some(c))
    }

    pub fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let sql = format!(
            "SELECT doc::text FROM payctl_transactions WHERE id = $1{}",
            self.lock_clause()
        );
        let text: Option<String> = self.row(&sql, &[Type::TEXT], &[&tid])?.map(|r| r.get(0));
        let Some(text) = text else { return Ok(None) };
        let t: TxnFile = self.doc(&format!("transaction {tid}"), &text)?;
        if t.transaction.transaction_id != tid {
            return Err(self.corrupt(format!(
                "the row of transaction {tid} holds another transaction"
            )));
        }
        Ok(Some(t))
    }

    /// The customer holding `key`. A store opened for writing also locks the
    /// key until its commit, so that of two creates of one key the second
    /// sees the first's customer.
    pub fn key_owner(&self, key: &str) -> Result<Option<String>> {
        if self.mode == Mode::Exclusive {
            self.rows(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 7))",
                &[Type::TEXT],
                &[&key],
            )?;
        }
        Ok(self
            .row(
                "SELECT id FROM payctl_customers WHERE customer_key = $1",
                &[Type::TEXT],
                &[&key],
            )?
            .map(|r| r.get(0)))
    }

    /// The holders of `keys`, in their order (an import's batch): one query
    /// for the batch (`= ANY($1)`), not one per key. A store opened for
    /// writing first locks every key of the batch, as [`Self::key_owner`]
    /// locks one, in one statement and in a fixed order (of the lock
    /// numbers), so that two imports with keys in common wait for each
    /// other instead of deadlocking.
    pub fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let lock = self.mode == Mode::Exclusive;
        let owners: HashMap<String, String> = self.with(|c| {
            if lock {
                c.execute(
                    "SELECT pg_advisory_xact_lock(h) FROM \
                     (SELECT DISTINCT hashtextextended(k, 7) AS h FROM unnest($1::text[]) AS k \
                      ORDER BY h) AS keys",
                    &[&keys],
                )?;
            }
            Ok(c.query(
                "SELECT customer_key, id FROM payctl_customers WHERE customer_key = ANY($1)",
                &[&keys],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
        })?;
        Ok(keys.iter().map(|k| owners.get(*k).cloned()).collect())
    }

    pub fn key_index(&self) -> Result<PgKeyIndex> {
        let owners = self.with(|c| {
            Ok(
                c.query("SELECT customer_key, id FROM payctl_customers", &[])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect(),
            )
        })?;
        Ok(PgKeyIndex { owners })
    }

    fn docs<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<T>> {
        let rows: Vec<String> = self.with(|c| {
            Ok(c.query(sql, params)?
                .into_iter()
                .map(|r| r.get::<_, String>(0))
                .collect())
        })?;
        rows.iter().map(|t| self.doc(what, t)).collect()
    }

    /// Every customer in creation order (for a check or a migration).
    pub fn all_customers(&self) -> Result<Vec<Customer>> {
        self.docs(
            "a customer",
            "SELECT doc::text FROM payctl_customers ORDER BY seq",
            &[],
        )
    }

    /// Every transaction in creation order.
    pub fn all_txns(&self) -> Result<Vec<TxnFile>> {
        self.docs(
            "a transaction",
            "SELECT doc::text FROM payctl_transactions ORDER BY seq",
            &[],
        )
    }

    /// Profile summaries in creation order, from the columns and the
    /// profile's own fields (the addresses and instruments are not read).
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        self.summaries("", &[])
    }

    fn summaries(
        &self,
        filter: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<ProfileSummary>> {
        let sql = format!(
            "SELECT id, customer_key, \
               coalesce(doc #>> '{{profile,customer_profile_individual,first_name}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_individual,last_name}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_individual,email}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_tags}}', '[]') \
             FROM payctl_customers c {filter} ORDER BY seq"
        );
        let rows: Vec<(String, String, String, String, String, String)> = self.with(|c| {
            Ok(c.query(sql.as_str(), params)?
                .into_iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
                .collect())
        })?;
        rows.into_iter()
            .map(|(id, customer_key, first_name, last_name, email, tags)| {
                Ok(ProfileSummary {
                    tags: self.doc(&format!("the tags of customer {id}"), &tags)?,
                    id,
                    customer_key,
                    first_name,
                    last_name,
                    email,
                })
            })
            .collect()
    }

    /// The profiles whose `field` is `value` (normalized: see
    /// [`Field::normal`]), their ids in creation order, from
    /// the column's index (the tags' GIN index), never a scan of every row.
    pub fn profiles_with(&self, field: Field, value: &str) -> Result<Vec<String>> {
        // The rows of the first PREFETCHED matches come with them (see
        // `prefetched`); a store opened for writing reads each row itself
        // (and locks it).
        let doc = if self.mode == Mode::Exclusive {
            "NULL::text".to_string()
        } else {
            format!("CASE WHEN row_number() OVER (ORDER BY seq) <= {PREFETCHED} THEN doc::text END")
        };
        let rows: Vec<(String, Option<String>)> = match field {
            Field::Tag => {
                let (k, v) = value.split_once('=').unwrap_or((value, ""));
                let probe = serde_json::json!([{"key": k, "value": v}]).to_string();
                let sql = format!(
                    "SELECT id, {doc} FROM payctl_customers c \
                     WHERE doc -> 'profile' -> 'customer_profile_tags' @> $1::text::jsonb \
                     ORDER BY seq"
                );
                self.rows(&sql, &[Type::TEXT], &[&probe])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
            _ => {
                let column = match field {
                    Field::Email => "email_lc",
                    Field::FirstName => "first_name_lc",
                    _ => "last_name_lc",
                };
                let sql = format!(
                    "SELECT id, {doc} FROM payctl_customers c WHERE {column} = $1 \
                     ORDER BY seq"
                );
                self.rows(&sql, &[Type::TEXT], &[&value])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
        };
        let mut prefetched = self.prefetched.lock().unwrap_or_else(|e| e.into_inner());
        Ok(rows
            .into_iter()
            .map(|(id, doc)| {
                if let Some(doc) = doc {
                    prefetched.insert(id.clone(), doc);
                }
                id
            })
            .collect())
    }

    /// The number of customers, from the count that commits keep
    /// (`payctl_counts`, see [`schema::COUNT_SLOTS`]), not a `count(*)` of
    /// the table (which reads every row of an index).
    pub fn profile_count(&self) -> Result<usize> {
        let n: i64 = self
            .row(
                "SELECT coalesce(sum(n), 0)::bigint FROM payctl_counts WHERE name = 'customers'",
                &[],
                &[],
            )?
            .map_or(0, |r| r.get(0));
        Ok(usize::try_from(n).unwrap_or(0))
    }

    pub fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        let offset = i64::try_from(start).unwrap_or(i64::MAX);
        let limit = i64::try_from(end.saturating_sub(start)).unwrap_or(i64::MAX);
        if self.mode == Mode::Exclusive || limit > PREFETCHED {
            return Ok(self
                .rows(
                    "SELECT id FROM payctl_customers ORDER BY seq OFFSET $1 LIMIT $2",
                    &[Type::INT8, Type::INT8],
                    &[&offset, &limit],
                )?
                .into_iter()
                .map(|r| r.get(0))
                .collect());
        }
        // A page: its rows come with its ids (see `prefetched`).
        let rows = self.rows(
            "SELECT id, doc::text FROM payctl_customers ORDER BY seq OFFSET $1 LIMIT $2",
            &[Type::INT8, Type::INT8],
            &[&offset, &limit],
        )?;
        let mut prefetched = self.prefetched.lock().unwrap_or_else(|e| e.into_inner());
        Ok(rows
            .into_iter()
            .map(|r| {
                let id: String = r.get(0);
                prefetched.insert(id.clone(), r.get(1));
                id
            })
            .collect())
    }

    pub fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        let n: Option<i64> = self
            .row(
                "SELECT (SELECT count(*) FROM payctl_customers o WHERE o.seq < c.seq) \
                 FROM payctl_customers c WHERE c.id = $1",
                &[Type::TEXT],
                &[&cid],
            )?
            .map(|r| r.get(0));
        Ok(n.map(|n| usize::try_from(n).unwrap_or(0)))
    }

    pub fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT customer_id FROM payctl_attachments WHERE program_id = $1 ORDER BY seq",
                &[Type::TEXT],
                &[&program_id],
            )?
            .into_iter()
            .map(|r| r.get(0))
            .collect())
    }

    /// The ids, in creation order, of the transactions with status
    /// `status`, one of `templates` and one of `programs` (each when
    /// given), from the indexes on those columns.
    pub fn txns_matching(&self, q: &TxnQuery) -> Result<Vec<String>> {
        let mut cond: Vec<String> = Vec::new();
        let status = q.status.map(|s| s as i32);
        let templates: Vec<String> = q.templates.clone().unwrap_or_default();
        let programs: Vec<String> = q.programs.clone().unwrap_or_default();
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::new();
        if let Some(s) = &status {
            params.push(s);
            cond.push(format!("status_id = ${}", params.len()));
        }
        if q.templates.is_some() {
            params.push(&templates);
            cond.push(format!("template_id = ANY(${})", params.len()));
        }
        if q.programs.is_some() {
            params.push(&programs);
            cond.push(format!("program_id = ANY(${})", params.len()));
        }
        let filter = if cond.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", cond.join(" AND "))
        };
        let sql = format!("SELECT id FROM payctl_transactions {filter} ORDER BY seq");
        self.with(|c| {
            Ok(c.query(sql.as_str(), &params)?
                .into_iter()
                .map(|r| r.get(0))
                .collect())
        })
    }

    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        Ok(self.all_txns()?.iter().map(TxnSummary::of).collect())
    }

    pub fn queue(&self) -> Result<Vec<QueueItem>> {
        let names: Vec<String> = self.with(|c| {
            Ok(c.query("SELECT name FROM payctl_queue ORDER BY name", &[])?
                .into_iter()
                .map(|r| r.get(0))
                .collect())
        })?;
        Ok(names.iter().filter_map(|n| QueueItem::parse(n)).collect())
    }

    /// Whether `item` is queued; a store opened for writing claims it until
    /// its commit (`FOR UPDATE SKIP LOCKED`: an item another worker holds is
    /// not queued for this one).
    pub fn is_queued(&self, item: &QueueItem) -> bool {
        let sql = if self.mode == Mode::Exclusive {
            "SELECT 1 FROM payctl_queue WHERE name = $1 FOR UPDATE SKIP LOCKED"
        } else {
            "SELECT 1 FROM payctl_queue WHERE name = $1"
        };
        let name = item.file_name();
        self.row(sql, &[Type::TEXT], &[&name])
            .is_ok_and(|r| r.is_some())
    }

    /// The live record of idempotency key `key`. A store opened for
    /// writing first claims the key until its commit (a transaction-scoped
    /// advisory lock on the key's hash, in a family of its own): of two
    /// requests with one key, the second waits for the first to commit or
    /// roll back, then reads the record it left (READ COMMITTED: each
    /// statement sees what was committed before it), so a key is executed
    /// once and every caller gets its answer, on one server or several.
    pub fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        if self.mode == Mode::Exclusive {
            self.rows(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 1013))",
                &[Type::TEXT],
                &[&key],
            )?;
        }
        let row: Option<(String, i64, String)> = self
            .row(
                "SELECT fp, at, result FROM payctl_idempotency WHERE key = $1",
                &[Type::TEXT],
                &[&key],
            )?
            .map(|r| (r.get(0), r.get(1), r.get(2)));
        let Some((fp, at, result)) = row else {
            return Ok(None);
        };
        let rec = idempotency::Record {
            key: key.to_string(),
            fp,
            at,
            result: self.doc("an idempotency record", &result)?,
        };
        Ok((!rec.expired(now)).then_some(rec))
    }

    /// Every live idempotency record (for `store migrate`).
    pub fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        let rows: Vec<(String, String, i64, String)> = self.with(|c| {
            Ok(c.query(
                "SELECT key, fp, at, result FROM payctl_idempotency ORDER BY at, key",
                &[],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
        })?;
        let mut out = Vec::new();
        for (key, fp, at, result) in rows {
            let rec = idempotency::Record {
                key,
                fp,
                at,
                result: self.doc("an idempotency record", &result)?,
            };
            if !rec.expired(now) {
                out.push(rec);
            }
        }
        Ok(out)
    }

    /// Rows per table of the store (for `store migrate`'s verification).
    pub fn attachment_count(&self) -> Result<usize> {
        let n: i64 = self.with(|c| {
            Ok(c.query_one("SELECT count(*) FROM payctl_attachments", &[])?
                .get(0))
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    pub fn begin(&self) -> PgTx<'_> {
        assert_eq!(self.mode, Mode::Exclusive, "write on a read-only store");
        PgTx::new(self)
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

/// The database behind the storage interface.
impl crate::store::storage::Storage for PgStore {
    fn root(&self) -> &Path {
        PgStore::root(self)
    }
    fn scratch_file(&self) -> Result<std::fs::File> {
        PgStore::scratch_file(self)
    }
    fn catalog(&self) -> Result<Catalog> {
        PgStore::catalog(self)
    }
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        PgStore::customer(self, cid)
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        PgStore::txn(self, tid)
    }
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        PgStore::key_owner(self, key)
    }
    fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        PgStore::key_owners(self, keys)
    }
    fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        PgStore::profiles(self)
    }
    fn profiles_with(&self, field: Field, value: &str) -> Result<Option<Vec<String>>> {
        PgStore::profiles_with(self, field, value).map(Some)
    }
    fn profile_count(&self) -> Result<usize> {
        PgStore::profile_count(self)
    }
    fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        PgStore::profile_ids(self, start, end)
    }
    fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        PgStore::profile_position(self, cid)
    }
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        PgStore::program_customers(self, program_id)
    }
    fn txns(&self) -> Result<Vec<TxnSummary>> {
        PgStore::txns(self)
    }
    fn txns_matching(&self, q: &TxnQuery) -> Result<TxnMatches> {
        PgStore::txns_matching(self, q).map(TxnMatches::Ids)
    }
    fn queue(&self) -> Result<Vec<QueueItem>> {
        PgStore::queue(self)
    }
    fn is_queued(&self, item: &QueueItem) -> bool {
        PgStore::is_queued(self, item)
    }
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        PgStore::idempotency_record(self, key, now)
    }
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        PgStore::idempotency_records(self, now)
    }
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    fn check(&self, repair: bool) -> Result<crate::store::report::Report> {
        PgStore::check(self, repair)
    }
    fn api_key(&self, hash: &str) -> Result<Option<crate::model::api_key::ApiKey>> {
        PgStore::api_key(self, hash)
    }
    fn api_keys(&self) -> Result<Vec<crate::model::api_key::ApiKey>> {
        PgStore::api_keys(self)
    }
    fn has_api_keys(&self) -> Result<bool> {
        PgStore::has_api_keys(self)
    }
    fn events_last(&self) -> Result<u64> {
        PgStore::events_last(self)
    }
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        PgStore::event_lines(self, from, to)
    }
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        PgStore::record_event_lines(self, record_id)
    }
    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        PgStore::hook_doc(self, name)
    }
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        PgStore::hook_docs(self, prefix)
    }
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        PgStore::hook_log(self, name)
    }
    fn begin(&self) -> Box<dyn crate::store::storage::StorageTx + '_> {
        Box::new(PgStore::begin(self))
    }
}
