//! The answers' side of the OpenAPI document: the schema of every record
//! `payctl serve` sends, and of the envelope each operation answers.
//!
//! The record schemas are derived with `schemars` from the very types the
//! server serializes (`model::*`, `Paging`, the worker's `Summary`,
//! `ApiError`), with the serialize contract: a field added to a record is in
//! the document with its type and nullability, without another edit. What a
//! Rust type cannot say is added here from the core's own rules, by field
//! name, as the request bodies state them ([`super::openapi::rule`]):
//! lengths, patterns, the values a built-in dictionary fixes; the ids'
//! shape from `model::id`; `readOnly` on every field a request cannot set.
//! The sensitive fields say their masked form (`model::customer`).
//!
//! The records of the dictionaries are static data built as JSON
//! (`catalog::dictionaries`): their schemas are read off those records.

use schemars::generate::{Contract, SchemaSettings};
use serde_json::{Map, Value, json};

use super::endpoints::{ENDPOINTS, Endpoint, Kind, Query};
use super::openapi::{ids_schema, rule};
use crate::catalog::dictionaries as dict;
use crate::core::{address, instrument, profile, program, txn};
use crate::model::{self, id};
use crate::output::mask;

/// Fields whose text the worker writes (a status's reason): the request's
/// length rule does not bound them in the answers.
const SERVER_WRITTEN: &[&str] = &[
    "customer_profile_program_status_reason",
    "transaction_status_reason",
];

/// The fields of each record schema that a request sets (the core's lists):
/// every other field of these schemas is `readOnly`. The schemas of the
/// catalog, the steps and the dictionaries are read-only whole.
fn writable(schema: &str) -> Option<&'static [&'static str]> {
    Some(match schema {
        "Profile" => profile::FIELDS,
        "StoredIndividual" => profile::INDIVIDUAL_FIELDS,
        "StoredTag" => &["key", "value"],
        "Address" => address::FIELDS,
        "Instrument" => instrument::FIELDS,
        "StoredAch" => instrument::ACH_FIELDS,
        "Attachment" => program::ATTACH_FIELDS,
        "Transaction" => txn::FIELDS,
        "StoredParameter" => txn::PARAMETER_FIELDS,
        "StoredParameterValue" => txn::VALUE_FIELDS,
        "Program" | "Application" | "Template" | "TemplateStep" | "ParameterMapping" | "Step"
        | "Event" | "WebhookDelivery" | "WebhookResend" => &[],
        "Rule" => crate::core::sim::FIELDS,
        "Snapshot" | "Reset" => &[],
        "Webhook" => crate::core::webhooks::FIELDS,
        // Not records: the envelope's parts, the answers of the service.
        _ => return None,
    })
}

/// The schemas derived from the model, by name (`#/components/schemas/…`).
fn derived() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    // What the server sends: every field is there, `null` when empty.
    settings.contract = Contract::Serialize;
    let mut g = settings.into_generator();
    g.subschema_for::<model::reply::IdRecord>();
    g.subschema_for::<model::reply::DictionaryName>();
    g.subschema_for::<model::reply::Health>();
    g.subschema_for::<model::Profile>();
    g.subschema_for::<model::event::Event>();
    g.subschema_for::<model::webhook::WebhookShown>();
    g.subschema_for::<model::webhook::Delivery>();
    g.subschema_for::<crate::core::webhooks::Resend>();
    g.subschema_for::<crate::core::import::Created>();
    g.subschema_for::<model::Address>();
    g.subschema_for::<model::Instrument>();
    g.subschema_for::<model::Attachment>();
    g.subschema_for::<model::catalog::Program>();
    g.subschema_for::<model::catalog::Application>();
    g.subschema_for::<model::catalog::Template>();
    g.subschema_for::<model::catalog::TemplateStep>();
    g.subschema_for::<model::txn::Transaction>();
    g.subschema_for::<model::txn::Parameter>();
    g.subschema_for::<model::txn::Step>();
    g.subschema_for::<crate::core::summary::Summary>();
    g.subschema_for::<model::sim_rule::Rule>();
    g.subschema_for::<model::sim_rule::Snapshot>();
    g.subschema_for::<model::sim_rule::Reset>();
    g.subschema_for::<crate::core::paging::Paging>();
    g.subschema_for::<crate::error::ApiError>();
    g.take_definitions(true)
}

