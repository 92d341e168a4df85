//! Snapshots of a JSON directory, their restore, and the store's reset
//! (see [`crate::store::sim`] for what they hold and keep).
//!
//! ```text
//! snapshots/<name>/snapshot.json   the snapshot's record (name, store version, counts, who, when)
//! snapshots/<name>/data/<dir>/     a copy of each directory of RECORD_DIRS the store had
//! restore.json                     while a restore or a reset is under way: its commit point
//! restore.staging/, restore.old/   the new directories, and the old ones set aside
//! ```
//!
//! Everything happens under the exclusive lock, after the store's pending
//! commits are settled (its files then hold every commit, and no journal
//! or `applied.json` can replay old changes over the new files).
//!
//! - **Save**: the record directories are copied into
//!   `snapshots/.saving` (packs hard-linked: one a link shares is never
//!   appended to, see `packs::group_pack`),
//!   made durable with one `syncfs`, and renamed to the name, or exchanged
//!   with the snapshot of that name at once (`RENAME_EXCHANGE`). A crash
//!   leaves `.saving` behind, removed by the next save: never a half
//!   snapshot under a name.
//! - **Restore**: the snapshot's directories are copied into
//!   `restore.staging` and made durable; then `restore.json` is written
//!   (temp, sync, rename, sync: the commit point), naming the directories
//!   to put in place and those to remove. Each directory of the store is
//!   then renamed into `restore.old` and its new copy renamed into place;
//!   the store's directory is synced, the two trees removed, and
//!   `restore.json` last. Every step can be done again: the next payctl
//!   that opens the store finds `restore.json` and finishes the restore
//!   ([`finish_restore`], before anything reads) from where it stopped. A
//!   crash before the commit point leaves the old state (the staging is
//!   removed by the next restore), after it the new one: never a mix.
//! - **Reset**: a restore of the layout of a new store (empty `customers/`,
//!   `transactions/`, `index/keys/`, `queue/`).
//! - **Delete**: the snapshot is renamed `snapshots/.trash`, then removed.

use serde::{Deserialize, Serialize};

use super::safefs::Root;
use super::tree::Tree;
use super::{CUSTOMERS_DIR, JsonStore, KEYS_DIR, QUEUE_DIR, TXNS_DIR, atomic, journal, packs};
use crate::error::{Error, Result};
use crate::model::sim_rule::{Reset, Snapshot};
use crate::store::sim::{other_version, valid_name};

/// Where the snapshots are.
pub const SNAPSHOTS_DIR: &str = "snapshots";
/// A restore or a reset under way (see the module doc).
pub const RESTORE: &str = "restore.json";
const STAGING: &str = "restore.staging";
const OLD: &str = "restore.old";
const SAVING: &str = ".saving";
const TRASH: &str = ".trash";
const META_FILE: &str = "snapshot.json";
const DATA: &str = "data";

/// The directories that hold the records: what a snapshot copies, a
/// restore replaces and a reset empties. Everything else of the store is
/// kept: `meta.json`, `catalog.json`, `keys.json`, `keys-used.json`,
/// `rules.json`, `snapshots/`. (`events`: the event log of issue 36; its
/// webhooks and their delivery cursors belong outside these.)
pub const RECORD_DIRS: [&str; 8] = [
    CUSTOMERS_DIR,
    TXNS_DIR,
    packs::PACKS_DIR,
    "index",
    QUEUE_DIR,
    super::idempotency::DIR,
    "sim",
    "events",
];

/// `restore.json`: the directories of [`RECORD_DIRS`] to put in place from
/// `restore.staging`, and those to remove.
#[derive(Debug, Serialize, Deserialize)]
struct Marker {
    /// The snapshot restored (`None`: a reset).
    snapshot: Option<String>,
    place: Vec<String>,
    remove: Vec<String>,
}

/// Snapshots of earlier formats whose records are laid out as this one's:
/// format 14 changed only the journal, which no snapshot holds.
const SAME_RECORDS: &[&str] = &["json 13"];

/// What a snapshot of this store says it is.
pub fn store_version() -> String {
    format!("json {}", super::FORMAT_VERSION)
}

fn root_tree(store: &JsonStore) -> Result<Tree> {
    Tree::open(&store.root, store.root.path())?.ok_or_else(|| {
        Error::io(
            store.root.path(),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        )
    })
}

