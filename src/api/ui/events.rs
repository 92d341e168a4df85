//! The event log in the console: `/ui/events` (the recent events, newest
//! page first, filtered by type and record as `GET /events` filters them),
//! a record's history on its page (`GET /events?record_id=`), and
//! `/ui/webhooks/{id}` (a webhook and its delivery attempts, `GET
//! /webhooks/{id}/deliveries`: an admin key's).

use maud::{Markup, html};
use serde_json::Value;

use super::fetch::{Api, text};
use super::html::{self, Nav, fields, id, link, or_dash, section, when};
use super::{Input, Out};
use crate::api::endpoints::{Op, Params};
use crate::core::paging::PageRequest;
use crate::error::Result;

/// Events shown on a record's page (its newest).
const HISTORY: u32 = 100;

/// Where an event's record is shown, when the console has a page for it.
fn record_link(e: &Value) -> Markup {
    let rid = text(&e["record_id"]);
    let csp = text(&e["customer_profile_id"]);
    let trn = text(&e["data"]["transaction_id"]);
    let href = if rid.starts_with("trn_") {
        Some(link("/ui/transactions", &rid))
    } else if rid.starts_with("trs_") && !trn.is_empty() {
        Some(link("/ui/transactions", &trn))
    } else if rid.starts_with("csp_") {
        Some(link("/ui/customer-profiles", &rid))
    } else if !csp.is_empty() {
        Some(link("/ui/customer-profiles", &csp))
    } else {
        None
    };
    html! {
        @match href {
            Some(h) => a href=(h) { code { (rid) } },
            None => code { (rid) },
        }
    }
}

/// An event type (or a delivery's outcome) as a badge coloured by its
/// last word, as a status would be.
fn type_badge(t: &str) -> Markup {
    let last = t.rsplit('.').next().unwrap_or(t);
    let tone = match last {
        "deleted" | "cancelled" => "bad",
        "requested" | "retrying" => "wait",
        "updated" | "restored" | "reset" => "info",
        other => html::tone(other),
    };
    html! { span class={ "badge " (tone) } { (t) } }
}

/// A table of events.
fn table(events: &[Value], with_record: bool) -> Markup {
    html! {
        div.table-wrap { table {
            thead { tr {
                th { "#" } th { "When" } th { "Event" }
                @if with_record { th { "Record" } }
                th { "By" }
            } }
            tbody { @for e in events { tr {
                td.muted { (text(&e["sequence"])) }
                td.nowrap { (when(&e["created_datetime"])) }
                td { (type_badge(&text(&e["event_type"]))) }
                @if with_record { td { (record_link(e)) } }
                td { (text(&e["actor"])) }
            } } }
        } }
    }
}

