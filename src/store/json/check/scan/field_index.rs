//! The field indexes as the scan of `store check` reads them: the
//! creation-order positions of `index/profiles.ids`, and every bucket's
//! entries as hashes for the customers' values to be looked up in.

use super::*;

pub(super) fn position_of(positions: &[(u64, u32)], id: &str) -> Option<usize> {
    let k = h64(id);
    let i = lower_bound(positions, k);
    positions
        .get(i)
        .filter(|(h, _)| *h == k)
        .map(|(_, p)| *p as usize)
}

/// The first index of `sorted` whose hash is not below `k`, as
/// `partition_point` finds it. The hashes are uniform over `u64`, so the
/// search starts where `k` falls in proportion and widens from there by
/// doubling steps: a few probes in a few nearby cache lines, where a binary
/// search of a million entries made twenty probes far apart (`store check`
/// looks up a position for every customer and every field index entry:
/// 14.2 and 13.4 s against 15.0 and 16.1 s at a million customers).
fn lower_bound(sorted: &[(u64, u32)], k: u64) -> usize {
    let n = sorted.len();
    if n == 0 {
        return 0;
    }
    let guess = ((u128::from(k) * n as u128) >> 64) as usize;
    let below = |i: usize| sorted[i].0 < k;
    // A bracket [lo, hi) with the answer in it: everything before lo is
    // below k, everything from hi on is not.
    let (mut lo, mut hi);
    if below(guess) {
        lo = guess + 1;
        let mut step = 1;
        hi = lo;
        while hi < n && below(hi) {
            lo = hi + 1;
            hi = (hi + step).min(n);
            step *= 2;
        }
    } else {
        hi = guess;
        let mut step = 1;
        lo = hi;
        while lo > 0 && !below(lo - 1) {
            hi = lo - 1;
            lo = lo.saturating_sub(step + 1);
            step *= 2;
        }
    }
    lo + sorted[lo..hi].partition_point(|(h, _)| *h < k)
}

pub(super) fn field_entry(field: fields::Field, value: &str, pos: usize, id: &str) -> u64 {
    h64(&(field, value, pos, id))
}

impl Store {
    /// The creation-order positions of `index/profiles.ids` as `(hash of
    /// the id, position)`, sorted; `None` when it cannot be read.
    pub(in super::super) fn positions(&self) -> Option<Vec<(u64, u32)>> {
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
    /// sorted hashes of every entry. The buckets are read in parallel (one
    /// thread per core), their findings kept in the order of the files.
    ///
    /// With `positions`, an entry whose position is not its profile's is
    /// named. That takes a look-up of every entry's id (four a customer),
    /// most of this function's time at a million customers, and names
    /// nothing in a sound store: the check reads the buckets without them
    /// first and again with them only when some entry is one that no
    /// customer's value calls for (see [`Scan::field_found`]).
    #[allow(clippy::type_complexity)]
    pub(in super::super) fn field_index(
        &self,
        positions: Option<&[(u64, u32)]>,
    ) -> Result<(Vec<(Finding, bool)>, Vec<Finding>, Hashes)> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let root = &self.root;
        let mut nested = Vec::new();
        let mut buckets = Vec::new();
        for field in fields::Field::ALL {
            let dir = root.join(field.dir());
            let mut files = Vec::new();
            walk(&dir, &mut files)?;
            for p in files.into_iter().filter(|p| !atomic::is_temp(p)) {
                if p.parent() != Some(&dir) {
                    nested.push(Finding {
                        path: rel(root, &p),
                        problem: "is in a directory of its own under a field index: remove it"
                            .into(),
                        repairable: false,
                    });
                    continue;
                }
                buckets.push((field, p));
            }
        }
        let next = AtomicUsize::new(0);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let parts: Vec<(Vec<(usize, Bucket)>, Vec<u64>)> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        let mut mine = Vec::new();
                        let mut have = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some((field, p)) = buckets.get(i) else {
                                return (mine, have);
                            };
                            mine.push((i, read_bucket(root, *field, p, positions, &mut have)));
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_default())
                .collect()
        });
        let mut read = Vec::with_capacity(buckets.len());
        let mut have: Vec<u64> = Vec::new();
        for (mine, hashes) in parts {
            read.extend(mine);
            if have.is_empty() {
                have = hashes;
            } else {
                have.extend(hashes);
            }
        }
        if read.len() != buckets.len() {
            return Err(Error::one(
                crate::error::code::STORE_IO,
                "store check: a thread reading the field indexes failed",
            ));
        }
        read.sort_by_key(|(i, _)| *i);
        let mut found = Vec::new();
        let mut misplaced_count = 0usize;
        for (_, b) in read {
            found.extend(b.problems.into_iter().map(|x| (x, false)));
            for x in b.misplaced {
                misplaced_count += 1;
                if misplaced_count <= MISPLACED_SHOWN {
                    found.push((x, true));
                }
            }
            misplaced_count += b.misplaced_more;
        }
        if misplaced_count > MISPLACED_SHOWN {
            found.push((
                Finding {
                    path: "index/by-*".into(),
                    problem: format!(
                        "{} more entries name a profile at a position that is not its place in \
                         creation order",
                        misplaced_count - MISPLACED_SHOWN
                    ),
                    repairable: true,
                },
                true,
            ));
        }
        Ok((found, nested, Hashes::new(have)))
    }
}

