//! The in-memory backend: the storage interface ([`Storage`]) over maps in
//! this process, for the tests (the conformance suite of the interface and
//! the model-based test that compares it with the JSON directory). It is
//! not reachable from the CLI: it keeps nothing once the process ends.
//!
//! It holds the aggregates and derives what the other backends index (the
//! creation order of profiles and transactions, a customer_key's holder,
//! the profile-program records of a program in creation order) from them
//! at each commit, as they do. A commit is applied whole or not at all: it
//! is refused before anything changes when it would make one customer_key
//! held twice (as the PostgreSQL backend's UNIQUE index refuses it) or a
//! record larger than a record file may be.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex};

mod sim;
use super::memory_turn::Turn;

use super::pending::{ApplyPending, Pending, PendingTx};
use super::report::{Finding, Report};
use super::storage::{Storage, StorageTx};
use super::types::{Field, IdPage, ProfileSummary, QueueItem, TxnQuery, TxnSummary, Window};
use super::{atomic, idempotency};
use crate::error::{Error, Result, code};
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::catalog::Catalog;
use crate::model::status::{attachment, txn as txn_status};
use crate::model::txn::TxnFile;

/// An in-memory store. [`MemoryStore::reopen`] gives another handle on
/// the same data (as each command or request opens the store anew).
pub struct MemoryStore {
    data: Arc<Mutex<Data>>,
    armed: idempotency::ArmedSlot,
    /// Whether a handle holds the writer's turn, shared by every handle.
    turns: Arc<(Mutex<bool>, Condvar)>,
    /// This handle's turn, from [`MemoryStore::reopen_for_writing`] until
    /// it is dropped.
    turn: Option<Turn>,
}

/// The records of a store: what a snapshot keeps and a restore puts back.
#[derive(Clone, Default)]
pub(super) struct Records {
    pub(super) customers: HashMap<String, Customer>,
    /// Customer ids in creation order.
    pub(super) profile_order: Vec<String>,
    /// customer_key → holder.
    pub(super) keys: HashMap<String, String>,
    pub(super) txns: HashMap<String, TxnFile>,
    /// Transaction ids in creation order.
    pub(super) txn_order: Vec<String>,
    /// `(program id, customer id)` in the order the records were created.
    pub(super) attachments: Vec<(String, String)>,
    /// Pending items by file name (their order is the queue's).
    pub(super) queue: BTreeMap<String, QueueItem>,
    pub(super) idempotency: HashMap<String, idempotency::Record>,
}

#[derive(Clone)]
struct Data {
    catalog: Catalog,
    /// What a snapshot copies (see `sim`).
    records: Records,
    /// API keys by hash, and their creation order.
    api_keys: HashMap<String, ApiKey>,
    api_key_order: Vec<String>,
    /// The event log's lines, sequence `i + 1` at `i`, and the last hash.
    events: Vec<String>,
    events_hash: String,
    /// Rules, read counts and snapshots (issue 37).
    sim: sim::SimData,
    hooks: super::webhooks::MemHooks,
}

impl MemoryStore {
    /// An empty store with `catalog`.
    pub fn new(catalog: Catalog) -> MemoryStore {
        MemoryStore {
            data: Arc::new(Mutex::new(Data {
                catalog,
                records: Records::default(),
                api_keys: HashMap::new(),
                api_key_order: Vec::new(),
                events: Vec::new(),
                events_hash: crate::model::event::GENESIS.to_string(),
                sim: Default::default(),
                hooks: Default::default(),
            })),
            armed: Default::default(),
            turns: Default::default(),
            turn: None,
        }
    }

    /// An empty store with the built-in catalog, its audit times `now`.
    pub fn builtin(now: &str) -> MemoryStore {
        MemoryStore::new(crate::catalog::builtin(crate::model::status::SYSTEM, now))
    }