/// The newest events of `record_id` (its history), or nothing when the
/// key may not read them.
pub fn history(api: &Api, record_id: &str) -> Option<Markup> {
    let first = api
        .get(
            Op::EventList,
            &[],
            Params {
                record_id: Some(record_id.to_string()),
                page: PageRequest {
                    size: 1,
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .ok()?;
    let total = first.paging.map_or(0, |p| p.total_count);
    // The last page of HISTORY events: the newest, shown newest first.
    let page = (total as u32).div_ceil(HISTORY).max(1);
    let mut last = api
        .get(
            Op::EventList,
            &[],
            Params {
                record_id: Some(record_id.to_string()),
                page: PageRequest {
                    size: HISTORY,
                    number: Some(page),
                    after: None,
                },
                ..Default::default()
            },
        )
        .ok()?
        .data;
    if total > last.len() && last.len() < HISTORY as usize && page > 1 {
        // The last page is short: the one before completes the newest.
        if let Ok(before) = api.get(
            Op::EventList,
            &[],
            Params {
                record_id: Some(record_id.to_string()),
                page: PageRequest {
                    size: HISTORY,
                    number: Some(page - 1),
                    after: None,
                },
                ..Default::default()
            },
        ) {
            let mut all = before.data;
            all.append(&mut last);
            let skip = all.len().saturating_sub(HISTORY as usize);
            last = all.split_off(skip);
        }
    }
    last.reverse();
    Some(section(
        "History",
        Some(total),
        html! {
            @if last.is_empty() { (html::empty("No event names this record (a change made before payctl recorded events has none).")) }
            @else {
                (table(&last, false))
                @if total > last.len() {
                    p.muted { "The newest " (last.len()) " of " (total) ". " a href=(format!("/ui/events?record_id={}", crate::api::endpoints::percent_encode(record_id))) { "All of them" } }
                }
            }
        },
    ))
}

/// `/ui/events`: the event log, newest page first unless a page is asked.
pub fn render(api: &Api, input: &Input) -> Result<Out> {
    let mut params = input.params.clone();
    let asked = params.page.number.is_some() || params.page.after.is_some();
    if !asked {
        // The newest page: how many match, then that page.
        let mut count = params.clone();
        count.page = PageRequest {
            size: 1,
            ..Default::default()
        };
        let total = api
            .get(Op::EventList, &[], count)?
            .paging
            .map_or(0, |p| p.total_count);
        let size = params.page.size.max(1);
        params.page.number = Some((total as u32).div_ceil(size).max(1));
    }
    let answer = api.get(Op::EventList, &[], params.clone())?;
    let mut events = answer.data;
    events.reverse();
    let filters: Vec<(String, String)> = input
        .pairs
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "page_number" | "last_evaluated_key"))
        .cloned()
        .collect();
    let types = params.event_types.join(",");
    let body = html! {
        div.heading { h1 { "Events" } }
        p.subtitle { "Every committed change, who made it and when; the newest first." }
        form.filters method="get" action="/ui/events" {
            div {
                label for="type" { "Type (a glob: customer_profile.*, *.failed)" }
                input id="type" name="type" value=(types) autocomplete="off";
            }
            div {
                label for="record_id" { "Record id" }
                input id="record_id" name="record_id" value=[params.record_id.as_deref()] autocomplete="off";
            }
            div {
                label for="since" { "Since (UTC)" }
                input id="since" name="since" value=[params.since.as_deref()] autocomplete="off";
            }
            div { button type="submit" { "Filter" } }
        }
        @if events.is_empty() { (html::empty("No event matches.")) } @else {
            (table(&events, true))
        }
        @if let Some(p) = &answer.paging { (html::pager(p, events.len(), "/ui/events", &filters)) }
    };
    Ok(Out::Html(html::layout(
        "Events",
        Some(&api.caller),
        Nav::Events,
        body,
    )))
}

/// `/ui/webhooks/{id}`: the webhook and its delivery attempts, newest
/// first (an admin key's: others are refused as the API refuses them).
pub fn webhook(api: &Api, input: &Input) -> Result<Out> {
    let whk = input.ids.first().map(String::as_str).unwrap_or("");
    let w = api.one(Op::WebhookGet, &[whk])?;
    let deliveries = api.get(Op::WebhookDeliveries, &[whk], input.params.clone())?;
    let mut list = deliveries.data;
    list.reverse();
    let events: Vec<String> = w["events"]
        .as_array()
        .map(|a| a.iter().map(text).collect())
        .unwrap_or_default();
    let body = html! {
        p.kicker { "Webhook" }
        div.heading { h1 { (text(&w["url"])) } }
        div.subtitle { (id(whk)) span { (or_dash(&text(&w["description"]))) } }
        (section("Details", None, fields(vec![
            ("URL", html! { code { (text(&w["url"])) } }),
            ("Events", html! { (events.join(", ")) }),
            ("Secret", html! { code { (text(&w["secret"])) } }),
            ("Created", html! { (when(&w["created_datetime"])) " " span.muted { "by " (text(&w["created_by"])) } }),
        ])))
        (section("Deliveries", deliveries.paging.as_ref().map(|p| p.total_count), html! {
            @if list.is_empty() { (html::empty("No attempt yet.")) } @else {
                div.table-wrap { table {
                    thead { tr { th { "When" } th { "Event" } th { "Try" } th { "Answer" } th { "ms" } th { "Outcome" } th { "Next try" } } }
                    tbody { @for d in &list { tr {
                        td.nowrap { (when(&d["created_datetime"])) }
                        td { code { (text(&d["event_id"])) } " " span.muted { (text(&d["event_type"])) } }
                        td { (text(&d["attempt"])) }
                        td { @if d["status_code"].is_null() { (or_dash(&text(&d["error"]))) } @else { (text(&d["status_code"])) } }
                        td { (text(&d["duration_ms"])) }
                        td { (type_badge(&text(&d["outcome"]))) }
                        td.nowrap { @if d["next_retry"].is_null() { (or_dash("")) } @else { (when(&d["next_retry"])) } }
                    } } }
                } }
            }
            @if let Some(p) = &deliveries.paging { (html::pager(p, list.len(), &link("/ui/webhooks", whk), &[])) }
        }))
    };
    Ok(Out::Html(html::layout(
        &format!("Webhook {whk}"),
        Some(&api.caller),
        Nav::Events,
        body,
    )))
}
