//! The field indexes as the scan of `store check` reads them: the
//! creation-order positions of `index/profiles.ids`, and every bucket's
//! entries as hashes for the customers' values to be looked up in.

use super::*;

/// A field index entry as the check compares them: a hash of the whole
/// entry.
pub(super) fn field_entry(field: fields::Field, value: &str, pos: usize, id: &str) -> u64 {
    h64(&(field, value, pos, id))
}

impl Store {
    /// The creation-order positions of `index/profiles.ids` as `(hash of
    /// the id, position)`, sorted; `None` when it cannot be read.
    pub(in super::super) fn positions(&self) -> Option<HashIndex> {
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
        Some(HashIndex::new(out))
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
        positions: Option<&HashIndex>,
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
    root: &safefs::Root,
    field: fields::Field,
    p: &Path,
    positions: Option<&HashIndex>,
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
    let Ok(Some(bytes)) = atomic::read_opt(root, p) else {
        out.problems.push(finding(
            "cannot be read as a bucket of a field index".into(),
        ));
        return out;
    };
    // Each entry's hash, and its id when its position is not the
    // customer's (to name it).
    let parsed = fields::parse_bucket(field, b, &bytes, |pos, id, v| {
        let misplaced = positions.is_some_and(|positions| positions.position_of(id) != Some(pos));
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
