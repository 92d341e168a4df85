//! The storage seam: the one [`Store`] (and its write transaction [`Tx`])
//! that `core` and the CLI use, dispatching to a backend: the JSON directory
//! ([`JsonStore`], the embedded default) or a PostgreSQL database
//! ([`PgStore`], `--database-url`).
//!
//! The interface is the [`Storage`] trait (see storage.rs), at the level of
//! the aggregates: read a customer or a transaction, find a customer_key's
//! owner, page through profiles and transactions in creation order, list a
//! program's profile records, claim pending work, keep idempotency records,
//! and commit a set of changes atomically. A [`Store`] dereferences to its
//! backend's [`Storage`], so its reads are the interface's own, written
//! once; the facade adds only what is the same for every backend. `core`
//! says only what the
//! aggregates are now (`put_customer`, `new_customer`, `put_txn`,
//! `enqueue`, `dequeue`, `commit`); each backend derives its own indexes
//! from them.

use std::path::Path;
use std::time::Duration;

use super::events::{self, Author};
use super::memory::MemoryStore;
use super::pg::PgStore;
use super::report::Report;
use super::storage::{Storage, StorageTx};
use super::types::QueueItem;
use super::{JsonStore, Mode, Opened, Outcomes, idempotency, lock};
use crate::error::{Error, Result, code};
use crate::model::Customer;
use crate::model::api_key::ApiKey;
use crate::model::catalog::Catalog;
use crate::model::event::{self, Event, NewEvent};
use crate::model::invariants::{self, Subject, Violation};
use crate::model::txn::TxnFile;

/// An open store, whichever its backend. (One per command or request: the
/// size of a variant does not matter.)
///
/// An enum rather than a `Box<dyn Storage>`: everything `core` asks goes
/// through the [`Storage`] trait (the store dereferences to
/// [`Store::backend`]), but a few callers
/// need the JSON directory itself (group commit stages into it, `store
/// check` shows its progress, `payctl serve` reopens it), and a match on a
/// variant says that more plainly than a downcast.
#[allow(clippy::large_enum_variant)]
pub enum Store {
    Json(JsonStore),
    Pg(PgStore),
    /// The in-memory backend of the tests (not reachable from the CLI).
    #[doc(hidden)]
    Memory(MemoryStore),
    /// `--dry-run`: a store opened for reading, whose commits are kept in
    /// memory (see [`super::dry`]).
    Dry(super::dry::DryStore),
}

