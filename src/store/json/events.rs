//! The event log of a JSON directory (see `model::event`).
//!
//! - `events/log/NNNNNNNN.jsonl`: the events, one line each, 1,024 to a
//!   segment (segment `n` holds the sequences `n*1024+1 ..= (n+1)*1024`), so
//!   that the event at any sequence is found by its file name and line;
//! - `events/records/XX`: one line `RECORD_ID SEQUENCE` per event, in one
//!   of 256 buckets by the record id's hash, for a record's history: the
//!   events of every segment but the last;
//! - `events/log/NNNNNNNN.records`: the same lines for the last segment's
//!   events, until the commit that starts the next segment moves them to
//!   the buckets and removes the file. A commit appends to the segment and
//!   to its companion, two files it appended to before, where a line to a
//!   bucket touched one of 256 others (each create then waited for its
//!   inode in the file system's journal: 1.25x the time of a create
//!   without events, against 1.0x so);
//! - `events/head`: which segment holds the last event (`{"segment": n}`),
//!   rewritten only by the commit that starts a segment: the last event
//!   (its sequence and hash, which the next commit chains to) is the last
//!   line of that segment, read from its end. (A head rewritten by every
//!   commit cost each create a new file.)
//!
//! All three are written by the commit that makes the change, through its
//! journal (appends and a put), so a crash leaves the change with its events
//! or neither. `store check` verifies the chain; `--repair` never rewrites
//! the log. The record buckets are derived from it: `store check` compares
//! each with what the log says it holds ([`BucketSums`], 16 bytes a bucket
//! whatever the log's length) and `--repair` rewrites those that differ from
//! the log, unless the buckets name events past the log's end (events cut
//! from it: that evidence is kept).

use serde::{Deserialize, Serialize};

use super::*;
use crate::model::event::{self, GENESIS};

pub(crate) const EVENTS_HEAD: &str = "events/head";
pub(crate) const EVENTS_LOG: &str = "events/log";
pub(crate) const EVENTS_RECORDS: &str = "events/records";

/// Events to a segment file.
pub const SEGMENT: u64 = 1024;

#[derive(Serialize, Deserialize)]
struct Head {
    /// The segment that holds the last event.
    segment: u64,
}

/// How much of a segment's end is read to find its last line (an event of
/// a profile is about 1 KB; a longer last line is read whole, in larger
/// windows).
const TAIL: u64 = 8 * 1024;

/// The segment that holds `sequence` (from 1).
pub(super) fn segment_of(sequence: u64) -> u64 {
    (sequence - 1) / SEGMENT
}

/// The file of segment `n`.
fn segment_file(n: u64) -> String {
    format!("{EVENTS_LOG}/{n:08}.jsonl")
}

/// The segment file of `sequence` (from 1).
pub(crate) fn segment_rel(sequence: u64) -> String {
    segment_file(segment_of(sequence))
}

/// The record lines of segment `n`'s events while it is the last.
fn segment_records(n: u64) -> String {
    format!("{EVENTS_LOG}/{n:08}.records")
}

/// The bucket file `b` of the record index.
fn bucket_file(b: u8) -> String {
    format!("{EVENTS_RECORDS}/{b:02x}")
}

/// The bucket of a record's events: one of 256, by the low byte of the
/// id's FNV-1a hash (as the key index's), so that an import's chunk appends
/// to at most 256 files and a history reads about 1/256 of the index.
pub(crate) fn record_rel(record_id: &str) -> String {
    bucket_file(keys::bucket(record_id))
}

/// The record of a line `RECORD_ID SEQUENCE` of the index.
fn record_of(line: &str) -> &str {
    line.split_once(' ').map_or(line, |(r, _)| r)
}

