//! `POST /_payctl/customer-profiles/import` (ours): many profile creates
//! from JSON Lines, one operation of the endpoint table, so that the local
//! `profile import`, `payctl serve` and remote mode (`--base-url`) do the
//! same thing: [`crate::core::import`] checks every line first and writes
//! nothing when one is refused (`line N: <path>: <rule>`), then commits the
//! profiles in chunks; a key that another command took meanwhile is refused
//! for its line. The answer is the created profiles, `{id, customer_key,
//! line}` in line order, as a list envelope without paging, spooled to a
//! file in the store and streamed (see [`crate::output::spool`]).
//!
//! The body is read as a stream (see [`super::upload`]), never held whole:
//! the CLI's file or stdin in process, the request's body in the server,
//! and in remote mode the client streams the file as the one request.
//!
//! Remote mode needs a service that has this route: an older `payctl serve`
//! answers 404 and the import is refused (nothing was sent but the
//! request), naming the upgrade; it does not fall back to one create per
//! line, which would create the lines that pass and so not be the import
//! that this payctl runs locally.

use std::io::{BufReader, Write};
use std::time::Duration;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::client::{Client, Failure, Note};
use super::endpoints::{Backend, Kind, Request};
use super::upload::{IMPORT_BODY_BYTES, Streamed, Upload};
use crate::core::Ctx;
use crate::core::import::{self, Lines, Options};
use crate::error::{Error, Result, code};
use crate::output::Response;
use crate::output::spool::Spool;
use crate::store::Mode;

/// How long remote mode waits for the import's answer once its body is
/// sent (the service commits the whole import first: about a minute for a
/// million lines), and for the body to be taken (as fast as the service
/// checks it). `--http-timeout` bounds the other phases.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(3600);

fn body_missing() -> Error {
    Error::one(
        code::MALFORMED,
        "body: the import's JSON Lines are missing (a body is read once)",
    )
}

/// Serve the import on the local store (the CLI in process, `payctl
/// serve`): the store is opened for each of its steps, never held between.
pub(super) fn serve(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    if req.dry_run {
        return Err(Error::one(
            code::INVALID_VALUE,
            format!(
                "header Payctl-Dry-Run: POST {} has no dry run: nothing was changed",
                req.endpoint.path
            ),
        ));
    }
    let Streamed {
        read,
        size,
        mut progress,
    } = req
        .upload
        .as_ref()
        .and_then(Upload::take)
        .ok_or_else(body_missing)?;
    // Opened (created, upgraded, a journal replayed) once here; the
    // import then opens it again for each step.
    let (mut scratch, mut answers) = {
        let store = b.write()?;
        (store.scratch_file()?, store.scratch_file()?)
    };
    let open = |mode: Mode| match mode {
        Mode::Shared => b.read(),
        // Each chunk's commit (the import's only exclusive opening):
        // tests widen the gap between chunks here (`PAYCTL_SLOW`).
        Mode::Exclusive => {
            crate::store::fault::slow("import-chunk");
            b.write()
        }
    };
    let mut lines = Lines::new(BufReader::with_capacity(256 << 10, read));
    let done = import::import(
        &open,
        ctx,
        &mut lines,
        size,
        &mut scratch,
        &mut answers,
        Options {
            skip_existing: req.query.skip_existing,
        },
        &mut |stage, n, of| {
            if let Some(p) = progress.as_mut() {
                p(stage, n, of)
            }
        },
    )?;
    drop(scratch);
    let mut spool = Spool::new(req.endpoint.kind, answers, done.created);
    spool.skipped = done.skipped;
    spool.refused = done.taken;
    Ok(Response::Spooled(spool))
}

