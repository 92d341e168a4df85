//! The scan of `store check`: every file of the store classified, every
//! record read once (one thread per core over the record shards) and checked
//! on its own, and what the checks across records need kept as digests
//! ([`super::digest`]).

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

mod field_index;
mod packed;

use self::field_index::{field_entry, position_of};
use self::packed::{Placed, pack_coverage, scan_packed};
use super::digest::{Chunks, CustDigest, Digests, Odd, PackedId, TxnDigest};
use super::*;

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
    /// The highest `last_event` a record file names, and the file.
    last_event: Named,
}

/// The highest event sequence the record files name (see
/// `json::events`), and one file that names it.
#[derive(Default, Clone)]
pub(crate) struct Named(pub(crate) u64, pub(crate) String);

impl Named {
    fn see(&mut self, seq: u64, rel: impl FnOnce() -> String) {
        if seq > self.0 {
            *self = Named(seq, rel());
        }
    }
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

pub(super) struct Scan {
    pub(super) customers: Digests,
    pub(super) txns: Chunks<TxnDigest>,
    /// Every attachment the customers hold, as [`attachment_hash`]: sorted,
    /// each once.
    pub(super) attached: Vec<u64>,
    pub(super) pending: BTreeSet<String>,
    pub(super) field_missing: Vec<Finding>,
    pub(super) field_missing_count: usize,
    pub(super) field_expected: usize,
    pub(super) temps: Vec<PathBuf>,
    /// Record files that could not be read as what their path says: a
    /// rebuild of the indexes would forget what they hold.
    pub(super) unreadable: Vec<String>,
    /// What `--repair` removes: links, FIFOs and other non-regular files
    /// where derived data or the lock belong; files where a derived
    /// directory belongs.
    pub(super) remove: Vec<PathBuf>,
    /// Files and directories whose mode is not 0600 / 0700: (path, mode).
    pub(super) modes: Vec<(PathBuf, u32)>,
    /// The highest event sequence a record file names.
    pub(super) last_event: Named,
}

/// What every scanning thread reads.
pub(super) struct Shared<'a> {
    pub(super) root: &'a Path,
    pub(super) catalog: Option<&'a Catalog>,
    /// Creation-order positions from `index/profiles.ids`, `(hash of the
    /// id, position)` sorted; `None` when the file cannot be read.
    pub(super) positions: Option<&'a [(u64, u32)]>,
    /// Hashes of every field index entry `(field, value, position, id)`.
    pub(super) field_entries: &'a Hashes,
    /// Packed records that could not be read so far (the first
    /// [`UNREAD_PACKED_SHOWN`] are named).
    pub(super) unread_packed: std::sync::atomic::AtomicUsize,
}

/// A set of 64-bit hashes: sorted, with a table of where each value of
/// their top 16 bits begins, so that a lookup binary searches one short run
/// (about n/65,536 hashes, a cache line or two) instead of the whole array,
/// whose every step would miss the cache (at a million customers the field
/// entries are 40 MB). The table costs 256 KB.
pub(super) struct Hashes {
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

    pub(super) fn len(&self) -> usize {
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
pub(super) fn attachment_hash(program_id: &str, customer_id: &str) -> u64 {
    h64(&(program_id, customer_id))
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
        let r = rel(root, &p);
        // What a writer's point commit renamed aside, removed by it once it
        // let go of the store's lock: it may go while the check reads, and it
        // is never the store's (see `journal::RETIRED`).
        if r == crate::store::journal::RETIRED {
            continue;
        }
        let meta = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            // Gone since the directory was listed: nothing of the store's
            // goes while the check holds the lock.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&p, e)),
        };
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
            crate::store::lock::LOCK,
            crate::store::json::META,
            crate::store::json::CATALOG,
            JOURNAL,
            crate::store::journal::APPLIED,
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
            part.last_event.see(t.last_event, || r.clone());
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
    part.last_event
        .see(c.last_event, || Store::customer_rel(c.id()));
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

impl Store {
    /// Every file of the store classified, every record read and checked on
    /// its own, in parallel over the record shards (one thread per core);
    /// `progress(shards done, shards)` after each shard.
    pub(super) fn scan(
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
            last_event: Named::default(),
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
            scan.last_event.see(p.last_event.0, || p.last_event.1);
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
}
