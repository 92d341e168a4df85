//! The storage seam: the one [`Store`] (and its write transaction [`Tx`])
//! that `core` and the CLI use, dispatching to a backend: the JSON directory
//! ([`JsonStore`], the embedded default) or a PostgreSQL database
//! ([`PgStore`], `--database-url`).
//!
//! The interface is at the level of the aggregates: read a customer or a
//! transaction, find a customer_key's owner, list profiles and transactions
//! in creation order, list a program's profile records, claim pending work,
//! keep idempotency records, and commit a set of changes atomically. The
//! derived-index calls of [`Tx`] (`set_key`, `append_profile`,
//! `new_attachment`, `txn_changed`) are upkeep of the JSON directory's own
//! indexes; the PostgreSQL backend derives what it needs from the aggregates
//! it stores (its columns and tables) and ignores them.

use std::path::Path;
use std::time::Duration;

use super::check::Report;
use super::pg::{PgKeyIndex, PgStore, PgTx};
use super::{JsonKeyIndex, JsonPrepared, JsonStore, JsonTx, Mode, Opened, idempotency, lock};
use super::{ProfileSummary, QueueItem, TxnSummary};
use crate::error::Result;
use crate::model::Customer;
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;

/// An open store, whichever its backend. (One per command or request: the
/// size of a variant does not matter.)
#[allow(clippy::large_enum_variant)]
pub enum Store {
    Json(JsonStore),
    Pg(PgStore),
}

macro_rules! both {
    ($self:expr, $s:ident => $e:expr) => {
        match $self {
            Store::Json($s) => $e,
            Store::Pg($s) => $e,
        }
    };
}

impl Store {
    /// The JSON directory at `root` (see [`JsonStore::open`]).
    pub fn open(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        default_catalog: impl FnOnce() -> Catalog,
        upgrading: impl FnOnce(u32),
    ) -> Result<(Store, Opened)> {
        JsonStore::open(root, mode, wait, default_catalog, upgrading)
            .map(|(s, o)| (Store::Json(s), o))
    }

    /// The database at `url` (see [`PgStore::open`]).
    pub fn open_database(
        url: &str,
        mode: Mode,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<(Store, Opened)> {
        PgStore::open(url, mode, default_catalog).map(|(s, o)| (Store::Pg(s), o))
    }

    /// The database at `url` on a connection of this process's pool for it
    /// (`payctl serve`: at most [`super::pg::pool::POOL_SIZE`] connections,
    /// a request waiting up to `wait` for one).
    pub fn open_database_pooled(
        url: &str,
        mode: Mode,
        wait: std::time::Duration,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<Store> {
        let pool = super::pg::pool::Pool::shared(url)?;
        PgStore::open_pooled(&pool, mode, wait, default_catalog).map(Store::Pg)
    }

    /// Create a new JSON store at `root`.
    pub fn init(root: &Path, wait: impl Into<lock::Wait>, catalog: &Catalog) -> Result<Store> {
        JsonStore::init(root, wait, catalog).map(Store::Json)
    }

    /// Create the schema of a new store in the empty database at `url`.
    pub fn init_database(url: &str, catalog: &Catalog) -> Result<Store> {
        PgStore::init(url, catalog).map(Store::Pg)
    }

    /// Where the store is, for people: a directory, or the database's URL
    /// without its password.
    pub fn root(&self) -> &Path {
        both!(self, s => s.root())
    }

    pub fn scratch_file(&self) -> Result<std::fs::File> {
        both!(self, s => s.scratch_file())
    }

    pub fn ensure_profile_ids(&self) -> Result<()> {
        match self {
            Store::Json(s) => s.ensure_profile_ids(),
            Store::Pg(_) => Ok(()),
        }
    }

    pub fn catalog(&self) -> Result<Catalog> {
        both!(self, s => s.catalog())
    }

    pub fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        both!(self, s => s.customer(cid))
    }

    pub fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        both!(self, s => s.txn(tid))
    }

    pub fn key_owner(&self, key: &str) -> Result<Option<String>> {
        both!(self, s => s.key_owner(key))
    }

