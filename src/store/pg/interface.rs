//! The database behind the storage interface: each read the trait names,
//! written here once (a write is a `PendingTx` over this store, see
//! `store::pending`, and tx.rs).

use super::*;
use crate::model::api_key::ApiKey;
use crate::store::storage::Storage;
use api_keys::COLUMNS;

impl PgStore {
    fn read_catalog(&self) -> Result<Catalog> {
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
}

/// The database behind the storage interface.
impl Storage for PgStore {
    fn describe(&self) -> String {
        self.target.shown.clone()
    }
    fn scratch_file(&self) -> Result<std::fs::File> {
        crate::store::atomic::temp_scratch("import")
    }
    /// Read once per pool (`payctl serve`; see `pool::Pool::catalog`).
    fn catalog(&self) -> Result<Catalog> {
        let pool = self.pool();
        if let Some(kept) = pool.as_ref().and_then(|p| p.catalog.get()) {
            return Ok(kept.clone());
        }
        let catalog = self.read_catalog()?;
        if let Some(p) = pool {
            let _ = p.catalog.set(catalog.clone());
        }
        Ok(catalog)
    }
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
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
                let text = self.row(&sql, &[Type::TEXT], &[&cid])?.map(|r| r.get(0));
                self.note_locked(text.is_some());
                text
            }
        };
        let Some(text) = text else { return Ok(None) };
        let c: Customer = self.doc(&format!("customer {cid}"), &text)?;
        if c.id() != cid {
            return Err(self.corrupt(format!("the row of customer {cid} holds another customer")));
        }
        Ok(Some(c))
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let sql = format!(
            "SELECT doc::text FROM payctl_transactions WHERE id = $1{}",
            self.lock_clause()
        );
        let text: Option<String> = self.row(&sql, &[Type::TEXT], &[&tid])?.map(|r| r.get(0));
        self.note_locked(text.is_some());
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
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
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
    fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
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
    /// Unfiltered: the kept count, and the page by `OFFSET`; filtered: the
    /// column's index.
    fn profile_page(&self, filter: Option<(Field, &str)>, w: &Window) -> Result<IdPage> {
        let Some((field, value)) = filter else {
            return IdPage::cut(
                self.profile_count()?,
                w,
                |after| self.profile_position(after),
                |start, end| self.profile_ids(start, end),
            );
        };
        Ok(IdPage::of(PgStore::profiles_with(self, field, value)?, w))
    }
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
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
    /// Without a customer: the columns' indexes; with one: the summaries.
    fn txn_page(&self, q: &TxnQuery, w: &Window) -> Result<IdPage> {
        let ids = if q.customer.is_none() {
            PgStore::txns_matching(self, q)?
        } else {
            let all = PgStore::txns(self)?;
            all.into_iter()
                .filter(|s| q.matches(s))
                .map(|s| s.id)
                .collect()
        };
        Ok(IdPage::of(ids, w))
    }
    fn queue(&self) -> Result<Vec<QueueItem>> {
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
    fn is_queued(&self, item: &QueueItem) -> bool {
        let sql = if self.mode == Mode::Exclusive {
            "SELECT 1 FROM payctl_queue WHERE name = $1 FOR UPDATE SKIP LOCKED"
        } else {
            "SELECT 1 FROM payctl_queue WHERE name = $1"
        };
        let name = item.file_name();
        let found = self
            .row(sql, &[Type::TEXT], &[&name])
            .is_ok_and(|r| r.is_some());
        self.note_locked(found);
        found
    }
    /// The live record of idempotency key `key`. A store opened for
    /// writing first claims the key until its commit (a transaction-scoped
    /// advisory lock on the key's hash, in a family of its own): of two
    /// requests with one key, the second waits for the first to commit or
    /// roll back, then reads the record it left (READ COMMITTED: each
    /// statement sees what was committed before it), so a key is executed
    /// once and every caller gets its answer, on one server or several.
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
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
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
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
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    fn check(&self, repair: bool) -> Result<crate::store::report::Report> {
        PgStore::check(self, repair)
    }
    fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        let sql = format!("SELECT {COLUMNS} FROM payctl_keys WHERE hash = $1");
        self.row(&sql, &[Type::TEXT], &[&hash])?
            .map(|r| self.api_key_of(&r))
            .transpose()
    }
    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let sql = format!("SELECT {COLUMNS} FROM payctl_keys ORDER BY created, name");
        self.rows(&sql, &[], &[])?
            .iter()
            .map(|r| self.api_key_of(r))
            .collect()
    }
    fn has_api_keys(&self) -> Result<bool> {
        Ok(self
            .row("SELECT EXISTS (SELECT 1 FROM payctl_keys)", &[], &[])?
            .is_some_and(|r| r.get::<_, bool>(0)))
    }
    /// None: the keys change on other servers, and each lookup is one
    /// indexed query.
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        Ok(None)
    }
    fn events_last(&self) -> Result<u64> {
        Ok(self
            .row("SELECT seq FROM payctl_event_head WHERE one = 1", &[], &[])?
            .map(|r| r.get::<_, i64>(0))
            .unwrap_or(0)
            .max(0) as u64)
    }
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        let (from, to) = (
            from.min(i64::MAX as u64) as i64,
            to.min(i64::MAX as u64) as i64,
        );
        Ok(self
            .rows(
                "SELECT line FROM payctl_events WHERE seq BETWEEN $1 AND $2 ORDER BY seq",
                &[Type::INT8, Type::INT8],
                &[&from, &to],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT line FROM payctl_events WHERE record_id = $1 ORDER BY seq",
                &[Type::TEXT],
                &[&record_id],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        Ok(self
            .row(
                "SELECT body FROM payctl_webhook_docs WHERE name = $1",
                &[Type::TEXT],
                &[&name],
            )?
            .map(|r| r.get(0)))
    }
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        // `starts_with`, not LIKE: a prefix is taken as it is.
        Ok(self
            .rows(
                "SELECT body FROM payctl_webhook_docs WHERE starts_with(name, $1) ORDER BY name",
                &[Type::TEXT],
                &[&prefix],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT line FROM payctl_webhook_log WHERE name = $1 ORDER BY seq",
                &[Type::TEXT],
                &[&name],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
    fn begin(
        &self,
        _: crate::store::storage::Begin,
    ) -> Box<dyn crate::store::storage::StorageTx + '_> {
        assert_eq!(self.mode, Mode::Exclusive, "write on a read-only store");
        Box::new(crate::store::pending::PendingTx::new(self))
    }
}
