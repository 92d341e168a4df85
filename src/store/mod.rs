//! The only code that touches the data directory.
//!
//! The directory's format (every file and what it holds, how a commit is
//! made durable, packs, the rebuild, the lock, the format versions) is
//! described in one place, the book's page
//! `docs/src/contributing/store-format.md`, so that it cannot disagree with
//! itself; the format version is [`FORMAT_VERSION`]. Each part's module says
//! how it works: `journal` (commits and their replay), `keys` (the key
//! index), `fields` (the field indexes), `txn_index`, `attachments`,
//! `packs`, `idempotency`, `api_keys`, `lock`, `rebuild` and `check`.
//!
//! The aggregates are the truth; everything under `index/` and `queue/` can be
//! rebuilt from them by `store check --repair`. `idempotency/` cannot (nothing
//! else records which key made which change): repair leaves it alone. Point operations touch one
//! aggregate and a few small index entries, so they cost the same at 100,000
//! customers as at 1,000.

pub mod api_keys;
pub mod atomic;
pub mod attachments;
pub mod backend;
pub mod check;
pub mod dry;
pub mod facts;
pub mod fault;
pub mod fields;
pub mod group;
pub mod idempotency;
pub mod index;
pub mod journal;
pub mod keys;
pub mod lock;
#[doc(hidden)]
pub mod memory;
pub mod packs;
pub mod pg;
pub mod rebuild;
pub mod safefs;
pub mod storage;
pub mod txn_index;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result, code};
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};
pub use backend::{Store, Tx, TxnMatches, TxnQuery, retrying};
pub use index::{ProfileSummary, QueueItem, TxnSummary};
use journal::{Journal, Op};
pub use lock::Mode;
pub use storage::{Storage, StorageTx};

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
/// that has keys without asking for one).
/// An older store is upgraded by the first command that opens it
/// ([`JsonStore::upgrade`]).
pub const FORMAT_VERSION: u32 = 9;
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
    root: PathBuf,
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
}

