//! What a group commit's writes staged (see the module above): the
//! changes of the store's files, per path, laid over the files on disk for
//! the group's reads, and the part not yet in the journal's log.
//!
//! While a checkpoint applies the log's records in the background, what
//! they staged is kept [`Staged::below`] the changes staged since: reads
//! look at the newer changes, then at those being applied, then at the
//! disk, so that they never see a file the checkpoint is writing.

use std::collections::HashMap;
use std::sync::Arc;

use super::super::journal::{self, Journal, Op};
use super::super::safefs::Root;
use super::super::{QUEUE_DIR, atomic};
use super::known::{self, Known};
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
    /// What the group's writes learned of the files (see [`known`]).
    known: Known,
    /// A key bucket is written whole among `files` (a split: see
    /// [`Staged::applies_beside_writes`]), not only appended to.
    key_whole: bool,
    /// What the log's records before this group's staged, while a
    /// checkpoint applies them to the files (see the module doc): read
    /// under what is staged here, never changed.
    below: Option<Arc<Staged>>,
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

    /// The length of the complete lines of the file `rel` as the group
    /// leaves it, which an append takes as its base: `measure` measures it
    /// on the disk the first time the group asks, when the group did not
    /// touch it (see [`known`]: a create appends to nine files, and the
    /// group does not open them again).
    pub(crate) fn known_len(
        &mut self,
        rel: &str,
        measure: impl FnOnce() -> Result<u64>,
    ) -> Result<u64> {
        if let Some(&n) = self.known.lens.get(rel) {
            return Ok(n);
        }
        let n = match self.len(rel) {
            Some(n) => n,
            None => measure()?,
        };
        self.known.lens.insert(rel.to_string(), n);
        Ok(n)
    }

    /// `f` of the content of `rel` as the group leaves it (`None`: no such
    /// file), read from the disk the first time the group asks when the
    /// group did not touch it; kept for the key buckets and the event log's
    /// head (see [`known`]).
    pub(crate) fn with_content<R>(
        &mut self,
        root: &Root,
        rel: &str,
        f: impl FnOnce(Option<&[u8]>) -> R,
    ) -> Result<R> {
        if let Some(c) = self.known.contents.get(rel) {
            return Ok(f(c.as_deref()));
        }
        let content = match self.read(root, rel)? {
            Some(c) => c,
            None => atomic::read_opt(root, &root.join(rel))?,
        };
        let answer = f(content.as_deref());
        if known::kept(rel) {
            self.known.contents.insert(rel.to_string(), content);
        }
        Ok(answer)
    }

    /// The event log's head as the group's last write that appended events
    /// left it (see [`known`]); `None`: read it.
    pub(crate) fn events_head(&self) -> Option<(u64, String)> {
        self.known.events_head.clone()
    }

    /// The write just staged appended events, which left the log's head at
    /// `head`.
    pub(crate) fn set_events_head(&mut self, head: (u64, String)) {
        self.known.events_head = Some(head);
    }

    /// Whether each key bucket file or directory looked for is on the disk
    /// (see `keys::append_ops_with`), kept until the disk changes.
    pub(crate) fn key_places(&mut self) -> &mut HashMap<String, bool> {
        &mut self.known.placed
    }

    /// Add the operations of one committed transaction.
    pub(crate) fn stage(&mut self, mut ops: Vec<Op>) {
        // An append's base is the file as the log's earlier records leave
        // it: those being applied, when they name it, not the disk that
        // the checkpoint is writing (a key index line's base is measured
        // on the disk, see `JsonTx::prepare`).
        if let Some(below) = &self.below {
            for op in &mut ops {
                if let Op::Append { path, base_len, .. } = op
                    && !self.files.contains_key(path.as_str())
                    && let Some(n) = below.len(path)
                {
                    *base_len = n;
                }
            }
        }
        for op in &ops {
            if !self.delta.is_empty() {
                self.delta.push(b',');
            }
            serde_json::to_writer(&mut self.delta, op).expect("an operation serializes");
        }
        let pending = self.known.changes(&ops);
        self.merge(ops);
        let mut known = std::mem::take(&mut self.known);
        known.staged(pending, |rel| self.len(rel));
        self.known = known;
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
            if matches!(next, File::Whole(_))
                && path
                    .strip_prefix(super::super::KEYS_DIR)
                    .is_some_and(|r| r.starts_with('/'))
            {
                self.key_whole = true;
            }
            self.files.insert(path, next);
        }
    }

    /// The journal of everything staged, emptying it.
    pub(crate) fn take(&mut self) -> Journal {
        // Applied, they change the files on disk.
        self.known.applied();
        debug_assert!(self.below.is_none(), "applied under a checkpoint");
        self.key_whole = false;
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
            None => match &self.below {
                Some(below) => return below.read(root, rel),
                None => return Ok(None),
            },
            Some(File::Whole(Op::Put { data, .. })) => Some(data.as_bytes().to_vec()),
            Some(File::Whole(Op::PutJson { json, .. })) => Some(journal::json_file(json)),
            Some(File::Whole(_)) => None,
            Some(File::Tail { base_len, data }) => {
                let under = match &self.below {
                    Some(below) => below.read(root, rel)?,
                    None => None,
                };
                let mut content = match under {
                    Some(c) => c.unwrap_or_default(),
                    None => atomic::read_opt(root, &root.join(rel))?.unwrap_or_default(),
                };
                content.truncate(usize::try_from(*base_len).unwrap_or(usize::MAX));
                content.extend_from_slice(data.as_bytes());
                Some(content)
            }
        }))
    }

    /// The `len` bytes at `offset` of `rel` as the group leaves it (fewer
    /// when it ends before; `Some(None)`: removed), without reading the
    /// file whole: an entry of a pack that the group's creates append to
    /// (see `packs`). `None` when those bytes are the ones on disk (the
    /// group did not touch the file, or appended after them).
    pub(crate) fn read_at(&self, rel: &str, offset: u64, len: u64) -> Option<Option<Vec<u8>>> {
        let range = |data: &[u8], from: u64| -> Vec<u8> {
            let from = usize::try_from(from).unwrap_or(usize::MAX);
            let rest = data.get(from..).unwrap_or_default();
            rest[..rest.len().min(len as usize)].to_vec()
        };
        Some(match self.files.get(rel) {
            None => return self.below.as_ref()?.read_at(rel, offset, len),
            Some(File::Whole(Op::Put { data, .. })) => Some(range(data.as_bytes(), offset)),
            Some(File::Whole(Op::PutJson { json, .. })) => {
                Some(range(&journal::json_file(json), offset))
            }
            Some(File::Whole(_)) => None,
            Some(File::Tail { base_len, data }) if offset >= *base_len => {
                Some(range(data.as_bytes(), offset - base_len))
            }
            Some(File::Tail { .. }) => return self.below.as_ref()?.read_at(rel, offset, len),
        })
    }

    /// Bytes that end as `rel` ends as the group leaves it (`Some(None)`:
    /// removed), without reading the file on disk: the lines the group
    /// appended, or the whole file it wrote. `None` when the group did not
    /// touch it or appended nothing: its end is then the one on disk. (A
    /// commit that records events reads the log's last line: the whole
    /// segment must not be read for it.)
    pub(crate) fn end_of(&self, rel: &str) -> Option<Option<std::borrow::Cow<'_, [u8]>>> {
        use std::borrow::Cow;
        let Some(file) = self.files.get(rel) else {
            return self.below.as_ref()?.end_of(rel);
        };
        Some(match file {
            File::Tail { data, .. } if data.is_empty() => return self.below.as_ref()?.end_of(rel),
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
        let Some(file) = self.files.get(rel) else {
            return self.below.as_ref()?.exists(rel);
        };
        Some(!matches!(file, File::Whole(Op::Delete { .. })))
    }

    /// The length of `rel` as the group leaves it, when it touched it
    /// (the length of its complete lines, for an appended file).
    pub(crate) fn len(&self, rel: &str) -> Option<u64> {
        let Some(file) = self.files.get(rel) else {
            return self.below.as_ref()?.len(rel);
        };
        Some(match file {
            File::Whole(Op::Put { data, .. }) => data.len() as u64,
            File::Whole(Op::PutJson { json, .. }) => json.get().len() as u64 + 1,
            File::Whole(_) => 0,
            File::Tail { base_len, data } => base_len + data.len() as u64,
        })
    }

    /// The queue files the group put (`true`) or removed (`false`), by name.
    pub(crate) fn queue(&self) -> Vec<(String, bool)> {
        let prefix = format!("{QUEUE_DIR}/");
        let mine = self.files.iter().filter_map(|(rel, f)| {
            let name = rel.strip_prefix(&prefix)?;
            Some((
                name.to_string(),
                !matches!(f, File::Whole(Op::Delete { .. })),
            ))
        });
        let Some(below) = &self.below else {
            return mine.collect();
        };
        // The newer changes over those being applied.
        let mut all: HashMap<String, bool> = below.queue().into_iter().collect();
        all.extend(mine);
        all.into_iter().collect()
    }

    /// Whether what is staged may be applied while the group's writes go
    /// on (see [`Staged::freeze`]): it splits no key bucket. A split
    /// changes which bucket file a key goes to, which a commit looks up on
    /// the disk (see [`super::super::keys::append_ops`]).
    pub(crate) fn applies_beside_writes(&self) -> bool {
        !self.key_whole
    }

    /// Everything staged so far becomes what a checkpoint applies in the
    /// background (kept [`Staged::below`] what is staged from now on), as
    /// the journal it applies; `None` when a checkpoint is applying
    /// already, or when what is staged does not allow it
    /// ([`Staged::applies_beside_writes`]). Everything staged must be in
    /// the log (nothing staged since the last record).
    pub(crate) fn freeze(&mut self) -> Option<Journal> {
        if self.below.is_some() || !self.delta.is_empty() || !self.applies_beside_writes() {
            return None;
        }
        let frozen = Staged {
            files: std::mem::take(&mut self.files),
            order: std::mem::take(&mut self.order),
            ..Staged::default()
        };
        let journal = Journal {
            ops: frozen
                .order
                .iter()
                .filter_map(|path| {
                    Some(match frozen.files.get(path)? {
                        File::Whole(op) => op.clone(),
                        File::Tail { base_len, data } => Op::Append {
                            path: path.clone(),
                            base_len: *base_len,
                            data: data.clone(),
                        },
                    })
                })
                .collect(),
        };
        self.below = Some(Arc::new(frozen));
        Some(journal)
    }

    /// The checkpoint applied what [`Staged::freeze`] set aside: the
    /// files on disk hold it now.
    pub(crate) fn thaw(&mut self) {
        // (It split no key bucket, see `freeze`: where the keys go is as
        // it was.)
        self.below = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn append(path: &str, base_len: u64, data: &str) -> Op {
        Op::Append {
            path: path.into(),
            base_len,
            data: data.into(),
        }
    }

    fn put(path: &str, data: &str) -> Op {
        Op::Put {
            path: path.into(),
            data: data.into(),
        }
    }

    /// What a background checkpoint applies stays readable under what is
    /// staged after it, whatever the files on disk hold meanwhile, and the
    /// appends staged after it take its lengths as their base.
    #[test]
    fn what_a_checkpoint_applies_is_read_under_what_is_staged_since() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        std::fs::write(dir.path().join("log"), "a\n").unwrap();
        std::fs::write(dir.path().join("other"), "o\n").unwrap();
        let mut s = Staged::default();
        s.stage(vec![
            append("log", 2, "b\n"),
            put("whole", "w1"),
            put(&format!("{QUEUE_DIR}/q1"), "1"),
            put(&format!("{QUEUE_DIR}/q2"), "2"),
        ]);
        let delta = s.take_delta().unwrap();
        let frozen = s.freeze().expect("frozen");
        assert_eq!(frozen.ops.len(), 4);
        assert!(s.take_delta().is_none(), "{delta:?}");
        // The checkpoint writes the files meanwhile: half of an append.
        std::fs::write(dir.path().join("log"), "a\nb").unwrap();
        let read = |s: &Staged, rel: &str| {
            s.read(&root, rel)
                .unwrap()
                .map(|c| c.map(|b| String::from_utf8(b).unwrap()))
        };
        assert_eq!(read(&s, "log"), Some(Some("a\nb\n".into())));
        assert_eq!(s.len("log"), Some(4));
        assert_eq!(s.end_of("log").unwrap().unwrap().as_ref(), b"b\n");
        assert_eq!(read(&s, "other"), None, "untouched: the disk's");
        // Staged since: on top, its appends based past what is applied
        // (a key line's base, measured on the disk, is taken from below).
        s.stage(vec![
            append("log", 3, "c\n"),
            append("other", 2, "p\n"),
            Op::Delete {
                path: format!("{QUEUE_DIR}/q1"),
            },
        ]);
        assert_eq!(read(&s, "log"), Some(Some("a\nb\nc\n".into())));
        assert_eq!(read(&s, "other"), Some(Some("o\np\n".into())));
        assert_eq!(read(&s, "whole"), Some(Some("w1".into())));
        assert_eq!(s.exists("whole"), Some(true));
        assert_eq!(
            s.known_len("whole", || panic!("measured on disk")).unwrap(),
            2
        );
        let mut q = s.queue();
        q.sort();
        assert_eq!(q, [("q1".to_string(), false), ("q2".to_string(), true)]);
        assert!(s.freeze().is_none(), "one checkpoint at a time");
        let text = String::from_utf8(s.take_delta().unwrap()).unwrap();
        assert!(text.contains(r#""base_len":4"#), "{text}");
        // Applied: the disk holds it, and the next freeze takes only the rest.
        std::fs::write(dir.path().join("log"), "a\nb\n").unwrap();
        s.thaw();
        assert_eq!(read(&s, "log"), Some(Some("a\nb\nc\n".into())));
        assert_eq!(read(&s, "whole"), None);
        let next = s.freeze().expect("frozen");
        assert!(matches!(&next.ops[0], Op::Append { base_len: 4, data, .. } if data == "c\n"));
    }

    /// A split key bucket is looked up on the disk: it is never applied
    /// beside the writes.
    #[test]
    fn a_split_key_bucket_is_not_applied_beside_the_writes() {
        let keys = super::super::super::KEYS_DIR;
        let mut s = Staged::default();
        s.stage(vec![append(&format!("{keys}/5a.log"), 0, "k\n")]);
        assert!(s.applies_beside_writes());
        s.stage(vec![put(&format!("{keys}/5a/00.log"), "k\n")]);
        let _ = s.take_delta();
        assert!(!s.applies_beside_writes());
        assert!(s.freeze().is_none());
    }
}
