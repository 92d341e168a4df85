//! The packed records in the scan of `store check`: each shard's log of
//! packed records and the records it names, and the packs' coverage by the
//! logs' entries (see [`packs`]).

use super::*;

/// Check the log of packed records of the customer shard `d` (whose
/// entries are `names`, its place in the scan's shards `shard`): each line
/// well formed and in its shard, each id once. Every entry is kept as
/// [`Placed`]; those of the customers without a file of their own are read
/// after every shard, a pack at a time ([`read_packed`]).
pub(super) fn scan_packed(
    sh: &Shared,
    d: &safefs::Dir,
    names: &[std::ffi::OsString],
    shard: u32,
    part: &mut Part,
) {
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
    // The customers of the shard with a file of their own, by id.
    let own: foldhash::HashSet<&str> = names
        .iter()
        .filter_map(|n| n.to_str()?.strip_suffix(".json"))
        .collect();
    let shard_name = d.path().file_name().and_then(|n| n.to_str()).unwrap_or("");
    let mut seen = foldhash::HashSet::default();
    for (n, entry) in packs::log_lines(&bytes) {
        let Some((cid, place)) = entry else {
            part.findings.push(finding(
                &log_rel,
                format!("line {n} is not `<id> <pack> <offset> <length>`"),
            ));
            part.unreadable.push(log_rel.clone());
            continue;
        };
        if crate::model::id::shard(cid) != shard_name {
            part.findings.push(finding(
                &log_rel,
                format!("line {n} names {cid}, which belongs to another shard"),
            ));
            part.unreadable.push(log_rel.clone());
            continue;
        }
        if !seen.insert(cid) {
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
            id: h64(cid),
            shard,
            // (Its own file is the record when there is one.)
            line: if own.contains(cid) { 0 } else { n as u32 },
        });
    }
}

/// Read the packed records that the logs name and no file of their own
/// replaces (`runs`: each part's [`Placed`], sorted by pack and offset), a
/// pack at a time on each of `threads`, each pack from its first entry to
/// its last: each customer checked and digested as the shards' files are.
/// `shards` are the scan's shards (where a record's log line is named);
/// `progress(packs done)` after each pack. The parts, in the order of the
/// packs.
pub(super) fn read_packed(
    sh: &Shared,
    runs: &[Vec<Placed>],
    shards: &[PathBuf],
    threads: usize,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Part>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut packs: Vec<u32> = runs
        .iter()
        .flat_map(|r| r.iter().filter(|p| p.is_read_here()).map(|p| p.pack))
        .collect();
    packs.sort_unstable();
    packs.dedup();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let mut parts: Vec<(usize, Part)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    let mut opened = packs::Opened::default();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&pack) = packs.get(i) else {
                            return mine;
                        };
                        let mut entries: Vec<Placed> = Vec::new();
                        for r in runs {
                            let from = r.partition_point(|p| p.pack < pack);
                            let to = r.partition_point(|p| p.pack <= pack);
                            entries.extend(r[from..to].iter().filter(|p| p.is_read_here()));
                        }
                        entries.sort_unstable_by_key(|p| p.offset);
                        // A window of its own: one kept from the pack before
                        // would answer this pack's offsets with its bytes.
                        let mut window = packs::Window::default();
                        let mut part = Part::default();
                        read_pack(
                            sh,
                            pack,
                            &entries,
                            shards,
                            &mut opened,
                            &mut window,
                            &mut part,
                        );
                        part.shrink();
                        mine.push((i, part));
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for w in workers {
            all.extend(w.join().map_err(|_| {
                Error::one(
                    crate::error::code::STORE_IO,
                    "store check: a thread reading the packs failed",
                )
            })?);
        }
        Ok::<_, Error>(all)
    })?;
    parts.sort_by_key(|(i, _)| *i);
    Ok(parts.into_iter().map(|(_, p)| p).collect())
}

