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

use super::journal::Op;
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

impl JsonTx<'_> {
    /// What this transaction put at `rel` already, else the store's file.
    fn pending<T: Default + serde::de::DeserializeOwned>(&self, rel: &str) -> Result<T> {
        let path = self.store.root.join(rel);
        if let Some(&i) = self.puts.get(rel)
            && let Some(Op::Put { data, .. }) = &self.ops[i]
        {
            return parse(&path, Some(data.clone().into_bytes()));
        }
        parse(&path, self.store.read_bytes(&path)?)
    }

    pub fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        let mut file: KeysFile = self.pending(KEYS_FILE)?;
        if file
            .keys
            .iter()
            .any(|k| k.name == key.name && k.hash != key.hash)
        {
            return Err(crate::core::api_keys::name_in_use(&key.name));
        }
        let mut key = key.clone();
        key.last_used = None;
        match file.keys.iter_mut().find(|k| k.hash == key.hash) {
            Some(k) => *k = key,
            None => file.keys.push(key),
        }
        self.put(KEYS_FILE.into(), to_bytes(&file));
        Ok(())
    }

    pub fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        let mut file: UsedFile = self.pending(USED_FILE)?;
        let keys: KeysFile = self.pending(KEYS_FILE)?;
        let mut changed = false;
        for (hash, at) in used {
            if !keys.keys.iter().any(|k| &k.hash == hash) {
                continue;
            }
            let slot = file.used.entry(hash.clone()).or_default();
            if at > slot {
                *slot = at.clone();
                changed = true;
            }
        }
        if changed {
            self.put(USED_FILE.into(), to_bytes(&file));
        }
        Ok(())
    }
}
