//! The storage interface that every backend implements, at the level of the
//! aggregates: [`Storage`] (read a customer or a transaction, find a
//! customer_key's owner, page through profiles and transactions in creation
//! order, filtered by the backend,
//! list a program's profile records, see and claim pending work, keep
//! idempotency records, look API keys up by their hash, check itself) and [`StorageTx`] (a write
//! transaction: put aggregates, enqueue and dequeue work, commit all or
//! nothing).
//!
//! A backend derives its own indexes from the aggregates put into a
//! transaction (the JSON directory its key, summary, field and attachment
//! index lines, by comparing each with the version it stores; PostgreSQL
//! its columns and tables): `core` only says what the aggregates are now.
//! The backends are the JSON directory ([`super::JsonStore`]), PostgreSQL
//! ([`super::pg::PgStore`]) and the in-memory one of the tests
//! ([`super::memory::MemoryStore`]); [`super::Store`] is the facade over
//! them that `core` and the CLI hold.

use super::idempotency;
use super::report::Report;
use super::types::{Field, IdPage, QueueItem, TxnQuery, Window};
use crate::error::Result;
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;

/// An open store of one backend (reads, and the start of a write).
pub trait Storage {
    /// Where the store is, for people: a directory, or the database's URL
    /// without its password.
    fn describe(&self) -> String;

    /// An empty private scratch file for a command that reads its input
    /// twice (`profile import`).
    fn scratch_file(&self) -> Result<std::fs::File>;

    fn catalog(&self) -> Result<Catalog>;

    /// The customer aggregate `cid`; `None` when there is none (or the id
    /// is malformed).
    fn customer(&self, cid: &str) -> Result<Option<Customer>>;

    /// The transaction aggregate `tid`; `None` when there is none.
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>>;

    /// The customer that holds `key`, if any.
    fn key_owner(&self, key: &str) -> Result<Option<String>>;

    /// The holders of `keys`, in their order (an import's batch).
    fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        keys.iter().map(|k| self.key_owner(k)).collect()
    }

    /// A page of the profiles in creation order: the window `w` of all of
    /// them, or of those whose `field` has had `value` (normalized, see
    /// [`Field::normal`]) when `filter` is given. A filtered list comes from
    /// the field's index and may hold stale entries (the caller confirms
    /// each against the record). Never a read of every profile: the total
    /// and the window's ids come from the backend's indexes.
    fn profile_page(&self, filter: Option<(Field, &str)>, w: &Window) -> Result<IdPage>;

    /// The customers with a record in `program_id`, in the order the
    /// records were created.
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>>;

    /// A page of the transactions that match `q`, in creation order: the
    /// exact filters ([`TxnQuery::is_indexed`]) from the backend's indexes,
    /// the others over its summaries.
    fn txn_page(&self, q: &TxnQuery, w: &Window) -> Result<IdPage>;

    /// The pending work items, oldest first.
    fn queue(&self) -> Result<Vec<QueueItem>>;

    /// Whether `item` is still queued; a store opened for writing on a
    /// backend shared between processes also claims it until its commit
    /// (another worker does not get it).
    fn is_queued(&self, item: &QueueItem) -> bool;

    /// The live idempotency record of `key` at `now` (Unix seconds).
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>>;

    /// Every live idempotency record (`store migrate`).
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>>;

    /// The idempotency record that the next [`StorageTx::commit_created`]
    /// writes (armed through the facade).
    fn armed(&self) -> &idempotency::ArmedSlot;

    /// `store check [--repair]`.
    fn check(&self, repair: bool) -> Result<Report>;

    /// The API key whose secret's SHA-256 is `hash` (lower-case hex),
    /// revoked or expired ones included, with its last use. A lookup by
    /// the hash (an index), never a scan of every key.
    fn api_key(&self, hash: &str) -> Result<Option<ApiKey>>;

    /// Every API key, in creation order, with its last use.
    fn api_keys(&self) -> Result<Vec<ApiKey>>;

    /// Whether the store holds any API key (revoked and expired ones count).
    fn has_api_keys(&self) -> Result<bool> {
        Ok(!self.api_keys()?.is_empty())
    }

    /// A value that changes whenever the keys do (not their last use), so
    /// that a caller may keep them between opens of the store and read
    /// them again only then; `None` from a backend without a cheap one
    /// (the caller looks each key up with [`Storage::api_key`]).
    fn api_keys_stamp(&self) -> Result<Option<String>>;

    /// The sequence of the last event (0: none yet).
    fn events_last(&self) -> Result<u64>;

    /// The stored lines of the events `from..=to` that exist, in sequence
    /// order (see `model::event`).
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>>;

    /// The stored lines of the events of `record_id`, oldest first.
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>>;

    /// A webhook document (see `store::webhooks`); `None` when absent.
    fn hook_doc(&self, name: &str) -> Result<Option<String>>;

    /// The webhook documents whose names start with `prefix`, by name.
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>>;

    /// The lines of the webhook log `name`, oldest first.
    fn hook_log(&self, name: &str) -> Result<Vec<String>>;

    /// Start a write transaction. Only a store opened for writing may write.
    /// Only the facade can call it ([`Begin`]): everyone else starts a write
    /// with `Store::begin_by` (its events recorded) or
    /// `Store::begin_without_events`, which `Deref` would otherwise let a
    /// caller skip.
    fn begin(&self, _: Begin) -> Box<dyn StorageTx + '_>;
}