/// Remote mode: the import as one request whose body is the input,
/// streamed (`Expect: 100-continue`: a refusal before the body, such as a
/// missing role, comes before it is sent). Never sent again: its body is
/// read once, and a lost answer says how to find out what was applied.
pub(super) fn send(client: &Client, req: &Request) -> Result<(Response, Option<Note>)> {
    let body = req
        .upload
        .as_ref()
        .and_then(Upload::take)
        .ok_or_else(body_missing)?;
    let target = req.target();
    let url = format!("{}{}", client.base, target);
    let shown_url = format!("{}{}", client.shown, target);
    let mut r = client
        .agent
        .post(&url)
        .header("Accept", "application/json")
        .header("X-Payctl-Actor", &client.actor)
        .header("Content-Type", "application/x-ndjson")
        .header("Expect", "100-continue");
    if let Some(t) = &client.token {
        r = r.header("Authorization", &format!("Bearer {t}"));
    }
    let long = Some(ANSWER_WITHIN.max(client.timeout));
    let sent = r
        .config()
        .timeout_send_body(long)
        .timeout_recv_response(long)
        .build()
        .send(ureq::SendBody::from_owned_reader(body.read));
    let lost = |detail: &str| {
        Error::store(
            code::OUTCOME_UNKNOWN,
            format!(
                "{}: the import was sent and no answer came ({detail}); it is applied whole \
                 or not at all: `payctl profile list` shows whether its profiles exist, and \
                 the same import run again with --skip-existing creates only what is missing",
                client.shown
            ),
        )
    };
    let mut resp = match sent {
        Ok(r) => r,
        Err(e) => {
            return Err(match super::client::classify(&e, &shown_url, None) {
                Failure::NotSent { detail, .. } => {
                    Error::store(code::UNREACHABLE, format!("{}: {detail}", client.shown))
                }
                Failure::Lost { detail, .. } => lost(&detail),
                Failure::Bad(e) => e,
            });
        }
    };
    let status = resp.status().as_u16();
    let count = |name: &str| {
        resp.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
    };
    let (created, skipped) = (count("payctl-created"), count("payctl-skipped"));
    let unreadable = |e: &ureq::Error| match super::client::classify(e, &shown_url, Some(status)) {
        Failure::Bad(e) => e,
        Failure::Lost { detail, .. } | Failure::NotSent { detail, .. } => lost(&detail),
    };
    if !(200..300).contains(&status) {
        let text = resp
            .body_mut()
            .with_config()
            .limit(super::client::MAX_ANSWER)
            .read_to_string()
            .map_err(|e| unreadable(&e))?;
        let mut e = match super::client::parse(&shown_url, status, &text, Kind::Imported) {
            Err(e) => e,
            Ok(_) => return Err(super::client::unexpected(&shown_url, status, "no errors")),
        };
        if status == 404 && e.has_code(code::ROUTE_NOT_FOUND) {
            for a in &mut e.errors {
                a.message = format!(
                    "{}: this service has no import route (a payctl serve older than this \
                     payctl): nothing was imported; upgrade it ({})",
                    client.shown, a.message
                );
            }
            return Err(e);
        }
        // Lines refused at their commit, after others were created.
        if let Some(n) = created.filter(|n| *n > 0) {
            let mut spool = Spool::new(Kind::Imported, answer_file()?, n);
            spool.skipped = skipped.unwrap_or(0);
            spool.refused = Some(e);
            return Ok((Response::Spooled(spool), None));
        }
        return Err(e);
    }
    let mut file = answer_file()?;
    let reader = resp
        .body_mut()
        .with_config()
        .limit(IMPORT_BODY_BYTES)
        .reader();
    let n = {
        let mut out = std::io::BufWriter::with_capacity(64 << 10, &mut file);
        let n = records_of(reader, &mut out).map_err(|why| match why {
            NotKept::Body(e) => lost(&format!("the answer could not be read: {e}")),
            NotKept::NotEnvelope(why) => super::client::unexpected(&shown_url, status, why),
            NotKept::Spool(e) => spool_error(e),
        })?;
        out.flush().map_err(spool_error)?;
        n
    };
    let mut spool = Spool::new(Kind::Imported, file, n);
    spool.skipped = skipped.unwrap_or(0);
    Ok((Response::Spooled(spool), None))
}

fn spool_error(e: std::io::Error) -> Error {
    Error::one(
        code::MALFORMED,
        format!("profile import: cannot keep the service's answer in a scratch file ({e})"),
    )
}

/// A private scratch file for the answer of a remote import, gone with the
/// process.
fn answer_file() -> Result<std::fs::File> {
    crate::store::atomic::temp_scratch("import-answer")
}

/// Why the answer's records could not be kept.
enum NotKept {
    Body(std::io::Error),
    NotEnvelope(String),
    Spool(std::io::Error),
}

/// The records of the success envelope on `input`, written to `out` one a
/// line as they are read (a million of them are not held), counted.
fn records_of(
    input: impl std::io::Read,
    out: &mut dyn Write,
) -> std::result::Result<usize, NotKept> {
    let mut failed = None;
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(64 << 10, input));
    let seen = Envelope {
        out,
        failed: &mut failed,
    }
    .deserialize(&mut de)
    .and_then(|n| de.end().map(|()| n));
    if let Some(e) = failed {
        return Err(NotKept::Spool(e));
    }
    match seen {
        Ok(Some(n)) => Ok(n),
        Ok(None) => Err(NotKept::NotEnvelope("JSON that is not the envelope".into())),
        Err(e) if e.is_io() => Err(NotKept::Body(std::io::Error::other(e))),
        Err(e) => Err(NotKept::NotEnvelope(format!(
            "a body that is not the envelope ({e})"
        ))),
    }
}

/// An envelope whose `data` goes to `out`; `None` without `data`.
struct Envelope<'a> {
    out: &'a mut dyn Write,
    failed: &'a mut Option<std::io::Error>,
}

impl<'de> DeserializeSeed<'de> for Envelope<'_> {
    type Value = Option<usize>;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Envelope<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the envelope {paging, data, errors}")
    }
    fn visit_map<A: MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut count = None;
        let Envelope { out, failed } = self;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "data" => {
                    count = Some(map.next_value_seed(Data {
                        out: &mut *out,
                        failed: &mut *failed,
                    })?)
                }
                "errors" => {
                    if !map.next_value::<Value>()?.is_null() {
                        return Err(A::Error::custom("errors in a success"));
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(count)
    }
}

/// The `data` array: each record written as a line.
struct Data<'a> {
    out: &'a mut dyn Write,
    failed: &'a mut Option<std::io::Error>,
}

impl<'de> DeserializeSeed<'de> for Data<'_> {
    type Value = usize;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Data<'_> {
    type Value = usize;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of records")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        let mut n = 0;
        while let Some(record) = seq.next_element::<Value>()? {
            if !record.is_object() {
                return Err(A::Error::custom("a record that is not an object"));
            }
            let line = format!("{}\n", serde_json::to_string(&record).expect("json"));
            if let Err(e) = self.out.write_all(line.as_bytes()) {
                *self.failed = Some(e);
                return Err(A::Error::custom("the scratch file failed"));
            }
            n += 1;
        }
        Ok(n)
    }
}
