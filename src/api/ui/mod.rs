//! The console: read-only HTML pages under `/ui/` of `payctl serve`
//! (`--no-ui` turns it off), for operators who would rather look than read
//! JSON. Every page is built from the endpoint table's answers (see
//! [`fetch`]), so it shows what the API answers, masked as the API masks.
//!
//! - Pages are in [`PAGES`]: a path, the query the page takes (the one of
//!   the endpoint it lists, so a bad value is refused with the API's words),
//!   and a function rendering it (one file per page). A page is added by
//!   writing its file and its line there.
//! - Every answer carries [`CSP`] and the other headers of [`secure`]; the
//!   HTML has no script, no inline style, nothing from another origin.
//! - Who may look: on a server without keys or token, the API's rules for
//!   what a web page could send (a `Host` that is not loopback, a foreign
//!   `Origin`: 403). On a server with either, a session ([`session`]) opened
//!   by signing in with a key (reader or above) at `/ui/sign-in`; the forms
//!   that sign in and out refuse a foreign `Origin` (403) on top of the
//!   cookie's `SameSite=Strict`.
//! - Only `GET` (and `HEAD`) reach pages; `POST` only signs in and out.

mod assets;
mod events;
mod fetch;
mod html;
mod profile;
mod search;
mod session;
mod transaction;

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use super::Local;
use super::access_log::shown;
use super::auth::{Auth, Caller};
use super::endpoints::{Params, Query, percent_decode, percent_encode};
use crate::core::api_keys;
use crate::error::{Error, Result, code};
use crate::model::api_key::Role;
use crate::output;

pub use fetch::Api;

/// The policy of every console answer: nothing but this server's own
/// stylesheet and images, no script at all, forms posting only here, never
/// framed.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
                       form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// How long a session lasts by default (`serve --ui-session`): a working day.
pub const DEFAULT_SESSION: Duration = Duration::from_secs(8 * 3600);

/// What a page renders to.
pub enum Out {
    Html(maud::Markup),
    /// 303 to this path (a jump to a record).
    Redirect(String),
}

/// What a page is given: the ids of its path, its query typed by the
/// table's rules, and the query's pairs as sent (for its links).
pub struct Input {
    pub ids: Vec<String>,
    pub params: Params,
    pub pairs: Vec<(String, String)>,
    /// The page's own query parameters (see [`Page::own`]).
    pub own: Vec<(String, String)>,
}

/// One page of the console.
pub struct Page {
    /// `{}` for an id (`/ui/customer-profiles/{}`).
    pub path: &'static str,
    /// The query the page takes: the one of the endpoint it lists.
    pub query: Query,
    /// Parameters of the page's own beside that query.
    pub own: &'static [&'static str],
    pub render: fn(&Api, &Input) -> Result<Out>,
}

/// Every page.
pub static PAGES: &[Page] = &[
    Page {
        path: "/ui/",
        query: Query::Profiles,
        own: &["id"],
        render: search::render,
    },
    Page {
        path: "/ui/customer-profiles/{}",
        query: Query::Paging,
        own: &[],
        render: profile::render,
    },
    Page {
        path: "/ui/transactions/{}",
        query: Query::None,
        own: &[],
        render: transaction::render,
    },
    Page {
        path: "/ui/events",
        query: Query::Events,
        own: &[],
        render: events::render,
    },
    Page {
        path: "/ui/webhooks/{}",
        query: Query::Paging,
        own: &[],
        render: events::webhook,
    },
];

/// Whether `path` is the console's.
pub fn owns(path: &str) -> bool {
    path == "/ui" || path.starts_with("/ui/")
}

/// The label of a console path in the server's metrics: its page's
/// template (`/ui/customer-profiles/{}`), or `/ui` for the rest (sign-in,
/// the stylesheet, a path without a page), never a path with ids.
pub fn route_of(path: &str) -> &'static str {
    find(path).map_or("/ui", |(p, _)| p.path)
}

/// Who may look: anyone the API's loopback rules let in (a server without
/// keys or token), or a signed-in key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Open,
    Keyed,
}

/// What `payctl serve` was told about the console.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long a session lasts.
    pub session: Duration,
}

/// The console of one server.
pub struct Console {
    store: Local,
    auth: Arc<Auth>,
    sessions: session::Sessions,
    opts: Options,
    tls: bool,
    hidden: Vec<(String, &'static str)>,
    ui: output::ui::Ui,
    request_timeout: Duration,
}

/// Largest sign-in form read (bytes): a key and a path.
const MAX_FORM: usize = 8 * 1024;

impl Console {
    /// The console of a server configured by `cfg` (None: `--no-ui`),
    /// with the server's credentials.
    pub fn of(cfg: &super::server::Config, auth: &Arc<Auth>) -> Option<Console> {
        let opts = cfg.console.clone()?;
        Some(Console {
            hidden: super::hide::hidden_texts(&cfg.store),
            store: cfg.store.clone(),
            auth: auth.clone(),
            sessions: Default::default(),
            opts,
            tls: cfg.tls.is_some(),
            ui: cfg.ui,
            request_timeout: cfg.request_timeout,
        })
    }

