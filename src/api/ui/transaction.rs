//! `/ui/transactions/{id}`: the transaction (`GET /transactions/{id}`), its
//! parameters (`…/parameters`: who pays, who is paid, how much) and its
//! steps (`…/transaction-steps`) as a timeline of statuses, from its
//! creation to its end.

use std::collections::HashMap;

use maud::{Markup, html};
use serde_json::Value;

use super::fetch::{Api, text};
use super::html::{self, Nav, badge, fields, id, link, or_dash, section, tags, when};
use super::search::display_name;
use super::{Input, Out};
use crate::api::endpoints::Op;
use crate::error::Result;

/// Most steps and parameters read (a template has a handful of steps; a
/// transaction at most 100 parameters).
const MOST: u32 = 1000;
/// Most distinct customers named in the parameters whose names are looked
/// up; past it, their ids are shown alone.
const NAMES: usize = 50;

/// The templates' display names, read once per application.
#[derive(Default)]
pub struct Templates {
    by_application: HashMap<String, Vec<Value>>,
}

impl Templates {
    fn of(&mut self, api: &Api, app: &Value) -> &[Value] {
        let app = text(app);
        self.by_application.entry(app.clone()).or_insert_with(|| {
            api.first(Op::TemplateList, &[&app], MOST)
                .map(|a| a.data)
                .unwrap_or_default()
        })
    }

    /// The display name of template `trt` of application `app`.
    pub fn name(&mut self, api: &Api, app: &Value, trt: &Value) -> String {
        Api::name_of(
            self.of(api, app),
            "transaction_template_id",
            trt,
            "transaction_template_display_name",
        )
    }
}

pub fn render(api: &Api, input: &Input) -> Result<Out> {
    let trn = input.ids.first().map(String::as_str).unwrap_or("");
    let t = api.one(Op::TxnGet, &[trn])?;
    let params = api.first(Op::TxnParameters, &[trn], MOST)?.data;
    let steps = api.first(Op::TxnSteps, &[trn], MOST)?.data;
    let programs = api.first(Op::ProgramList, &[], MOST)?.data;
    let prm = text(&t["program_id"]);
    let applications = api.first(Op::ApplicationList, &[&prm], MOST)?.data;
    let template =
        Templates::default().name(api, &t["application_id"], &t["transaction_template_id"]);
    let template_steps = api
        .first(
            Op::TemplateStepList,
            &[&text(&t["transaction_template_id"])],
            MOST,
        )
        .map(|a| a.data)
        .unwrap_or_default();
    let statuses = api.dict("transaction-statuses");
    let status = statuses.name(&t["transaction_status_id"]);
    let body = html! {
        p.kicker { "Transaction" }
        div.heading {
            h1 { (template) }
            (badge(&status, &t["transaction_status_id"]))
        }
        div.subtitle { (id(trn)) span { (or_dash(&text(&t["transaction_status_reason"]))) } }
        (section("Details", None, fields(vec![
            ("Program", html! { (Api::name_of(&programs, "program_id", &t["program_id"], "program_display_name")) }),
            ("Application", html! { (Api::name_of(&applications, "application_id", &t["application_id"], "application_display_name")) }),
            ("Template", html! { (template) " " span.muted { (id(&text(&t["transaction_template_id"]))) } }),
            ("Tags", tags(&t["transaction_tags"])),
            ("Created", html! { (when(&t["created_datetime"])) " " span.muted { "by " (text(&t["created_by"])) } }),
            ("Modified", html! { (when(&t["modified_datetime"])) " " span.muted { "by " (text(&t["modified_by"])) } }),
        ])))
        (parameters_section(api, &params))
        (timeline(api, &t, &status, &steps, &template_steps))
        @if let Some(h) = super::events::history(api, trn) { (h) }
    };
    Ok(Out::Html(html::layout(
        &format!("Transaction {trn}"),
        Some(&api.caller),
        Nav::Customers,
        body,
    )))
}

/// Each parameter with its values: the customer (a link to its page) or
/// the payee, the amount, and the parameter's total.
fn parameters_section(api: &Api, params: &[Value]) -> Markup {
    let mut names: HashMap<String, String> = HashMap::new();
    for p in params {
        for v in p["transaction_parameter_values"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let csp = text(&v["customer_profile_id"]);
            if csp.is_empty() || names.contains_key(&csp) || names.len() >= NAMES {
                continue;
            }
            if let Ok(profile) = api.one(Op::ProfileGet, &[&csp]) {
                names.insert(csp, display_name(&profile));
            }
        }
    }
    let countries = api.dict("countries");
    // The states of each country a payee's address names, once.
    let mut states: HashMap<String, super::fetch::Dict> = HashMap::new();
    for p in params {
        for v in p["transaction_parameter_values"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let c = text(&v["country_id"]);
            if !c.is_empty() && !states.contains_key(&c) {
                let d = api.states(&c);
                states.insert(c, d);
            }
        }
    }
    section(
        "Parameters",
        Some(params.len()),
        html! {
            @if params.is_empty() { (html::empty("No parameter.")) }
            @for p in params {
                @let values = p["transaction_parameter_values"].as_array().cloned().unwrap_or_default();
                @let total = values.iter().filter_map(|v| text(&v["amount"]).parse::<rust_decimal::Decimal>().ok()).sum::<rust_decimal::Decimal>();
            // Only checks have a payee's address to show.
            @let details = values.iter().any(|v| !text(&v["address_line1"]).is_empty());
                h3 { code { (text(&p["transaction_parameter_name"])) } " " span.count { (values.len()) } }
                div.table-wrap { table {
                    thead { tr { th { "Who" } @if details { th.hide-narrow { "Payee's address" } } th.num { "Amount" } } }
                    tbody {
                        @for v in &values { tr {
                            td { (who(v, &names)) }
                            @if details { td.hide-narrow { (payee(v, &countries, &states)) } }
                            td.num { (html::amount(&v["amount"])) }
                        } }
                        @if values.len() > 1 { tr {
                        td { strong { "Total" } }
                        @if details { td.hide-narrow {} }
                        td.num { strong { (html::amount_of(&total.to_string())) } }
                    } }
                    }
                } }
            }
        },
    )
}

