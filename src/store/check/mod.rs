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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

mod digest;

use self::digest::{Chunks, CustDigest, Digests, Odd, PackedId, TxnDigest};
use super::facts::is_open;
use super::index::{ProfileSummary, QueueItem, TxnSummary};
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

/// A 64-bit hash (SipHash with fixed keys: the same in every thread and
/// run). Two different values share one with a chance of about one in
/// 10^19 per pair: the checks across records compare these hashes.
pub(super) fn h64<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(v)
}

/// What one part of the scan (the files outside the record shards, or one
/// shard) found and kept.
#[derive(Default)]
struct Part {
    /// Problems of the files themselves (modes, types, parse errors).
    findings: Vec<Finding>,
    /// The spec's invariants broken within one record.
    invariants: Vec<Finding>,
    /// A customer's indexed value that its field index lacks (see
    /// [`Shared::positions`]): the first [`FIELD_MISSING_SHOWN`].
    field_missing: Vec<Finding>,
    /// How many values the field indexes lack in all.
    field_missing_count: usize,
    /// How many field index entries the customers' current values call for.
    field_expected: usize,
    temps: Vec<PathBuf>,
    unreadable: Vec<String>,
    remove: Vec<PathBuf>,
    modes: Vec<(PathBuf, u32)>,
    customers: Vec<CustDigest>,
    /// The ids of `customers` that do not pack (see [`PackedId`]).
    odd: Odd,
    /// Every attachment the customers hold, as [`attachment_hash`].
    attached: Vec<u64>,
    txns: Vec<TxnDigest>,
    /// Pending work the records hold (`att.<csp>.<prm>`, `trn.<id>`).
    pending: Vec<String>,
    /// Every entry the shards' logs of packed records name (see
    /// [`packs`]): the packs must be covered exactly.
    placed: Vec<Placed>,
    /// The packs found (`packs/<n>.jsonl`) with their size.
    packs: Vec<(u64, u64)>,
}

impl Part {
    /// Give back the unused capacity of what a part keeps until every shard
    /// is scanned: its vectors grew by doubling, up to twice their length,
    /// and at a million customers and a million transactions that slack was
    /// tens of MB of `store check`'s peak (256 MB against its limit of 256).
    fn shrink(&mut self) {
        self.customers.shrink_to_fit();
        self.txns.shrink_to_fit();
        self.placed.shrink_to_fit();
        self.pending.shrink_to_fit();
    }
}

struct Scan {
    customers: Digests,
    txns: Chunks<TxnDigest>,
    /// Every attachment the customers hold, as [`attachment_hash`]: sorted,
    /// each once.
    attached: Vec<u64>,
    pending: BTreeSet<String>,
    field_missing: Vec<Finding>,
    field_missing_count: usize,
    field_expected: usize,
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

/// What every scanning thread reads.
struct Shared<'a> {
    root: &'a Path,
    catalog: Option<&'a Catalog>,
    /// Creation-order positions from `index/profiles.ids`, `(hash of the
    /// id, position)` sorted; `None` when the file cannot be read.
    positions: Option<&'a [(u64, u32)]>,
    /// Hashes of every field index entry `(field, value, position, id)`.
    field_entries: &'a Hashes,
    /// Packed records that could not be read so far (the first
    /// [`UNREAD_PACKED_SHOWN`] are named).
    unread_packed: std::sync::atomic::AtomicUsize,
}

/// A set of 64-bit hashes: sorted, with a table of where each value of
/// their top 16 bits begins, so that a lookup binary searches one short run
/// (about n/65,536 hashes, a cache line or two) instead of the whole array,
/// whose every step would miss the cache (at a million customers the field
/// entries are 40 MB). The table costs 256 KB.
struct Hashes {
    sorted: Vec<u64>,
    starts: Vec<u32>,
}

impl Hashes {
    const RUNS: usize = 1 << 16;

