//! Tables for people (comfy-table). A list shows, per kind of record, the columns an operator
//! scans (the whole record is one `get` or `-o json` away); a single record shows every field as
//! field/value pairs, nested fields flattened to their JSON paths. Dictionary and status ids are
//! shown with their names ("10 Attached"). On a terminal the table fits its width; colour only
//! when [`Style::out_color`] says so.

use std::borrow::Cow;
use std::io::{self, Write};

use comfy_table::{Attribute, Cell, Color, ColumnConstraint, ContentArrangement, Table, presets};
use serde_json::Value;

use super::{RecordKind, Response, Style};
use crate::catalog::dictionaries as dict;

fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a)
            if a.iter()
                .all(|x| x.get("key").is_some() && x.get("value").is_some()) =>
        {
            a.iter()
                .map(|t| {
                    format!(
                        "{}={}",
                        t["key"].as_str().unwrap_or(""),
                        t["value"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        other => other.to_string(),
    }
}

/// The dictionary a field's value comes from, by field name.
fn dictionary_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "customer_type_id" => "customer-types",
        "address_type_id" => "address-types",
        "country_id" => "countries",
        "state_id" => "states",
        "payment_instrument_type_id" => "payment-instrument-types",
        "payment_method_id" => "payment-methods",
        "payment_instrument_ach_type_id" => "payment-instrument-ach-types",
        "payment_instrument_status_id" => "payment-instrument-statuses",
        "customer_profile_program_status_id" => "customer-profile-program-statuses",
        "transaction_status_id" => "transaction-statuses",
        "transaction_step_status_id" => "transaction-step-statuses",
        "transfer_type_id" => "transfer-types",
        "destination_id" => "destinations",
        "account_code_id" => "account-codes",
        "cardinality_id" => "cardinality",
        "parameter_type_id" => "parameter-types",
        _ => return None,
    })
}

/// `60 Completed` for a dictionary id (the id alone if it has no name).
fn named(dictionary: &str, v: &Value) -> String {
    match v.as_u64().and_then(|id| u32::try_from(id).ok()) {
        Some(id) => match dict::display_name(dictionary, id) {
            Some(name) => format!("{id} {name}"),
            None => id.to_string(),
        },
        None => text(v),
    }
}

/// A transaction's template name and total amount, added to a list's
/// records by the CLI for a table (never part of a record's JSON).
pub const TEMPLATE_NAME: &str = "_template_name";
pub const TOTAL: &str = "_total";