    /// The holders of `keys`, in their order (an import's batch): the JSON
    /// directory reads each bucket once for the batch.
    pub fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        match self {
            Store::Json(s) => s.key_owners(keys),
            Store::Pg(s) => keys.iter().map(|k| s.key_owner(k)).collect(),
        }
    }

    pub fn key_index(&self) -> Result<KeyIndex<'_>> {
        Ok(match self {
            Store::Json(s) => KeyIndex::Json(s.key_index()?),
            Store::Pg(s) => KeyIndex::Pg(s.key_index()?),
        })
    }

    pub fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        both!(self, s => s.profiles())
    }

    /// The candidates of an exact filter on `field` = `value` (normalized),
    /// `(position, id)` in creation order, from the JSON directory's field
    /// index (see [`super::fields`]) or the database's column indexes;
    /// `None` from a backend without one (the caller reads every summary).
    pub fn profiles_with(
        &self,
        field: super::fields::Field,
        value: &str,
    ) -> Result<Option<Vec<(usize, String)>>> {
        both!(self, s => s.profiles_with(field, value).map(Some))
    }

    pub fn profile_count(&self) -> Result<usize> {
        both!(self, s => s.profile_count())
    }

    pub fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        both!(self, s => s.profile_ids(start, end))
    }

    pub fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        both!(self, s => s.profile_position(cid))
    }

    pub fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        both!(self, s => s.program_customers(program_id))
    }

    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        both!(self, s => s.txns())
    }

    /// The transactions that match `q`, in creation order, from the JSON
    /// directory's transaction indexes (see [`super::txn_index`]) or the
    /// database's column indexes.
    pub fn txns_matching(&self, q: &TxnQuery) -> Result<TxnMatches> {
        match self {
            Store::Json(s) => s.txns_matching(q).map(TxnMatches::Positions),
            Store::Pg(s) => s.txns_matching(q).map(TxnMatches::Ids),
        }
    }

    /// The creation-order position of transaction `tid` in the JSON
    /// directory (`None` from a database: its matches are ids).
    pub fn txn_position(&self, tid: &str) -> Result<Option<usize>> {
        match self {
            Store::Json(s) => s.txn_position(tid),
            Store::Pg(_) => Ok(None),
        }
    }

    /// The transaction ids at `positions` of the JSON directory's creation
    /// order (empty from a database).
    pub fn txn_ids_at(&self, positions: &[usize]) -> Result<Vec<String>> {
        match self {
            Store::Json(s) => s.txn_ids_at(positions),
            Store::Pg(_) => Ok(Vec::new()),
        }
    }

    pub fn queue(&self) -> Result<Vec<QueueItem>> {
        both!(self, s => s.queue())
    }

    /// Whether `item` is still queued; on a database opened for writing,
    /// also claims it for this transaction (another worker skips it).
    pub fn is_queued(&self, item: &QueueItem) -> bool {
        both!(self, s => s.is_queued(item))
    }

    pub fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        both!(self, s => s.idempotency_record(key, now))
    }

    /// Every live idempotency record (`store migrate`).
    pub fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        both!(self, s => s.idempotency_records(now))
    }

    /// Make the next [`Tx::commit_created`] on this store record `key` with
    /// the request's fingerprint `fp` and its result, in the same commit
    /// (one implementation for every backend: [`idempotency::ArmedSlot`]).
    pub fn arm_idempotency(&self, key: &str, fp: &str, now: i64) {
        both!(self, s => s.armed.arm(key, fp, now))
    }

    /// Forget an armed key; whether one was still armed (a create that
    /// succeeded without [`Tx::commit_created`] leaves it armed).
    pub fn disarm_idempotency(&self) -> bool {
        both!(self, s => s.armed.disarm())
    }

    /// `store check [--repair]`.
    pub fn check(&self, repair: bool) -> Result<Report> {
        both!(self, s => s.check(repair))
    }

    pub fn begin(&self) -> Tx<'_> {
        let inner = match self {
            Store::Json(s) => TxInner::Json(s.begin()),
            Store::Pg(s) => TxInner::Pg(s.begin()),
        };
        Tx { store: self, inner }
    }
}

/// An exact filter of `txn list`: every given part must match.
#[derive(Debug, Default, Clone)]
pub struct TxnQuery {
    pub status: Option<u32>,
    /// Template ids: one of them.
    pub templates: Option<Vec<String>>,
    /// Program ids: one of them.
    pub programs: Option<Vec<String>>,
}

/// What [`Store::txns_matching`] answers.
pub enum TxnMatches {
    /// The JSON directory: creation-order positions, sorted (the ids are
    /// read for one page only, see [`Store::txn_ids_at`]).
    Positions(Vec<usize>),
    /// A database: the ids in creation order.
    Ids(Vec<String>),
}

/// The key index read once, for many lookups (an import).
pub enum KeyIndex<'s> {
    Json(JsonKeyIndex<'s>),
    Pg(PgKeyIndex),
}