/// Add the rule of the field `name` to the schema `prop` the model gave it:
/// the model's type and nullability stay, the rule's bounds, pattern and
/// values are added (`null` joins the values of a nullable field).
fn constrain(prop: &mut Value, rule: &Value) {
    let nullable = match &prop["type"] {
        Value::Array(types) => types.iter().any(|t| t == "null"),
        _ => false,
    };
    let same_type = |t: &Value| match (&prop["type"], t) {
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Array(a), b) => a.contains(b),
        _ => false,
    };
    if !same_type(&rule["type"]) {
        return;
    }
    const BOUNDS: &[&str] = &[
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
        "x-enum-varnames",
    ];
    for k in BOUNDS {
        if let Some(v) = rule.get(*k) {
            prop[*k] = v.clone();
        }
    }
    let values = match (rule.get("const"), rule.get("enum")) {
        (Some(c), _) => Some(vec![c.clone()]),
        (None, Some(Value::Array(e))) => Some(e.clone()),
        _ => None,
    };
    if let Some(mut values) = values {
        if nullable {
            values.push(Value::Null);
        }
        let obj = prop.as_object_mut().expect("a property schema");
        // The values fix the field: its bounds would say it again.
        obj.remove("minimum");
        obj.remove("maximum");
        obj.insert("enum".into(), Value::Array(values));
    }
    // An array of ids (a template step's customer types): its items' rule.
    if let (Some(items), Some(rule_items)) = (prop.get_mut("items"), rule.get("items"))
        && items.get("$ref").is_none()
    {
        constrain(items, rule_items);
    }
}

/// The rules of the core on the properties of the derived schema `name`.
fn add_rules(name: &str, schema: &mut Value) {
    let writable = writable(name);
    let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (field, prop) in props.iter_mut() {
        let field = field.as_str();
        if let Some(prefix) = id::prefix_of(field) {
            prop["pattern"] = json!(id::pattern(prefix));
        } else if mask::SENSITIVE.contains(&field) || SERVER_WRITTEN.contains(&field) {
            // The model says their shown form.
        } else if let Some(r) = rule(field) {
            constrain(prop, &r);
        }
        if writable.is_some_and(|w| !w.contains(&field)) {
            prop["readOnly"] = json!(true);
        }
    }
}

/// `customer_profile_program_status` → `CustomerProfileProgramStatus`.
fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The prefix of the fields of dictionary `name` (`customer_type`).
fn dictionary_prefix(name: &str) -> String {
    let field = dict::id_field(name).expect("a dictionary of the table");
    field.trim_end_matches("_id").to_string()
}

/// The schema name of the records of dictionary `name` (`CustomerType`).
pub fn dictionary_schema_name(name: &str) -> String {
    pascal(&dictionary_prefix(name))
}

/// The dictionary whose fields start with `prefix`, if one does.
fn dictionary_of(prefix: &str) -> Option<&'static str> {
    dict::NAMES
        .iter()
        .copied()
        .find(|n| dictionary_prefix(n) == prefix)
}

/// The ids of the dictionary whose fields start with `prefix`, if one does,
/// with their names.
fn dictionary_ids(prefix: &str) -> Option<(Vec<Value>, Vec<u32>)> {
    let name = dictionary_of(prefix)?;
    let records = dict::records(name, address::US)?;
    let id = format!("{prefix}_id");
    let name_field = format!("{prefix}_name");
    let ids = records
        .iter()
        .filter_map(|r| r[&id].as_u64())
        .map(|i| i as u32);
    Some((
        records.iter().map(|r| r[&name_field].clone()).collect(),
        ids.collect(),
    ))
}

/// The schema of the records of dictionary `name`, read off its records:
/// each field's JSON type, every field required, and each `…_id` that names
/// a dictionary (its own, or another: a transfer type's `cardinality_id`)
/// held to that dictionary's values.
fn dictionary_schema(name: &'static str) -> Value {
    let records = dict::records(name, address::US).expect("a dictionary of the table");
    let first = records
        .first()
        .and_then(Value::as_object)
        .expect("a dictionary has records");
    let prefix = dictionary_prefix(name);
    let mut props = Map::new();
    for (field, v) in first {
        let mut p = match v {
            Value::Number(_) => json!({"type": "integer", "minimum": 0}),
            Value::Bool(_) => json!({"type": "boolean"}),
            _ => json!({"type": "string"}),
        };
        if let Some(target) = field.strip_suffix("_id")
            && let Some((names, ids)) = dictionary_ids(target)
        {
            p = ids_schema(ids, "");
            p["description"] = json!(format!(
                "an id of the dictionary `{}`",
                dictionary_of(target).unwrap_or(target)
            ));
            if p.get("enum").is_some() && names.iter().all(Value::is_string) {
                p["x-enum-varnames"] = Value::Array(names);
            }
        }
        let suffix = field.strip_prefix(&prefix).unwrap_or(field);
        let what = match suffix {
            "_id" => Some("its id"),
            "_name" => Some("its name"),
            "_display_name" => Some("its name as people read it"),
            "_description" => Some("what it means"),
            "_short_name" => Some("its short name (a state's USPS code)"),
            "_two_letter_code" => Some("ISO 3166-1 alpha-2"),
            "_three_letter_code" => Some("ISO 3166-1 alpha-3"),
            "is_internal" => Some("whether it moves funds between accounts of the program only"),
            _ => None,
        };
        if let Some(w) = what {
            p["description"] = json!(w);
        }
        p["readOnly"] = json!(true);
        props.insert(field.clone(), p);
    }
    let required: Vec<&String> = props.keys().collect();
    let path = ENDPOINTS
        .iter()
        .find(|e| e.kind == Kind::Dictionary(name) && !e.alias)
        .map_or("", |e| e.path);
    json!({
        "type": "object",
        "description": format!("An entry of the dictionary `{name}` (`GET {path}`): built-in values, the same in every store."),
        "required": required,
        "properties": props,
    })
}