impl Drop for JsonStore {
    /// The lock is let go first, then what a point commit renamed aside is
    /// removed ([`journal::RETIRED`]): outside the lock, so that the next
    /// writer does not wait for it.
    fn drop(&mut self) {
        self.lock.release();
        journal::remove_retired(&self.root);
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

impl JsonStore {
    /// Open the store at `root` with a shared (read) or exclusive (write) lock.
    /// A store that does not exist yet is created with `default_catalog()`;
    /// one of an earlier format is upgraded, after `upgrading(from)` is told.
    pub fn open(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        default_catalog: impl FnOnce() -> Catalog,
        upgrading: impl FnOnce(u32),
    ) -> Result<(JsonStore, Opened)> {
        let wait = wait.into();
        safefs::set_root(root);
        refuse_foreign(root)?;
        let initialized = safefs::exists(&root.join(META))?;
        if !initialized {
            atomic::ensure_dir(root)?;
        }
        let first = if initialized { mode } else { Mode::Exclusive };
        if initialized && first == Mode::Exclusive {
            journal::settle_ahead(root);
        }
        let lock = lock::Lock::acquire(root, first, &wait)?;
        let mut store = JsonStore {
            root: root.to_path_buf(),
            lock,
            mode: first,
            wait,
            armed: Default::default(),
            overlay: None,
            group: None,
        };
        let mut opened = Opened::Existing;
        let mut version = None;
        if initialized {
            version = Some(store.format_version()?);
        }
        // Before anything else: a journal may also be an `init`'s (the
        // catalog and the metadata are one commit). When there was none,
        // `meta.json` is as read above (the lock keeps writers out).
        if store.recover(mode)? {
            version = None;
        }
        let version = match version {
            Some(v) => v,
            None => {
                if !safefs::exists(&store.root.join(META))? {
                    store.create(&default_catalog())?;
                    opened = Opened::Created;
                }
                store.format_version()?
            }
        };
        store.upgrade(version, upgrading)?;
        if store.mode != mode {
            store.lock.relock(mode, &store.wait)?;
            store.mode = mode;
        }
        Ok((store, opened))
    }

    /// Open the store at `root` for reading when one of this payctl's
    /// format is there, else `None`: nothing is created and nothing is
    /// upgraded (shell completion reads what exists and never makes a
    /// store; a store of an older format waits for a real command to
    /// upgrade it). A pending journal is completed or read through as
    /// [`JsonStore::open`] does for any reader.
    pub fn open_existing(root: &Path, wait: impl Into<lock::Wait>) -> Result<Option<JsonStore>> {
        if !safefs::exists(&root.join(META))? {
            return Ok(None);
        }
        safefs::set_root(root);
        let wait = wait.into();
        let lock = lock::Lock::acquire(root, Mode::Shared, &wait)?;
        let mut store = JsonStore {
            root: root.to_path_buf(),
            lock,
            mode: Mode::Shared,
            wait,
            armed: Default::default(),
            overlay: None,
            group: None,
        };
        if store.format_version()? != FORMAT_VERSION {
            return Ok(None);
        }
        if store.recover(Mode::Shared)?
            && (!safefs::exists(&store.root.join(META))?
                || store.format_version()? != FORMAT_VERSION)
        {
            return Ok(None);
        }
        if store.mode != Mode::Shared {
            store.lock.relock(Mode::Shared, &store.wait)?;
            store.mode = Mode::Shared;
        }
        Ok(Some(store))
    }

    /// Open again a store that this process opened before (`payctl serve`,
    /// once per request). The lock is taken as [`JsonStore::open`] takes it
    /// and a pending journal is completed (or read through) the same way, so
    /// the store shows every commit made before; but when its directory and
    /// `meta.json` are still the files `known` describes, the checks that
    /// depend on nothing else (a foreign directory, the format version, an
    /// upgrade, a first use) are not repeated. Otherwise it is opened in full
    /// and `known` updated; a store that was known and is gone (removed, or
    /// its `meta.json` is) is an error, never created anew.
    pub fn reopen(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        known: &std::sync::Mutex<Option<Known>>,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<JsonStore> {
        let wait = wait.into();
        let was = *known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(was) = was {
            safefs::set_root(root);
            let lock = lock::Lock::acquire(root, mode, &wait)?;
            let mut store = JsonStore {
                root: root.to_path_buf(),
                lock,
                mode,
                wait: wait.clone(),
                armed: Default::default(),
                overlay: None,
                group: None,
            };
            store.recover(mode)?;
            if store.known()? == Some(was) {
                return Ok(store);
            }
            if !safefs::exists(&root.join(META))? {
                return Err(Error::store(
                    code::STORE_UNREADABLE,
                    format!(
                        "the store at {} was removed or replaced by something that is not \
                         a store while this payctl used it: nothing was read or written",
                        root.display()
                    ),
                ));
            }
        }
        let (store, _) = JsonStore::open(root, mode, wait, default_catalog, |_| {})?;
        *known.lock().unwrap_or_else(|e| e.into_inner()) = store.known()?;
        Ok(store)
    }

    /// The identity of this open store (see [`Known`]); `None` without a
    /// `meta.json` (a reader of a pending journal that holds it).
    fn known(&self) -> Result<Option<Known>> {
        let Some(dir) = self.lock.dir_id() else {
            return Ok(None);
        };
        let Some(st) = self.lock.lstat_entry(META)? else {
            return Ok(None);
        };
        Ok(Some(Known {
            dir,
            meta: (
                st.st_dev,
                st.st_ino,
                st.st_size as u64,
                st.st_mtime,
                st.st_mtime_nsec as i64,
            ),
        }))
    }

    /// The way out of an unreadable `journal.json` or `applied.json` (which
    /// every command, this one included, would otherwise refuse with 30002
    /// when it must replay them): under the exclusive lock, one that does not
    /// parse is renamed `<name>.corrupt-<UTC time>` beside it, and the new
    /// paths returned. One that parses is left to the ordinary recovery.
    /// Used by `store check --repair` only.
    pub fn set_aside_corrupt_journal(
        root: &Path,
        wait: impl Into<lock::Wait>,
    ) -> Result<Vec<PathBuf>> {
        safefs::set_root(root);
        refuse_foreign(root)?;
        let names = [journal::JOURNAL, journal::APPLIED];
        if !safefs::exists(&root.join(META))? {
            return Ok(Vec::new());
        }
        let mut present = false;
        for name in names {
            present |= safefs::exists(&root.join(name))?;
        }
        if !present {
            return Ok(Vec::new());
        }
        let _lock = lock::Lock::acquire(root, Mode::Exclusive, &wait.into())?;
        let mut moved = Vec::new();
        for name in names {
            let path = root.join(name);
            let Some(bytes) = atomic::read_opt(&path)? else {
                continue;
            };
            if serde_json::from_slice::<journal::Journal>(&bytes).is_ok() {
                continue;
            }
            let aside = root.join(format!(
                "{name}.corrupt-{}",
                chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
            ));
            safefs::rename(&path, &aside)?;
            atomic::sync_dir(root)?;
            moved.push(aside);
        }
        Ok(moved)
    }

    /// Create a new store with `catalog`; refused when one exists at `root`.
    pub fn init(root: &Path, wait: impl Into<lock::Wait>, catalog: &Catalog) -> Result<JsonStore> {
        let wait = wait.into();
        safefs::set_root(root);
        refuse_foreign(root)?;
        atomic::ensure_dir(root)?;
        let lock = lock::Lock::acquire(root, Mode::Exclusive, &wait)?;
        let mut store = JsonStore {
            root: root.to_path_buf(),
            lock,
            mode: Mode::Exclusive,
            wait,
            armed: Default::default(),
            overlay: None,
            group: None,
        };
        // A journal left by a killed init (or any writer) is finished first.
        store.recover(Mode::Exclusive)?;
        if safefs::exists(&store.root.join(META))? {
            return Err(Error::one(
                code::INVALID_VALUE,
                format!("a store already exists at {}", root.display()),
            ));
        }
        store.create(catalog)?;
        Ok(store)
    }

    fn create(&self, catalog: &Catalog) -> Result<()> {
        if !half_created(&self.root)? {
            return Err(not_a_store(&self.root));
        }
        atomic::restrict_dir(&self.root)?;
        for d in [CUSTOMERS_DIR, TXNS_DIR, KEYS_DIR, QUEUE_DIR] {
            atomic::ensure_dir(&self.root.join(d))?;
        }
        // The catalog and meta.json (whose presence marks a complete store)
        // in one commit: a crash leaves no store, or a store with this
        // catalog, never one that the next command fills with the built-in
        // catalog.
        let meta = Meta {
            format_version: FORMAT_VERSION,
            rebuilding: false,
        };
        let text = |b: Vec<u8>| String::from_utf8(b).expect("json is utf-8");
        let journal = Journal {
            ops: vec![
                Op::Put {
                    path: CATALOG.into(),
                    data: text(to_bytes(catalog)),
                },
                Op::Put {
                    path: META.into(),
                    data: text(to_bytes(&meta)),
                },
            ],
        };
        journal::commit_durable(&self.root, &journal)
    }

    /// The store's format version; refused when this payctl cannot read it.
    fn format_version(&self) -> Result<u32> {
        let path = self.root.join(META);
        let meta: Meta = self
            .read_json(&path)?
            .ok_or_else(|| Error::corrupt(&path, "missing"))?;
        if meta.format_version > FORMAT_VERSION {
            return Err(Error::store(
                code::STORE_VERSION,
                format!(
                    "{} has format version {}, this payctl reads up to {FORMAT_VERSION}: upgrade payctl",
                    self.root.display(),
                    meta.format_version
                ),
            ));
        }
        if meta.format_version < 1 {
            return Err(Error::corrupt(&path, "unknown format version"));
        }
        if meta.rebuilding && !rebuild::may_open_rebuilding() {
            return Err(rebuild::interrupted(&self.root));
        }
        Ok(meta.format_version)
    }

    fn lock_exclusive(&mut self) -> Result<()> {
        if self.mode != Mode::Exclusive {
            self.lock.relock(Mode::Exclusive, &self.wait)?;
            self.mode = Mode::Exclusive;
        }
        Ok(())
    }

    /// Bring a store of an earlier format version to [`FORMAT_VERSION`] in
    /// one journaled commit (all or nothing), whatever command opened it.
    /// From 1: the key index is rebuilt in buckets and the files of the old
    /// one-file-per-key index are removed. From 1 or 2: the attachment index
    /// is built. From 1 to 6: the field indexes are built. All from the
    /// customer records. From 2, 3 or 4: the key buckets larger than
    /// [`keys::SPLIT_BYTES`] are split, from their own lines. From 1 to 5:
    /// the transaction indexes are built from the transaction records.
    /// Upgrade the store, whose `meta.json` says `version`, to
    /// [`FORMAT_VERSION`] (nothing to do when it is that already).
    fn upgrade(&mut self, version: u32, upgrading: impl FnOnce(u32)) -> Result<()> {
        if version == FORMAT_VERSION {
            return Ok(());
        }
        self.lock_exclusive()?;
        // Another payctl may have upgraded it while this one waited for the lock.
        let version = self.format_version()?;
        if version == FORMAT_VERSION {
            return Ok(());
        }
        upgrading(version);
        // (From 7, only the version changes: no record is read.)
        let customers = if version < 7 {
            self.customer_facts()?
        } else {
            Vec::new()
        };
        let mut ops = Vec::new();
        if version < 2 {
            ops = self.key_index_ops(
                customers
                    .iter()
                    .map(|c| (c.summary.customer_key.as_str(), c.id())),
            )?;
        }
        if version < 3 {
            ops.push(Op::Put {
                path: ATTACHMENTS_LOG.into(),
                data: attachments::rebuild(
                    &[],
                    customers
                        .iter()
                        .flat_map(facts::CustomerFacts::attachment_rows),
                ),
            });
        }
        if version < 7 {
            // (Format 7: updates write removal lines; before it, the old
            // values of updated profiles stayed in the field indexes.)
            ops.extend(self.field_index_ops(&customers)?);
        }
        if (2..5).contains(&version) {
            for (rel, p) in keys::files(&self.root)? {
                let bytes = atomic::read_opt(&self.root.join(&rel))?.unwrap_or_default();
                if bytes.len() > keys::split_bytes() && p.len() <= keys::MAX_DEPTH {
                    let end = index::complete(&bytes).len();
                    ops.extend(keys::split(&p, &String::from_utf8_lossy(&bytes[..end])));
                }
            }
        }
        if version < 6 {
            let ordered = self.ordered_txn_summaries(self.readable_txn_summaries()?)?;
            ops.extend(self.txn_index_ops(&ordered)?);
        }
        let meta = Meta {
            format_version: FORMAT_VERSION,
            rebuilding: false,
        };
        ops.push(Op::Put {
            path: META.into(),
            data: String::from_utf8(to_bytes(&meta)).expect("json is utf-8"),
        });
        journal::commit_durable(&self.root, &Journal { ops })
    }

    /// What the indexes hold of every customer record that parses (`store
    /// check` reports the others), the records read one at a time: what an
    /// upgrade and a repair rebuild the indexes from.
    pub(crate) fn customer_facts(&self) -> Result<Vec<facts::CustomerFacts>> {
        let mut out = Vec::new();
        self.each_readable_customer(|c| out.push(facts::CustomerFacts::of(&c)))?;
        Ok(out)
    }

    /// Call `f` with every customer record that parses, one at a time.
    fn each_readable_customer(&self, f: impl FnMut(Customer)) -> Result<()> {
        self.each_readable_record(CUSTOMERS_DIR, Customer::id, f)
    }

    /// Call `f` with every record of `dir` (`customers`, `transactions`)
    /// that parses as a `T`, one at a time, shard by shard: each shard is
    /// opened once and its records read from it (`openat`), not walked to
    /// from the store's root one by one. In `customers`, then the packed
    /// records of the shard that have no file of their own (see [`packs`]),
    /// those whose entry holds the customer (`id_of`) its log names.
    pub(crate) fn each_readable_record<T: DeserializeOwned>(
        &self,
        dir: &str,
        id_of: fn(&T) -> &str,
        mut f: impl FnMut(T),
    ) -> Result<()> {
        let shards = safefs::list(&self.root.join(dir))?.unwrap_or_default();
        let mut opened = packs::Opened::default();
        for (name, t) in shards {
            if t != rustix::fs::FileType::Directory {
                continue;
            }
            let shard = self.root.join(dir).join(name);
            let Some(d) = safefs::Dir::open(&shard, false)? else {
                continue;
            };
            let names = d.names()?;
            for name in &names {
                let file = shard.join(name);
                if atomic::is_temp(&file) || file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let Ok(Some(bytes)) = d.read(name, Some(atomic::RECORD_BYTES)) else {
                    continue;
                };
                if let Ok(r) = serde_json::from_slice::<T>(&bytes) {
                    f(r);
                }
            }
            if dir != CUSTOMERS_DIR {
                continue;
            }
            let Ok(Some(log)) = packs::read_log(&d) else {
                continue;
            };
            let own: std::collections::HashSet<&std::ffi::OsStr> =
                names.iter().map(|n| n.as_os_str()).collect();
            for (_, entry) in packs::log_lines(&log) {
                let Some((cid, place)) = entry else {
                    continue;
                };
                if own.contains(std::ffi::OsStr::new(&format!("{cid}.json"))) {
                    continue;
                }
                if let Ok(bytes) = opened.read(&self.root, place)
                    && let Ok(r) = serde_json::from_slice::<T>(&bytes)
                    && id_of(&r) == cid
                {
                    f(r);
                }
            }
        }
        Ok(())
    }

    /// The operations that make the key index exactly `pairs` of
    /// `(customer_key, id)`: a put of each bucket that holds a key, a delete
    /// of every other file under `index/keys`.
    pub(crate) fn key_index_ops<'a>(
        &self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Vec<Op>> {
        let mut ops = keys::rebuild(pairs);
        let kept = put_paths(&ops);
        for file in list_dir(&self.root.join(KEYS_DIR))? {
            // A directory, or a name that is not UTF-8, is not ours to remove
            // (store check names it).
            let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if file.is_dir() {
                continue;
            }
            let rel = format!("{KEYS_DIR}/{name}");
            if !kept.contains(&rel) {
                ops.push(Op::Delete { path: rel });
            }
        }
        // The buckets of the levels below (those of the first level are
        // all among the files above).
        for (rel, p) in keys::files(&self.root)? {
            if p.len() > 1 && !kept.contains(&rel) {
                ops.push(Op::Delete { path: rel });
            }
        }
        Ok(ops)
    }

    /// The operations that make the field indexes exactly those of
    /// `customers`, in the creation order of the summary log (the order of
    /// `index/profiles.ids`; customers the log lacks come last, by id):
    /// a put of each bucket that holds a value, a delete of every other
    /// file in the fields' directories.
    pub(crate) fn field_index_ops(&self, customers: &[facts::CustomerFacts]) -> Result<Vec<Op>> {
        let order: HashMap<String, usize> = self
            .profiles()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id, i))
            .collect();
        let mut sorted: Vec<&facts::CustomerFacts> = customers.iter().collect();
        sorted.sort_by(|a, b| {
            let key = |c: &facts::CustomerFacts| {
                (
                    order.get(c.id()).copied().unwrap_or(usize::MAX),
                    c.id().to_string(),
                )
            };
            key(a).cmp(&key(b))
        });
        let summaries: Vec<ProfileSummary> = sorted.iter().map(|c| c.summary.clone()).collect();
        self.field_ops_of(&summaries)
    }

    /// [`Store::field_index_ops`] of summaries already in creation order.
    pub(crate) fn field_ops_of(&self, ordered: &[ProfileSummary]) -> Result<Vec<Op>> {
        let mut ops = fields::rebuild(ordered);
        let kept = put_paths(&ops);
        for field in fields::Field::ALL {
            for file in list_dir(&self.root.join(field.dir()))? {
                let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                if file.is_dir() {
                    continue;
                }
                let rel = format!("{}/{name}", field.dir());
                if !kept.contains(&rel) {
                    ops.push(Op::Delete { path: rel });
                }
            }
        }
        Ok(ops)
    }

    /// The summaries of the transactions `txns` in creation order: the
    /// order of the summary log, then those it lacks by creation time and id.
    pub(crate) fn ordered_txn_summaries(
        &self,
        txns: Vec<(String, TxnSummary)>,
    ) -> Result<Vec<TxnSummary>> {
        let order: HashMap<String, usize> = self
            .txns()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id, i))
            .collect();
        let mut keyed: Vec<((usize, String, String), TxnSummary)> = txns
            .into_iter()
            .map(|(created, s)| {
                let at = order.get(&s.id).copied().unwrap_or(usize::MAX);
                ((at, created, s.id.clone()), s)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(keyed.into_iter().map(|(_, s)| s).collect())
    }

    /// The operations that make the transaction indexes exactly those of
    /// `ordered` (in creation order): a put of each file that holds an
    /// entry, a delete of every other file under their directories.
    pub(crate) fn txn_index_ops(&self, ordered: &[TxnSummary]) -> Result<Vec<Op>> {
        let mut ops = txn_index::rebuild_ops(ordered);
        let kept = put_paths(&ops);
        for dir in txn_index::dirs() {
            for rel in derived_files(&self.root, dir)? {
                if !kept.contains(&rel) {
                    ops.push(Op::Delete { path: rel });
                }
            }
        }
        Ok(ops)
    }

    /// Finish a write that a killed process left half-applied, and remove the
    /// temp journal of one killed before its commit point (under a shared
    /// lock no writer is live, so a temp journal seen then is always stale;
    /// removing it here means any next command, a read too, leaves the store
    /// clean for `store check`).
    ///
    /// A reader (`wanted` shared) that cannot write the replay (a full disk,
    /// a failing device) reads through it instead: the files the journal
    /// changes are computed in memory ([`journal::overlay`]) and read from
    /// there, so reads work and see the committed change while nothing can
    /// be written. A writer gets the error: it could not write either.
    ///
    /// Whether there was anything to finish or read through (`false`: the
    /// store's files are as the last commit left them).
    fn recover(&mut self, wanted: Mode) -> Result<bool> {
        let journal = self.root.join(journal::JOURNAL);
        let temp = format!("{}{}", journal::JOURNAL, atomic::TEMP_SUFFIX);
        // Point commits' changes applied before the machine restarted may
        // not be on the disk: replayed like a journal (see
        // `journal::commit_applied`); this boot's are in the files already.
        if self.lock.lstat_entry(journal::JOURNAL)?.is_none()
            && self.lock.lstat_entry(&temp)?.is_none()
            && (self.lock.lstat_entry(journal::APPLIED)?.is_none()
                || !journal::applied_is_stale(&self.root)?)
        {
            return Ok(false);
        }
        let replayed = match self.lock_exclusive() {
            Ok(()) => self
                .clear_layout()
                .and_then(|()| journal::recover(&self.root).map(|_| ())),
            // A reader on a read-only file system, or in a store another
            // user owns, cannot replay either: it takes its shared lock
            // again and reads through the journal.
            Err(e) if wanted == Mode::Shared && read_through(&e) => {
                self.lock.relock(Mode::Shared, &self.wait)?;
                Err(e)
            }
            Err(e) => return Err(e),
        };
        match replayed {
            Ok(()) => Ok(true),
            Err(e) if wanted == Mode::Shared && read_through(&e) => {
                self.overlay = Some(journal::overlay(&self.root)?);
                let why = e.first_message();
                let why = why.split(" (while completing").next().unwrap_or_default();
                journal::warn(format!(
                    "a change committed earlier is not completed on disk yet ({why}); \
                     this answer includes it, read from {} without writing anything",
                    journal.display()
                ));
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// The content of `path` as this store shows it: from the overlay of
    /// a pending journal (see [`JsonStore::recover`]) when it names the file,
    /// else from the disk; `None` when it does not exist.
    fn read_bytes(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(c) = self.overlaid(path)? {
            return Ok(c);
        }
        atomic::read_opt(path)
    }

    /// The content of `path` as the open group's staged changes or the
    /// overlay of a pending journal leave it, when they name it.
    fn overlaid(&self, path: &Path) -> Result<Option<Option<Vec<u8>>>> {
        let Some(rel) = path.strip_prefix(&self.root).ok().and_then(|r| r.to_str()) else {
            return Ok(None);
        };
        if let Some(group) = &self.group {
            return group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .read(&self.root, rel);
        }
        Ok(self.overlay.as_ref().and_then(|o| o.get(rel)).cloned())
    }

    /// Start staging this writer's commits for a group commit (see
    /// [`group::GroupCommit`]).
    pub(crate) fn start_group(&mut self) -> Result<()> {
        // The group's journal holds only its own changes: what point
        // commits left unsynced is made durable first.
        journal::finish_pending(&self.root)?;
        self.group = Some(Default::default());
        Ok(())
    }

    /// The length of the complete lines of `rel` as committed, the open
    /// group's staged changes included.
    fn committed_len(&self, rel: &str) -> Result<u64> {
        if let Some(group) = &self.group
            && let Some(n) = group.lock().unwrap_or_else(|e| e.into_inner()).len(rel)
        {
            return Ok(n);
        }
        index::complete_len(&self.root.join(rel))
    }

    /// Commit `journal`, or stage it in the open group.
    fn commit_journal(&self, journal: Journal) -> Result<()> {
        match &self.group {
            Some(group) => {
                group
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .stage(journal.ops);
                Ok(())
            }
            None => journal::commit(&self.root, &journal),
        }
    }

    /// A file or a link where a directory of derived data belongs would
    /// fail a replay (and so every command): it holds nothing, so a writer
    /// removes it before replaying, and `store check` then reports what the
    /// queue and the indexes miss.
    fn clear_layout(&self) -> Result<()> {
        let dirs = ["index", KEYS_DIR, QUEUE_DIR]
            .into_iter()
            .chain(fields::Field::ALL.iter().map(|f| f.dir()))
            .chain(txn_index::dirs());
        for d in dirs {
            let p = self.root.join(d);
            if let Some(st) = safefs::lstat(&p)?
                && rustix::fs::FileType::from_raw_mode(st.st_mode)
                    != rustix::fs::FileType::Directory
            {
                atomic::remove_file(&p)?;
            }
        }
        Ok(())
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// An empty scratch file for a command that must read its input twice
    /// (`profile import`): in the store, mode 0600 (it may hold SSNs, and
    /// `/tmp` may be memory), unlinked at once so that it is gone when the
    /// command ends however it ends. Its temp-file name is removed by
    /// `store check --repair` if payctl dies between the create and the unlink.
    pub fn scratch_file(&self) -> Result<std::fs::File> {
        let path = self
            .root
            .join(format!("import-scratch{}", atomic::TEMP_SUFFIX));
        let _ = std::fs::remove_file(&path);
        atomic::unlinked_scratch(&path)
    }

    /// Whether `index/profiles.ids` is there (a store written by an earlier
    /// payctl has only the summary log; then it is missing while the log is not
    /// empty).
    fn profile_ids_built(&self) -> Result<bool> {
        let ids = self.root.join(PROFILE_IDS);
        if let Some(group) = &self.group
            && let Some(e) = group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .exists(PROFILE_IDS)
        {
            return Ok(e);
        }
        if let Some(c) = self.overlaid(&ids)? {
            return Ok(c.is_some());
        }
        if safefs::exists(&ids)? {
            return Ok(true);
        }
        let log = self.root.join(PROFILES_LOG);
        if let Some(c) = self.overlaid(&log)? {
            return Ok(index::complete(&c.unwrap_or_default()).is_empty());
        }
        Ok(index::complete_len(&log)? == 0)
    }

    /// Build `index/profiles.ids` from the summary log when it is missing
    /// (a store written by an earlier payctl): call before building a
    /// transaction that creates customers ([`JsonTx::new_customer`] appends to
    /// it). A commit of its own; the store must be open for writing.
    pub fn ensure_profile_ids(&self) -> Result<()> {
        if self.profile_ids_built()? {
            return Ok(());
        }
        let mut data = String::new();
        for s in self.profiles()? {
            data.push_str(&index::id_record(&s.id));
        }
        let journal = Journal {
            ops: vec![Op::Put {
                path: PROFILE_IDS.into(),
                data,
            }],
        };
        self.commit_journal(journal)
    }

    fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<Option<T>> {
        let bytes = match self.overlaid(path)? {
            Some(c) => c,
            None => atomic::read_record(path)?,
        };
        parse_record(path, bytes)
    }

    pub fn catalog(&self) -> Result<Catalog> {
        let path = self.root.join(CATALOG);
        self.read_json(&path)?
            .ok_or_else(|| Error::corrupt(&path, "missing"))
    }

    pub(crate) fn customer_rel(id: &str) -> String {
        format!("{CUSTOMERS_DIR}/{}/{id}.json", id::shard(id))
    }

    pub(crate) fn txn_rel(id: &str) -> String {
        format!("{TXNS_DIR}/{}/{id}.json", id::shard(id))
    }

    /// The customer aggregate `id`; `None` when it does not exist or the id is malformed.
    pub fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        if !id::is_valid(id::CUSTOMER, cid) {
            return Ok(None);
        }
        let path = self.root.join(Self::customer_rel(cid));
        // Without staged changes to read through, the shard's directory is
        // reached once for the customer's file and its log of packed
        // records (a page of a list reads fifty customers).
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(None);
        };
        let shard = if self.group.is_none() && self.overlay.is_none() {
            match safefs::Dir::open(dir, false)? {
                Some(d) => Some(d),
                None => return Ok(None),
            }
        } else {
            None
        };
        let c: Option<Customer> = match &shard {
            Some(d) => parse_record(&path, d.read(name, Some(atomic::RECORD_BYTES))?)?,
            None => self.read_json(&path)?,
        };
        match c {
            Some(c) if c.id() != cid => Err(Error::corrupt(&path, "holds another customer")),
            Some(c) => Ok(Some(c)),
            None => self.packed_customer_in(cid, shard.as_ref()),
        }
    }

    /// The customer `cid` from a pack (see [`packs`]), when it has no file
    /// of its own: its shard's log looked up, its entry read and checked.
    fn packed_customer(&self, cid: &str) -> Result<Option<Customer>> {
        self.packed_customer_in(cid, None)
    }

    /// [`Self::packed_customer`], the log read in `shard` (the customer's
    /// shard directory, opened) when it is given.
    fn packed_customer_in(
        &self,
        cid: &str,
        shard: Option<&safefs::Dir>,
    ) -> Result<Option<Customer>> {
        let log_path = self.root.join(packs::log_rel(cid));
        let log = match shard {
            Some(d) => packs::read_log(d)?,
            None => match self.overlaid(&log_path)? {
                Some(c) => c,
                None => safefs::read(&log_path, Some(packs::LOG_BYTES))?,
            },
        };
        let Some(place) = log.as_deref().and_then(|l| packs::find(l, cid)) else {
            return Ok(None);
        };
        let pack_path = self.root.join(packs::pack_rel(place.pack));
        let missing = || {
            Error::corrupt(
                &log_path,
                format!("names pack {} for {cid}, which does not exist", place.pack),
            )
        };
        let c = match self.overlaid(&pack_path)? {
            Some(bytes) => {
                let bytes = bytes.ok_or_else(missing)?;
                let entry = packs::entry_in(&bytes, &pack_path, place)?;
                packs::customer_of(entry, &pack_path, place, cid)?
            }
            None => {
                let f = packs::open(&self.root, place.pack)?.ok_or_else(missing)?;
                let entry = packs::read_entry(&f, &pack_path, place)?;
                packs::customer_of(&entry, &pack_path, place, cid)?
            }
        };
        Ok(Some(c))
    }

    pub fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let path = self.root.join(Self::txn_rel(tid));
        let t: Option<TxnFile> = self.read_json(&path)?;
        match t {
            Some(t) if t.transaction.transaction_id != tid => {
                Err(Error::corrupt(&path, "holds another transaction"))
            }
            t => Ok(t),
        }
    }

    /// The customer that holds `key`, if any: the latest entry of the key's
    /// bucket (the first file on its path, see [`keys`]) whose customer does
    /// hold it (the aggregates are the truth).
    pub fn key_owner(&self, key: &str) -> Result<Option<String>> {
        for depth in 0..=keys::MAX_DEPTH {
            let path = self.root.join(keys::path_at(key, depth));
            let found = match self.overlaid(&path)? {
                Some(staged) => staged.map(|bucket| {
                    keys::owners(&bucket, key)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                }),
                // As committed: streamed (see [`safefs::each_lines_piece`]),
                // the owners in file order, then latest first.
                None => {
                    let mut owners = Vec::new();
                    safefs::each_lines_piece(&path, safefs::LINES_BUFFER, &mut |piece| {
                        let mut here: Vec<String> =
                            keys::owners(piece, key).map(str::to_string).collect();
                        here.reverse();
                        owners.append(&mut here);
                        Ok(())
                    })?
                    .map(|_| {
                        owners.reverse();
                        owners
                    })
                }
            };
            if let Some(owners) = found {
                return self.holder(key, owners.iter().map(String::as_str));
            }
        }
        Ok(None)
    }

    /// The first of `candidates` whose record holds `key`.
    fn holder<'a>(
        &self,
        key: &str,
        candidates: impl Iterator<Item = &'a str>,
    ) -> Result<Option<String>> {
        for owner in candidates {
            if let Some(c) = self.customer(owner)?
                && c.profile.customer_key == key
            {
                return Ok(Some(owner.to_string()));
            }
        }
        Ok(None)
    }

    /// The holders of many keys at once (a batch of an import), in the
    /// order of `keys`: each bucket they fall in is read and scanned once,
    /// whatever the number of keys in it, and no more of the index is kept
    /// than the owners of the keys asked (memory grows with the batch, not
    /// with the store).
    pub fn key_owners(&self, wanted: &[&str]) -> Result<Vec<Option<String>>> {
        let mut out = vec![None; wanted.len()];
        // A key's bucket is the first file on its path that exists (see
        // [`keys`], and [`Self::key_owner`] for one key): the keys whose
        // file at one level is missing (split into the level below) are
        // looked for one level down.
        let mut pending: Vec<usize> = (0..wanted.len()).collect();
        // Without staged changes to read through, each bucket is read in
        // its directory opened once (see [`safefs::Dirs`]).
        let mut dirs =
            (self.group.is_none() && self.overlay.is_none()).then(|| safefs::Dirs::new(&self.root));
        for depth in 0..=keys::MAX_DEPTH {
            if pending.is_empty() {
                break;
            }
            let mut by_bucket: HashMap<String, Vec<usize>> = HashMap::new();
            for i in pending.drain(..) {
                by_bucket
                    .entry(keys::path_at(wanted[i], depth))
                    .or_default()
                    .push(i);
            }
            for (rel, idx) in by_bucket {
                let bucket = match &mut dirs {
                    Some(dirs) => dirs.read(&rel, None)?,
                    None => self.read_bytes(&self.root.join(&rel))?,
                };
                match bucket {
                    Some(bucket) => self.owners_in(&bucket, wanted, &idx, &mut out)?,
                    // No file: the bucket was split, or no key of it was
                    // ever written. On the disk alone (no staged split to
                    // read through) the directory tells which, so that
                    // the keys of a new store are not looked for at every
                    // level.
                    None => {
                        let split = match &mut dirs {
                            Some(dirs) => {
                                let p = keys::prefix(wanted[idx[0]]);
                                dirs.is_dir(&keys::prefix_dir(&p[..=depth]))?
                            }
                            None => true,
                        };
                        if split {
                            pending.extend(idx);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// The holders of the keys `wanted[i]` for `i` in `idx`, all of one
    /// `bucket`, into `out` (see [`Self::key_owners`]).
    fn owners_in(
        &self,
        bucket: &[u8],
        wanted: &[&str],
        idx: &[usize],
        out: &mut [Option<String>],
    ) -> Result<()> {
        // Each wanted key's owners, in the order of their lines.
        let mut owners: HashMap<&str, Vec<&str>> =
            idx.iter().map(|&i| (wanted[i], Vec::new())).collect();
        let end = bucket
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        for line in bucket[..end].split(|&b| b == b'\n') {
            let Some(sp) = line.iter().position(|&b| b == b' ') else {
                continue;
            };
            let (Ok(key), Ok(owner)) = (
                std::str::from_utf8(&line[..sp]),
                std::str::from_utf8(&line[sp + 1..]),
            ) else {
                continue;
            };
            if owner.is_empty() || owner.contains(' ') {
                continue;
            }
            if let Some(list) = owners.get_mut(key) {
                list.push(owner);
            }
        }
        for &i in idx {
            let list = owners.get(wanted[i]).map_or(&[][..], Vec::as_slice);
            if !list.is_empty() {
                out[i] = self.holder(wanted[i], list.iter().rev().copied())?;
            }
        }
        Ok(())
    }

    /// The whole key index read once, for many lookups (an import checks
    /// every line's key: one read of each bucket instead of one per line).
    pub fn key_index(&self) -> Result<JsonKeyIndex<'_>> {
        let mut owners: HashMap<String, Vec<String>> = HashMap::new();
        for (rel, p) in keys::files(&self.root)? {
            let Some(bytes) = self.read_bytes(&self.root.join(rel))? else {
                continue;
            };
            for (key, owner) in keys::parse_bucket(&p, &bytes).entries {
                owners.entry(key).or_default().push(owner);
            }
        }
        Ok(JsonKeyIndex {
            store: self,
            owners,
        })
    }

    /// Profile summaries in creation order, each in its latest version.
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        let path = self.root.join(PROFILES_LOG);
        if let Some(c) = self.overlaid(&path)? {
            return index::read_log_bytes(&path, &c.unwrap_or_default(), |s: &ProfileSummary| {
                &s.id
            });
        }
        index::read_log(&path, |s: &ProfileSummary| &s.id)
    }

    /// The profiles whose `field` has had `value` (normalized, see
    /// [`fields::Field::normal`]), from the field's index: `(position in
    /// creation order, id)`, each id once, in creation order. One bucket read;
    /// an entry may be stale (the profile changed since): the caller
    /// confirms each against the record.
    pub fn profiles_with(&self, field: fields::Field, value: &str) -> Result<Vec<(usize, String)>> {
        let path = self.root.join(fields::bucket_rel(field, value));
        let Some(bucket) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        fields::matches(&bucket, value).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<position> <customer id> <value as a JSON string>`"),
            )
        })
    }

    /// Number of customer profiles (from `index/profiles.ids`).
    pub fn profile_count(&self) -> Result<usize> {
        if !self.profile_ids_built()? {
            return Ok(self.profiles()?.len());
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(c.map_or(0, |c| c.len() / index::ID_RECORD));
        }
        index::ids_count(&path)
    }

    /// The number of records of `index/profiles.ids` (see
    /// [`Store::created_count`]); `None` before a first commit has built it.
    pub fn ids_count(&self) -> Result<Option<usize>> {
        if !self.profile_ids_built()? {
            return Ok(None);
        }
        self.profile_count().map(Some)
    }

    /// The profile ids at positions `start..end` of creation order.
    pub fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        if !self.profile_ids_built()? {
            let all = self.profiles()?;
            let end = end.min(all.len());
            return Ok(all
                .get(start.min(end)..end)
                .unwrap_or_default()
                .iter()
                .map(|s| s.id.clone())
                .collect());
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return index::ids_range_bytes(&path, &c.unwrap_or_default(), start, end);
        }
        index::ids_range(&path, start, end)
    }

    /// The position of profile `cid` in creation order.
    pub fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        if !self.profile_ids_built()? {
            return Ok(self.profiles()?.iter().position(|s| s.id == cid));
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(index::ids_position_bytes(&c.unwrap_or_default(), cid));
        }
        index::ids_position(&path, cid)
    }

    /// The customers with a record in `program_id`, in the order the records
    /// were created (from the attachment index).
    pub fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        let path = self.root.join(ATTACHMENTS_LOG);
        let log = match self.overlaid(&path)? {
            Some(c) => index::complete(&c.unwrap_or_default()).to_vec(),
            None => index::complete_lines(&path)?,
        };
        attachments::customers_of(&log, program_id).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<program id> <customer id>`"),
            )
        })
    }

    /// Transaction summaries in creation order, each in its latest version.
    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        let path = self.root.join(TXNS_LOG);
        if let Some(c) = self.overlaid(&path)? {
            return index::read_log_bytes(&path, &c.unwrap_or_default(), |s: &TxnSummary| &s.id);
        }
        index::read_log(&path, |s: &TxnSummary| &s.id)
    }

    /// The number of transactions (records of `index/transactions.ids`).
    pub fn txn_count(&self) -> Result<usize> {
        let path = self.root.join(txn_index::TXN_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(c.map_or(0, |c| c.len() / index::ID_RECORD));
        }
        index::ids_count(&path)
    }

    /// The creation-order position of transaction `tid` (from the position
    /// map: one small bucket read).
    pub fn txn_position(&self, tid: &str) -> Result<Option<usize>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let path = self.root.join(txn_index::position_rel(tid));
        Ok(self
            .read_bytes(&path)?
            .and_then(|b| txn_index::find_position(&b, tid)))
    }

