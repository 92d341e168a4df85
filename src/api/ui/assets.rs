//! The console's two files besides its pages, compiled in: the stylesheet
//! (the Content-Security-Policy allows no inline style, so every rule is
//! here) and the icon.

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;

/// A file served under `/ui`.
pub struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const ASSETS: &[Asset] = &[
    Asset {
        path: "/style.css",
        content_type: "text/css; charset=utf-8",
        body: include_str!("style.css"),
    },
    Asset {
        path: "/favicon.svg",
        content_type: "image/svg+xml",
        body: include_str!("favicon.svg"),
    },
];

/// The asset at `path` (under `/ui`), if any.
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

pub fn reply(a: &Asset) -> Response {
    let mut r = Response::new(Body::from(a.body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(a.content_type),
    );
    r
}
