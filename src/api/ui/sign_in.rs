//! Signing in and out of the console on a server with keys or a token: the
//! session a request carries, the sign-in form and its post, signing out,
//! and the same-site rules those forms are held to (a proxy in front
//! included).

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use super::pages::parse_form;
use super::reply::{html_reply, messages, redirect};
use super::{Console, html, session};
use crate::api::access_log::shown;
use crate::api::auth::Caller;
use crate::api::endpoints::{percent_decode, percent_encode};
use crate::core::api_keys;
use crate::error::{Error, Result, code};
use crate::model::api_key::Role;

/// Largest sign-in form read (bytes): a key and a path.
const MAX_FORM: usize = 8 * 1024;
impl Console {
    /// The caller of a request's session; else the way to the sign-in form.
    pub(super) async fn session(&self, req: &Parts) -> std::result::Result<Caller, Response> {
        let target = match req.uri.query() {
            Some(q) => format!("{}?{q}", req.uri.path()),
            None => req.uri.path().to_string(),
        };
        let to_sign_in = || redirect(&format!("/ui/sign-in?next={}", percent_encode(&target)));
        let Some(token) = session::token_of(&req.headers) else {
            return Err(to_sign_in());
        };
        let Some(hash) = self.sessions.key_hash(&token) else {
            return Err(to_sign_in());
        };
        match self.auth.by_hash(&self.store, &hash).await {
            Ok(c @ Caller::Key { .. }) => {
                if let Caller::Key { name, .. } = &c {
                    crate::api::access_log::Caller::name(&req.extensions, name);
                }
                Ok(c)
            }
            Ok(_) => Err(to_sign_in()),
            Err(e) if e.has_code(code::UNAUTHORIZED) => {
                // Revoked or expired since: the session ends with its key.
                self.sessions.end(&token);
                Err(to_sign_in())
            }
            Err(e) => Err(self.fail(&e, None)),
        }
    }