/// The record of the snapshot `name`, if there is one.
fn read_meta(store: &JsonStore, name: &str) -> Result<Option<Snapshot>> {
    if !valid_name(name) {
        return Ok(None);
    }
    let path = store.root.join(SNAPSHOTS_DIR).join(name).join(META_FILE);
    store.read_json(&path)
}

/// Every snapshot, oldest first.
pub fn list(store: &JsonStore) -> Result<Vec<Snapshot>> {
    let Some(snaps) = root_tree(store)?.sub(SNAPSHOTS_DIR)? else {
        return Ok(Vec::new());
    };
    let mut all = Vec::new();
    for name in snaps.dirs()? {
        if let Some(s) = read_meta(store, &name)? {
            all.push(s);
        }
    }
    all.sort_by(|a, b| {
        (&a.created_datetime, &a.snapshot_name).cmp(&(&b.created_datetime, &b.snapshot_name))
    });
    Ok(all)
}

/// Save the records as the snapshot `name` (see the module doc).
pub fn save(store: &JsonStore, name: &str, by: &str, now: &str) -> Result<Snapshot> {
    store.writing("save a snapshot")?;
    if !valid_name(name) {
        return Err(Error::at(
            crate::error::code::INVALID_VALUE,
            "name",
            "is not a snapshot name",
        ));
    }
    journal::finish_pending(&store.root)?;
    let root = root_tree(store)?;
    let snaps = root.ensure(SNAPSHOTS_DIR)?;
    let aside = format!(".aside-{name}");
    if snaps.has(&aside)? {
        // A save without `RENAME_EXCHANGE`, killed between its renames.
        if snaps.has(name)? {
            snaps.remove(&aside)?;
        } else {
            snaps.rename(&aside, &snaps, name)?;
        }
    }
    snaps.remove(SAVING)?;
    snaps.remove(TRASH)?;
    let staging = snaps.ensure(SAVING)?;
    let data = staging.ensure(DATA)?;
    for d in RECORD_DIRS {
        root.copy(d, &data, d == packs::PACKS_DIR)?;
    }
    let snap = Snapshot {
        snapshot_name: name.to_string(),
        store_version: store_version(),
        customer_profiles: store.profile_count()? as u64,
        transactions: store.txn_count()? as u64,
        created_by: by.to_string(),
        created_datetime: now.to_string(),
    };
    atomic::write_file(
        &store.root,
        &staging.path().join(META_FILE),
        &super::to_bytes(&snap),
    )?;
    atomic::fault(staging.path(), "snapshot-copied")?;
    // The copy durable before it takes the name.
    atomic::sync_filesystem(&store.root)?;
    if snaps.has(name)? {
        snaps.exchange(name, SAVING, &aside)?;
        snaps.sync()?;
        snaps.remove(SAVING)?;
    } else {
        snaps.rename(SAVING, &snaps, name)?;
    }
    snaps.sync()?;
    Ok(snap)
}

/// Remove the snapshot `name`; whether there was one.
pub fn delete(store: &JsonStore, name: &str) -> Result<bool> {
    store.writing("delete a snapshot")?;
    if read_meta(store, name)?.is_none() {
        return Ok(false);
    }
    let snaps = root_tree(store)?
        .sub(SNAPSHOTS_DIR)?
        .ok_or_else(|| Error::io(store.root.path(), std::io::ErrorKind::NotFound.into()))?;
    snaps.remove(TRASH)?;
    snaps.rename(name, &snaps, TRASH)?;
    snaps.sync()?;
    snaps.remove(TRASH)?;
    Ok(true)
}

/// Replace the records with the snapshot `name`'s (see the module doc);
/// `None` when there is none.
pub fn restore(store: &JsonStore, name: &str) -> Result<Option<Snapshot>> {
    store.writing("restore a snapshot")?;
    let Some(snap) = read_meta(store, name)? else {
        return Ok(None);
    };
    let ours = store_version();
    if snap.store_version != ours && !SAME_RECORDS.contains(&snap.store_version.as_str()) {
        return Err(other_version(name, &snap.store_version, &ours));
    }
    let data = root_tree(store)?
        .sub(SNAPSHOTS_DIR)?
        .and_then(|s| s.sub(name).transpose())
        .transpose()?
        .and_then(|s| s.sub(DATA).transpose())
        .transpose()?
        .ok_or_else(|| {
            Error::corrupt(
                &store.root.join(SNAPSHOTS_DIR).join(name),
                "the snapshot has no data",
            )
        })?;
    swap(store, Some(name), |staging, place, remove| {
        for d in RECORD_DIRS {
            if data.has(d)? {
                data.copy(d, staging, d == packs::PACKS_DIR)?;
                place.push(d.to_string());
            } else {
                remove.push(d.to_string());
            }
        }
        Ok(())
    })?;
    Ok(Some(snap))
}

