//! Remote mode (`--base-url`): the table's requests over HTTP with ureq (rustls, no OpenSSL).
//! Error statuses are read as envelopes (`http_status_as_error(false)`); a body that is not the
//! envelope is an error of its own (30008).
//!
//! A failure says truthfully what may have happened: 30007 when nothing was sent (no connection,
//! a name that does not resolve, a TLS handshake that failed), 30020 (Outcome Unknown) once the
//! request went out and no whole answer came (a time-out after connecting, a connection lost),
//! because the service may have applied it. A request that may be repeated (GET, PUT, DELETE, and
//! a POST with an `Idempotency-Key`) is retried with backoff on connection errors and on 503; a
//! POST without a key is sent again only when nothing of it was sent. A 429 (`--rate-limit`) is
//! waited out and sent again whatever the method, a POST without a key included: the server
//! refuses it at its edge, before anything is executed (as RFC 6585 has it: the request was not
//! processed), so sending it again cannot apply it twice.
//!
//! Over `https://` the service's certificate is checked against Mozilla's roots, or, with
//! `--ca-cert FILE` (`PAYCTL_CA_CERT`), against that file's certificates alone (a private CA); one
//! that is not trusted is refused before anything is sent (30007, naming `--ca-cert`).
//!
//! The import is the one request whose body is a stream: [`super::import`] sends it.

use std::time::Duration;

use serde_json::Value;

use super::endpoints::{Kind, Method, Request};
use crate::core::paging::Paging;
use crate::error::{ApiError, Error, ErrorKind, Result, code};
use crate::output::Response;

/// Attempts of a request that may be repeated (the first and 3 retries).
const ATTEMPTS: u32 = 4;
/// The first backoff; it doubles per retry (0.2, 0.4, 0.8 s), or follows a
/// shorter `Retry-After`.
const BACKOFF: Duration = Duration::from_millis(200);
/// The longest `Retry-After` of a 429 that is waited out; a longer one is
/// answered at once (the command fails with 10012).
const MAX_RATE_WAIT: Duration = Duration::from_secs(30);
/// The largest answer the client reads (then 30008). The largest page a
/// service answers is about 7 MiB of JSON: 1000 profiles with every field at
/// its longest and 50 tags of 50-character keys and values (tags are ASCII)
/// measured 7,140 bytes each; a page of transaction parameters is bounded by
/// the 1 MiB request body that made them. 32 MiB leaves room for larger
/// records to come; an endless or hostile body stops here instead of
/// filling memory.
pub const MAX_ANSWER: u64 = 32 << 20;

/// The header of a dry run (`--dry-run`): checked as for real, nothing written.
pub const DRY_RUN_HEADER: &str = "Payctl-Dry-Run";

/// A connection to a running service.
pub struct Client {
    pub(super) base: String,
    /// `base` as messages show it: without the password of its user info.
    pub(super) shown: String,
    pub(super) token: Option<String>,
    pub(super) actor: String,
    pub(super) agent: ureq::Agent,
    pub(super) timeout: Duration,
}

/// What the caller should know about an answer beyond its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// The service answered the replay of an earlier request with the same
    /// `Idempotency-Key` (`Idempotent-Replayed: true`): nothing changed now.
    Replayed,
    /// A DELETE whose first answer was lost found the record gone when it
    /// was sent again: the first one deleted it.
    DeletedBefore,
}

/// Why one attempt gave no answer that can be read.
pub(super) enum Failure {
    /// Nothing of the request reached the service; `transient` when a new
    /// attempt may connect (a refused or dropped connection, not a name that
    /// does not resolve nor a time-out already waited out).
    NotSent { detail: String, transient: bool },
    /// The request went out (maybe only in part) and no whole answer came:
    /// the service may have applied it. `transient` as above.
    Lost { detail: String, transient: bool },
    /// An answer that is not one (30008): not HTTP, too large, not UTF-8.
    Bad(Error),
}

/// One answer: status, body, `Retry-After`, `Idempotent-Replayed`.
struct Answer {
    status: u16,
    text: String,
    retry_after: Option<Duration>,
    replayed: bool,
}

/// A base URL as messages show it: the password of `user:password@` left
/// out, as `--database-url`'s is (`http://alice@host:8080`).
pub fn shown_base(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let at = if user.is_empty() {
                String::new()
            } else {
                format!("{user}@")
            };
            format!("{scheme}://{at}{host}{tail}")
        }
        None => url.to_string(),
    }
}

