//! A write transaction on the database: the aggregates put in it, the
//! queue items added and removed, and the idempotency record armed, all
//! written in the database transaction the store holds, then `COMMIT`.
//! The attachments table is derived here from the customers written.

use std::collections::HashMap;

use super::PgStore;
use crate::error::Result;
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::txn::TxnFile;
use crate::store::QueueItem;

pub struct PgTx<'s> {
    store: &'s PgStore,
    /// Customers in the order they were first put (creation order of new ones).
    customers: Vec<Customer>,
    customer_at: HashMap<String, usize>,
    txns: Vec<TxnFile>,
    txn_at: HashMap<String, usize>,
    enqueued: Vec<String>,
    dequeued: Vec<String>,
    idempotency: Vec<crate::store::idempotency::Record>,
    api_keys: Vec<ApiKey>,
    api_used: Vec<(String, String)>,
    events: Vec<crate::model::event::NewEvent>,
    hooks: Vec<crate::store::webhooks::HookOp>,
    sealed: Vec<String>,
}

impl<'s> PgTx<'s> {
    pub(super) fn new(store: &'s PgStore) -> Self {
        PgTx {
            store,
            customers: Vec::new(),
            customer_at: HashMap::new(),
            txns: Vec::new(),
            txn_at: HashMap::new(),
            enqueued: Vec::new(),
            dequeued: Vec::new(),
            idempotency: Vec::new(),
            api_keys: Vec::new(),
            api_used: Vec::new(),
            events: Vec::new(),
            hooks: Vec::new(),
            sealed: Vec::new(),
        }
    }

    pub fn put_customer(&mut self, c: &Customer) {
        match self.customer_at.get(c.id()) {
            Some(&i) => self.customers[i] = c.clone(),
            None => {
                self.customer_at
                    .insert(c.id().to_string(), self.customers.len());
                self.customers.push(c.clone());
            }
        }
    }

    pub fn put_txn(&mut self, t: &TxnFile) {
        let id = &t.transaction.transaction_id;
        match self.txn_at.get(id) {
            Some(&i) => self.txns[i] = t.clone(),
            None => {
                self.txn_at.insert(id.clone(), self.txns.len());
                self.txns.push(t.clone());
            }
        }
    }

    pub fn customer(&self, id: &str) -> Result<Option<Customer>> {
        match self.customer_at.get(id) {
            Some(&i) => Ok(Some(self.customers[i].clone())),
            None => self.store.customer(id),
        }
    }

