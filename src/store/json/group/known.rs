//! What a group's writes learned of the store's files, kept for the later
//! writes of the group instead of asked of the disk again: a create used
//! to open a dozen files (its key's bucket, to read it and to find where
//! the bucket is, the lengths of the files it appends to, the event log's
//! head), a third of the server's time on durable creates, all of it while
//! the other writes waited for their turn.
//!
//! Each is a file *as the group leaves it* (its staged changes over the
//! disk). That does not change when what is staged is applied to the
//! disk (a checkpoint, in the background or not, or a flush before a key
//! bucket split): the files then hold what was staged. It changes only by
//! what is staged, which updates it ([`Known::staged`]). The store is held
//! exclusively meanwhile, and a group's `Staged` ends when it is let go, so
//! no other process changes a file under it.
//!
//! Where a key's bucket is (which bucket files and directories exist) is
//! the disk's, not the group's (see `keys::append_ops`): it is forgotten
//! when what is staged is applied at once ([`Known::applied`]), which may
//! split a bucket; a checkpoint in the background never does.

use std::collections::HashMap;

use super::super::KEYS_DIR;
use super::super::events::EVENTS_HEAD;
use super::super::journal::Op;

/// Where the event log's files are.
const EVENTS_DIR: &str = "events/";

/// See the module doc.
#[derive(Debug, Default)]
pub(super) struct Known {
    /// The length of the complete lines of a file, by store-relative path.
    pub(super) lens: HashMap<String, u64>,
    /// The content of a key bucket or of the event log's head (`None`: no
    /// such file), by path.
    pub(super) contents: HashMap<String, Option<Vec<u8>>>,
    /// Whether each key bucket file (or directory, see `keys::place_with`)
    /// that was looked for is on the disk.
    pub(super) placed: HashMap<String, bool>,
    /// The event log's head (sequence and hash) as the last write that
    /// appended events left it; forgotten by any other change of the log.
    pub(super) events_head: Option<(u64, String)>,
}

/// Whether the content of `rel` is kept once read (see [`Known::contents`]):
/// the files every create reads, never a large one.
pub(super) fn kept(rel: &str) -> bool {
    rel == EVENTS_HEAD
        || rel
            .strip_prefix(KEYS_DIR)
            .is_some_and(|r| r.starts_with('/'))
}

/// What operations about to be staged change of what is known: the paths
/// whose length is known, and the changes of the contents kept.
pub(super) struct Pending {
    lens: Vec<String>,
    contents: Vec<(String, Change)>,
    /// The event log changes.
    events: bool,
}

/// What an operation about to be staged changes of a kept content.
enum Change {
    /// Lines appended at its end.
    Appended(String),
    /// Rewritten or removed: read again when asked.
    Replaced,
}

impl Known {
    /// What `ops` change of what is known, before they are staged.
    pub(super) fn changes(&self, ops: &[Op]) -> Pending {
        let mut pending = Pending {
            lens: Vec::new(),
            contents: Vec::new(),
            events: false,
        };
        for op in ops {
            let (path, change) = match op {
                Op::Append { path, data, .. } => (path, Change::Appended(data.clone())),
                Op::Put { path, .. } | Op::PutJson { path, .. } | Op::Delete { path } => {
                    (path, Change::Replaced)
                }
            };
            if path.starts_with(EVENTS_DIR) {
                pending.events = true;
            }
            if self.lens.contains_key(path.as_str()) {
                pending.lens.push(path.clone());
            }
            if self.contents.contains_key(path.as_str()) {
                pending.contents.push((path.clone(), change));
            }
        }
        pending
    }

    /// The operations of `pending` were staged, which made `len` the
    /// length of each path they name.
    pub(super) fn staged(&mut self, pending: Pending, len: impl Fn(&str) -> Option<u64>) {
        if pending.events {
            self.events_head = None;
        }
        for path in pending.lens {
            match len(&path) {
                Some(now) => {
                    self.lens.insert(path, now);
                }
                None => {
                    self.lens.remove(&path);
                }
            }
        }
        for (path, change) in pending.contents {
            let now = len(&path);
            let keep = match (self.contents.get_mut(&path), change) {
                (Some(Some(c)), Change::Appended(data)) => {
                    c.extend_from_slice(data.as_bytes());
                    // Only an append at the end it knew: else read again.
                    now == Some(c.len() as u64)
                }
                (Some(None), Change::Appended(data)) => {
                    self.contents
                        .insert(path.clone(), Some(data.clone().into_bytes()));
                    now == Some(data.len() as u64)
                }
                _ => false,
            };
            if !keep {
                self.contents.remove(&path);
            }
        }
    }

    /// What was staged is applied to the disk at once (it may split a key
    /// bucket): where key buckets are is looked up again.
    pub(super) fn applied(&mut self) {
        self.placed.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::journal::Op;
    use super::super::super::safefs::Root;
    use super::super::Staged;

    /// What a group knows of a file follows what it stages, and not what
    /// is applied: an append extends a kept bucket and a known length, a
    /// rewrite makes the bucket read again.
    #[test]
    fn what_is_known_follows_what_is_staged() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        std::fs::create_dir_all(dir.path().join("index/keys")).unwrap();
        let bucket = "index/keys/5a.log";
        std::fs::write(dir.path().join(bucket), "a x\n").unwrap();
        let mut s = Staged::default();
        let read = |s: &mut Staged| {
            s.with_content(&root, bucket, |c| {
                String::from_utf8(c.unwrap().to_vec()).unwrap()
            })
            .unwrap()
        };
        assert_eq!(read(&mut s), "a x\n");
        assert_eq!(s.known_len(bucket, || Ok(4)).unwrap(), 4);
        s.stage(vec![Op::Append {
            path: bucket.into(),
            base_len: 4,
            data: "b y\n".into(),
        }]);
        // The disk is not read again: it still says what it said.
        std::fs::write(dir.path().join(bucket), "stale\n").unwrap();
        assert_eq!(read(&mut s), "a x\nb y\n");
        assert_eq!(s.known_len(bucket, || panic!("measured")).unwrap(), 8);
        // Applied: nothing the group knows changes.
        std::fs::write(dir.path().join(bucket), "a x\nb y\n").unwrap();
        drop(s.take());
        assert_eq!(read(&mut s), "a x\nb y\n");
        assert_eq!(s.known_len(bucket, || panic!("measured")).unwrap(), 8);
        // Rewritten (a split): read again, as the group leaves it.
        s.stage(vec![Op::Put {
            path: bucket.into(),
            data: "c z\n".into(),
        }]);
        assert_eq!(read(&mut s), "c z\n");
        assert_eq!(s.known_len(bucket, || panic!("measured")).unwrap(), 4);
    }
}