/// How a column gets its cell from a record.
enum Get {
    /// The value at a dot-separated path.
    Path(&'static str),
    /// The value of a top-level field named at run time.
    Field(String),
    /// A dictionary id at a path, with its name.
    Named(&'static str),
    /// A `state_id` as its USPS code.
    StateCode(&'static str),
    /// A boolean as `yes` or nothing.
    Flag(&'static str),
    /// A masked number (already its last 4 digits) as `…1234`.
    Masked(&'static str),
    /// The values of a transaction parameter, one short line each.
    ParamValues(&'static str),
    /// A timestamp to the second, for people (`2025-01-31 12:00:00`).
    Time(&'static str),
    /// The first of these paths that holds a value (a name the CLI added
    /// for people, else the id).
    First(&'static [&'static str]),
}

struct Col {
    header: Cow<'static, str>,
    get: Get,
}

const fn col(header: &'static str, get: Get) -> Col {
    Col {
        header: Cow::Borrowed(header),
        get,
    }
}

fn lookup<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.')
        .fold(v, |acc, k| acc.get(k).unwrap_or(&Value::Null))
}

fn param_value(v: &Value) -> String {
    let who = ["customer_profile_id", "organization_name"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_string)
        .or_else(|| {
            let first = v.get("first_name").and_then(Value::as_str)?;
            let last = v.get("last_name").and_then(Value::as_str).unwrap_or("");
            Some(format!("{first} {last}"))
        });
    let amount = v.get("amount").map(text).unwrap_or_default();
    match who {
        Some(w) => format!("{w} {amount}"),
        None => amount,
    }
}

impl Col {
    fn cell(&self, rec: &Value) -> String {
        match &self.get {
            Get::Path(p) => text(lookup(rec, p)),
            Get::Field(f) => text(rec.get(f).unwrap_or(&Value::Null)),
            Get::Named(p) => {
                let field = p.rsplit('.').next().unwrap_or(p);
                let p = *p;
                match dictionary_of(field) {
                    Some(d) => named(d, lookup(rec, p)),
                    None => text(lookup(rec, p)),
                }
            }
            Get::StateCode(p) => {
                let v = lookup(rec, p);
                v.as_u64()
                    .and_then(|id| u32::try_from(id).ok())
                    .and_then(dict::state)
                    .map_or_else(|| text(v), |s| s.short_name.to_string())
            }
            Get::Flag(p) => match lookup(rec, p) {
                Value::Bool(true) => "yes".into(),
                Value::Bool(false) => String::new(),
                other => text(other),
            },
            Get::Masked(p) => match lookup(rec, p) {
                Value::String(s) if !s.is_empty() => format!("…{s}"),
                other => text(other),
            },
            Get::First(paths) => paths
                .iter()
                .map(|p| lookup(rec, p))
                .find(|v| !v.is_null())
                .map(text)
                .unwrap_or_default(),
            Get::Time(p) => match lookup(rec, p) {
                Value::String(t) => t.split('.').next().unwrap_or(t).replacen('T', " ", 1),
                other => text(other),
            },
            Get::ParamValues(p) => match lookup(rec, p) {
                Value::Array(a) => a.iter().map(param_value).collect::<Vec<_>>().join("\n"),
                other => text(other),
            },
        }
    }
}

/// The columns of a list of records of `kind`; `None` for a kind without
/// a layout of its own (its scalar fields are shown, [`generic`]).
fn layout(kind: RecordKind) -> Option<Vec<Col>> {
    use Get::*;
    let cols = match kind {
        RecordKind::Event => vec![
            col("seq", Path("sequence")),
            col("time", Path("created_datetime")),
            col("type", Path("event_type")),
            col("record", Path("record_id")),
            col("actor", Path("actor")),
        ],
        RecordKind::Step => vec![
            col("seq", Path("sequence")),
            col("transaction_step_id", Path("transaction_step_id")),
            col("transfer type", Named("transfer_type_id")),
            col("status", Named("transaction_step_status_id")),
            col("reason", Path("transaction_step_status_reason")),
        ],
        RecordKind::Parameter => vec![
            col("id", Path("transaction_parameter_id")),
            col("name", Path("transaction_parameter_name")),
            col("values", ParamValues("transaction_parameter_values")),
        ],
        RecordKind::Transaction => vec![
            col("transaction_id", Path("transaction_id")),
            col(
                "template",
                First(&[TEMPLATE_NAME, "transaction_template_id"]),
            ),
            col("status", Named("transaction_status_id")),
            col("total", Path(TOTAL)),
            col("created", Time("created_datetime")),
        ],
        RecordKind::Instrument => vec![
            col("payment_instrument_id", Path("payment_instrument_id")),
            col("type", Named("payment_instrument_type_id")),
            col("default", Flag("is_default")),
            col("status", Named("payment_instrument_status_id")),
            col("account", Masked("payment_instrument_ach.account_number")),
            col("routing", Masked("payment_instrument_ach.routing_number")),
            col("label", Path("payment_instrument_label")),
        ],
        RecordKind::Address => vec![
            col("address_id", Path("address_id")),
            col("type", Named("address_type_id")),
            col("default", Flag("is_default")),
            col("line1", Path("address_line1")),
            col("city", Path("city")),
            col("state", StateCode("state_id")),
            col("zip", Path("zip")),
        ],
        RecordKind::Attachment => vec![
            col("customer_profile_id", Path("customer_profile_id")),
            col("program_id", Path("program_id")),
            col("status", Named("customer_profile_program_status_id")),
            col("reason", Path("customer_profile_program_status_reason")),
        ],
        RecordKind::Profile => vec![
            col("customer_profile_id", Path("customer_profile_id")),
            col("customer_key", Path("customer_key")),
            col("first name", Path("customer_profile_individual.first_name")),
            col("last name", Path("customer_profile_individual.last_name")),
            col("email", Path("customer_profile_individual.email")),
            col("created", Time("created_datetime")),
        ],
        RecordKind::TemplateStep => vec![
            col("seq", Path("sequence")),
            col(
                "transaction_template_step_id",
                Path("transaction_template_step_id"),
            ),
            col("transfer type", Named("transfer_type_id")),
            col("optional", Flag("is_optional")),
            col("source", Path("parameter_mapping.source")),
            col("target", Path("parameter_mapping.target")),
        ],
        RecordKind::Dictionary("states") => vec![
            col("state_id", Path("state_id")),
            col("code", Path("state_short_name")),
            col("name", Path("state_name")),
        ],
        RecordKind::Dictionary("countries") => vec![
            col("country_id", Path("country_id")),
            col("code", Path("country_two_letter_code")),
            col("name", Path("country_display_name")),
        ],
        RecordKind::Program
        | RecordKind::Application
        | RecordKind::Template
        | RecordKind::Dictionary(_) => named_record(&kind.id_field()?),
        RecordKind::DictionaryName => vec![col("dictionary_name", Path("dictionary_name"))],
        RecordKind::Imported => vec![
            col("id", Path("id")),
            col("customer_key", Path("customer_key")),
            col("line", Path("line")),
        ],
        RecordKind::Id => vec![col("id", Path("id"))],
        RecordKind::Context => vec![
            col("name", Path("name")),
            col("current", Flag("current")),
            col("base-url", Path("base_url")),
            col("data-dir", Path("data_dir")),
            col("database-url", Path("database_url")),
            col("token-env", Path("token_env")),
        ],
        RecordKind::ApiKey => vec![
            col("name", Path("name")),
            col("role", Path("role")),
            col("created", Time("created")),
            col("expires", Time("expires")),
            col("last used", Time("last_used")),
            col("revoked", Time("revoked")),
        ],
        RecordKind::NewApiKey => vec![
            col("name", Path("name")),
            col("role", Path("role")),
            col("secret (shown once)", Path("secret")),
            col("expires", Time("expires")),
        ],
        RecordKind::Snapshot => vec![
            col("name", Path("snapshot_name")),
            col("profiles", Path("customer_profiles")),
            col("transactions", Path("transactions")),
            col("store", Path("store_version")),
            col("created", Time("created_datetime")),
        ],
        RecordKind::SimRule => vec![
            col("rule_id", Path("rule_id")),
            col("on", Path("on")),
            col("when", Path("when")),
            col("outcome", Path("outcome")),
            col("reason", Path("reason")),
            col("after", Path("after")),
            col("after polls", Path("after_polls")),
        ],
        RecordKind::Webhook | RecordKind::NewWebhook => vec![
            col("webhook_id", Path("webhook_id")),
            col("url", Path("url")),
            col("events", Path("events")),
            col("secret", Path("secret")),
        ],
        RecordKind::WebhookDelivery => vec![
            col("time", Time("created_datetime")),
            col("event", Path("event_id")),
            col("try", Path("attempt")),
            col("status", First(&["status_code", "error"])),
            col("ms", Path("duration_ms")),
            col("outcome", Path("outcome")),
            col("next retry", Time("next_retry")),
        ],
        RecordKind::WorkerSummary
        | RecordKind::Health
        | RecordKind::Document
        | RecordKind::Summary
        | RecordKind::Reset
        | RecordKind::WebhookResend => return None,
    };
    Some(cols)
}

/// Records named `<x>_id`, `<x>_name`, `<x>_display_name` (dictionaries,
/// programs, applications, templates): those three columns.
fn named_record(id: &str) -> Vec<Col> {
    let prefix = id.strip_suffix("_id").unwrap_or(id);
    vec![
        Col {
            header: Cow::Owned(id.to_string()),
            get: Get::Field(id.to_string()),
        },
        col("name", Get::Field(format!("{prefix}_name"))),
        col("display name", Get::Field(format!("{prefix}_display_name"))),
    ]
}

/// Columns of a record without a layout: its scalar top-level fields and the
/// scalar fields of nested objects one level down, audit fields left out.
fn generic(first: &Value) -> Vec<(String, String)> {
    let mut cols = Vec::new();
    if let Some(map) = first.as_object() {
        for (k, v) in map {
            match v {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        if !iv.is_object() && !iv.is_array() {
                            cols.push((ik.clone(), format!("{k}.{ik}")));
                        }
                    }
                }
                _ if k.ends_with("_by") || k.starts_with("modified") => {}
                _ => cols.push((k.clone(), k.clone())),
            }
        }
    }
    cols
}

fn flatten(prefix: &str, v: &Value, rows: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if val.is_object() {
                    flatten(&path, val, rows);
                } else if let Some(d) = dictionary_of(k) {
                    rows.push((path, named(d, val)));
                } else {
                    rows.push((path, text(val)));
                }
            }
        }
        other => rows.push((prefix.to_string(), text(other))),
    }
}

