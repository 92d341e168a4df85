//! The storage of issue 37 in memory (see [`crate::store::sim`]): rules, read
//! counts and snapshots beside the records, a snapshot a copy of the
//! records, a restore and a reset a swap under the data's mutex.

use std::collections::{BTreeMap, HashMap};

use super::{MemoryStore, Records};
use crate::error::Result;
use crate::model::sim_rule::{Reset, Rule, Snapshot};
use crate::store::sim::SimStorage;

/// What a snapshot of this backend says it is.
pub const STORE_VERSION: &str = "memory 1";

/// The rules, read counts and snapshots of an in-memory store.
#[derive(Clone, Default)]
pub(super) struct SimData {
    rules: Vec<Rule>,
    polls: HashMap<String, u64>,
    /// By name.
    snapshots: BTreeMap<String, (Snapshot, Records, HashMap<String, u64>)>,
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
            .map(|(s, ..)| s.clone())
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
            customer_profiles: d.records.profile_order.len() as u64,
            transactions: d.records.txn_order.len() as u64,
            created_by: by.to_string(),
            created_datetime: now.to_string(),
        };
        let kept = (snap.clone(), d.records.clone(), d.sim.polls.clone());
        d.sim.snapshots.insert(name.to_string(), kept);
        Ok(snap)
    }

    fn restore_snapshot(&self, name: &str) -> Result<Option<Snapshot>> {
        let mut d = self.data();
        let Some((snap, records, polls)) = d.sim.snapshots.get(name).cloned() else {
            return Ok(None);
        };
        d.records = records;
        d.sim.polls = polls;
        Ok(Some(snap))
    }

    fn delete_snapshot(&self, name: &str) -> Result<bool> {
        Ok(self.data().sim.snapshots.remove(name).is_some())
    }

    fn reset(&self) -> Result<Reset> {
        let mut d = self.data();
        let removed = Reset {
            customer_profiles: d.records.profile_order.len() as u64,
            transactions: d.records.txn_order.len() as u64,
        };
        d.records = Records::default();
        d.sim.polls.clear();
        Ok(removed)
    }
}
