//! The JSON directory: the default store, the only code that touches the data directory.
//!
//! The directory's format (every file and what it holds, how a commit is
//! made durable, packs, the rebuild, the lock, the format versions) is
//! described in one place, the book's page
//! `docs/src/contributing/store-format.md`, so that it cannot disagree with
//! itself; the format version is [`FORMAT_VERSION`]. Each part's module says
//! how it works: `journal` (commits and their replay), `keys` (the key
//! index), `fields` (the field indexes), `txn_index`, `attachments`,
//! `packs`, `idempotency`, `api_keys`, `lock`, `rebuild`, `check`, `sim`
//! (outcome rules and read counts) and `snapshot` (snapshots, restore, reset).
//!
//! The aggregates are the truth; everything under `index/` and `queue/` can be
//! rebuilt from them by `store check --repair`. `idempotency/` cannot (nothing
//! else records which key made which change): repair leaves it alone. Point operations touch one
//! aggregate and a few small index entries, so they cost the same at 100,000
//! customers as at 1,000.

pub mod api_keys;
pub mod atomic;
pub mod attachments;
pub mod check;
mod commit;
mod derive;
pub(crate) mod events;
pub mod facts;
pub mod fields;
pub mod group;
pub mod idempotency;
pub mod index;
mod interface;
pub mod journal;
pub mod keys;
pub mod lock;
mod open;
pub mod packs;
mod query;
mod read;
pub mod rebuild;
pub mod safefs;
pub mod sim;
pub mod snapshot;
pub mod tree;
mod tx;
pub mod txn_index;
mod webhooks;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result, code};
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};
use crate::store::storage::Storage as _;
use crate::store::{IdPage, TxnQuery, Window, fault, storage};
use crate::store::{ProfileSummary, QueueItem, TxnSummary};
pub use commit::JsonPrepared;
use journal::{Journal, Op};
pub use lock::Mode;
pub use query::JsonKeyIndex;
use safefs::Root;
pub use tx::JsonTx;

/// 1: a key index of one file per key (`index/keys/k<hex of the key>`);
/// 2: the bucketed key index of [`keys`];
/// 3: the attachment index of [`attachments`];
/// 4: the field indexes of [`fields`];
/// 5: key buckets split a level down when full ([`keys::SPLIT_BYTES`]; a
/// payctl of format 4 would miss the keys of a split bucket);
/// 6: the transaction indexes of [`txn_index`] (a payctl of format 5 would
/// not keep them);
/// 7: removal lines in the field indexes;
/// 8: packed customer records ([`packs`]; a payctl of format 7 would not
/// find them);
/// 9: API keys ([`api_keys`]; a payctl of format 8 would serve a store
/// that has keys without asking for one);
/// 10: the event log ([`events`]; a payctl of format 9 would change records
/// without recording their events);
/// 11: outcome rules, read counts and snapshots ([`sim`], [`snapshot`]; a
/// payctl of format 10 would not finish a restore that a crash
/// interrupted, and would ignore the rules);
/// 12: the last segment's record lines in its companion
/// ([`events`]; a payctl of format 11 would not find them: `history`
/// would miss a record's latest events);
/// 13: the last segment's events read from the segment, no companion, and
/// each record file naming its commit's last event ([`events`]; a payctl of
/// format 12 would look for the companion and miss those events);
/// 14: `journal.json` may be a log of group commits (`journal/log.rs`; a
/// payctl of format 13 would take it for a damaged journal).
/// An older store is upgraded by the first command that opens it
/// ([`JsonStore::upgrade`]).
pub const FORMAT_VERSION: u32 = 14;
pub(crate) const META: &str = "meta.json";
pub(crate) const CATALOG: &str = "catalog.json";
use lock::LOCK;
pub(crate) const PROFILES_LOG: &str = "index/profiles.log";
pub(crate) const PROFILE_IDS: &str = "index/profiles.ids";
pub(crate) const ATTACHMENTS_LOG: &str = "index/attachments.log";
pub(crate) const TXNS_LOG: &str = "index/transactions.log";
pub(crate) const KEYS_DIR: &str = "index/keys";
pub(crate) const QUEUE_DIR: &str = "queue";
pub(crate) const CUSTOMERS_DIR: &str = "customers";
pub(crate) const TXNS_DIR: &str = "transactions";