    /// `POST /ui/sign-in`: a key of this server (reader or above) opens a
    /// session and sets its cookie; anything else answers the form again.
    pub(super) async fn sign_in(&self, parts: &Parts, body: Body) -> Response {
        if let Err(e) = self.same_site(&parts.headers) {
            return self.fail(&e, None);
        }
        let form_type = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .is_some_and(|m| {
                m.trim()
                    .eq_ignore_ascii_case("application/x-www-form-urlencoded")
            });
        if !form_type {
            let e = Error::refused(vec![crate::error::ApiError::new(
                code::MALFORMED,
                "header Content-Type: the sign-in form is sent as \
                 application/x-www-form-urlencoded",
            )]);
            return self.fail_with(415, &e, None);
        }
        let bytes = match crate::api::body::read(
            MAX_FORM,
            self.request_timeout,
            &parts.headers,
            body,
        )
        .await
        {
            Ok(b) => b,
            Err(e) => return self.fail(&e, None),
        };
        let form = parse_form(&bytes);
        let field = |name: &str| {
            form.iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        let (key, next) = (field("key"), safe_next(&field("next")));
        let again = |problem: &str, status: StatusCode| {
            html_reply(status, html::sign_in(Some(problem), &next))
        };
        let mut headers = HeaderMap::new();
        match HeaderValue::from_str(&format!("Bearer {key}")) {
            Ok(v) if !key.is_empty() => {
                headers.insert(header::AUTHORIZATION, v);
            }
            _ => return again("Enter an API key of this server.", StatusCode::UNAUTHORIZED),
        }
        match self
            .auth
            .caller(&self.store, None, &Method::GET, "/ui/", &headers)
            .await
        {
            Ok(Caller::Key { name, role }) if role >= Role::Reader => {
                crate::api::access_log::Caller::name(&parts.extensions, &name);
                let token = self
                    .sessions
                    .open(api_keys::hash(key.as_bytes()), self.opts.session);
                let mut r = redirect(&next);
                if let Ok(v) = HeaderValue::from_str(&session::set_cookie(
                    &token,
                    self.opts.session,
                    self.secure_cookie(&parts.headers),
                )) {
                    r.headers_mut().insert(header::SET_COOKIE, v);
                }
                r
            }
            Ok(Caller::Open) => redirect("/ui/"),
            Ok(_) => again("That credential cannot sign in.", StatusCode::FORBIDDEN),
            Err(e) if e.has_code(code::UNAUTHORIZED) => {
                let words = messages(&e).join(" ");
                again(&words, StatusCode::UNAUTHORIZED)
            }
            Err(e) => self.fail(&e, None),
        }
    }

    /// `POST /ui/sign-out`: the session ends and its cookie is removed.
    pub(super) fn sign_out(&self, headers: &HeaderMap) -> Response {
        if let Err(e) = self.same_site(headers) {
            return self.fail(&e, None);
        }
        if let Some(token) = session::token_of(headers) {
            self.sessions.end(&token);
        }
        let mut r = redirect("/ui/sign-in");
        if let Ok(v) = HeaderValue::from_str(&session::clear_cookie(self.secure_cookie(headers))) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        r
    }

    /// A form post another site started is refused (403, 10011): a foreign
    /// `Origin`, or a browser's `Sec-Fetch-Site` saying another site.
    fn same_site(&self, headers: &HeaderMap) -> Result<()> {
        if let Err(e) = crate::api::origin::same_origin(headers, self.scheme()) {
            // Behind a proxy that terminates TLS, the browser's origin is
            // the proxy's, which it names in X-Forwarded-Proto and
            // X-Forwarded-Host: headers no web page can put on a form post.
            let (proto, proxied) = forwarded(headers, self.scheme()).ok_or(e.clone())?;
            crate::api::origin::same_origin(&proxied, proto).map_err(|_| e)?;
        }
        let site = headers
            .get("sec-fetch-site")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("same-origin");
        if !matches!(site, "same-origin" | "none") {
            return Err(Error::refused(vec![crate::error::ApiError::new(
                code::CROSS_SITE,
                format!(
                    "header Sec-Fetch-Site: `{}`; the console's forms are posted from its own \
                     pages only",
                    shown(site, 40)
                ),
            )]));
        }
        Ok(())
    }

    /// Whether the browser reached this server over HTTPS: its own TLS, or
    /// a proxy's that says so (`X-Forwarded-Proto: https`); the session's
    /// cookie is then `Secure`.
    fn secure_cookie(&self, headers: &HeaderMap) -> bool {
        self.tls || forwarded(headers, "http").is_some_and(|(proto, _)| proto == "https")
    }
}

/// The sign-in form of `GET /ui/sign-in?next=PATH`.
pub(super) fn sign_in_form(req: &Parts) -> Response {
    let next = req
        .uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| *k == "next")
        .and_then(|(_, v)| percent_decode(v, true))
        .map(|n| safe_next(&n))
        .unwrap_or("/ui/".into());
    html_reply(StatusCode::OK, html::sign_in(None, &next))
}

/// What a proxy in front says of the browser's request: the scheme of
/// `X-Forwarded-Proto` (`http` or `https`, else this server's) and the
/// headers with `X-Forwarded-Host` as their `Host`; None when it says
/// nothing.
fn forwarded(headers: &HeaderMap, own: &'static str) -> Option<(&'static str, HeaderMap)> {
    let proto = headers.get("x-forwarded-proto").map(|v| v.as_bytes());
    let host = headers.get("x-forwarded-host");
    let proto = match proto {
        None if host.is_none() => return None,
        Some(p) if p.eq_ignore_ascii_case(b"https") => "https",
        Some(p) if p.eq_ignore_ascii_case(b"http") => "http",
        Some(_) => return None,
        None => own,
    };
    let mut h = headers.clone();
    if let Some(host) = host {
        h.insert(header::HOST, host.clone());
    }
    Some((proto, h))
}

/// Where to go after signing in: a console path of this server only (an
/// address elsewhere, or `//host`, would make the form an open redirect).
fn safe_next(next: &str) -> String {
    let ok = next.starts_with("/ui/")
        && next.len() <= 2048
        && !next.contains("//")
        && !next.contains('\\')
        && next.bytes().all(|b| b.is_ascii_graphic());
    if ok { next.to_string() } else { "/ui/".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_console_paths_are_gone_to_after_sign_in() {
        assert_eq!(
            safe_next("/ui/customer-profiles/x?a=1"),
            "/ui/customer-profiles/x?a=1"
        );
        for bad in [
            "https://evil.example/",
            "//evil.example",
            "/ui//evil",
            "/other",
            "/ui/\\x",
        ] {
            assert_eq!(safe_next(bad), "/ui/", "{bad}");
        }
    }
}