    pub fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        match self.txn_at.get(id) {
            Some(&i) => Ok(Some(self.txns[i].clone())),
            None => self.store.txn(id),
        }
    }

    pub fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.put_customer(&c);
        Ok(())
    }

    pub fn enqueue(&mut self, item: &QueueItem) {
        self.enqueued.push(item.file_name());
    }

    pub fn dequeue(&mut self, item: &QueueItem) {
        self.dequeued.push(item.file_name());
    }

    /// An idempotency record copied as it is (`store migrate`).
    pub fn put_idempotency(&mut self, rec: &crate::store::idempotency::Record) -> Result<()> {
        self.idempotency.push(rec.clone());
        Ok(())
    }

    /// An API key, new or revoked: its row (the name's UNIQUE index decides
    /// between two creates of one name).
    pub fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        self.api_keys.retain(|k| k.hash != key.hash);
        self.api_keys.push(key.clone());
        Ok(())
    }

    pub fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        self.api_used.extend_from_slice(used);
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
            && self.hooks.is_empty()
            && self.sealed.is_empty()
            && self.customers.is_empty()
            && self.txns.is_empty()
            && self.enqueued.is_empty()
            && self.dequeued.is_empty()
            && self.idempotency.is_empty()
            && self.api_keys.is_empty()
            && self.api_used.is_empty()
    }

    pub fn commit(self) -> Result<()> {
        self.write(None)
    }

    /// Commit a create answered `result`, with the armed idempotency record.
    pub fn commit_created(self, result: &str) -> Result<()> {
        let armed = self.store.armed.take();
        self.write(armed.map(|a| (a, result.to_string())))
    }

    fn write(self, idem: Option<(crate::store::idempotency::Armed, String)>) -> Result<()> {
        let store = self.store;
        // The columns of the rows to write, built once (a statement retried
        // reuses them): each table is written by one statement, whatever
        // the number of rows (an import's chunk of 5,000 profiles is one
        // INSERT, not 5,000), its rows passed as one array per column and
        // inserted in their order (`WITH ORDINALITY … ORDER BY`), which is
        // the order of their `seq`. (A multi-row `VALUES` list of 6,000
        // parameters costs more to parse and plan than to insert.)
        let mut cu: [Vec<String>; 6] = Default::default();
        // The attachment index, derived from the aggregates: each
        // customer's in creation order.
        let mut att: [Vec<String>; 2] = Default::default();
        for c in &self.customers {
            let ind = &c.profile.customer_profile_individual;
            cu[0].push(c.id().to_string());
            cu[1].push(c.profile.customer_key.clone());
            cu[2].push(ind.first_name.to_lowercase());
            cu[3].push(ind.last_name.to_lowercase());
            cu[4].push(ind.email.to_lowercase());
            cu[5].push(serde_json::to_string(c).expect("records serialize"));
            let mut atts: Vec<_> = c.attachments.iter().collect();
            atts.sort_by(|a, b| a.audit.created_datetime.cmp(&b.audit.created_datetime));
            for a in atts {
                att[0].push(a.program_id.clone());
                att[1].push(c.id().to_string());
            }
        }
        let mut tx: [Vec<String>; 4] = Default::default();
        let mut status: Vec<i32> = Vec::new();
        for t in &self.txns {
            let tr = &t.transaction;
            tx[0].push(tr.transaction_id.clone());
            tx[1].push(tr.program_id.clone());
            tx[2].push(tr.transaction_template_id.clone());
            tx[3].push(serde_json::to_string(t).expect("records serialize"));
            status.push(i32::try_from(tr.transaction_status_id).unwrap_or(i32::MAX));
        }
        // The slot of the kept count this commit adds its new customers to
        // (see `schema::COUNT_SLOTS`).
        let slot: i32 = rand::random_range(0..super::schema::COUNT_SLOTS);
        let written = store.with(|c| {
            if !cu[0].is_empty() {
                // One statement: the rows, and the count of those that are
                // new (every part of it sees the table as it was before).
                c.execute(
                    "WITH fresh AS (SELECT count(*) AS n FROM unnest($1::text[]) AS u (id) \
                       WHERE NOT EXISTS (SELECT 1 FROM payctl_customers o WHERE o.id = u.id)), \
                     counted AS (UPDATE payctl_counts SET n = payctl_counts.n + (SELECT n FROM fresh) \
                       WHERE name = 'customers' AND slot = $7 AND (SELECT n FROM fresh) > 0) \
                     INSERT INTO payctl_customers \
                     (id, customer_key, first_name_lc, last_name_lc, email_lc, doc) \
                     SELECT id, k, f, l, e, d::jsonb FROM unnest($1::text[], $2::text[], \
                       $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY \
                       AS r (id, k, f, l, e, d, n) ORDER BY n \
                     ON CONFLICT (id) DO UPDATE SET customer_key = EXCLUDED.customer_key, \
                     first_name_lc = EXCLUDED.first_name_lc, \
                     last_name_lc = EXCLUDED.last_name_lc, email_lc = EXCLUDED.email_lc, \
                     doc = EXCLUDED.doc",
                    &[&cu[0], &cu[1], &cu[2], &cu[3], &cu[4], &cu[5], &slot],
                )?;
            }
            if !att[0].is_empty() {
                c.execute(
                    "INSERT INTO payctl_attachments (program_id, customer_id) \
                     SELECT p, c FROM unnest($1::text[], $2::text[]) WITH ORDINALITY \
                       AS r (p, c, n) ORDER BY n \
                     ON CONFLICT DO NOTHING",
                    &[&att[0], &att[1]],
                )?;
            }
            if !tx[0].is_empty() {
                c.execute(
                    "INSERT INTO payctl_transactions (id, program_id, template_id, status_id, doc) \
                     SELECT id, p, t, s, d::jsonb FROM unnest($1::text[], $2::text[], \
                       $3::text[], $4::int4[], $5::text[]) WITH ORDINALITY \
                       AS r (id, p, t, s, d, n) ORDER BY n \
                     ON CONFLICT (id) DO UPDATE SET status_id = EXCLUDED.status_id, \
                     doc = EXCLUDED.doc",
                    &[&tx[0], &tx[1], &tx[2], &status, &tx[3]],
                )?;
            }
            if !self.enqueued.is_empty() {
                c.execute(
                    "INSERT INTO payctl_queue (name) SELECT unnest($1::text[]) \
                     ON CONFLICT DO NOTHING",
                    &[&self.enqueued],
                )?;
            }
            if !self.dequeued.is_empty() {
                c.execute(
                    "DELETE FROM payctl_queue WHERE name = ANY($1)",
                    &[&self.dequeued],
                )?;
            }
            for r in &self.idempotency {
                c.execute(
                    "INSERT INTO payctl_idempotency (key, fp, at, result) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (key) DO NOTHING",
                    &[&r.key, &r.fp, &r.at, &r.result.to_string()],
                )?;
            }
            super::api_keys::write(c, &self.api_keys, &self.api_used)?;
            super::webhooks::write(c, &self.hooks)?;
            // Last: the head's lock is held only until the COMMIT below.
            super::events::write_sealed(c, &self.sealed)?;
            super::events::write(c, &self.events)?;
            if let Some((a, result)) = &idem {
                let result = serde_json::Value::String(result.clone()).to_string();
                c.execute(
                    "DELETE FROM payctl_idempotency WHERE at <= $1",
                    &[&(a.now - crate::store::idempotency::TTL_SECS)],
                )?;
                c.execute(
                    "INSERT INTO payctl_idempotency (key, fp, at, result) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (key) DO UPDATE SET fp = EXCLUDED.fp, at = EXCLUDED.at, \
                     result = EXCLUDED.result",
                    &[&a.key, &a.fp, &a.now, &result],
                )?;
            }
            Ok(())
        });
        match written {
            Ok(()) => store.finish(true),
            Err(e) => {
                let _ = store.finish(false);
                // Two creates of one customer_key: the UNIQUE index decided.
                if e.errors.iter().any(|a| a.message.contains("customer_key")) {
                    return Err(crate::error::key_in_use());
                }
                // Two creates of one key name: its UNIQUE index decided.
                if let Some(k) = self.api_keys.first()
                    && e.errors
                        .iter()
                        .any(|a| a.message.contains("payctl_keys_name"))
                {
                    return Err(crate::error::name_in_use(&k.name));
                }
                Err(e)
            }
        }
    }
}