impl Store {
    /// The database at `url` (see [`PgStore::open`]).
    pub(super) fn open_database(
        url: &str,
        mode: Mode,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<(Store, Opened)> {
        PgStore::open(url, mode, default_catalog).map(|(s, o)| (Store::Pg(s), o))
    }

    /// The database on a connection of `pool`, the server's for it
    /// (`payctl serve`: at most [`super::pg::pool::POOL_SIZE`] connections,
    /// a request waiting up to `wait` for one).
    pub(super) fn open_database_pooled(
        pool: &std::sync::Arc<super::pg::pool::Pool>,
        mode: Mode,
        wait: std::time::Duration,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<Store> {
        PgStore::open_pooled(pool, mode, wait, default_catalog).map(Store::Pg)
    }

    /// The numbers a database's writers of customers, and of API keys,
    /// change in the transaction of their change (see
    /// [`super::pg::pool::Pool::stamps`]), read now on the connection that
    /// `payctl serve` keeps for them; `None` when the database has none.
    pub fn database_stamps(pool: &super::pg::pool::Pool) -> Result<Option<(i64, i64)>> {
        pool.stamps()
    }

    /// The JSON directory at `root` for reading, when a store of this
    /// format is there: never created or upgraded (see
    /// [`JsonStore::open_existing`]).
    pub fn open_existing(root: &Path, wait: impl Into<lock::Wait>) -> Result<Option<Store>> {
        JsonStore::open_existing(root, wait).map(|s| s.map(Store::Json))
    }

    /// The database at `url` for reading, when it holds a store of this
    /// schema version: never created or upgraded (see
    /// [`PgStore::open_existing`]).
    pub fn open_existing_database(url: &str) -> Result<Option<Store>> {
        PgStore::open_existing(url).map(|s| s.map(Store::Pg))
    }

    /// Create a new JSON store at `root`.
    pub fn init(root: &Path, wait: impl Into<lock::Wait>, catalog: &Catalog) -> Result<Store> {
        JsonStore::init(root, wait, catalog).map(Store::Json)
    }

    /// Create the schema of a new store in the empty database at `url`.
    pub fn init_database(url: &str, catalog: &Catalog) -> Result<Store> {
        PgStore::init(url, catalog).map(Store::Pg)
    }

    /// The backend, through the storage interface.
    pub fn backend(&self) -> &(dyn Storage + 'static) {
        match self {
            Store::Json(s) => s,
            Store::Pg(s) => s,
            Store::Memory(s) => s,
            Store::Dry(s) => s,
        }
    }

    /// At most how many customers one commit may create, when the backend
    /// has a limit: a database's, since each takes an advisory lock on its
    /// key, and 5,000 fit PostgreSQL's default shared lock table
    /// (`max_locks_per_transaction` 64 × `max_connections` 100 = 6,400).
    pub fn max_creates_per_commit(&self) -> Option<usize> {
        match self {
            Store::Pg(_) => Some(5_000),
            _ => None,
        }
    }

    /// Where the idempotency record of `key` is, as errors name it (see
    /// [`idempotency::place`]).
    pub fn idempotency_place(&self, key: &str) -> std::path::PathBuf {
        idempotency::place(std::path::Path::new(&self.describe()), key)
    }

    /// How many customers have been created in the store, when every new
    /// customer changes that count and reading it is cheap (the JSON
    /// directory: the records of `index/profiles.ids`); `None` elsewhere.
    /// Keys are never freed, so an import whose count is what it was when
    /// it looked its keys up, plus what it created itself, knows that no
    /// other command took one since.
    pub fn created_count(&self) -> Result<Option<usize>> {
        match self {
            Store::Json(s) => s.ids_count(),
            _ => Ok(None),
        }
    }

    /// Make the next [`Tx::commit_created`] on this store record `key` with
    /// the request's fingerprint `fp` and its result, in the same commit
    /// (one implementation for every backend: [`idempotency::ArmedSlot`]).
    pub fn arm_idempotency(&self, key: &str, fp: &str, now: i64) {
        self.backend().armed().arm(key, fp, now)
    }

    /// Forget an armed key; whether one was still armed (a create that
    /// succeeded without [`Tx::commit_created`] leaves it armed).
    pub fn disarm_idempotency(&self) -> bool {
        self.backend().armed().disarm()
    }

    /// `store check [--repair]`: the backend's own check, then the event
    /// chain's (`--repair` never rewrites the log; it rebuilds the JSON
    /// directory's record index of it).
    pub fn check(&self, repair: bool) -> Result<Report> {
        self.check_with(repair, &|_, _| {})
    }

    /// [`Store::check`] telling `progress` how far the JSON directory's
    /// records are (shards and packs done, of all).
    pub fn check_with(
        &self,
        repair: bool,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Report> {
        use super::events::{finish, verify_chain};
        let (mut report, chain) = match self {
            // The event chain is verified while the records are read: each
            // phase of either leaves a core idle part of the time. A repair
            // reads the chain after the records are repaired.
            Store::Json(s) if !repair => std::thread::scope(|scope| {
                let chain = scope.spawn(|| verify_chain(self));
                let report = s.check_with(repair, progress);
                let chain = chain.join().unwrap_or_else(|_| {
                    Err(Error::one(
                        code::STORE_IO,
                        "store check: the event chain's thread failed",
                    ))
                });
                Ok::<_, Error>((report?, chain?))
            })?,
            Store::Json(s) => {
                let report = s.check_with(repair, progress)?;
                (report, verify_chain(self)?)
            }
            _ => (self.backend().check(repair)?, verify_chain(self)?),
        };
        let named = report.events_named.take();
        let rebuilt = finish(self, chain, &mut report.findings, repair, named)?;
        report.repaired.extend(rebuilt);
        Ok(report)
    }

    /// What this store's commits did beyond their answers (see
    /// [`Outcomes`]): the JSON directory's; `None` for a backend whose
    /// commits either happen whole or fail.
    pub fn outcomes(&self) -> Option<&Outcomes> {
        match self {
            Store::Json(s) => Some(s.outcomes()),
            _ => None,
        }
    }

    /// Have this store report what its commits did (see [`Outcomes`]) to
    /// `to` as well, from the start: whoever opened it reads `to` after
    /// the store is gone (the CLI's warnings and its closed-pipe note,
    /// `payctl serve`'s log and health).
    pub fn report_to(&self, to: &std::sync::Arc<Outcomes>) {
        if let Some(o) = self.outcomes() {
            o.report_to(to);
        }
    }

    /// A write transaction that records no event: for what has no event
    /// type (API keys) and for copying a store as it is (`store migrate`).
    pub fn begin_without_events(&self) -> Tx<'_> {
        Tx {
            inner: self.backend().begin(super::storage::Begin(())),
            store: self.backend(),
            outcomes: self.outcomes(),
            broken: None,
            author: None,
            customers: Vec::new(),
            txns: Vec::new(),
            seen: std::collections::HashSet::new(),
            events: Vec::new(),
            early: std::collections::HashSet::new(),
        }
    }

    /// A write transaction whose changes `actor` makes at `at`: its commit
    /// records one event per changed record (see [`super::events`]).
    pub fn begin_by(&self, actor: &str, at: &str) -> Tx<'_> {
        let mut tx = self.begin_without_events();
        tx.author = Some(Author {
            actor: actor.to_string(),
            at: at.to_string(),
        });
        tx
    }

    /// The events `from..=to` that exist, in order, parsed.
    pub fn events(&self, from: u64, to: u64) -> Result<Vec<Event>> {
        self.parse_events(self.backend().event_lines(from, to)?)
    }

    /// The events of `record_id`, oldest first.
    pub fn record_events(&self, record_id: &str) -> Result<Vec<Event>> {
        self.parse_events(self.backend().record_event_lines(record_id)?)
    }

    fn parse_events(&self, lines: Vec<String>) -> Result<Vec<Event>> {
        lines
            .iter()
            .map(|l| {
                event::parse(l).map_err(|e| {
                    Error::store(
                        code::STORE_UNREADABLE,
                        format!(
                            "the event log of {} holds a damaged event: {e}",
                            self.describe()
                        ),
                    )
                })
            })
            .collect()
    }
}

/// Everything a backend answers is asked through the storage interface:
/// the facade adds only what is the same for every backend (events, check
/// of the event chain, idempotency arming, transactions that record
/// events and hold the invariants).
impl std::ops::Deref for Store {
    type Target = dyn Storage;

