//! API keys in the JSON directory.
//!
//! `keys.json` holds every key (`{"keys": [{"name", "role", "hash",
//! "created", "expires", "revoked"}, …]}`, in creation order), the secret's
//! SHA-256 only; `keys-used.json` when each was last used (`{"used":
//! {"<hash>": "<time>"}}`). Both are written whole by a journaled put
//! under the exclusive lock, as the catalog is (a new file renamed into
//! place, 0600). Last use lives apart so that recording it (about once a
//! minute per key) leaves `keys.json` as it is: a server keeps the keys
//! in memory, indexed by hash, and reads them again only when the stat
//! of `keys.json` ([`JsonStore::api_keys_stamp`]) changes, so a revocation
//! by any process is seen by the next request, and a store of 10,000 keys
//! costs a request what a store of one does.
//!
//! This is not derived data: `store check --repair` leaves both files alone.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{JsonStore, JsonTx, to_bytes};
use crate::error::{Error, Result};
use crate::model::api_key::ApiKey;

/// The keys (never their secrets).
pub const KEYS_FILE: &str = "keys.json";
/// When each key was last used, by hash.
pub const USED_FILE: &str = "keys-used.json";

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct KeysFile {
    pub(super) keys: Vec<ApiKey>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct UsedFile {
    pub(super) used: BTreeMap<String, String>,
}

/// A file's content, parsed; its default when absent.
fn parse<T: Default + serde::de::DeserializeOwned>(
    path: &std::path::Path,
    bytes: Option<Vec<u8>>,
) -> Result<T> {
    match bytes {
        None => Ok(T::default()),
        Some(b) => serde_json::from_slice(&b).map_err(|e| Error::corrupt(path, e)),
    }
}

impl JsonStore {
    pub(super) fn keys_file(&self) -> Result<KeysFile> {
        let path = self.root.join(KEYS_FILE);
        parse(&path, self.read_bytes(&path)?)
    }

    pub(super) fn used_file(&self) -> Result<UsedFile> {
        let path = self.root.join(USED_FILE);
        parse(&path, self.read_bytes(&path)?)
    }
}

/// The keys a write transaction changes, written as one put of each file
/// when it is prepared (a migration's thousands of keys: one file, not a
/// file per key).
#[derive(Debug, Default)]
pub struct Pending {
    pub(super) keys: Option<KeysFile>,
    /// Place in `keys` of each hash, and of each name.
    pub(super) by_hash: std::collections::HashMap<String, usize>,
    pub(super) by_name: std::collections::HashMap<String, usize>,
    /// Whether a key was put (`keys` is also read to check a use).
    pub(super) changed: bool,
    pub(super) used: Option<UsedFile>,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        !self.changed && self.used.is_none()
    }
}

impl JsonTx<'_> {
    /// The keys as this transaction leaves them (read once).
    pub(super) fn keys_mut(&mut self) -> Result<&mut Pending> {
        if self.api.keys.is_none() {
            let file = self.store.keys_file()?;
            for (i, k) in file.keys.iter().enumerate() {
                self.api.by_hash.insert(k.hash.clone(), i);
                self.api.by_name.insert(k.name.clone(), i);
            }
            self.api.keys = Some(file);
        }
        Ok(&mut self.api)
    }

    /// The puts of the files this transaction changed (see [`Pending`]).
    pub(super) fn stage_api_keys(&mut self) {
        let pending = std::mem::take(&mut self.api);
        if let Some(file) = pending.keys.filter(|_| pending.changed) {
            self.put(KEYS_FILE.into(), to_bytes(&file));
        }
        if let Some(file) = pending.used {
            self.put(USED_FILE.into(), to_bytes(&file));
        }
    }
}