    fn new(mut hashes: Vec<u64>) -> Hashes {
        hashes.sort_unstable();
        hashes.dedup();
        // Grown by doubling, up to twice its length: kept through the whole
        // scan of the records, the peak of `store check`'s memory.
        hashes.shrink_to_fit();
        let mut starts = vec![0u32; Self::RUNS + 1];
        for h in &hashes {
            starts[(h >> 48) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Hashes {
            sorted: hashes,
            starts,
        }
    }

    fn len(&self) -> usize {
        self.sorted.len()
    }

    fn contains(&self, h: u64) -> bool {
        let run = (h >> 48) as usize;
        let (a, b) = (self.starts[run] as usize, self.starts[run + 1] as usize);
        self.sorted[a..b].binary_search(&h).is_ok()
    }
}

/// A profile-program record (or a line of the attachment index naming
/// one) as `store check` compares them: a hash of the pair.
fn attachment_hash(program_id: &str, customer_id: &str) -> u64 {
    h64(&(program_id, customer_id))
}

fn position_of(positions: &[(u64, u32)], id: &str) -> Option<usize> {
    let k = h64(id);
    let i = positions.partition_point(|(h, _)| *h < k);
    positions
        .get(i)
        .filter(|(h, _)| *h == k)
        .map(|(_, p)| *p as usize)
}

fn field_entry(field: fields::Field, value: &str, pos: usize, id: &str) -> u64 {
    h64(&(field, value, pos, id))
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

/// Whether `r` (store-relative) is a record shard (`customers/<xx>`).
fn is_shard(r: &str) -> bool {
    [CUSTOMERS_DIR, TXNS_DIR].iter().any(|d| {
        r.strip_prefix(d)
            .and_then(|s| s.strip_prefix('/'))
            .is_some_and(|s| !s.contains('/'))
    })
}

/// Every entry under `dir` (links not followed) with its metadata; a
/// directory where a record belongs (`customers/<xx>/…`) is listed, not
/// entered; a record shard (`customers/<xx>`) is listed, and entered only
/// when `shards` is `None` (else it goes there, for the threads).
fn entries(
    root: &Path,
    dir: &Path,
    out: &mut Vec<(PathBuf, fs::Metadata)>,
    mut shards: Option<&mut Vec<PathBuf>>,
) -> Result<()> {
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
            match shards.as_deref_mut() {
                Some(s) if is_shard(&r) => s.push(p),
                _ => entries(root, &p, out, shards.as_deref_mut())?,
            }
        }
    }
    Ok(())
}

/// Classify one entry of the store: a finding for what is wrong with it;
/// `Some` of a regular file to read.
fn classify(root: &Path, p: PathBuf, st_mode: u32, part: &mut Part) -> Option<PathBuf> {
    use rustix::fs::FileType;
    let finding = |p: &Path, problem: String, repairable: bool| Finding {
        path: rel(root, p),
        problem,
        repairable,
    };
    let f = &mut part.findings;
    let r = rel(root, &p);
    let t = FileType::from_raw_mode(st_mode as _);
    let mode = st_mode & 0o777;
    let in_records = [CUSTOMERS_DIR, TXNS_DIR, packs::PACKS_DIR]
        .iter()
        .any(|d| r.starts_with(&format!("{d}/")));
    let record_slot = in_records && r.matches('/').count() >= 2;
    let layout = [
        CUSTOMERS_DIR,
        TXNS_DIR,
        packs::PACKS_DIR,
        "index",
        KEYS_DIR,
        QUEUE_DIR,
    ]
    .contains(&r.as_str())
        || fields::Field::ALL.iter().any(|f| f.dir() == r);
    if t == FileType::Directory {
        let file_slot = [
            super::lock::LOCK,
            super::META,
            super::CATALOG,
            JOURNAL,
            super::journal::APPLIED,
            PROFILES_LOG,
            PROFILE_IDS,
            TXNS_LOG,
            ATTACHMENTS_LOG,
        ]
        .contains(&r.as_str())
            || r.starts_with(&format!("{QUEUE_DIR}/"));
        if file_slot {
            f.push(finding(&p, "is a directory where a file should be (never removed by --repair: move it out of the store)".into(), false));
            return None;
        }
        if record_slot {
            f.push(finding(&p, "is a directory where a record file should be (never removed by --repair: move it out of the store)".into(), false));
            part.unreadable.push(r.clone());
            return None;
        }
        if mode != 0o700 {
            f.push(finding(
                &p,
                format!("is a directory with mode {mode:04o}; store directories are 0700"),
                true,
            ));
            part.modes.push((p.clone(), 0o700));
        }
        return None;
    }
    if t != FileType::RegularFile {
        let what = match t {
            FileType::Symlink => "a symbolic link",
            FileType::Fifo => "a FIFO",
            FileType::Socket => "a socket",
            _ => "a device",
        };
        let fixable = removable(&r) || atomic::is_temp(&p);
        let how = if fixable {
            "--repair removes it"
        } else {
            "replace it with the real file, or move it out of the store"
        };
        f.push(finding(&p, format!("is {what}; payctl never follows links or opens anything but regular files in the store ({how})"), fixable));
        if fixable {
            part.remove.push(p.clone());
        } else if in_records {
            part.unreadable.push(r.clone());
        }
        return None;
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
            part.remove.push(p.clone());
        }
        return None;
    }
    if mode != 0o600 && !atomic::is_temp(&p) {
        f.push(finding(
            &p,
            format!("has mode {mode:04o}; store files are 0600"),
            true,
        ));
        part.modes.push((p.clone(), 0o600));
    }
    Some(p)
}

