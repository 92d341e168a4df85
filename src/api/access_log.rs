//! `payctl serve`'s access log and the request's id: one line per request
//! on stderr, as text (`TS METHOD PATH STATUS 1.2ms`) or as one JSON object
//! (`--log-format json`), and `X-Request-Id` on every answer the handler
//! writes, the client's when it sent a usable one.
//!
//! Paths are logged as the messages show ids (digit runs masked, see
//! [`masked_path`]); nothing else of the request is logged, so no secret
//! (a token, a body) can reach the log.
//!
//! The credential's name (`key`) is set by the authentication at the edge
//! through the [`Caller`] that [`Seen::begin`] puts in the request's
//! extensions: `token` for serve's own `--token`, and a key's name once keys
//! exist. Unset, the JSON line says `null`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::http::HeaderValue;
use serde_json::json;

use super::endpoints;
use crate::output;

/// The header that carries the request's id, both ways.
pub const REQUEST_ID: &str = "x-request-id";
/// Longest `X-Request-Id` taken from a client.
pub const MAX_REQUEST_ID: usize = 128;

/// `--log-format`: how an access-log line is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-01-02T03:04:05.678Z GET /customer-profiles 200 1.2ms`
    #[default]
    Text,
    /// One JSON object per line: ts, method, path, status, ms, key, request_id
    Json,
}

/// The name of the credential a request was let in with, set once by the
/// check that let it in (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Caller(Arc<Mutex<Option<String>>>);

impl Caller {
    /// Name the credential of the request whose extensions hold a `Caller`.
    pub fn name(extensions: &axum::http::Extensions, name: &str) {
        if let Some(c) = extensions.get::<Caller>() {
            *c.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(name.to_string());
        }
    }

    fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// What the log line of a request needs from it, taken before it is answered.
pub struct Seen {
    start: Instant,
    pub method: String,
    pub path: String,
    pub request_id: String,
    caller: Caller,
}

impl Seen {
    /// Note the request and give it its id and its [`Caller`].
    pub fn begin(req: &mut axum::extract::Request) -> Seen {
        let request_id = req
            .headers()
            .get(REQUEST_ID)
            .and_then(|v| usable_id(v.as_bytes()))
            .unwrap_or_else(new_id);
        let caller = Caller::default();
        req.extensions_mut().insert(caller.clone());
        Seen {
            start: Instant::now(),
            method: req.method().as_str().to_string(),
            path: req.uri().path().to_string(),
            request_id,
            caller,
        }
    }

    pub fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }

    /// Put the id on the answer; the line on stderr unless `quiet`.
    pub fn end(
        &self,
        resp: &mut axum::response::Response,
        format: LogFormat,
        quiet: bool,
        ui: &output::ui::Ui,
    ) {
        if let Ok(v) = HeaderValue::from_str(&self.request_id) {
            resp.headers_mut().insert(REQUEST_ID, v);
        }
        if !quiet {
            ui.err_line(self.line(resp.status().as_u16(), format));
        }
    }

    fn line(&self, status: u16, format: LogFormat) -> String {
        let ts = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let ms = self.elapsed().as_secs_f64() * 1000.0;
        match format {
            LogFormat::Text => format!(
                "{ts} {} {} {status} {ms:.1}ms",
                shown(&self.method, 16),
                shown(&masked_path(&self.path), 200)
            ),
            LogFormat::Json => json!({
                "ts": ts,
                "method": cut(&self.method, 16),
                "path": cut(&masked_path(&self.path), 200),
                "status": status,
                "ms": (ms * 1000.0).round() / 1000.0,
                "key": self.caller.get(),
                "request_id": self.request_id,
            })
            .to_string(),
        }
    }
}

/// A client's `X-Request-Id` when it is 1-[`MAX_REQUEST_ID`] visible ASCII
/// characters (no space): anything else could break a log line or a header
/// a proxy copies it into, and is replaced by a new id.
fn usable_id(v: &[u8]) -> Option<String> {
    let ok = !v.is_empty() && v.len() <= MAX_REQUEST_ID && v.iter().all(|b| b.is_ascii_graphic());
    ok.then(|| String::from_utf8_lossy(v).into_owned())
}

/// 16 random bytes as 32 hex digits.
fn new_id() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes: [u8; 16] = rand::random();
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(HEX[usize::from(b >> 4)] as char);
        id.push(HEX[usize::from(b & 15)] as char);
    }
    id
}

/// At most `max` characters of `s`, `…` after a cut.
fn cut(s: &str, max: usize) -> String {
    let mut t: String = s.chars().take(max).collect();
    if s.chars().count() > max {
        t.push('…');
    }
    t
}

/// Text of a client's, shortened and escaped for a log line.
pub fn shown(s: &str, max: usize) -> String {
    let mut t: String = s
        .chars()
        .take(max)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if s.chars().count() > max {
        t.push('…');
    }
    t
}

/// A requested path as the access log shows it: each segment as sent,
/// unless, once decoded, it has a run of digits that the messages mask (see
/// [`crate::error::shown_id`]): then that segment as they show it.
pub fn masked_path(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let decoded = endpoints::percent_decode(seg, false).unwrap_or_else(|| seg.to_string());
            let masked = output::mask::mask_text(&decoded);
            if masked == decoded {
                seg.to_string()
            } else {
                masked
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_visible_ascii_of_1_to_128() {
        assert_eq!(usable_id(b"abc-123").as_deref(), Some("abc-123"));
        assert_eq!(usable_id(&[b'a'; 128]).map(|s| s.len()), Some(128));
        assert_eq!(usable_id(&[b'a'; 129]), None);
        assert_eq!(usable_id(b""), None);
        assert_eq!(usable_id(b"a b"), None);
        assert_eq!(usable_id("é".as_bytes()), None);
        let id = new_id();
        assert_eq!(id.len(), 32);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(id, new_id());
    }
}
