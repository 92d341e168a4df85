//! Where a commit's new customers are packed: the next pack's number, the
//! pack a group commit's creates append to, and the operations that write
//! them (see the module above).

use std::collections::{BTreeMap, HashMap};

use super::super::journal::Op;
use super::super::safefs::{self, Root};
use super::{PACKS_DIR, Place, group_pack_bytes, line, log_rel, pack_of_name, pack_rel};
use crate::error::Result;

/// The number of the next pack: one past the highest in `packs/`.
pub fn next_pack(root: &Root) -> Result<u64> {
    let names = safefs::list(root, &root.join(PACKS_DIR))?.unwrap_or_default();
    Ok(names
        .iter()
        .filter_map(|(name, _)| name.to_str().and_then(pack_of_name))
        .max()
        .unwrap_or(0)
        + 1)
}

/// The pack that a group commit's creates append to at first (see the
/// module doc): the newest, unless it is past [`GROUP_PACK_BYTES`] (or
/// there is none).
pub fn group_pack(root: &Root) -> Result<u64> {
    let next = next_pack(root)?;
    if next > 1 {
        // Never after a damaged end (an append would cut it off), nor to a
        // pack that a snapshot shares (hard-linked: see `snapshot`).
        let newest = root.join(pack_rel(next - 1));
        let st = safefs::lstat(root, &newest)?;
        let len = st.as_ref().map(|st| st.st_size as u64);
        let shared = st.is_none_or(|st| st.st_nlink != 1);
        let complete = super::super::index::complete_len(root, &newest)?;
        if !shared && len == Some(complete) && complete < group_pack_bytes() {
            return Ok(next - 1);
        }
    }
    Ok(next)
}

/// What a commit that packs its new customers fixed while it held the
/// store (see [`super::JsonTx::prepare`]): the pack's number and the length
/// of each log it appends to.
#[derive(Debug)]
pub struct Plan {
    pub pack: u64,
    pub bases: HashMap<String, u64>,
    /// The pack's length when the records are appended to it (a group
    /// commit's creates); `None`: a new pack.
    pub pack_base: Option<u64>,
}

impl Plan {
    /// The plan for packing `ids` in the store as it is now (reached
    /// through `dirs`).
    pub fn new<'a>(dirs: &mut safefs::Dirs, ids: impl Iterator<Item = &'a str>) -> Result<Plan> {
        let mut bases = HashMap::new();
        for cid in ids {
            if let std::collections::hash_map::Entry::Vacant(e) = bases.entry(log_rel(cid)) {
                let len = super::super::index::complete_len_in(dirs, e.key())?;
                e.insert(len);
            }
        }
        Ok(Plan {
            pack: next_pack(dirs.root())?,
            bases,
            pack_base: None,
        })
    }

    /// The operations that write `records` (`(id, document)`) into the new
    /// pack and locate each in its shard's log.
    pub fn ops<'a>(&self, records: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<Op> {
        let mut pack = String::new();
        let mut logs: BTreeMap<String, String> = BTreeMap::new();
        let base = self.pack_base.unwrap_or(0);
        for (cid, json) in records {
            let place = Place {
                pack: self.pack,
                offset: base + pack.len() as u64,
                len: json.len() as u64 + 1,
            };
            pack.push_str(json);
            pack.push('\n');
            logs.entry(log_rel(cid))
                .or_default()
                .push_str(&line(cid, place));
        }
        let mut ops = vec![match self.pack_base {
            None => Op::Put {
                path: pack_rel(self.pack),
                data: pack,
            },
            Some(base_len) => Op::Append {
                path: pack_rel(self.pack),
                base_len,
                data: pack,
            },
        }];
        for (rel, data) in logs {
            ops.push(Op::Append {
                base_len: self.bases.get(&rel).copied().unwrap_or(0),
                path: rel,
                data,
            });
        }
        ops
    }
}