/// Read one regular file of the store: a temp file is noted, a record
/// parsed, checked on its own and digested.
fn read_file(sh: &Shared, p: PathBuf, at: Option<(&safefs::Dir, &OsStr)>, part: &mut Part) {
    let root = sh.root;
    let read_record = |p: &Path| match at {
        Some((dir, name)) => dir.read(name, Some(atomic::RECORD_BYTES)),
        None => atomic::read_record(p),
    };
    let r = rel(root, &p);
    let finding = |problem: String, repairable: bool| Finding {
        path: r.clone(),
        problem,
        repairable,
    };
    if atomic::is_temp(&p) {
        part.findings.push(finding(
            "stray temp file left by an interrupted write".into(),
            true,
        ));
        part.temps.push(p);
        return;
    }
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.strip_suffix(".json").unwrap_or(name).to_string();
    if let Some(n) = r.strip_prefix(&format!("{}/", packs::PACKS_DIR)) {
        // Read entry by entry through the logs (see `scan_packed`).
        match (packs::pack_of_name(n), safefs::lstat(&p)) {
            (Some(n), Ok(Some(st))) => part.packs.push((n, st.st_size.max(0) as u64)),
            (Some(_), _) => {}
            (None, _) => part.findings.push(finding(
                "is not a pack of customer records (`<n>.jsonl`): move it out of the store".into(),
                false,
            )),
        }
    } else if r.starts_with(CUSTOMERS_DIR) {
        let read = read_record(&p);
        if let Some(c) = record_of::<Customer>(
            read,
            &r,
            &stem,
            Customer::id,
            Store::customer_rel,
            "a customer",
            part,
        ) {
            digest_customer(sh, &c, part);
        }
    } else if r.starts_with(TXNS_DIR) {
        let read = read_record(&p);
        if let Some(t) = record_of::<TxnFile>(
            read,
            &r,
            &stem,
            |t| &t.transaction.transaction_id,
            Store::txn_rel,
            "a transaction",
            part,
        ) {
            txn_invariants(&t, sh.catalog, &mut part.invariants);
            if is_open(&t) {
                part.pending
                    .push(format!("trn.{}", t.transaction.transaction_id));
            }
            part.txns.push(TxnDigest {
                id: h64(t.transaction.transaction_id.as_str()),
                summary: h64(&serde_json::to_string(&TxnSummary::of(&t)).unwrap_or_default()),
            });
        }
    }
}

/// The record file at `r` (its name's stem `stem`), read as `read`, parsed
/// as `what` (a `T`): `None`, with a finding and the file noted unreadable,
/// when it cannot be read, does not parse, or holds a record whose id
/// (`id_of`) is not the one its path (`rel_of`) names.
#[allow(clippy::too_many_arguments)]
fn record_of<T: serde::de::DeserializeOwned>(
    read: Result<Option<Vec<u8>>>,
    r: &str,
    stem: &str,
    id_of: fn(&T) -> &str,
    rel_of: fn(&str) -> String,
    what: &str,
    part: &mut Part,
) -> Option<T> {
    let problem = match read
        .map(Option::unwrap_or_default)
        .map_err(|e| e.errors[0].message.clone())
        .and_then(|b| serde_json::from_slice::<T>(&b).map_err(|e| e.to_string()))
    {
        Ok(rec) if id_of(&rec) == stem && r == rel_of(stem) => return Some(rec),
        Ok(_) => format!("holds {what} whose id does not match its path"),
        Err(e) => format!("does not parse as {what} record: {e}"),
    };
    part.findings.push(Finding {
        path: r.to_string(),
        problem,
        repairable: false,
    });
    part.unreadable.push(r.to_string());
    None
}

/// Check one customer record on its own and keep its digest.
fn digest_customer(sh: &Shared, c: &Customer, part: &mut Part) {
    customer_invariants(c, sh.catalog, &mut part.invariants);
    let s = ProfileSummary::of(&c.profile);
    if let Some(positions) = sh.positions
        && let Some(pos) = position_of(positions, c.id())
    {
        for field in fields::Field::ALL {
            for v in field.values(&s) {
                part.field_expected += 1;
                if !sh
                    .field_entries
                    .contains(field_entry(field, &v, pos, c.id()))
                {
                    part.field_missing_count += 1;
                    if part.field_missing.len() == FIELD_MISSING_SHOWN {
                        continue;
                    }
                    part.field_missing.push(Finding {
                        path: fields::bucket_rel(field, &v),
                        problem: format!("a value of {} is missing from {}", c.id(), field.dir()),
                        repairable: true,
                    });
                }
            }
        }
    }
    for a in &c.attachments {
        if a.customer_profile_program_status_id == attachment::PENDING {
            part.pending
                .push(format!("att.{}.{}", c.id(), a.program_id));
        }
    }
    part.attached.extend(
        c.attachments
            .iter()
            .map(|a| attachment_hash(&a.program_id, c.id())),
    );
    part.customers.push(CustDigest {
        id: PackedId::new(c.id(), &mut part.odd),
        key: h64(c.profile.customer_key.as_str()),
        key_prefix: keys::prefix(&c.profile.customer_key),
        summary: h64(&serde_json::to_string(&s).unwrap_or_default()),
    });
}

