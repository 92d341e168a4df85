//! The console's page frame and the pieces every page is made of: status
//! badges, definition lists, times, amounts, tags, pagers, the error and
//! sign-in pages. maud escapes every value spliced in (`(value)`); no
//! template here uses `PreEscaped`, no element carries a `style` or an
//! event attribute, and nothing is loaded from another origin, so the
//! Content-Security-Policy of [`super::CSP`] holds every page.

use maud::{DOCTYPE, Markup, html};
use serde_json::Value;

use super::fetch::text;
use crate::api::auth::Caller;
use crate::api::endpoints::percent_encode;

/// Which entry of the navigation a page belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Customers,
    Events,
    None,
}

/// Who is looking, as the page's header says it.
pub fn who(caller: &Caller) -> Markup {
    html! {
        @match caller {
            Caller::Key { name, role } => {
                span.who-name title="Signed in with this API key" { (name) " · " (role.as_str()) }
                form.sign-out method="post" action="/ui/sign-out" {
                    button type="submit" { "Sign out" }
                }
            }
            _ => span.who-name title="A server without API keys answers loopback requests only" { "local (no keys)" },
        }
    }
}

/// A whole page: `title`, the header with its navigation, `body`.
pub fn layout(title: &str, caller: Option<&Caller>, nav: Nav, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="referrer" content="no-referrer";
                meta name="color-scheme" content="light";
                title { (title) " · payctl" }
                link rel="stylesheet" href="/ui/style.css";
                link rel="icon" href="/ui/favicon.svg" type="image/svg+xml";
            }
            body {
                header.top {
                    a.brand href="/ui/" { span.logo { "p" } "payctl" }
                    @if let Some(c) = caller {
                        nav {
                            a href="/ui/" class=[(nav == Nav::Customers).then_some("active")] { "Customers" }
                            a href="/ui/events" class=[(nav == Nav::Events).then_some("active")] { "Events" }
                        }
                        div.who { (who(c)) }
                    }
                }
                main { (body) }
                footer { "payctl console · read-only · every value as the API answers it, masked" }
            }
        }
    }
}

/// The colour family of a status name.
pub fn tone(name: &str) -> &'static str {
    match name.to_ascii_lowercase().as_str() {
        "completed" | "attached" | "active" | "succeeded" | "delivered" => "ok",
        "failed" | "rejected" => "bad",
        "processing" => "info",
        "pending" | "created" => "wait",
        _ => "neutral",
    }
}

/// A status as a coloured pill, with its id for those who know the numbers.
pub fn badge(name: &str, id: &Value) -> Markup {
    html! {
        span class={ "badge " (tone(name)) } title={ "status " (text(id)) } { (name) }
    }
}

/// A plain pill (Default, Locked).
pub fn pill(label: &str) -> Markup {
    html! { span.badge.neutral { (label) } }
}

/// A time of the store (`2026-11-27T10:00:00.123456`, UTC) as people read it.
pub fn when(v: &Value) -> Markup {
    let raw = text(v);
    let shown = raw
        .split_once('.')
        .map_or(raw.as_str(), |(s, _)| s)
        .replace('T', " ");
    html! {
        @if raw.is_empty() { span.muted { "—" } }
        @else { time datetime=(raw) { (shown) " " span.muted { "UTC" } } }
    }
}

/// A record's id, monospaced.
pub fn id(v: &str) -> Markup {
    html! { code.id { (v) } }
}

/// An amount with its exact digits, written with two decimals.
pub fn amount(v: &Value) -> String {
    amount_of(&text(v))
}

/// [`amount`] of an amount's text.
pub fn amount_of(t: &str) -> String {
    match t.parse::<rust_decimal::Decimal>() {
        Ok(d) if d.scale() <= 2 => format!("{d:.2}"),
        _ => t.to_string(),
    }
}

/// Tags (`[{"key", "value"}]`) as chips.
pub fn tags(v: &Value) -> Markup {
    let list = v.as_array().cloned().unwrap_or_default();
    html! {
        @if list.is_empty() { span.muted { "—" } }
        @else {
            span.tags {
                @for t in &list {
                    span.tag { (text(&t["key"])) span.tag-sep { ":" } (text(&t["value"])) }
                }
            }
        }
    }
}

