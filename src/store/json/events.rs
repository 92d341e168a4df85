//! The event log of a JSON directory (see `model::event`).
//!
//! - `events/log/NNNNNNNN.jsonl`: the events, one line each, 1,024 to a
//!   segment (segment `n` holds the sequences `n*1024+1 ..= (n+1)*1024`), so
//!   that the event at any sequence is found by its file name and line;
//! - `events/records/XX`: one line `RECORD_ID SEQUENCE` per event, in the
//!   bucket of the record id's shard (its first two characters), for a
//!   record's history;
//! - `events/head`: the last sequence and its hash, which the next commit
//!   chains its events to.
//!
//! All three are written by the commit that makes the change, through its
//! journal (appends and a put), so a crash leaves the change with its events
//! or neither. `store check` verifies the chain; `--repair` never rewrites
//! the log (the record buckets are derived and rebuilt from it).

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
    sequence: u64,
    hash: String,
}

/// The segment file of `sequence` (from 1).
pub(crate) fn segment_rel(sequence: u64) -> String {
    format!("{EVENTS_LOG}/{:08}.jsonl", (sequence - 1) / SEGMENT)
}

/// The bucket of a record's events.
pub(crate) fn record_rel(record_id: &str) -> String {
    let shard: String = id::shard(record_id)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("{EVENTS_RECORDS}/{shard}")
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
        Ok((head.sequence, head.hash))
    }

    /// The stored lines of the events `from..=to` that exist, in order.
    pub(super) fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        let (last, _) = self.events_head()?;
        let to = to.min(last);
        let mut out = Vec::new();
        let mut seq = from.max(1);
        while seq <= to {
            let rel = segment_rel(seq);
            let first = (seq - 1) / SEGMENT * SEGMENT + 1;
            let path = self.root.join(&rel);
            let bytes = self.read_bytes(&path)?.unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            for (i, line) in text.split_terminator('\n').enumerate() {
                let s = first + i as u64;
                if s >= seq && s <= to {
                    out.push(line.to_string());
                }
            }
            seq = first + SEGMENT;
        }
        Ok(out)
    }

    /// The sequences of `record_id`'s events, oldest first.
    pub(super) fn record_sequences(&self, record_id: &str) -> Result<Vec<u64>> {
        let path = self.root.join(record_rel(record_id));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        let text = String::from_utf8_lossy(&bytes);
        let (last, _) = self.events_head()?;
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

    /// The lines of `record_id`'s events, oldest first (each segment read
    /// once).
    pub(super) fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        let seqs = self.record_sequences(record_id)?;
        let mut out = Vec::with_capacity(seqs.len());
        let mut i = 0;
        while i < seqs.len() {
            let seg = (seqs[i] - 1) / SEGMENT;
            let mut j = i;
            while j < seqs.len() && (seqs[j] - 1) / SEGMENT == seg {
                j += 1;
            }
            let lines = self.event_lines(seqs[i], seqs[j - 1])?;
            let first = seqs[i];
            for s in &seqs[i..j] {
                if let Some(l) = lines.get((s - first) as usize) {
                    out.push(l.clone());
                }
            }
            i = j;
        }
        Ok(out)
    }
}

impl JsonTx<'_> {
    /// Append events sealed elsewhere, as they are (`store migrate`).
    pub(super) fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        let mut head = None;
        for line in lines {
            let e = event::parse(&line).map_err(|e| Error::one(code::INVALID_VALUE, e))?;
            self.append(&segment_rel(e.sequence), &format!("{line}\n"))?;
            self.append(
                &record_rel(&e.record_id),
                &format!("{} {}\n", e.record_id, e.sequence),
            )?;
            head = Some(Head {
                sequence: e.sequence,
                hash: e.hash,
            });
        }
        if let Some(h) = head {
            self.put(
                EVENTS_HEAD.to_string(),
                serde_json::to_vec(&h).expect("a head serializes"),
            );
        }
        Ok(())
    }

    /// Seal the transaction's events after the store's last one: their
    /// lines, their record buckets and the new head join the journal.
    pub(super) fn stage_events(&mut self) -> Result<()> {
        if self.events.is_empty() {
            return Ok(());
        }
        let (mut seq, mut hash) = self.store.events_head()?;
        for e in std::mem::take(&mut self.events) {
            seq += 1;
            let (line, h) = event::seal(&e, seq, &hash);
            hash = h;
            self.append(&segment_rel(seq), &format!("{line}\n"))?;
            self.append(
                &record_rel(&e.record_id),
                &format!("{} {seq}\n", e.record_id),
            )?;
        }
        let head = serde_json::to_vec(&Head {
            sequence: seq,
            hash,
        })
        .expect("a head serializes");
        self.put(EVENTS_HEAD.to_string(), head);
        Ok(())
    }
}
