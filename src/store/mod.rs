//! The only code that touches the disk or the database: the storage
//! interface and its backends.
//!
//! - [`open()`]: the one way a store is opened, from its [`Place`] (a
//!   directory or a database) and [`By`] whom (a command or the server).
//! - [`storage`]: the interface ([`Storage`] and its write transaction
//!   [`StorageTx`]); [`backend`]: the [`Store`] facade over the backends
//!   that core uses; [`types`]: the types every backend shares;
//!   [`idempotency`]: idempotency records; [`report`]: what `store check`
//!   reports; `pending`: the writes a transaction holds until its commit,
//!   shared by the in-memory and PostgreSQL backends.
//! - [`json`]: the JSON directory (the default store): its layout, open
//!   and upgrade, reads, transactions, journal, group commit, indexes,
//!   check and repair.
//! - [`pg`]: the PostgreSQL backend.
//! - [`memory`]: the in-memory backend of the tests; [`dry`]: the
//!   dry-run overlay over a real store; [`fault`]: fault injection;
//!   [`outcomes`]: what a store's commits did beyond their answers.
//! - [`sim`]: outcome rules, read counts and snapshots (issue 37).
//!
//! The JSON directory's format (every file and what it holds, how a commit
//! is made durable, packs, the rebuild, the lock, the format versions) is
//! described in one place, the book's page
//! `docs/src/contributing/store-format.md`.

pub mod backend;
pub mod dry;
pub mod events;
pub mod fault;
pub mod idempotency;
pub mod json;
#[doc(hidden)]
pub mod memory;
mod memory_turn;
mod open;
pub mod outcomes;
mod pending;
pub mod pg;
pub mod report;
pub mod sim;
pub mod storage;
pub mod types;
pub mod webhooks;

pub use backend::{Store, Tx, retrying};
pub use json::{FORMAT_VERSION, JsonStore, JsonTx, Known, Opened};
pub use open::{By, DbPool, Place, open};
pub use outcomes::Outcomes;
pub use storage::{Storage, StorageTx};
pub use types::{Field, IdPage, ProfileSummary, QueueItem, TxnQuery, TxnSummary, Window};

// The JSON directory's modules that the command line, the server and the
// tests reach by their old paths (`store::journal::JOURNAL`, ...).
pub use json::{atomic, check, fields, group, journal, lock, lock::Mode, rebuild, safefs};
