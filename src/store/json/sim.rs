//! The storage of issue 37 in the JSON directory (see
//! [`crate::store::sim`]): the outcome rules and the read counts here,
//! snapshots in `snapshot.rs`.
//!
//! - `rules.json`: `{"rules": [<rule>, …]}` in the order they were added,
//!   written whole by a journaled put under the exclusive lock, as
//!   `keys.json` is. Configuration, not a record: a restore and a reset
//!   keep it, `store check --repair` leaves it alone.
//! - `sim/polls/<key>`: one byte appended per read of the pending item
//!   `key` (`att.<customer>.<program>`, or a step's id): its length is the
//!   count. An append (`O_APPEND`) of one byte is never torn and never lost
//!   beside another's, so reads count under the shared lock, from any
//!   number of processes. Records (a snapshot holds them, a reset removes
//!   them); never derived, never read but by the worker.

use std::io::Write;

use serde::{Deserialize, Serialize};

use super::journal::{Journal, Op};
use super::snapshot;
use super::{JsonStore, atomic, safefs, to_bytes};
use crate::error::{Error, Result};
use crate::model::id;
use crate::model::sim_rule::{Reset, Rule, Snapshot};
use crate::store::sim::SimStorage;

/// The outcome rules.
pub const RULES_FILE: &str = "rules.json";
/// The read counts, a file per item.
pub const POLLS_DIR: &str = "sim/polls";

#[derive(Debug, Default, Serialize, Deserialize)]
struct RulesFile {
    rules: Vec<Rule>,
}

/// Whether `key` names a pending item (only such a key becomes a path).
fn item_key(key: &str) -> bool {
    match key.split('.').collect::<Vec<_>>().as_slice() {
        ["att", c, p] => id::is_valid(id::CUSTOMER, c) && id::is_valid(id::PROGRAM, p),
        [s] => id::is_valid(id::STEP, s),
        _ => false,
    }
}

impl JsonStore {
    fn rules_file(&self) -> Result<RulesFile> {
        let path = self.root.join(RULES_FILE);
        match self.read_bytes(&path)? {
            None => Ok(RulesFile::default()),
            Some(b) => serde_json::from_slice(&b).map_err(|e| Error::corrupt(&path, e)),
        }
    }

    fn put_rules(&self, file: &RulesFile) -> Result<()> {
        self.writing("change the rules")?;
        let data = String::from_utf8(to_bytes(file)).expect("json is utf-8");
        self.commit_journal(Journal {
            ops: vec![Op::Put {
                path: RULES_FILE.into(),
                data,
            }],
        })
    }

    /// Refused unless this store was opened for writing (and is not a
    /// group commit's: what follows is no create).
    pub(super) fn writing(&self, what: &str) -> Result<()> {
        if self.mode != super::Mode::Exclusive || self.group.is_some() {
            return Err(Error::store(
                crate::error::code::STORE_IO,
                format!("cannot {what} on a store opened for reading (a bug in payctl)"),
            ));
        }
        Ok(())
    }
}

impl SimStorage for JsonStore {
    fn rules(&self) -> Result<Vec<Rule>> {
        Ok(self.rules_file()?.rules)
    }

    fn add_rule(&self, rule: &Rule) -> Result<()> {
        let mut file = self.rules_file()?;
        file.rules.push(rule.clone());
        self.put_rules(&file)
    }

    fn delete_rule(&self, id: &str) -> Result<bool> {
        let mut file = self.rules_file()?;
        let before = file.rules.len();
        file.rules.retain(|r| r.rule_id != id);
        if file.rules.len() == before {
            return Ok(false);
        }
        self.put_rules(&file)?;
        Ok(true)
    }

    fn poll(&self, key: &str) -> Result<u64> {
        if !item_key(key) {
            return Ok(0);
        }
        let dir = self.root.join(POLLS_DIR);
        atomic::ensure_dir(&self.root, &dir)?;
        let path = dir.join(key);
        let mut f = atomic::open_private(
            &self.root,
            &path,
            std::fs::OpenOptions::new().append(true).create(true),
        )?;
        f.write_all(b"1").map_err(|e| Error::io(&path, e))?;
        let len = f.metadata().map_err(|e| Error::io(&path, e))?.len();
        Ok(len)
    }

    fn polls(&self, key: &str) -> Result<u64> {
        if !item_key(key) {
            return Ok(0);
        }
        Ok(
            safefs::lstat(&self.root, &self.root.join(POLLS_DIR).join(key))?
                .map_or(0, |st| st.st_size.max(0) as u64),
        )
    }

    fn snapshots(&self) -> Result<Vec<Snapshot>> {
        snapshot::list(self)
    }

    fn save_snapshot(&self, name: &str, by: &str, now: &str) -> Result<Snapshot> {
        snapshot::save(self, name, by, now)
    }

    fn restore_snapshot(&self, name: &str) -> Result<Option<Snapshot>> {
        snapshot::restore(self, name)
    }

    fn delete_snapshot(&self, name: &str) -> Result<bool> {
        snapshot::delete(self, name)
    }

    fn reset(&self) -> Result<Reset> {
        snapshot::reset(self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_item_keys_become_paths() {
        for ok in ["att.csp_a1.prm_b2", "trs_x9"] {
            assert!(super::item_key(ok), "{ok}");
        }
        for bad in [
            "",
            "..",
            "att.csp_a",
            "att.csp_a.prm_b.c",
            "trs_a/b",
            "csp_a",
            "../x",
        ] {
            assert!(!super::item_key(bad), "{bad}");
        }
    }
}
