//! `store check --repair`'s rebuild of the derived data (everything under
//! `index/`, and the worker queue) in pieces of bounded size, so that its
//! memory does not grow with the store (issue 17: one journal holding every
//! index of a million customers and a million transactions took 2.4 GB).
//!
//! 1. What the rebuild needs of the records and of the old logs is gathered
//!    first, compactly: the creation order of the records (the order the
//!    summary logs had, then the others by creation time and id) as ids,
//!    and the profile-program records (the attachment index keeps the order
//!    it had).
//! 2. The first commit sets `"rebuilding": true` in `meta.json`, removes
//!    every file under `index/`, writes the attachment index, brings the
//!    queue to the records' pending work, and keeps the creation order in
//!    `index/rebuild-order.*` (the logs that gave it are gone from here on:
//!    a rebuild started over after a crash reads it there).
//! 3. The customers, then the transactions, are indexed again in creation
//!    order, [`PIECE`] per commit, each read again from its record: the same
//!    index lines a create writes ([`super::JsonTx::reindex_customer`],
//!    [`super::JsonTx::reindex_txn`]), appended.
//! 4. The last commit removes the order files and clears the flag.
//!
//! All of it runs under the exclusive lock. A crash in between leaves the
//! flag set: every command but `store check` then refuses the store (see
//! [`interrupted`]), so a half-built key index never lets a
//! key be taken twice, and `store check --repair` starts over.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde::de::DeserializeOwned;

use super::check::{each_log_line, h64};
use super::journal::{self, Journal, Op};
use super::{
    ATTACHMENTS_LOG, JsonStore, META, Meta, PROFILES_LOG, QUEUE_DIR, TXNS_LOG, atomic, attachments,
    derived_files, index, safefs, to_bytes,
};
use crate::error::{Error, Result};
use crate::model::Customer;
use crate::model::txn::TxnFile;
use crate::store::fault;
use crate::store::storage::Storage as _;
use crate::store::types::{ProfileSummary, QueueItem, TxnSummary};
use safefs::Root;

/// Records indexed again per commit: a journal of about 20 MB (the index
/// lines of 50,000 profiles), and few enough commits that the files each
/// appends to (thousands of transaction position buckets) are not opened
/// again and again (5,000 took 40 s for 100,000 customers and 200,000
/// transactions, 50,000 took 29 s, in the same 115 MB).
pub const PIECE: usize = 50_000;

/// The creation order a rebuild gives the records, one id per line, kept
/// from its first commit to its last (see [`JsonStore::known_order`]).
const PROFILE_ORDER: &str = "index/rebuild-order.profiles";
const TXN_ORDER: &str = "index/rebuild-order.transactions";

/// A record as the rebuild orders it: its place in the order the store
/// knows (`u32::MAX`: none), its creation time when it has no such place
/// (a million records mostly have one: 8 bytes each instead of 32), its id.
type Placed = (u32, Option<Box<str>>, Box<str>);

