//! Multi-file atomicity. A write transaction collects its operations, writes
//! them all to `journal.json` (temp, sync, rename, sync dir: the commit point),
//! applies them, syncs the touched directories and removes the journal. A
//! process killed after the commit point leaves the journal behind and the
//! next payctl to open the store replays it; every operation is idempotent
//! (a put is a whole file, an append truncates to the length the file had
//! when the transaction began), so a replay after a partial apply is exact.

use std::collections::BTreeSet;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::atomic;
use crate::error::{Error, Result};

pub const JOURNAL: &str = "journal.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    Put {
        path: String,
        data: String,
    },
    Delete {
        path: String,
    },
    Append {
        path: String,
        base_len: u64,
        data: String,
    },
}

impl Op {
    fn path(&self) -> &str {
        match self {
            Op::Put { path, .. } | Op::Delete { path } | Op::Append { path, .. } => path,
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Journal {
    pub ops: Vec<Op>,
}

/// Write the journal durably, apply it, remove it.
pub fn commit(root: &Path, journal: &Journal) -> Result<()> {
    if journal.ops.is_empty() {
        return Ok(());
    }
    let path = root.join(JOURNAL);
    let text = serde_json::to_vec(journal).expect("journal serializes");
    atomic::write_file(&path, &text)?;
    atomic::sync_dir(root)?;
    super::fault::point("after-journal");
    apply(root, journal)?;
    super::fault::point("before-journal-remove");
    atomic::remove_file(&path)?;
    atomic::sync_dir(root)
}

/// Replay a journal left by a killed writer. The caller holds the exclusive lock.
pub fn recover(root: &Path) -> Result<bool> {
    let path = root.join(JOURNAL);
    // A temp journal never reached the commit point: the transaction did not happen.
    atomic::remove_file(&atomic::temp_path(&path))?;
    let Some(bytes) = atomic::read_opt(&path)? else {
        return Ok(false);
    };
    let journal: Journal = serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&path, e))?;
    apply(root, &journal)?;
    atomic::remove_file(&path)?;
    atomic::sync_dir(root)?;
    Ok(true)
}

fn apply(root: &Path, journal: &Journal) -> Result<()> {
    let mut dirs = BTreeSet::new();
    for op in &journal.ops {
        let target = root.join(op.path());
        let dir = target.parent().unwrap_or(root).to_path_buf();
        atomic::ensure_dir(&dir)?;
        match op {
            Op::Put { data, .. } => atomic::write_file(&target, data.as_bytes())?,
            Op::Delete { .. } => {
                atomic::remove_file(&atomic::temp_path(&target))?;
                atomic::remove_file(&target)?;
            }
            Op::Append { base_len, data, .. } => append(&target, *base_len, data.as_bytes())?,
        }
        dirs.insert(dir);
    }
    for d in &dirs {
        atomic::sync_dir(d)?;
    }
    Ok(())
}

fn append(target: &Path, base_len: u64, data: &[u8]) -> Result<()> {
    let f = atomic::open_private(
        target,
        OpenOptions::new().write(true).create(true).truncate(false),
    )?;
    f.set_len(base_len).map_err(|e| Error::io(target, e))?;
    f.sync_all().map_err(|e| Error::io(target, e))?;
    let mut f = atomic::open_private(target, OpenOptions::new().append(true))?;
    f.write_all(data).map_err(|e| Error::io(target, e))?;
    super::fault::point("after-write");
    f.sync_all().map_err(|e| Error::io(target, e))
}