/// Check the log of packed records of the customer shard `d` (whose
/// entries are `names`) and every record it names that has no file of its
/// own: each line well formed and in its shard, each id once, each entry
/// the customer its line names (see [`packs`]).
fn scan_packed(sh: &Shared, d: &safefs::Dir, names: &[std::ffi::OsString], part: &mut Part) {
    let log_path = d.path().join(packs::LOG);
    let log_rel = rel(sh.root, &log_path);
    let finding = |path: &str, problem: String| Finding {
        path: path.to_string(),
        problem,
        repairable: false,
    };
    let bytes = match packs::read_log(d) {
        Ok(Some(b)) => b,
        Ok(None) => return,
        Err(e) => {
            part.findings.push(finding(
                &log_rel,
                format!("cannot be read: {}", e.errors[0].message),
            ));
            part.unreadable.push(log_rel);
            return;
        }
    };
    if index::complete(&bytes).len() != bytes.len() {
        part.findings.push(finding(
            &log_rel,
            "ends with a line without its newline (never written by payctl)".into(),
        ));
        part.unreadable.push(log_rel.clone());
    }
    let own: std::collections::HashSet<&OsStr> = names.iter().map(|n| n.as_os_str()).collect();
    let shard = d.path().file_name().and_then(|n| n.to_str()).unwrap_or("");
    let mut seen = std::collections::HashSet::new();
    let mut opened = packs::Opened::default();
    for (n, entry) in packs::log_lines(&bytes) {
        let Some((cid, place)) = entry else {
            part.findings.push(finding(
                &log_rel,
                format!("line {n} is not `<id> <pack> <offset> <length>`"),
            ));
            part.unreadable.push(log_rel.clone());
            continue;
        };
        if crate::model::id::shard(cid) != shard {
            part.findings.push(finding(
                &log_rel,
                format!("line {n} names {cid}, which belongs to another shard"),
            ));
            part.unreadable.push(log_rel.clone());
            continue;
        }
        if !seen.insert(cid.to_string()) {
            part.findings.push(finding(
                &log_rel,
                format!("line {n} names {cid} again: a customer is packed once"),
            ));
            part.unreadable.push(log_rel.clone());
            continue;
        }
        part.placed.push(Placed {
            offset: place.offset,
            pack: place.pack as u32,
            len: place.len as u32,
        });
        if own.contains(OsStr::new(&format!("{cid}.json"))) {
            // Its own file is the record (an update wrote it).
            continue;
        }
        let read = opened.read(sh.root, place).and_then(|b| {
            packs::customer_of(&b, &sh.root.join(packs::pack_rel(place.pack)), place, cid)
                .map_err(|e| e.errors[0].message.clone())
        });
        match read {
            Ok(c) => digest_customer(sh, &c, part),
            Err(e) => {
                let n = sh
                    .unread_packed
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n < UNREAD_PACKED_SHOWN {
                    part.findings.push(finding(
                        &log_rel,
                        format!("line {n}: the packed record of {cid} cannot be read: {e}"),
                    ));
                }
                part.unreadable.push(log_rel.clone());
            }
        }
    }
}

/// Where a log of packed records places an entry, as the check keeps it for
/// [`pack_coverage`]: 16 bytes (a million at a million customers).
#[derive(Clone, Copy)]
struct Placed {
    offset: u64,
    pack: u32,
    len: u32,
}

