//! The event log of a JSON directory (see `model::event`).
//!
//! - `events/log/NNNNNNNN.jsonl`: the events, one line each, 1,024 to a
//!   segment (segment `n` holds the sequences `n*1024+1 ..= (n+1)*1024`), so
//!   that the event at any sequence is found by its file name and line;
//! - `events/records/XX`: one line `RECORD_ID SEQUENCE` per event of every
//!   segment but the last, in one of 256 buckets by the record id's hash,
//!   for a record's history. The last segment's events are found by reading
//!   that segment (at most 1,024 lines); the commit that starts the next
//!   segment moves its record lines to the buckets. A commit appends to the
//!   segment only (format 12 appended to a companion file of the segment
//!   as well; before it, a line to one of the buckets made each create wait
//!   for one more file in the file system's journal);
//! - `events/head`: which segment holds the last event (`{"segment": n}`),
//!   rewritten only by the commit that starts a segment: the last event
//!   (its sequence and hash, which the next commit chains to) is the last
//!   line of that segment, read from its end. (A head rewritten by every
//!   commit cost each create a new file.)
//!
//! Each customer and transaction file a commit writes names the commit's
//! last event (`last_event`): events cut from the log's end leave files
//! naming sequences past it, which `store check` reports (a cut that takes
//! whole segments leaves the buckets naming them too).
//!
//! All of it is written by the commit that makes the change, through its
//! journal (appends and a put), so a crash leaves the change with its events
//! or neither. `store check` verifies the chain; `--repair` never rewrites
//! the log. The record buckets are derived from it: `store check` compares
//! each with what the log says it holds ([`BucketSums`], 16 bytes a bucket
//! whatever the log's length) and `--repair` rewrites those that differ from
//! the log, unless events were cut from it (that evidence is kept).

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

/// The record lines of segment `n`'s events while it was the last, as
/// format 12 kept them (removed by the upgrade to 13).
pub(super) fn legacy_companion(n: u64) -> String {
    format!("{EVENTS_LOG}/{n:08}.records")
}

/// The sequences below this one are in full segments (the record
/// buckets'), when `last` is the log's last event.
pub(crate) fn open_from(last: u64) -> u64 {
    segment_of(last.max(1)) * SEGMENT + 1
}

/// What the record index needs of an event line.
#[derive(Deserialize)]
struct Indexed<'a> {
    sequence: u64,
    #[serde(borrow)]
    record_id: std::borrow::Cow<'a, str>,
}

/// The `(record id, sequence)` of each event line of `bytes` (a segment as
/// read: a line that does not parse is passed over, `store check` names it).
fn indexed_lines(bytes: &[u8]) -> impl Iterator<Item = (String, u64)> + '_ {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Indexed>(l).ok())
        .map(|i| (i.record_id.into_owned(), i.sequence))
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

