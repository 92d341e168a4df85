//! The journal of a group commit (`payctl serve`, see `store/json/group/`)
//! as a log: `journal.json` begins with [`HEADER`], and each group's commit
//! appends one record, the operations its writes staged since the record
//! before, then syncs the file (`fdatasync`): the commit point. The first
//! record creates the file, which is synced with its directory.
//!
//! Before this, each group rewrote the whole journal of the changes since
//! the last checkpoint (a temp file, a sync, a rename, a sync of the
//! directory), which grew with every group until the checkpoint, and freed
//! an inode a group.
//!
//! A record is one line: the SHA-256 of its text in hex, a space, the text
//! (a [`Journal`] in JSON: no line break inside). A replay reads the records
//! in order and merges them as the group did (see [`Staged`]): an append's
//! base is the file's length on disk, which no record of one log changes
//! (the log is applied and removed whole, by a checkpoint or a flush of the
//! group, before anything of it is written to the files).
//!
//! A checkpoint that applies the log while the group's writes go on (see
//! `store/json/group/`) applies the records up to a byte of the log, then
//! makes the records after it the whole log ([`Log::compact`]): they are
//! written to a new file, synced, and renamed over the log, whose directory
//! is synced before the next record is appended. A crash before the rename
//! leaves the whole log, whose replay rewrites what the checkpoint applied
//! (every operation is idempotent, and nothing after it was applied).
//!
//! A record cut short by a crash (no line end, or a hash that does not
//! match, at the log's end) was never acknowledged: it is left out. A bad
//! record followed by a good one is damage, reported as a corrupt journal.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::{JOURNAL, Journal};
use crate::error::{Error, Result};
use crate::model::digest::sha256_hex;
use crate::store::json::atomic;
use crate::store::json::group::Staged;
use crate::store::json::safefs::Root;
use crate::store::outcomes::Outcomes;

/// The first line of a journal that is a log.
pub const HEADER: &[u8] = b"payctl journal log 1\n";

/// Whether the journal text `bytes` is a log.
pub fn is_log(bytes: &[u8]) -> bool {
    bytes.starts_with(HEADER)
}

/// The operations of the log `bytes` (read from `path`), merged in order.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Journal> {
    let mut staged = Staged::default();
    let mut cut: Option<usize> = None;
    let mut at = HEADER.len();
    for line in bytes[HEADER.len()..].split_inclusive(|&b| b == b'\n') {
        let n = at;
        at += line.len();
        match record(line) {
            Some(journal) => {
                if let Some(bad) = cut {
                    return Err(Error::corrupt(
                        path,
                        format!(
                            "the record at byte {bad} of the log is damaged and records follow it; \
                             `payctl store check --repair` moves it aside"
                        ),
                    ));
                }
                staged.merge(journal.ops);
            }
            None => cut = cut.or(Some(n)),
        }
    }
    Ok(staged.take())
}

/// The journal of one record line, when it is whole and its hash holds.
fn record(line: &[u8]) -> Option<Journal> {
    let line = line.strip_suffix(b"\n")?;
    let (hash, text) = (line.get(..64)?, line.get(65..)?);
    if line.get(64) != Some(&b' ') || sha256_hex(text).as_bytes() != hash {
        return None;
    }
    serde_json::from_slice(text).ok()
}

/// The log a group appends to, once its first record created it.
#[derive(Debug, Default)]
pub struct Log {
    file: Option<File>,
    /// Its length: what a failed append is cut back to.
    len: u64,
}

impl Log {
    /// The log's length in bytes.
    pub fn bytes(&self) -> u64 {
        self.len
    }

    /// Forget the file (the log was applied and removed): the next record
    /// starts a new one.
    pub fn reset(&mut self) {
        *self = Log::default();
    }