/// The packs' coverage: the entries that the logs name must tile each pack
/// exactly, and name only packs that exist. `runs` are the entries of each
/// part of the scan, merged here as they are read (a million entries are
/// 16 MB: never copied into one vector).
fn pack_coverage(
    mut runs: Vec<Vec<Placed>>,
    found: &[(u64, u64)],
    f: &mut Vec<Finding>,
    unreadable: &mut Vec<String>,
) {
    use std::cmp::Reverse;
    for r in &mut runs {
        r.sort_unstable_by_key(|p| (p.pack, p.offset));
    }
    // Per pack named, in order: where its entries end, and the first gap or
    // overlap (where the next entry should begin, where it does).
    struct Span {
        pack: u32,
        end: u64,
        overlap: Option<(u64, u64)>,
    }
    let mut spans: Vec<Span> = Vec::new();
    let mut next = vec![0usize; runs.len()];
    let mut heads: std::collections::BinaryHeap<Reverse<(u32, u64, usize)>> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.first().map(|p| Reverse((p.pack, p.offset, i))))
        .collect();
    while let Some(Reverse((_, _, i))) = heads.pop() {
        let p = runs[i][next[i]];
        next[i] += 1;
        if let Some(q) = runs[i].get(next[i]) {
            heads.push(Reverse((q.pack, q.offset, i)));
        }
        match spans.last_mut() {
            Some(s) if s.pack == p.pack => {
                if p.offset != s.end && s.overlap.is_none() {
                    s.overlap = Some((s.end, p.offset));
                }
                s.end = s.end.max(p.offset.saturating_add(u64::from(p.len)));
            }
            _ => spans.push(Span {
                pack: p.pack,
                end: p.offset.saturating_add(u64::from(p.len)),
                overlap: (p.offset != 0).then_some((0, p.offset)),
            }),
        }
    }
    drop(runs);
    let sizes: HashMap<u64, u64> = found.iter().copied().collect();
    let mut problem = |path: String, problem: String, unreadable: &mut Vec<String>| {
        f.push(Finding {
            path: path.clone(),
            problem,
            repairable: false,
        });
        unreadable.push(path);
    };
    let mut named = std::collections::HashSet::new();
    for Span { pack, end, overlap } in spans {
        let n = u64::from(pack);
        named.insert(n);
        let path = packs::pack_rel(n);
        match sizes.get(&n) {
            None => problem(
                path,
                "does not exist, yet a log of packed records names it".into(),
                unreadable,
            ),
            Some(_) if overlap.is_some() => {
                let (at, next) = overlap.unwrap_or_default();
                problem(
                    path,
                    format!(
                        "the logs of packed records do not name its bytes {at}.. exactly \
                         (the next entry they name is at {next})"
                    ),
                    unreadable,
                );
            }
            Some(&size) if end != size => problem(
                path,
                format!(
                    "is {size} bytes, but the entries the logs of packed records name end at {end}"
                ),
                unreadable,
            ),
            Some(_) => {}
        }
    }
    for (n, _) in found {
        if !named.contains(n) {
            problem(
                packs::pack_rel(*n),
                "no log of packed records names any of its entries".into(),
                unreadable,
            );
        }
    }
}

