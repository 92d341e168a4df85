//! What a client team's test suite keeps in a store (issue 37), behind one
//! interface that every backend implements: outcome rules, the count of
//! reads of pending items (`--after-polls`), and snapshots of the records
//! with their restore and the store's reset.
//!
//! A snapshot holds the records, what [`SimStorage::reset`] removes:
//! customers (profiles, addresses, instruments, profile-program records),
//! transactions, the worker's queue, idempotency records, the read counts
//! (and the event log, issue 36, where a backend has one). The catalog,
//! the API keys, the webhooks and the rules are the store's configuration:
//! a restore and a reset keep them as they are. A save, a restore and a
//! reset are each atomic under the store's lock (a directory's exclusive
//! lock, a database transaction): a crash leaves the old state or the new
//! one, never a mix; the next payctl to open a directory finishes a restore
//! it finds committed. A restore refuses a snapshot that another format
//! (or schema) version of the store saved.

use super::Store;
use crate::error::{Error, Result, code};
use crate::model::sim_rule::{Reset, Rule, Snapshot};

/// The storage of issue 37, per backend (see the module doc). The writes
/// need a store opened for writing, and each commits on its own; `poll`
/// counts on a store opened for reading too, and concurrent counts are
/// never lost.
pub trait SimStorage {
    /// The outcome rules, in the order they were added.
    fn rules(&self) -> Result<Vec<Rule>>;

    /// Add `rule` (its id is new to the store).
    fn add_rule(&self, rule: &Rule) -> Result<()>;

    /// Remove the rule `id`; whether it was there.
    fn delete_rule(&self, id: &str) -> Result<bool>;

    /// Count one read of the pending item `key` (`att.<csp>.<prm>`, or a
    /// step's id): the count after it.
    fn poll(&self, key: &str) -> Result<u64>;

    /// The reads counted of `key` (0 when none).
    fn polls(&self, key: &str) -> Result<u64>;

    /// Every snapshot, oldest first.
    fn snapshots(&self) -> Result<Vec<Snapshot>>;

    /// Save the records as the snapshot `name` (a valid name: see
    /// [`valid_name`]), replacing one of that name, by `by` at `now`.
    fn save_snapshot(&self, name: &str, by: &str, now: &str) -> Result<Snapshot>;

    /// Replace the records with those of the snapshot `name`; `None` when
    /// there is no such snapshot (nothing changed). A snapshot of another
    /// version is refused ([`other_version`]).
    fn restore_snapshot(&self, name: &str) -> Result<Option<Snapshot>>;

    /// Remove the snapshot `name`; whether it was there.
    fn delete_snapshot(&self, name: &str) -> Result<bool>;

    /// Remove every record (see the module doc): what was removed.
    fn reset(&self) -> Result<Reset>;
}

/// Longest snapshot name.
pub const MAX_NAME: usize = 64;

/// The rule of a snapshot name: 1-64 of `A-Z a-z 0-9 _ . -`, the first a
/// letter or a digit (so that a name is one plain file name, never `.`,
/// `..` or hidden).
pub fn valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The refusal of a snapshot saved by another version of the store.
pub fn other_version(name: &str, theirs: &str, ours: &str) -> Error {
    Error::at(
        code::INVALID_VALUE,
        "name",
        format!(
            "the snapshot `{name}` was saved by a store of {theirs}, this store is {ours}: \
             it cannot be restored (nothing was changed); save it again from this store"
        ),
    )
}

impl Store {
    /// The storage of issue 37 of this store's backend (a dry run's is its
    /// real store's, which it reads).
    pub fn sim(&self) -> &dyn SimStorage {
        match self {
            Store::Json(s) => s,
            Store::Pg(s) => s,
            Store::Memory(s) => s,
            Store::Dry(s) => s.inner().sim(),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_plain_file_names() {
        for ok in ["baseline", "a", "v1.2_x-y", &"a".repeat(64)] {
            assert!(super::valid_name(ok), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            ".hidden",
            "-x",
            "a/b",
            "a b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!super::valid_name(bad), "{bad:?}");
        }
    }
}