    /// Make the records from byte `from` on the whole log (those before it
    /// were applied: see the module doc); no log when there are none.
    /// On error the log is the one that holds the records appended next,
    /// and it holds every record from `from` on.
    ///
    /// On success it hands back the replaced log, unlinked but open, for
    /// the caller to close once it has let the log's lock go: closing the
    /// last descriptor of an unlinked file frees its blocks, and on ext4
    /// without a journal mounted with `discard` (the machines measured in
    /// `bench/results/2026-11-28-1520-serve-create-ab.md`) the close waits
    /// until the device has trimmed them, which no commit should wait for.
    pub fn compact(&mut self, root: &Root, from: u64) -> Result<Option<File>> {
        use std::os::unix::fs::FileExt;
        let path = root.join(JOURNAL);
        atomic::fault(&path, "before-log-compact")?;
        let Some(old) = &self.file else {
            return Ok(None);
        };
        if from >= self.len {
            // Not synced: the next record creates the log anew and syncs
            // the directory; a crash before it brings this log back, whose
            // replay rewrites what is already there.
            self.len = 0;
            let old = self.file.take();
            atomic::remove_file(root, &path)?;
            return Ok(old);
        }
        let mut bytes = HEADER.to_vec();
        let at = bytes.len();
        bytes.resize(at + (self.len - from) as usize, 0);
        old.read_exact_at(&mut bytes[at..], from)
            .map_err(|e| Error::io(&path, e))?;
        let tmp = atomic::temp_path(&path);
        atomic::remove_file(root, &tmp)?;
        let mut f = atomic::open_private(
            root,
            &tmp,
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true),
        )?;
        let written = f
            .write_all(&bytes)
            .and_then(|()| f.sync_all())
            .map_err(|e| Error::io(&tmp, e));
        if let Err(e) = written {
            let _ = atomic::remove_file(root, &tmp);
            return Err(e);
        }
        atomic::rename_temp(root, &tmp, &path)?;
        // Renamed: the records that follow go to the new log, which the
        // next open replays once its name is durable.
        let old = self.file.replace(f);
        self.len = bytes.len() as u64;
        atomic::fault(&path, "after-log-compact")?;
        atomic::sync_dir(root, root.path())?;
        Ok(old)
    }

    /// Append the record of `ops_json` (a [`Journal`]'s JSON text) to the
    /// log of the store at `root`, durably: the commit point of a group.
    /// On error nothing of it stays in the log: it is cut back to its
    /// length before and synced. When that cut fails too (a failing
    /// device), the record may stay and be replayed although its group was
    /// answered with the error; the group's store is let go either way.
    pub fn append(&mut self, root: &Root, ops_json: &[u8], outcomes: &Outcomes) -> Result<()> {
        let path = root.join(JOURNAL);
        atomic::fault(&path, "before-write")?;
        // One line a record: a line break in JSON text is only ever
        // whitespace between tokens (one inside a string is escaped).
        let text: std::borrow::Cow<[u8]> = match ops_json.contains(&b'\n') {
            false => ops_json.into(),
            true => ops_json
                .iter()
                .map(|&b| if b == b'\n' { b' ' } else { b })
                .collect::<Vec<u8>>()
                .into(),
        };
        let ops_json = &*text;
        let mut line = Vec::with_capacity(ops_json.len() + 66 + HEADER.len());
        let first = self.file.is_none();
        if first {
            line.extend_from_slice(HEADER);
        }
        line.extend_from_slice(sha256_hex(ops_json).as_bytes());
        line.push(b' ');
        line.extend_from_slice(ops_json);
        line.push(b'\n');
        if first {
            // A log left behind was replayed when the group began (the
            // store's pending journal is completed before a group starts):
            // one here now is not this group's.
            let f = atomic::open_private(
                root,
                &path,
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create_new(true),
            )?;
            self.file = Some(f);
            self.len = 0;
        }
        let Some(f) = self.file.as_mut() else {
            unreachable!("opened above");
        };
        let written = (|| {
            f.write_all(&line).map_err(|e| Error::io(&path, e))?;
            atomic::fault(&path, "after-write")?;
            if first {
                f.sync_all().map_err(|e| Error::io(&path, e))?;
            } else {
                f.sync_data().map_err(|e| Error::io(&path, e))?;
            }
            atomic::fault(&path, "after-sync")
        })();
        if let Err(e) = written {
            // Not acknowledged: not replayed either.
            let cut = f.set_len(self.len).and_then(|()| f.sync_data());
            if first || cut.is_err() {
                drop(self.file.take());
                if first {
                    let _ = atomic::remove_file(root, &path);
                }
            }
            return Err(e);
        }
        self.len += line.len() as u64;
        // The commit point.
        outcomes.count_committed();
        if first {
            let synced = atomic::fault(&path, "after-rename")
                .and_then(|()| atomic::sync_dir(root, root.path()));
            if let Err(e) = synced {
                let why = e.first_message();
                outcomes.warn(format!(
                    "the change was committed ({}), but syncing its directory failed: {why}",
                    path.display()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::json::journal::Op;

    fn rec(ops: Vec<Op>) -> Vec<u8> {
        let text = serde_json::to_vec(&Journal { ops }).unwrap();
        let mut line = sha256_hex(&text).into_bytes();
        line.push(b' ');
        line.extend_from_slice(&text);
        line.push(b'\n');
        line
    }

    fn put(path: &str, data: &str) -> Op {
        Op::Put {
            path: path.into(),
            data: data.into(),
        }
    }

    fn append(path: &str, data: &str) -> Op {
        Op::Append {
            path: path.into(),
            base_len: 3,
            data: data.into(),
        }
    }

    #[test]
    fn records_merge_in_order_and_a_torn_end_is_left_out() {
        let mut log = HEADER.to_vec();
        log.extend(rec(vec![put("a", "1"), append("b", "x\n")]));
        log.extend(rec(vec![put("a", "2"), append("b", "y\n")]));
        let whole = parse(Path::new("j"), &log).unwrap();
        let mut torn = log.clone();
        let last = rec(vec![put("a", "3")]);
        torn.extend(&last[..last.len() - 5]);
        for bytes in [&log, &torn] {
            let j = parse(Path::new("j"), bytes).unwrap();
            assert_eq!(j.ops.len(), 2, "{:?}", j.ops);
            assert!(matches!(&j.ops[0], Op::Put { data, .. } if data == "2"));
            assert!(matches!(&j.ops[1], Op::Append { base_len: 3, data, .. } if data == "x\ny\n"));
        }
        assert_eq!(whole.ops.len(), 2);
        // A changed byte in the last record: cut, left out.
        let mut bad = log.clone();
        let n = bad.len();
        bad[n - 4] ^= 1;
        let j = parse(Path::new("j"), &bad).unwrap();
        assert!(matches!(&j.ops[0], Op::Put { data, .. } if data == "1"));
    }

    /// The records after the applied ones become the whole log, which
    /// takes the next record; with none after them, there is no log.
    #[test]
    fn a_compacted_log_holds_the_records_after_the_applied_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let outcomes = Outcomes::default();
        let mut log = Log::default();
        let text = |ops| serde_json::to_vec(&Journal { ops }).unwrap();
        log.append(&root, &text(vec![put("a", "1")]), &outcomes)
            .unwrap();
        let applied = log.bytes();
        log.append(
            &root,
            &text(vec![put("a", "2"), append("b", "x\n")]),
            &outcomes,
        )
        .unwrap();
        let replaced = log.compact(&root, applied).unwrap().expect("the old log");
        // Handed back unlinked, for the caller to close after the lock.
        use std::os::unix::fs::MetadataExt;
        assert_eq!(replaced.metadata().unwrap().nlink(), 0);
        drop(replaced);
        log.append(&root, &text(vec![append("b", "y\n")]), &outcomes)
            .unwrap();
        let path = root.join(JOURNAL);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes.len() as u64, log.bytes());
        let j = parse(&path, &bytes).unwrap();
        assert!(
            matches!(&j.ops[0], Op::Put { data, .. } if data == "2"),
            "{:?}",
            j.ops
        );
        assert!(matches!(&j.ops[1], Op::Append { data, .. } if data == "x\ny\n"));
        assert!(!atomic::temp_path(&path).exists());
        let replaced = log
            .compact(&root, log.bytes())
            .unwrap()
            .expect("the old log");
        assert_eq!(replaced.metadata().unwrap().nlink(), 0);
        assert!(!path.exists(), "nothing after: no log");
        log.append(&root, &text(vec![put("a", "3")]), &outcomes)
            .unwrap();
        let j = parse(&path, &std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(j.ops.len(), 1);
    }

    #[test]
    fn a_damaged_record_followed_by_a_good_one_is_corrupt() {
        let mut log = HEADER.to_vec();
        let mut first = rec(vec![put("a", "1")]);
        first[3] ^= 1;
        log.extend(first);
        log.extend(rec(vec![put("a", "2")]));
        let e = parse(Path::new("j"), &log).unwrap_err();
        assert!(e.to_string().contains("damaged"), "{e}");
        assert!(is_log(&log) && !is_log(b"{\"ops\":[]}"));
    }
}