impl JsonStore {
    /// Rebuild every derived file from the records (all readable: the
    /// caller's scan read `counted` customers and transactions), with the
    /// queue holding exactly the `pending` work (`att.<csp>.<prm>`,
    /// `trn.<id>`) of the records.
    pub(crate) fn rebuild_derived(
        &self,
        pending: &BTreeSet<String>,
        counted: (usize, usize),
    ) -> Result<()> {
        // 1. Gathered before the old logs are removed, one kind of record
        // at a time (the known order of each is dropped once placed).
        let known = self.known_order(PROFILE_ORDER, PROFILES_LOG);
        let mut customers: Vec<Placed> = Vec::new();
        let mut attached: Vec<(Box<str>, Box<str>, Box<str>)> = Vec::new();
        self.each_readable_customer(|c| {
            for a in &c.attachments {
                attached.push((
                    a.audit.created_datetime.as_str().into(),
                    a.program_id.as_str().into(),
                    c.id().into(),
                ));
            }
            customers.push(placed(&known, &c.profile.audit.created_datetime, c.id()));
        })?;
        drop(known);
        let customers = creation_order(customers);
        let known = self.known_order(TXN_ORDER, TXNS_LOG);
        let mut txns: Vec<Placed> = Vec::new();
        self.each_readable_txn(|t| {
            txns.push(placed(
                &known,
                &t.transaction.audit.created_datetime,
                &t.transaction.transaction_id,
            ))
        })?;
        drop(known);
        let txns = creation_order(txns);
        // A record that the scan read and this pass could not would lose
        // its index lines (its key freed): nothing is rebuilt then.
        if (customers.len(), txns.len()) != counted {
            return Err(Error::corrupt(
                self.root.path(),
                format!(
                    "{} customer and {} transaction records were read to rebuild the indexes, \
                     {} and {} a moment before: nothing was rebuilt; run the repair again",
                    customers.len(),
                    txns.len(),
                    counted.0,
                    counted.1
                ),
            ));
        }
        let kept = index::complete_lines(&self.root, &self.root.join(ATTACHMENTS_LOG))
            .ok()
            .and_then(|l| attachments::all(&l).ok())
            .unwrap_or_default();
        let attachment_log =
            attachments::rebuild(&kept, attached.iter().map(|(t, p, c)| (&**t, &**p, &**c)));
        drop((kept, attached));

        // 2. The flag, a clean slate, the attachment index and the queue.
        // The order is kept until the end: the logs that gave it are gone
        // once this commits, and a rebuild started over after a crash
        // must give the records the same places.
        let mut ops = vec![meta_op(true)];
        ops.extend(
            derived_files(&self.root, "index")?
                .into_iter()
                .filter(|rel| ![ATTACHMENTS_LOG, PROFILE_ORDER, TXN_ORDER].contains(&rel.as_str()))
                .map(|path| Op::Delete { path }),
        );
        for (path, ids) in [(PROFILE_ORDER, &customers), (TXN_ORDER, &txns)] {
            let mut data = String::with_capacity(ids.iter().map(|id| id.len() + 1).sum());
            for id in ids.iter() {
                data.push_str(id);
                data.push('\n');
            }
            ops.push(Op::Put {
                path: path.into(),
                data,
            });
        }
        ops.push(Op::Put {
            path: ATTACHMENTS_LOG.into(),
            data: attachment_log,
        });
        let mut have = BTreeSet::new();
        for q in self.queue()? {
            let k = q.key();
            if pending.contains(&k) && have.insert(k) {
                continue;
            }
            ops.push(Op::Delete {
                path: format!("{QUEUE_DIR}/{}", q.file_name()),
            });
        }
        for k in pending.difference(&have) {
            if let Some(q) = QueueItem::from_key(k) {
                ops.push(Op::Put {
                    path: format!("{QUEUE_DIR}/{}", q.file_name()),
                    data: String::new(),
                });
            }
        }
        journal::commit_durable(&self.root, &Journal { ops }, &self.journal)?;
        piece_done()?;

        // 3. The records indexed again, in creation order.
        // (The record shards are opened once, each record then read from
        // its shard: one `openat`, not a walk from the store's root.)
        let mut shards = safefs::Dirs::new(&self.root);
        let piece = fault::rebuild_piece(PIECE);
        for ids in customers.chunks(piece) {
            let mut tx = self.begin();
            for id in ids {
                let c: Customer = self.read_customer_again(&mut shards, id)?;
                tx.reindex_customer(ProfileSummary::of(&c.profile))?;
            }
            tx.commit()?;
            piece_done()?;
        }
        drop(customers);
        for ids in txns.chunks(piece) {
            let mut tx = self.begin();
            for id in ids {
                let t: TxnFile = self.read_again(&mut shards, &Self::txn_rel(id))?;
                tx.reindex_txn(TxnSummary::of(&t))?;
            }
            tx.commit()?;
            piece_done()?;
        }

        // 4. Done.
        let ops = vec![
            Op::Delete {
                path: PROFILE_ORDER.into(),
            },
            Op::Delete {
                path: TXN_ORDER.into(),
            },
            meta_op(false),
        ];
        journal::commit_durable(&self.root, &Journal { ops }, &self.journal)
    }

