//! A request's body as `payctl serve` reads it: JSON's `Content-Type` only
//! (415 otherwise), at most `--max-body` bytes (413), within
//! `--request-timeout`; and a header taken as text.

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, header};
use http_body_util::BodyExt;

use super::access_log::shown;
use crate::error::{ApiError, Error, Result, code};

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}

/// The 415 (10005) of a body sent as anything but JSON: only
/// `application/json` or `application/*+json` (any parameters) is read. An
/// absent `Content-Type` is refused too: a web page can send a body without
/// one to any address (`fetch` with `mode: "no-cors"`), never with JSON's.
pub fn not_json(headers: &HeaderMap) -> Option<Error> {
    if !headers.contains_key(header::CONTENT_TYPE) {
        return Some(refused(
            code::MALFORMED,
            "header Content-Type: missing; send the body with `Content-Type: application/json`",
        ));
    }
    headers
        .get_all(header::CONTENT_TYPE)
        .iter()
        .find_map(not_json_type)
}

fn not_json_type(v: &HeaderValue) -> Option<Error> {
    let media = v
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let json = media == "application/json"
        || (media.starts_with("application/") && media.ends_with("+json"));
    if json {
        return None;
    }
    Some(refused(
        code::MALFORMED,
        format!(
            "header Content-Type: `{}` is not JSON; send the body as `Content-Type: application/json`",
            shown(v.to_str().unwrap_or("(not visible ASCII)"), 100)
        ),
    ))
}

/// The body, at most `--max-body` bytes (413), within the request timeout.
pub async fn read(
    max: usize,
    timeout: Duration,
    headers: &HeaderMap,
    body: Body,
) -> Result<Vec<u8>> {
    let too_large = || {
        refused(
            code::BODY_TOO_LARGE,
            format!("the request body is larger than the server's --max-body of {max} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let read = async {
        let mut body = body;
        let mut buf = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame
                .map_err(|e| refused(code::MALFORMED, format!("body: could not be read ({e})")))?;
            if let Ok(data) = frame.into_data() {
                if buf.len() + data.len() > max {
                    return Err(too_large());
                }
                buf.extend_from_slice(&data);
            }
        }
        Ok(buf)
    };
    match tokio::time::timeout(timeout, read).await {
        Ok(r) => r,
        Err(_) => Err(refused(
            code::MALFORMED,
            format!("body: not received within {} s", timeout.as_secs_f64()),
        )),
    }
}

/// A header as text: None when absent, 400 when not visible ASCII or too long.
pub fn header_text(headers: &HeaderMap, name: &str, max: usize) -> Result<Option<String>> {
    let Some(v) = headers.get(name) else {
        return Ok(None);
    };
    let text = v
        .to_str()
        .ok()
        .filter(|t| !t.is_empty() && t.len() <= max && t.chars().all(|c| !c.is_control()))
        .ok_or_else(|| {
            refused(
                code::INVALID_VALUE,
                format!("header {name}: must be 1-{max} visible ASCII characters"),
            )
        })?;
    Ok(Some(text.trim().to_string()))
}