/// A token as `Authorization: Bearer` can carry it: visible ASCII only.
/// What is wrong is said without showing the token.
fn check_token(token: &str) -> Result<()> {
    let wrong = token.char_indices().find_map(|(i, c)| {
        let at = token[..i].chars().count() + 1;
        match c {
            '\n' | '\r' if i + c.len_utf8() == token.len() => {
                Some("ends with a line break (a file read with its newline? strip it)".to_string())
            }
            '\n' | '\r' => Some(format!("has a line break at character {at}")),
            ' ' | '\t' => Some(format!("has a space or tab at character {at}")),
            c if c.is_ascii_control() => Some(format!("has a control character at character {at}")),
            c if !c.is_ascii() => Some(format!(
                "has a non-ASCII character at character {at} (a token is visible ASCII only)"
            )),
            _ => None,
        }
    });
    match wrong {
        Some(what) => Err(Error::usage(format!(
            "PAYCTL_TOKEN: {what}; it cannot be sent as `Authorization: Bearer` (nothing was sent)"
        ))),
        None => Ok(()),
    }
}

/// The agent of remote mode: `timeout` per phase, certificates checked
/// against `roots`.
fn agent(timeout: Duration, roots: ureq::tls::RootCerts) -> ureq::Agent {
    // One time-out per phase, no global one: ureq then names the phase
    // that ran out (Resolve and Connect: nothing was sent).
    let t = Some(timeout);
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_resolve(t)
        .timeout_connect(t)
        .timeout_send_request(t)
        .timeout_send_body(t)
        .timeout_recv_response(t)
        .timeout_recv_body(t)
        .max_redirects(0)
        .user_agent(concat!("payctl/", env!("CARGO_PKG_VERSION")))
        .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
        .build()
        .into()
}

/// What a failure that may have been applied says to do, per request.
fn outcome_hint(req: &Request) -> String {
    match (req.endpoint.method, &req.idempotency_key) {
        (Method::Get, _) => "a read changes nothing: run it again".to_string(),
        (Method::Post, Some(key)) => format!(
            "it may or may not have been applied: repeat the command with the same \
             --idempotency-key {} (it answers the first result if the request was applied, \
             and applies it once if not)",
            crate::error::shown_id(key)
        ),
        (Method::Post, None) if req.endpoint.path.starts_with("/_payctl/") => {
            "it may or may not have been applied: run it again when the service answers".to_string()
        }
        (Method::Post, None) => "it may or may not have been applied: look the record up before \
             sending it again (sent again, it may be applied twice), and give \
             --idempotency-key KEY next time, so that a repeat with the same key is applied at most once"
            .to_string(),
        (Method::Put | Method::Delete, _) => {
            "it may or may not have been applied: the request may be repeated as it is \
             (an update or a delete applied twice is applied once)"
                .to_string()
        }
    }
}

pub(super) fn unexpected(url: &str, status: u16, detail: impl std::fmt::Display) -> Error {
    Error::store(
        code::UNEXPECTED_RESPONSE,
        format!("{url} answered HTTP {status} with {detail}; is --base-url a payctl service?"),
    )
}

/// `base_url` without its trailing `/`, or the rule it breaks: `http://` or
/// `https://` with a host (also what a context's `base-url` must be).
pub fn check_base_url(base_url: &str) -> std::result::Result<String, &'static str> {
    let base = base_url.trim_end_matches('/').to_string();
    let rest = base
        .strip_prefix("http://")
        .or_else(|| base.strip_prefix("https://"));
    if rest.is_none_or(|r| r.is_empty()) {
        return Err("expected http://HOST[:PORT][/PATH] or https://…");
    }
    Ok(base)
}

impl Client {
    /// `base_url` is `http://` or `https://` with a host; `token` is sent as
    /// `Authorization: Bearer`; `actor` as `X-Payctl-Actor`, percent-encoded.
    /// `timeout` bounds each phase of an exchange: resolving, connecting,
    /// sending, waiting for the answer's head, reading its body.
    pub fn new(
        base_url: &str,
        token: Option<String>,
        actor: &str,
        timeout: Duration,
    ) -> Result<Client> {
        let base = check_base_url(base_url).map_err(|rule| {
            Error::usage(format!(
                "--base-url {}: {rule}",
                crate::error::shown_id(&shown_base(base_url))
            ))
        })?;
        let shown = shown_base(&base);
        let token = token.filter(|t| !t.is_empty());
        if let Some(t) = &token {
            check_token(t)?;
        }
        Ok(Client {
            base,
            shown,
            token,
            actor: super::endpoints::percent_encode(actor),
            agent: agent(timeout, ureq::tls::RootCerts::WebPki),
            timeout,
        })
    }