/// Remove every record: the layout of a new store in place of the record
/// directories.
pub fn reset(store: &JsonStore) -> Result<Reset> {
    store.writing("reset the store")?;
    journal::finish_pending(&store.root)?;
    let removed = Reset {
        customer_profiles: store.profile_count()? as u64,
        transactions: store.txn_count()? as u64,
    };
    swap(store, None, |staging, place, remove| {
        for d in [CUSTOMERS_DIR, TXNS_DIR, KEYS_DIR, QUEUE_DIR] {
            let mut at = staging.ensure(d.split('/').next().unwrap_or(d))?;
            for part in d.split('/').skip(1) {
                at = at.ensure(part)?;
            }
        }
        for d in RECORD_DIRS {
            if staging.has(d)? {
                place.push(d.to_string());
            } else {
                remove.push(d.to_string());
            }
        }
        Ok(())
    })?;
    Ok(removed)
}

/// Stage the new record directories with `stage` (into `restore.staging`,
/// naming those it placed and those to remove), make them durable, commit
/// the swap by writing `restore.json`, and do it ([`finish_restore`]).
fn swap(
    store: &JsonStore,
    snapshot: Option<&str>,
    stage: impl FnOnce(&Tree, &mut Vec<String>, &mut Vec<String>) -> Result<()>,
) -> Result<()> {
    journal::finish_pending(&store.root)?;
    let root = root_tree(store)?;
    // What a restore killed before its commit point left.
    root.remove(STAGING)?;
    root.remove(OLD)?;
    let staging = root.ensure(STAGING)?;
    let (mut place, mut remove) = (Vec::new(), Vec::new());
    stage(&staging, &mut place, &mut remove)?;
    atomic::fault(staging.path(), "restore-staged")?;
    // (Tests widen the windows a kill may land in: here, and each swap.)
    crate::store::fault::slow("restore-staged");
    atomic::sync_filesystem(&store.root)?;
    let marker = Marker {
        snapshot: snapshot.map(str::to_string),
        place,
        remove,
    };
    // The commit point.
    atomic::write_file(
        &store.root,
        &store.root.join(RESTORE),
        &super::to_bytes(&marker),
    )?;
    atomic::sync_dir(&store.root, store.root.path())?;
    finish_restore(&store.root)?;
    Ok(())
}

/// Finish the restore or reset that `restore.json` commits, if there is
/// one (the caller holds the exclusive lock): each step is skipped when
/// done already, so a restore killed at any point is finished exactly.
/// Whether there was one.
pub fn finish_restore(root_path: &Root) -> Result<bool> {
    let path = root_path.join(RESTORE);
    let Some(bytes) = atomic::read_opt(root_path, &path)? else {
        return Ok(false);
    };
    let m: Marker = serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&path, e))?;
    // A damaged marker never moves anything but the record directories.
    if m.place
        .iter()
        .chain(&m.remove)
        .any(|d| !RECORD_DIRS.contains(&d.as_str()))
    {
        return Err(Error::corrupt(
            &path,
            "names a directory that holds no records",
        ));
    }
    let root = Tree::open(root_path, root_path.path())?.ok_or_else(|| {
        Error::io(
            root_path.path(),
            std::io::Error::from(std::io::ErrorKind::NotFound),
        )
    })?;
    let old = root.ensure(OLD)?;
    let staging = root.sub(STAGING)?;
    // Set the directory `d` of the store aside, if it is there.
    let set_aside = |d: &str| -> Result<()> {
        if !root.has(d)? {
            return Ok(());
        }
        if old.has(d)? {
            // Set aside before: what is in place now is not the store's.
            return root.remove(d);
        }
        root.rename(d, &old, d)
    };
    for d in &m.place {
        if let Some(staging) = &staging
            && staging.has(d)?
        {
            crate::store::fault::slow("restore-swapping");
            set_aside(d)?;
            staging.rename(d, &root, d)?;
            atomic::fault(&root_path.join(d), "restore-swapped")?;
        }
    }
    for d in &m.remove {
        set_aside(d)?;
    }
    root.sync()?;
    atomic::fault(root_path.path(), "restore-done")?;
    root.remove(STAGING)?;
    root.remove(OLD)?;
    atomic::remove_file(root_path, &path)?;
    root.sync()?;
    Ok(true)
}
