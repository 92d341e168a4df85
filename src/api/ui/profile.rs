//! `/ui/customer-profiles/{id}`: what happened to this customer, on one
//! page: the profile (`GET /customer-profiles/{id}`), its addresses, its
//! payment instruments (masked), its attachment to each program with its
//! status and reason, and its transactions with this customer's amount and
//! their status (`GET /transactions?customer=`, paged by the page's query).
//! Its history: the newest events of the profile and its attachments
//! (`super::events::history`).

use std::collections::HashMap;

use maud::{Markup, html};
use serde_json::Value;

use super::fetch::{Api, Dict, text};
use super::html::{self, Nav, badge, fields, id, link, or_dash, pill, section, tags, when};
use super::search::display_name;
use super::{Input, Out};
use crate::api::endpoints::{Op, Params};
use crate::error::Result;

/// Most addresses and instruments shown (a profile holds far fewer).
const MOST: u32 = 200;

pub fn render(api: &Api, input: &Input) -> Result<Out> {
    let csp = input.ids.first().map(String::as_str).unwrap_or("");
    let profile = api.one(Op::ProfileGet, &[csp])?;
    let addresses = api.first(Op::AddressList, &[csp], MOST)?;
    let instruments = api.first(Op::InstrumentList, &[csp], MOST)?;
    let programs = api.first(Op::ProgramList, &[], 1000)?.data;
    let mut attachments = Vec::new();
    for p in &programs {
        let prm = text(&p["program_id"]);
        match api.one(Op::AttachmentGet, &[&prm, csp]) {
            Ok(a) => attachments.push(a),
            Err(e) if e.has_code(crate::error::code::NOT_FOUND) => {}
            Err(e) => return Err(e),
        }
    }
    let txns = api.get(
        Op::TxnList,
        &[],
        Params {
            customer: Some(csp.to_string()),
            ..input.params.clone()
        },
    )?;
    let name = display_name(&profile);
    let ind = &profile["customer_profile_individual"];
    let d = |n: &str| api.dict(n);
    let ssn = text(&ind["ssn"]);
    let body = html! {
        p.kicker { "Customer profile" }
        div.heading { h1 { (name) } }
        div.subtitle {
            (id(csp))
            span { "key " code { (text(&profile["customer_key"])) } }
            span { (d("customer-types").name(&profile["customer_type_id"])) }
        }
        (section("Details", None, fields(vec![
            ("Email", or_dash(&text(&ind["email"]))),
            ("Mobile phone", or_dash(&text(&ind["mobile_phone"]))),
            ("Home phone", or_dash(&text(&ind["home_phone"]))),
            ("Office phone", or_dash(&text(&ind["office_phone"]))),
            ("Date of birth", or_dash(&text(&ind["date_of_birth"]))),
            ("SSN", if ssn.is_empty() { or_dash("") } else { html! { span.muted { "••• " } code { (ssn) } } }),
            ("Tags", tags(&profile["customer_profile_tags"])),
            ("Created", html! { (when(&profile["created_datetime"])) " " span.muted { "by " (text(&profile["created_by"])) } }),
            ("Modified", html! { (when(&profile["modified_datetime"])) " " span.muted { "by " (text(&profile["modified_by"])) } }),
        ])))
        (attachments_section(api, &attachments, &programs))
        (instruments_section(api, &instruments.data, &programs))
        (addresses_section(api, &addresses.data))
        (transactions_section(api, csp, &txns)?)
        @if let Some(h) = super::events::history(api, csp) { (h) }
    };
    Ok(Out::Html(html::layout(
        &name,
        Some(&api.caller),
        Nav::Customers,
        body,
    )))
}

fn program_name(programs: &[Value], prm: &Value) -> String {
    Api::name_of(programs, "program_id", prm, "program_display_name")
}

fn attachments_section(api: &Api, list: &[Value], programs: &[Value]) -> Markup {
    let statuses = api.dict("customer-profile-program-statuses");
    section(
        "Programs",
        Some(list.len()),
        html! {
            @if list.is_empty() { (html::empty("Not attached to any program.")) } @else {
                div.table-wrap { table {
                    thead { tr { th { "Program" } th { "Status" } th { "Reason" } th.hide-narrow { "Requested" } th { "Updated" } } }
                    tbody { @for a in list { tr {
                        td { (program_name(programs, &a["program_id"])) @if a["is_locked"] == Value::Bool(true) { " " (pill("Locked")) } }
                        td { (badge(&statuses.name(&a["customer_profile_program_status_id"]), &a["customer_profile_program_status_id"])) }
                        td { (or_dash(&text(&a["customer_profile_program_status_reason"]))) }
                        td.nowrap.hide-narrow { (when(&a["created_datetime"])) }
                        td.nowrap { (when(&a["modified_datetime"])) }
                    } } }
                } }
            }
        },
    )
}