    /// Another handle on the same data, with nothing armed, for reading.
    pub fn reopen(&self) -> MemoryStore {
        MemoryStore {
            data: Arc::clone(&self.data),
            armed: Default::default(),
            turns: Arc::clone(&self.turns),
            turn: None,
        }
    }

    /// Another handle on the same data, for writing: it waits for the
    /// writer's turn and holds it until it is dropped.
    pub fn reopen_for_writing(&self) -> MemoryStore {
        let mut h = self.reopen();
        h.turn = Some(Turn::take(&self.turns));
        h
    }

    fn data(&self) -> std::sync::MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Storage for MemoryStore {
    fn describe(&self) -> String {
        "(memory)".to_string()
    }

    fn scratch_file(&self) -> Result<std::fs::File> {
        crate::store::atomic::temp_scratch("memory-scratch")
    }

    fn catalog(&self) -> Result<Catalog> {
        Ok(self.data().catalog.clone())
    }

    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        Ok(self.data().records.customers.get(cid).cloned())
    }

    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        Ok(self.data().records.txns.get(tid).cloned())
    }

    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        Ok(self.data().records.keys.get(key).cloned())
    }

    fn profile_page(&self, filter: Option<(Field, &str)>, w: &Window) -> Result<IdPage> {
        let d = self.data();
        let order = &d.records.profile_order;
        let Some((field, value)) = filter else {
            return IdPage::cut(
                order.len(),
                w,
                |after| Ok(order.iter().position(|id| id == after)),
                |start, end| Ok(order[start..end].to_vec()),
            );
        };
        let ids = order.iter().filter(|id| {
            d.records.customers.get(*id).is_some_and(|c| {
                field
                    .values(&ProfileSummary::of(&c.profile))
                    .iter()
                    .any(|v| v == value)
            })
        });
        Ok(IdPage::of(ids.cloned().collect(), w))
    }

    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        Ok(self
            .data()
            .records
            .attachments
            .iter()
            .filter(|(p, _)| p == program_id)
            .map(|(_, c)| c.clone())
            .collect())
    }

    fn txn_page(&self, q: &TxnQuery, w: &Window) -> Result<IdPage> {
        let d = self.data();
        let ids = d
            .records
            .txn_order
            .iter()
            .filter_map(|id| d.records.txns.get(id))
            .map(TxnSummary::of)
            .filter(|s| q.matches(s))
            .map(|s| s.id);
        Ok(IdPage::of(ids.collect(), w))
    }

    fn queue(&self) -> Result<Vec<QueueItem>> {
        Ok(self.data().records.queue.values().cloned().collect())
    }

    fn is_queued(&self, item: &QueueItem) -> bool {
        self.data().records.queue.contains_key(&item.file_name())
    }

    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        Ok(self
            .data()
            .records
            .idempotency
            .get(key)
            .filter(|r| !r.expired(now))
            .cloned())
    }

    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        let mut out: Vec<_> = self
            .data()
            .records
            .idempotency
            .values()
            .filter(|r| !r.expired(now))
            .cloned()
            .collect();
        out.sort_by(|a, b| (a.at, &a.key).cmp(&(b.at, &b.key)));
        Ok(out)
    }

    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }

    fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        Ok(self.data().api_keys.get(hash).cloned())
    }

    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let d = self.data();
        Ok(d.api_key_order
            .iter()
            .filter_map(|h| d.api_keys.get(h).cloned())
            .collect())
    }

    fn has_api_keys(&self) -> Result<bool> {
        Ok(!self.data().api_keys.is_empty())
    }

    /// None: each lookup is a map's.
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        Ok(None)
    }

    /// The spec's invariants over the aggregates, and the derived state
    /// (key holders, attachment records, pending work) against them.
    /// `repair` rebuilds the derived state.
    fn check(&self, repair: bool) -> Result<Report> {
        let mut d = self.data();
        let mut report = Report::default();
        let customers: Vec<Customer> = d
            .records
            .profile_order
            .iter()
            .filter_map(|id| d.records.customers.get(id).cloned())
            .collect();
        let txns: Vec<TxnFile> = d
            .records
            .txn_order
            .iter()
            .filter_map(|id| d.records.txns.get(id).cloned())
            .collect();
        report.customers = customers.len();
        report.transactions = txns.len();
        let f = &mut report.findings;
        super::report::invariants(&customers, &txns, Some(&d.catalog), f);
        let want = derived(&customers, &txns);
        let mut off = Vec::new();
        if want.keys != d.records.keys {
            off.push("keys");
        }
        if want.attachments.iter().collect::<HashSet<_>>()
            != d.records.attachments.iter().collect::<HashSet<_>>()
        {
            off.push("attachments");
        }
        let queued: HashSet<String> = d.records.queue.values().map(QueueItem::key).collect();
        if want.pending.iter().any(|k| !queued.contains(k)) {
            off.push("queue");
        }
        for what in off {
            f.push(Finding {
                path: what.into(),
                problem: "disagrees with the records".into(),
                repairable: true,
            });
            if repair {
                match what {
                    "keys" => d.records.keys = want.keys.clone(),
                    "attachments" => d.records.attachments = want.attachments.clone(),
                    _ => {
                        for c in &customers {
                            for a in &c.attachments {
                                if a.customer_profile_program_status_id == attachment::PENDING {
                                    let q = QueueItem::attach(c.id(), &a.program_id);
                                    d.records.queue.entry(q.file_name()).or_insert(q);
                                }
                            }
                        }
                        for t in &txns {
                            if is_open(t) {
                                let q = QueueItem::txn(&t.transaction.transaction_id);
                                d.records.queue.entry(q.file_name()).or_insert(q);
                            }
                        }
                    }
                }
                report.repaired.push(format!("rebuilt {what}"));
            }
        }
        Ok(report)
    }

    fn begin(&self, _: crate::store::storage::Begin) -> Box<dyn StorageTx + '_> {
        Box::new(PendingTx::new(self))
    }

    fn events_last(&self) -> Result<u64> {
        Ok(self.data().events.len() as u64)
    }

    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        Ok(self.data().hooks.doc(name))
    }
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        Ok(self.data().hooks.docs(prefix))
    }
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        Ok(self.data().hooks.log(name))
    }

    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        let d = self.data();
        let to = to.min(d.events.len() as u64);
        Ok((from.max(1)..=to)
            .map(|s| d.events[s as usize - 1].clone())
            .collect())
    }

    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        Ok(self
            .data()
            .events
            .iter()
            .filter(|l| crate::model::event::parse(l).is_ok_and(|e| e.record_id == record_id))
            .cloned()
            .collect())
    }
}

