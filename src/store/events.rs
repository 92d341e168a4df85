//! The events a write records, read off the aggregates it changed: the
//! facade ([`super::Tx`]) compares each customer and transaction put into a
//! transaction with the version stored before it, and hands the backend one
//! [`NewEvent`] per changed record, which the backend seals into its chain
//! in the same commit (see `model::event`).
//!
//! Deriving the events from the aggregates, in one place for every backend,
//! means no write can change a record without its event: `core` says what
//! the aggregates are now, as it always has.

use serde::Serialize;

pub use crate::model::event::{Event, GENESIS, NewEvent, sequence_of, verify};

use super::Store;
use super::report::Finding;
use crate::error::Result;
use crate::mask;
use crate::model::event;
use crate::model::status;
use crate::model::txn::TxnFile;
use crate::model::{Address, Customer, Profile};

/// Who makes the changes of a transaction, and when.
#[derive(Debug, Clone)]
pub struct Author {
    pub actor: String,
    pub at: String,
}

/// A record as a GET shows it: its JSON with every sensitive value masked.
pub fn shown<T: Serialize>(record: &T) -> String {
    let mut v = serde_json::to_value(record).unwrap_or(serde_json::Value::Null);
    mask::mask(&mut v);
    v.to_string()
}

/// A profile as a GET shows it ([`shown`], without the detour through a
/// `Value`: an import records a million of them).
fn shown_profile(p: &Profile) -> String {
    let mut p = p.clone();
    if let Some(ssn) = p.customer_profile_individual.ssn.as_mut() {
        *ssn = mask::last4(ssn);
    }
    serde_json::to_string(&p).unwrap_or_else(|_| "null".into())
}

fn profile_event(by: &Author, event_type: &str, p: &Profile) -> NewEvent {
    let id = &p.customer_profile_id;
    NewEvent {
        event_type: event_type.to_string(),
        record_id: id.clone(),
        customer_profile_id: Some(id.clone()),
        actor: by.actor.clone(),
        created_datetime: by.at.clone(),
        data: shown_profile(p),
    }
}

fn event<T: Serialize>(
    by: &Author,
    event_type: &str,
    record_id: &str,
    customer: Option<&str>,
    record: &T,
) -> NewEvent {
    NewEvent {
        event_type: event_type.to_string(),
        record_id: record_id.to_string(),
        customer_profile_id: customer.map(str::to_string),
        actor: by.actor.clone(),
        created_datetime: by.at.clone(),
        data: shown(record),
    }
}

/// The events of a customer aggregate that was `before` and is `after`.
pub fn customer(by: &Author, before: Option<&Customer>, after: &Customer, out: &mut Vec<NewEvent>) {
    let cid = after.id();
    let c = Some(cid);
    match before {
        None => out.push(profile_event(
            by,
            "customer_profile.created",
            &after.profile,
        )),
        Some(b) if b.profile != after.profile => out.push(profile_event(
            by,
            "customer_profile.updated",
            &after.profile,
        )),
        _ => {}
    }
    let old_addresses: &[Address] = before.map(|b| b.addresses.as_slice()).unwrap_or(&[]);
    for a in &after.addresses {
        match old_addresses.iter().find(|o| o.address_id == a.address_id) {
            None => out.push(event(by, "address.created", &a.address_id, c, a)),
            Some(o) if o != a => out.push(event(by, "address.updated", &a.address_id, c, a)),
            _ => {}
        }
    }
    for o in old_addresses {
        if !after.addresses.iter().any(|a| a.address_id == o.address_id) {
            out.push(event(by, "address.deleted", &o.address_id, c, o));
        }
    }
    let old_instruments = before.map(|b| b.instruments.as_slice()).unwrap_or(&[]);
    for i in &after.instruments {
        let id = &i.payment_instrument_id;
        match old_instruments
            .iter()
            .find(|o| &o.payment_instrument_id == id)
        {
            None => out.push(event(by, "payment_instrument.created", id, c, i)),
            Some(o) if o != i => out.push(event(by, "payment_instrument.updated", id, c, i)),
            _ => {}
        }
    }
    let old_attachments = before.map(|b| b.attachments.as_slice()).unwrap_or(&[]);
    for a in &after.attachments {
        let was = old_attachments
            .iter()
            .find(|o| o.program_id == a.program_id);
        if was.is_none() {
            out.push(event(by, "attachment.requested", cid, c, a));
        }
        let status_was = was.map(|w| w.customer_profile_program_status_id);
        let now = a.customer_profile_program_status_id;
        if status_was != Some(now) {
            let ty = match now {
                status::attachment::ATTACHED => Some("attachment.attached"),
                status::attachment::REJECTED => Some("attachment.rejected"),
                // Back to pending (a new request): requested again.
                _ if was.is_some() => Some("attachment.requested"),
                _ => None,
            };
            if let Some(ty) = ty {
                out.push(event(by, ty, cid, c, a));
            }
        }
    }
}