impl JsonStore {
    /// The last event's sequence and hash (0 and the genesis hash when
    /// there is none), as committed.
    pub(super) fn events_head(&self) -> Result<(u64, String)> {
        let path = self.root.join(EVENTS_HEAD);
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok((0, GENESIS.to_string()));
        };
        let head: Head = serde_json::from_slice(&bytes)
            .map_err(|e| Error::corrupt(&path, format!("not an event head: {e}")))?;
        let seg = self.root.join(segment_file(head.segment));
        let Some(line) = self.last_line(&seg)? else {
            return Err(Error::corrupt(
                &seg,
                "the event log's head names this segment, which holds no event",
            ));
        };
        let e = event::parse(&line).map_err(|e| Error::corrupt(&seg, e))?;
        Ok((e.sequence, e.hash))
    }

    /// The last complete line of `path`, as committed (from the overlay of
    /// a group or a pending journal when it names the file, else the end of
    /// the file on disk). Only the line's own bytes are decoded: every
    /// commit that records events reads it.
    fn last_line(&self, path: &Path) -> Result<Option<String>> {
        let bytes = match self.overlaid(path)? {
            Some(content) => content.unwrap_or_default(),
            None => {
                use std::os::unix::fs::FileExt;
                let Some((f, len)) = safefs::open_len(path, safefs::How::READ)? else {
                    return Ok(None);
                };
                let end = index::complete_len_of(
                    f.try_clone().map_err(|e| Error::io(path, e))?,
                    len,
                    path,
                )?;
                let mut from = end.saturating_sub(TAIL);
                loop {
                    let mut buf = vec![0u8; (end - from) as usize];
                    f.read_exact_at(&mut buf, from)
                        .map_err(|e| Error::io(path, e))?;
                    // A whole line: the window holds a newline before its
                    // last one, or starts the file.
                    let body = buf.strip_suffix(b"\n").unwrap_or(&buf);
                    if from == 0 || body.contains(&b'\n') {
                        break buf;
                    }
                    from = from.saturating_sub(TAIL * 16);
                }
            }
        };
        let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let line = match body.iter().rposition(|&b| b == b'\n') {
            Some(i) => &body[i + 1..],
            None => body,
        };
        Ok((!line.is_empty()).then(|| String::from_utf8_lossy(line).into_owned()))
    }

    /// The highest sequence the record buckets name: more than the log's
    /// last event when events were cut from its end (`store check`).
    pub(crate) fn indexed_last(&self) -> Result<u64> {
        let mut max = 0;
        for rel in self.index_files()? {
            let Some(bytes) = self.read_bytes(&self.root.join(rel))? else {
                continue;
            };
            for line in String::from_utf8_lossy(&bytes).lines() {
                if let Some(seq) = line.rsplit(' ').next().and_then(|s| s.parse::<u64>().ok()) {
                    max = max.max(seq);
                }
            }
        }
        Ok(max)
    }

    /// The files of the record index: the 256 buckets, then the last
    /// segment's companion (see the module's notes).
    fn index_files(&self) -> Result<Vec<String>> {
        let (last, _) = self.events_head()?;
        let mut out: Vec<String> = (0..=255u8).map(bucket_file).collect();
        if last > 0 {
            out.push(segment_records(segment_of(last)));
        }
        Ok(out)
    }

    /// The sequences of `record_id`'s events, oldest first.
    pub(super) fn record_sequences(&self, record_id: &str) -> Result<Vec<u64>> {
        let (last, _) = self.events_head()?;
        let mut text = String::new();
        for rel in [record_rel(record_id)]
            .into_iter()
            .chain((last > 0).then(|| segment_records(segment_of(last))))
        {
            if let Some(bytes) = self.read_bytes(&self.root.join(rel))? {
                text.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
        let mut out: Vec<u64> = text
            .split_terminator('\n')
            .filter_map(|l| l.split_once(' '))
            .filter(|(r, _)| *r == record_id)
            .filter_map(|(_, s)| s.parse().ok())
            .filter(|s| *s <= last)
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}

/// What each record bucket holds, as a count of lines and a wrapping sum
/// of their hashes: the same whatever the order of the lines.
pub(crate) struct BucketSums(Vec<(u64, u64)>);

impl BucketSums {
    pub(crate) fn new() -> Self {
        BucketSums(vec![(0, 0); 256])
    }

    /// One line `RECORD_ID SEQUENCE` of bucket `b`.
    fn add_to(&mut self, b: u8, record_id: &str, sequence: u64) {
        let e = &mut self.0[usize::from(b)];
        e.0 += 1;
        e.1 = e.1.wrapping_add(super::check::h64(&(record_id, sequence)));
    }

    /// The line an event of the log puts in its record's bucket.
    pub(crate) fn add(&mut self, record_id: &str, sequence: u64) {
        self.add_to(keys::bucket(record_id), record_id, sequence);
    }
}

impl JsonStore {
    /// The record buckets whose lines are not those `want` says (from the
    /// log), in order.
    /// (A line of the last segment's companion counts in its record's
    /// bucket.)
    pub(crate) fn record_buckets_off(&self, want: &BucketSums) -> Result<Vec<u8>> {
        let mut have = BucketSums::new();
        for rel in self.index_files()? {
            let Some(bytes) = self.read_bytes(&self.root.join(&rel))? else {
                continue;
            };
            let bucket = u8::from_str_radix(rel.rsplit('/').next().unwrap_or_default(), 16).ok();
            for line in String::from_utf8_lossy(&bytes).split_terminator('\n') {
                let b = bucket.unwrap_or_else(|| keys::bucket(record_of(line)));
                match line.split_once(' ').map(|(r, s)| (r, s.parse::<u64>())) {
                    Some((r, Ok(seq))) => have.add_to(b, r, seq),
                    // A line that names no event: never what the log says.
                    _ => have.add_to(b, line, u64::MAX),
                }
            }
        }
        Ok((0..=255u8)
            .filter(|&b| have.0[usize::from(b)] != want.0[usize::from(b)])
            .collect())
    }

    /// Rewrite the record index from the log's events `1..=last` (each file
    /// whole and atomically).
    /// All of them, and the last segment's companion: a store of an earlier
    /// payctl kept the last segment's lines in the buckets, so that a
    /// bucket not rebuilt could name what the companion names.
    pub(crate) fn rebuild_record_index(&self, last: u64) -> Result<()> {
        const CHUNK: u64 = 1024;
        let open = segment_of(last.max(1));
        let mut lines: BTreeMap<u8, String> = (0..=255u8).map(|b| (b, String::new())).collect();
        let mut companion = String::new();
        let mut seq = 1;
        while seq <= last {
            let to = (seq + CHUNK - 1).min(last);
            for line in self.event_lines(seq, to)? {
                let Ok(e) = event::parse(&line) else { continue };
                let text = format!("{} {}\n", e.record_id, e.sequence);
                if segment_of(e.sequence) == open {
                    companion.push_str(&text);
                } else if let Some(t) = lines.get_mut(&keys::bucket(&e.record_id)) {
                    t.push_str(&text);
                }
            }
            seq = to + 1;
        }
        let dir = self.root.join(EVENTS_RECORDS);
        atomic::ensure_dir(&dir)?;
        for (b, text) in lines {
            atomic::write_file(&self.root.join(bucket_file(b)), text.as_bytes())?;
        }
        atomic::sync_dir(&dir)?;
        if last > 0 {
            atomic::write_file(&self.root.join(segment_records(open)), companion.as_bytes())?;
            atomic::sync_dir(&self.root.join(EVENTS_LOG))?;
        }
        Ok(())
    }
}

impl JsonTx<'_> {
    /// Seal the transaction's events after the store's last one: their
    /// lines and their record index lines join the journal (and the head,
    /// when they start a segment).
    pub(super) fn stage_events(&mut self) -> Result<()> {
        if self.events.is_empty() {
            return Ok(());
        }
        let (first, mut hash) = self.store.events_head()?;
        let mut seq = first;
        let mut records = Vec::with_capacity(self.events.len());
        for e in std::mem::take(&mut self.events) {
            seq += 1;
            let (line, h) = event::seal(&e, seq, &hash);
            hash = h;
            self.append(&segment_rel(seq), &format!("{line}\n"))?;
            records.push((e.record_id, seq));
        }
        self.index_records(first, seq, records)?;
        self.point_head(first, seq);
        Ok(())
    }

    /// The record index lines of the events `first+1..=last` (`records`):
    /// those of the last segment to its companion; when they start a
    /// segment, the companion of the one they leave moves to the buckets
    /// (see the module's notes), with their own lines of earlier segments.
    pub(super) fn index_records(
        &mut self,
        first: u64,
        last: u64,
        records: Vec<(String, u64)>,
    ) -> Result<()> {
        if last == first {
            return Ok(());
        }
        let open = segment_of(last);
        let mut fold: BTreeMap<u8, String> = BTreeMap::new();
        if first > 0 && segment_of(first) != open {
            let left = segment_records(segment_of(first));
            if let Some(bytes) = self.store.read_bytes(&self.store.root.join(&left))? {
                for line in String::from_utf8_lossy(&bytes).split_terminator('\n') {
                    let text = fold.entry(keys::bucket(record_of(line))).or_default();
                    text.push_str(line);
                    text.push('\n');
                }
            }
            self.ops.push(Some(Op::Delete { path: left }));
        }
        let mut companion = String::new();
        for (record_id, seq) in records {
            let line = format!("{record_id} {seq}\n");
            if segment_of(seq) == open {
                companion.push_str(&line);
            } else {
                fold.entry(keys::bucket(&record_id))
                    .or_default()
                    .push_str(&line);
            }
        }
        for (b, text) in fold {
            self.append(&bucket_file(b), &text)?;
        }
        if !companion.is_empty() {
            self.append(&segment_records(open), &companion)?;
        }
        Ok(())
    }

    /// The head names the segment of `last` when the events after `first`
    /// started it (or the log).
    pub(super) fn point_head(&mut self, first: u64, last: u64) {
        if last > first && (first == 0 || segment_of(first) != segment_of(last)) {
            let head = Head {
                segment: segment_of(last),
            };
            self.put(
                EVENTS_HEAD.to_string(),
                serde_json::to_vec(&head).expect("a head serializes"),
            );
        }
    }
}