/// A value, or a muted dash when it is empty.
pub fn or_dash(s: &str) -> Markup {
    html! {
        @if s.is_empty() { span.muted { "—" } } @else { (s) }
    }
}

/// A definition list of label and value.
pub fn fields(rows: Vec<(&str, Markup)>) -> Markup {
    html! {
        dl.fields {
            @for (label, value) in rows {
                div { dt { (label) } dd { (value) } }
            }
        }
    }
}

/// A section with a heading, a count, and its content.
pub fn section(title: &str, count: Option<usize>, body: Markup) -> Markup {
    html! {
        section.card {
            h2 { (title) @if let Some(n) = count { " " span.count { (n) } } }
            (body)
        }
    }
}

/// A note in a section (nothing to show, more than shown).
pub fn empty(what: &str) -> Markup {
    html! { p.empty { (what) } }
}

/// `/ui/customer-profiles/{id}` and the like, the id percent-encoded.
pub fn link(prefix: &str, id: &str) -> String {
    format!("{prefix}/{}", percent_encode(id))
}

/// A query string of `pairs`, percent-encoded (`?a=1&b=2`, or empty).
pub fn query(pairs: &[(String, String)]) -> String {
    let mut q = String::new();
    for (k, v) in pairs {
        q.push(if q.is_empty() { '?' } else { '&' });
        q.push_str(&percent_encode(k));
        q.push('=');
        q.push_str(&percent_encode(v));
    }
    q
}

/// The pager of a list: which records these are, and the links to the
/// previous and next pages (`base` and `pairs`: the page's own query
/// without its paging).
pub fn pager(
    paging: &crate::core::paging::Paging,
    shown: usize,
    base: &str,
    pairs: &[(String, String)],
) -> Markup {
    let first = (paging.page_number.saturating_sub(1) as usize) * paging.page_size as usize;
    let with = |extra: Vec<(String, String)>| {
        let mut all = pairs.to_vec();
        all.extend(extra);
        format!("{base}{}", query(&all))
    };
    let size = |mut v: Vec<(String, String)>| {
        if paging.page_size != crate::core::paging::DEFAULT_PAGE_SIZE {
            v.push(("page_size".to_string(), paging.page_size.to_string()));
        }
        v
    };
    let prev = (paging.page_number > 1).then(|| {
        with(size(vec![(
            "page_number".to_string(),
            (paging.page_number - 1).to_string(),
        )]))
    });
    let next = paging
        .last_evaluated_key
        .as_ref()
        .map(|k| with(size(vec![("last_evaluated_key".to_string(), k.clone())])));
    html! {
        nav.pager aria-label="pages" {
            span.muted {
                @if shown == 0 { "none of " (paging.total_count) }
                @else { (first + 1) "–" (first + shown) " of " (paging.total_count) }
            }
            span.pages {
                @if let Some(p) = prev { a.button href=(p) rel="prev" { "← Previous" } }
                @if let Some(n) = next { a.button href=(n) rel="next" { "Next →" } }
            }
        }
    }
}

/// The page of a failure: its status, a title, and the API's messages
/// (masked, as the envelope's).
pub fn error_page(
    status: u16,
    title: &str,
    messages: &[String],
    caller: Option<&Caller>,
) -> Markup {
    layout(
        title,
        caller,
        Nav::None,
        html! {
            section.card.error {
                p.status { (status) }
                h1 { (title) }
                @for m in messages { p.message { (m) } }
                p { a href="/ui/" { "Back to the customers" } }
            }
        },
    )
}

/// The sign-in form; `problem` says why the last try failed, `next` is
/// where to go once signed in.
pub fn sign_in(problem: Option<&str>, next: &str) -> Markup {
    layout(
        "Sign in",
        None,
        Nav::None,
        html! {
            section.card.sign-in {
                h1 { "Sign in" }
                p.muted { "With an API key of this server (reader or above), as "
                    code { "payctl key create NAME --role reader" } " printed it." }
                @if let Some(p) = problem { p.message role="alert" { (p) } }
                form method="post" action="/ui/sign-in" {
                    label for="key" { "API key" }
                    input #key type="password" name="key" autocomplete="off" required
                        placeholder="pk_…" spellcheck="false";
                    input type="hidden" name="next" value=(next);
                    button.primary type="submit" { "Sign in" }
                }
            }
        },
    )
}
