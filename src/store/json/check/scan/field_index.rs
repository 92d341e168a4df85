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
        let n = index::ids_count(&self.root, &path).ok()?;
        let mut out = Vec::with_capacity(n);
        for start in (0..n).step_by(IDS_CHUNK) {
            for (i, id) in index::ids_range(&self.root, &path, start, start + IDS_CHUNK)
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
    pub(in super::super) fn field_index(
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
                let Ok(Some(bytes)) = atomic::read_opt(root, p) else {
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
