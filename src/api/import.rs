//! `profile import` in remote mode: the lines of the same line source as the
//! local import ([`crate::core::import::Lines`]: numbered, CRLF and a
//! byte-order mark dropped, each at most 1 MiB), read as a stream, each a
//! `POST /customer-profiles` of the endpoint table sent by the client,
//! [`IN_FLIGHT`] at once. Never more than a few lines are held: the input
//! is not read ahead of the requests in flight.
//!
//! Not atomic as the local import is: the lines that pass are created, every
//! refused line is reported (`line N: …`), and running the same lines again
//! creates exactly the missing profiles: each line's `Idempotency-Key` is
//! its request's own fingerprint (that of a local `--idempotency-key`), so
//! the same line answers its first id again (for 24 hours), whatever file
//! it came from, and any other line is a request of its own.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc;

use serde_json::Value;

use super::client::{Client, Note};
use super::endpoints::{Op, Request};
use crate::core::import::{Lines, Next, unreadable};
use crate::error::{ApiError, Error, ErrorKind, Result, code};
use crate::output::Response;

/// Lines in flight at once.
pub const IN_FLIGHT: usize = 8;

/// What a remote import did.
#[derive(Debug, Default)]
pub struct Sent {
    /// The new profiles, in line order: `{"id", "customer_key", "line"}`.
    pub created: Vec<Value>,
    /// How many of them an earlier run created (their first ids answered).
    pub replayed: usize,
    /// Lines whose key a stored profile already has (`skip_existing`).
    pub skipped: usize,
    /// The refused lines (`line N: …`), when there are any; exit 3 when
    /// one of them met a service that could not be used.
    pub refused: Option<Error>,
}

/// One line's body, or why it is refused before it is sent.
type Line = (usize, Result<Value>);

/// A line read: its body parsed as `--body` is, and a customer_key
/// repeated in the input refused as the local import refuses it (the first
/// line with it is sent).
fn checked(n: usize, bytes: &[u8], first_of: &mut HashMap<String, usize>) -> Result<Value> {
    let body = crate::core::body::parse_body_only(bytes)?;
    crate::output::mask::remember_in(&body);
    if let Some(key) = body.get("customer_key").and_then(|k| k.as_str()) {
        if let Some(first) = first_of.get(key) {
            return Err(Error::refused(vec![ApiError::message(
                code::KEY_IN_USE,
                format!("customer_key: repeats the customer_key of line {first}"),
            )]));
        }
        first_of.insert(key.to_string(), n);
    }
    Ok(body)
}

/// A line longer than the cap: refused as a body that large is.
fn too_long() -> Error {
    Error::one(
        code::MALFORMED,
        format!(
            "body: is larger than {} MiB",
            crate::limits::BODY_BYTES >> 20
        ),
    )
}

/// Send one line: its new id, whether an earlier run created it, its key.
fn send(client: &Client, body: Value) -> Result<(Response, bool, String)> {
    let key = body
        .get("customer_key")
        .and_then(|k| k.as_str())
        .unwrap_or_default()
        .to_string();
    let fp = crate::core::idempotency::fingerprint("POST /customer-profiles", &[], &body);
    let req = Request::new(Op::ProfileCreate)
        .body(body)
        .idempotency_key(Some(format!("import-{fp}")));
    client
        .call_noted(&req)
        .map(|(r, note)| (r, note == Some(Note::Replayed), key))
}

/// Import the lines of `lines` through `client`, [`IN_FLIGHT`] at once.
/// An input that stops being readable ends the import there with its error
/// (the lines sent before it were sent).
pub fn import(client: &Client, lines: &mut Lines<'_>, skip_existing: bool) -> Result<Sent> {
    let results = Mutex::new(Vec::new());
    let (to_send, inbox) = mpsc::sync_channel::<Line>(IN_FLIGHT);
    let inbox = Mutex::new(inbox);
    let read = std::thread::scope(|scope| -> Result<()> {
        for _ in 0..IN_FLIGHT {
            scope.spawn(|| {
                loop {
                    let next = inbox.lock().map(|rx| rx.recv());
                    let Ok(Ok((n, line))) = next else {
                        break;
                    };
                    let sent = line.and_then(|body| send(client, body));
                    if let Ok(mut r) = results.lock() {
                        r.push((n, sent));
                    }
                }
            });
        }
        let mut first_of = HashMap::new();
        let mut buf = Vec::new();
        let read = loop {
            let line = match lines.next(&mut buf) {
                Err(e) => break Err(unreadable(e)),
                Ok(Next::End) => break Ok(()),
                Ok(Next::TooLong) => Err(too_long()),
                Ok(Next::Line) if buf.iter().all(u8::is_ascii_whitespace) => continue,
                Ok(Next::Line) => checked(lines.n, &buf, &mut first_of),
            };
            if to_send.send((lines.n, line)).is_err() {
                break Ok(());
            }
        };
        // The senders stop once the lines sent are answered.
        drop(to_send);
        read
    });
    read?;
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(n, _)| *n);
    let mut sent = Sent::default();
    let (mut errors, mut kind) = (Vec::new(), ErrorKind::Refused);
    for (n, r) in results {
        match r {
            Ok((Response::Id(id), again, key)) => {
                sent.replayed += usize::from(again);
                sent.created
                    .push(serde_json::json!({"id": id, "customer_key": key, "line": n}));
            }
            Ok(_) => {}
            Err(e) if skip_existing && e.has_code(code::KEY_IN_USE) => sent.skipped += 1,
            Err(e) => {
                if e.kind == ErrorKind::Store {
                    kind = ErrorKind::Store;
                }
                errors.extend(e.errors.into_iter().map(|a| ApiError {
                    message: format!("line {n}: {}", a.message),
                    ..a
                }));
            }
        }
    }
    if !errors.is_empty() {
        sent.refused = Some(Error { kind, errors });
    }
    Ok(sent)
}
