//! The scan of `store check`: every file of the store classified, every
//! record read once (one thread per core over the record shards, then over
//! the packs) and checked on its own, and what the checks across records
//! need kept as digests ([`super::digest`]).
//!
//! This file holds what the scan keeps and its course over the shards;
//! every entry of the store is listed and classified in [`classify`], a
//! regular file read and its record digested in [`records`], the packed
//! records read a pack at a time, in order, in [`packed`].

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

mod classify;
mod field_index;
mod hashes;
mod packed;
mod records;

use self::classify::{classify, entries};
use self::field_index::field_entry;
pub(super) use self::hashes::{HashIndex, Hashes};
use self::packed::{Placed, pack_coverage, read_packed, scan_packed, sort_placed};
use self::records::{digest_customer, read_file};
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
    /// How many distinct field index entries the customers' current values
    /// found.
    field_found: usize,
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
    /// A customer's field entries, reused from one customer to the next.
    scratch: Vec<u64>,
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
    /// How many distinct field index entries the customers' current values
    /// found: fewer than the entries, some entry is one no value calls for
    /// (at the wrong position, or a value its profile no longer has).
    pub(super) field_found: usize,
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
    pub(super) root: &'a Root,
    pub(super) catalog: Option<&'a Catalog>,
    /// Creation-order positions from `index/profiles.ids`, `(hash of the
    /// id, position)` sorted; `None` when the file cannot be read.
    pub(super) positions: Option<&'a HashIndex>,
    /// Hashes of every field index entry `(field, value, position, id)`.
    pub(super) field_entries: &'a Hashes,
    /// Packed records that could not be read so far (the first
    /// [`UNREAD_PACKED_SHOWN`] are named).
    pub(super) unread_packed: std::sync::atomic::AtomicUsize,
}

/// A profile-program record (or a line of the attachment index naming
/// one) as `store check` compares them: a hash of the pair.
pub(super) fn attachment_hash(program_id: &str, customer_id: &str) -> u64 {
    h64(&(program_id, customer_id))
}

/// Read one record shard (`customers/<xx>`, the `shard`th of the scan):
/// every entry classified, every file read, the log of its packed records
/// checked (the records themselves are read a pack at a time after every
/// shard: see [`read_packed`]).
///
/// The shard is opened once and its entries are reached by name from it
/// (`fstatat`, `openat`): a walk from the store's root for each of a
/// million files was most of the check's time.
fn scan_shard(sh: &Shared, dir: &Path, shard: u32, part: &mut Part) -> Result<()> {
    let Some(d) = safefs::Dir::open(sh.root, dir, false)? else {
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
        scan_packed(sh, &d, &names, shard, part);
    }
    Ok(())
}

impl Store {
    /// Every file of the store classified, every record read and checked on
    /// its own, in parallel over the record shards, then over the packs
    /// (one thread per core); `progress(done, shards and packs)` after each
    /// shard and pack.
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
            outside.modes.push((root.path().to_path_buf(), 0o700));
        }
        let mut all = Vec::new();
        let mut shards = Vec::new();
        entries(root, root.path(), &mut all, Some(&mut shards))?;
        let files: Vec<PathBuf> = all
            .into_iter()
            .filter_map(|(p, meta)| classify(root, p, meta.mode(), &mut outside))
            .collect();
        for p in files {
            read_file(sh, p, None, &mut outside);
        }
        shards.sort();
        // Progress: the shards, then the packs (those found; a log naming
        // one that is not there is a finding).
        let total = shards.len() + outside.packs.len();
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
                            scan_shard(sh, dir, i as u32, &mut part)?;
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
        // The packed records, read in the order of the packs: the logs'
        // entries of every part, sorted by pack and offset.
        let mut placed: Vec<Vec<Placed>> = parts
            .iter_mut()
            .map(|(_, p)| std::mem::take(&mut p.placed))
            .collect();
        sort_placed(&mut placed);
        let from_packs = read_packed(sh, &placed, &shards, threads, &|n| {
            progress((shards.len() + n).min(total), total)
        })?;
        let n = parts.len();
        parts.extend(from_packs.into_iter().enumerate().map(|(i, p)| (n + i, p)));
        let mut scan = Scan {
            customers: Digests::default(),
            txns: Chunks::default(),
            attached: Vec::new(),
            pending: BTreeSet::new(),
            field_missing: Vec::new(),
            field_missing_count: 0,
            field_expected: 0,
            field_found: 0,
            temps: Vec::new(),
            unreadable: Vec::new(),
            remove: Vec::new(),
            modes: Vec::new(),
            last_event: Named::default(),
        };
        let mut invariants = Vec::new();
        let mut found_packs = Vec::new();
        for (_, p) in parts {
            f.extend(p.findings);
            invariants.extend(p.invariants);
            let room = FIELD_MISSING_SHOWN - scan.field_missing.len();
            scan.field_missing
                .extend(p.field_missing.into_iter().take(room));
            scan.field_missing_count += p.field_missing_count;
            scan.field_expected += p.field_expected;
            scan.field_found += p.field_found;
            scan.temps.extend(p.temps);
            scan.unreadable.extend(p.unreadable);
            scan.remove.extend(p.remove);
            scan.modes.extend(p.modes);
            scan.last_event.see(p.last_event.0, || p.last_event.1);
            scan.customers.push_chunk(p.customers, p.odd);
            scan.txns.push_chunk(p.txns);
            scan.attached.extend(p.attached);
            scan.pending.extend(p.pending);
            found_packs.extend(p.packs);
        }
        scan.attached.sort_unstable();
        scan.attached.dedup();
        pack_coverage(placed, &found_packs, f, &mut scan.unreadable);
        f.extend(invariants);
        Ok(scan)
    }
}