    /// Trust the certificates of the PEM text of `--ca-cert` instead of
    /// Mozilla's roots (see the module doc); `flag` names the file.
    pub fn trusting(mut self, flag: &str, pem: &[u8]) -> Result<Client> {
        self.agent = agent(self.timeout, super::tls::client_roots(flag, pem)?);
        Ok(self)
    }

    /// Send `req` and read the envelope, as the local command would answer it.
    pub fn call(&self, req: &Request) -> Result<Response> {
        self.call_noted(req).map(|(r, _)| r)
    }

    /// [`Client::call`], and what else the caller should know about the
    /// answer ([`Note`]).
    /// The import streams its body as one request (see [`super::import`]).
    pub fn call_noted(&self, req: &Request) -> Result<(Response, Option<Note>)> {
        if req.endpoint.body == super::endpoints::Body::ProfileLines {
            return super::import::send(self, req);
        }
        let target = req.target();
        let url = format!("{}{}", self.base, target);
        let shown_url = format!("{}{}", self.shown, target);
        let method = req.endpoint.method;
        let repeatable = method.idempotent() || req.idempotency_key.is_some();
        let body = req.body.as_ref().map(Value::to_string);
        let mut wait = BACKOFF;
        let mut attempt = 1;
        // An earlier attempt that went out and got no answer: it may have
        // been applied, whatever the later attempts say.
        let mut lost: Option<String> = None;
        loop {
            let sent = self.send(method, &url, &shown_url, req, body.as_deref());
            let retry_in = match &sent {
                Err(Failure::NotSent { transient, .. }) => transient.then_some(wait),
                Err(Failure::Lost { transient, .. }) => (*transient && repeatable).then_some(wait),
                Ok(a) if a.status == 503 && repeatable => {
                    Some(a.retry_after.map_or(wait, |s| s.min(wait * 4)))
                }
                // Refused before anything ran: any method may be sent again.
                Ok(a) if a.status == 429 => match a.retry_after {
                    Some(s) if s > MAX_RATE_WAIT => None,
                    Some(s) => Some(s.max(wait)),
                    None => Some(wait),
                },
                _ => None,
            };
            match retry_in {
                Some(d) if attempt < ATTEMPTS => {
                    if let Err(Failure::Lost { detail, .. }) = &sent {
                        lost = Some(detail.clone());
                    }
                    std::thread::sleep(d);
                    wait *= 2;
                    attempt += 1;
                }
                _ => return self.finish(req, &shown_url, sent, lost),
            }
        }
    }

    /// The last attempt's result as the command's.
    fn finish(
        &self,
        req: &Request,
        shown_url: &str,
        sent: std::result::Result<Answer, Failure>,
        lost: Option<String>,
    ) -> Result<(Response, Option<Note>)> {
        let unknown = |detail: &str| {
            Error::store(
                code::OUTCOME_UNKNOWN,
                format!(
                    "{}: the request was sent and no answer came ({detail}); {}",
                    self.shown,
                    outcome_hint(req)
                ),
            )
        };
        let answer = match sent {
            Ok(a) => a,
            Err(Failure::NotSent { detail, .. }) => {
                return Err(match lost {
                    Some(earlier) => unknown(&format!("{earlier}; then {detail}")),
                    None => Error::store(code::UNREACHABLE, format!("{}: {detail}", self.shown)),
                });
            }
            Err(Failure::Lost { detail, .. }) => return Err(unknown(&detail)),
            Err(Failure::Bad(mut e)) => {
                if req.endpoint.method != Method::Get
                    && let Some(first) = e.errors.first_mut()
                {
                    first.message = format!("{}; {}", first.message, outcome_hint(req));
                }
                return Err(e);
            }
        };
        let kind = if req.dry_run && super::dry_run::applies(req.endpoint.op) {
            super::endpoints::Endpoint::of(super::dry_run::shown_as(req.endpoint.op)).kind
        } else {
            req.endpoint.kind
        };
        let parsed = parse(shown_url, answer.status, &answer.text, kind);
        match parsed {
            // The first DELETE went out and its answer was lost; this one
            // finds the record gone: the first deleted it.
            Err(e)
                if lost.is_some()
                    && req.endpoint.method == Method::Delete
                    && answer.status == 404
                    && e.has_code(code::NOT_FOUND)
                    && let Some(id) = req.params.last()
                    && e.errors.iter().any(|a| {
                        a.message.contains(id.as_str())
                            || a.message.contains(&crate::error::shown_id(id))
                    }) =>
            {
                Ok((Response::Id(id.clone()), Some(Note::DeletedBefore)))
            }
            parsed => parsed.map(|r| (r, answer.replayed.then_some(Note::Replayed))),
        }
    }