/// What one bucket of a field index holds wrong: its problems, then its
/// entries at a position that is not their profile's, the first
/// [`MISPLACED_SHOWN`] named and the rest counted.
#[derive(Default)]
struct Bucket {
    problems: Vec<Finding>,
    misplaced: Vec<Finding>,
    misplaced_more: usize,
}

/// Read the bucket `p` of `field`: the hash of each of its entries added
/// to `have`; with `positions`, its entries at another position than their
/// profile's named (see [`Store::field_index`]).
fn read_bucket(
    root: &Path,
    field: fields::Field,
    p: &Path,
    positions: Option<&[(u64, u32)]>,
    have: &mut Vec<u64>,
) -> Bucket {
    let r = rel(root, p);
    let finding = |problem: String| Finding {
        path: r.clone(),
        problem,
        repairable: true,
    };
    let mut out = Bucket::default();
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(b) = fields::bucket_of_name(name) else {
        out.problems.push(finding(
            "is not a bucket of a field index (`<bb>.log`)".into(),
        ));
        return out;
    };
    let Ok(Some(bytes)) = atomic::read_opt(p) else {
        out.problems.push(finding(
            "cannot be read as a bucket of a field index".into(),
        ));
        return out;
    };
    // Each entry's hash, and its id when its position is not the
    // customer's (to name it).
    let parsed = fields::parse_bucket(field, b, &bytes, |pos, id, v| {
        let misplaced = positions.is_some_and(|positions| position_of(positions, id) != Some(pos));
        (
            field_entry(field, v, pos, id),
            misplaced.then(|| id.to_string()),
        )
    });
    out.problems
        .extend(parsed.problems.into_iter().map(finding));
    for (pos, (entry, misplaced)) in parsed.entries {
        if let Some(id) = misplaced {
            if out.misplaced.len() < MISPLACED_SHOWN {
                out.misplaced.push(finding(format!(
                    "an entry names {id} at position {pos}, which is not its place in creation order"
                )));
            } else {
                out.misplaced_more += 1;
            }
        }
        have.push(entry);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as `partition_point`, for keys present, absent,
    /// below and above every entry, on lists of every small length and a
    /// skewed one.
    #[test]
    fn lower_bound_is_partition_point() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in (0..40).chain([1000, 4096]) {
            let mut v: Vec<(u64, u32)> = (0..n).map(|i| (next(), i)).collect();
            v.sort_unstable();
            let mut keys: Vec<u64> = v.iter().map(|e| e.0).collect();
            keys.extend((0..200).map(|_| next()));
            keys.extend([0, 1, u64::MAX, u64::MAX - 1]);
            keys.extend(v.iter().map(|e| e.0.wrapping_add(1)));
            for k in keys {
                assert_eq!(
                    lower_bound(&v, k),
                    v.partition_point(|(h, _)| *h < k),
                    "n {n} k {k}"
                );
            }
        }
        // All in a corner of the range: the guesses are far off.
        let v: Vec<(u64, u32)> = (0..5000u64).map(|i| (i * 3, i as u32)).collect();
        for k in [0, 1, 2, 3, 7, 14_999, 15_000, u64::MAX / 2, u64::MAX] {
            assert_eq!(
                lower_bound(&v, k),
                v.partition_point(|(h, _)| *h < k),
                "k {k}"
            );
        }
    }
}