/// Read one record shard (`customers/<xx>`): every entry classified, every
/// file read.
///
/// The shard is opened once and its entries are reached by name from it
/// (`fstatat`, `openat`): a walk from the store's root for each of a
/// million files was most of the check's time.
fn scan_shard(sh: &Shared, dir: &Path, part: &mut Part) -> Result<()> {
    let Some(d) = safefs::Dir::open(dir, false)? else {
        return Ok(());
    };
    let mut names = d.names()?;
    names.sort();
    let mut files = Vec::with_capacity(names.len());
    for name in names.iter().cloned() {
        // (One removed since it was listed is not there to check.)
        let Some(st) = d.lstat(&name)? else {
            continue;
        };
        if let Some(p) = classify(sh.root, dir.join(&name), st.st_mode, part) {
            files.push((p, name));
        }
    }
    let customers = dir
        .parent()
        .is_some_and(|p| p == sh.root.join(CUSTOMERS_DIR));
    let mut log = false;
    for (p, name) in files {
        if customers && name == packs::LOG {
            log = true;
            continue;
        }
        read_file(sh, p, Some((&d, &name)), part);
    }
    if log {
        scan_packed(sh, &d, &names, part);
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
    /// The creation-order positions of `index/profiles.ids` as `(hash of
    /// the id, position)`, sorted; `None` when it cannot be read.
    fn positions(&self) -> Option<Vec<(u64, u32)>> {
        let path = self.root.join(PROFILE_IDS);
        let n = index::ids_count(&path).ok()?;
        let mut out = Vec::with_capacity(n);
        for start in (0..n).step_by(IDS_CHUNK) {
            for (i, id) in index::ids_range(&path, start, start + IDS_CHUNK)
                .ok()?
                .into_iter()
                .enumerate()
            {
                out.push((h64(id.as_str()), (start + i) as u32));
            }
        }
        out.sort_unstable();
        Some(out)
    }

    /// Read every field index bucket: its problems (each with whether it
    /// holds only when the positions are the customers' own, see
    /// [`Store::check`]), the files that are not buckets (nested), and the
    /// sorted hashes of every entry.
    #[allow(clippy::type_complexity)]
    fn field_index(
        &self,
        positions: Option<&[(u64, u32)]>,
    ) -> Result<(Vec<(Finding, bool)>, Vec<Finding>, Hashes)> {
        let root = &self.root;
        let mut found = Vec::new();
        let mut nested = Vec::new();
        let mut have = Vec::new();
        let mut misplaced_count = 0usize;
        let finding = |path: String, problem: String| Finding {
            path,
            problem,
            repairable: true,
        };
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
                    found.push((
                        finding(r, "is not a bucket of a field index (`<bb>.log`)".into()),
                        false,
                    ));
                    continue;
                };
                let Ok(Some(bytes)) = atomic::read_opt(p) else {
                    found.push((
                        finding(r, "cannot be read as a bucket of a field index".into()),
                        false,
                    ));
                    continue;
                };
                // Each entry's hash, and its id when its position is not the
                // customer's (to name it).
                let parsed = fields::parse_bucket(field, b, &bytes, |pos, id, v| {
                    let misplaced =
                        positions.is_some_and(|positions| position_of(positions, id) != Some(pos));
                    (
                        field_entry(field, v, pos, id),
                        misplaced.then(|| id.to_string()),
                    )
                });
                for problem in parsed.problems {
                    found.push((finding(r.clone(), problem), false));
                }
                for (pos, (entry, misplaced)) in parsed.entries {
                    if let Some(id) = misplaced {
                        misplaced_count += 1;
                        if misplaced_count <= MISPLACED_SHOWN {
                            found.push((
                                finding(
                                    r.clone(),
                                    format!(
                                        "an entry names {id} at position {pos}, which is not its place in creation order"
                                    ),
                                ),
                                true,
                            ));
                        }
                    }
                    have.push(entry);
                }
            }
        }
        if misplaced_count > MISPLACED_SHOWN {
            found.push((
                finding(
                    "index/by-*".into(),
                    format!(
                        "{} more entries name a profile at a position that is not its place in \
                         creation order",
                        misplaced_count - MISPLACED_SHOWN
                    ),
                ),
                true,
            ));
        }
        Ok((found, nested, Hashes::new(have)))
    }

    /// Every file of the store classified, every record read and checked on
    /// its own, in parallel over the record shards (one thread per core);
    /// `progress(shards done, shards)` after each shard.
    fn scan(
        &self,
        f: &mut Vec<Finding>,
        sh: &Shared,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Scan> {
        use std::os::unix::fs::PermissionsExt;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let root = &self.root;
        let mut outside = Part::default();
        if let Ok(m) = fs::metadata(root)
            && m.permissions().mode() & 0o777 != 0o700
        {
            let mode = m.permissions().mode() & 0o777;
            outside.findings.push(Finding {
                path: ".".into(),
                problem: format!("the store's directory has mode {mode:04o}; it should be 0700"),
                repairable: true,
            });
            outside.modes.push((root.clone(), 0o700));
        }
        let mut all = Vec::new();
        let mut shards = Vec::new();
        entries(root, root, &mut all, Some(&mut shards))?;
        let files: Vec<PathBuf> = all
            .into_iter()
            .filter_map(|(p, meta)| classify(root, p, meta.mode(), &mut outside))
            .collect();
        for p in files {
            read_file(sh, p, None, &mut outside);
        }
        shards.sort();
        let total = shards.len();
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let results: Vec<Result<Vec<(usize, Part)>>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| -> Result<Vec<(usize, Part)>> {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(dir) = shards.get(i) else {
                                return Ok(mine);
                            };
                            let mut part = Part::default();
                            scan_shard(sh, dir, &mut part)?;
                            part.shrink();
                            mine.push((i, part));
                            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|_| {
                        Err(Error::one(
                            crate::error::code::STORE_IO,
                            "store check: a scanning thread failed",
                        ))
                    })
                })
                .collect()
        });
        let mut parts = vec![(0usize, outside)];
        for r in results {
            parts.extend(r?.into_iter().map(|(i, p)| (i + 1, p)));
        }
        parts.sort_by_key(|(i, _)| *i);
        let mut scan = Scan {
            customers: Digests::default(),
            txns: Chunks::default(),
            attached: Vec::new(),
            pending: BTreeSet::new(),
            field_missing: Vec::new(),
            field_missing_count: 0,
            field_expected: 0,
            temps: Vec::new(),
            unreadable: Vec::new(),
            remove: Vec::new(),
            modes: Vec::new(),
        };
        let mut invariants = Vec::new();
        // Each part's own, sorted (see `pack_coverage`): merged into one
        // vector, a million entries were there twice for a moment.
        let mut placed = Vec::new();
        let mut found_packs = Vec::new();
        for (_, p) in parts {
            f.extend(p.findings);
            invariants.extend(p.invariants);
            let room = FIELD_MISSING_SHOWN - scan.field_missing.len();
            scan.field_missing
                .extend(p.field_missing.into_iter().take(room));
            scan.field_missing_count += p.field_missing_count;
            scan.field_expected += p.field_expected;
            scan.temps.extend(p.temps);
            scan.unreadable.extend(p.unreadable);
            scan.remove.extend(p.remove);
            scan.modes.extend(p.modes);
            scan.customers.push_chunk(p.customers, p.odd);
            scan.txns.push_chunk(p.txns);
            scan.attached.extend(p.attached);
            scan.pending.extend(p.pending);
            placed.push(p.placed);
            found_packs.extend(p.packs);
        }
        scan.attached.sort_unstable();
        scan.attached.dedup();
        pack_coverage(placed, &found_packs, f, &mut scan.unreadable);
        f.extend(invariants);
        Ok(scan)
    }

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
            self.each_readable_record(CUSTOMERS_DIR, Customer::id, |c: Customer| {
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

/// The spec's invariants over the records themselves (see
/// [`crate::core::invariants`]), as findings naming the records' files.
pub(crate) fn invariants(
    customers: &[Customer],
    txns: &[TxnFile],
    catalog: Option<&Catalog>,
    f: &mut Vec<Finding>,
) {
    f.extend(
        crate::core::invariants::all(customers, txns, catalog)
            .into_iter()
            .map(finding_of),
    );
}

/// A broken invariant as a finding on its record's file.
pub(crate) fn finding_of(v: crate::core::invariants::Violation) -> Finding {
    use crate::core::invariants::Subject;
    Finding {
        path: match &v.subject {
            Subject::Customer(id) => Store::customer_rel(id),
            Subject::Txn(id) => Store::txn_rel(id),
        },
        problem: v.problem,
        repairable: false,
    }
}

/// A customer_key held by two records, from the scan's digests: each
/// holder after the first (in the order of the scan) names the one before
/// it, as [`crate::core::invariants::keys_held_once`] does. `by_key` is
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
        f.push(finding_of(crate::core::invariants::key_held_twice(
            &id, &other,
        )));
    }
}