/// A 64-bit hash of a value, the same in every thread and run (foldhash's
/// quality variant with fixed seeds): what `store check` and the field
/// indexes' readers tell entries apart by, never written to a file. Two
/// different values share one with a chance of about one in 10^19 per pair
/// (for values not built to collide: the seeds are no secret).
pub(crate) fn h64<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
    use std::hash::BuildHasher;
    foldhash::quality::FixedState::with_seed(0x7061_7963_746c_2121).hash_one(v)
}

/// A hash map keyed by [`h64`]'s hashes or other values that no one chooses
/// to collide: foldhash's fast hasher, randomly seeded.
pub(crate) type FastMap<K, V> = foldhash::HashMap<K, V>;

#[derive(Debug, Serialize, serde::Deserialize)]
struct Meta {
    format_version: u32,
    /// Set while `store check --repair` rebuilds the derived data in
    /// pieces (see [`rebuild`]): left set by a crash, the store is refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    rebuilding: bool,
}

/// An open store holding its lock for as long as it lives.
pub struct JsonStore {
    /// Where every path of the store is reached from (see [`safefs`]).
    root: safefs::Root,
    lock: lock::Lock,
    mode: Mode,
    wait: lock::Wait,
    /// The idempotency record that the next [`JsonTx::commit_created`] writes
    /// (armed through the facade: [`Store::arm_idempotency`]).
    pub(crate) armed: idempotency::ArmedSlot,
    /// A reader's view of a pending journal that it could not replay (a full
    /// disk): the files it changes, as the replay would leave them (`None`:
    /// removed), store-relative. Reads consult it first.
    overlay: Option<HashMap<String, Option<Vec<u8>>>>,
    /// A writer in a group commit ([`group::GroupCommit`]): the changes its
    /// transactions committed, not written yet. Reads consult it first.
    group: Option<std::sync::Arc<group::Stage>>,
    /// What the journal keeps between this store's commits, and what they
    /// did (see [`journal::State`]).
    journal: std::sync::Arc<journal::State>,
    /// Opened by `store check` ([`JsonStore::open_to_check`]): a store
    /// whose rebuild was interrupted is opened, not refused.
    checking: bool,
}

impl JsonStore {
    /// What this store's commits did (see [`crate::store::Outcomes`]).
    pub fn outcomes(&self) -> &crate::store::Outcomes {
        &self.journal.outcomes
    }
}

impl Drop for JsonStore {
    /// The lock is let go first, then what a point commit renamed aside is
    /// removed ([`journal::RETIRED`]): outside the lock, so that the next
    /// writer does not wait for it.
    fn drop(&mut self) {
        self.lock.release();
        journal::remove_retired(&self.root, &self.journal);
    }
}

/// A store opened before, as [`JsonStore::reopen`] found it: the device and
/// inode of its directory, and those of `meta.json` with its size and
/// modification time (every write of it is a new file, renamed into place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Known {
    dir: (u64, u64),
    meta: (u64, u64, u64, i64, i64),
}

/// What [`JsonStore::open`] did besides opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    Existing,
    /// The store did not exist and was created with the built-in catalog.
    Created,
}

/// Whether `root` holds nothing but what [`JsonStore::create`] makes before it
/// writes `meta.json` (the lock, `catalog.json`, the empty layout directories,
/// temp files): a first use killed halfway is finished by the next payctl
/// instead of leaving a directory that is refused as "not a payctl store".
/// Anything else (a file of the user's, a record) means the directory is not
/// ours to take over.
fn not_a_store(root: &Root) -> Error {
    Error::store(
        code::STORE_UNREADABLE,
        format!(
            "{} is not empty and has no {META}: not a payctl store (nothing was written \
             into it); give --data-dir a store, an empty directory or a new path",
            root.display()
        ),
    )
}

/// Refuse, before anything is written (not even the lock file), a root that
/// is not a directory or a directory that holds something else than a store
/// (`--data-dir ~` must not litter a home directory).
fn refuse_foreign(root: &Root) -> Result<()> {
    match std::fs::metadata(root) {
        Ok(m) if !m.is_dir() => Err(Error::store(
            code::STORE_UNREADABLE,
            format!(
                "{} is not a directory: --data-dir names the directory of a store, \
                 or a directory to create one in",
                root.display()
            ),
        )),
        // `meta.json` is looked for again after the listing: another payctl
        // creating the store meanwhile writes it before it removes its
        // journal, so an entry that changed under the listing (the journal
        // gone, a first record) is a store that became complete, not a
        // foreign directory.
        Ok(_) if !root.join(META).exists() && !half_created(root)? && !root.join(META).exists() => {
            Err(not_a_store(root))
        }
        _ => Ok(()),
    }
}

