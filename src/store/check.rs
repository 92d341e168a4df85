//! `payctl store check [--repair]`: every file parses and has the current
//! format, the derived indexes agree with the aggregates, and the spec's
//! invariants hold. `--repair` rebuilds what is derived (key index,
//! attachment index, summary logs, the creation-order ids file, worker queue)
//! and removes stray temp files; it never deletes or rewrites a customer's or
//! a transaction's own record.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::index::{ProfileSummary, QueueItem, TxnSummary};
use super::journal::{JOURNAL, Journal, Op};
use super::{
    ATTACHMENTS_LOG, CUSTOMERS_DIR, JsonStore as Store, KEYS_DIR, PROFILE_IDS, PROFILES_LOG,
    QUEUE_DIR, TXNS_DIR, TXNS_LOG, atomic, attachments, fields, index, keys,
};
use crate::error::{Error, Result};
use crate::model::catalog::Catalog;
use crate::model::status::{attachment, txn as txn_status};
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file concerned, relative to the store.
    pub path: String,
    pub problem: String,
    /// Whether `--repair` fixes it (derived data, temp files).
    pub repairable: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub customers: usize,
    pub transactions: usize,
    pub findings: Vec<Finding>,
    /// What `--repair` did.
    pub repaired: Vec<String>,
}

struct Scan {
    customers: Vec<Customer>,
    txns: Vec<TxnFile>,
    temps: Vec<PathBuf>,
    /// Record files that could not be read as what their path says: a
    /// rebuild of the indexes would forget what they hold.
    unreadable: Vec<String>,
    /// What `--repair` removes: links, FIFOs and other non-regular files
    /// where derived data or the lock belong; files where a derived
    /// directory belongs.
    remove: Vec<PathBuf>,
    /// Files and directories whose mode is not 0600 / 0700: (path, mode).
    modes: Vec<(PathBuf, u32)>,
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

/// Every entry under `dir` (links not followed) with its metadata; a
/// directory where a record belongs (`customers/<xx>/…`) is listed, not
/// entered.
fn entries(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, fs::Metadata)>) -> Result<()> {
    let list = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for e in list {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let p = e.path();
        let meta = fs::symlink_metadata(&p).map_err(|e| Error::io(&p, e))?;
        let r = rel(root, &p);
        let record_slot = [CUSTOMERS_DIR, TXNS_DIR]
            .iter()
            .any(|d| r.starts_with(&format!("{d}/")) && r.matches('/').count() >= 2);
        let enter = meta.is_dir() && !record_slot;
        out.push((p.clone(), meta));
        if enter {
            entries(root, &p, out)?;
        }
    }
    Ok(())
}

