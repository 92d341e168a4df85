//! Arguments shared by many commands: paging, `--body`, `--tag K=V`, and the
//! merging of per-field flags over a body (flags win).

use std::io::Read;
use std::path::PathBuf;

use serde_json::{Map, Value};

pub use crate::core::body::parse_body_only;
use crate::core::paging::{DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageRequest};
use crate::core::rules::caps;
use crate::error::{Error, Result, code};
use crate::model::Tag;

#[derive(Debug, Clone, clap::Args)]
pub struct PageArgs {
    /// Records per page (1-1000; default 50, with --all 1000 per request)
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=MAX_PAGE_SIZE as i64), value_name = "N")]
    pub page_size: Option<u32>,
    /// Page to show, from 1
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..), value_name = "N", conflicts_with = "after")]
    pub page_number: Option<u32>,
    /// Continue after this last_evaluated_key of the previous page
    #[arg(long, value_name = "KEY")]
    pub after: Option<String>,
    /// Every page, in order, printed as it comes (-o json: one envelope holding every record; -o jsonl streams)
    #[arg(long, conflicts_with_all = ["page_number", "after"])]
    pub all: bool,
}

impl PageArgs {
    pub fn request(&self) -> PageRequest {
        PageRequest {
            size: self.page_size.unwrap_or(DEFAULT_PAGE_SIZE),
            number: self.page_number,
            after: self.after.clone(),
        }
    }
}

#[derive(Debug, Clone, clap::Args)]
pub struct BodyArg {
    /// The request body, as the HTTP API takes it, in JSON from FILE or `-` for stdin (at most 1 MiB); flags override its fields
    #[arg(long, value_name = "FILE")]
    pub body: Option<PathBuf>,
}

/// Largest body accepted ([`caps::BODY_BYTES`]): no more than one byte past it
/// is ever read, so `--body /dev/zero` or a huge file costs nothing.
const MAX_BODY: u64 = caps::BODY_BYTES;

impl BodyArg {
    /// The body as JSON (an empty object when no `--body` is given).
    pub fn read(&self) -> Result<Value> {
        let Some(path) = &self.body else {
            return Ok(Value::Object(Map::new()));
        };
        let mut bytes = Vec::new();
        let res = if path.as_os_str() == "-" {
            std::io::stdin().take(MAX_BODY + 1).read_to_end(&mut bytes)
        } else {
            std::fs::File::open(path).and_then(|f| f.take(MAX_BODY + 1).read_to_end(&mut bytes))
        };
        res.map_err(|e| {
            Error::one(
                code::MALFORMED,
                format!(
                    "--body: cannot read {}: {e}",
                    // An argument echoed: a stray account number is masked.
                    crate::output::mask::mask_text(&path.display().to_string())
                ),
            )
        })?;
        parse_body(&bytes)
    }
}

/// Parse a request body: UTF-8 JSON, no byte-order mark, at most [`MAX_BODY`].
/// Its sensitive values are remembered for this run's messages.
pub fn parse_body(bytes: &[u8]) -> Result<Value> {
    let body = parse_body_only(bytes)?;
    crate::output::mask::remember_in(&body);
    Ok(body)
}

/// `K=V` of `--tag`.
pub fn parse_tag(s: &str) -> std::result::Result<Tag, String> {
    match s.split_once('=') {
        Some((k, v)) => Ok(Tag {
            key: k.to_string(),
            value: v.to_string(),
        }),
        None => Err("expected KEY=VALUE".to_string()),
    }
}

pub fn tags_json(tags: &[Tag]) -> Value {
    Value::Array(
        tags.iter()
            .map(|t| serde_json::json!({"key": t.key, "value": t.value}))
            .collect(),
    )
}

/// Builds the JSON patch of per-field flags.
#[derive(Default)]
pub struct Patch(Map<String, Value>);

impl Patch {
    pub fn new() -> Self {
        Self::default()
    }
    /// Set `path` (dot-separated) when `v` is given.
    pub fn set(&mut self, path: &str, v: Option<Value>) -> &mut Self {
        if let Some(v) = v {
            let mut map = &mut self.0;
            let mut parts = path.split('.').peekable();
            while let Some(p) = parts.next() {
                if parts.peek().is_none() {
                    map.insert(p.to_string(), v);
                    break;
                }
                let entry = map
                    .entry(p.to_string())
                    .or_insert_with(|| Value::Object(Map::new()));
                if !entry.is_object() {
                    *entry = Value::Object(Map::new());
                }
                map = entry.as_object_mut().expect("object");
            }
        }
        self
    }
    pub fn str(&mut self, path: &str, v: &Option<String>) -> &mut Self {
        self.set(path, v.clone().map(Value::String))
    }
    pub fn num(&mut self, path: &str, v: Option<u32>) -> &mut Self {
        self.set(path, v.map(Value::from))
    }
    pub fn bool(&mut self, path: &str, v: Option<bool>) -> &mut Self {
        self.set(path, v.map(Value::Bool))
    }
    pub fn tags(&mut self, path: &str, v: &[Tag]) -> &mut Self {
        if v.is_empty() {
            self
        } else {
            self.set(path, Some(tags_json(v)))
        }
    }
    /// Merge over `body` (the flags win).
    pub fn over(self, mut body: Value) -> Value {
        merge(&mut body, Value::Object(self.0));
        body
    }
}

fn merge(base: &mut Value, patch: Value) {
    // Only objects merge. A body that is not an object is kept as it is, so
    // that its 10005 is reported instead of the flags silently taking its place.
    if let (Value::Object(b), Value::Object(p)) = (base, patch) {
        for (k, v) in p {
            match b.get_mut(&k) {
                Some(slot) if slot.is_object() && v.is_object() => merge(slot, v),
                _ => {
                    b.insert(k, v);
                }
            }
        }
    }
}

/// Parse a boolean flag value.
pub fn parse_bool(s: &str) -> std::result::Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err("expected true or false".to_string()),
    }
}

/// Parse `--lock-timeout`: a finite, non-negative number of seconds (at most a
/// year). NaN, infinities and negative values are usage errors, not a panic.
pub fn parse_secs(s: &str) -> std::result::Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=365.0 * 86400.0).contains(&v) => Ok(v),
        Ok(_) => Err("expected a number of seconds from 0 to 31536000".to_string()),
        Err(_) => Err("expected a number of seconds, e.g. 30 or 0.5".to_string()),
    }
}

// `--dry-run` of every create, update, delete and attach (see `api::dry_run`).
#[derive(Debug, Clone, clap::Args)]
pub struct DryRunArg {
    /// Check the request exactly as it would run (every rule, every reference) and print
    /// the record as it would be (a new one's id reads "(new)"); write nothing
    #[arg(long)]
    pub dry_run: bool,
}

// `--idempotency-key` of every create (see `core::idempotency`).
#[derive(Debug, Clone, clap::Args)]
pub struct IdempotencyArg {
    /// Make a retry safe: a create given a KEY used in the last 24 hours for
    /// the same request (same command, ids and body) answers that request's
    /// id and changes nothing; for another request it is refused (21005).
    /// 1-255 ASCII letters, digits or - _ . : ~ + / =
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
}

impl IdempotencyArg {
    /// Refuse a malformed key before anything else is done.
    pub fn check(&self) -> Result<()> {
        match &self.idempotency_key {
            Some(k) => crate::core::idempotency::validate_key("--idempotency-key", k),
            None => Ok(()),
        }
    }
}
