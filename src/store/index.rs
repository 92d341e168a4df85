//! Derived indexes: append-only summary logs and the worker's queue.
//!
//! A summary log holds one JSON line per version of a record; the first line
//! of an id fixes its place in creation order, the last one its content. So a
//! create or an update is one small append, and a list reads one file instead
//! of every aggregate.

use std::collections::HashMap;
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::Tag;

/// What `profile list` filters on, kept beside the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSummary {
    pub id: String,
    pub customer_key: String,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub tags: Vec<Tag>,
}

/// What `txn list` filters on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnSummary {
    pub id: String,
    pub template_id: String,
    pub program_id: String,
    pub status_id: u32,
    pub customers: Vec<String>,
}

impl ProfileSummary {
    /// The summary of a profile, as the log keeps it.
    pub fn of(p: &crate::model::Profile) -> Self {
        let ind = &p.customer_profile_individual;
        ProfileSummary {
            id: p.customer_profile_id.clone(),
            customer_key: p.customer_key.clone(),
            first_name: ind.first_name.clone(),
            last_name: ind.last_name.clone(),
            email: ind.email.clone(),
            tags: p.customer_profile_tags.clone(),
        }
    }
}

impl TxnSummary {
    /// The summary of a transaction, as the log keeps it: the customers are
    /// every `customer_profile_id` of its parameters, in order, once each.
    pub fn of(t: &crate::model::txn::TxnFile) -> Self {
        let mut customers: Vec<String> = Vec::new();
        for v in t
            .parameters
            .iter()
            .flat_map(|p| &p.transaction_parameter_values)
        {
            if let Some(c) = &v.customer_profile_id
                && !customers.contains(c)
            {
                customers.push(c.clone());
            }
        }
        let tr = &t.transaction;
        TxnSummary {
            id: tr.transaction_id.clone(),
            template_id: tr.transaction_template_id.clone(),
            program_id: tr.program_id.clone(),
            status_id: tr.transaction_status_id,
            customers,
        }
    }
}

/// Read a summary log: creation order, latest version of each id. A torn last
/// line (a writer killed mid-append, before its journal was removed) is not
/// part of the log.
pub fn read_log<T, F>(path: &Path, id_of: F) -> Result<Vec<T>>
where
    T: DeserializeOwned,
    F: Fn(&T) -> &String,
{
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut out: Vec<T> = Vec::new();
    let mut pos: HashMap<String, usize> = HashMap::new();
    for (n, line) in bytes[..complete].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let rec: T = serde_json::from_slice(line)
            .map_err(|e| Error::corrupt(path, format!("line {}: {e}", n + 1)))?;
        let id = id_of(&rec).clone();
        match pos.get(&id) {
            Some(&i) => out[i] = rec,
            None => {
                pos.insert(id, out.len());
                out.push(rec);
            }
        }
    }
    Ok(out)
}

/// Length of `path` up to and including its last newline (0 when missing).
pub fn complete_len(path: &Path) -> Result<u64> {
    let mut f = match fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(path, e)),
    };
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    let mut end = len;
    let mut buf = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))
            .map_err(|e| Error::io(path, e))?;
        f.read_exact(&mut buf[..n])
            .map_err(|e| Error::io(path, e))?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// An item of the worker's queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueItem {
    Attach {
        seq: String,
        customer_id: String,
        program_id: String,
    },
    Txn {
        seq: String,
        transaction_id: String,
    },
}

/// A sortable sequence for a new queue item: creation time in nanoseconds.
pub fn new_seq() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:020}")
}

impl QueueItem {
    pub fn attach(customer_id: &str, program_id: &str) -> Self {
        QueueItem::Attach {
            seq: new_seq(),
            customer_id: customer_id.to_string(),
            program_id: program_id.to_string(),
        }
    }
    pub fn txn(transaction_id: &str) -> Self {
        QueueItem::Txn {
            seq: new_seq(),
            transaction_id: transaction_id.to_string(),
        }
    }
    pub fn file_name(&self) -> String {
        match self {
            QueueItem::Attach {
                seq,
                customer_id,
                program_id,
            } => format!("{seq}.att.{customer_id}.{program_id}"),
            QueueItem::Txn {
                seq,
                transaction_id,
            } => format!("{seq}.trn.{transaction_id}"),
        }
    }
    pub fn parse(name: &str) -> Option<Self> {
        let parts: Vec<&str> = name.split('.').collect();
        let valid = |p: &str, s: &str| crate::model::id::is_valid(p, s);
        match parts.as_slice() {
            [seq, "att", c, p] if valid("csp", c) && valid("prm", p) => Some(QueueItem::Attach {
                seq: seq.to_string(),
                customer_id: c.to_string(),
                program_id: p.to_string(),
            }),
            [seq, "trn", t] if valid("trn", t) => Some(QueueItem::Txn {
                seq: seq.to_string(),
                transaction_id: t.to_string(),
            }),
            _ => None,
        }
    }
}

/// The queue, oldest first. Names that are not queue items (temp files) are skipped.
pub fn read_queue(dir: &Path) -> Result<Vec<QueueItem>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names.iter().filter_map(|n| QueueItem::parse(n)).collect())
}