impl Store {
    fn scan(&self, f: &mut Vec<Finding>) -> Result<Scan> {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        let root = &self.root;
        let mut all = Vec::new();
        entries(root, root, &mut all)?;
        let mut scan = Scan {
            customers: Vec::new(),
            txns: Vec::new(),
            temps: Vec::new(),
            unreadable: Vec::new(),
            remove: Vec::new(),
            modes: Vec::new(),
        };
        let finding = |p: &Path, problem: String, repairable: bool| Finding {
            path: rel(root, p),
            problem,
            repairable,
        };
        if let Ok(m) = fs::metadata(root)
            && m.permissions().mode() & 0o777 != 0o700
        {
            let mode = m.permissions().mode() & 0o777;
            f.push(Finding {
                path: ".".into(),
                problem: format!("the store's directory has mode {mode:04o}; it should be 0700"),
                repairable: true,
            });
            scan.modes.push((root.clone(), 0o700));
        }
        let mut files = Vec::new();
        for (p, meta) in all {
            let r = rel(root, &p);
            let t = meta.file_type();
            let mode = meta.permissions().mode() & 0o777;
            let in_records = [CUSTOMERS_DIR, TXNS_DIR]
                .iter()
                .any(|d| r.starts_with(&format!("{d}/")));
            let record_slot = in_records && r.matches('/').count() >= 2;
            let layout = [CUSTOMERS_DIR, TXNS_DIR, "index", KEYS_DIR, QUEUE_DIR]
                .contains(&r.as_str())
                || fields::Field::ALL.iter().any(|f| f.dir() == r);
            if t.is_dir() {
                let file_slot = [
                    super::lock::LOCK,
                    super::META,
                    super::CATALOG,
                    JOURNAL,
                    PROFILES_LOG,
                    PROFILE_IDS,
                    TXNS_LOG,
                    ATTACHMENTS_LOG,
                ]
                .contains(&r.as_str())
                    || r.starts_with(&format!("{QUEUE_DIR}/"));
                if file_slot {
                    f.push(finding(&p, "is a directory where a file should be (never removed by --repair: move it out of the store)".into(), false));
                    continue;
                }
                if record_slot {
                    f.push(finding(&p, "is a directory where a record file should be (never removed by --repair: move it out of the store)".into(), false));
                    scan.unreadable.push(r.clone());
                    continue;
                }
                if mode != 0o700 {
                    f.push(finding(
                        &p,
                        format!("is a directory with mode {mode:04o}; store directories are 0700"),
                        true,
                    ));
                    scan.modes.push((p.clone(), 0o700));
                }
                continue;
            }
            if !t.is_file() {
                let what = if t.is_symlink() {
                    "a symbolic link"
                } else if t.is_fifo() {
                    "a FIFO"
                } else if t.is_socket() {
                    "a socket"
                } else {
                    "a device"
                };
                let fixable = removable(&r) || atomic::is_temp(&p);
                let how = if fixable {
                    "--repair removes it"
                } else {
                    "replace it with the real file, or move it out of the store"
                };
                f.push(finding(&p, format!("is {what}; payctl never follows links or opens anything but regular files in the store ({how})"), fixable));
                if fixable {
                    scan.remove.push(p.clone());
                } else if in_records {
                    scan.unreadable.push(r.clone());
                }
                continue;
            }
            if layout {
                let fixable = removable(&r);
                f.push(finding(
                    &p,
                    format!(
                        "is a file where a directory should be ({})",
                        if fixable {
                            "--repair replaces it"
                        } else {
                            "move it out of the store"
                        }
                    ),
                    fixable,
                ));
                if fixable {
                    scan.remove.push(p.clone());
                }
                continue;
            }
            if mode != 0o600 && !atomic::is_temp(&p) {
                f.push(finding(
                    &p,
                    format!("has mode {mode:04o}; store files are 0600"),
                    true,
                ));
                scan.modes.push((p.clone(), 0o600));
            }
            files.push(p);
        }
        for p in files {
            let r = rel(root, &p);
            if atomic::is_temp(&p) {
                f.push(finding(
                    &p,
                    "stray temp file left by an interrupted write".into(),
                    true,
                ));
                scan.temps.push(p);
                continue;
            }
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("")
                .to_string();
            let stem = name.strip_suffix(".json").unwrap_or(&name).to_string();
            if r.starts_with(CUSTOMERS_DIR) {
                match atomic::read_record(&p)
                    .map(Option::unwrap_or_default)
                    .map_err(|e| e.errors[0].message.clone())
                    .and_then(|b| serde_json::from_slice::<Customer>(&b).map_err(|e| e.to_string()))
                {
                    Ok(c) if c.id() == stem && r == Store::customer_rel(&stem) => {
                        scan.customers.push(c)
                    }
                    Ok(_) => {
                        f.push(finding(
                            &p,
                            "holds a customer whose id does not match its path".into(),
                            false,
                        ));
                        scan.unreadable.push(r.clone());
                    }
                    Err(e) => {
                        f.push(finding(
                            &p,
                            format!("does not parse as a customer record: {e}"),
                            false,
                        ));
                        scan.unreadable.push(r.clone());
                    }
                }
            } else if r.starts_with(TXNS_DIR) {
                match atomic::read_record(&p)
                    .map(Option::unwrap_or_default)
                    .map_err(|e| e.errors[0].message.clone())
                    .and_then(|b| serde_json::from_slice::<TxnFile>(&b).map_err(|e| e.to_string()))
                {
                    Ok(t) if t.transaction.transaction_id == stem && r == Store::txn_rel(&stem) => {
                        scan.txns.push(t)
                    }
                    Ok(_) => {
                        f.push(finding(
                            &p,
                            "holds a transaction whose id does not match its path".into(),
                            false,
                        ));
                        scan.unreadable.push(r.clone());
                    }
                    Err(e) => {
                        f.push(finding(
                            &p,
                            format!("does not parse as a transaction record: {e}"),
                            false,
                        ));
                        scan.unreadable.push(r.clone());
                    }
                }
            }
        }
        Ok(scan)
    }

