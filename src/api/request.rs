//! One request to the endpoint table, as every transport carries it: the
//! endpoint, the path's ids, the typed query ([`Params`], parsed from a
//! query string with the table's rules), the body, the idempotency key and
//! `--dry-run`; and the percent-encoding of paths and queries.

use super::endpoints::*;
use crate::core;
use crate::core::paging::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageRequest};
use crate::error::{ApiError, Error, Result, code};
use crate::model::Tag;
use serde_json::Value;

/// The query parameters of a request, typed.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub page: PageRequest,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub customer_key: Option<String>,
    pub tags: Vec<Tag>,
    pub status: Option<u32>,
    pub template: Option<String>,
    pub program: Option<String>,
    pub customer: Option<String>,
    /// `type` of `GET /events`: event type globs (repeated, or separated
    /// by commas).
    pub event_types: Vec<String>,
    pub record_id: Option<String>,
    pub since: Option<String>,
    /// `skip_existing` of the import (`--skip-existing`): `true` or `false`.
    pub skip_existing: bool,
}

/// The names of the query parameters an endpoint takes.
pub fn query_names(q: Query) -> &'static [&'static str] {
    const PAGING: &[&str] = &["page_size", "page_number", "last_evaluated_key"];
    const PROFILES: &[&str] = &[
        "page_size",
        "page_number",
        "last_evaluated_key",
        "first_name",
        "last_name",
        "email",
        "customer_key",
        "tag",
    ];
    const TXNS: &[&str] = &[
        "page_size",
        "page_number",
        "last_evaluated_key",
        "status",
        "template",
        "program",
        "customer",
    ];
    const EVENTS: &[&str] = &[
        "page_size",
        "page_number",
        "last_evaluated_key",
        "type",
        "record_id",
        "since",
    ];
    match q {
        Query::None => &[],
        Query::Import => &["skip_existing"],
        Query::Events => EVENTS,
        Query::Paging => PAGING,
        Query::Profiles => PROFILES,
        Query::Transactions => TXNS,
    }
}

impl Params {
    /// The query pairs of these parameters (only those given).
    pub fn to_pairs(&self, q: Query) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if q == Query::None {
            return out;
        }
        if q == Query::Import {
            if self.skip_existing {
                out.push(("skip_existing".to_string(), "true".to_string()));
            }
            return out;
        }
        let mut push = |k: &str, v: Option<String>| {
            if let Some(v) = v {
                out.push((k.to_string(), v));
            }
        };
        if self.page.size != DEFAULT_PAGE_SIZE {
            push("page_size", Some(self.page.size.to_string()));
        }
        push("page_number", self.page.number.map(|n| n.to_string()));
        push("last_evaluated_key", self.page.after.clone());
        if q == Query::Profiles {
            push("first_name", self.first_name.clone());
            push("last_name", self.last_name.clone());
            push("email", self.email.clone());
            push("customer_key", self.customer_key.clone());
            for t in &self.tags {
                push("tag", Some(format!("{}:{}", t.key, t.value)));
            }
        }
        if q == Query::Transactions {
            push("status", self.status.map(|s| s.to_string()));
            push("template", self.template.clone());
            push("program", self.program.clone());
            push("customer", self.customer.clone());
        }
        if q == Query::Events {
            for t in &self.event_types {
                push("type", Some(t.clone()));
            }
            push("record_id", self.record_id.clone());
            push("since", self.since.clone());
        }
        out
    }

    /// Parse decoded query pairs for an endpoint taking `q`; every bad or
    /// unknown parameter is named (400).
    pub fn from_pairs(pairs: &[(String, String)], q: Query) -> Result<Params> {
        let mut p = Params::default();
        let mut errs = Vec::new();
        let known = query_names(q);
        let mut seen: Vec<&str> = Vec::new();
        for (k, v) in pairs {
            let k = k.as_str();
            if !known.contains(&k) {
                let list = if known.is_empty() {
                    "this endpoint takes none".to_string()
                } else {
                    format!("the known ones are: {}", known.join(", "))
                };
                errs.push(ApiError::new(
                    code::UNKNOWN_FIELD,
                    format!(
                        "query parameter `{}` is not known; {list}",
                        crate::error::shown_id(k)
                    ),
                ));
                continue;
            }
            if k != "tag" && k != "type" {
                if seen.contains(&k) {
                    errs.push(ApiError::new(
                        code::INVALID_VALUE,
                        format!("query parameter {k}: given more than once"),
                    ));
                    continue;
                }
                seen.push(k);
            }
            let number = |min: u32, max: u32| -> std::result::Result<u32, ApiError> {
                match v.parse::<u32>() {
                    Ok(n) if (min..=max).contains(&n) => Ok(n),
                    _ => Err(ApiError::new(
                        code::INVALID_VALUE,
                        format!("query parameter {k}: must be a whole number from {min} to {max}"),
                    )),
                }
            };
            match k {
                "page_size" => match number(1, MAX_PAGE_SIZE) {
                    Ok(n) => p.page.size = n,
                    Err(e) => errs.push(e),
                },
                "page_number" => match number(1, u32::MAX) {
                    Ok(n) => p.page.number = Some(n),
                    Err(e) => errs.push(e),
                },
                "status" => match core::names::txn_status(v) {
                    Ok(n) => p.status = Some(n),
                    Err(e) => errs.extend(e.errors),
                },
                "last_evaluated_key" => p.page.after = Some(v.clone()),
                "first_name" => p.first_name = Some(v.clone()),
                "last_name" => p.last_name = Some(v.clone()),
                "email" => p.email = Some(v.clone()),
                "customer_key" => p.customer_key = Some(v.clone()),
                "template" => p.template = Some(v.clone()),
                "program" => p.program = Some(v.clone()),
                "customer" => p.customer = Some(v.clone()),
                "type" => p
                    .event_types
                    .extend(v.split(',').map(|t| t.trim().to_string())),
                "record_id" => p.record_id = Some(v.clone()),
                "since" => p.since = Some(v.clone()),
                "skip_existing" => match v.as_str() {
                    "true" => p.skip_existing = true,
                    "false" => p.skip_existing = false,
                    _ => errs.push(ApiError::new(
                        code::INVALID_VALUE,
                        "query parameter skip_existing: must be `true` or `false`",
                    )),
                },
                "tag" => match v.split_once(':') {
                    Some((key, value)) => p.tags.push(Tag {
                        key: key.to_string(),
                        value: value.to_string(),
                    }),
                    None => errs.push(ApiError::new(
                        code::INVALID_VALUE,
                        "query parameter tag: expected KEY:VALUE",
                    )),
                },
                _ => {}
            }
        }
        // Both are valid alone, so both together are too: the key, which
        // names a place in the list, wins over the number (as the paging
        // itself reads them).
        if p.page.after.is_some() {
            p.page.number = None;
        }
        if errs.is_empty() {
            Ok(p)
        } else {
            Err(Error::refused(errs))
        }
    }
}