/// Read the `entries` of `pack` (those to read here, in increasing
/// offsets) and digest each customer.
fn read_pack(
    sh: &Shared,
    pack: u32,
    entries: &[Placed],
    shards: &[PathBuf],
    opened: &mut packs::Opened,
    window: &mut packs::Window,
    part: &mut Part,
) {
    let rel = packs::pack_rel(u64::from(pack));
    let path = sh.root.join(&rel);
    let file = opened
        .get(sh.root, u64::from(pack))
        .as_ref()
        .map_err(|e| format!("{rel}: {e}"));
    for e in entries {
        let place = packs::Place {
            pack: u64::from(pack),
            offset: e.offset,
            len: u64::from(e.len),
        };
        let read = file.clone().and_then(|f| {
            let b = window
                .entry(f, &path, place)
                .map_err(|e| e.errors[0].message.clone())?;
            let c =
                packs::parse_customer(b, &path, place).map_err(|e| e.errors[0].message.clone())?;
            if h64(c.id()) != e.id {
                return Err(packs::another_customer(&path, place).errors[0]
                    .message
                    .clone());
            }
            Ok(c)
        });
        match read {
            Ok(c) => digest_customer(sh, &c, part),
            Err(problem) => unread(sh, shards, e, problem, part),
        }
    }
}

/// A packed record that cannot be read, named by its log's line (the first
/// [`UNREAD_PACKED_SHOWN`]).
fn unread(sh: &Shared, shards: &[PathBuf], named: &Placed, problem: String, part: &mut Part) {
    let Some(dir) = shards.get(named.shard as usize) else {
        return;
    };
    let log_path = dir.join(packs::LOG);
    let log_rel = rel(sh.root, &log_path);
    let k = sh
        .unread_packed
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if k < UNREAD_PACKED_SHOWN {
        // The id the line names (read again: only to name it).
        let cid = safefs::Dir::open(sh.root, dir, false)
            .ok()
            .flatten()
            .and_then(|d| packs::read_log(&d).ok().flatten())
            .and_then(|b| {
                packs::log_lines(&b)
                    .nth(named.line as usize - 1)
                    .and_then(|(_, e)| e.map(|(cid, _)| cid.to_string()))
            })
            .unwrap_or_else(|| "a customer".into());
        part.findings.push(Finding {
            path: log_rel.clone(),
            problem: format!(
                "line {}: the packed record of {cid} cannot be read: {problem}",
                named.line
            ),
            repairable: false,
        });
    }
    part.unreadable.push(log_rel);
}

/// Where a log of packed records places an entry, as the check keeps it for
/// [`pack_coverage`] and [`read_packed`]: 32 bytes (a million at a million
/// customers).
#[derive(Clone, Copy)]
pub(super) struct Placed {
    offset: u64,
    pack: u32,
    len: u32,
    /// The hash of the id its log names (the record's must be the same).
    id: u64,
    /// Where that log is: the shard's place among the scan's shards.
    shard: u32,
    /// The log's line naming it (from 1); 0 when its own file is the
    /// record (an update wrote it), which is not read here.
    line: u32,
}

impl Placed {
    fn is_read_here(self) -> bool {
        self.line != 0
    }
}

/// Sort each part's entries by pack and offset, as [`read_packed`] and
/// [`pack_coverage`] take them.
pub(super) fn sort_placed(runs: &mut [Vec<Placed>]) {
    for r in runs {
        r.sort_unstable_by_key(|p| (p.pack, p.offset));
    }
}

/// The packs' coverage: the entries that the logs name must tile each pack
/// exactly, and name only packs that exist. `runs` are the entries of each
/// part of the scan, merged here as they are read (a million entries are
/// 16 MB: never copied into one vector).
pub(super) fn pack_coverage(
    mut runs: Vec<Vec<Placed>>,
    found: &[(u64, u64)],
    f: &mut Vec<Finding>,
    unreadable: &mut Vec<String>,
) {
    use std::cmp::Reverse;
    sort_placed(&mut runs);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The packs' coverage merges the parts' entries: a pack tiled by the
    /// entries of several parts is whole; a gap, an overlap, a missing pack
    /// and a pack no entry names are each found.
    #[test]
    fn pack_coverage_merges_the_parts_entries() {
        let at = |pack: u32, offset: u64, len: u32| Placed {
            offset,
            pack,
            len,
            id: 0,
            shard: 0,
            line: 0,
        };
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