    /// Check the store; with `repair`, rebuild derived data first (the caller
    /// holds the exclusive lock then).
    pub fn check(&self, repair: bool) -> Result<Report> {
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
        let scan = self.scan(f)?;
        report.customers = scan.customers.len();
        report.transactions = scan.txns.len();
        invariants(&scan.customers, &scan.txns, catalog.as_ref(), f);
        let first_derived = f.len();
        let derived = self.derived_findings(&scan, f)? || !scan.remove.is_empty();
        let derived_range = first_derived..f.len();
        super::idempotency::findings(&self.root, f)?;
        if repair {
            let (done, rebuilt) = self.repair(&scan, derived)?;
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
    /// rebuild is needed.
    fn derived_findings(&self, scan: &Scan, f: &mut Vec<Finding>) -> Result<bool> {
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
        let mut entries: HashMap<String, Vec<(String, String)>> = HashMap::new();
        let mut nested = Vec::new();
        let mut key_files = Vec::new();
        walk(&root.join(KEYS_DIR), &mut key_files)?;
        let keys_root = root.join(KEYS_DIR);
        // The bucket files, by hash prefix: a file below another that
        // exists is never read (readers stop at the first file on a key's path).
        let buckets: BTreeSet<Vec<u8>> = key_files
            .iter()
            .filter(|p| !atomic::is_temp(p))
            .filter_map(|p| p.strip_prefix(&keys_root).ok()?.to_str())
            .filter_map(keys::prefix_of_rel)
            .collect();
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
                entries.entry(key).or_default().push((r.clone(), owner));
            }
        }
        let holders: HashMap<&str, &str> = scan
            .customers
            .iter()
            .map(|c| (c.profile.customer_key.as_str(), c.id()))
            .collect();
        for c in &scan.customers {
            let key = c.profile.customer_key.as_str();
            if !entries
                .get(key)
                .is_some_and(|e| e.iter().any(|(_, owner)| owner == c.id()))
            {
                let p = keys::prefix(key);
                let depth = (0..=keys::MAX_DEPTH)
                    .find(|&d| buckets.contains(&p[..=d]))
                    .unwrap_or(0);
                push(
                    &keys::path_at(key, depth),
                    format!("customer_key of {} is missing from the key index", c.id()),
                );
            }
        }
        let mut dangling: Vec<(&String, &String)> = entries
            .iter()
            .flat_map(|(key, e)| e.iter().map(move |(path, owner)| (key, path, owner)))
            .filter(|(key, _, owner)| holders.get(key.as_str()) != Some(&owner.as_str()))
            .map(|(_, path, owner)| (path, owner))
            .collect();
        dangling.sort();
        for (path, owner) in dangling {
            push(
                path,
                format!(
                    "dangling key index entry (points to {owner}, which does not hold the key)"
                ),
            );
        }
        // Attachment index: each profile-program record listed, nothing else.
        let att_path = root.join(ATTACHMENTS_LOG);
        let att_len = fs::metadata(&att_path).map(|m| m.len()).unwrap_or(0);
        match index::complete_lines(&att_path).map(|l| (l.len() as u64, attachments::all(&l))) {
            Err(e) => push(ATTACHMENTS_LOG, e.errors[0].message.clone()),
            Ok((_, Err(n))) => push(
                ATTACHMENTS_LOG,
                format!("line {n} is not `<program id> <customer id>`"),
            ),
            Ok((complete, Ok(pairs))) => {
                if complete != att_len {
                    push(ATTACHMENTS_LOG, "ends with a partial line".into());
                }
                let have: BTreeSet<(String, String)> = pairs.into_iter().collect();
                let want: BTreeSet<(String, String)> = scan
                    .customers
                    .iter()
                    .flat_map(|c| {
                        c.attachments
                            .iter()
                            .map(|a| (a.program_id.clone(), c.id().to_string()))
                    })
                    .collect();
                for (prm, csp) in want.difference(&have) {
                    push(
                        ATTACHMENTS_LOG,
                        format!(
                            "the record of {csp} in {prm} is missing from the attachment index"
                        ),
                    );
                }
                for (prm, csp) in have.difference(&want) {
                    push(
                        ATTACHMENTS_LOG,
                        format!("lists {csp} in {prm}, which has no such record"),
                    );
                }
            }
        }
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
        // Profile summaries.
        match self.profiles() {
            Ok(log) => {
                let want: BTreeMap<&str, ProfileSummary> = scan
                    .customers
                    .iter()
                    .map(|c| (c.id(), ProfileSummary::of(&c.profile)))
                    .collect();
                let have: BTreeMap<&str, &ProfileSummary> =
                    log.iter().map(|s| (s.id.as_str(), s)).collect();
                if have.len() != want.len() || want.iter().any(|(id, s)| have.get(id) != Some(&s)) {
                    push(
                        PROFILES_LOG,
                        "does not agree with the customer records".into(),
                    );
                }
            }
            Err(e) => push(PROFILES_LOG, e.errors[0].message.clone()),
        }
        // Creation order: the ids file lists every customer once, in the
        // order of the summary log.
        let ids_path = root.join(PROFILE_IDS);
        let len = fs::metadata(&ids_path).map(|m| m.len()).unwrap_or(0);
        let ids = if ids_path.exists() {
            index::ids_all(&ids_path).map_err(|e| e.errors[0].message.clone())
        } else {
            Ok(Vec::new())
        };
        match ids {
            Err(e) => push(PROFILE_IDS, e),
            Ok(_) if !len.is_multiple_of(index::ID_RECORD as u64) => {
                push(PROFILE_IDS, "ends with a partial record".into())
            }
            Ok(ids) => {
                let known: BTreeSet<&str> = scan.customers.iter().map(|c| c.id()).collect();
                // (An unreadable log is a finding of its own.)
                let log_order: Option<Vec<String>> = self
                    .profiles()
                    .ok()
                    .map(|l| l.into_iter().map(|s| s.id).collect());
                let distinct: BTreeSet<&String> = ids.iter().collect();
                if ids.len() != known.len()
                    || distinct.len() != ids.len()
                    || ids.iter().any(|id| !known.contains(id.as_str()))
                {
                    push(
                        PROFILE_IDS,
                        format!(
                            "does not list each of the {} customer records once",
                            known.len()
                        ),
                    );
                } else if log_order.is_some_and(|log| {
                    log.iter()
                        .filter(|id| known.contains(id.as_str()))
                        .ne(ids.iter())
                }) {
                    push(
                        PROFILE_IDS,
                        "does not list the profiles in the creation order of the summary log"
                            .into(),
                    );
                }
            }
        }
        match self.txns() {
            Ok(log) => {
                let want: BTreeMap<&str, TxnSummary> = scan
                    .txns
                    .iter()
                    .map(|t| (t.transaction.transaction_id.as_str(), TxnSummary::of(t)))
                    .collect();
                let have: BTreeMap<&str, &TxnSummary> =
                    log.iter().map(|s| (s.id.as_str(), s)).collect();
                if have.len() != want.len() || want.iter().any(|(id, s)| have.get(id) != Some(&s)) {
                    push(
                        TXNS_LOG,
                        "does not agree with the transaction records".into(),
                    );
                }
            }
            Err(e) => push(TXNS_LOG, e.errors[0].message.clone()),
        }
        // Field indexes: every bucket parses, every customer's current
        // values are there at its position in creation order, and every
        // entry names a customer at that position (an entry of a value the
        // customer no longer has is harmless: readers confirm each).
        let positions: Option<HashMap<String, usize>> = index::ids_all(&ids_path)
            .ok()
            .filter(|ids| ids.len() == scan.customers.len())
            .map(|ids| ids.into_iter().enumerate().map(|(i, id)| (id, i)).collect());
        let mut have: BTreeSet<(fields::Field, String, usize, String)> = BTreeSet::new();
        for field in fields::Field::ALL {
            let dir = root.join(field.dir());
            let mut files = Vec::new();
            walk(&dir, &mut files)?;
            for p in files.iter().filter(|p| !atomic::is_temp(p)) {
                let r = rel(root, p);
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if p.parent() != Some(&dir) {
                    nested.push(Finding {
                        path: r,
                        problem: "is in a directory of its own under a field index: remove it"
                            .into(),
                        repairable: false,
                    });
                    continue;
                }
                let Some(b) = fields::bucket_of_name(name) else {
                    push(&r, "is not a bucket of a field index (`<bb>.log`)".into());
                    continue;
                };
                let Ok(Some(bytes)) = atomic::read_opt(p) else {
                    push(&r, "cannot be read as a bucket of a field index".into());
                    continue;
                };
                let parsed = fields::parse_bucket(field, b, &bytes);
                for problem in parsed.problems {
                    push(&r, problem);
                }
                for (pos, id, v) in parsed.entries {
                    if let Some(positions) = &positions
                        && positions.get(&id) != Some(&pos)
                    {
                        push(
                            &r,
                            format!(
                                "an entry names {id} at position {pos}, which is not its place in creation order"
                            ),
                        );
                    }
                    have.insert((field, v, pos, id));
                }
            }
        }
        if let Some(positions) = &positions {
            for c in &scan.customers {
                let s = ProfileSummary::of(&c.profile);
                let Some(&pos) = positions.get(c.id()) else {
                    continue;
                };
                for field in fields::Field::ALL {
                    for v in field.values(&s) {
                        if !have.contains(&(field, v.clone(), pos, c.id().to_string())) {
                            push(
                                &fields::bucket_rel(field, &v),
                                format!("a value of {} is missing from {}", c.id(), field.dir()),
                            );
                        }
                    }
                }
            }
        }
        // The worker's queue: exactly the pending work.
        // (A queue that is not a directory is a finding of the scan.)
        let queued: BTreeSet<String> = self
            .queue()
            .unwrap_or_default()
            .iter()
            .map(queue_key)
            .collect();
        let pending = pending_work(scan);
        for k in pending.difference(&queued) {
            push(
                QUEUE_DIR,
                format!("pending work {k} is not queued for the worker"),
            );
        }
        for k in queued.difference(&pending) {
            push(
                QUEUE_DIR,
                format!("queue item {k} refers to no pending work"),
            );
        }
        let rebuild = f.len() != before;
        f.extend(nested);
        Ok(rebuild)
    }