fn is_open(t: &TxnFile) -> bool {
    matches!(
        t.transaction.transaction_status_id,
        txn_status::CREATED | txn_status::PROCESSING
    )
}

/// What the derived state must be for these aggregates.
struct Derived {
    keys: HashMap<String, String>,
    attachments: Vec<(String, String)>,
    /// Keys ([`QueueItem::key`]) of the work that must be pending.
    pending: Vec<String>,
}

fn derived(customers: &[Customer], txns: &[TxnFile]) -> Derived {
    let mut d = Derived {
        keys: HashMap::new(),
        attachments: Vec::new(),
        pending: Vec::new(),
    };
    for c in customers {
        d.keys
            .insert(c.profile.customer_key.clone(), c.id().to_string());
        for a in &c.attachments {
            d.attachments
                .push((a.program_id.clone(), c.id().to_string()));
            if a.customer_profile_program_status_id == attachment::PENDING {
                d.pending
                    .push(QueueItem::attach(c.id(), &a.program_id).key());
            }
        }
    }
    for t in txns {
        if is_open(t) {
            d.pending
                .push(QueueItem::txn(&t.transaction.transaction_id).key());
        }
    }
    d
}

impl ApplyPending for MemoryStore {
    /// Apply everything to a copy of the store's data, then swap it in:
    /// all or nothing.
    fn apply(&self, w: Pending, armed: Option<(idempotency::Armed, String)>) -> Result<()> {
        let mut guard = self.data();
        let mut d = guard.clone();
        for c in &w.customers {
            let size = serde_json::to_vec(c).map_or(0, |b| b.len()) as u64;
            if size >= atomic::RECORD_BYTES {
                return Err(too_large(&format!("customer {}", c.id()), size));
            }
        }
        w.check_unique(
            |key| d.records.keys.get(key).cloned(),
            |name| {
                let held = d.api_keys.values().find(|k| k.name == name);
                held.map(|k| k.hash.clone())
            },
        )?;
        for c in &w.customers {
            let id = c.id().to_string();
            let before = d.records.customers.insert(id.clone(), c.clone());
            match &before {
                None => d.records.profile_order.push(id.clone()),
                Some(b) if b.profile.customer_key != c.profile.customer_key => {
                    d.records.keys.remove(&b.profile.customer_key);
                }
                Some(_) => {}
            }
            d.records
                .keys
                .insert(c.profile.customer_key.clone(), id.clone());
            // New profile-program records, oldest first.
            for a in super::storage::added_attachments(before.as_ref(), c) {
                d.records
                    .attachments
                    .push((a.program_id.clone(), id.clone()));
            }
        }
        for t in &w.txns {
            let id = t.transaction.transaction_id.clone();
            let size = serde_json::to_vec(t).map_or(0, |b| b.len()) as u64;
            if size >= atomic::RECORD_BYTES {
                return Err(too_large(&format!("transaction {id}"), size));
            }
            if d.records.txns.insert(id.clone(), t.clone()).is_none() {
                d.records.txn_order.push(id);
            }
        }
        for line in &w.sealed {
            let e = crate::model::event::parse(line)
                .map_err(|e| crate::error::Error::one(crate::error::code::INVALID_VALUE, e))?;
            d.events.push(line.clone());
            d.events_hash = e.hash;
        }
        for e in &w.events {
            let seq = d.events.len() as u64 + 1;
            let (line, hash) = crate::model::event::seal(e, seq, &d.events_hash);
            d.events.push(line);
            d.events_hash = hash;
        }
        for q in &w.enqueued {
            d.records.queue.insert(q.file_name(), q.clone());
        }
        for q in &w.dequeued {
            d.records.queue.remove(&q.file_name());
        }
        for r in &w.idempotency {
            d.records
                .idempotency
                .entry(r.key.clone())
                .or_insert_with(|| r.clone());
        }
        for k in &w.api_keys {
            let mut k = k.clone();
            if let Some(old) = d.api_keys.get(&k.hash) {
                k.last_used = old.last_used.clone();
            } else {
                k.last_used = None;
                d.api_key_order.push(k.hash.clone());
            }
            d.api_keys.insert(k.hash.clone(), k);
        }
        for (hash, at) in &w.api_used {
            if let Some(k) = d.api_keys.get_mut(hash)
                && k.last_used.as_ref().is_none_or(|l| l < at)
            {
                k.last_used = Some(at.clone());
            }
        }
        d.hooks.apply(&w.hooks);
        if let Some((a, result)) = armed {
            d.records.idempotency.retain(|_, r| !r.expired(a.now));
            d.records.idempotency.insert(
                a.key.clone(),
                idempotency::Record {
                    key: a.key,
                    fp: a.fp,
                    at: a.now,
                    result: serde_json::Value::String(result),
                },
            );
        }
        *guard = d;
        Ok(())
    }
}

fn too_large(what: &str, size: u64) -> Error {
    Error::one(
        code::INVALID_VALUE,
        format!(
            "{what} would be {size} bytes, above the limit of {} bytes for a record: nothing was written",
            atomic::RECORD_BYTES
        ),
    )
}
