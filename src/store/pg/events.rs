//! The event log in the database: rows of `payctl_events` (the sealed line
//! of each event, by its sequence, with its record id indexed), and the
//! head of the chain in the one row of `payctl_event_head`, which a commit
//! with events locks (`FOR UPDATE`) to take the next sequences: commits
//! with events are serialized there, briefly, at their end, so that the
//! sequence is gapless and the chain unbroken whatever the number of
//! processes and servers on the database.

use crate::model::event::{self, NewEvent};

/// Events sealed elsewhere, copied as they are (`store migrate`).
pub(super) fn write_sealed(
    c: &mut postgres::Client,
    lines: &[String],
) -> std::result::Result<(), postgres::Error> {
    let parsed: Vec<event::Event> = lines.iter().filter_map(|l| event::parse(l).ok()).collect();
    let Some(last) = parsed.last() else {
        return Ok(());
    };
    let seqs: Vec<i64> = parsed.iter().map(|e| e.sequence as i64).collect();
    let records: Vec<String> = parsed.iter().map(|e| e.record_id.clone()).collect();
    c.execute(
        "INSERT INTO payctl_events (seq, record_id, line) \
         SELECT * FROM unnest($1::int8[], $2::text[], $3::text[])",
        &[&seqs, &records, &lines],
    )?;
    c.execute(
        "UPDATE payctl_event_head SET seq = $1, hash = $2 WHERE one = 1",
        &[&(last.sequence as i64), &last.hash],
    )?;
    Ok(())
}

/// Seal `events` after the head and write them (see `PgStore::apply`), in the
/// write's database transaction.
pub(super) fn write(
    c: &mut super::pool::Prep<'_>,
    events: &[NewEvent],
) -> std::result::Result<(), postgres::Error> {
    if events.is_empty() {
        return Ok(());
    }
    let head = c.query_one(
        "SELECT seq, hash FROM payctl_event_head WHERE one = 1 FOR UPDATE",
        &[],
    )?;
    let mut seq = head.get::<_, i64>(0) as u64;
    let mut hash: String = head.get(1);
    let mut seqs: Vec<i64> = Vec::with_capacity(events.len());
    let mut records: Vec<String> = Vec::with_capacity(events.len());
    let mut lines: Vec<String> = Vec::with_capacity(events.len());
    for e in events {
        seq += 1;
        let (line, h) = event::seal(e, seq, &hash);
        hash = h;
        seqs.push(seq as i64);
        records.push(e.record_id.clone());
        lines.push(line);
    }
    // One statement (one round trip while the head is locked): the rows,
    // and the head moved past them.
    c.execute(
        "WITH written AS (INSERT INTO payctl_events (seq, record_id, line) \
           SELECT * FROM unnest($1::int8[], $2::text[], $3::text[])) \
         UPDATE payctl_event_head SET seq = $4, hash = $5 WHERE one = 1",
        &[&seqs, &records, &lines, &(seq as i64), &hash],
    )?;
    Ok(())
}