    /// Fix what can be fixed; whether the derived data was rebuilt (it is
    /// not while a record is unreadable: see [`Scan::unreadable`]).
    fn repair(&self, scan: &Scan, derived: bool) -> Result<(Vec<String>, bool)> {
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
        // Key index: rebuilt whole (one put per bucket), anything else removed.
        let mut journal = Journal {
            ops: self.key_index_ops(
                scan.customers
                    .iter()
                    .map(|c| (c.profile.customer_key.as_str(), c.id())),
            )?,
        };
        // Attachment index: the order it had, then the rest by creation time.
        let kept = index::complete_lines(&self.root.join(ATTACHMENTS_LOG))
            .ok()
            .and_then(|l| attachments::all(&l).ok())
            .unwrap_or_default();
        journal.ops.push(Op::Put {
            path: ATTACHMENTS_LOG.into(),
            data: attachments::rebuild(&kept, &scan.customers),
        });
        // Summary logs: keep the known creation order, then the rest by creation time.
        let order = |log: Vec<String>, mut rest: Vec<(String, String)>| -> Vec<String> {
            let known: BTreeSet<&String> = rest.iter().map(|(_, id)| id).collect();
            let mut out: Vec<String> = log.into_iter().filter(|id| known.contains(id)).collect();
            let seen: BTreeSet<String> = out.iter().cloned().collect();
            rest.retain(|(_, id)| !seen.contains(id));
            rest.sort();
            out.extend(rest.into_iter().map(|(_, id)| id));
            out
        };
        let old: Vec<String> = self
            .profiles()
            .map(|l| l.into_iter().map(|s| s.id).collect())
            .unwrap_or_default();
        let by_id: HashMap<&str, &Customer> = scan.customers.iter().map(|c| (c.id(), c)).collect();
        let ids = order(
            old,
            scan.customers
                .iter()
                .map(|c| (c.profile.audit.created_datetime.clone(), c.id().to_string()))
                .collect(),
        );
        let mut text = String::new();
        let mut id_records = String::new();
        for id in &ids {
            text.push_str(
                &serde_json::to_string(&ProfileSummary::of(&by_id[id.as_str()].profile))
                    .expect("json"),
            );
            text.push('\n');
            id_records.push_str(&index::id_record(id));
        }
        journal.ops.push(Op::Put {
            path: PROFILES_LOG.into(),
            data: text,
        });
        journal.ops.push(Op::Put {
            path: PROFILE_IDS.into(),
            data: id_records,
        });
        let ordered: Vec<ProfileSummary> = ids
            .iter()
            .map(|id| ProfileSummary::of(&by_id[id.as_str()].profile))
            .collect();
        journal.ops.extend(self.field_ops_of(&ordered)?);
        let old: Vec<String> = self
            .txns()
            .map(|l| l.into_iter().map(|s| s.id).collect())
            .unwrap_or_default();
        let by_id: HashMap<&str, &TxnFile> = scan
            .txns
            .iter()
            .map(|t| (t.transaction.transaction_id.as_str(), t))
            .collect();
        let ids = order(
            old,
            scan.txns
                .iter()
                .map(|t| {
                    (
                        t.transaction.audit.created_datetime.clone(),
                        t.transaction.transaction_id.clone(),
                    )
                })
                .collect(),
        );
        let mut text = String::new();
        for id in &ids {
            text.push_str(
                &serde_json::to_string(&TxnSummary::of(by_id[id.as_str()])).expect("json"),
            );
            text.push('\n');
        }
        journal.ops.push(Op::Put {
            path: TXNS_LOG.into(),
            data: text,
        });
        // Queue: drop stale items, add missing ones.
        let pending = pending_work(scan);
        let queued = self.queue()?;
        let mut have = BTreeSet::new();
        for q in &queued {
            let k = queue_key(q);
            if pending.contains(&k) && have.insert(k) {
                continue;
            }
            journal.ops.push(Op::Delete {
                path: format!("{QUEUE_DIR}/{}", q.file_name()),
            });
        }
        for c in &scan.customers {
            for a in &c.attachments {
                if a.customer_profile_program_status_id == attachment::PENDING
                    && !have.contains(&format!("att.{}.{}", c.id(), a.program_id))
                {
                    let q = QueueItem::attach(c.id(), &a.program_id);
                    journal.ops.push(Op::Put {
                        path: format!("{QUEUE_DIR}/{}", q.file_name()),
                        data: String::new(),
                    });
                }
            }
        }
        for t in &scan.txns {
            let id = &t.transaction.transaction_id;
            if is_open(t) && !have.contains(&format!("trn.{id}")) {
                let q = QueueItem::txn(id);
                journal.ops.push(Op::Put {
                    path: format!("{QUEUE_DIR}/{}", q.file_name()),
                    data: String::new(),
                });
            }
        }
        super::journal::commit(&self.root, &journal)?;
        done.push(
            "rebuilt the key index, the attachment index, the field indexes, the summary logs, the profile ids and the worker queue".into(),
        );
        Ok((done, true))
    }
}

