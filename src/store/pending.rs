//! The writes a transaction holds until its commit, for the backends that
//! apply them all at once when it commits (the in-memory one and
//! PostgreSQL): [`Pending`], the buffer, and [`PendingTx`], the write
//! transaction over it. A backend says only how to apply a buffer
//! ([`ApplyPending`]); reading back what a transaction put, and the rule
//! that a customer_key or an API key's name is held by one record only,
//! are written here once. (The JSON directory stages its writes into its
//! journal as they come, see `json::tx`.)

use std::collections::HashMap;

use super::idempotency;
use super::storage::{Storage, StorageTx};
use super::types::QueueItem;
use super::webhooks::HookOp;
use crate::error::Result;
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::event::NewEvent;
use crate::model::txn::TxnFile;

/// What a transaction put, in the order it put it.
#[derive(Default)]
pub(crate) struct Pending {
    /// Customers in the order they were first put (creation order of new ones).
    pub customers: Vec<Customer>,
    customer_at: HashMap<String, usize>,
    pub txns: Vec<TxnFile>,
    txn_at: HashMap<String, usize>,
    pub enqueued: Vec<QueueItem>,
    pub dequeued: Vec<QueueItem>,
    pub idempotency: Vec<idempotency::Record>,
    pub api_keys: Vec<ApiKey>,
    pub api_used: Vec<(String, String)>,
    pub events: Vec<NewEvent>,
    pub hooks: Vec<HookOp>,
    pub sealed: Vec<String>,
}

impl Pending {
    /// Whether nothing was put.
    pub fn is_empty(&self) -> bool {
        self.customers.is_empty() && self.events.is_empty() && self.only_customers_and_events()
    }

    /// Whether nothing but customers and events was put (PostgreSQL groups
    /// such writes of concurrent requests into one commit). Every field is
    /// named: one added later must be placed here, or this does not compile.
    pub fn only_customers_and_events(&self) -> bool {
        let Pending {
            customers: _,
            customer_at: _,
            txns,
            txn_at: _,
            enqueued,
            dequeued,
            idempotency,
            api_keys,
            api_used,
            events: _,
            hooks,
            sealed,
        } = self;
        txns.is_empty()
            && enqueued.is_empty()
            && dequeued.is_empty()
            && idempotency.is_empty()
            && api_keys.is_empty()
            && api_used.is_empty()
            && hooks.is_empty()
            && sealed.is_empty()
    }

    /// Refuse the writes when they would make a customer_key (21004) or an
    /// API key's name (21006) held by two records: `key_holder(key)` is the
    /// customer that holds `key` now, `name_holder(name)` the hash of the
    /// API key that holds `name`. What this transaction puts counts
    /// before what is stored. (For a backend that checks for itself; a
    /// database whose unique index refused the commit says which with
    /// [`Pending::unique_refusal`].)
    pub fn check_unique(
        &self,
        key_holder: impl Fn(&str) -> Option<String>,
        name_holder: impl Fn(&str) -> Option<String>,
    ) -> Result<()> {
        let mut keys: HashMap<&str, &str> = HashMap::new();
        for c in &self.customers {
            let key = c.profile.customer_key.as_str();
            let holder = match keys.get(key) {
                Some(id) => Some(id.to_string()),
                None => key_holder(key),
            };
            if holder.is_some_and(|h| h != c.id()) {
                return Err(crate::error::key_in_use());
            }
            keys.insert(key, c.id());
        }
        let mut names: HashMap<&str, &str> = HashMap::new();
        for k in &self.api_keys {
            let holder = match names.get(k.name.as_str()) {
                Some(hash) => Some(hash.to_string()),
                None => name_holder(&k.name),
            };
            if holder.is_some_and(|h| h != k.hash) {
                return Err(crate::error::name_in_use(&k.name));
            }
            names.insert(&k.name, &k.hash);
        }
        Ok(())
    }

    /// The error of a commit that a unique index refused, the same as
    /// [`Pending::check_unique`] gives: `index` names the index (the
    /// database's message about it), `None` for another index.
    pub fn unique_refusal(&self, index: &str) -> Option<crate::error::Error> {
        if index.contains("customer_key") {
            return Some(crate::error::key_in_use());
        }
        if index.contains("payctl_keys_name") {
            return self
                .api_keys
                .first()
                .map(|k| crate::error::name_in_use(&k.name));
        }
        None
    }
}

/// A backend that applies a transaction's [`Pending`] writes at once.
pub(crate) trait ApplyPending: Storage {
    /// Apply `writes` all or nothing, with the armed idempotency record and
    /// the create's answer when the transaction was a create's.
    fn apply(&self, writes: Pending, armed: Option<(idempotency::Armed, String)>) -> Result<()>;
}

/// A write transaction of a backend that applies its writes at the commit.
pub(crate) struct PendingTx<'s, S: ?Sized> {
    store: &'s S,
    writes: Pending,
}

impl<'s, S: ApplyPending> PendingTx<'s, S> {
    pub fn new(store: &'s S) -> Self {
        PendingTx {
            store,
            writes: Pending::default(),
        }
    }
}

impl<S: ApplyPending> StorageTx for PendingTx<'_, S> {
    fn put_customer(&mut self, c: &Customer) {
        let w = &mut self.writes;
        match w.customer_at.get(c.id()) {
            Some(&i) => w.customers[i] = c.clone(),
            None => {
                w.customer_at.insert(c.id().to_string(), w.customers.len());
                w.customers.push(c.clone());
            }
        }
    }

    fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.put_customer(&c);
        Ok(())
    }

    fn new_customer_serialized(&mut self, c: Customer, _json: String) -> Result<()> {
        self.new_customer(c)
    }

    fn put_txn(&mut self, t: &TxnFile) {
        let w = &mut self.writes;
        let id = &t.transaction.transaction_id;
        match w.txn_at.get(id) {
            Some(&i) => w.txns[i] = t.clone(),
            None => {
                w.txn_at.insert(id.clone(), w.txns.len());
                w.txns.push(t.clone());
            }
        }
    }

    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        match self.writes.customer_at.get(id) {
            Some(&i) => Ok(Some(self.writes.customers[i].clone())),
            None => self.store.customer(id),
        }
    }

    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        match self.writes.txn_at.get(id) {
            Some(&i) => Ok(Some(self.writes.txns[i].clone())),
            None => self.store.txn(id),
        }
    }

    fn enqueue(&mut self, item: &QueueItem) {
        self.writes.enqueued.push(item.clone());
    }

    fn dequeue(&mut self, item: &QueueItem) {
        self.writes.dequeued.push(item.clone());
    }

    fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        self.writes.idempotency.push(rec.clone());
        Ok(())
    }

    fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        self.writes.api_keys.retain(|k| k.hash != key.hash);
        self.writes.api_keys.push(key.clone());
        Ok(())
    }

    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        self.writes.api_used.extend_from_slice(used);
        Ok(())
    }

    fn put_events(&mut self, events: Vec<NewEvent>) {
        self.writes.events.extend(events)
    }

    fn hook_ops(&mut self, ops: Vec<HookOp>) {
        self.writes.hooks.extend(ops)
    }

    fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        self.writes.sealed.extend(lines);
        Ok(())
    }

    fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    fn commit(self: Box<Self>) -> Result<()> {
        self.store.apply(self.writes, None)
    }

    fn commit_created(self: Box<Self>, result: &str) -> Result<()> {
        let armed = self.store.armed().take();
        self.store
            .apply(self.writes, armed.map(|a| (a, result.to_string())))
    }
}