fn new_table(style: Style) -> Table {
    let mut t = Table::new();
    // `--no-headers`: rows only, columns separated by spaces (for `awk`).
    t.load_preset(if style.headers {
        presets::UTF8_FULL_CONDENSED
    } else {
        presets::NOTHING
    })
    .set_content_arrangement(ContentArrangement::Dynamic);
    if style.out_color {
        // Asked for (--color always) even when stdout is not a terminal.
        t.enforce_styling();
    }
    // A terminal that reports no width (a pty under `script`, some CI
    // runners) would wrap every column to one character: use $COLUMNS,
    // else 80.
    if t.width().is_some_and(|w| w < MIN_WIDTH) {
        t.set_width(style.columns.filter(|&c| c >= MIN_WIDTH).unwrap_or(80));
    }
    t
}

/// Below this, a terminal's reported width is taken as unknown.
const MIN_WIDTH: u16 = 10;

fn header(style: Style, names: impl IntoIterator<Item = String>) -> Vec<Cell> {
    names
        .into_iter()
        .map(|h| {
            let c = Cell::new(super::terminal_text(&h));
            if style.out_color {
                c.add_attribute(Attribute::Bold)
            } else {
                c
            }
        })
        .collect()
}

/// A cell, coloured by the status its text names when colour is on.
fn body_cell(style: Style, text: String) -> Cell {
    let text = super::terminal_text(&text).into_owned();
    if !style.out_color {
        return Cell::new(text);
    }
    let status = text.split_once(' ').map_or("", |(_, name)| name);
    let color = match status {
        "Completed" | "Attached" | "Active" => Some(Color::Green),
        "Failed" | "Rejected" => Some(Color::Red),
        "Pending" | "Created" | "Processing" => Some(Color::Yellow),
        "Cancelled" => Some(Color::DarkGrey),
        _ => None,
    };
    match color {
        Some(c) => Cell::new(text).fg(c),
        None => Cell::new(text),
    }
}