    fn scheme(&self) -> &'static str {
        if self.tls { "https" } else { "http" }
    }

    /// The answer to a request under `/ui`, with the headers of [`secure`].
    pub async fn answer(&self, req: axum::extract::Request) -> Response {
        let mut r = self.route(req).await;
        secure(r.headers_mut());
        r
    }

    async fn route(&self, req: axum::extract::Request) -> Response {
        let (req, body) = req.into_parts();
        let path = req.uri.path().to_string();
        let Some(rest) = path.strip_prefix("/ui").filter(|r| !r.is_empty()) else {
            return redirect("/ui/");
        };
        let method = req.method.clone();
        let reads = method == Method::GET || method == Method::HEAD;
        if let Some(asset) = assets::find(rest) {
            if !reads {
                return not_allowed(&method, &path, "GET, HEAD");
            }
            // The stylesheet and the icon hold nothing of the store: served
            // before sign-in (the sign-in page needs them), under the
            // loopback rules on a server without keys like the rest.
            if let Err(r) = self.mode(&req.headers).await {
                return r;
            }
            return assets::reply(asset);
        }
        let mode = match self.mode(&req.headers).await {
            Err(r) => return r,
            Ok(m) => m,
        };
        match (rest, mode) {
            // Nothing to sign in to or out of on a server without keys.
            ("/sign-in" | "/sign-out", Mode::Open) => redirect("/ui/"),
            ("/sign-in", _) if reads => sign_in_form(&req),
            ("/sign-in", _) if method == Method::POST => self.sign_in(&req, body).await,
            ("/sign-in", _) => not_allowed(&method, &path, "GET, HEAD, POST"),
            ("/sign-out", _) if method == Method::POST => self.sign_out(&req.headers),
            ("/sign-out", _) => not_allowed(&method, &path, "POST"),
            (_, Mode::Open) => self.page(&req, Caller::Open).await,
            (_, Mode::Keyed) => match self.session(&req).await {
                Ok(c) => self.page(&req, c).await,
                Err(r) => r,
            },
        }
    }

    /// Whether the server has keys or a token; without, the request must
    /// pass the API's loopback and Origin rules (403 otherwise).
    async fn mode(&self, headers: &HeaderMap) -> std::result::Result<Mode, Response> {
        let none = HeaderMap::new();
        match self
            .auth
            .caller(&self.store, None, &Method::GET, "/ui/", &none)
            .await
        {
            Ok(Caller::Open) => match super::origin::cross_site(headers, self.scheme()) {
                Ok(()) => Ok(Mode::Open),
                Err(e) => Err(self.fail(&e, None)),
            },
            Ok(_) => Ok(Mode::Keyed),
            Err(e) if e.has_code(code::UNAUTHORIZED) => Ok(Mode::Keyed),
            Err(e) => Err(self.fail(&e, None)),
        }
    }

