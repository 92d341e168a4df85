//! The records read by id or by key: the catalog, a customer, a
//! transaction, a key's holder, and every record at once.

use super::*;

impl PgStore {
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
}
