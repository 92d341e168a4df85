//! Remote mode (`--base-url`): the table's requests over HTTP with ureq
//! (rustls, no OpenSSL). Error statuses are read as envelopes
//! (`http_status_as_error(false)`); a body that is not the envelope is an
//! error of its own (30008), a service that cannot be reached is 30007.
//! Idempotent requests (GET, PUT, DELETE, and a POST with an
//! `Idempotency-Key`) are retried with backoff on connection errors and on
//! 503; nothing else is retried.

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

/// A connection to a running service.
pub struct Client {
    base: String,
    token: Option<String>,
    actor: String,
    agent: ureq::Agent,
}

fn unreachable(base: &str, detail: impl std::fmt::Display) -> Error {
    Error::store(code::UNREACHABLE, format!("{base}: {detail}"))
}

fn unexpected(url: &str, status: u16, detail: impl std::fmt::Display) -> Error {
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
    pub fn new(
        base_url: &str,
        token: Option<String>,
        actor: &str,
        timeout: Duration,
    ) -> Result<Client> {
        let base = check_base_url(base_url).map_err(|rule| {
            Error::usage(format!(
                "--base-url {}: {rule}",
                crate::error::shown_id(&crate::output::mask::url_password(base_url))
            ))
        })?;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .user_agent(concat!("payctl/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Ok(Client {
            base,
            token: token.filter(|t| !t.is_empty()),
            actor: super::endpoints::percent_encode(actor),
            agent,
        })
    }

    /// Send `req` and read the envelope, as the local command would answer it.
    pub fn call(&self, req: &Request) -> Result<Response> {
        self.call_replayed(req).map(|(r, _)| r)
    }

    /// [`Client::call`], and whether the service answered the replay of an
    /// earlier request with the same `Idempotency-Key` (`Idempotent-Replayed: true`).
    pub fn call_replayed(&self, req: &Request) -> Result<(Response, bool)> {
        let url = format!("{}{}", self.base, req.target());
        let method = req.endpoint.method;
        let repeatable = method.idempotent() || req.idempotency_key.is_some();
        let body = req.body.as_ref().map(Value::to_string);
        let mut wait = BACKOFF;
        let mut attempt = 1;
        loop {
            let sent = self.send(method, &url, req, body.as_deref());
            let retry_in = match &sent {
                Err(e) if is_connection_error(e) => Some(wait),
                Ok((503, _, retry_after, _)) => Some(retry_after.map_or(wait, |s| s.min(wait * 4))),
                _ => None,
            };
            match retry_in {
                Some(d) if repeatable && attempt < ATTEMPTS => {
                    std::thread::sleep(d);
                    wait *= 2;
                    attempt += 1;
                }
                _ => {
                    let (status, text, _, replayed) =
                        sent.map_err(|e| unreachable(&self.base, describe(&e)))?;
                    return parse(&url, status, &text, req.endpoint.kind).map(|r| (r, replayed));
                }
            }
        }
    }

    fn send(
        &self,
        method: Method,
        url: &str,
        req: &Request,
        body: Option<&str>,
    ) -> std::result::Result<(u16, String, Option<Duration>, bool), ureq::Error> {
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
        let mut resp = resp?;
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
        let text = resp
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()?;
        Ok((status, text, retry_after, replayed))
    }
}

fn is_connection_error(e: &ureq::Error) -> bool {
    matches!(e, ureq::Error::Io(_) | ureq::Error::ConnectionFailed)
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => format!("no answer within --http-timeout ({e})"),
        ureq::Error::HostNotFound => "the host name does not resolve".to_string(),
        _ => e.to_string(),
    }
}

/// An answer as the local command's result: the envelope's records, or its
/// errors with the exit code the local command would have.
fn parse(url: &str, status: u16, text: &str, kind: Kind) -> Result<Response> {
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

/// Whether an error is one of remote mode's own (the service was not reached
/// or did not answer an envelope).
pub fn is_transport_error(e: &Error) -> bool {
    e.kind == ErrorKind::Store
        && (e.has_code(code::UNREACHABLE) || e.has_code(code::UNEXPECTED_RESPONSE))
}
