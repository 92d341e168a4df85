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
struct KeysFile {
    keys: Vec<ApiKey>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct UsedFile {
    used: BTreeMap<String, String>,
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
    fn keys_file(&self) -> Result<KeysFile> {
        let path = self.root.join(KEYS_FILE);
        parse(&path, self.read_bytes(&path)?)
    }

    fn used_file(&self) -> Result<UsedFile> {
        let path = self.root.join(USED_FILE);
        parse(&path, self.read_bytes(&path)?)
    }

    /// Every key in creation order, with its last use.
    pub fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let mut keys = self.keys_file()?.keys;
        let used = self.used_file()?.used;
        for k in &mut keys {
            k.last_used = used.get(&k.hash).cloned();
        }
        Ok(keys)
    }

    /// The key of `hash` (a read of the whole file: a server keeps them
    /// between requests, see the module doc).
    pub fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        Ok(self.api_keys()?.into_iter().find(|k| k.hash == hash))
    }

    /// The device, inode, size, modification and change times of
    /// `keys.json` (`none` without it): every write of it is a new file.
    /// `None` while a pending journal or a group's staged changes stand in
    /// for the files (rare: each key is then looked up anew).
    pub fn api_keys_stamp(&self) -> Result<Option<String>> {
        if self.overlaid(&self.root.join(KEYS_FILE))?.is_some() {
            return Ok(None);
        }
        Ok(Some(match self.lock.lstat_entry(KEYS_FILE)? {
            None => "none".into(),
            Some(st) => format!(
                "{}:{}:{}:{}.{}:{}.{}",
                st.st_dev,
                st.st_ino,
                st.st_size,
                st.st_mtime,
                st.st_mtime_nsec,
                st.st_ctime,
                st.st_ctime_nsec
            ),
        }))
    }
}

/// The keys a write transaction changes, written as one put of each file
/// when it is prepared (a migration's thousands of keys: one file, not a
/// file per key).
#[derive(Debug, Default)]
pub struct Pending {
    keys: Option<KeysFile>,
    /// Place in `keys` of each hash, and of each name.
    by_hash: std::collections::HashMap<String, usize>,
    by_name: std::collections::HashMap<String, usize>,
    /// Whether a key was put (`keys` is also read to check a use).
    changed: bool,
    used: Option<UsedFile>,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        !self.changed && self.used.is_none()
    }
}

impl JsonTx<'_> {
    /// The keys as this transaction leaves them (read once).
    fn keys_mut(&mut self) -> Result<&mut Pending> {
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

    pub fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        let p = self.keys_mut()?;
        let keys = &mut p.keys.get_or_insert_with(Default::default).keys;
        if let Some(&i) = p.by_name.get(&key.name)
            && keys[i].hash != key.hash
        {
            return Err(crate::error::name_in_use(&key.name));
        }
        let mut key = key.clone();
        key.last_used = None;
        p.changed = true;
        match p.by_hash.get(&key.hash) {
            Some(&i) => {
                p.by_name.remove(&keys[i].name);
                p.by_name.insert(key.name.clone(), i);
                keys[i] = key;
            }
            None => {
                p.by_hash.insert(key.hash.clone(), keys.len());
                p.by_name.insert(key.name.clone(), keys.len());
                keys.push(key);
            }
        }
        Ok(())
    }

    pub fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        if self.api.used.is_none() {
            self.api.used = Some(self.store.used_file()?);
        }
        let known: Vec<bool> = {
            let p = self.keys_mut()?;
            used.iter()
                .map(|(h, _)| p.by_hash.contains_key(h))
                .collect()
        };
        let file = self.api.used.get_or_insert_with(Default::default);
        for ((hash, at), known) in used.iter().zip(known) {
            if !known {
                continue;
            }
            let slot = file.used.entry(hash.clone()).or_default();
            if at > slot {
                *slot = at.clone();
            }
        }
        Ok(())
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