impl crate::store::storage::StorageTx for PgTx<'_> {
    fn put_customer(&mut self, c: &Customer) {
        PgTx::put_customer(self, c)
    }
    fn new_customer(&mut self, c: Customer) -> Result<()> {
        PgTx::new_customer(self, c)
    }
    fn put_txn(&mut self, t: &TxnFile) {
        PgTx::put_txn(self, t)
    }
    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        PgTx::customer(self, id)
    }
    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        PgTx::txn(self, id)
    }
    fn enqueue(&mut self, item: &QueueItem) {
        PgTx::enqueue(self, item)
    }
    fn dequeue(&mut self, item: &QueueItem) {
        PgTx::dequeue(self, item)
    }
    fn put_idempotency(&mut self, rec: &crate::store::idempotency::Record) -> Result<()> {
        PgTx::put_idempotency(self, rec)
    }
    fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        PgTx::put_api_key(self, key)
    }
    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        PgTx::api_keys_used(self, used)
    }
    fn put_events(&mut self, events: Vec<crate::model::event::NewEvent>) {
        self.events.extend(events)
    }
    fn hook_ops(&mut self, ops: Vec<crate::store::webhooks::HookOp>) {
        self.hooks.extend(ops)
    }

    fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        self.sealed.extend(lines);
        Ok(())
    }
    fn is_empty(&self) -> bool {
        PgTx::is_empty(self)
    }
    fn commit(self: Box<Self>) -> Result<()> {
        PgTx::commit(*self)
    }
    fn commit_created(self: Box<Self>, result: &str) -> Result<()> {
        PgTx::commit_created(*self, result)
    }
}
