//! What a group commit's writes staged (see the module above): the
//! changes of the store's files, per path, laid over the files on disk for
//! the group's reads, and the part not yet in the journal's log.

use std::collections::HashMap;

use super::super::journal::{self, Journal, Op};
use super::super::safefs::Root;
use super::super::{QUEUE_DIR, atomic};
use crate::error::{Error, Result};

/// What the group's transactions changed so far, per store-relative path.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    files: HashMap<String, File>,
    /// Paths in the order they were first staged (the journal's order).
    order: Vec<String>,
    /// The error of a commit of the group made before its end (see
    /// [`JsonStore::flush_group`]): the whole group fails with it.
    pub(super) failed: Option<Error>,
    /// The catalog as read from the store's file, while the group has not
    /// staged a change of it (see [`Staged::catalog`]).
    catalog: Option<crate::model::catalog::Catalog>,
    /// The operations staged since the group's last commit, as the JSON
    /// text of a list's items: the next record of the log (see
    /// `journal/log.rs`).
    delta: Vec<u8>,
    /// The length of the complete lines of files on disk, by path, as a
    /// commit's appends take them (see [`Staged::disk_len`]).
    disk_lens: HashMap<String, u64>,
}

#[derive(Debug)]
enum File {
    /// A whole-file put or a delete ([`Op::Put`], [`Op::PutJson`], [`Op::Delete`]).
    Whole(Op),
    /// Lines appended after the first `base_len` bytes of the file on disk.
    Tail { base_len: u64, data: String },
}

impl Staged {
    /// The error of a failed commit of this group, if one failed.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.failed {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// The catalog the group's writes read, parsed once a group: the store
    /// is held exclusively, so its file changes only by the group's own
    /// staged changes, which drop what was kept ([`Staged::stage`]).
    /// `read` reads it as the group leaves it.
    pub(crate) fn catalog(
        &mut self,
        read: impl FnOnce(&Self) -> Result<crate::model::catalog::Catalog>,
    ) -> Result<crate::model::catalog::Catalog> {
        if let Some(c) = &self.catalog {
            return Ok(c.clone());
        }
        let c = read(self)?;
        self.catalog = Some(c.clone());
        Ok(c)
    }

    /// The length of the complete lines of the file `rel` on disk, which
    /// an append takes as its base: `measure` measures it the first time
    /// the group asks. The store is held exclusively and the group writes
    /// only its log until it is applied (a checkpoint ends the group, and
    /// [`Staged::take`] forgets the lengths), so the files do not change
    /// meanwhile: a create appends to nine files, each opened for its
    /// length (a tenth of the server's time on durable creates).
    pub(crate) fn disk_len(
        &mut self,
        rel: &str,
        measure: impl FnOnce() -> Result<u64>,
    ) -> Result<u64> {
        if let Some(&n) = self.disk_lens.get(rel) {
            return Ok(n);
        }
        let n = measure()?;
        self.disk_lens.insert(rel.to_string(), n);
        Ok(n)
    }

    /// Add the operations of one committed transaction.
    pub(crate) fn stage(&mut self, ops: Vec<Op>) {
        for op in &ops {
            if !self.delta.is_empty() {
                self.delta.push(b',');
            }
            serde_json::to_writer(&mut self.delta, op).expect("an operation serializes");
        }
        self.merge(ops);
    }

    /// The journal text of what was staged since this was last asked
    /// (`None`: nothing).
    pub(super) fn take_delta(&mut self) -> Option<Vec<u8>> {
        if self.delta.is_empty() {
            return None;
        }
        let mut text = Vec::with_capacity(self.delta.len() + 10);
        text.extend_from_slice(b"{\"ops\":[");
        text.append(&mut self.delta);
        text.extend_from_slice(b"]}");
        Some(text)
    }

