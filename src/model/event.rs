//! Events: one per changed record, in the commit that changed it, chained by
//! their hashes (CLI.md "Events").
//!
//! A store keeps each event as one line of JSON, its fields in the order of
//! [`Event`]. Its `hash` is the SHA-256 (lower-case hex) of the line's text
//! without the `hash` field: the fields from `event_id` to `previous_hash`
//! as [`body`] writes them, `data` exactly as it was written (a
//! [`RawValue`], never re-serialized), so that the chain can be verified
//! from the text alone, on every backend, by [`verify`].
//!
//! An event's id carries its sequence (`evt_` + 10 base-36 digits of the
//! sequence + 10 random characters): `events get` finds the event by its
//! place without an index, and checks the whole id there.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::id;

pub const PREFIX: &str = "evt";

/// The `previous_hash` of the first event.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Digits of the sequence in an event id (base 36: up to 3.6e15 events).
const SEQ_DIGITS: usize = 10;
const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";

/// Every event type (CLI.md), for the OpenAPI document and `--type` checks.
pub const TYPES: &[&str] = &[
    "customer_profile.created",
    "customer_profile.updated",
    "address.created",
    "address.updated",
    "address.deleted",
    "payment_instrument.created",
    "payment_instrument.updated",
    "attachment.requested",
    "attachment.attached",
    "attachment.rejected",
    "transaction.created",
    "transaction.processing",
    "transaction.completed",
    "transaction.failed",
    "transaction_step.created",
    "transaction_step.completed",
    "transaction_step.failed",
    "transaction_step.cancelled",
    "webhook.created",
    "webhook.deleted",
    "store.reset",
    "store.restored",
];

/// An event as the API shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Event")]
pub struct Event {
    /// `evt_…`: the sequence and a random part.
    pub event_id: String,
    /// Gapless and increasing, from 1.
    pub sequence: u64,
    /// What happened (`customer_profile.updated`, …).
    pub event_type: String,
    /// The id of the record that changed (an attachment, which has none of
    /// its own, gives its customer's).
    pub record_id: String,
    /// The customer the record belongs to, where one does.
    pub customer_profile_id: Option<String>,
    /// Who made the change (`SYSTEM` for the worker).
    pub actor: String,
    /// When it was committed: UTC, ISO 8601 without a zone, microseconds.
    pub created_datetime: String,
    /// The record after the change as a GET shows it (masked); for a
    /// deletion, the record as it was.
    #[schemars(with = "serde_json::Value")]
    pub data: Box<RawValue>,
    /// The `hash` of the event before it (64 zeros for the first).
    pub previous_hash: String,
    /// SHA-256 of this event's line without its `hash`, `previous_hash`
    /// included: the chain that `store check` verifies.
    pub hash: String,
}

/// What a write records, before its commit gives it a place.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub event_type: String,
    pub record_id: String,
    pub customer_profile_id: Option<String>,
    pub actor: String,
    pub created_datetime: String,
    /// The record, masked, as JSON text.
    pub data: String,
}

#[derive(Serialize)]
struct Body<'a> {
    event_id: &'a str,
    sequence: u64,
    event_type: &'a str,
    record_id: &'a str,
    customer_profile_id: Option<&'a str>,
    actor: &'a str,
    created_datetime: &'a str,
    data: &'a RawValue,
    previous_hash: &'a str,
}

fn hex_sha256(text: &str) -> String {
    super::digest::sha256_hex(text.as_bytes())
}

/// A new event id for `sequence`.
pub fn event_id(sequence: u64) -> String {
    let mut digits = [b'0'; SEQ_DIGITS];
    let mut n = sequence;
    for d in digits.iter_mut().rev() {
        *d = DIGITS[(n % 36) as usize];
        n /= 36;
    }
    let random = id::new_id(PREFIX);
    let tail = &random[PREFIX.len() + 1..PREFIX.len() + 11];
    format!(
        "{PREFIX}_{}{tail}",
        std::str::from_utf8(&digits).unwrap_or("0")
    )
}

/// The sequence an event id carries; `None` for a malformed id.
pub fn sequence_of(event_id: &str) -> Option<u64> {
    if !id::is_valid(PREFIX, event_id) {
        return None;
    }
    let rest = &event_id[PREFIX.len() + 1..];
    if rest.len() != SEQ_DIGITS + 10 {
        return None;
    }
    let mut n: u64 = 0;
    for b in rest[..SEQ_DIGITS].bytes() {
        let d = DIGITS.iter().position(|&x| x == b.to_ascii_lowercase())? as u64;
        n = n.checked_mul(36)?.checked_add(d)?;
    }
    (n > 0).then_some(n)
}