impl KeyIndex<'_> {
    pub fn owner(&self, key: &str) -> Result<Option<String>> {
        match self {
            KeyIndex::Json(k) => k.owner(key),
            KeyIndex::Pg(k) => Ok(k.owner(key)),
        }
    }
}

/// A write transaction: all of its changes are committed, or none.
pub struct Tx<'s> {
    store: &'s Store,
    inner: TxInner<'s>,
}

enum TxInner<'s> {
    Json(JsonTx<'s>),
    Pg(PgTx<'s>),
}

macro_rules! tx_both {
    ($self:expr, $t:ident => $e:expr) => {
        match $self {
            TxInner::Json($t) => $e,
            TxInner::Pg($t) => $e,
        }
    };
}

impl Tx<'_> {
    pub fn put_customer(&mut self, c: &Customer) {
        tx_both!(&mut self.inner, t => t.put_customer(c))
    }

    pub fn put_txn(&mut self, t: &TxnFile) {
        tx_both!(&mut self.inner, x => x.put_txn(t))
    }

    pub fn customer(&self, id: &str) -> Result<Option<Customer>> {
        tx_both!(&self.inner, t => t.customer(id))
    }

    pub fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        tx_both!(&self.inner, t => t.txn(id))
    }

    pub fn store(&self) -> &Store {
        self.store
    }

    pub fn set_key(&mut self, key: &str, owner: &str) -> Result<()> {
        match &mut self.inner {
            TxInner::Json(t) => t.set_key(key, owner),
            TxInner::Pg(_) => Ok(()),
        }
    }

    pub fn append_profile(&mut self, s: &ProfileSummary) -> Result<()> {
        match &mut self.inner {
            TxInner::Json(t) => t.append_profile(s),
            TxInner::Pg(_) => Ok(()),
        }
    }

    /// A stored profile updated from `before` to `after` (its summary line
    /// and field index lines in the JSON directory).
    pub fn profile_updated(
        &mut self,
        before: &ProfileSummary,
        after: &ProfileSummary,
    ) -> Result<()> {
        match &mut self.inner {
            TxInner::Json(t) => t.profile_updated(before, after),
            TxInner::Pg(_) => Ok(()),
        }
    }

    pub fn new_attachment(&mut self, program_id: &str, customer_id: &str) -> Result<()> {
        match &mut self.inner {
            TxInner::Json(t) => t.new_attachment(program_id, customer_id),
            TxInner::Pg(_) => Ok(()),
        }
    }

    /// A transaction created (`before` is `None`) or changed from `before`
    /// to `after`: its summary line and its entries in the transaction
    /// indexes of the JSON directory, in this transaction's commit (the
    /// database derives its columns from the record).
    pub fn txn_changed(&mut self, before: Option<&TxnSummary>, after: &TxnSummary) -> Result<()> {
        match &mut self.inner {
            TxInner::Json(t) => t.txn_changed(before, after),
            TxInner::Pg(_) => Ok(()),
        }
    }

    pub fn new_customer(&mut self, c: Customer) -> Result<()> {
        tx_both!(&mut self.inner, t => t.new_customer(c))
    }

    pub fn enqueue(&mut self, item: &QueueItem) {
        tx_both!(&mut self.inner, t => t.enqueue(item))
    }

    pub fn dequeue(&mut self, item: &QueueItem) {
        tx_both!(&mut self.inner, t => t.dequeue(item))
    }

    /// An idempotency record copied as it is (`store migrate`).
    pub fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        tx_both!(&mut self.inner, t => t.put_idempotency(rec))
    }

    pub fn is_empty(&self) -> bool {
        tx_both!(&self.inner, t => t.is_empty())
    }

    pub fn commit(self) -> Result<()> {
        tx_both!(self.inner, t => t.commit())
    }

    pub fn commit_created(self, result: &str) -> Result<()> {
        tx_both!(self.inner, t => t.commit_created(result))
    }

    /// See [`JsonTx::prepare`]. On a database the transaction is committed
    /// here (the database does the writing), and the returned commit is done.
    pub fn prepare(self) -> Result<Prepared> {
        match self.inner {
            TxInner::Json(t) => t.prepare().map(Prepared::Json),
            TxInner::Pg(t) => t.commit().map(|()| Prepared::Done),
        }
    }
}

/// A write transaction ready to commit (see [`Tx::prepare`]).
pub enum Prepared {
    Json(JsonPrepared),
    Done,
}

impl Prepared {
    pub fn commit(self) -> Result<()> {
        match self {
            Prepared::Json(p) => p.commit(),
            Prepared::Done => Ok(()),
        }
    }
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