    /// The creation order that the store knows, as the position of each
    /// id (by hash): the ids of `order` (a rebuild's, one per line) when a
    /// rebuild was interrupted, else those of the summary log `log` in the
    /// order of their first line. Nothing when neither can be read.
    fn known_order(&self, order: &str, log: &str) -> HashMap<u64, u32> {
        let mut at: HashMap<u64, u32> = HashMap::new();
        let mut add = |id: &str| {
            let next = u32::try_from(at.len()).unwrap_or(u32::MAX);
            at.entry(h64(id)).or_insert(next);
        };
        let read = match index::complete_lines(&self.root, &self.root.join(order)) {
            Ok(bytes) if !bytes.is_empty() => {
                for id in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                    add(&String::from_utf8_lossy(id));
                }
                Ok(())
            }
            _ => each_log_line(&self.root, &self.root.join(log), &mut |_, s: Id| add(&s.id)),
        };
        if read.is_err() {
            at.clear();
        }
        at
    }

    /// The record at `rel`, read again for its index lines: it was read
    /// (and parsed) before the rebuild began, under the same lock.
    fn read_again<T: DeserializeOwned>(&self, shards: &mut safefs::Dirs, rel: &str) -> Result<T> {
        let path = self.root.join(rel);
        let bytes = shards
            .read(rel, Some(atomic::RECORD_BYTES))?
            .ok_or_else(|| Error::corrupt(&path, "went missing while the indexes were rebuilt"))?;
        serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&path, e))
    }

    /// The customer `id` for the rebuild: its own file, else its packed
    /// entry (see [`super::packs`]).
    fn read_customer_again(&self, shards: &mut safefs::Dirs, id: &str) -> Result<Customer> {
        let rel = Self::customer_rel(id);
        match shards.read(&rel, Some(atomic::RECORD_BYTES))? {
            Some(bytes) => {
                serde_json::from_slice(&bytes).map_err(|e| Error::corrupt(&self.root.join(&rel), e))
            }
            // (Its file was just looked for: only the pack is left.)
            None => self.packed_customer(id)?.ok_or_else(|| {
                Error::corrupt(
                    &self.root.join(&rel),
                    "went missing while the indexes were rebuilt",
                )
            }),
        }
    }

    /// Whether `meta.json` says that a rebuild was interrupted.
    pub(crate) fn rebuild_interrupted(&self) -> bool {
        let meta: Option<Meta> = self.read_json(&self.root.join(META)).ok().flatten();
        meta.is_some_and(|m| m.rebuilding)
    }
}

/// Why a store whose rebuild was interrupted is refused: its indexes are
/// half built (a key missing from the key index could be taken twice).
pub(crate) fn interrupted(root: &Root) -> Error {
    Error::store(
        crate::error::code::STORE_UNREADABLE,
        format!(
            "{}: a `payctl store check --repair` was interrupted while it rebuilt the indexes, \
             which are incomplete: run `payctl store check --repair` to finish it; nothing was \
             read or written",
            root.display()
        ),
    )
}

/// `meta.json` with the rebuild flag set or cleared.
fn meta_op(rebuilding: bool) -> Op {
    let meta = Meta {
        format_version: super::FORMAT_VERSION,
        rebuilding,
    };
    Op::Put {
        path: META.into(),
        data: String::from_utf8(to_bytes(&meta)).expect("json is utf-8"),
    }
}

/// Between two commits of the rebuild (crash tests: `PAYCTL_FAULT=rebuild-piece:<n>`).
fn piece_done() -> Result<()> {
    fault::point("rebuild-piece").map_err(|e| Error::io(Path::new("index"), e))
}

/// Where `known` (see [`JsonStore::known_order`]) places the record `id`
/// created at `created`.
fn placed(known: &HashMap<u64, u32>, created: &str, id: &str) -> Placed {
    match known.get(&h64(id)) {
        Some(&n) => (n, None, id.into()),
        None => (u32::MAX, Some(created.into()), id.into()),
    }
}

/// The ids of `records` in creation order: those the store knows in that
/// order, then the others by creation time and id.
fn creation_order(mut records: Vec<Placed>) -> Vec<Box<str>> {
    records.sort_unstable();
    records.into_iter().map(|(_, _, id)| id).collect()
}

/// The id of a summary log's line.
#[derive(serde::Deserialize)]
struct Id {
    id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_known_order_comes_first_then_creation_time() {
        let known: HashMap<u64, u32> = [("b", 0), ("gone", 1), ("a", 2)]
            .into_iter()
            .map(|(id, n)| (h64(id), n))
            .collect();
        let order = creation_order(
            [("3", "a"), ("9", "z"), ("1", "b"), ("2", "y"), ("2", "x")]
                .into_iter()
                .map(|(t, id)| placed(&known, t, id))
                .collect(),
        );
        let order: Vec<&str> = order.iter().map(|s| &**s).collect();
        assert_eq!(order, ["b", "a", "x", "y", "z"]);
    }
}
