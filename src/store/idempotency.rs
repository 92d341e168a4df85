//! Idempotency keys, whichever the backend: the record of which create a
//! client's key already made, valid for [`TTL_SECS`], and the key armed on
//! an open store until the commit of the change it answers. The JSON
//! directory keeps the records in buckets ([`super::json::idempotency`]),
//! PostgreSQL in a table, the in-memory backend in a map.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How long a key is remembered: 24 hours.
pub const TTL_SECS: i64 = 24 * 60 * 60;

/// One line of a bucket.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub key: String,
    /// The request's fingerprint (see `core::idempotency::fingerprint`).
    pub fp: String,
    /// When the record was made, Unix seconds.
    pub at: i64,
    /// The answer the request got.
    pub result: serde_json::Value,
}

impl Record {
    pub fn expired(&self, now: i64) -> bool {
        now.saturating_sub(self.at) >= TTL_SECS
    }

    /// The record as its bucket line (with the newline).
    pub fn line(&self) -> String {
        let mut l = serde_json::to_string(self).expect("records serialize");
        l.push('\n');
        l
    }
}

/// An idempotency key waiting for the commit of the change it answers.
#[derive(Debug, Clone)]
pub struct Armed {
    pub key: String,
    pub fp: String,
    pub now: i64,
}

/// The key armed on an open store, whichever its backend: armed and
/// disarmed by the facade ([`super::Store::arm_idempotency`]), taken by the
/// backend's `commit_created`, which writes its record in the same commit.
#[derive(Debug, Default)]
pub struct ArmedSlot(std::sync::Mutex<Option<Armed>>);

impl ArmedSlot {
    pub fn arm(&self, key: &str, fp: &str, now: i64) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Armed {
            key: key.to_string(),
            fp: fp.to_string(),
            now,
        });
    }

    /// Forget an armed key; whether one was still armed.
    pub fn disarm(&self) -> bool {
        self.take().is_some()
    }

    pub fn take(&self) -> Option<Armed> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Where the record of `key` is, as errors name it: its bucket in the JSON
/// directory at `root` (for another backend, the same name under what
/// stands for its root).
pub fn place(root: &Path, key: &str) -> PathBuf {
    root.join(super::json::idempotency::bucket_rel(key))
}
