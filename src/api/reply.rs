//! The answers of `payctl serve` as HTTP: every one an envelope of JSON
//! that no cache may keep, a failure's with the status of
//! [`super::status_of`] and the headers that go with it.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use serde_json::Value;

use crate::error::Error;
use crate::output;

/// Every answer is an envelope; none may be kept by a cache (they carry
/// records, or say what happened to a request).
pub(super) fn json_reply(status: u16, body: &Value) -> axum::response::Response {
    bytes_reply(status, serde_json::to_vec(body).unwrap_or_default().into())
}

/// [`json_reply`] of an envelope already serialized.
pub(super) fn bytes_reply(status: u16, body: axum::body::Bytes) -> axum::response::Response {
    let mut r = axum::response::Response::new(Body::from(body));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

pub(super) fn error_reply(err: &Error) -> axum::response::Response {
    let status = super::status_of(err);
    let mut r = json_reply(status, &output::error_envelope(err));
    // Busy, or over --rate-limit (whose buckets of N a second hold a
    // request again within 1/N s): a second is enough.
    if status == 503 || status == 429 {
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    if status == 401 {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"payctl\""),
        );
    }
    r
}