/// The customer a transaction moves money for: the first parameter value
/// that names one.
fn txn_customer(t: &TxnFile) -> Option<&str> {
    t.parameters
        .iter()
        .flat_map(|p| p.transaction_parameter_values.iter())
        .find_map(|v| v.customer_profile_id.as_deref())
}

fn txn_status(id: u32) -> Option<&'static str> {
    Some(match id {
        status::txn::CREATED => "transaction.created",
        status::txn::PROCESSING => "transaction.processing",
        status::txn::COMPLETED => "transaction.completed",
        status::txn::FAILED => "transaction.failed",
        _ => return None,
    })
}

fn step_status(id: u32) -> Option<&'static str> {
    Some(match id {
        status::step::COMPLETED => "transaction_step.completed",
        status::step::FAILED => "transaction_step.failed",
        status::step::CANCELLED => "transaction_step.cancelled",
        _ => return None,
    })
}

/// The events of a transaction aggregate that was `before` and is `after`.
pub fn txn(by: &Author, before: Option<&TxnFile>, after: &TxnFile, out: &mut Vec<NewEvent>) {
    let t = &after.transaction;
    let tid = &t.transaction_id;
    let c = txn_customer(after);
    // Created first, then what its steps did, then where that left it.
    if before.is_none() {
        out.push(event(by, "transaction.created", tid, c, t));
    }
    let old_steps = before.map(|b| b.steps.as_slice()).unwrap_or(&[]);
    for s in &after.steps {
        let id = &s.transaction_step_id;
        let was = old_steps.iter().find(|o| &o.transaction_step_id == id);
        if was.is_none() {
            out.push(event(by, "transaction_step.created", id, c, s));
        }
        let status_was = was.map(|w| w.transaction_step_status_id);
        if status_was != Some(s.transaction_step_status_id)
            && let Some(ty) = step_status(s.transaction_step_status_id)
        {
            out.push(event(by, ty, id, c, s));
        }
    }
    let status_was = before.map_or(status::txn::CREATED, |b| {
        b.transaction.transaction_status_id
    });
    if status_was != t.transaction_status_id
        && let Some(ty) = txn_status(t.transaction_status_id)
    {
        out.push(event(by, ty, tid, c, t));
    }
}

/// What [`chain_holds`] found.
enum Chain {
    /// Every event as sealed and linked to the one before it, with the
    /// sums of the JSON directory's record buckets for the events before
    /// `full` (when `json`).
    Holds(Option<crate::store::json::events::BucketSums>),
    /// Something is wrong: the caller walks the chain again to name it.
    Broken,
}

