//! `payctl store check [--repair]`: every file parses and has the current
//! format, the derived indexes agree with the aggregates, and the spec's
//! invariants hold. `--repair` rebuilds what is derived (key index,
//! attachment index, summary logs, the creation-order ids file, worker queue)
//! and removes stray temp files; it never deletes or rewrites a customer's or
//! a transaction's own record.
//!
//! The check scales with the store: the records are read once, by one
//! thread per core over the record shards, and each is checked on its own as
//! it is read; what the checks across records need (a key held once, the
//! indexes and logs agreeing with the records) is kept as a digest of a few
//! dozen bytes per record, hashes mostly, and the indexes and logs are
//! streamed against those. `--repair` reads the records again to rebuild.
//!
//! The scan is in `scan/`, what it keeps of each record in `digest.rs`,
//! the files streamed line by line in `lines.rs`; the derived data against
//! the records in `derived.rs`, the transaction indexes in
//! `txn_indexes.rs`; here, the check's course, the checks within one
//! record, and the repair.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

mod derived;
mod digest;
mod lines;
mod scan;
mod txn_indexes;

use self::digest::{Chunks, Digests};
pub(super) use self::lines::each_log_line;
use self::lines::{LineSum, each_complete_line, stream_log, sum_lines};
use self::scan::{HashIndex, Hashes, Scan, Shared, attachment_hash};
use super::facts::is_open;
use super::journal::JOURNAL;
use super::{
    ATTACHMENTS_LOG, CUSTOMERS_DIR, JsonStore as Store, KEYS_DIR, PROFILE_IDS, PROFILES_LOG,
    QUEUE_DIR, TXNS_DIR, TXNS_LOG, atomic, attachments, fields, index, keys, packs, safefs,
    txn_index,
};
use crate::error::{Error, Result};
use crate::model::Customer;
use crate::model::catalog::Catalog;
use crate::model::status::attachment;
use crate::model::txn::TxnFile;
pub(crate) use crate::store::report::finding_of;
pub use crate::store::report::{Finding, Report};
use crate::store::storage::Storage as _;
use crate::store::types::{ProfileSummary, QueueItem, TxnSummary};
use safefs::Root;

pub(super) use super::h64;

/// The directories that hold only derived data (rebuilt by `--repair`).
const DERIVED_DIRS: [&str; 3] = ["index", KEYS_DIR, QUEUE_DIR];

/// Whether the store file `r` (relative) holds only derived data or the
/// lock, so that `--repair` may remove a damaged one.
fn removable(r: &str) -> bool {
    r == super::lock::LOCK
        || DERIVED_DIRS
            .iter()
            .any(|d| r == *d || r.starts_with(&format!("{d}/")))
}

