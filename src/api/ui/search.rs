//! `/ui/`: the customer profiles, searched with the filters of `profile
//! list` (`GET /customer-profiles`: first_name, last_name, email,
//! customer_key, tag) and paged as it pages; `?id=` jumps to a profile or a
//! transaction by its id.

use maud::html;
use serde_json::Value;

use super::fetch::{Api, text};
use super::html::{self, Nav, link, or_dash, tags, when};
use super::{Input, Out};
use crate::api::endpoints::Op;
use crate::error::Result;

/// The page sizes offered (any of 1-1000 is taken from the query).
const SIZES: [u32; 4] = [20, 50, 100, 500];

pub fn render(api: &Api, input: &Input) -> Result<Out> {
    if let Some((_, id)) = input.own.iter().find(|(k, _)| k == "id") {
        let id = id.trim();
        let to = if id.starts_with("trn_") {
            link("/ui/transactions", id)
        } else {
            link("/ui/customer-profiles", id)
        };
        return Ok(Out::Redirect(to));
    }
    let answer = api.get(Op::ProfileList, &[], input.params.clone())?;
    let types = api.dict("customer-types");
    let q = &input.params;
    let filters: Vec<(String, String)> = input
        .pairs
        .iter()
        .filter(|(k, _)| {
            !matches!(
                k.as_str(),
                "page_number" | "last_evaluated_key" | "page_size"
            )
        })
        .cloned()
        .collect();
    let filtering = !filters.is_empty();
    let mut tag_values: Vec<String> = q
        .tags
        .iter()
        .map(|t| format!("{}:{}", t.key, t.value))
        .collect();
    tag_values.push(String::new());
    let field = |name: &str, label: &str, value: &Option<String>, kind: &str| {
        html! {
            div {
                label for=(name) { (label) }
                input id=(name) type=(kind) name=(name) value=[value.as_deref()] autocomplete="off";
            }
        }
    };
    let body = html! {
        div.heading { h1 { "Customers" } }
        p.subtitle {
            @if let Some(p) = &answer.paging { span { (p.total_count) " " @if filtering { "matching" } @else { "in all" } } }
        }
        section.card {
            form.filters method="get" action="/ui/" {
                (field("first_name", "First name", &q.first_name, "text"))
                (field("last_name", "Last name", &q.last_name, "text"))
                (field("email", "Email", &q.email, "text"))
                (field("customer_key", "Customer key", &q.customer_key, "text"))
                @for (i, t) in tag_values.iter().enumerate() {
                    div {
                        label for={ "tag" (i) } { "Tag (key:value)" }
                        input id={ "tag" (i) } type="text" name="tag" value=(t) placeholder="segment:retail" autocomplete="off";
                    }
                }
                div {
                    label for="page_size" { "Per page" }
                    select #page_size name="page_size" {
                        @for n in SIZES {
                            option value=(n) selected[n == q.page.size] { (n) }
                        }
                        @if !SIZES.contains(&q.page.size) {
                            option value=(q.page.size) selected { (q.page.size) }
                        }
                    }
                }
                div.actions {
                    button.primary type="submit" { "Search" }
                    @if filtering { a.button href="/ui/" { "Clear" } }
                }
            }
            form.jump method="get" action="/ui/" {
                input type="text" name="id" placeholder="Go to an id: csp_… or trn_…" aria-label="Go to an id" autocomplete="off" spellcheck="false";
                button type="submit" { "Go" }
            }
        }
        section.card {
            @if answer.data.is_empty() {
                (html::empty(if filtering { "No customer profile matches these filters." } else { "No customer profile yet." }))
            } @else {
                div.table-wrap {
                    table {
                        thead { tr {
                            th { "Customer" } th { "Customer key" } th.hide-narrow { "Email" }
                            th.hide-narrow { "Type" } th.hide-narrow { "Tags" } th { "Created" }
                        } }
                        tbody {
                            @for p in &answer.data {
                                tr {
                                    td { a href=(link("/ui/customer-profiles", &text(&p["customer_profile_id"]))) { (display_name(p)) } }
                                    td { code { (text(&p["customer_key"])) } }
                                    td.hide-narrow { (or_dash(&text(&p["customer_profile_individual"]["email"]))) }
                                    td.hide-narrow { (types.name(&p["customer_type_id"])) }
                                    td.hide-narrow { (tags(&p["customer_profile_tags"])) }
                                    td.nowrap { (when(&p["created_datetime"])) }
                                }
                            }
                        }
                    }
                }
            }
            @if let Some(p) = &answer.paging {
                (html::pager(p, answer.data.len(), "/ui/", &filters))
            }
        }
    };
    Ok(Out::Html(html::layout(
        "Customers",
        Some(&api.caller),
        Nav::Customers,
        body,
    )))
}

/// A profile's name as people say it (first and last), else its key.
pub fn display_name(p: &Value) -> String {
    let ind = &p["customer_profile_individual"];
    let name = [text(&ind["first_name"]), text(&ind["last_name"])]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if name.is_empty() {
        text(&p["customer_key"])
    } else {
        name
    }
}