    fn deref(&self) -> &(dyn Storage + 'static) {
        self.backend()
    }
}

/// A write transaction: all of its changes are committed, or none. It
/// takes the aggregates as they are now; the backend derives its indexes
/// from them (see [`StorageTx`]).
///
/// Each aggregate put is held to the spec's invariants
/// ([`invariants`]) before the commit: a change that breaks one that its
/// record did not break before (a bug of payctl's rules, never a user's
/// error: those are refused earlier with their own codes) is refused with
/// 30010 and nothing of the transaction is written. A record damaged on
/// disk beforehand is left to `store check`.
pub struct Tx<'s> {
    inner: Box<dyn StorageTx + 's>,
    /// The store as committed: the versions before this transaction.
    store: &'s dyn Storage,
    /// What the store's commits did (see [`Store::outcomes`]).
    outcomes: Option<&'s Outcomes>,
    /// The first invariant a put broke.
    broken: Option<Violation>,
    /// Who makes the changes: `None` records no event ([`Store::begin`]).
    author: Option<Author>,
    /// The customers and transactions put, in order, each once: `true`
    /// for a customer created here (no version before).
    customers: Vec<(String, bool)>,
    txns: Vec<String>,
    seen: std::collections::HashSet<String>,
    /// The events of the customers created here, derived when they were
    /// put ([`Tx::created_customer`]), and their ids.
    events: Vec<NewEvent>,
    early: std::collections::HashSet<String>,
}