fn rel(root: &Root, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) if e.raw_os_error() == Some(20) => return Ok(()), // ENOTDIR: reported by `entries`
        Err(e) => return Err(Error::io(dir, e)),
    };
    for e in entries {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let p = e.path();
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            walk(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

/// Field index entries at a wrong position named one by one; the rest are
/// counted in one finding. (When `index/profiles.ids` is lost, every entry
/// is at a wrong position: a finding each was 1.1 GB at a million
/// customers, held until the positions were found not to be theirs.)
const MISPLACED_SHOWN: usize = 100;

/// Customers whose key the key index lacks, named one by one; the rest are
/// counted in one finding (a lost key index, or a repair killed midway,
/// lacks every key: a million findings at a million customers).
const UNLISTED_SHOWN: usize = 100;

/// Packed records that cannot be read, named one by one; the rest are
/// counted (a pack lost or damaged makes thousands unreadable at once).
const UNREAD_PACKED_SHOWN: usize = 100;

/// Values missing from the field indexes named one by one; the rest are
/// counted (a field index lost names every customer).
const FIELD_MISSING_SHOWN: usize = 100;

/// Profile-program records missing from the attachment index, and pairs it
/// lists that no record holds, named one by one; the rest are counted.
const ATTACHMENTS_SHOWN: usize = 100;

/// How many ids `store check` reads from `index/profiles.ids` at a time.
const IDS_CHUNK: usize = 16_384;

impl Store {
    /// [`Store::check`], telling `progress(done, total)` how far the scan of
    /// the records is. The records are read once, in parallel, and only a few
    /// dozen bytes of each are kept for the checks across records (see
    /// [`CustDigest`]); the indexes and logs are streamed.
    pub fn check_with(
        &self,
        repair: bool,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Report> {
        let mut report = Report::default();
        let f = &mut report.findings;
        if super::safefs::exists(&self.root, &self.root.join(JOURNAL)).unwrap_or(true) {
            f.push(Finding {
                path: JOURNAL.into(),
                problem: "an unfinished write is pending (it is replayed by the next writer)"
                    .into(),
                repairable: true,
            });
        }
        // A repair that died while it rebuilt the indexes: they are half
        // built, and every other command refuses the store until a repair
        // rebuilds them (see rebuild.rs).
        let interrupted = self.rebuild_interrupted();
        let applied = self.root.join(super::journal::APPLIED);
        if super::safefs::exists(&self.root, &applied).unwrap_or(false)
            && super::journal::applied_is_stale(&self.root).unwrap_or(true)
        {
            f.push(Finding {
                path: super::journal::APPLIED.into(),
                problem: "changes applied before the machine restarted are pending (they are \
                          replayed by the next writer)"
                    .into(),
                repairable: true,
            });
        }
        let catalog = match self.catalog() {
            Ok(c) => Some(c),
            Err(e) => {
                f.push(Finding {
                    path: "catalog.json".into(),
                    problem: e.errors[0].message.clone(),
                    repairable: false,
                });
                None
            }
        };
        let positions = self.positions();
        let (field_found, field_nested, field_entries) = self.field_index(None)?;
        let sh = Shared {
            root: &self.root,
            catalog: catalog.as_ref(),
            positions: positions.as_ref(),
            field_entries: &field_entries,
            unread_packed: Default::default(),
        };
        let mut scan = self.scan(f, &sh, progress)?;
        let named = std::mem::take(&mut scan.last_event);
        report.events_named = Some((named.0, named.1));
        let unread = sh.unread_packed.into_inner();
        if unread > UNREAD_PACKED_SHOWN {
            f.push(Finding {
                path: "customers/*/packed.log".into(),
                problem: format!(
                    "{} more packed records cannot be read",
                    unread - UNREAD_PACKED_SHOWN
                ),
                repairable: false,
            });
        }
        let field_have = field_entries.len();
        drop(field_entries);
        report.customers = scan.customers.len();
        report.transactions = scan.txns.len();
        // Who holds each key (the last record read, when two do): sorted
        // (key hash, customer), 16 bytes a customer where a hash map of the
        // keys to their holders' ids took 50.
        let mut holders: Vec<(u64, u32)> = scan
            .customers
            .iter()
            .enumerate()
            .map(|(i, (_, c))| (c.key, i as u32))
            .collect();
        holders.sort_unstable_by_key(|&(k, i)| (k, std::cmp::Reverse(i)));
        key_invariants(&scan.customers, &holders, f);
        holders.dedup_by_key(|&mut (k, _)| k);
        let first_derived = f.len();
        if interrupted {
            f.push(Finding {
                path: super::META.into(),
                problem: "a `store check --repair` was interrupted while it rebuilt the indexes: \
                          they are incomplete, and every other command refuses the store until \
                          `store check --repair` finishes the rebuild"
                    .into(),
                repairable: true,
            });
        }
        // The positions are the customers' own only when the ids file lists
        // as many: else the field index checks that rely on them say nothing.
        let positions_ok = positions
            .as_ref()
            .is_some_and(|p| p.len() == scan.customers.len());
        // Some entry is one that no customer's value calls for: read the
        // buckets again to name those at a wrong position (see
        // [`Store::field_index`]).
        let mut field_found = field_found;
        if positions_ok && field_have > scan.field_found {
            field_found = self.field_index(positions.as_ref())?.0;
        }
        // Every current value is there (none missing) and there are more
        // entries than values: some name a value its profile no longer has
        // (an update without its removal line).
        if scan.field_missing.is_empty() && field_have > scan.field_expected {
            field_found.push((
                Finding {
                    path: "index/by-*".into(),
                    problem: format!(
                        "{} field index entries name a value that their profile no longer has",
                        field_have - scan.field_expected
                    ),
                    repairable: true,
                },
                true,
            ));
        }
        let field_found: Vec<Finding> = field_found
            .into_iter()
            .filter(|(_, needs)| !needs || positions_ok)
            .map(|(x, _)| x)
            .collect();
        if !positions_ok {
            scan.field_missing.clear();
            scan.field_missing_count = 0;
        }
        let derived = self.derived_findings(
            &scan,
            HashIndex::new(holders),
            positions.map(HashIndex::into_sorted),
            field_found,
            field_nested,
            f,
        )? || !scan.remove.is_empty()
            || interrupted;
        let derived_range = first_derived..f.len();
        super::idempotency::findings(&self.root, f)?;
        if repair {
            let (done, rebuilt) = self.repair(&mut scan, derived)?;
            report.repaired = done;
            // What remains after the repair: what it cannot fix, and the
            // derived data it would not rebuild.
            let mut i = 0;
            report.findings.retain(|x| {
                let kept = !x.repairable || (!rebuilt && derived_range.contains(&i));
                i += 1;
                kept
            });
            if derived && !rebuilt {
                report.findings.push(Finding {
                    path: scan.unreadable.join(", "),
                    problem: "the indexes and the queue were not rebuilt: a rebuild without \
                              these unreadable records would free their customer_key and \
                              drop their pending work; restore them (or move them out of \
                              the store), then run --repair again"
                        .into(),
                    repairable: false,
                });
            }
        }
        Ok(report)
    }

    /// Fix what can be fixed; whether the derived data was rebuilt (it is
    /// not while a record is unreadable: see [`Scan::unreadable`]).
    fn repair(&self, scan: &mut Scan, derived: bool) -> Result<(Vec<String>, bool)> {
        use std::os::unix::fs::PermissionsExt;
        let mut done = Vec::new();
        for t in &scan.temps {
            atomic::remove_file(&self.root, t)?;
            done.push(format!("removed {}", rel(&self.root, t)));
        }
        for p in &scan.remove {
            atomic::remove_file(&self.root, p)?;
            done.push(format!(
                "removed {} (not a regular file, or a file where a directory belongs)",
                rel(&self.root, p)
            ));
        }
        for d in DERIVED_DIRS {
            atomic::ensure_dir(&self.root, &self.root.join(d))?;
        }
        for (p, mode) in &scan.modes {
            match fs::set_permissions(p, fs::Permissions::from_mode(*mode)) {
                Ok(()) => done.push(format!(
                    "set the mode of {} to {mode:04o}",
                    rel(&self.root, p)
                )),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(p, e)),
            }
        }
        if !derived || !scan.unreadable.is_empty() {
            return Ok((done, false));
        }
        // Every record is readable (else nothing is rebuilt): they are read
        // again, in pieces (the scan's digests are no longer needed).
        let counted = (scan.customers.len(), scan.txns.len());
        scan.customers = Digests::default();
        scan.txns = Chunks::default();
        self.rebuild_derived(&scan.pending, counted)?;
        done.push(
            "rebuilt the key index, the attachment index, the field indexes, the summary logs, the profile ids, the transaction indexes and the worker queue".into(),
        );
        Ok((done, true))
    }
}

impl Store {
    /// Call `f` with every transaction record that parses, one at a time.
    pub(crate) fn each_readable_txn(&self, f: impl FnMut(TxnFile)) -> Result<()> {
        self.each_readable_record(TXNS_DIR, |t: &TxnFile| &t.transaction.transaction_id, f)
    }

    /// What the transaction indexes are built from: each readable
    /// transaction's creation time and summary.
    pub(crate) fn readable_txn_summaries(&self) -> Result<Vec<(String, TxnSummary)>> {
        let mut out = Vec::new();
        self.each_readable_txn(|t| {
            out.push((
                t.transaction.audit.created_datetime.clone(),
                TxnSummary::of(&t),
            ))
        })?;
        Ok(out)
    }
}

/// A customer_key held by two records, from the scan's digests: each
/// holder after the first (in the order of the scan) names the one before
/// it, as [`crate::model::invariants::keys_held_once`] does. `by_key` is
/// every `(key hash, customer)`, sorted by key and then latest first.
fn key_invariants(customers: &Digests, by_key: &[(u64, u32)], f: &mut Vec<Finding>) {
    let mut twice: Vec<(u32, u32)> = by_key
        .chunk_by(|a, b| a.0 == b.0)
        .flat_map(|run| run.windows(2).map(|w| (w[0].1, w[1].1)))
        .collect();
    twice.sort_unstable();
    for (later, earlier) in twice {
        let (id, _) = customers.get(later as usize);
        let (other, _) = customers.get(earlier as usize);
        f.push(finding_of(crate::model::invariants::key_held_twice(
            &id, &other,
        )));
    }
}

/// The spec's invariants within one customer record.
fn customer_invariants(c: &Customer, catalog: Option<&Catalog>, f: &mut Vec<Finding>) {
    f.extend(
        crate::model::invariants::customer(c, catalog)
            .into_iter()
            .map(finding_of),
    );
}

/// The spec's invariants within one transaction record.
fn txn_invariants(t: &TxnFile, catalog: Option<&Catalog>, f: &mut Vec<Finding>) {
    f.extend(
        crate::model::invariants::txn(t, catalog)
            .into_iter()
            .map(finding_of),
    );
}
