//! A write transaction on the database: the aggregates put in it, the
//! queue items added and removed, and the idempotency record armed, all
//! written in the database transaction the store holds, then `COMMIT`.
//! The attachments table is derived here from the customers written.

use std::collections::HashMap;

use super::PgStore;
use crate::error::Result;
use crate::model::Customer;
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

    pub fn is_empty(&self) -> bool {
        self.customers.is_empty()
            && self.txns.is_empty()
            && self.enqueued.is_empty()
            && self.dequeued.is_empty()
            && self.idempotency.is_empty()
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
        let written = store.with(|c| {
            let upsert = c.prepare(
                "INSERT INTO payctl_customers (id, customer_key, first_name_lc, last_name_lc, email_lc, doc) \
                 VALUES ($1, $2, $3, $4, $5, $6::text::jsonb) \
                 ON CONFLICT (id) DO UPDATE SET customer_key = EXCLUDED.customer_key, \
                 first_name_lc = EXCLUDED.first_name_lc, \
                 last_name_lc = EXCLUDED.last_name_lc, email_lc = EXCLUDED.email_lc, doc = EXCLUDED.doc",
            )?;
            let attach = c.prepare(
                "INSERT INTO payctl_attachments (program_id, customer_id) VALUES ($1, $2) \
                 ON CONFLICT DO NOTHING",
            )?;
            for cu in &self.customers {
                let ind = &cu.profile.customer_profile_individual;
                let doc = serde_json::to_string(cu).expect("records serialize");
                c.execute(
                    &upsert,
                    &[
                        &cu.id(),
                        &cu.profile.customer_key,
                        &ind.first_name.to_lowercase(),
                        &ind.last_name.to_lowercase(),
                        &ind.email.to_lowercase(),
                        &doc,
                    ],
                )?;
                // The attachment index, derived from the aggregate in creation order.
                let mut atts: Vec<_> = cu.attachments.iter().collect();
                atts.sort_by(|a, b| a.audit.created_datetime.cmp(&b.audit.created_datetime));
                for a in atts {
                    c.execute(&attach, &[&a.program_id, &cu.id()])?;
                }
            }
            let put_txn = c.prepare(
                "INSERT INTO payctl_transactions (id, program_id, template_id, status_id, doc) \
                 VALUES ($1, $2, $3, $4, $5::text::jsonb) \
                 ON CONFLICT (id) DO UPDATE SET status_id = EXCLUDED.status_id, doc = EXCLUDED.doc",
            )?;
            for t in &self.txns {
                let tr = &t.transaction;
                let status = i32::try_from(tr.transaction_status_id).unwrap_or(i32::MAX);
                let doc = serde_json::to_string(t).expect("records serialize");
                c.execute(
                    &put_txn,
                    &[
                        &tr.transaction_id,
                        &tr.program_id,
                        &tr.transaction_template_id,
                        &status,
                        &doc,
                    ],
                )?;
            }
            for name in &self.enqueued {
                c.execute(
                    "INSERT INTO payctl_queue (name) VALUES ($1) ON CONFLICT DO NOTHING",
                    &[name],
                )?;
            }
            for name in &self.dequeued {
                c.execute("DELETE FROM payctl_queue WHERE name = $1", &[name])?;
            }
            for r in &self.idempotency {
                c.execute(
                    "INSERT INTO payctl_idempotency (key, fp, at, result) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (key) DO NOTHING",
                    &[&r.key, &r.fp, &r.at, &r.result.to_string()],
                )?;
            }
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
                    return Err(crate::core::profile::key_in_use());
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