impl Tx<'_> {
    pub fn put_customer(&mut self, c: &Customer) {
        self.guard_customer(c);
        if self.early.remove(c.id()) {
            // Created earlier in this transaction and changed since: its
            // events are derived at the commit, from no version at all.
            let id = c.id().to_string();
            self.events
                .retain(|e| e.customer_profile_id.as_deref() != Some(id.as_str()));
            self.customers.push((id, true));
        } else {
            self.touch_customer(c.id(), false);
        }
        self.inner.put_customer(c)
    }

    fn touch_customer(&mut self, id: &str, created: bool) {
        if self.author.is_some() && self.seen.insert(id.to_string()) {
            self.customers.push((id.to_string(), created));
        }
    }

    /// A customer created by this transaction: its events now, from the
    /// record in hand (an import's chunk creates thousands: no copy of
    /// each is read back at the commit).
    fn created_customer(&mut self, c: &Customer) {
        if let Some(by) = &self.author
            && self.seen.insert(c.id().to_string())
        {
            events::customer(by, None, c, &mut self.events);
            self.early.insert(c.id().to_string());
        }
    }

    /// The events of everything put, handed to the backend for its commit.
    fn record(&mut self) -> Result<()> {
        let Some(by) = self.author.clone() else {
            return Ok(());
        };
        // bench/events.sh's baseline: the same build, nothing recorded.
        if cfg!(feature = "bench-no-events") {
            return Ok(());
        }
        let mut out = std::mem::take(&mut self.events);
        for (id, created) in std::mem::take(&mut self.customers) {
            let Some(after) = self.inner.customer(&id)? else {
                continue;
            };
            let before = if created {
                None
            } else {
                self.store.customer(&id)?
            };
            events::customer(&by, before.as_ref(), &after, &mut out);
        }
        for id in std::mem::take(&mut self.txns) {
            let Some(after) = self.inner.txn(&id)? else {
                continue;
            };
            let before = self.store.txn(&id)?;
            events::txn(&by, before.as_ref(), &after, &mut out);
        }
        if !out.is_empty() {
            self.inner.put_events(out);
        }
        Ok(())
    }

    pub fn put_txn(&mut self, t: &TxnFile) {
        if self.author.is_some() && self.seen.insert(t.transaction.transaction_id.clone()) {
            self.txns.push(t.transaction.transaction_id.clone());
        }
        let now = invariants::txn(t, None);
        // The version before is read only for a record that breaks one.
        if self.broken.is_none() && !now.is_empty() {
            let was = match self.inner.txn(&t.transaction.transaction_id) {
                Ok(Some(b)) => invariants::txn(&b, None),
                _ => Vec::new(),
            };
            self.broken = now.into_iter().find(|v| !was.contains(v));
        }
        self.inner.put_txn(t)
    }

    fn guard_customer(&mut self, c: &Customer) {
        let now = invariants::customer(c, None);
        // The version before is read only for a record that breaks one.
        if self.broken.is_some() || now.is_empty() {
            return;
        }
        let was = match self.inner.customer(c.id()) {
            Ok(Some(b)) => invariants::customer(&b, None),
            _ => Vec::new(),
        };
        self.broken = now.into_iter().find(|v| !was.contains(v));
    }

    /// 30010 when a put broke an invariant (see [`Tx`]).
    fn unbroken(&self) -> Result<()> {
        let Some(v) = &self.broken else {
            return Ok(());
        };
        let what = match &v.subject {
            Subject::Customer(id) => format!("customer {id}"),
            Subject::Txn(id) => format!("transaction {id}"),
        };
        Err(Error::store(
            code::INVARIANT_BROKEN,
            format!(
                "this change would leave {what} breaking an invariant of the spec ({}): \
                 nothing was written; this is a bug in payctl, please report it",
                v.problem
            ),
        ))
    }

    pub fn customer(&self, id: &str) -> Result<Option<Customer>> {
        self.inner.customer(id)
    }

    pub fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        self.inner.txn(id)
    }

    pub fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.check_new(&c);
        self.created_customer(&c);
        self.inner.new_customer(c)
    }

    /// [`Tx::new_customer`] with the record's text (see
    /// [`StorageTx::new_customer_serialized`]).
    pub fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()> {
        self.check_new(&c);
        self.created_customer(&c);
        self.inner.new_customer_serialized(c, json)
    }

    /// The first invariant a new customer breaks, kept for the commit.
    fn check_new(&mut self, c: &Customer) {
        if self.broken.is_none() {
            self.broken = invariants::customer(c, None).into_iter().next();
        }
    }

    pub fn enqueue(&mut self, item: &QueueItem) {
        self.inner.enqueue(item)
    }

    pub fn dequeue(&mut self, item: &QueueItem) {
        self.inner.dequeue(item)
    }

    /// An idempotency record copied as it is (`store migrate`).
    pub fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        self.inner.put_idempotency(rec)
    }

    /// An API key, new or changed (see [`StorageTx::put_api_key`]).
    pub fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        self.inner.put_api_key(key)
    }

    /// The last use of keys, `(hash, time)` (see [`StorageTx::api_keys_used`]).
    pub fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        self.inner.api_keys_used(used)
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    pub fn commit(mut self) -> Result<()> {
        self.unbroken()?;
        self.record()?;
        self.inner.commit()
    }

    pub fn commit_created(mut self, result: &str) -> Result<()> {
        self.unbroken()?;
        self.record()?;
        self.inner.commit_created(result)
    }

    /// Events that no aggregate carries (a webhook created or deleted, a
    /// store reset or restored), committed with this transaction.
    pub fn put_events(&mut self, events: Vec<NewEvent>) {
        self.inner.put_events(events)
    }

    /// Changes to the webhook documents (see [`super::webhooks`]).
    pub fn hook_ops(&mut self, ops: Vec<super::webhooks::HookOp>) {
        self.inner.hook_ops(ops)
    }

    /// Sealed events copied as they are (`store migrate`).
    pub fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        self.inner.put_sealed_events(lines)
    }

    /// [`Tx::commit`], saying how the commit ended: a loop of commits (the
    /// worker) stops at one that was committed but not finished, since its
    /// next commit would first have to finish it.
    pub fn commit_outcome(self) -> Result<Committed> {
        let unfinished = |o: Option<&Outcomes>| o.map_or(0, Outcomes::unfinished);
        let outcomes = self.outcomes;
        let before = unfinished(outcomes);
        self.commit()?;
        Ok(Committed {
            unfinished: unfinished(outcomes) != before,
        })
    }
}