    /// The caller of a request's session; else the way to the sign-in form.
    async fn session(&self, req: &Parts) -> std::result::Result<Caller, Response> {
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
                    super::access_log::Caller::name(&req.extensions, name);
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
    async fn sign_in(&self, parts: &Parts, body: Body) -> Response {
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
        let bytes =
            match super::body::read(MAX_FORM, self.request_timeout, &parts.headers, body).await {
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
                super::access_log::Caller::name(&parts.extensions, &name);
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
    fn sign_out(&self, headers: &HeaderMap) -> Response {
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
        if let Err(e) = super::origin::same_origin(headers, self.scheme()) {
            // Behind a proxy that terminates TLS, the browser's origin is
            // the proxy's, which it names in X-Forwarded-Proto and
            // X-Forwarded-Host: headers no web page can put on a form post.
            let (proto, proxied) = forwarded(headers, self.scheme()).ok_or(e.clone())?;
            super::origin::same_origin(&proxied, proto).map_err(|_| e)?;
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

    /// A page of [`PAGES`], rendered on a blocking thread (the store is
    /// synchronous).
    async fn page(&self, req: &Parts, caller: Caller) -> Response {
        let path = req.uri.path();
        let method = &req.method;
        let Some((page, ids)) = find(path) else {
            let e = Error::refused(vec![crate::error::ApiError::new(
                code::ROUTE_NOT_FOUND,
                format!("the console has no page at {}", shown(path, 100)),
            )]);
            return self.fail(&e, Some(&caller));
        };
        if method != Method::GET && method != Method::HEAD {
            return not_allowed(method, path, "GET, HEAD");
        }
        let input = match input(page, ids, req.uri.query().unwrap_or("")) {
            Ok(i) => i,
            Err(e) => return self.fail(&e, Some(&caller)),
        };
        let api = Api::new(self.store.clone(), caller.clone());
        let render = page.render;
        match tokio::task::spawn_blocking(move || render(&api, &input)).await {
            Ok(Ok(Out::Html(markup))) => html_reply(StatusCode::OK, markup),
            Ok(Ok(Out::Redirect(to))) => redirect(&to),
            Ok(Err(e)) => self.fail(&e, Some(&caller)),
            Err(e) => self.fail(
                &Error::store(
                    code::STORE_IO,
                    format!("the request failed inside the server: {e}"),
                ),
                Some(&caller),
            ),
        }
    }

    /// The error page of `e`, with the API's status for it.
    fn fail(&self, e: &Error, caller: Option<&Caller>) -> Response {
        self.fail_with(super::status_of(e), e, caller)
    }

    fn fail_with(&self, status: u16, e: &Error, caller: Option<&Caller>) -> Response {
        let e = super::hide::public(&self.hidden, &self.ui, e);
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

/// The sign-in form of `GET /ui/sign-in?next=PATH`.
fn sign_in_form(req: &Parts) -> Response {
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

/// The messages of an error as the API's envelope says them (masked).
fn messages(e: &Error) -> Vec<String> {
    output::error_envelope(e)["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m["message"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The page of `path` and the ids of its path, decoded.
fn find(path: &str) -> Option<(&'static Page, Vec<String>)> {
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    PAGES.iter().find_map(|page| {
        let pattern: Vec<&str> = page.path.split('/').skip(1).collect();
        if pattern.len() != segments.len() {
            return None;
        }
        let mut ids = Vec::new();
        for (p, s) in pattern.iter().zip(&segments) {
            if *p == "{}" {
                let id = percent_decode(s, false).filter(|d| !d.is_empty() && !d.contains('\0'))?;
                ids.push(id);
            } else if p != s {
                return None;
            }
        }
        Some((page, ids))
    })
}

/// The query of a page request, typed: empty values (a form's blank
/// fields) are left out, the page's own parameters set apart, the rest
/// read by the table's rules (400 naming each bad or unknown one).
fn input(page: &Page, ids: Vec<String>, query: &str) -> Result<Input> {
    let mut pairs = Vec::new();
    let mut own = Vec::new();
    for (k, v) in parse_form(query.as_bytes()) {
        if v.is_empty() {
            continue;
        }
        if page.own.contains(&k.as_str()) {
            own.push((k, v));
        } else {
            pairs.push((k, v));
        }
    }
    if query.split('&').any(|p| {
        let (k, v) = p.split_once('=').unwrap_or((p, ""));
        percent_decode(k, true).is_none() || percent_decode(v, true).is_none()
    }) {
        return Err(Error::refused(vec![crate::error::ApiError::new(
            code::INVALID_VALUE,
            "query: not valid UTF-8 once decoded",
        )]));
    }
    let params = Params::from_pairs(&pairs, page.query)?;
    Ok(Input {
        ids,
        params,
        pairs,
        own,
    })
}

/// `a=1&b=2` (a query or a form body) as decoded pairs; a pair that does
/// not decode is left out.
fn parse_form(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    text.split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((percent_decode(k, true)?, percent_decode(v, true)?))
        })
        .collect()
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

/// The headers of every console answer.
fn secure(h: &mut HeaderMap) {
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

fn html_reply(status: StatusCode, markup: maud::Markup) -> Response {
    let mut r = Response::new(Body::from(markup.into_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    r
}

/// 303 See Other to `to` (a path of this server).
fn redirect(to: &str) -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::SEE_OTHER;
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

fn not_allowed(method: &Method, path: &str, allow: &'static str) -> Response {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_found_by_path_and_ids_decoded() {
        let (p, ids) = find("/ui/customer-profiles/csp_a%2Fb").unwrap();
        assert_eq!(p.path, "/ui/customer-profiles/{}");
        assert_eq!(ids, ["csp_a/b"]);
        assert!(find("/ui/").is_some());
        assert!(find("/ui/nowhere").is_none());
        assert!(find("/ui/customer-profiles/").is_none());
        assert!(find("/ui/customer-profiles/%ff").is_none());
        assert_eq!(route_of("/ui/transactions/trn_1"), "/ui/transactions/{}");
        assert_eq!(route_of("/ui/style.css"), "/ui");
    }

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

    #[test]
    fn blank_fields_are_left_out_and_bad_ones_named() {
        let page = &PAGES[0];
        let i = input(page, vec![], "first_name=&last_name=Lovelace&id=&tag=").unwrap();
        assert_eq!(i.params.last_name.as_deref(), Some("Lovelace"));
        assert_eq!(i.params.first_name, None);
        let e = input(page, vec![], "page_size=abc").err().unwrap();
        assert!(messages(&e)[0].contains("page_size"), "{:?}", messages(&e));
        let e = input(page, vec![], "colour=red").err().unwrap();
        assert!(messages(&e)[0].contains("colour"));
    }
}
