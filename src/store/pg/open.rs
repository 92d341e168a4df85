//! Opening a database store: connecting, and the schema version read,
//! refused when newer, upgraded when older, or created with the catalog.

use super::*;

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
            "SELECT pg_advisory_xact_lock({lock}); {tables} {sim} {indexes} {counts} {stamp} \
             UPDATE payctl_meta SET value = '{version}' WHERE name = 'schema_version';",
            lock = schema::CREATE_LOCK,
            tables = schema::TABLES,
            sim = super::snapshot::TABLES,
            indexes = schema::INDEXES,
            counts = schema::COUNTS,
            stamp = schema::STAMP,
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
            t.batch_execute(super::snapshot::TABLES)?;
            t.batch_execute(schema::INDEXES)?;
            t.batch_execute(schema::COUNTS)?;
            t.batch_execute(schema::STAMP)?;
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
}