/// Give `e` its place after the event whose hash is `previous_hash`: the
/// stored line (no newline) and its hash.
pub fn seal(e: &NewEvent, sequence: u64, previous_hash: &str) -> (String, String) {
    let id = event_id(sequence);
    let data = RawValue::from_string(e.data.clone())
        .unwrap_or_else(|_| RawValue::from_string("null".into()).expect("null is json"));
    let body = Body {
        event_id: &id,
        sequence,
        event_type: &e.event_type,
        record_id: &e.record_id,
        customer_profile_id: e.customer_profile_id.as_deref(),
        actor: &e.actor,
        created_datetime: &e.created_datetime,
        data: &data,
        previous_hash,
    };
    let text = serde_json::to_string(&body).expect("an event serializes");
    let hash = hex_sha256(&text);
    // The body's text with the hash as its last field (a struct that
    // flattened the body could not carry a RawValue).
    let line = format!("{},\"hash\":\"{hash}\"}}", &text[..text.len() - 1]);
    (line, hash)
}

/// Parse a stored line.
pub fn parse(line: &str) -> Result<Event, String> {
    serde_json::from_str(line).map_err(|e| format!("not an event: {e}"))
}

/// What is wrong with `line` as the event at `sequence` after an event
/// whose hash is `previous_hash`: `Ok` with the event when nothing is.
pub fn verify(line: &str, sequence: u64, previous_hash: &str) -> Result<Event, String> {
    let e = parse(line)?;
    let body = Body {
        event_id: &e.event_id,
        sequence: e.sequence,
        event_type: &e.event_type,
        record_id: &e.record_id,
        customer_profile_id: e.customer_profile_id.as_deref(),
        actor: &e.actor,
        created_datetime: &e.created_datetime,
        data: &e.data,
        previous_hash: &e.previous_hash,
    };
    let text = serde_json::to_string(&body).map_err(|e| e.to_string())?;
    if e.sequence != sequence {
        return Err(format!(
            "sequence {} where {sequence} was expected (an event removed, added or reordered)",
            e.sequence
        ));
    }
    if sequence_of(&e.event_id) != Some(sequence) {
        return Err(format!("its id does not carry its sequence {sequence}"));
    }
    if e.previous_hash != previous_hash {
        return Err("its previous_hash is not the hash of the event before it (an event removed, added or reordered)".into());
    }
    if hex_sha256(&text) != e.hash {
        return Err("its hash does not match its content (the event was changed)".into());
    }
    Ok(e)
}

/// What [`sealed`] reads of an event's line.
pub struct Sealed<'a> {
    pub record_id: Cow<'a, str>,
    pub previous_hash: Cow<'a, str>,
    pub hash: &'a str,
}

/// An event line as [`seal`] writes it, read in place: every field of an
/// [`Event`] there, of its type, each once.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    event_id: Cow<'a, str>,
    sequence: u64,
    #[serde(borrow, rename = "event_type")]
    _event_type: Cow<'a, str>,
    #[serde(borrow)]
    record_id: Cow<'a, str>,
    #[serde(borrow, rename = "customer_profile_id")]
    _customer_profile_id: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "actor")]
    _actor: Cow<'a, str>,
    #[serde(borrow, rename = "created_datetime")]
    _created_datetime: Cow<'a, str>,
    #[serde(borrow, rename = "data")]
    _data: &'a RawValue,
    #[serde(borrow)]
    previous_hash: Cow<'a, str>,
    #[serde(borrow)]
    hash: Cow<'a, str>,
}

/// `line` as the event at `sequence`, everything but its link to the event
/// before it (its `previous_hash`, for the caller to compare), checked the
/// fast way: the hash over the line's text as stored, up to its `hash`,
/// and the fields read in place. `None` when anything is not as [`seal`]
/// writes it; [`verify`] then says what.
///
/// (`verify` hashes the body serialized again from the fields parsed: for
/// a line payctl wrote it is the same text. A line whose hash is that of
/// its own text but that is not the canonical serialization of its fields
/// is taken here; only someone who recomputed the hash could write one,
/// and the link from the next event still holds it.)
pub fn sealed(line: &str, sequence: u64) -> Option<Sealed<'_>> {
    const TAIL: usize = ",\"hash\":\"".len() + 64 + "\"}".len();
    let cut = line.len().checked_sub(TAIL)?;
    let (body, tail) = (line.get(..cut)?, line.get(cut..)?);
    let hash = tail.strip_prefix(",\"hash\":\"")?.strip_suffix("\"}")?;
    if !hash
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return None;
    }
    if super::digest::sha256_hex_of(&[body.as_bytes(), b"}"]) != hash {
        return None;
    }
    let l: Line<'_> = serde_json::from_str(line).ok()?;
    if l.sequence != sequence || sequence_of(&l.event_id) != Some(sequence) || l.hash != hash {
        return None;
    }
    Some(Sealed {
        record_id: l.record_id,
        previous_hash: l.previous_hash,
        hash,
    })
}

