//! What a server without a token (or keys) refuses because a web page
//! could have sent it (403, 10011): a `Host` that is not loopback (DNS
//! rebinding) and an `Origin` other than the server's own: its scheme
//! (`http`, or `https` with `--tls-cert`) and the `Host` it was reached on.

use axum::http::{HeaderMap, header};

use super::access_log::shown;
use crate::error::{ApiError, Error, Result, code};

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}

/// A `Host` (or an origin's host) as `(name or address, port)`, lower case,
/// without a trailing dot; None when it is not one.
fn host_port(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim().to_ascii_lowercase();
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{h}]"), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (text.clone(), None),
        }
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    let host = host.strip_suffix('.').unwrap_or(&host).to_string();
    (!host.is_empty()).then_some((host, port))
}

/// `localhost`, `*.localhost`, 127.0.0.0/8 or `[::1]`.
fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok_and(|a| {
            a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        });
    }
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|a| a.is_loopback())
}

/// A server without a token refuses what a web page could send (403,
/// 10011): a `Host` that is not loopback (a DNS rebinding: a name of the
/// page's that now resolves to 127.0.0.1) and an `Origin` other than the
/// server's own, `scheme://` + the `Host` it was reached on (`null`
/// included; `scheme` is `http` or `https`). Requests without `Origin` (curl, remote mode) pass.
pub fn cross_site(headers: &HeaderMap, scheme: &str) -> Result<()> {
    let deny = |what: String| refused(code::CROSS_SITE, what);
    let why = "a server without --token answers only what no web page can send; \
               give the server a --token-file to be reached otherwise";
    if let Some(v) = headers.get(header::HOST) {
        let text = v.to_str().unwrap_or("");
        if !host_port(text).is_some_and(|(h, _)| is_loopback_host(&h)) {
            return Err(deny(format!(
                "header Host: `{}` is not a loopback name or address (localhost, \
                 *.localhost, 127.0.0.0/8, [::1]); {why}",
                shown(text, 100)
            )));
        }
    }
    same_origin(headers, scheme).map_err(|mut e| {
        for a in &mut e.errors {
            a.message = format!("{}; {why}", a.message);
        }
        e
    })
}

/// An `Origin` other than the server's own, `scheme://` + the `Host` it was
/// reached on (`null` included), is refused (403, 10011), whatever the
/// server's credentials: what the console's forms (sign-in, sign-out)
/// require on top of `SameSite`. Requests without `Origin` pass.
pub fn same_origin(headers: &HeaderMap, scheme: &str) -> Result<()> {
    let deny = |what: String| refused(code::CROSS_SITE, what);
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .and_then(host_port);
    let text = origin.to_str().unwrap_or("");
    let default_port = if scheme == "https" { 443 } else { 80 };
    let own = |h: &(String, Option<u16>)| {
        let o = text
            .split_once("://")
            .filter(|(s, rest)| s.eq_ignore_ascii_case(scheme) && !rest.contains('/'))
            .and_then(|(_, rest)| host_port(rest));
        o.is_some_and(|(oh, op)| {
            oh == h.0 && op.unwrap_or(default_port) == h.1.unwrap_or(default_port)
        })
    };
    if host.as_ref().is_some_and(own) {
        return Ok(());
    }
    Err(deny(format!(
        "header Origin: `{}` is not this server's own origin ({})",
        shown(text, 100),
        match headers.get(header::HOST).and_then(|v| v.to_str().ok()) {
            Some(h) => format!("{scheme}://{}", shown(h, 100)),
            None => "the request has no Host".into(),
        }
    )))
}