    /// The position of `tid` read from `index/transactions.ids` itself (a
    /// scan: only when the position map lacks it, a damaged index).
    pub fn txn_position_scan(&self, tid: &str) -> Result<Option<usize>> {
        let path = self.root.join(txn_index::TXN_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(index::ids_position_bytes(&c.unwrap_or_default(), tid));
        }
        index::ids_position(&path, tid)
    }

    /// The transaction ids at `positions` (from `index/transactions.ids`:
    /// one read each).
    pub fn txn_ids_at(&self, positions: &[usize]) -> Result<Vec<String>> {
        let path = self.root.join(txn_index::TXN_IDS);
        let overlaid = self.overlaid(&path)?;
        let mut out = Vec::with_capacity(positions.len());
        for &p in positions {
            let got = match &overlaid {
                Some(c) => {
                    index::ids_range_bytes(&path, c.as_deref().unwrap_or_default(), p, p + 1)?
                }
                None => index::ids_range(&path, p, p + 1)?,
            };
            match got.into_iter().next() {
                Some(id) => out.push(id),
                None => {
                    return Err(Error::corrupt(
                        &path,
                        format!(
                            "has no transaction at position {p}, which an index names (run `payctl store check --repair`)"
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The positions, sorted, of the transactions that match `q`.
    pub fn txns_matching(&self, q: &TxnQuery) -> Result<Vec<usize>> {
        let mut lists = Vec::new();
        if let Some(s) = q.status {
            lists.push(self.txn_positions_with_status(s)?);
        }
        for (kind, values) in [
            (txn_index::Kind::Template, &q.templates),
            (txn_index::Kind::Program, &q.programs),
        ] {
            let Some(values) = values else { continue };
            let mut any = Vec::new();
            for v in values {
                any.extend(self.txn_positions_with(kind, v)?);
            }
            any.sort_unstable();
            any.dedup();
            lists.push(any);
        }
        Ok(txn_index::intersect(lists))
    }

    /// The positions, sorted, of the transactions whose status is `status`
    /// now: every chunk of its status index (as many reads as chunks of
    /// [`txn_index::CHUNK`] positions; a chunk without one is no file).
    pub fn txn_positions_with_status(&self, status: u32) -> Result<Vec<usize>> {
        let chunks = self.txn_count()?.div_ceil(txn_index::CHUNK);
        let read = |chunk: usize, dir: Option<&safefs::Dir>| -> Result<Vec<usize>> {
            let rel = txn_index::status_chunk_rel(status, chunk);
            let path = self.root.join(&rel);
            let bytes = match dir {
                Some(d) => {
                    let name = rel.rsplit_once('/').map_or(rel.as_str(), |(_, n)| n);
                    d.read(std::ffi::OsStr::new(name), None)?
                }
                None => self.read_bytes(&path)?,
            };
            let Some(bytes) = bytes else {
                return Ok(Vec::new());
            };
            txn_index::status_positions(&bytes).map_err(|n| {
                Error::corrupt(
                    &path,
                    format!("line {n} is not `<position> <transaction id>`"),
                )
            })
        };
        // With staged changes to read through (a group commit, a pending
        // journal), each chunk is read as any file is.
        if self.group.is_some() || self.overlay.is_some() {
            let mut out = Vec::new();
            for chunk in 0..chunks {
                out.extend(read(chunk, None)?);
            }
            return Ok(out);
        }
        // Otherwise the status's directory is opened once and each chunk is
        // one `openat` in it; a status that a tenth of a million
        // transactions have is about a hundred thousand lines in a thousand
        // chunks, read by a few threads (the chunks are in position order,
        // so their parts, joined in order, are sorted).
        let rel = txn_index::status_chunk_rel(status, 0);
        let parent = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let Some(dir) = safefs::Dir::open(&self.root.join(parent), false)? else {
            return Ok(Vec::new());
        };
        let part = |range: std::ops::Range<usize>| -> Result<Vec<usize>> {
            let mut out = Vec::new();
            for chunk in range {
                out.extend(read(chunk, Some(&dir))?);
            }
            Ok(out)
        };
        const MIN_PER_THREAD: usize = 128;
        if chunks < 2 * MIN_PER_THREAD {
            return part(0..chunks);
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4)
            .min(chunks / MIN_PER_THREAD);
        let per = chunks.div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|i| {
                    let part = &part;
                    s.spawn(move || part(i * per..((i + 1) * per).min(chunks)))
                })
                .collect();
            let mut out = Vec::new();
            for h in handles {
                out.extend(h.join().expect("status index reader")?);
            }
            Ok(out)
        })
    }

    /// The positions, sorted, of the transactions whose template or program
    /// (`kind`) is `value`: one bucket read.
    pub fn txn_positions_with(&self, kind: txn_index::Kind, value: &str) -> Result<Vec<usize>> {
        let path = self.root.join(txn_index::value_rel(kind, value));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        txn_index::value_positions(&bytes, value).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<position> <transaction id> <value as a JSON string>`"),
            )
        })
    }

    /// The worker's pending items, oldest first.
    pub fn queue(&self) -> Result<Vec<QueueItem>> {
        let mut queue = index::read_queue(&self.root.join(QUEUE_DIR))?;
        if let Some(overlay) = &self.overlay {
            let prefix = format!("{QUEUE_DIR}/");
            for (rel, content) in overlay {
                let Some(name) = rel.strip_prefix(&prefix) else {
                    continue;
                };
                queue.retain(|q| q.file_name() != name);
                if content.is_some()
                    && let Some(q) = QueueItem::parse(name)
                {
                    queue.push(q);
                }
            }
            queue.sort_by_key(QueueItem::file_name);
        }
        if let Some(group) = &self.group {
            let staged = group.lock().unwrap_or_else(|e| e.into_inner()).queue();
            for (name, present) in staged {
                queue.retain(|q| q.file_name() != name);
                if present && let Some(q) = QueueItem::parse(&name) {
                    queue.push(q);
                }
            }
            queue.sort_by_key(QueueItem::file_name);
        }
        Ok(queue)
    }

    /// Whether `item` is still in the queue.
    pub fn is_queued(&self, item: &QueueItem) -> bool {
        safefs::exists(&self.root.join(QUEUE_DIR).join(item.file_name())).unwrap_or(false)
    }

    /// The live (unexpired) idempotency record of `key` at `now` (Unix
    /// seconds), if any: one bucket read.
    pub fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        let path = self.root.join(idempotency::bucket_rel(key));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(None);
        };
        let records = idempotency::parse(&bytes)
            .map_err(|n| Error::corrupt(&path, format!("line {n} is not an idempotency record")))?;
        Ok(idempotency::find(&records, key, now).cloned())
    }

    /// Every live idempotency record (for `store migrate`), bucket by bucket.
    pub fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        let mut out = Vec::new();
        for b in 0..=u8::MAX {
            let path = self.root.join(idempotency::bucket_path(b));
            let Some(bytes) = self.read_bytes(&path)? else {
                continue;
            };
            let records = idempotency::parse(&bytes).map_err(|n| {
                Error::corrupt(&path, format!("line {n} is not an idempotency record"))
            })?;
            out.extend(records.into_iter().filter(|r| !r.expired(now)));
        }
        Ok(out)
    }

    /// Start a write transaction. Only a store opened for writing may write.
    pub fn begin(&self) -> JsonTx<'_> {
        assert_eq!(self.mode, Mode::Exclusive, "write on a read-locked store");
        JsonTx {
            store: self,
            ops: Vec::new(),
            puts: HashMap::new(),
            appends: HashMap::new(),
            customers: BTreeMap::new(),
            customer_order: Vec::new(),
            created: Default::default(),
            serialized: HashMap::new(),
            txns: BTreeMap::new(),
            txn_order: Vec::new(),
            new_profiles: Vec::new(),
            new_txns: Vec::new(),
            txn_moves: BTreeMap::new(),
            api: Default::default(),
        }
    }
}

/// The key index in memory (see [`JsonStore::key_index`]).
pub struct JsonKeyIndex<'s> {
    store: &'s JsonStore,
    /// Each key's owners in the order of their lines.
    owners: HashMap<String, Vec<String>>,
}

impl JsonKeyIndex<'_> {
    /// What [`JsonStore::key_owner`] answers, without reading the index again.
    pub fn owner(&self, key: &str) -> Result<Option<String>> {
        let Some(owners) = self.owners.get(key) else {
            return Ok(None);
        };
        self.store
            .holder(key, owners.iter().rev().map(String::as_str))
    }
}

/// Whether `root` holds nothing but what [`JsonStore::create`] makes before it
/// writes `meta.json` (the lock, `catalog.json`, the empty layout directories,
/// temp files): a first use killed halfway is finished by the next payctl
/// instead of leaving a directory that is refused as "not a payctl store".
/// Anything else (a file of the user's, a record) means the directory is not
/// ours to take over.
fn not_a_store(root: &Path) -> Error {
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
fn refuse_foreign(root: &Path) -> Result<()> {
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
fn is_init_journal(path: &Path) -> bool {
    let Ok(Some(bytes)) = atomic::read_opt(path) else {
        return false;
    };
    serde_json::from_slice::<Journal>(&bytes).is_ok_and(|j| {
        j.ops
            .iter()
            .all(|op| matches!(op, Op::Put { path, .. } if path == CATALOG || path == META))
    })
}

fn half_created(root: &Path) -> Result<bool> {
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
        .map_err(|e| Error::io(root, e))?;
    // (Tests widen the window in which another payctl finishes the store.)
    fault::slow("store-listed");
    for e in entries {
        let p = e.path();
        let name = e.file_name();
        let ours = name == LOCK
            || atomic::is_temp(&p)
            || (name == CATALOG && e.file_type().is_ok_and(|t| t.is_file()))
            || (name == journal::JOURNAL
                && e.file_type().is_ok_and(|t| t.is_file())
                && is_init_journal(&p))
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
fn list_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    use rustix::fs::FileType;
    Ok(safefs::list(dir)?
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, t)| matches!(t, FileType::RegularFile | FileType::Directory))
        .map(|(n, _)| dir.join(n))
        .collect())
}

/// The store-relative paths of the regular files under `dir` (relative),
/// at any depth, temp files aside (what a rebuild may remove).
fn derived_files(root: &Path, dir: &str) -> Result<Vec<String>> {
    use rustix::fs::FileType;
    let mut out = Vec::new();
    let mut todo = vec![dir.to_string()];
    while let Some(d) = todo.pop() {
        for (name, t) in safefs::list(&root.join(&d))?.unwrap_or_default() {
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

/// A write transaction: collects the aggregates put into it and the other
/// operations, applies them all or none on [`JsonTx::commit`]. Aggregates
/// put in it are read back by [`JsonTx::customer`] and [`JsonTx::txn`], so
/// one transaction can carry several changes to one record (the worker
/// processes a batch of items in one commit).
///
/// The derived indexes are this transaction's own business: when it is
/// prepared ([`JsonTx::prepare`]), each aggregate put into it is compared
/// with the version the store holds, and the index lines that the change
/// calls for are added ([`JsonTx::derive`]): for a new profile its key, its
/// summary, its place in creation order and its field index lines; for an
/// updated one its new summary and new field values (and its key, were it
/// to change); for a new profile-program record its attachment index line;
/// for a new or changed transaction its summary ([`JsonTx::txn_changed`]).
pub struct JsonTx<'s> {
    store: &'s JsonStore,
    /// The journal's operations in order; `None` where a later put of the
    /// same path replaced one.
    ops: Vec<Option<Op>>,
    /// Path of each live put: its place in `ops`.
    puts: HashMap<String, usize>,
    /// Path of each append: its place in `ops`.
    appends: HashMap<String, usize>,
    customers: BTreeMap<String, Customer>,
    /// The ids of `customers` in the order they were first put.
    customer_order: Vec<String>,
    /// The customers created by [`JsonTx::new_customer`] (not read back
    /// from the store to find out).
    created: std::collections::HashSet<String>,
    /// The records of new customers given already serialized
    /// ([`JsonTx::new_customer_serialized`]), by id: written as given.
    serialized: HashMap<String, String>,
    txns: BTreeMap<String, TxnFile>,
    /// The ids of `txns` in the order they were first put (the creation
    /// order of the new ones).
    txn_order: Vec<String>,
    /// Summaries of the customers created in this transaction, in order:
    /// their field index lines are written by [`JsonTx::prepare`], which
    /// knows their positions.
    new_profiles: Vec<ProfileSummary>,
    /// Summaries of the transactions created in this transaction, in order
    /// (their index lines are written by [`JsonTx::prepare`], which knows
    /// their positions), each in its latest version.
    new_txns: Vec<TxnSummary>,
    /// Stored transactions whose status changed: `(status as stored, status
    /// now)`, applied to the status index by [`JsonTx::prepare`].
    txn_moves: BTreeMap<String, (u32, u32)>,
    /// The API keys and their use as this transaction leaves them.
    api: api_keys::Pending,
}

impl JsonTx<'_> {
    fn put(&mut self, rel: String, bytes: Vec<u8>) {
        let data = String::from_utf8(bytes).expect("json is utf-8");
        if let Some(i) = self.puts.insert(rel.clone(), self.ops.len()) {
            self.ops[i] = None;
        }
        self.ops.push(Some(Op::Put { path: rel, data }));
    }

    /// Append `line` to `rel`. The length the file had before the
    /// transaction (what a replay truncates to) is taken when the transaction
    /// is prepared for its commit.
    fn append(&mut self, rel: &str, line: &str) -> Result<()> {
        if let Some(&i) = self.appends.get(rel)
            && let Some(Op::Append { data, .. }) = &mut self.ops[i]
        {
            data.push_str(line);
            return Ok(());
        }
        self.appends.insert(rel.to_string(), self.ops.len());
        self.ops.push(Some(Op::Append {
            path: rel.to_string(),
            base_len: 0,
            data: line.to_string(),
        }));
        Ok(())
    }

    pub fn put_customer(&mut self, c: &Customer) {
        // A text given with an earlier version is no longer this record's.
        self.serialized.remove(c.id());
        if self
            .customers
            .insert(c.id().to_string(), c.clone())
            .is_none()
        {
            self.customer_order.push(c.id().to_string());
        }
    }

    pub fn put_txn(&mut self, t: &TxnFile) {
        let id = &t.transaction.transaction_id;
        if self.txns.insert(id.clone(), t.clone()).is_none() {
            self.txn_order.push(id.clone());
        }
    }

    /// The customer as this transaction left it, else as stored.
    pub fn customer(&self, id: &str) -> Result<Option<Customer>> {
        match self.customers.get(id) {
            Some(c) => Ok(Some(c.clone())),
            None => self.store.customer(id),
        }
    }

    /// The transaction as this transaction left it, else as stored.
    pub fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        match self.txns.get(id) {
            Some(t) => Ok(Some(t.clone())),
            None => self.store.txn(id),
        }
    }

    pub fn store(&self) -> &JsonStore {
        self.store
    }

    fn set_key(&mut self, key: &str, owner: &str) -> Result<()> {
        self.append(&keys::bucket_rel(key), &keys::line(key, owner))
    }

    fn append_profile(&mut self, s: &ProfileSummary) -> Result<()> {
        let mut line = serde_json::to_string(s).expect("serializes");
        line.push('\n');
        self.append(PROFILES_LOG, &line)
    }

    /// A new profile-program record of `customer_id` in `program_id`: its
    /// line in the attachment index (the record itself is in the customer).
    fn new_attachment(&mut self, program_id: &str, customer_id: &str) -> Result<()> {
        self.append(ATTACHMENTS_LOG, &attachments::line(program_id, customer_id))
    }

    /// The derived data of a transaction created (`before` is `None`) or
    /// changed from `before` to `after` (summaries): its summary line, and
    /// its entries in the transaction indexes ([`txn_index`]), written in
    /// this transaction's commit. A new transaction gets its position and
    /// its lines when the commit is prepared; a status change moves its
    /// entry of the status index then. (A transaction's template and
    /// program never change.)
    pub fn txn_changed(&mut self, before: Option<&TxnSummary>, after: &TxnSummary) -> Result<()> {
        if before == Some(after) {
            return Ok(());
        }
        let mut line = serde_json::to_string(after).expect("serializes");
        line.push('\n');
        self.append(TXNS_LOG, &line)?;
        if let Some(new) = self.new_txns.iter_mut().find(|s| s.id == after.id) {
            *new = after.clone();
            return Ok(());
        }
        match before {
            None => self.new_txns.push(after.clone()),
            Some(b) => {
                self.txn_moves
                    .entry(after.id.clone())
                    .or_insert((b.status_id, b.status_id))
                    .1 = after.status_id;
            }
        }
        Ok(())
    }

    /// The transaction index lines of this transaction's new transactions
    /// and status changes (see [`JsonTx::txn_changed`]), as the store is now.
    fn prepare_txn_index(&mut self) -> Result<()> {
        // Status index: the lines each chunk gains and the ids it loses.
        let mut adds: BTreeMap<String, String> = BTreeMap::new();
        let mut removes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if !self.new_txns.is_empty() {
            let first = self.store.committed_len(txn_index::TXN_IDS)? as usize / index::ID_RECORD;
            for (i, s) in std::mem::take(&mut self.new_txns).iter().enumerate() {
                let pos = first + i;
                self.append(txn_index::TXN_IDS, &index::id_record(&s.id))?;
                // The status chunk's lines are gathered: a chunk that also
                // loses lines below is written whole.
                let [position, template, program, (status, line)] = txn_index::entries(pos, s);
                for (path, line) in [position, template, program] {
                    self.append(&path, &line)?;
                }
                adds.entry(status).or_default().push_str(&line);
            }
        }
        for (tid, (from, to)) in std::mem::take(&mut self.txn_moves) {
            if from == to {
                continue;
            }
            let pos = match self.store.txn_position(&tid)? {
                Some(p) => p,
                None => self.store.txn_position_scan(&tid)?.ok_or_else(|| {
                    Error::corrupt(
                        &self.store.root.join(txn_index::TXN_IDS),
                        format!("does not list {tid} (run `payctl store check --repair`)"),
                    )
                })?,
            };
            removes
                .entry(txn_index::status_rel(from, pos))
                .or_default()
                .push(tid.clone());
            adds.entry(txn_index::status_rel(to, pos))
                .or_default()
                .push_str(&txn_index::status_line(pos, &tid));
        }
        // A chunk that loses lines is written whole (at most CHUNK lines),
        // or removed when nothing is left; one that only gains is appended to.
        for (rel, gone) in removes {
            let path = self.store.root.join(&rel);
            let bytes = self.store.read_bytes(&path)?.unwrap_or_default();
            let mut text = String::new();
            for l in index::complete(&bytes).split(|&b| b == b'\n') {
                match txn_index::parse_status(l) {
                    Some((_, id)) if gone.iter().any(|g| g == id) => {}
                    Some((pos, id)) => text.push_str(&txn_index::status_line(pos, id)),
                    None => {}
                }
            }
            if let Some(more) = adds.remove(&rel) {
                text.push_str(&more);
            }
            if text.is_empty() {
                if self.store.read_bytes(&path)?.is_some() {
                    if let Some(i) = self.puts.remove(&rel) {
                        self.ops[i] = None;
                    }
                    self.ops.push(Some(Op::Delete { path: rel }));
                }
            } else {
                self.put(rel, text.into_bytes());
            }
        }
        for (rel, lines) in adds {
            self.append(&rel, &lines)?;
        }
        Ok(())
    }

    /// [`JsonTx::new_customer`] whose record `json` is already serialized
    /// (`serde_json::to_string(&c)`; an import serialized it when it
    /// checked the line): written as it is, not serialized again.
    pub fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()> {
        let id = c.id().to_string();
        self.new_customer(c)?;
        self.serialized.insert(id, json);
        Ok(())
    }

    /// A new customer (see [`Tx::new_customer`]): its index lines are
    /// derived when the transaction is prepared. The caller has checked that
    /// the key is free.
    pub fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.serialized.remove(c.id());
        let id = c.id().to_string();
        self.created.insert(id.clone());
        if self.customers.insert(id.clone(), c).is_none() {
            self.customer_order.push(id);
        }
        Ok(())
    }

    /// The index lines of a stored profile whose record stays as it is: its
    /// key, its summary, its place in creation order and its field index
    /// lines, as for a new one (`store check --repair`, see [`rebuild`]).
    pub(crate) fn reindex_customer(&mut self, s: ProfileSummary) -> Result<()> {
        self.set_key(&s.customer_key, &s.id)?;
        self.append_profile(&s)?;
        self.append(PROFILE_IDS, &index::id_record(&s.id))?;
        self.new_profiles.push(s);
        Ok(())
    }

    /// The index lines of a stored transaction whose record stays as it
    /// is, as for a new one (`store check --repair`, see [`rebuild`]; what
    /// [`JsonTx::txn_changed`] does for a new transaction, without looking
    /// for it among this transaction's new ones: a rebuild gives each once).
    pub(crate) fn reindex_txn(&mut self, s: TxnSummary) -> Result<()> {
        let mut line = serde_json::to_string(&s).expect("serializes");
        line.push('\n');
        self.append(TXNS_LOG, &line)?;
        self.new_txns.push(s);
        Ok(())
    }

    /// An idempotency record copied as it is (`store migrate`).
    pub fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        self.append(&idempotency::bucket_rel(&rec.key), &rec.line())
    }

    /// An update of a stored profile from `before` to `after` (summaries):
    /// its new summary line, and for each indexed value that changed a
    /// field index line for the new value and a removal line for the old
    /// one (see [`fields`]).
    fn profile_updated(&mut self, before: &ProfileSummary, after: &ProfileSummary) -> Result<()> {
        if before == after {
            return Ok(());
        }
        self.append_profile(after)?;
        let mut pos = None;
        for field in fields::Field::ALL {
            let old = field.values(before);
            let new = field.values(after);
            let lines = new
                .iter()
                .filter(|v| !old.contains(v))
                .map(|v| (v, false))
                .chain(old.iter().filter(|v| !new.contains(v)).map(|v| (v, true)));
            for (v, removed) in lines.collect::<Vec<_>>() {
                let p = match pos {
                    Some(p) => p,
                    None => {
                        let p = self.position_of(before)?;
                        pos = Some(p);
                        p
                    }
                };
                let line = if removed {
                    fields::removal(p, &after.id, v)
                } else {
                    fields::line(p, &after.id, v)
                };
                self.append(&fields::bucket_rel(field, v), &line)?;
            }
        }
        Ok(())
    }

    /// The creation-order position of the stored profile `s`: from its
    /// e-mail's field index entry (one bucket read), else from
    /// `index/profiles.ids` (a scan, only for a damaged index).
    fn position_of(&self, s: &ProfileSummary) -> Result<usize> {
        let field = fields::Field::Email;
        let found = self
            .store
            .profiles_with(field, &field.normal(&s.email))
            .unwrap_or_default()
            .into_iter()
            .find(|(_, id)| *id == s.id);
        if let Some((p, _)) = found {
            return Ok(p);
        }
        self.store.profile_position(&s.id)?.ok_or_else(|| {
            Error::corrupt(
                &self.store.root.join(PROFILE_IDS),
                format!("does not list {}", s.id),
            )
        })
    }

    /// The index lines of customer `c` (id `id`) put into this
    /// transaction (see [`JsonTx::derive`]).
    fn derive_customer(&mut self, id: &str, c: &Customer) -> Result<()> {
        let before = if self.created.contains(id) {
            None
        } else {
            self.store.customer(id)?
        };
        // New profile-program records, oldest first.
        for a in storage::added_attachments(before.as_ref(), c) {
            self.new_attachment(&a.program_id, c.id())?;
        }
        let after = ProfileSummary::of(&c.profile);
        match before {
            None => {
                self.set_key(&c.profile.customer_key, c.id())?;
                self.append_profile(&after)?;
                self.append(PROFILE_IDS, &index::id_record(c.id()))?;
                self.new_profiles.push(after);
            }
            Some(b) => {
                if b.profile.customer_key != c.profile.customer_key {
                    self.set_key(&c.profile.customer_key, c.id())?;
                }
                self.profile_updated(&ProfileSummary::of(&b.profile), &after)?;
            }
        }
        Ok(())
    }

    /// The index lines that the aggregates put into this transaction call
    /// for, each compared with the version the store holds now (see
    /// [`JsonTx`]).
    fn derive(&mut self) -> Result<()> {
        for id in std::mem::take(&mut self.customer_order) {
            // Taken out while its index lines are added (which need `self`
            // mutably), and put back: a million-line import's chunks are
            // not copied.
            let Some(c) = self.customers.remove(&id) else {
                continue;
            };
            let result = self.derive_customer(&id, &c);
            self.customers.insert(id, c);
            result?;
        }
        for id in std::mem::take(&mut self.txn_order) {
            let Some(t) = self.txns.get(&id) else {
                continue;
            };
            let after = TxnSummary::of(t);
            let before = self.store.txn(&id)?.map(|b| TxnSummary::of(&b));
            if before.as_ref() != Some(&after) {
                self.txn_changed(before.as_ref(), &after)?;
            }
        }
        Ok(())
    }

    pub fn enqueue(&mut self, item: &QueueItem) {
        self.put(format!("{QUEUE_DIR}/{}", item.file_name()), Vec::new());
    }

    pub fn dequeue(&mut self, item: &QueueItem) {
        self.ops.push(Some(Op::Delete {
            path: format!("{QUEUE_DIR}/{}", item.file_name()),
        }));
    }

    pub fn is_empty(&self) -> bool {
        self.ops.iter().all(Option::is_none)
            && self.customers.is_empty()
            && self.txns.is_empty()
            && self.new_txns.is_empty()
            && self.txn_moves.is_empty()
            && self.api.is_empty()
    }

    /// Apply everything durably; on return the change is on disk.
    pub fn commit(self) -> Result<()> {
        self.prepare()?.commit()
    }

    /// Commit a create whose answer is `result` (the new id). When the store
    /// has an idempotency key armed ([`Store::arm_idempotency`]), its record
    /// with this result is written in the same commit.
    pub fn commit_created(mut self, result: &str) -> Result<()> {
        if let Some(a) = self.store.armed.take() {
            let rel = idempotency::bucket_rel(&a.key);
            let path = self.store.root.join(&rel);
            // As the open group leaves it, when there is one.
            let bytes = self.store.read_bytes(&path)?.unwrap_or_default();
            let records = idempotency::parse(&bytes).map_err(|n| {
                Error::corrupt(&path, format!("line {n} is not an idempotency record"))
            })?;
            let rec = idempotency::Record {
                key: a.key,
                fp: a.fp,
                at: a.now,
                result: serde_json::Value::String(result.to_string()),
            };
            match idempotency::write(&records, &rec, a.now) {
                Ok(line) => self.append(&rel, &line)?,
                Err(content) => self.put(rel, content.into_bytes()),
            }
        }
        self.commit()
    }

    /// Fix what the commit depends on in the store as it is now (the
    /// index lines the aggregates call for, the length of each appended
    /// file), leaving the serializing and writing to
    /// [`JsonPrepared::commit`], which may run on another thread while the next
    /// transaction is built. The next transaction must be prepared only
    /// after this one's commit returned.
    pub fn prepare(mut self) -> Result<JsonPrepared> {
        // The lengths below are of files as a finished commit left them (in
        // a group commit, the journal is the group's: its changes are read
        // from what it staged, and applied at its checkpoint).
        if self.store.group.is_none() {
            journal::recover_pending(&self.store.root)?;
        }
        self.stage_api_keys();
        self.derive()?;
        self.prepare_txn_index()?;
        if !self.new_profiles.is_empty() {
            // A store written by an earlier payctl gets its
            // `index/profiles.ids` first (a commit of its own).
            self.store.ensure_profile_ids()?;
            // Their places in creation order follow the profiles already
            // listed in `index/profiles.ids`, as committed now.
            let first = self.store.committed_len(PROFILE_IDS)? as usize / index::ID_RECORD;
            for (i, s) in std::mem::take(&mut self.new_profiles).iter().enumerate() {
                for field in fields::Field::ALL {
                    for v in field.values(s) {
                        self.append(
                            &fields::bucket_rel(field, &v),
                            &fields::line(first + i, &s.id, &v),
                        )?;
                    }
                }
            }
        }
        // Key index lines go to their key's bucket as the store is now,
        // splitting a full one (see [`keys`]).
        let mut key_lines = String::new();
        for slot in self.ops.iter_mut() {
            if let Some(Op::Append { path, data, .. }) = slot
                && path.starts_with(KEYS_DIR)
            {
                key_lines.push_str(data);
                *slot = None;
            }
        }
        // In a group commit, the key ops below are computed from the files
        // on disk: a bucket the group appended to that would now be split
        // is first committed with the group's changes so far, before any
        // length below is taken.
        if self.store.group.is_some() && !key_lines.is_empty() {
            let trial = keys::append_ops(&self.store.root, &key_lines)?;
            let mut flush = false;
            for op in &trial {
                flush |= match op {
                    Op::Append { path, data, .. } => {
                        self.store.committed_len(path)? as usize + data.len() > keys::split_bytes()
                    }
                    _ => true,
                };
            }
            if flush {
                self.store.flush_group()?;
            }
        }
        let mut dirs = safefs::Dirs::new(&self.store.root);
        for op in self.ops.iter_mut().flatten() {
            if let Op::Append { path, base_len, .. } = op {
                *base_len = index::complete_len_in(&mut dirs, path)?;
            }
        }
        if !key_lines.is_empty() {
            self.ops.extend(
                keys::append_ops(&self.store.root, &key_lines)?
                    .into_iter()
                    .map(Some),
            );
        }
        // Many new customers go into one pack (never in a group commit,
        // whose staged files are read back whole).
        let pack = if self.store.group.is_none()
            && self.created.len() >= fault::pack_min(packs::PACK_MIN)
        {
            let plan = packs::Plan::new(&mut dirs, self.created.iter().map(String::as_str))?;
            Some((plan, std::mem::take(&mut self.created)))
        } else {
            None
        };
        Ok(JsonPrepared {
            group: self.store.group.clone(),
            root: self.store.root.clone(),
            ops: std::mem::take(&mut self.ops),
            customers: std::mem::take(&mut self.customers),
            serialized: std::mem::take(&mut self.serialized),
            txns: std::mem::take(&mut self.txns),
            pack,
        })
    }
}

/// A write transaction ready to commit (see [`JsonTx::prepare`]).
pub struct JsonPrepared {
    /// The open group that the commit stages into, if any.
    group: Option<std::sync::Arc<group::Stage>>,
    root: PathBuf,
    ops: Vec<Option<Op>>,
    customers: BTreeMap<String, Customer>,
    /// See [`JsonTx::new_customer_serialized`].
    serialized: HashMap<String, String>,
    txns: BTreeMap<String, TxnFile>,
    /// Where the new customers are packed, and which they are (see
    /// [`packs`]); `None`: each gets its file.
    pack: Option<(packs::Plan, std::collections::HashSet<String>)>,
}

impl JsonPrepared {
    /// Apply everything durably; on return the change is on disk.
    pub fn commit(self) -> Result<()> {
        let mut ops: Vec<Op> = self.ops.into_iter().flatten().collect();
        // The aggregates last (no other put names their paths).
        ops.reserve(self.customers.len() + self.txns.len());
        let mut packed = Vec::new();
        let mut serialized = self.serialized;
        for (id, c) in &self.customers {
            match &self.pack {
                Some((_, new)) if new.contains(id) => {
                    let json = match serialized.remove(id) {
                        Some(json) => json,
                        None => serde_json::to_string(c).expect("records serialize"),
                    };
                    if json.len() as u64 >= atomic::RECORD_BYTES {
                        return Err(too_large(&JsonStore::customer_rel(id), json.len()));
                    }
                    packed.push((id.as_str(), json));
                }
                _ => ops.push(journal::put_json(JsonStore::customer_rel(id), c)),
            }
        }
        if let Some((plan, _)) = &self.pack {
            ops.extend(plan.ops(packed.iter().map(|(id, json)| (*id, json.as_str()))));
        }
        for (id, t) in &self.txns {
            ops.push(journal::put_json(JsonStore::txn_rel(id), t));
        }
        // Never write a record that reads would refuse (before the commit
        // point: nothing changes).
        for op in &ops {
            if let Op::PutJson { path, json } = op
                && json.get().len() as u64 >= atomic::RECORD_BYTES
            {
                return Err(too_large(path, json.get().len()));
            }
        }
        if let Some(group) = &self.group {
            let mut staged = group.lock().unwrap_or_else(|e| e.into_inner());
            staged.check()?;
            staged.stage(ops);
            return Ok(());
        }
        journal::commit(&self.root, &Journal { ops })
    }
}

/// A record of `len` bytes, too large to be written at `path`.
fn too_large(path: &str, len: usize) -> Error {
    Error::one(
        code::INVALID_VALUE,
        format!(
            "{path} would be {len} bytes, above the limit of {} bytes for a record file: nothing was written",
            atomic::RECORD_BYTES
        ),
    )
}

/// The paths that `ops` put: what a rebuild keeps of an index directory.
fn put_paths(ops: &[Op]) -> std::collections::HashSet<String> {
    ops.iter()
        .filter_map(|op| match op {
            Op::Put { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect()
}

/// The JSON directory behind the storage interface (its inherent methods,
/// which the group commit and `store check --repair` also use).
impl storage::Storage for JsonStore {
    fn root(&self) -> &Path {
        JsonStore::root(self)
    }
    fn scratch_file(&self) -> Result<std::fs::File> {
        JsonStore::scratch_file(self)
    }
    fn catalog(&self) -> Result<Catalog> {
        JsonStore::catalog(self)
    }
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        JsonStore::customer(self, cid)
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        JsonStore::txn(self, tid)
    }
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        JsonStore::key_owner(self, key)
    }
    fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        JsonStore::key_owners(self, keys)
    }
    fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        JsonStore::profiles(self)
    }
    fn profiles_with(&self, field: fields::Field, value: &str) -> Result<Option<Vec<String>>> {
        JsonStore::profiles_with(self, field, value)
            .map(|c| Some(c.into_iter().map(|(_, id)| id).collect()))
    }
    fn profile_count(&self) -> Result<usize> {
        JsonStore::profile_count(self)
    }
    fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        JsonStore::profile_ids(self, start, end)
    }
    fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        JsonStore::profile_position(self, cid)
    }
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        JsonStore::program_customers(self, program_id)
    }
    fn txns(&self) -> Result<Vec<TxnSummary>> {
        JsonStore::txns(self)
    }
    fn txns_matching(&self, q: &TxnQuery) -> Result<TxnMatches> {
        JsonStore::txns_matching(self, q).map(TxnMatches::Positions)
    }
    fn txn_position(&self, tid: &str) -> Result<Option<usize>> {
        JsonStore::txn_position(self, tid)
    }
    fn txn_ids_at(&self, positions: &[usize]) -> Result<Vec<String>> {
        JsonStore::txn_ids_at(self, positions)
    }
    fn queue(&self) -> Result<Vec<QueueItem>> {
        JsonStore::queue(self)
    }
    fn is_queued(&self, item: &QueueItem) -> bool {
        JsonStore::is_queued(self, item)
    }
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        JsonStore::idempotency_record(self, key, now)
    }
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        JsonStore::idempotency_records(self, now)
    }
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    fn check(&self, repair: bool) -> Result<check::Report> {
        JsonStore::check(self, repair)
    }
    fn api_key(&self, hash: &str) -> Result<Option<crate::model::api_key::ApiKey>> {
        JsonStore::api_key(self, hash)
    }
    fn api_keys(&self) -> Result<Vec<crate::model::api_key::ApiKey>> {
        JsonStore::api_keys(self)
    }
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        JsonStore::api_keys_stamp(self)
    }
    fn begin(&self) -> Box<dyn storage::StorageTx + '_> {
        Box::new(JsonStore::begin(self))
    }
}