/// The spec's invariants within one customer record.
fn customer_invariants(c: &Customer, catalog: Option<&Catalog>, f: &mut Vec<Finding>) {
    f.extend(
        crate::core::invariants::customer(c, catalog)
            .into_iter()
            .map(finding_of),
    );
}

/// The spec's invariants within one transaction record.
fn txn_invariants(t: &TxnFile, catalog: Option<&Catalog>, f: &mut Vec<Finding>) {
    f.extend(
        crate::core::invariants::txn(t, catalog)
            .into_iter()
            .map(finding_of),
    );
}

/// The lines of a file as `store check` compares them without holding
/// them: how many non-empty lines, and the sum of their 64-bit hashes
/// (order does not matter). Two different sets of lines agree with a chance
/// of about one in 10^19, as the other hash comparisons here.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
struct LineSum {
    n: usize,
    sum: u64,
}

impl LineSum {
    fn add(&mut self, text: &[u8]) {
        for l in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.n += 1;
            self.sum = self.sum.wrapping_add(h64(l));
        }
    }
}

/// The [`LineSum`] of the complete lines of the file at `path`, and
/// whether it ends with a partial line; `None` when it does not exist. Read
/// through a buffer: a value index of a million transactions (one template,
/// one program) is 60 MB, which `store check` held whole on top of its
/// digests.
fn sum_lines(path: &Path) -> Result<Option<(LineSum, bool)>> {
    let mut sum = LineSum::default();
    let partial = each_complete_line(path, &mut |line| {
        sum.add(line);
        Ok(())
    })?;
    Ok(partial.map(|p| (sum, p)))
}

/// Each complete line of the file at `path`, without its newline, in
/// order, to `f`: a stream, nothing kept. `None` when the file does not
/// exist; else whether it ends with a partial line (not one of its lines,
/// as [`index::complete`] reads a file).
fn each_complete_line(path: &Path, f: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<Option<bool>> {
    use std::io::BufRead;
    let Some(file) = super::safefs::open(path, super::safefs::How::READ)? else {
        return Ok(None);
    };
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let got = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| Error::io(path, e))?;
        match line.split_last() {
            None if got == 0 => return Ok(Some(false)),
            Some((b'\n', text)) => f(text)?,
            _ => return Ok(Some(true)),
        }
    }
}

/// Each complete line of the log at `path` (none when it does not exist),
/// parsed, with its number (from 1), to `f`: a stream, nothing kept. A torn
/// last line is not part of the log (as [`index::read_log`] reads it).
pub(super) fn each_log_line<T: serde::de::DeserializeOwned>(
    path: &Path,
    f: &mut dyn FnMut(usize, T),
) -> Result<()> {
    let mut n = 0usize;
    each_complete_line(path, &mut |text| {
        n += 1;
        if text.is_empty() {
            return Ok(());
        }
        let rec: T = serde_json::from_slice(text)
            .map_err(|e| Error::corrupt(path, format!("line {n}: {e}")))?;
        f(n, rec);
        Ok(())
    })?;
    Ok(())
}