    fn send(
        &self,
        method: Method,
        url: &str,
        shown_url: &str,
        req: &Request,
        body: Option<&str>,
    ) -> std::result::Result<Answer, Failure> {
        macro_rules! headers {
            ($b:expr) => {{
                let mut b = $b
                    .header("Accept", "application/json")
                    .header("X-Payctl-Actor", &self.actor);
                if let Some(t) = &self.token {
                    b = b.header("Authorization", &format!("Bearer {t}"));
                }
                if let Some(k) = &req.idempotency_key {
                    b = b.header("Idempotency-Key", k);
                }
                if req.dry_run {
                    b = b.header(DRY_RUN_HEADER, "true");
                }
                b
            }};
        }
        let body = body.unwrap_or("{}");
        let resp = match method {
            Method::Get => headers!(self.agent.get(url)).call(),
            Method::Delete => headers!(self.agent.delete(url)).call(),
            Method::Post => headers!(self.agent.post(url))
                .header("Content-Type", "application/json")
                .send(body),
            Method::Put => headers!(self.agent.put(url))
                .header("Content-Type", "application/json")
                .send(body),
        };
        let mut resp = resp.map_err(|e| classify(&e, shown_url, None))?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let replayed = resp
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"));
        let bytes = resp
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_vec()
            .map_err(|e| classify(&e, shown_url, Some(status)))?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Failure::Bad(unexpected(shown_url, status, "a body that is not UTF-8")))?;
        Ok(Answer {
            status,
            text,
            retry_after,
            replayed,
        })
    }
}

/// Whether an I/O error comes from connecting, before anything was sent.
fn io_before_sending(e: &std::io::Error) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        e.kind(),
        K::ConnectionRefused
            | K::HostUnreachable
            | K::NetworkUnreachable
            | K::NetworkDown
            | K::AddrNotAvailable
            | K::AddrInUse
            | K::PermissionDenied
    )
}

/// What a ureq error says about the request: sent or not, or a bad answer.
/// `status` is the answer's when its head was read (the error came while
/// reading its body).
pub(super) fn classify(e: &ureq::Error, shown_url: &str, status: Option<u16>) -> Failure {
    use ureq::Error as E;
    use ureq::Timeout as T;
    let not_sent = |detail: String, transient| Failure::NotSent { detail, transient };
    let lost = |detail: String, transient| Failure::Lost { detail, transient };
    let bad = |detail: String| Failure::Bad(unexpected(shown_url, status.unwrap_or(0), detail));
    match e {
        E::Timeout(T::Resolve) => not_sent(
            "the host name did not resolve within --http-timeout".into(),
            false,
        ),
        E::Timeout(T::Connect) => not_sent("no connection within --http-timeout".into(), false),
        E::Timeout(phase) => lost(
            format!("no answer within --http-timeout, {}", timeout_phase(*phase)),
            false,
        ),
        E::HostNotFound => not_sent("the host name does not resolve".into(), false),
        E::ConnectionFailed => not_sent("the connection failed".into(), true),
        E::Io(io) if status.is_none() && io_before_sending(io) => {
            not_sent(format!("cannot connect: {io}"), true)
        }
        // The handshake's failure comes as an I/O error around rustls's:
        // nothing of the request was sent.
        E::Io(io) if status.is_none() && tls_error(io).is_some() => not_sent(
            tls_failed(tls_error(io).unwrap_or(&rustls::Error::HandshakeNotComplete)),
            false,
        ),
        E::Io(io) => lost(format!("the connection was lost: {io}"), true),
        E::BodyExceedsLimit(_) => bad(format!(
            "an answer larger than {} MiB, the most the client reads",
            MAX_ANSWER >> 20
        )),
        E::Protocol(p) => bad(format!("something that is not HTTP ({p})")),
        E::LargeResponseHeader(..) => bad("an answer head that is too large".into()),
        E::Rustls(r) => not_sent(tls_failed(r), false),
        E::Tls(_) | E::Pem(_) | E::TlsRequired => not_sent(format!("TLS failed: {e}"), false),
        E::BadUri(_) | E::Http(_) | E::InvalidProxyUrl | E::RequireHttpsOnly(_) => not_sent(
            "--base-url is not a URL that can be requested".into(),
            false,
        ),
        E::RedirectFailed | E::TooManyRedirects => bad("a redirect (not followed)".into()),
        // Anything else: whether the request went out is not known.
        other => match status {
            Some(_) => lost(format!("the answer could not be read: {other}"), false),
            None => lost(other.to_string(), false),
        },
    }
}