impl storage::StorageTx for JsonTx<'_> {
    fn put_customer(&mut self, c: &Customer) {
        JsonTx::put_customer(self, c)
    }
    fn new_customer(&mut self, c: Customer) -> Result<()> {
        JsonTx::new_customer(self, c)
    }
    fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()> {
        JsonTx::new_customer_serialized(self, c, json)
    }
    fn put_txn(&mut self, t: &TxnFile) {
        JsonTx::put_txn(self, t)
    }
    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        JsonTx::customer(self, id)
    }
    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        JsonTx::txn(self, id)
    }
    fn enqueue(&mut self, item: &QueueItem) {
        JsonTx::enqueue(self, item)
    }
    fn dequeue(&mut self, item: &QueueItem) {
        JsonTx::dequeue(self, item)
    }
    fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        JsonTx::put_idempotency(self, rec)
    }
    fn put_api_key(&mut self, key: &crate::model::api_key::ApiKey) -> Result<()> {
        JsonTx::put_api_key(self, key)
    }
    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        JsonTx::api_keys_used(self, used)
    }
    fn is_empty(&self) -> bool {
        JsonTx::is_empty(self)
    }
    fn commit(self: Box<Self>) -> Result<()> {
        JsonTx::commit(*self)
    }
    fn commit_created(self: Box<Self>, result: &str) -> Result<()> {
        JsonTx::commit_created(*self, result)
    }
}