impl JsonStore {
    /// The last event's sequence and hash (0 and the genesis hash when
    /// there is none), as committed.
    pub(super) fn events_head(&self) -> Result<(u64, String)> {
        // A group keeps the head its last write left (parsing the last
        // event's line was a tenth of a create's write).
        if let Some(group) = &self.group
            && let Some(head) = group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .events_head()
        {
            return Ok(head);
        }
        let path = self.root.join(EVENTS_HEAD);
        let bytes = match &self.group {
            // Kept by the group (see `group::Staged::with_content`).
            Some(group) => group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .with_content(&self.root, EVENTS_HEAD, |c| c.map(<[u8]>::to_vec))?,
            None => self.read_bytes(&path)?,
        };
        let Some(bytes) = bytes else {
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
        if let Some(group) = &self.group
            && let Some(rel) = path.strip_prefix(&self.root).ok().and_then(|r| r.to_str())
            && let Some(end) = group.lock().unwrap_or_else(|e| e.into_inner()).end_of(rel)
        {
            return Ok(end.and_then(|b| last_line_of(&b)));
        }
        let bytes = match self.overlaid(path)? {
            Some(content) => content.unwrap_or_default(),
            None => {
                use std::os::unix::fs::FileExt;
                let Some((f, len)) = safefs::open_len(&self.root, path, safefs::How::READ)? else {
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
        Ok(last_line_of(&bytes))
    }

    /// The highest sequence the record buckets name: more than the log's
    /// last event when whole segments were cut from its end (`store
    /// check`).
    pub(crate) fn indexed_last(&self) -> Result<u64> {
        let mut max = 0;
        for rel in (0..=255u8).map(bucket_file) {
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

    /// The sequences of `record_id`'s events, oldest first: those of full
    /// segments from its bucket, the last segment's from the segment (only
    /// the lines that hold the id are parsed).
    pub(super) fn record_sequences(&self, record_id: &str) -> Result<Vec<u64>> {
        let (last, _) = self.events_head()?;
        if last == 0 {
            return Ok(Vec::new());
        }
        let open = open_from(last);
        let mut out = Vec::new();
        if let Some(bytes) = self.read_bytes(&self.root.join(record_rel(record_id)))? {
            out.extend(
                String::from_utf8_lossy(&bytes)
                    .split_terminator('\n')
                    .filter_map(|l| l.split_once(' '))
                    .filter(|(r, _)| *r == record_id)
                    .filter_map(|(_, s)| s.parse::<u64>().ok())
                    .filter(|s| *s < open),
            );
        }
        let seg = self
            .read_bytes(&self.root.join(segment_rel(last)))?
            .unwrap_or_default();
        let needle = format!("\"{record_id}\"");
        let finder = memchr::memmem::Finder::new(needle.as_bytes());
        for line in seg.split(|&b| b == b'\n') {
            if finder.find(line).is_none() {
                continue;
            }
            if let Ok(i) = serde_json::from_slice::<Indexed>(line)
                && i.record_id == record_id
                && (open..=last).contains(&i.sequence)
            {
                out.push(i.sequence);
            }
        }
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

    /// Add the lines `other` counted (the sums do not depend on the order
    /// the lines are added in).
    pub(crate) fn merge(&mut self, other: &BucketSums) {
        for (e, o) in self.0.iter_mut().zip(&other.0) {
            e.0 += o.0;
            e.1 = e.1.wrapping_add(o.1);
        }
    }
}

impl JsonStore {
    /// The record buckets whose lines are not those `want` says (from the
    /// log's full segments), in order.
    pub(crate) fn record_buckets_off(&self, want: &BucketSums) -> Result<Vec<u8>> {
        let mut have = BucketSums::new();
        for b in 0..=255u8 {
            let Some(bytes) = self.read_bytes(&self.root.join(bucket_file(b)))? else {
                continue;
            };
            for line in String::from_utf8_lossy(&bytes).split_terminator('\n') {
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

    /// Rewrite the record index from the log's full segments, `last` being
    /// its last event (each bucket whole and atomically).
    pub(crate) fn rebuild_record_index(&self, last: u64) -> Result<()> {
        const CHUNK: u64 = 1024;
        let open = open_from(last);
        let mut lines: BTreeMap<u8, String> = (0..=255u8).map(|b| (b, String::new())).collect();
        let mut seq = 1;
        while seq < open {
            let to = (seq + CHUNK - 1).min(open - 1);
            for line in self.event_lines(seq, to)? {
                let Ok(e) = event::parse(&line) else { continue };
                if let Some(t) = lines.get_mut(&keys::bucket(&e.record_id)) {
                    t.push_str(&format!("{} {}\n", e.record_id, e.sequence));
                }
            }
            seq = to + 1;
        }
        let dir = self.root.join(EVENTS_RECORDS);
        atomic::ensure_dir(&self.root, &dir)?;
        for (b, text) in lines {
            atomic::write_file(&self.root, &self.root.join(bucket_file(b)), text.as_bytes())?;
        }
        atomic::sync_dir(&self.root, &dir)
    }
}

impl JsonStore {
    /// The operations that bring the record index of a store of format 10
    /// to 12 to 13's: the buckets without the last segment's lines (format
    /// 10 and 11 kept them there), no companion (format 12's).
    pub(super) fn record_index_upgrade_ops(&self) -> Result<Vec<Op>> {
        let (last, _) = self.events_head()?;
        let open = open_from(last);
        let mut ops = Vec::new();
        for b in 0..=255u8 {
            let rel = bucket_file(b);
            let Some(bytes) = self.read_bytes(&self.root.join(&rel))? else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            let kept: String = text
                .split_inclusive('\n')
                .filter(|l| {
                    l.trim_end()
                        .rsplit(' ')
                        .next()
                        .and_then(|s| s.parse::<u64>().ok())
                        .is_none_or(|s| s < open)
                })
                .collect();
            if kept.len() != text.len() {
                ops.push(Op::Put {
                    path: rel,
                    data: kept,
                });
            }
        }
        if last > 0 {
            for n in segment_of(last).saturating_sub(1)..=segment_of(last) {
                let rel = legacy_companion(n);
                if safefs::exists(&self.root, &self.root.join(&rel))? {
                    ops.push(Op::Delete { path: rel });
                }
            }
        }
        Ok(ops)
    }
}

impl JsonTx<'_> {
    /// Seal the transaction's events after the store's last one: their
    /// lines join the journal (with the record index lines of the segments
    /// they fill, and the head when they start one), and every customer and
    /// transaction file the commit writes names its last event.
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
        self.witness(seq);
        self.head = Some((seq, hash));
        Ok(())
    }

    /// Every customer and transaction file of the commit names `last`, its
    /// last event (see the module's notes). A record serialized already (an
    /// import's) gets the field spliced before its closing brace.
    fn witness(&mut self, last: u64) {
        for (id, c) in self.customers.iter_mut() {
            c.last_event = last;
            if let Some(json) = self.serialized.get_mut(id) {
                splice_last_event(json, last);
            }
        }
        for t in self.txns.values_mut() {
            t.last_event = last;
        }
    }

    /// The record index lines of the events `first+1..=last` (`records`)
    /// that are in full segments: when these events start a segment, the
    /// lines of the one they leave (read from it) and their own of earlier
    /// segments go to the buckets. The last segment's are its own lines.
    pub(super) fn index_records(
        &mut self,
        first: u64,
        last: u64,
        records: Vec<(String, u64)>,
    ) -> Result<()> {
        let open = segment_of(last.max(1));
        if last == first || (first > 0 && segment_of(first) == open) {
            return Ok(());
        }
        let mut fold: BTreeMap<u8, String> = BTreeMap::new();
        let mut add = |record_id: &str, seq: u64| {
            let text = fold.entry(keys::bucket(record_id)).or_default();
            text.push_str(record_id);
            text.push(' ');
            text.push_str(&seq.to_string());
            text.push('\n');
        };
        if first > 0 {
            let left = self.store.root.join(segment_rel(first));
            let bytes = self.store.read_bytes(&left)?.unwrap_or_default();
            for (record_id, seq) in indexed_lines(&bytes) {
                if seq <= first && segment_of(seq) == segment_of(first) {
                    add(&record_id, seq);
                }
            }
        }
        for (record_id, seq) in &records {
            if segment_of(*seq) != open {
                add(record_id, *seq);
            }
        }
        for (b, text) in fold {
            self.append(&bucket_file(b), &text)?;
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

/// `json`, a record serialized as one object, with `"last_event":last`
/// (the field serde writes last) set.
fn splice_last_event(json: &mut String, last: u64) {
    if let Some(at) = json.find(",\"last_event\":") {
        json.truncate(at);
        json.push('}');
    }
    if json.ends_with('}') {
        json.pop();
        json.push_str(&format!(",\"last_event\":{last}}}"));
    }
}

/// The last line of `bytes` (its newline dropped), when it is not empty.
fn last_line_of(bytes: &[u8]) -> Option<String> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let line = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => &body[i + 1..],
        None => body,
    };
    (!line.is_empty()).then(|| String::from_utf8_lossy(line).into_owned())
}