/// Whether the event chain from the first event to `last` holds, each
/// event verified on its own by one of a thread per core and the links
/// between them after. At a million events the chain took a third of
/// `store check`'s time, one event after the other.
fn chain_holds(store: &Store, last: u64, full: u64, json: bool) -> Result<Chain> {
    use crate::store::json::events::BucketSums;
    /// Events read and verified at a time: a few MB of lines.
    const BATCH: u64 = 8 * 1024;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut sums = json.then(BucketSums::new);
    let mut prev = event::GENESIS.to_string();
    let mut seq = 1;
    while seq <= last {
        let to = (seq + BATCH - 1).min(last);
        let lines = store.event_lines(seq, to)?;
        if lines.len() as u64 != to - seq + 1 {
            return Ok(Chain::Broken);
        }
        let per = lines.len().div_ceil(threads);
        // Each piece: the previous hash its first event names, the hash of
        // its last, and its sums; `None` when an event of it is wrong.
        let pieces: Vec<Option<(String, String, Option<BucketSums>)>> = std::thread::scope(|s| {
            let workers: Vec<_> = lines
                .chunks(per)
                .enumerate()
                .map(|(k, piece)| {
                    let first = seq + (k * per) as u64;
                    s.spawn(move || {
                        let mut sums = json.then(BucketSums::new);
                        let mut named = None;
                        let mut hash: Option<&str> = None;
                        for (i, line) in piece.iter().enumerate() {
                            let seq = first + i as u64;
                            let e = event::sealed(line, seq)?;
                            if hash.is_some_and(|h| h != e.previous_hash) {
                                return None;
                            }
                            if let Some(sums) = sums.as_mut().filter(|_| seq < full) {
                                sums.add(&e.record_id, seq);
                            }
                            named.get_or_insert(e.previous_hash);
                            hash = Some(e.hash);
                        }
                        Some((named?.into_owned(), hash?.to_string(), sums))
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().ok().flatten())
                .collect()
        });
        for piece in pieces {
            let Some((named, hash, piece_sums)) = piece else {
                return Ok(Chain::Broken);
            };
            if named != prev {
                return Ok(Chain::Broken);
            }
            prev = hash;
            if let (Some(sums), Some(p)) = (sums.as_mut(), piece_sums.as_ref()) {
                sums.merge(p);
            }
        }
        seq = to + 1;
    }
    Ok(Chain::Holds(sums))
}

/// What [`verify_chain`] found, before it is put beside what the records
/// name (see [`finish`]).
pub struct Verified {
    /// The log's last sequence.
    last: u64,
    /// Breaks of the chain, and events cut from the end that the JSON
    /// directory's record index names.
    findings: Vec<Finding>,
    /// The JSON directory's record buckets that do not list what the
    /// log holds for their records; none when the chain is broken or the
    /// record index names events cut from its end.
    off: Vec<u8>,
}

/// Verify the event chain from the first event to the last, a segment
/// at a time (bounded memory): each event's sequence, id, previous
/// hash and hash. A changed, removed, added or reordered event is
/// reported by its id (or its place), once per break of the chain.
///
/// It needs nothing from the records' own check, so `store check` runs
/// both at once (see `Store::check_with`).
pub fn verify_chain(store: &Store) -> Result<Verified> {
    const CHUNK: u64 = 1024;
    let last = store.events_last()?;
    let mut findings = Vec::new();
    // The directory's head is its last line: events cut from the end
    // leave the record index naming them when whole segments went (and
    // record files naming them: see [`finish`]).
    let mut cut = false;
    if let Store::Json(s) = store {
        let indexed = s.indexed_last()?;
        if indexed > last {
            cut = true;
            findings.push(Finding {
                path: "events".into(),
                problem: format!(
                    "the event log ends at sequence {last} but its record index names events up to {indexed}: events were removed from its end"
                ),
                repairable: false,
            });
        }
    }
    // What the JSON directory's record buckets must hold, from the log's
    // full segments.
    let full = crate::store::json::events::open_from(last);
    let json = matches!(store, Store::Json(_));
    // A sound chain is verified in parallel; a broken one again, one
    // event after the other, to name each break as it follows the last.
    let (mut sums, mut seq) = match chain_holds(store, last, full, json)? {
        Chain::Holds(sums) => (sums, last + 1),
        Chain::Broken => (json.then(crate::store::json::events::BucketSums::new), 1),
    };
    let mut prev = event::GENESIS.to_string();
    let mut expect = 1;
    let mut reported = 0;
    let mut report = |problem: String| {
        reported += 1;
        if reported <= 100 {
            findings.push(Finding {
                path: "events".into(),
                problem,
                repairable: false,
            });
        }
    };
    while seq <= last {
        let to = (seq + CHUNK - 1).min(last);
        let lines = store.event_lines(seq, to)?;
        if lines.len() as u64 != to - seq + 1 {
            report(format!(
                "the event log holds {} of the events {seq}..{to} (the head says {last}): events were removed",
                lines.len()
            ));
        }
        for line in &lines {
            match event::verify(line, expect, &prev) {
                Ok(e) => {
                    if let Some(sums) = sums.as_mut().filter(|_| e.sequence < full) {
                        sums.add(&e.record_id, e.sequence);
                    }
                    prev = e.hash;
                }
                Err(problem) => {
                    let parsed = event::parse(line);
                    let id = parsed
                        .as_ref()
                        .map(|e| e.event_id.clone())
                        .unwrap_or_else(|_| format!("at sequence {expect}"));
                    report(format!("event {id}: {problem}"));
                    // Carry on from what the line says, so that one
                    // break is reported once.
                    if let Ok(e) = parsed {
                        if let Some(sums) = sums.as_mut().filter(|_| e.sequence < full) {
                            sums.add(&e.record_id, e.sequence);
                        }
                        prev = e.hash;
                        expect = e.sequence;
                    }
                }
            }
            expect += 1;
        }
        seq = to + 1;
    }
    if reported > 100 {
        findings.push(Finding {
            path: "events".into(),
            problem: format!("and {} more breaks of the event chain", reported - 100),
            repairable: false,
        });
    }
    // The record index is compared with a log whose chain holds only:
    // when events were changed, removed or cut, its buckets are what is
    // left of the evidence, and they stay as they are.
    let mut off = Vec::new();
    if let (Store::Json(s), Some(sums), false, 0) = (store, sums, cut, reported) {
        off = s.record_buckets_off(&sums)?;
    }
    Ok(Verified {
        last,
        findings,
        off,
    })
}

/// The event chain's findings ([`verify_chain`]'s) beside what the records
/// name: `named`, the highest sequence the records name and a file naming
/// it (the JSON directory's: see `json::events`). With `repair`, the JSON
/// directory's record index is rebuilt from a sound log: what was
/// rebuilt.
pub fn finish(
    store: &Store,
    v: Verified,
    findings: &mut Vec<Finding>,
    repair: bool,
    named: Option<(u64, String)>,
) -> Result<Vec<String>> {
    let Verified {
        last,
        findings: chain,
        off,
    } = v;
    // Events cut from the end leave record files naming them.
    let cut = named.as_ref().is_some_and(|(seq, _)| *seq > last);
    if let Some((seq, path)) = named.filter(|_| cut) {
        findings.push(Finding {
            path,
            problem: format!(
                "names event {seq} as the last recorded with it, but the event log ends at sequence {last}: events were removed from its end"
            ),
            repairable: false,
        });
    }
    findings.extend(chain);
    let mut repaired = Vec::new();
    if let (Store::Json(s), false) = (store, cut)
        && !off.is_empty()
    {
        let names: Vec<String> = off.iter().map(|b| format!("{b:02x}")).collect();
        if repair {
            s.rebuild_record_index(last)?;
            repaired.push(format!(
                "rebuilt the event record index (events/records/{{{}}}) from the log",
                names.join(",")
            ));
        } else {
            findings.push(Finding {
                path: "events/records".into(),
                problem: format!(
                    "{} of the event record index's buckets ({}) do not list the events the log holds for their records: `history` would miss or misname events; `store check --repair` rebuilds them from the log",
                    off.len(),
                    names.join(", ")
                ),
                repairable: true,
            });
        }
    }
    Ok(repaired)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_shown_as_the_generic_masking_shows_it() {
        let p: Profile = serde_json::from_value(serde_json::json!({
            "customer_profile_id": "csp_a", "customer_type_id": 1, "customer_key": "k-123456789",
            "customer_profile_tags": [{"key": "ssn", "value": "123456789"}],
            "customer_profile_individual": {"first_name": "Ada", "middle_name": null,
                "last_name": "L", "email": "a@b.co", "date_of_birth": "1990-01-01",
                "ssn": "123456789", "mobile_phone": "+15551234567", "home_phone": null,
                "office_phone": null},
            "created_by": "a", "created_datetime": "2026-11-27T00:00:00.000000",
            "modified_by": "a", "modified_datetime": "2026-11-27T00:00:00.000000"
        }))
        .unwrap();
        assert_eq!(shown_profile(&p), shown(&p));
        assert!(shown_profile(&p).contains("\"ssn\":\"6789\""));
    }
}
