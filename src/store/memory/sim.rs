//! The storage of issue 37 in memory (see [`crate::store::sim`]): rules, read
//! counts and snapshots beside the records, a snapshot a copy of the
//! records, a restore and a reset a swap under the data's mutex.

use std::collections::{BTreeMap, HashMap};

use super::{Data, MemoryStore};
use crate::error::Result;
use crate::model::Customer;
use crate::model::sim_rule::{Reset, Rule, Snapshot};
use crate::model::txn::TxnFile;
use crate::store::idempotency;
use crate::store::sim::SimStorage;
use crate::store::types::QueueItem;

/// What a snapshot of this backend says it is.
pub const STORE_VERSION: &str = "memory 1";

/// The rules, read counts and snapshots of an in-memory store.
#[derive(Clone, Default)]
pub(super) struct SimData {
    rules: Vec<Rule>,
    polls: HashMap<String, u64>,
    /// By name.
    snapshots: BTreeMap<String, (Snapshot, Records)>,
}

/// The records of a store, as a snapshot keeps them.
#[derive(Clone, Default)]
struct Records {
    customers: HashMap<String, Customer>,
    profile_order: Vec<String>,
    keys: HashMap<String, String>,
    txns: HashMap<String, TxnFile>,
    txn_order: Vec<String>,
    attachments: Vec<(String, String)>,
    queue: BTreeMap<String, QueueItem>,
    idempotency: HashMap<String, idempotency::Record>,
    polls: HashMap<String, u64>,
}

impl Records {
    fn of(d: &Data) -> Records {
        Records {
            customers: d.customers.clone(),
            profile_order: d.profile_order.clone(),
            keys: d.keys.clone(),
            txns: d.txns.clone(),
            txn_order: d.txn_order.clone(),
            attachments: d.attachments.clone(),
            queue: d.queue.clone(),
            idempotency: d.idempotency.clone(),
            polls: d.sim.polls.clone(),
        }
    }

    fn put(self, d: &mut Data) {
        d.customers = self.customers;
        d.profile_order = self.profile_order;
        d.keys = self.keys;
        d.txns = self.txns;
        d.txn_order = self.txn_order;
        d.attachments = self.attachments;
        d.queue = self.queue;
        d.idempotency = self.idempotency;
        d.sim.polls = self.polls;
    }
}

impl SimStorage for MemoryStore {
    fn rules(&self) -> Result<Vec<Rule>> {
        Ok(self.data().sim.rules.clone())
    }

    fn add_rule(&self, rule: &Rule) -> Result<()> {
        self.data().sim.rules.push(rule.clone());
        Ok(())
    }

    fn delete_rule(&self, id: &str) -> Result<bool> {
        let rules = &mut self.data().sim.rules;
        let before = rules.len();
        rules.retain(|r| r.rule_id != id);
        Ok(rules.len() != before)
    }

    fn poll(&self, key: &str) -> Result<u64> {
        let mut d = self.data();
        let n = d.sim.polls.entry(key.to_string()).or_insert(0);
        *n += 1;
        Ok(*n)
    }

    fn polls(&self, key: &str) -> Result<u64> {
        Ok(self.data().sim.polls.get(key).copied().unwrap_or(0))
    }

    fn snapshots(&self) -> Result<Vec<Snapshot>> {
        let mut all: Vec<Snapshot> = self
            .data()
            .sim
            .snapshots
            .values()
            .map(|(s, _)| s.clone())
            .collect();
        all.sort_by(|a, b| {
            (&a.created_datetime, &a.snapshot_name).cmp(&(&b.created_datetime, &b.snapshot_name))
        });
        Ok(all)
    }

    fn save_snapshot(&self, name: &str, by: &str, now: &str) -> Result<Snapshot> {
        let mut d = self.data();
        let snap = Snapshot {
            snapshot_name: name.to_string(),
            store_version: STORE_VERSION.to_string(),
            customer_profiles: d.profile_order.len() as u64,
            transactions: d.txn_order.len() as u64,
            created_by: by.to_string(),
            created_datetime: now.to_string(),
        };
        let records = Records::of(&d);
        d.sim
            .snapshots
            .insert(name.to_string(), (snap.clone(), records));
        Ok(snap)
    }

    fn restore_snapshot(&self, name: &str) -> Result<Option<Snapshot>> {
        let mut d = self.data();
        let Some((snap, records)) = d.sim.snapshots.get(name).cloned() else {
            return Ok(None);
        };
        records.put(&mut d);
        Ok(Some(snap))
    }

    fn delete_snapshot(&self, name: &str) -> Result<bool> {
        Ok(self.data().sim.snapshots.remove(name).is_some())
    }

    fn reset(&self) -> Result<Reset> {
        let mut d = self.data();
        let removed = Reset {
            customer_profiles: d.profile_order.len() as u64,
            transactions: d.txn_order.len() as u64,
        };
        Records::default().put(&mut d);
        Ok(removed)
    }
}
