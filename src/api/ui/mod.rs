//! The console: read-only HTML pages under `/ui/` of `payctl serve`
//! (`--no-ui` turns it off), for operators who would rather look than read
//! JSON. Every page is built from the endpoint table's answers (see
//! [`fetch`]), so it shows what the API answers, masked as the API masks.
//!
//! - Pages are in [`PAGES`]: a path, the query the page takes (the one of
//!   the endpoint it lists, so a bad value is refused with the API's words),
//!   and a function rendering it (one file per page). A page is added by
//!   writing its file and its line there.
//! - Every answer carries [`CSP`] and the other headers of [`reply::secure`];
//!   the HTML has no script, no inline style, nothing from another origin.
//! - Who may look: on a server without keys or token, the API's rules for
//!   what a web page could send (a `Host` that is not loopback, a foreign
//!   `Origin`: 403). On a server with either, a session ([`session`]) opened
//!   by signing in with a key (reader or above) at `/ui/sign-in`; the forms
//!   that sign in and out refuse a foreign `Origin` (403) on top of the
//!   cookie's `SameSite=Strict`.
//! - Only `GET` (and `HEAD`) reach pages; `POST` only signs in and out.
//!
//! This file holds the console itself: what `serve` tells it, who may look,
//! and the routing of a request to a page (`pages.rs`), the sign-in forms
//! (`sign_in.rs`) or an asset; `reply.rs` builds the answers.

mod assets;
mod events;
mod fetch;
mod html;
mod pages;
mod profile;
mod reply;
mod search;
mod session;
mod sign_in;
mod transaction;

use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, Method};
use axum::response::Response;

use super::Local;
use super::auth::{Auth, Caller};
use crate::error::code;
use crate::output;
use reply::{not_allowed, redirect, secure};
use sign_in::sign_in_form;

pub use fetch::Api;
pub use pages::{Input, Out, PAGES, Page, owns, route_of};

/// The policy of every console answer: nothing but this server's own
/// stylesheet and images, no script at all, forms posting only here, never
/// framed.
pub const CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
                       form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// How long a session lasts by default (`serve --ui-session`): a working day.
pub const DEFAULT_SESSION: Duration = Duration::from_secs(8 * 3600);

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
}
