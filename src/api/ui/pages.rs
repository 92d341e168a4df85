//! The console's pages: what a page is given and renders to, the table of
//! every page ([`PAGES`]), and how a request finds its page and is rendered.

use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::Response;

use super::Console;
use super::fetch::Api;
use super::reply::{html_reply, not_allowed, redirect};
use super::{events, profile, search, transaction};
use crate::api::access_log::shown;
use crate::api::auth::Caller;
use crate::api::endpoints::{Params, Query, percent_decode};
use crate::error::{Error, Result, code};

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

impl Console {
    /// A page of [`PAGES`], rendered on a blocking thread (the store is
    /// synchronous).
    pub(super) async fn page(&self, req: &Parts, caller: Caller) -> Response {
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
pub(super) fn parse_form(bytes: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(bytes);
    text.split('&')
        .filter(|p| !p.is_empty())
        .filter_map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Some((percent_decode(k, true)?, percent_decode(v, true)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::reply::messages;
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