/// The schema of the records of kind `k` (by `$ref` name).
pub fn record_schema_name(k: Kind) -> String {
    match k {
        Kind::Id => "Id",
        Kind::Profile => "Profile",
        Kind::Address => "Address",
        Kind::Instrument => "Instrument",
        Kind::Program => "Program",
        Kind::Application => "Application",
        Kind::Template => "Template",
        Kind::TemplateStep => "TemplateStep",
        Kind::Attachment => "Attachment",
        Kind::Transaction => "Transaction",
        Kind::Parameter => "StoredParameter",
        Kind::Step => "Step",
        Kind::Event => "Event",
        // The create's answer has the same fields, the secret whole.
        Kind::Webhook | Kind::NewWebhook => "Webhook",
        Kind::WebhookDelivery => "WebhookDelivery",
        Kind::WebhookResend => "WebhookResend",
        Kind::Dictionary(name) => return dictionary_schema_name(name),
        Kind::DictionaryName => "DictionaryName",
        Kind::WorkerSummary => "WorkerSummary",
        Kind::Health => "Health",
        Kind::Snapshot => "Snapshot",
        Kind::SimRule => "Rule",
        Kind::Reset => "Reset",
        Kind::Imported => "Imported",
        // The document itself; the answers of commands without an endpoint
        // are never in it.
        Kind::Document | Kind::Summary | Kind::Context | Kind::ApiKey | Kind::NewApiKey => {
            "Document"
        }
    }
    .to_string()
}

/// The name of the envelope that `e` answers on success: `ProfilePage` for
/// a list (with paging), `ProfileEnvelope` for one record.
pub fn envelope_name(e: &Endpoint) -> String {
    let record = record_schema_name(e.kind);
    if e.query == Query::None || e.kind == Kind::Imported {
        format!("{record}Envelope")
    } else {
        format!("{record}Page")
    }
}

fn envelope(e: &Endpoint) -> Value {
    let item = json!({"$ref": format!("#/components/schemas/{}", record_schema_name(e.kind))});
    let (description, paging, data) = if e.kind == Kind::Imported {
        (
            "The answer of an import: the profiles it created, in the order of their lines (none when every line was skipped), without paging.",
            json!({"type": "null"}),
            json!({"type": "array", "items": item}),
        )
    } else if e.query == Query::None {
        (
            "The answer of a success: its record, without paging.",
            json!({"type": "null"}),
            json!({"type": "array", "items": item, "minItems": 1, "maxItems": 1}),
        )
    } else {
        (
            "The answer of a list: one page of records and its paging.",
            json!({"$ref": "#/components/schemas/Paging"}),
            json!({"type": "array", "items": item}),
        )
    };
    json!({
        "type": "object",
        "description": description,
        "required": ["paging", "data", "errors"],
        "properties": {"paging": paging, "data": data, "errors": {"type": "null"}}
    })
}

/// Doc comments as descriptions: their lines joined into paragraphs (the
/// line breaks of the source are no part of the text).
fn join_lines(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                match x {
                    Value::String(s) if k == "description" => {
                        *s = s
                            .split("\n\n")
                            .map(|p| p.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    _ => join_lines(x),
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(join_lines),
        _ => {}
    }
}

/// Every schema of the answers: the records, their parts, the dictionary
/// records and the envelope of each operation.
pub fn schemas() -> Map<String, Value> {
    let mut all = derived();
    for (name, schema) in all.iter_mut() {
        add_rules(name, schema);
        join_lines(schema);
    }
    for name in dict::NAMES {
        all.insert(dictionary_schema_name(name), dictionary_schema(name));
    }
    for e in ENDPOINTS.iter().filter(|e| e.kind != Kind::Document) {
        all.insert(envelope_name(e), envelope(e));
    }
    webhook_requests(&mut all);
    all
}

/// The bodies of `POST /webhooks` and `POST /events/{id}/resend`.
fn webhook_requests(all: &mut Map<String, Value>) {
    use crate::model::webhook::{MAX_DESCRIPTION, MAX_GLOBS, MAX_URL};
    all.insert("WebhookCreate".into(), json!({
        "type": "object", "required": ["url"], "additionalProperties": false,
        "properties": {
            "url": {"type": "string", "minLength": 1, "maxLength": MAX_URL, "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$",
                    "description": "where the events are POSTed: http:// or https://"},
            "events": {"type": ["array", "null"], "minItems": 1, "maxItems": MAX_GLOBS,
                       "items": {"type": "string", "minLength": 1, "maxLength": 200},
                       "description": "event types or globs (`customer_profile.*`); default `[\"*\"]`, every event"},
            "description": {"type": ["string", "null"], "maxLength": MAX_DESCRIPTION}
        }
    }));
    all.insert("EventResend".into(), json!({
        "type": "object", "required": ["webhook_id"], "additionalProperties": false,
        "properties": {"webhook_id": {"type": "string", "minLength": 1, "description": "the webhook (`whk_…`) to send the event to once more"}}
    }));
}