/// One request to an endpoint of the table: what every transport carries.
#[derive(Debug, Clone)]
pub struct Request {
    pub endpoint: &'static Endpoint,
    /// The path's identifiers, in order.
    pub params: Vec<String>,
    pub query: Params,
    pub body: Option<Value>,
    /// The `Idempotency-Key` of a POST.
    pub idempotency_key: Option<String>,
    /// `--dry-run` (`Payctl-Dry-Run: true` over HTTP): a create, update,
    /// delete or attach is checked exactly as it would run and its record
    /// shown, nothing written (see [`super::dry_run`]).
    pub dry_run: bool,
    /// The streamed body of an endpoint whose body is
    /// [`Body::ProfileLines`] (the import), read once by whoever serves it.
    pub upload: Option<super::upload::Upload>,
}

impl Request {
    pub fn new(op: Op) -> Request {
        Request::to(Endpoint::of(op))
    }
    pub fn to(endpoint: &'static Endpoint) -> Request {
        Request {
            endpoint,
            params: Vec::new(),
            query: Params::default(),
            body: None,
            idempotency_key: None,
            dry_run: false,
            upload: None,
        }
    }
    /// The streamed body (see [`Request::upload`]).
    pub fn upload(mut self, upload: super::upload::Upload) -> Request {
        self.upload = Some(upload);
        self
    }
    pub fn dry_run(mut self, yes: bool) -> Request {
        self.dry_run = yes;
        self
    }
    /// The path's identifiers.
    pub fn at<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Request {
        self.params = ids.into_iter().map(Into::into).collect();
        self
    }
    pub fn body(mut self, body: Value) -> Request {
        self.body = Some(body);
        self
    }
    pub fn page(mut self, page: PageRequest) -> Request {
        self.query.page = page;
        self
    }
    pub fn query(mut self, query: Params) -> Request {
        self.query = query;
        self
    }
    pub fn idempotency_key(mut self, key: Option<String>) -> Request {
        self.idempotency_key = key;
        self
    }

    /// The path with the identifiers filled in (percent-encoded).
    pub fn path(&self) -> String {
        let mut params = self.params.iter();
        self.endpoint
            .path
            .split('/')
            .map(|s| {
                if s.starts_with('{') {
                    percent_encode(params.next().map(String::as_str).unwrap_or(""))
                } else {
                    s.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The path and the query string.
    pub fn target(&self) -> String {
        let pairs = self.query.to_pairs(self.endpoint.query);
        let mut t = self.path();
        for (i, (k, v)) in pairs.iter().enumerate() {
            t.push(if i == 0 { '?' } else { '&' });
            t.push_str(&percent_encode(k));
            t.push('=');
            t.push_str(&percent_encode(v));
        }
        t
    }

    pub(crate) fn param(&self, i: usize) -> &str {
        self.params.get(i).map(String::as_str).unwrap_or("")
    }
}

/// RFC 3986 percent-encoding of everything but the unreserved characters.
pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decode `%XX` (and, in a query, `+` as a space); None when the result is
/// not UTF-8 or an escape is broken.
pub fn percent_decode(s: &str, plus_is_space: bool) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                // Two hex digits exactly: `from_str_radix` alone would take `%+1`.
                let hex = bytes
                    .get(i + 1..i + 3)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}