pub fn print(out: &mut impl Write, style: Style, resp: &Response) -> io::Result<()> {
    print_rows(out, style, resp, true)
}

/// A page of a list printed whole (`--all`): its rows without the page's
/// footer, which names a next page that the list fetches itself.
pub fn print_rows(
    out: &mut impl Write,
    style: Style,
    resp: &Response,
    footer: bool,
) -> io::Result<()> {
    match resp {
        Response::Id(id) => writeln!(out, "{}", super::terminal_text(id)),
        Response::Raw(text) => out.write_all(text.as_bytes()),
        Response::Spooled(s) => Ok(super::spool::print(out, style, s)?),
        Response::Records(_, data) if data.len() == 1 => {
            let mut t = new_table(style);
            if style.headers {
                t.set_header(header(style, ["field".into(), "value".into()]));
            }
            let mut rows = Vec::new();
            flatten("", &data[0], &mut rows);
            for (k, v) in rows {
                t.add_row(vec![
                    Cell::new(super::terminal_text(&k)),
                    body_cell(style, v),
                ]);
            }
            writeln!(out, "{t}")
        }
        Response::List { kind, data, .. } | Response::Records(kind, data) => {
            if data.is_empty() {
                if style.headers {
                    writeln!(out, "(no records)")?;
                }
            } else {
                let mut t = new_table(style);
                // On a terminal of a known width a long cell is cut with an
                // ellipsis, never wrapped a character per line.
                let one_line = t.width().is_some();
                t.set_truncation_indicator("…");
                let row = |cells: Vec<Cell>| {
                    let mut r = comfy_table::Row::from(cells);
                    if one_line {
                        r.max_height(1);
                    }
                    r
                };
                match layout(*kind) {
                    Some(cols) => {
                        let is_id = |c: &Col| {
                            c.header.ends_with("_id")
                                || ["customer_key", "template"].contains(&c.header.as_ref())
                        };
                        let cells: Vec<Vec<String>> = data
                            .iter()
                            .map(|rec| cols.iter().map(|c| c.cell(rec)).collect())
                            .collect();
                        // On a narrow terminal the last columns that are not
                        // identifiers are left out until the rest fits with
                        // a few characters each (`-o json` has everything).
                        let mut keep: Vec<usize> = (0..cols.len()).collect();
                        if let Some(width) = t.width().filter(|_| one_line) {
                            let widest = |i: usize| {
                                cells
                                    .iter()
                                    .map(|r| r[i].chars().count())
                                    .chain([cols[i].header.chars().count()])
                                    .max()
                                    .unwrap_or(0)
                            };
                            let need = |keep: &[usize]| {
                                keep.iter()
                                    .map(|&i| {
                                        if is_id(&cols[i]) {
                                            widest(i)
                                        } else {
                                            widest(i).min(10)
                                        }
                                    })
                                    .sum::<usize>()
                                    + 3 * keep.len()
                                    + 1
                            };
                            while need(&keep) > usize::from(width) {
                                match keep.iter().rposition(|&i| !is_id(&cols[i])) {
                                    Some(at) if keep.len() > 1 => {
                                        keep.remove(at);
                                    }
                                    _ => break,
                                }
                            }
                        }
                        if style.headers {
                            let mut h = comfy_table::Row::from(header(
                                style,
                                keep.iter().map(|&i| cols[i].header.to_string()),
                            ));
                            if one_line {
                                h.max_height(1);
                            }
                            t.set_header(h);
                        }
                        for r in &cells {
                            t.add_row(row(keep
                                .iter()
                                .map(|&i| body_cell(style, r[i].clone()))
                                .collect()));
                        }
                        // Identifiers are never cut (people copy them); the
                        // other columns give way, cut with an ellipsis.
                        for (at, &i) in keep.iter().enumerate() {
                            if is_id(&cols[i])
                                && let Some(column) = t.column_mut(at)
                            {
                                column.set_constraint(ColumnConstraint::ContentWidth);
                            }
                        }
                    }
                    None => {
                        let cols = generic(&data[0]);
                        if style.headers {
                            t.set_header(header(style, cols.iter().map(|(h, _)| h.clone())));
                        }
                        for rec in data {
                            t.add_row(row(cols
                                .iter()
                                .map(|(_, p)| body_cell(style, text(lookup(rec, p))))
                                .collect()));
                        }
                    }
                }
                writeln!(out, "{t}")?;
            }
            if let Response::List { paging, .. } = resp
                && footer
                && style.headers
            {
                let more = match &paging.last_evaluated_key {
                    Some(k) => format!("; next page: --after {}", super::terminal_text(k)),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "page {} ({} per page), {} in all{more}",
                    paging.page_number, paging.page_size, paging.total_count
                )?;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cells(kind: RecordKind, first: &Value) -> Vec<String> {
        layout(kind)
            .expect("a layout")
            .iter()
            .map(|c| c.cell(first))
            .collect()
    }

    #[test]
    fn statuses_and_dictionary_ids_carry_their_names() {
        let step = json!({"transaction_step_id": "trs_x", "sequence": 1, "transfer_type_id": 1,
            "transaction_step_status_id": 60, "transaction_step_status_reason": "Successfully completed."});
        assert_eq!(
            cells(RecordKind::Step, &step),
            [
                "1",
                "trs_x",
                "1 ACH Funding",
                "60 Completed",
                "Successfully completed."
            ]
        );
        let addr = json!({"address_id": "cpa_x", "address_type_id": 1, "is_default": true,
            "state_id": 6, "address_line1": "1 Main St", "city": "Springfield", "zip": "12345"});
        assert_eq!(
            cells(RecordKind::Address, &addr),
            [
                "cpa_x",
                "1 Mailing",
                "yes",
                "1 Main St",
                "Springfield",
                "CA",
                "12345"
            ]
        );
        let att = json!({"customer_profile_id": "csp_x", "program_id": "prm_x",
            "customer_profile_program_status_id": 10, "customer_profile_program_status_reason": "r"});
        assert_eq!(
            cells(RecordKind::Attachment, &att),
            ["csp_x", "prm_x", "10 Attached", "r"]
        );
    }

    #[test]
    fn dictionaries_show_id_name_display_name() {
        let rec = json!({"address_type_id": 1, "address_type_name": "Mailing",
            "address_type_display_name": "Mailing", "address_type_description": "…"});
        let cols = layout(RecordKind::Dictionary("address-types")).expect("layout");
        assert_eq!(cols[0].header, "address_type_id");
        assert_eq!(cols.len(), 3);
        let cells: Vec<String> = cols.iter().map(|c| c.cell(&rec)).collect();
        assert_eq!(cells, ["1", "Mailing", "Mailing"]);
    }

    #[test]
    fn unknown_ids_stay_numbers() {
        assert_eq!(named("transaction-statuses", &json!(99)), "99");
        assert_eq!(named("transaction-statuses", &json!(70)), "70 Failed");
    }
}
