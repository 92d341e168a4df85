//! The field indexes as the scan of `store check` reads them: the
//! creation-order positions of `index/profiles.ids`, and every bucket's
//! entries as hashes for the customers' values to be looked up in.

use super::*;

pub(super) fn position_of(positions: &[(u64, u32)], id: &str) -> Option<usize> {
    let k = h64(id);
    let i = positions.partition_point(|(h, _)| *h < k);
    positions
        .get(i)
        .filter(|(h, _)| *h == k)
        .map(|(_, p)| *p as usize)
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
}