/// Whether `event_type` matches `glob` (`*` any run of characters, `?` one).
pub fn type_matches(glob: &str, event_type: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.first() {
            None => t.is_empty(),
            Some(b'*') => (0..=t.len()).any(|i| go(&p[1..], &t[i..])),
            Some(b'?') => !t.is_empty() && go(&p[1..], &t[1..]),
            Some(c) => t.first() == Some(c) && go(&p[1..], &t[1..]),
        }
    }
    go(glob.as_bytes(), event_type.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new() -> NewEvent {
        NewEvent {
            event_type: "customer_profile.created".into(),
            record_id: "csp_a".into(),
            customer_profile_id: Some("csp_a".into()),
            actor: "alice".into(),
            created_datetime: "2026-11-27T10:00:00.000000".into(),
            data: r#"{"b":1, "a":19.99}"#.into(),
        }
    }

    /// The fast read of a line takes a sealed line (its link left to the
    /// caller) and refuses what `verify` refuses: a change anywhere, another
    /// sequence, a cut or damaged hash, a field missing or twice.
    #[test]
    fn the_fast_read_takes_a_sealed_line_and_nothing_changed() {
        let mut e = new();
        e.actor = "a \"quoted\" actor é".into();
        let (line, hash) = seal(&e, 42, GENESIS);
        let s = sealed(&line, 42).unwrap();
        assert_eq!(s.hash, hash);
        assert_eq!(s.previous_hash, GENESIS);
        assert_eq!(s.record_id, "csp_a");
        assert!(sealed(&line, 43).is_none());
        let changed = [
            line.replace("quoted", "QUOTED"),
            line.replace("csp_a", "csp_b"),
            line.replace(&hash, &hash.to_uppercase()),
            line.replace(&hash[..10], "0000000000"),
            line[..line.len() - 1].to_string(),
            line.replace("\"sequence\":42,", ""),
            line.replace("\"sequence\":42,", "\"sequence\":42,\"sequence\":42,"),
        ];
        for bad in &changed {
            assert!(sealed(bad, 42).is_none(), "{bad}");
            assert!(verify(bad, 42, GENESIS).is_err(), "{bad}");
        }
        // Text that is not the one sealed but serializes to it: not taken
        // by the fast read, so `verify` (which takes it) decides.
        let spaced = line.replace(",\"actor\"", ", \"actor\"");
        assert!(sealed(&spaced, 42).is_none());
        assert!(verify(&spaced, 42, GENESIS).is_ok());
    }

    #[test]
    fn a_sealed_line_verifies_and_its_id_carries_its_sequence() {
        let (line, hash) = seal(&new(), 42, GENESIS);
        let e = verify(&line, 42, GENESIS).unwrap();
        assert_eq!(e.hash, hash);
        assert_eq!(sequence_of(&e.event_id), Some(42));
        assert_eq!(e.data.get(), r#"{"b":1, "a":19.99}"#);
        assert!(verify(&line, 43, GENESIS).is_err());
        assert!(verify(&line, 42, &hash).is_err());
        let tampered = line.replace("alice", "mallory");
        assert!(
            verify(&tampered, 42, GENESIS)
                .unwrap_err()
                .contains("changed")
        );
    }

    #[test]
    fn globs() {
        assert!(type_matches(
            "customer_profile.*",
            "customer_profile.updated"
        ));
        assert!(type_matches("*.failed", "transaction_step.failed"));
        assert!(!type_matches("address.*", "customer_profile.created"));
        assert!(type_matches("transaction.created", "transaction.created"));
    }

    #[test]
    fn ids() {
        assert_eq!(sequence_of("evt_abc"), None);
        let id = event_id(1_000_000);
        assert_eq!(sequence_of(&id), Some(1_000_000));
        assert_eq!(id.len(), 24);
    }
}
