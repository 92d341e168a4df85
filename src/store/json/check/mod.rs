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
//! The scan is in `scan.rs`, what it keeps of each record in `digest.rs`,
//! the files streamed line by line in `lines.rs`; here, the checks across
//! records, of the indexes and logs against them, and the repair.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

mod digest;
mod lines;
mod scan;

use self::digest::{Chunks, Digests};
pub(super) use self::lines::each_log_line;
use self::lines::{LineSum, each_complete_line, stream_log, sum_lines};
use self::scan::{Scan, Shared, attachment_hash};
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
use crate::store::types::{ProfileSummary, QueueItem, TxnSummary};

/// A 64-bit hash (SipHash with fixed keys: the same in every thread and
/// run). Two different values share one with a chance of about one in
/// 10^19 per pair: the checks across records compare these hashes.
pub(super) fn h64<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(v)
}

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

fn rel(root: &Path, p: &Path) -> String {
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
    /// Check the store; with `repair`, rebuild derived data first (the caller
    /// holds the exclusive lock then).
    pub fn check(&self, repair: bool) -> Result<Report> {
        self.check_with(repair, &|_, _| {})
    }

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
        if super::safefs::exists(&self.root.join(JOURNAL)).unwrap_or(true) {
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
        if super::safefs::exists(&applied).unwrap_or(false)
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
        let (field_found, field_nested, field_entries) = self.field_index(positions.as_deref())?;
        let sh = Shared {
            root: &self.root,
            catalog: catalog.as_ref(),
            positions: positions.as_deref(),
            field_entries: &field_entries,
            unread_packed: Default::default(),
        };
        let mut scan = self.scan(f, &sh, progress)?;
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
        // Every current value is there (none missing) and there are more
        // entries than values: some name a value its profile no longer has
        // (an update without its removal line).
        let mut field_found = field_found;
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
        let derived =
            self.derived_findings(&scan, holders, positions, field_found, field_nested, f)?
                || !scan.remove.is_empty()
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

    /// Compare the derived data with what the aggregates say; true when a
    /// rebuild is needed. Memory: the digests of the scan, and per index one
    /// hash or two per entry; the logs and buckets are streamed.
    fn derived_findings(
        &self,
        scan: &Scan,
        holders: Vec<(u64, u32)>,
        positions: Option<Vec<(u64, u32)>>,
        field_found: Vec<Finding>,
        field_nested: Vec<Finding>,
        f: &mut Vec<Finding>,
    ) -> Result<bool> {
        let before = f.len();
        let root = &self.root;
        let mut push = |path: &str, problem: String| {
            f.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        // Key index: every bucket parses, every customer's key names it,
        // every entry names a customer that holds the key.
        let mut nested = Vec::new();
        let mut key_files = Vec::new();
        walk(&root.join(KEYS_DIR), &mut key_files)?;
        key_files.sort();
        let keys_root = root.join(KEYS_DIR);
        // The bucket files, by hash prefix: a file below another that
        // exists is never read (readers stop at the first file on a key's path).
        let buckets: BTreeSet<Vec<u8>> = key_files
            .iter()
            .filter(|p| !atomic::is_temp(p))
            .filter_map(|p| p.strip_prefix(&keys_root).ok()?.to_str())
            .filter_map(keys::prefix_of_rel)
            .collect();
        let holder = |k: u64| {
            holders
                .binary_search_by_key(&k, |&(h, _)| h)
                .ok()
                .map(|at| holders[at].1)
        };
        let mut listed = vec![false; scan.customers.len()];
        // Entries naming a customer that is not the key's holder: (key hash,
        // owner), and where they are.
        let mut others: BTreeSet<(u64, String)> = BTreeSet::new();
        let mut dangling: Vec<(String, String)> = Vec::new();
        let mut dangling_count = 0usize;
        for p in key_files.iter().filter(|p| !atomic::is_temp(p)) {
            let r = rel(root, p);
            let under = p
                .strip_prefix(&keys_root)
                .ok()
                .and_then(|u| u.to_str())
                .unwrap_or("");
            let Some(prefix) = keys::prefix_of_rel(under) else {
                if p.parent() != Some(&keys_root) {
                    // Repair removes files, never a directory and what it holds.
                    nested.push(Finding {
                        path: r,
                        problem: "is in a directory of its own under the key index: remove it"
                            .into(),
                        repairable: false,
                    });
                } else {
                    push(&r, "is not a bucket of the key index (`<bb>.log`)".into());
                }
                continue;
            };
            if let Some(above) = (1..prefix.len()).find(|&n| buckets.contains(&prefix[..n])) {
                push(
                    &r,
                    format!(
                        "is below the bucket {}, which readers read instead (a split left unfinished)",
                        keys::prefix_path(&prefix[..above])
                    ),
                );
                continue;
            }
            // (A link or a FIFO here is a finding of the scan.)
            let Ok(Some(bytes)) = atomic::read_opt(p) else {
                push(&r, "cannot be read as a bucket of the key index".into());
                continue;
            };
            let parsed = keys::parse_bucket(&prefix, &bytes);
            for problem in parsed.problems {
                push(&r, problem);
            }
            for (key, owner) in parsed.entries {
                let k = h64(key.as_str());
                match holder(k) {
                    Some(i) if *scan.customers.get(i as usize).0 == *owner => {
                        listed[i as usize] = true
                    }
                    _ => {
                        others.insert((k, owner.clone()));
                        dangling_count += 1;
                        if dangling.len() < UNLISTED_SHOWN {
                            dangling.push((r.clone(), owner));
                        }
                    }
                }
            }
        }
        let mut unlisted = 0usize;
        for ((id, c), listed) in scan.customers.iter().zip(&listed) {
            if !listed && !others.contains(&(c.key, id.to_string())) {
                unlisted += 1;
                if unlisted > UNLISTED_SHOWN {
                    continue;
                }
                let depth = (0..=keys::MAX_DEPTH)
                    .find(|&d| buckets.contains(&c.key_prefix[..=d]))
                    .unwrap_or(0);
                push(
                    &keys::prefix_path(&c.key_prefix[..=depth]),
                    format!("customer_key of {id} is missing from the key index"),
                );
            }
        }
        if unlisted > UNLISTED_SHOWN {
            push(
                KEYS_DIR,
                format!(
                    "the customer_key of {} more customers is missing from the key index",
                    unlisted - UNLISTED_SHOWN
                ),
            );
        }
        drop((holders, listed, others));
        dangling.sort();
        for (path, owner) in dangling {
            push(
                &path,
                format!(
                    "dangling key index entry (points to {owner}, which does not hold the key)"
                ),
            );
        }
        if dangling_count > UNLISTED_SHOWN {
            push(
                KEYS_DIR,
                format!(
                    "{} more key index entries point to a customer that does not hold the key",
                    dangling_count - UNLISTED_SHOWN
                ),
            );
        }
        // Attachment index: each profile-program record listed, nothing else.
        self.attachment_findings(&scan.attached, &mut push)?;
        // The summary logs end with a complete line: a torn or zero-filled
        // tail would be cut silently by the next append.
        for log in [PROFILES_LOG, TXNS_LOG] {
            let p = root.join(log);
            let len = match super::safefs::open(&p, super::safefs::How::READ) {
                Ok(Some(file)) => file.metadata().map(|m| m.len()).unwrap_or(0),
                _ => continue,
            };
            let complete = index::complete_len(&p).unwrap_or(len);
            if complete != len {
                push(
                    log,
                    format!(
                        "ends with {} bytes after its last complete line (a torn or zero-filled tail)",
                        len - complete
                    ),
                );
            }
        }
        // Profile summaries: the latest line of each id, in the order of
        // first appearance (creation order).
        let known: Vec<u64> = {
            let mut k: Vec<u64> = scan.customers.iter().map(|(id, _)| h64(&*id)).collect();
            k.sort_unstable();
            k
        };
        let log_order: Option<Vec<u64>> = match stream_log::<ProfileSummary>(
            &root.join(PROFILES_LOG),
            scan.customers.len(),
            |s| &s.id,
        ) {
            Ok((latest, order)) => {
                if latest.len() != scan.customers.len()
                    || scan
                        .customers
                        .iter()
                        .any(|(id, c)| latest.get(&h64(&*id)) != Some(&c.summary))
                {
                    push(
                        PROFILES_LOG,
                        "does not agree with the customer records".into(),
                    );
                }
                Some(order)
            }
            Err(e) => {
                push(PROFILES_LOG, e);
                None
            }
        };
        // Creation order: the ids file lists every customer once, in the
        // order of the summary log.
        let ids_path = root.join(PROFILE_IDS);
        let len = fs::metadata(&ids_path).map(|m| m.len()).unwrap_or(0);
        match positions {
            None => {
                let e = index::ids_all(&ids_path).err().map_or_else(
                    || "cannot be read".to_string(),
                    |e| e.errors[0].message.clone(),
                );
                push(PROFILE_IDS, e);
            }
            Some(_) if !len.is_multiple_of(index::ID_RECORD as u64) => {
                push(PROFILE_IDS, "ends with a partial record".into())
            }
            Some(mut ids) => {
                let distinct = ids.windows(2).all(|w| w[0].0 != w[1].0);
                if ids.len() != known.len()
                    || !distinct
                    || ids.iter().any(|(h, _)| known.binary_search(h).is_err())
                {
                    push(
                        PROFILE_IDS,
                        format!(
                            "does not list each of the {} customer records once",
                            known.len()
                        ),
                    );
                } else if let Some(log) = log_order {
                    ids.sort_unstable_by_key(|(_, pos)| *pos);
                    if log
                        .iter()
                        .filter(|h| known.binary_search(h).is_ok())
                        .ne(ids.iter().map(|(h, _)| h))
                    {
                        push(
                            PROFILE_IDS,
                            "does not list the profiles in the creation order of the summary log"
                                .into(),
                        );
                    }
                }
            }
        }
        drop(known);
        let mut txn_log_agrees = false;
        match stream_log::<TxnSummary>(&root.join(TXNS_LOG), scan.txns.len(), |s| &s.id) {
            Ok((latest, _)) => {
                if latest.len() != scan.txns.len()
                    || scan
                        .txns
                        .iter()
                        .any(|t| latest.get(&t.id) != Some(&t.summary))
                {
                    push(
                        TXNS_LOG,
                        "does not agree with the transaction records".into(),
                    );
                } else {
                    txn_log_agrees = true;
                }
            }
            Err(e) => push(TXNS_LOG, e),
        }
        // Field indexes: every bucket parses, every customer's current
        // values are there at its position in creation order (checked as
        // the records were read), every entry names a customer at that
        // position, and there are no more entries than current values.
        f.extend(field_found);
        f.extend(scan.field_missing.iter().cloned());
        if scan.field_missing_count > scan.field_missing.len() {
            f.push(Finding {
                path: "index/by-*".into(),
                problem: format!(
                    "{} more values of profiles are missing from the field indexes",
                    scan.field_missing_count - scan.field_missing.len()
                ),
                repairable: true,
            });
        }
        f.extend(self.txn_index_findings(txn_log_agrees)?);
        let mut push = |path: &str, problem: String| {
            f.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        // The worker's queue: exactly the pending work.
        // (A queue that is not a directory is a finding of the scan.)
        let queued: BTreeSet<String> = self
            .queue()
            .unwrap_or_default()
            .iter()
            .map(QueueItem::key)
            .collect();
        for k in scan.pending.difference(&queued) {
            push(
                QUEUE_DIR,
                format!("pending work {k} is not queued for the worker"),
            );
        }
        for k in queued.difference(&scan.pending) {
            push(
                QUEUE_DIR,
                format!("queue item {k} refers to no pending work"),
            );
        }
        let rebuild = f.len() != before;
        f.extend(nested);
        f.extend(field_nested);
        Ok(rebuild)
    }

    /// The attachment index against the records: each profile-program
    /// record listed (in any order; a line twice does no harm), and nothing
    /// else. `want` is the records' pairs as [`attachment_hash`], sorted.
    ///
    /// The pairs are compared as hashes, 8 bytes a side, never as text (a
    /// million attachments were a few hundred MB as sets of strings). Only
    /// when they differ are the pairs named: those the log lists too many of
    /// by a second read of the log, those it lacks by a second read of the
    /// customer records (a repair reads them all again anyway).
    fn attachment_findings(&self, want: &[u64], push: &mut dyn FnMut(&str, String)) -> Result<()> {
        let path = self.root.join(ATTACHMENTS_LOG);
        let mut have = Vec::new();
        let mut bad = None;
        let mut n = 0usize;
        let read = each_complete_line(&path, &mut |line| {
            n += 1;
            if line.is_empty() || bad.is_some() {
                return Ok(());
            }
            match attachments::parse(line) {
                Some((prm, csp)) => have.push(attachment_hash(prm, csp)),
                None => bad = Some(n),
            }
            Ok(())
        });
        let partial = match read {
            Ok(partial) => partial.unwrap_or(false),
            Err(e) => {
                push(ATTACHMENTS_LOG, e.errors[0].message.clone());
                return Ok(());
            }
        };
        if let Some(n) = bad {
            push(
                ATTACHMENTS_LOG,
                format!("line {n} is not `<program id> <customer id>`"),
            );
            return Ok(());
        }
        if partial {
            push(ATTACHMENTS_LOG, "ends with a partial line".into());
        }
        have.sort_unstable();
        have.dedup();
        let missing: std::collections::HashSet<u64> = want
            .iter()
            .filter(|h| have.binary_search(h).is_err())
            .copied()
            .collect();
        let extra: std::collections::HashSet<u64> = have
            .iter()
            .filter(|h| want.binary_search(h).is_err())
            .copied()
            .collect();
        drop(have);
        // The first pairs in (program, customer) order, the rest counted.
        let keep = |named: &mut BTreeSet<(String, String)>, prm: &str, csp: &str| {
            named.insert((prm.to_string(), csp.to_string()));
            if named.len() > ATTACHMENTS_SHOWN {
                named.pop_last();
            }
        };
        if !missing.is_empty() {
            let mut named = BTreeSet::new();
            self.each_readable_customer(|c| {
                for a in &c.attachments {
                    if missing.contains(&attachment_hash(&a.program_id, c.id())) {
                        keep(&mut named, &a.program_id, c.id());
                    }
                }
            })?;
            for (prm, csp) in &named {
                push(
                    ATTACHMENTS_LOG,
                    format!("the record of {csp} in {prm} is missing from the attachment index"),
                );
            }
            if missing.len() > named.len() {
                push(
                    ATTACHMENTS_LOG,
                    format!(
                        "{} more profile-program records are missing from the attachment index",
                        missing.len() - named.len()
                    ),
                );
            }
        }
        if !extra.is_empty() {
            let mut named = BTreeSet::new();
            each_complete_line(&path, &mut |line| {
                if let Some((prm, csp)) = attachments::parse(line)
                    && extra.contains(&attachment_hash(prm, csp))
                {
                    keep(&mut named, prm, csp);
                }
                Ok(())
            })?;
            for (prm, csp) in &named {
                push(
                    ATTACHMENTS_LOG,
                    format!("lists {csp} in {prm}, which has no such record"),
                );
            }
            if extra.len() > named.len() {
                push(
                    ATTACHMENTS_LOG,
                    format!(
                        "lists {} more profile-program records that no customer holds",
                        extra.len() - named.len()
                    ),
                );
            }
        }
        Ok(())
    }

    /// The transaction indexes ([`txn_index`]) against the transaction
    /// records: `index/transactions.ids` lists each transaction once, in the
    /// creation order of the summary log; every other file holds exactly
    /// the lines that the records and those positions give (in any order).
    /// When the summary log agrees with the records (`log_agrees`: its
    /// latest line of each transaction is the record's summary), the
    /// summaries are streamed from it instead of read from every record
    /// again.
    ///
    /// Memory stays small at a million transactions (issue 17): nothing
    /// holds the summaries or the files' expected text. Each expected file
    /// is kept as the number of its lines and the sum of their 64-bit
    /// hashes ([`LineSum`]), and the ids as hashes; only a file whose sum
    /// differs is looked at line by line, its expected lines gathered in a
    /// second pass, to say what it lacks or holds too many of.
    fn txn_index_findings(&self, log_agrees: bool) -> Result<Vec<Finding>> {
        let mut out = Vec::new();
        let mut push = |path: &str, problem: String| {
            out.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        let mut want: BTreeMap<String, LineSum> = BTreeMap::new();
        let mut ordered: Vec<u64> = Vec::new();
        self.each_ordered_txn(log_agrees, &mut |pos, s| {
            if ordered.len() <= pos {
                ordered.resize(pos + 1, 0);
            }
            ordered[pos] = h64(s.id.as_str());
            for (path, line) in txn_index::entries(pos, s) {
                want.entry(path).or_default().add(line.as_bytes());
            }
        })?;
        let ids_path = self.root.join(txn_index::TXN_IDS);
        let len = fs::metadata(&ids_path).map(|m| m.len()).unwrap_or(0);
        let mut listed: Vec<u64> = Vec::with_capacity(ordered.len());
        if let Err(e) = index::ids_each(&ids_path, |id| listed.push(h64(id))) {
            push(txn_index::TXN_IDS, e.errors[0].message.clone());
            return Ok(out);
        }
        if !len.is_multiple_of(index::ID_RECORD as u64) {
            push(txn_index::TXN_IDS, "ends with a partial record".into());
            return Ok(out);
        }
        if listed != ordered {
            // The same ids (the records' are distinct), only in another
            // order; or not each record's id once.
            let (mut a, mut b) = (listed.clone(), ordered.clone());
            a.sort_unstable();
            b.sort_unstable();
            let problem = if a == b {
                "does not list the transactions in the creation order of the summary log".into()
            } else {
                format!(
                    "does not list each of the {} transaction records once (it lists {} ids)",
                    ordered.len(),
                    listed.len()
                )
            };
            push(txn_index::TXN_IDS, problem);
            return Ok(out);
        }
        drop((listed, ordered));
        let mut have: BTreeSet<String> = BTreeSet::new();
        for dir in txn_index::dirs() {
            let mut files = Vec::new();
            walk(&self.root.join(dir), &mut files)?;
            for p in files.iter().filter(|p| !atomic::is_temp(p)) {
                have.insert(rel(&self.root, p));
            }
        }
        // Each expected file: missing, or whether it ends with a partial
        // line and whether its complete lines are the expected ones.
        enum Seen {
            Missing,
            Present { partial: bool, agrees: bool },
        }
        let mut seen = Vec::with_capacity(want.len());
        for (r, expected) in &want {
            let Ok(Some((actual, partial))) = sum_lines(&self.root.join(r)) else {
                seen.push(Seen::Missing);
                continue;
            };
            seen.push(Seen::Present {
                partial,
                agrees: actual == *expected,
            });
        }
        // The expected lines of the files that differ, for the details.
        let mut differing: HashMap<&str, String> = want
            .keys()
            .zip(&seen)
            .filter(|(_, s)| matches!(s, Seen::Present { agrees: false, .. }))
            .map(|(r, _)| (r.as_str(), String::new()))
            .collect();
        if !differing.is_empty() {
            self.each_ordered_txn(log_agrees, &mut |pos, s| {
                for (path, line) in txn_index::entries(pos, s) {
                    if let Some(text) = differing.get_mut(path.as_str()) {
                        text.push_str(&line);
                    }
                }
            })?;
        }
        let lines = |b: &[u8]| -> Vec<Vec<u8>> {
            let mut v: Vec<Vec<u8>> = index::complete(b)
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            v.sort_unstable();
            v
        };
        for ((r, sum), seen) in want.iter().zip(seen) {
            match seen {
                Seen::Missing => {
                    push(
                        r,
                        format!(
                            "is missing: {} entr{} of the transaction records",
                            sum.n,
                            if sum.n == 1 { "y" } else { "ies" }
                        ),
                    );
                    continue;
                }
                Seen::Present { partial, agrees } => {
                    if partial {
                        push(r, "ends with a partial line".into());
                    }
                    if agrees {
                        continue;
                    }
                }
            }
            let expected = lines(differing.get(r.as_str()).map_or(&[][..], |t| t.as_bytes()));
            let bytes = atomic::read_opt(&self.root.join(r))?.unwrap_or_default();
            let actual = lines(&bytes);
            let missing = expected
                .iter()
                .filter(|l| actual.binary_search(l).is_err())
                .count();
            let extra: Vec<&Vec<u8>> = actual
                .iter()
                .filter(|l| expected.binary_search(l).is_err())
                .collect();
            if missing > 0 {
                push(
                    r,
                    format!("lacks {missing} line(s) that the transaction records give"),
                );
            }
            if let Some(first) = extra.first() {
                push(
                    r,
                    format!(
                        "holds {} line(s) that no transaction record gives (such as `{}`)",
                        extra.len(),
                        String::from_utf8_lossy(first)
                    ),
                );
            } else if actual.len() > expected.len() {
                push(r, "holds a line twice".into());
            }
        }
        for r in have.iter().filter(|r| !want.contains_key(*r)) {
            push(
                r,
                "is not a file of the transaction indexes that the records give (a stale or foreign file)".into(),
            );
        }
        Ok(out)
    }

    /// Each transaction's summary with its position in creation order, to
    /// `f` (not in position order when streamed from the log). From the
    /// summary log when it agrees with the records (`log_agrees`): its
    /// latest line of each transaction at the position of its first line,
    /// found in two passes over the log that keep only a small entry per
    /// transaction. Otherwise from the records, in memory (a damaged store).
    fn each_ordered_txn(
        &self,
        log_agrees: bool,
        f: &mut dyn FnMut(usize, &TxnSummary),
    ) -> Result<()> {
        let path = self.root.join(TXNS_LOG);
        if log_agrees {
            // Per transaction (by the hash of its id): its position, and the
            // number of its last line.
            let mut at: HashMap<u64, (u32, u32)> = HashMap::new();
            let mut fits = true;
            each_log_line(&path, &mut |n, s: TxnSummary| {
                let (Ok(n), Ok(next)) = (u32::try_from(n), u32::try_from(at.len())) else {
                    fits = false;
                    return;
                };
                at.entry(h64(s.id.as_str()))
                    .and_modify(|e| e.1 = n)
                    .or_insert((next, n));
            })?;
            if fits {
                return each_log_line(&path, &mut |n, s: TxnSummary| {
                    if let Some(&(pos, last)) = at.get(&h64(s.id.as_str()))
                        && last as usize == n
                    {
                        f(pos as usize, &s);
                    }
                });
            }
        }
        let ordered = self.ordered_txn_summaries(self.readable_txn_summaries()?)?;
        for (pos, s) in ordered.iter().enumerate() {
            f(pos, s);
        }
        Ok(())
    }

    /// Fix what can be fixed; whether the derived data was rebuilt (it is
    /// not while a record is unreadable: see [`Scan::unreadable`]).
    fn repair(&self, scan: &mut Scan, derived: bool) -> Result<(Vec<String>, bool)> {
        use std::os::unix::fs::PermissionsExt;
        let mut done = Vec::new();
        for t in &scan.temps {
            atomic::remove_file(t)?;
            done.push(format!("removed {}", rel(&self.root, t)));
        }
        for p in &scan.remove {
            atomic::remove_file(p)?;
            done.push(format!(
                "removed {} (not a regular file, or a file where a directory belongs)",
                rel(&self.root, p)
            ));
        }
        for d in DERIVED_DIRS {
            atomic::ensure_dir(&self.root.join(d))?;
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