/// The rustls error inside an I/O error, if any.
fn tls_error(io: &std::io::Error) -> Option<&rustls::Error> {
    io.get_ref()?.downcast_ref::<rustls::Error>()
}

/// What a failed handshake says: a certificate that is not trusted names
/// the way to trust it.
fn tls_failed(e: &rustls::Error) -> String {
    match e {
        rustls::Error::InvalidCertificate(why) => {
            let what = match why {
                rustls::CertificateError::UnknownIssuer => {
                    "it is not signed by a CA this client trusts".to_string()
                }
                // webpki's error, wrapped by rustls without a type of its
                // own: `openssl req -x509`'s quick certificate is a CA.
                rustls::CertificateError::Other(o)
                    if format!("{o:?}").contains("CaUsedAsEndEntity") =>
                {
                    "it is a CA certificate (a self-signed one marked CA:TRUE, as `openssl req \
                     -x509` makes by default); the service must present a certificate signed by \
                     the CA, or a self-signed one marked CA:FALSE"
                        .to_string()
                }
                other => other.to_string(),
            };
            format!(
                "the service's TLS certificate is not trusted: {what}; if it is signed by a \
                 private CA, give that CA's certificate with --ca-cert FILE (or PAYCTL_CA_CERT); \
                 nothing was sent"
            )
        }
        other => format!("TLS failed: {other}; nothing was sent"),
    }
}

fn timeout_phase(t: ureq::Timeout) -> &'static str {
    use ureq::Timeout as T;
    match t {
        T::SendRequest | T::SendBody => "while sending",
        T::RecvResponse => "while waiting for the answer",
        T::RecvBody => "while reading the answer",
        _ => "after sending",
    }
}

/// An answer as the local command's result: the envelope's records, or its
/// errors with the exit code the local command would have.
pub(super) fn parse(url: &str, status: u16, text: &str, kind: Kind) -> Result<Response> {
    let v: Value = serde_json::from_str(text)
        .map_err(|_| unexpected(url, status, "a body that is not JSON"))?;
    let obj = v
        .as_object()
        .filter(|o| o.contains_key("data") && o.contains_key("errors") && o.contains_key("paging"))
        .ok_or_else(|| unexpected(url, status, "JSON that is not the envelope"))?;
    if let Some(errors) = obj.get("errors").and_then(Value::as_array) {
        let errors: Vec<ApiError> = errors
            .iter()
            .map(|e| {
                ApiError::from_envelope(
                    e["code"].as_u64().unwrap_or(0) as u32,
                    e["message"].as_str().unwrap_or_default(),
                )
            })
            .collect();
        if errors.is_empty() {
            return Err(unexpected(url, status, "an empty errors array"));
        }
        let codes: Vec<u32> = errors.iter().map(|e| e.code).collect();
        return Err(Error {
            kind: super::kind_of(status, &codes),
            errors,
        });
    }
    if !(200..300).contains(&status) {
        return Err(unexpected(url, status, "an envelope without errors"));
    }
    let data = obj
        .get("data")
        .and_then(Value::as_array)
        .cloned()
        .ok_or_else(|| unexpected(url, status, "an envelope whose data is not an array"))?;
    match obj.get("paging") {
        Some(Value::Null) | None => {}
        Some(p) => {
            let paging: Paging = serde_json::from_value(p.clone())
                .map_err(|_| unexpected(url, status, "a paging object of another shape"))?;
            return Ok(Response::List { kind, paging, data });
        }
    }
    if let (Kind::Id, [one]) = (kind, data.as_slice())
        && let Some(id) = one.get("id").and_then(Value::as_str)
        && one.as_object().is_some_and(|o| o.len() == 1)
    {
        return Ok(Response::Id(id.to_string()));
    }
    Ok(Response::Records(kind, data))
}

/// Whether an error is one of remote mode's own (the service was not reached,
/// did not answer, or did not answer an envelope).
pub fn is_transport_error(e: &Error) -> bool {
    e.kind == ErrorKind::Store
        && (e.has_code(code::UNREACHABLE)
            || e.has_code(code::UNEXPECTED_RESPONSE)
            || e.has_code(code::OUTCOME_UNKNOWN))
}