    /// Lay the operations `ops` over what is staged, as a commit of the
    /// group did (the log's replay merges its records so).
    pub(crate) fn merge(&mut self, ops: Vec<Op>) {
        for op in ops {
            let path = match &op {
                Op::Put { path, .. }
                | Op::PutJson { path, .. }
                | Op::Delete { path }
                | Op::Append { path, .. } => path.clone(),
            };
            if path == super::super::CATALOG {
                self.catalog = None;
            }
            let entry = self.files.remove(&path);
            if entry.is_none() {
                self.order.push(path.clone());
            }
            let next = match (entry, op) {
                (
                    Some(File::Tail { base_len, mut data }),
                    Op::Append {
                        data: more,
                        base_len: _,
                        ..
                    },
                ) => {
                    data.push_str(&more);
                    File::Tail { base_len, data }
                }
                (Some(File::Whole(whole)), Op::Append { data: more, .. }) => {
                    // Appended to a file the group rewrote: the rewrite grows.
                    let mut data = match &whole {
                        Op::Put { data, .. } => data.clone(),
                        Op::PutJson { json, .. } => {
                            String::from_utf8_lossy(&journal::json_file(json)).into_owned()
                        }
                        _ => String::new(),
                    };
                    data.push_str(&more);
                    File::Whole(Op::Put {
                        path: path.clone(),
                        data,
                    })
                }
                (None, Op::Append { base_len, data, .. }) => File::Tail { base_len, data },
                (_, whole) => File::Whole(whole),
            };
            self.files.insert(path, next);
        }
    }

    /// The journal of everything staged, emptying it.
    pub(crate) fn take(&mut self) -> Journal {
        // Applied, they change the files on disk.
        self.disk_lens.clear();
        let mut files = std::mem::take(&mut self.files);
        let ops = std::mem::take(&mut self.order)
            .into_iter()
            .filter_map(|path| {
                Some(match files.remove(&path)? {
                    File::Whole(op) => op,
                    File::Tail { base_len, data } => Op::Append {
                        path,
                        base_len,
                        data,
                    },
                })
            })
            .collect();
        Journal { ops }
    }

    /// The content of `rel` as the group leaves it (`Some(None)`: removed);
    /// `None` when the group did not touch it. `root` is the store's, for the
    /// committed part of an appended file.
    pub(crate) fn read(&self, root: &Root, rel: &str) -> Result<Option<Option<Vec<u8>>>> {
        Ok(Some(match self.files.get(rel) {
            None => return Ok(None),
            Some(File::Whole(Op::Put { data, .. })) => Some(data.as_bytes().to_vec()),
            Some(File::Whole(Op::PutJson { json, .. })) => Some(journal::json_file(json)),
            Some(File::Whole(_)) => None,
            Some(File::Tail { base_len, data }) => {
                let mut content = atomic::read_opt(root, &root.join(rel))?.unwrap_or_default();
                content.truncate(usize::try_from(*base_len).unwrap_or(usize::MAX));
                content.extend_from_slice(data.as_bytes());
                Some(content)
            }
        }))
    }

    /// Bytes that end as `rel` ends as the group leaves it (`Some(None)`:
    /// removed), without reading the file on disk: the lines the group
    /// appended, or the whole file it wrote. `None` when the group did not
    /// touch it or appended nothing: its end is then the one on disk. (A
    /// commit that records events reads the log's last line: the whole
    /// segment must not be read for it.)
    pub(crate) fn end_of(&self, rel: &str) -> Option<Option<std::borrow::Cow<'_, [u8]>>> {
        use std::borrow::Cow;
        Some(match self.files.get(rel)? {
            File::Tail { data, .. } if data.is_empty() => return None,
            File::Tail { data, .. } | File::Whole(Op::Put { data, .. }) => {
                Some(Cow::Borrowed(data.as_bytes()))
            }
            File::Whole(Op::PutJson { json, .. }) => Some(Cow::Owned(journal::json_file(json))),
            File::Whole(_) => None,
        })
    }

    /// Whether `rel` exists as the group leaves it, when it touched it
    /// (without reading an appended file).
    pub(crate) fn exists(&self, rel: &str) -> Option<bool> {
        Some(!matches!(
            self.files.get(rel)?,
            File::Whole(Op::Delete { .. })
        ))
    }

    /// The length of `rel` as the group leaves it, when it touched it
    /// (the length of its complete lines, for an appended file).
    pub(crate) fn len(&self, rel: &str) -> Option<u64> {
        Some(match self.files.get(rel)? {
            File::Whole(Op::Put { data, .. }) => data.len() as u64,
            File::Whole(Op::PutJson { json, .. }) => json.get().len() as u64 + 1,
            File::Whole(_) => 0,
            File::Tail { base_len, data } => base_len + data.len() as u64,
        })
    }

    /// The queue files the group put (`true`) or removed (`false`), by name.
    pub(crate) fn queue(&self) -> Vec<(String, bool)> {
        let prefix = format!("{QUEUE_DIR}/");
        self.files
            .iter()
            .filter_map(|(rel, f)| {
                let name = rel.strip_prefix(&prefix)?;
                Some((
                    name.to_string(),
                    !matches!(f, File::Whole(Op::Delete { .. })),
                ))
            })
            .collect()
    }
}