/// The pass to [`Storage::begin`]: made only by the facade
/// (`store::backend`).
pub struct Begin(pub(in crate::store) ());

/// A write transaction of one backend: everything put into it is committed
/// at once, or nothing is. Aggregates put into it are read back by
/// [`StorageTx::customer`] and [`StorageTx::txn`].
pub trait StorageTx {
    /// A customer aggregate as it is now (new or changed).
    fn put_customer(&mut self, c: &Customer);

    /// A customer created by this transaction (its creation-order place
    /// follows the profiles already stored, then those created before it in
    /// this transaction). The caller has checked that its key is free.
    fn new_customer(&mut self, c: Customer) -> Result<()>;

    /// [`StorageTx::new_customer`] with its record already serialized
    /// (`json` is `serde_json::to_string(&c)`: an import serialized it when
    /// it checked the line), for a backend that writes the text (a JSON
    /// directory packs it as it is). The others ignore it.
    fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()>;

    /// A transaction aggregate as it is now (new or changed).
    fn put_txn(&mut self, t: &TxnFile);

    /// The customer as this transaction left it, else as stored.
    fn customer(&self, id: &str) -> Result<Option<Customer>>;

    /// The transaction as this transaction left it, else as stored.
    fn txn(&self, id: &str) -> Result<Option<TxnFile>>;

    /// Add a pending work item.
    fn enqueue(&mut self, item: &QueueItem);

    /// Remove a pending work item (done).
    fn dequeue(&mut self, item: &QueueItem);

    /// An idempotency record copied as it is (`store migrate`).
    fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()>;

    /// An API key, new or changed (revoked), identified by its hash. A
    /// name that another key holds is refused (21006) at the latest by the
    /// commit.
    fn put_api_key(&mut self, key: &ApiKey) -> Result<()>;

    /// The last use of keys: `(hash, time)`, each kept only when later than
    /// the one stored.
    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()>;

    /// The events of this transaction's changes, in order: the backend
    /// seals them after its last event in the same commit (see
    /// `model::event`).
    fn put_events(&mut self, events: Vec<crate::model::event::NewEvent>);

    /// Changes to the webhook documents and logs (see `store::webhooks`).
    fn hook_ops(&mut self, ops: Vec<super::webhooks::HookOp>);

    /// Events already sealed, copied as they are after the last one
    /// (`store migrate` into an empty store: the chain is kept whole).
    fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()>;

    /// Whether nothing was put into it.
    fn is_empty(&self) -> bool;

    /// Apply everything durably; on return the change is stored.
    fn commit(self: Box<Self>) -> Result<()>;

    /// Commit a create whose answer is `result` (the new id), with the
    /// idempotency record armed on the store, if any, in the same commit.
    fn commit_created(self: Box<Self>, result: &str) -> Result<()>;
}

/// The profile-program records of `after` that `before` (the stored
/// version, if any) did not have, oldest first: what a backend adds to its
/// attachment index for a put customer.
pub(crate) fn added_attachments<'a>(
    before: Option<&Customer>,
    after: &'a Customer,
) -> Vec<&'a crate::model::Attachment> {
    let had: Vec<&str> = before
        .map(|b| {
            b.attachments
                .iter()
                .map(|a| a.program_id.as_str())
                .collect()
        })
        .unwrap_or_default();
    let mut added: Vec<_> = after
        .attachments
        .iter()
        .filter(|a| !had.contains(&a.program_id.as_str()))
        .collect();
    added.sort_by(|a, b| a.audit.created_datetime.cmp(&b.audit.created_datetime));
    added
}
