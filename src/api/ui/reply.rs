//! The console's answers: an error page with the API's status and words,
//! an HTML page, a redirect, a 405, and the headers every answer carries.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use super::{CSP, Console, html};
use crate::api::access_log::shown;
use crate::api::auth::Caller;
use crate::error::Error;
use crate::output;

impl Console {
    /// The error page of `e`, with the API's status for it.
    pub(super) fn fail(&self, e: &Error, caller: Option<&Caller>) -> Response {
        self.fail_with(crate::api::status_of(e), e, caller)
    }

    pub(super) fn fail_with(&self, status: u16, e: &Error, caller: Option<&Caller>) -> Response {
        let e = crate::api::hide::public(&self.hidden, &self.ui, e);
        let title = match status {
            400 => "Bad request",
            401 => "Not signed in",
            403 => "Refused",
            404 => "Not found",
            405 => "Method not allowed",
            413 => "Too large",
            415 => "Unsupported form",
            429 => "Too many requests",
            503 => "The store is busy",
            _ => "The store cannot answer",
        };
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut r = html_reply(
            status,
            html::error_page(status.as_u16(), title, &messages(&e), caller),
        );
        if status == StatusCode::SERVICE_UNAVAILABLE {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        r
    }
}

/// The messages of an error as the API's envelope says them (masked).
pub(super) fn messages(e: &Error) -> Vec<String> {
    output::error_envelope(e)["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m["message"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The headers of every console answer.
pub(super) fn secure(h: &mut HeaderMap) {
    let set = |h: &mut HeaderMap, k: &'static str, v: &'static str| {
        h.insert(k, HeaderValue::from_static(v));
    };
    set(h, "content-security-policy", CSP);
    set(h, "x-frame-options", "DENY");
    set(h, "x-content-type-options", "nosniff");
    set(h, "referrer-policy", "no-referrer");
    set(h, "cache-control", "no-store");
    set(h, "cross-origin-resource-policy", "same-origin");
}

pub(super) fn html_reply(status: StatusCode, markup: maud::Markup) -> Response {
    let mut r = Response::new(Body::from(markup.into_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

/// 303 See Other to `to` (a path of this server).
pub(super) fn redirect(to: &str) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

pub(super) fn not_allowed(method: &Method, path: &str, allow: &'static str) -> Response {
    let text = format!(
        "{} is not served at {}; allowed: {allow}",
        shown(method.as_str(), 16),
        shown(path, 100)
    );
    let mut r = html_reply(
        StatusCode::METHOD_NOT_ALLOWED,
        html::error_page(405, "Method not allowed", &[text], None),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}