/// Whether a reader that could not replay a pending journal because of `e`
/// reads through it instead (see [`JsonStore::recover`]): the store cannot be
/// written (I/O, a read-only file system) or must not be (another user's).
fn read_through(e: &Error) -> bool {
    e.has_code(code::STORE_IO) || e.has_code(code::STORE_OTHER_OWNER)
}

/// Whether `path` is the journal of an `init` (puts of the catalog and
/// `meta.json`, nothing else): one killed after its commit point, which the
/// next payctl replays.
fn is_init_journal(root: &Root, path: &Path) -> bool {
    let Ok(Some(bytes)) = atomic::read_opt(root, path) else {
        return false;
    };
    serde_json::from_slice::<Journal>(&bytes).is_ok_and(|j| {
        j.ops
            .iter()
            .all(|op| matches!(op, Op::Put { path, .. } if path == CATALOG || path == META))
    })
}

fn half_created(root: &Root) -> Result<bool> {
    fn only_empty_dirs(dir: &Path) -> bool {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.filter_map(|e| e.ok()).all(|e| {
                let p = e.path();
                atomic::is_temp(&p)
                    || (e.file_type().is_ok_and(|t| t.is_dir()) && only_empty_dirs(&p))
            })
        })
    }
    let layout = [CUSTOMERS_DIR, TXNS_DIR, "index", QUEUE_DIR];
    let entries = std::fs::read_dir(root)
        .and_then(|d| d.collect::<std::io::Result<Vec<_>>>())
        .map_err(|e| Error::io(root.path(), e))?;
    // (Tests widen the window in which another payctl finishes the store.)
    fault::slow("store-listed");
    for e in entries {
        let p = e.path();
        let name = e.file_name();
        let ours = name == LOCK
            || name == lock::KNOCK
            || atomic::is_temp(&p)
            || (name == CATALOG && e.file_type().is_ok_and(|t| t.is_file()))
            || (name == journal::JOURNAL
                && e.file_type().is_ok_and(|t| t.is_file())
                && is_init_journal(root, &p))
            || (layout.iter().any(|d| name == *d)
                && e.file_type().is_ok_and(|t| t.is_dir())
                && only_empty_dirs(&p));
        if !ours {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The entries of `dir` that are regular files or directories (none when
/// it does not exist; a link or a FIFO is `store check`'s to report).
fn list_dir(root: &Root, dir: &Path) -> Result<Vec<PathBuf>> {
    use rustix::fs::FileType;
    Ok(safefs::list(root, dir)?
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, t)| matches!(t, FileType::RegularFile | FileType::Directory))
        .map(|(n, _)| dir.join(n))
        .collect())
}

/// The store-relative paths of the regular files under `dir` (relative),
/// at any depth, temp files aside (what a rebuild may remove).
fn derived_files(root: &Root, dir: &str) -> Result<Vec<String>> {
    use rustix::fs::FileType;
    let mut out = Vec::new();
    let mut todo = vec![dir.to_string()];
    while let Some(d) = todo.pop() {
        for (name, t) in safefs::list(root, &root.join(&d))?.unwrap_or_default() {
            let Some(name) = name.to_str() else { continue };
            let rel = format!("{d}/{name}");
            match t {
                FileType::Directory => todo.push(rel),
                FileType::RegularFile if !atomic::is_temp(&root.join(&rel)) => out.push(rel),
                _ => {}
            }
        }
    }
    Ok(out)
}

/// The record at `path` from its `bytes` (`None`: there is no file).
fn parse_record<T: DeserializeOwned>(path: &Path, bytes: Option<Vec<u8>>) -> Result<Option<T>> {
    let Some(bytes) = bytes else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::corrupt(path, e))
}

fn to_bytes<T: Serialize>(v: &T) -> Vec<u8> {
    let mut b = serde_json::to_vec(v).expect("records serialize");
    b.push(b'\n');
    b
}