/// Who a parameter value names: a customer, a payee, or the Facilitator.
fn who(v: &Value, names: &HashMap<String, String>) -> Markup {
    let csp = text(&v["customer_profile_id"]);
    let person = [text(&v["first_name"]), text(&v["last_name"])].join(" ");
    let org = text(&v["organization_name"]);
    html! {
        @if !csp.is_empty() {
            a href=(link("/ui/customer-profiles", &csp)) { (names.get(&csp).cloned().unwrap_or_else(|| csp.clone())) }
            @if names.contains_key(&csp) { br; span.muted { (id(&csp)) } }
        } @else if !org.is_empty() { (org) }
        @else if !person.trim().is_empty() { (person.trim()) }
        @else { span.muted { "The Facilitator" } }
    }
}

/// A check payee's address and note.
fn payee(
    v: &Value,
    countries: &super::fetch::Dict,
    states: &HashMap<String, super::fetch::Dict>,
) -> Markup {
    let line1 = text(&v["address_line1"]);
    let state = states
        .get(&text(&v["country_id"]))
        .map_or_else(|| text(&v["state_id"]), |d| d.name(&v["state_id"]));
    html! {
        @if line1.is_empty() { span.muted { "—" } } @else {
            (line1)
            @if !text(&v["address_line2"]).is_empty() { ", " (text(&v["address_line2"])) }
            br; (text(&v["city"])) ", " (state) " " (text(&v["zip"])) " · " (countries.name(&v["country_id"]))
            @if !text(&v["check_note"]).is_empty() { br; span.muted { "Note: " (text(&v["check_note"])) } }
        }
    }
}

/// The transaction's life: created, each step with its status and reason,
/// and where it stands now.
fn timeline(
    api: &Api,
    t: &Value,
    status: &str,
    steps: &[Value],
    template_steps: &[Value],
) -> Markup {
    let (step_statuses, transfers) = (
        api.dict("transaction-step-statuses"),
        api.dict("transfer-types"),
    );
    let mapping = |s: &Value| {
        template_steps
            .iter()
            .find(|ts| ts["transaction_template_step_id"] == s["transaction_template_step_id"])
            .map(|ts| ts["parameter_mapping"].clone())
            .unwrap_or(Value::Null)
    };
    let tone = |name: &str| html::tone(name);
    let ended = matches!(status.to_ascii_lowercase().as_str(), "completed" | "failed");
    html! {
        (section("Timeline", Some(steps.len()), html! {
            ol.timeline {
                li.neutral {
                    div.step-head { "Created" }
                    div.step-body { p { (when(&t["created_datetime"])) " by " (text(&t["created_by"])) } }
                }
                @if steps.is_empty() {
                    li.wait {
                        div.step-head { "Waiting for the worker" }
                        div.step-body { p { "The worker generates the steps from the template, then runs them in sequence." } }
                    }
                }
                @for s in steps {
                    @let name = step_statuses.name(&s["transaction_step_status_id"]);
                    @let m = mapping(s);
                    li class=(tone(&name)) {
                        div.step-head {
                            span { "Step " (text(&s["sequence"])) " · " (transfers.name(&s["transfer_type_id"])) }
                            (badge(&name, &s["transaction_step_status_id"]))
                        }
                        div.step-body {
                            @if !m.is_null() {
                                p.flow { code { (or_dash(&text(&m["source"]))) } " → " code { (or_dash(&text(&m["target"]))) } }
                            }
                            p { (or_dash(&text(&s["transaction_step_status_reason"]))) }
                            p { (when(&s["modified_datetime"])) " · " (id(&text(&s["transaction_step_id"]))) }
                        }
                    }
                }
                @if ended {
                    li class=(tone(status)) {
                        div.step-head { span { "Transaction " (status) } (badge(status, &t["transaction_status_id"])) }
                        div.step-body {
                            p { (or_dash(&text(&t["transaction_status_reason"]))) }
                            p { (when(&t["modified_datetime"])) " by " (text(&t["modified_by"])) }
                        }
                    }
                }
            }
        }))
    }
}
