//! The columns of a list, per kind of record: how each gets its cell from
//! a record, the layouts of the kinds that have one, and the scalar fields
//! shown for the kinds that do not.

use std::borrow::Cow;

use serde_json::Value;

use super::values::{dictionary_of, named, text};
use crate::catalog::dictionaries as dict;
use crate::output::RecordKind;

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

pub(super) struct Col {
    pub(super) header: Cow<'static, str>,
    get: Get,
}

const fn col(header: &'static str, get: Get) -> Col {
    Col {
        header: Cow::Borrowed(header),
        get,
    }
}

pub(super) fn lookup<'a>(v: &'a Value, path: &str) -> &'a Value {
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
    pub(super) fn cell(&self, rec: &Value) -> String {
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
pub(super) fn layout(kind: RecordKind) -> Option<Vec<Col>> {
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
pub(super) fn generic(first: &Value) -> Vec<(String, String)> {
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
}