/// Stream a summary log (complete lines only, as readers read it): the
/// hash of the latest summary of each id, by hash of the id, and the ids'
/// hashes in the order of their first line. The error is the one readers
/// give for the log.
#[allow(clippy::type_complexity)]
fn stream_log<T>(
    path: &Path,
    expected: usize,
    id_of: impl Fn(&T) -> &String,
) -> std::result::Result<(HashMap<u64, u64>, Vec<u64>), String>
where
    T: serde::de::DeserializeOwned + Serialize,
{
    // Sized for the records up front: grown by doubling, a million entries
    // would need both tables at once while they move.
    let mut latest: HashMap<u64, u64> = HashMap::with_capacity(expected);
    let mut order = Vec::with_capacity(expected);
    each_log_line(path, &mut |_, rec: T| {
        let id = h64(id_of(&rec).as_str());
        let sum = h64(&serde_json::to_string(&rec).unwrap_or_default());
        if latest.insert(id, sum).is_none() {
            order.push(id);
        }
    })
    .map_err(|e| e.errors[0].message.clone())?;
    Ok((latest, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read through a buffer, a file sums as it does read whole: lines
    /// across the reads' boundaries, a partial last line, none at all.
    #[test]
    fn a_file_sums_by_chunks_as_it_does_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("by-program.log");
        let mut text = Vec::new();
        let mut i = 0u64;
        while text.len() < 3 * (1 << 20) + 777 {
            text.extend_from_slice(format!("{i} trn_{i:020} prm_{}\n", i % 7).as_bytes());
            i += 1;
        }
        for tail in [&b""[..], b"123 trn_partial"] {
            let mut bytes = text.clone();
            bytes.extend_from_slice(tail);
            std::fs::write(&path, &bytes).unwrap();
            let mut whole = LineSum::default();
            whole.add(index::complete(&bytes));
            let (sum, partial) = sum_lines(&path).unwrap().expect("exists");
            assert!(sum == whole && sum.n == i as usize);
            assert_eq!(partial, !tail.is_empty());
        }
        std::fs::write(&path, b"").unwrap();
        let (sum, partial) = sum_lines(&path).unwrap().expect("exists");
        assert!(sum == LineSum::default() && !partial);
        assert!(sum_lines(&dir.path().join("none.log")).unwrap().is_none());
    }

    /// The packs' coverage merges the parts' entries: a pack tiled by the
    /// entries of several parts is whole; a gap, an overlap, a missing pack
    /// and a pack no entry names are each found.
    #[test]
    fn pack_coverage_merges_the_parts_entries() {
        let at = |pack: u32, offset: u64, len: u32| Placed { offset, pack, len };
        let check = |runs: Vec<Vec<Placed>>, found: &[(u64, u64)]| {
            let (mut f, mut unreadable) = (Vec::new(), Vec::new());
            pack_coverage(runs, found, &mut f, &mut unreadable);
            f.into_iter()
                .map(|x| format!("{}: {}", x.path, x.problem))
                .collect::<Vec<_>>()
        };
        // Pack 1 tiled by three parts, out of order within each; pack 2 by one.
        let whole = vec![
            vec![at(1, 20, 5), at(1, 0, 10), at(2, 0, 7)],
            vec![],
            vec![at(1, 10, 10), at(1, 25, 5)],
        ];
        assert_eq!(check(whole, &[(1, 30), (2, 7)]), Vec::<String>::new());
        // A gap between parts, an overlap, a pack longer than its entries,
        // one missing and one that no entry names.
        let found = check(
            vec![
                vec![at(1, 0, 10), at(3, 0, 4)],
                vec![at(1, 12, 3), at(2, 0, 7), at(2, 5, 2)],
                vec![at(4, 0, 1)],
            ],
            &[(1, 15), (2, 7), (3, 9), (5, 1)],
        );
        let has = |s: &str| found.iter().any(|f| f.contains(s));
        assert!(
            has(
                "packs/1.jsonl: the logs of packed records do not name its bytes 10.. exactly (the next entry they name is at 12)"
            ),
            "{found:?}"
        );
        assert!(
            has(
                "packs/2.jsonl: the logs of packed records do not name its bytes 7.. exactly (the next entry they name is at 5)"
            ),
            "{found:?}"
        );
        assert!(
            has(
                "packs/3.jsonl: is 9 bytes, but the entries the logs of packed records name end at 4"
            ),
            "{found:?}"
        );
        assert!(has("packs/4.jsonl: does not exist"), "{found:?}");
        assert!(
            has("packs/5.jsonl: no log of packed records names any of its entries"),
            "{found:?}"
        );
        assert_eq!(found.len(), 5, "{found:?}");
        // A first entry that does not begin the pack.
        let found = check(vec![vec![at(1, 3, 7)]], &[(1, 10)]);
        assert!(
            found[0]
                .contains("do not name its bytes 0.. exactly (the next entry they name is at 3)"),
            "{found:?}"
        );
    }
}