fn instruments_section(api: &Api, list: &[Value], programs: &[Value]) -> Markup {
    let (statuses, types, methods, ach_types) = (
        api.dict("payment-instrument-statuses"),
        api.dict("payment-instrument-types"),
        api.dict("payment-methods"),
        api.dict("payment-instrument-ach-types"),
    );
    section(
        "Payment instruments",
        Some(list.len()),
        html! {
            @if list.is_empty() { (html::empty("No payment instrument.")) } @else {
                div.table-wrap { table {
                    thead { tr { th { "Instrument" } th { "Type" } th { "Account" } th { "Routing" } th { "Status" } th.hide-narrow { "Program" } th.hide-narrow { "Tags" } } }
                    tbody { @for i in list {
                        @let ach = &i["payment_instrument_ach"];
                        tr {
                            td {
                                (or_dash(&text(&i["payment_instrument_label"])))
                                @if i["is_default"] == Value::Bool(true) { " " (pill("Default")) }
                                @if i["is_locked"] == Value::Bool(true) { " " (pill("Locked")) }
                                br; span.muted { (id(&text(&i["payment_instrument_id"]))) }
                            }
                            td { (types.name(&i["payment_instrument_type_id"])) br;
                                span.muted { (methods.name(&i["payment_method_id"])) " · " (ach_types.name(&ach["payment_instrument_ach_type_id"])) } }
                            td.nowrap { span.muted { "•••• " } code { (text(&ach["account_number"])) } }
                            td.nowrap { span.muted { "•••• " } code { (text(&ach["routing_number"])) } }
                            td { (badge(&statuses.name(&i["payment_instrument_status_id"]), &i["payment_instrument_status_id"])) }
                            td.hide-narrow { (program_name(programs, &i["program_id"])) }
                            td.hide-narrow { (tags(&i["payment_instrument_tags"])) }
                        }
                    } }
                } }
            }
        },
    )
}

fn addresses_section(api: &Api, list: &[Value]) -> Markup {
    let (types, countries) = (api.dict("address-types"), api.dict("countries"));
    // The states of each country the addresses name, once.
    let mut states: HashMap<String, Dict> = HashMap::new();
    for a in list {
        let c = text(&a["country_id"]);
        if !c.is_empty() && !states.contains_key(&c) {
            let d = api.states(&c);
            states.insert(c, d);
        }
    }
    section(
        "Addresses",
        Some(list.len()),
        html! {
            @if list.is_empty() { (html::empty("No address.")) } @else {
                div.table-wrap { table {
                    thead { tr { th { "Type" } th { "Name" } th { "Address" } th.hide-narrow { "Updated" } } }
                    tbody { @for a in list {
                        @let state = states.get(&text(&a["country_id"])).map(|d| d.name(&a["state_id"])).unwrap_or_else(|| text(&a["state_id"]));
                        tr {
                            td { (types.name(&a["address_type_id"])) @if a["is_default"] == Value::Bool(true) { " " (pill("Default")) } }
                            td { (text(&a["first_name"])) " " (text(&a["last_name"])) }
                            td {
                                (text(&a["address_line1"]))
                                @if !text(&a["address_line2"]).is_empty() { br; (text(&a["address_line2"])) }
                                br; (text(&a["city"])) ", " (state) " " (text(&a["zip"]))
                                br; span.muted { (countries.name(&a["country_id"])) }
                            }
                            td.nowrap.hide-narrow { (when(&a["modified_datetime"])) }
                        }
                    } }
                } }
            }
        },
    )
}

/// This customer's part of a transaction: the sum of the values of its
/// parameters that name the customer, and the parameters they are in.
fn share(params: &[Value], csp: &str) -> (Option<rust_decimal::Decimal>, Vec<String>) {
    let mut sum: Option<rust_decimal::Decimal> = None;
    let mut roles = Vec::new();
    for p in params {
        let name = text(&p["transaction_parameter_name"]);
        for v in p["transaction_parameter_values"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if text(&v["customer_profile_id"]) != csp {
                continue;
            }
            if let Ok(a) = text(&v["amount"]).parse::<rust_decimal::Decimal>() {
                sum = Some(sum.unwrap_or_default() + a);
            }
            let role = match name.as_str() {
                "@source_customers" => "source".to_string(),
                "@targets" => "target".to_string(),
                other => other.trim_start_matches('@').replace('_', " "),
            };
            if !roles.contains(&role) {
                roles.push(role);
            }
        }
    }
    (sum, roles)
}

fn transactions_section(api: &Api, csp: &str, txns: &super::fetch::Answer) -> Result<Markup> {
    let statuses = api.dict("transaction-statuses");
    let mut templates = super::transaction::Templates::default();
    let mut rows = Vec::new();
    for t in &txns.data {
        let trn = text(&t["transaction_id"]);
        let params = api.first(Op::TxnParameters, &[&trn], 100)?.data;
        let (sum, roles) = share(&params, csp);
        let template = templates.name(api, &t["application_id"], &t["transaction_template_id"]);
        rows.push((t, trn, sum, roles, template));
    }
    let total = txns.paging.as_ref().map_or(rows.len(), |p| p.total_count);
    Ok(section(
        "Transactions",
        Some(total),
        html! {
            @if rows.is_empty() { (html::empty("No transaction names this customer.")) } @else {
                div.table-wrap { table {
                    thead { tr { th.num { "Amount" } th { "Status" } th { "Transaction" } th.hide-narrow { "Reason" } th { "Created" } } }
                    tbody { @for (t, trn, sum, roles, template) in &rows { tr {
                        td.num {
                            @if let Some(s) = sum { strong { (html::amount_of(&s.to_string())) } } @else { span.muted { "—" } }
                            br; span.muted { (roles.join(", ")) }
                        }
                        td { (badge(&statuses.name(&t["transaction_status_id"]), &t["transaction_status_id"])) }
                        td { a href=(link("/ui/transactions", trn)) { (template) } br; span.muted { (id(trn)) } }
                        td.hide-narrow { (or_dash(&text(&t["transaction_status_reason"]))) }
                        td.nowrap { (when(&t["created_datetime"])) }
                    } } }
                } }
            }
            @if let Some(p) = &txns.paging {
                (html::pager(p, rows.len(), &link("/ui/customer-profiles", csp), &[]))
            }
        },
    ))
}