/// How a commit ended (see [`Tx::commit_outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Committed {
    /// The change is committed but its files are not all written yet (a
    /// full disk): the next commit of the store finishes it first.
    pub unfinished: bool,
}

/// How many times [`retrying`] runs a command.
pub const WRITE_ATTEMPTS: u32 = 8;

/// Run `attempt` (a whole command: open the store, read, decide, commit)
/// again while it fails for a reason a retry may cure: a serialization
/// failure or a deadlock (SQLSTATE 40001, 40P01), or a connection lost
/// before the commit (30019: nothing of it was written), at most
/// [`WRITE_ATTEMPTS`] times with a short random back-off; then 30019 saying
/// so. A lost connection during the `COMMIT` itself is not retried (its
/// outcome is unknown: 30017). The JSON directory never fails this way.
pub fn retrying<T>(mut attempt: impl FnMut() -> Result<T>) -> Result<T> {
    let mut n = 1;
    loop {
        match attempt() {
            Err(e) if e.has_code(crate::error::code::DB_RETRIES) => {
                if n >= WRITE_ATTEMPTS {
                    let mut e = e;
                    for a in &mut e.errors {
                        a.message = format!("{} (tried {n} times)", a.message);
                    }
                    return Err(e);
                }
                // 5-20 ms, doubling: the writer that won has committed by then.
                let base = 5u64 << n.min(5);
                std::thread::sleep(Duration::from_millis(
                    base + rand::random_range(0..=base * 3),
                ));
                n += 1;
            }
            other => return other,
        }
    }
}
