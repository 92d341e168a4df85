//! `--dry-run`: a store that reads through to a real one, opened for
//! reading, and keeps the changes of a write transaction in memory instead
//! of committing them. A create, update, delete or attach runs on it
//! exactly as on the real store (every rule, every reference, every
//! refusal), then reads its own result back as a get would show it, and
//! nothing is written: the real store is never opened for writing.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Store;
use super::idempotency;
use super::report::Report;
use super::storage::{Storage, StorageTx};
use super::types::{Field, IdPage, QueueItem, TxnQuery, Window};
use crate::error::{Error, Result};
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;

/// A real store (opened for reading) and the changes a dry run made.
pub struct DryStore {
    inner: Box<Store>,
    customers: Mutex<HashMap<String, Customer>>,
    txns: Mutex<HashMap<String, TxnFile>>,
    armed: idempotency::ArmedSlot,
}

impl DryStore {
    /// Over `inner`, a store opened for reading.
    pub fn over(inner: Store) -> DryStore {
        DryStore {
            inner: Box::new(inner),
            customers: Default::default(),
            txns: Default::default(),
            armed: Default::default(),
        }
    }

    /// The real store it reads.
    pub(crate) fn inner(&self) -> &Store {
        &self.inner
    }

    fn kept_customer(&self, id: &str) -> Option<Customer> {
        self.customers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }

    fn kept_txn(&self, id: &str) -> Option<TxnFile> {
        self.txns
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }
}

impl Storage for DryStore {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn scratch_file(&self) -> Result<std::fs::File> {
        self.inner.scratch_file()
    }
    fn catalog(&self) -> Result<Catalog> {
        self.inner.catalog()
    }
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        match self.kept_customer(cid) {
            Some(c) => Ok(Some(c)),
            None => self.inner.customer(cid),
        }
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        match self.kept_txn(tid) {
            Some(t) => Ok(Some(t)),
            None => self.inner.txn(tid),
        }
    }
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        let kept = self
            .customers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .find(|c| c.profile.customer_key == key)
            .map(|c| c.id().to_string());
        match kept {
            Some(id) => Ok(Some(id)),
            None => self.inner.key_owner(key),
        }
    }
    fn profile_page(&self, filter: Option<(Field, &str)>, w: &Window) -> Result<IdPage> {
        self.inner.profile_page(filter, w)
    }
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        self.inner.program_customers(program_id)
    }
    fn txn_page(&self, q: &TxnQuery, w: &Window) -> Result<IdPage> {
        self.inner.txn_page(q, w)
    }
    fn queue(&self) -> Result<Vec<QueueItem>> {
        self.inner.queue()
    }
    fn is_queued(&self, item: &QueueItem) -> bool {
        self.inner.is_queued(item)
    }
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        self.inner.idempotency_record(key, now)
    }
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        self.inner.idempotency_records(now)
    }
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        self.inner.api_key(hash)
    }
    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        self.inner.api_keys()
    }
    /// None: a dry run's keys are looked up each time.
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        Ok(None)
    }
    fn check(&self, _repair: bool) -> Result<Report> {
        Err(Error::usage("store check has no --dry-run"))
    }
    fn events_last(&self) -> Result<u64> {
        self.inner.events_last()
    }
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        self.inner.event_lines(from, to)
    }
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        self.inner.record_event_lines(record_id)
    }
    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        self.inner.hook_doc(name)
    }
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        self.inner.hook_docs(prefix)
    }
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        self.inner.hook_log(name)
    }
    fn begin(&self, _: crate::store::storage::Begin) -> Box<dyn StorageTx + '_> {
        Box::new(DryTx {
            store: self,
            customers: Vec::new(),
            txns: Vec::new(),
        })
    }
}

/// The changes of a dry run's transaction, kept by its store at "commit".
struct DryTx<'s> {
    store: &'s DryStore,
    customers: Vec<Customer>,
    txns: Vec<TxnFile>,
}

impl StorageTx for DryTx<'_> {
    fn put_customer(&mut self, c: &Customer) {
        self.customers.retain(|x| x.id() != c.id());
        self.customers.push(c.clone());
    }
    fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.put_customer(&c);
        Ok(())
    }
    fn new_customer_serialized(&mut self, c: Customer, _json: String) -> Result<()> {
        self.new_customer(c)
    }
    fn put_txn(&mut self, t: &TxnFile) {
        let id = &t.transaction.transaction_id;
        self.txns.retain(|x| x.transaction.transaction_id != *id);
        self.txns.push(t.clone());
    }
    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        match self.customers.iter().find(|c| c.id() == id) {
            Some(c) => Ok(Some(c.clone())),
            None => self.store.customer(id),
        }
    }
    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        match self
            .txns
            .iter()
            .find(|t| t.transaction.transaction_id == id)
        {
            Some(t) => Ok(Some(t.clone())),
            None => self.store.txn(id),
        }
    }
    fn enqueue(&mut self, _item: &QueueItem) {}
    fn dequeue(&mut self, _item: &QueueItem) {}
    fn put_idempotency(&mut self, _rec: &idempotency::Record) -> Result<()> {
        Ok(())
    }
    fn put_api_key(&mut self, _key: &ApiKey) -> Result<()> {
        Ok(())
    }
    fn api_keys_used(&mut self, _used: &[(String, String)]) -> Result<()> {
        Ok(())
    }
    /// A dry run records no event (nothing was changed).
    fn put_events(&mut self, _events: Vec<crate::model::event::NewEvent>) {}
    /// Nor does it change a webhook.
    fn hook_ops(&mut self, _ops: Vec<crate::store::webhooks::HookOp>) {}
    fn put_sealed_events(&mut self, _lines: Vec<String>) -> Result<()> {
        Ok(())
    }
    fn is_empty(&self) -> bool {
        self.customers.is_empty() && self.txns.is_empty()
    }
    fn commit(self: Box<Self>) -> Result<()> {
        let mut cs = self
            .store
            .customers
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for c in self.customers {
            cs.insert(c.id().to_string(), c);
        }
        let mut ts = self.store.txns.lock().unwrap_or_else(|e| e.into_inner());
        for t in self.txns {
            ts.insert(t.transaction.transaction_id.clone(), t);
        }
        Ok(())
    }
    fn commit_created(self: Box<Self>, _result: &str) -> Result<()> {
        self.store.armed.disarm();
        self.commit()
    }
}