fn is_open(t: &TxnFile) -> bool {
    matches!(
        t.transaction.transaction_status_id,
        txn_status::CREATED | txn_status::PROCESSING
    )
}

fn queue_key(q: &QueueItem) -> String {
    match q {
        QueueItem::Attach {
            customer_id,
            program_id,
            ..
        } => format!("att.{customer_id}.{program_id}"),
        QueueItem::Txn { transaction_id, .. } => format!("trn.{transaction_id}"),
    }
}

fn pending_work(scan: &Scan) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in &scan.customers {
        for a in &c.attachments {
            if a.customer_profile_program_status_id == attachment::PENDING {
                out.insert(format!("att.{}.{}", c.id(), a.program_id));
            }
        }
    }
    for t in &scan.txns {
        if is_open(t) {
            out.insert(format!("trn.{}", t.transaction.transaction_id));
        }
    }
    out
}

/// The spec's invariants over the records themselves.
pub(crate) fn invariants(
    customers: &[Customer],
    txns: &[TxnFile],
    catalog: Option<&Catalog>,
    f: &mut Vec<Finding>,
) {
    let mut keys: HashMap<&str, &str> = HashMap::new();
    for c in customers {
        let path = Store::customer_rel(c.id());
        let mut bad = |problem: String| {
            f.push(Finding {
                path: path.clone(),
                problem,
                repairable: false,
            })
        };
        if let Some(other) = keys.insert(&c.profile.customer_key, c.id()) {
            bad(format!("customer_key is also held by {other}"));
        }
        if c.addresses.iter().filter(|a| a.is_default).count() > 1 {
            bad("more than one default address".into());
        }
        for t in [1, 2] {
            if c.instruments
                .iter()
                .filter(|i| i.is_default && i.payment_instrument_type_id == t)
                .count()
                > 1
            {
                bad(format!("more than one default instrument of type {t}"));
            }
        }
        let mut programs = BTreeSet::new();
        for a in &c.attachments {
            if !programs.insert(&a.program_id) {
                bad(format!("attached twice to {}", a.program_id));
            }
            if catalog.is_some_and(|cat| cat.program(&a.program_id).is_none()) {
                bad(format!("attached to unknown program {}", a.program_id));
            }
        }
        let ids: Vec<&str> = c
            .addresses
            .iter()
            .map(|a| a.address_id.as_str())
            .chain(
                c.instruments
                    .iter()
                    .map(|i| i.payment_instrument_id.as_str()),
            )
            .collect();
        if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
            bad("an address or instrument id is used twice".into());
        }
        if !id::is_valid(id::CUSTOMER, c.id()) {
            bad("malformed customer id".into());
        }
    }
    for t in txns {
        let path = Store::txn_rel(&t.transaction.transaction_id);
        let mut seqs = BTreeSet::new();
        for s in &t.steps {
            if !seqs.insert(s.sequence) {
                f.push(Finding {
                    path: path.clone(),
                    problem: format!(
                        "step sequence {} appears twice (steps generated twice)",
                        s.sequence
                    ),
                    repairable: false,
                });
            }
        }
        if catalog.is_some_and(|cat| {
            cat.template(&t.transaction.transaction_template_id)
                .is_none()
        }) {
            f.push(Finding {
                path: path.clone(),
                problem: "refers to an unknown transaction template".into(),
                repairable: false,
            });
        }
    }
}
