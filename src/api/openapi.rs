//! The OpenAPI 3.1 document of the served API (`GET /openapi.json`, `payctl openapi`), generated
//! from the endpoint table so that it cannot drift from what `payctl serve` routes: every path
//! and method, its path and query parameters, its request body (the field names are the core's
//! own lists), its statuses and the envelope of each answer, whose records' schemas are derived
//! from the model types the server serializes (`records.rs`).
//!
//! Each request field states the rule the core applies to it wherever a schema can say it
//! (lengths, patterns, the values the built-in dictionaries fix, array bounds, what an update
//! refuses), from the validators' own constants; the rules a schema cannot say (a store's
//! catalog, the age limits, a field's current value) are in descriptions. Each operation is built
//! in `openapi_ops.rs`.

use serde_json::{Map, Value, json};

use super::endpoints::ENDPOINTS;
use super::records;
use crate::catalog::dictionaries as dict;
use crate::core::{address, instrument, profile, program, rules, txn};
use crate::limits::MAX_ACTOR;

pub(super) fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The allowed values of an integer field whose values a built-in dictionary
/// fixes: a range when they are contiguous, else an enum.
pub(crate) fn ids_schema(mut ids: Vec<u32>, what: &str) -> Value {
    ids.sort_unstable();
    ids.dedup();
    let (lo, hi) = (ids[0], ids[ids.len() - 1]);
    let mut s = if ids.len() == 1 {
        json!({"type": "integer", "const": lo})
    } else if (hi - lo) as usize + 1 == ids.len() {
        json!({"type": "integer", "minimum": lo, "maximum": hi})
    } else {
        json!({"type": "integer", "enum": ids})
    };
    s["description"] = json!(format!(
        "{what}; written as a plain whole number (`1`, not `1.0` or `1e0`)"
    ));
    s
}

/// [`ids_schema`] of a dictionary's entries; an enum names its values
/// (`x-enum-varnames`, the entries' names) for the generators that read it.
fn entries_schema(entries: &[dict::Entry], what: &str) -> Value {
    let mut s = ids_schema(entry_ids(entries), what);
    if let Some(one) = s.as_object_mut().and_then(|o| o.remove("const")) {
        s["enum"] = json!([one]);
    }
    if s.get("enum").is_some() {
        let mut sorted = entries.to_vec();
        sorted.sort_by_key(|e| e.id);
        s["x-enum-varnames"] = sorted.iter().map(|e| e.name).collect();
    }
    s
}

pub(super) fn entry_ids(entries: &[dict::Entry]) -> Vec<u32> {
    entries.iter().map(|e| e.id).collect()
}

/// A pattern of ASCII digits, as many as one of `counts` (ascending or not).
fn digits_pattern(counts: &[usize]) -> String {
    let mut counts = counts.to_vec();
    counts.sort_unstable();
    let alts: Vec<String> = counts.iter().map(|n| format!("[0-9]{{{n}}}")).collect();
    format!("^(?:{})$", alts.join("|"))
}

fn state_ids() -> Vec<u32> {
    dict::STATES
        .iter()
        .filter(|s| s.country_id == address::US)
        .map(|s| s.id)
        .collect()
}

pub use super::patterns::{actor_pattern, clean_text_pattern};

/// A string of `min`-`max` characters (Unicode code points, as the server
/// counts them) with none that every string field refuses.
fn text(min: u32, max: u32) -> Value {
    json!({"type": "string", "minLength": min, "maxLength": max, "pattern": clean_text_pattern()})
}

/// A non-empty string with none of the characters every string field refuses.
fn identifier() -> Value {
    json!({"type": "string", "minLength": 1, "pattern": clean_text_pattern()})
}

/// The date rule: its written form only (a real calendar date and the
/// Facilitator's age limits are checked too, which a pattern cannot say).
const DATE_PATTERN: &str = rules::DATE_PATTERN;

/// The schema of one request field, by its name (the same rule wherever the
/// name occurs; [`schemas`] adjusts the few that differ by context); an
/// identifier of a record when no rule names it.
fn field(name: &str) -> Value {
    rule(name).unwrap_or_else(identifier)
}

/// The rule of the field `name`, wherever it occurs: in a request body (see
/// [`field`]) and in the records of the answers (`records.rs` adds its
/// bounds, patterns and values to the record schemas derived from the
/// model). `None` for the identifiers of records and the fields no rule
/// names.
pub(crate) fn rule(name: &str) -> Option<Value> {
    // The phone rule without its anchors, for the optional phones.
    let phone = rules::PHONE_PATTERN
        .trim_start_matches('^')
        .trim_end_matches('$');
    let (name_max, text_max) = (rules::NAME_MAX as u32, rules::TEXT_MAX as u32);
    Some(match name {
        "customer_type_id" => ids_schema(
            entry_ids(dict::CUSTOMER_TYPES),
            "a customer type (`GET /dictionaries/customer-types`)",
        ),
        "address_type_id" => ids_schema(
            entry_ids(dict::ADDRESS_TYPES),
            "an address type (`GET /dictionaries/address-types`)",
        ),
        "payment_instrument_type_id" => ids_schema(
            entry_ids(dict::PAYMENT_INSTRUMENT_TYPES),
            "a payment instrument type (`GET /dictionaries/payment-instrument-types`)",
        ),
        "payment_instrument_ach_type_id" => ids_schema(
            entry_ids(dict::ACH_TYPES),
            "an ACH account type (`GET /dictionaries/payment-instrument-ach-types`)",
        ),
        // Set by the service only: in the records of the answers.
        "payment_instrument_status_id" => entries_schema(
            dict::PAYMENT_INSTRUMENT_STATUSES,
            "a payment instrument status (`GET /dictionaries/payment-instrument-statuses`)",
        ),
        "customer_profile_program_status_id" => entries_schema(
            dict::CUSTOMER_PROFILE_PROGRAM_STATUSES,
            "a status of a profile in a program (`GET /dictionaries/customer-profile-program-statuses`)",
        ),
        "transaction_status_id" => entries_schema(
            dict::TRANSACTION_STATUSES,
            "a transaction status (`GET /dictionaries/transaction-statuses`)",
        ),
        "transaction_step_status_id" => entries_schema(
            dict::TRANSACTION_STEP_STATUSES,
            "a transaction step status (`GET /dictionaries/transaction-step-statuses`)",
        ),
        "transfer_type_id" => ids_schema(
            dict::TRANSFER_TYPES.iter().map(|t| t.entry.id).collect(),
            "a transfer type (`GET /dictionaries/transfer-types`)",
        ),
        "destination_id" => ids_schema(
            entry_ids(dict::DESTINATIONS),
            "a destination (`GET /dictionaries/destinations`)",
        ),
        "account_code_id" => ids_schema(
            entry_ids(dict::ACCOUNT_CODES),
            "an account code (`GET /dictionaries/account-codes`)",
        ),
        "source_customer_type_ids" | "target_customer_type_ids" => {
            json!({"type": "array", "items": rule("customer_type_id")?})
        }
        "payment_method_id" => ids_schema(
            vec![instrument::ACH_METHOD],
            "only ACH (1) is supported for payment instruments",
        ),
        "country_id" => ids_schema(vec![address::US], "only the United States (1) is supported"),
        "state_id" => ids_schema(
            state_ids(),
            "a state of the United States (`GET /dictionaries/countries/1/states`)",
        ),
        "is_default" => json!({"type": "boolean"}),
        "customer_key" => {
            json!({"type": "string", "minLength": profile::KEY_LEN.0, "maxLength": profile::KEY_LEN.1, "pattern": KEY_PATTERN})
        }
        "customer_profile_tags" => {
            json!({"type": "array", "maxItems": rules::caps::TAGS, "items": schema_ref("Tag")})
        }
        "payment_instrument_tags" => {
            json!({"type": "array", "minItems": 1, "maxItems": rules::caps::TAGS, "items": schema_ref("Tag"),
            "description": "at least one tag; a key may occur once"})
        }
        "transaction_tags" => {
            json!({"type": "array", "maxItems": rules::caps::TAGS, "items": schema_ref("TransactionTag"),
            "description": "a key may occur once"})
        }
        "first_name" | "last_name" | "city" | "organization_name" => text(1, name_max),
        "middle_name" => {
            let mut s = text(0, name_max);
            s["description"] = json!("an empty string clears it");
            s
        }
        "email" => {
            json!({"type": "string", "minLength": 1, "maxLength": rules::EMAIL_MAX, "pattern": rules::EMAIL_PATTERN,
            "description": "the WHATWG HTML rule of a valid e-mail address"})
        }
        "date_of_birth" => json!({"type": "string", "pattern": DATE_PATTERN,
            "description": "MM/DD/YYYY or YYYY-MM-DD, a real calendar date; the customer's age must be within the Facilitator's limits"}),
        "ssn" => {
            json!({"type": "string", "pattern": format!("^(?:{})?$", digits_pattern(profile::SSN_DIGITS).trim_start_matches('^').trim_end_matches('$')),
            "description": "9 digits or 4 digits; an empty string is the same as none. Every answer shows only its last 4 digits"})
        }
        "mobile_phone" => json!({"type": "string", "pattern": rules::PHONE_PATTERN}),
        "home_phone" | "office_phone" => {
            json!({"type": "string", "pattern": format!("^(?:{phone})?$"),
            "description": "an empty string clears it"})
        }
        "address_line1" | "payment_instrument_label" | "payment_instrument_change_reason" => {
            text(1, text_max)
        }
        "address_line2"
        | "customer_profile_program_status_reason"
        | "transaction_status_reason"
        | "check_note" => text(0, text_max),
        "zip" => json!({"type": "string", "pattern": rules::ZIP_PATTERN}),
        "account_number" => {
            let (lo, hi) = instrument::ACCOUNT_DIGITS;
            json!({"type": "string", "pattern": format!("^[0-9]{{{lo},{hi}}}$"),
                   "description": format!("{}; every answer shows only its last 4 digits", instrument::ACCOUNT_RULE)})
        }
        "routing_number" => {
            json!({"type": "string", "pattern": digits_pattern(&[instrument::ROUTING_DIGITS]),
            "description": format!("{}; every answer shows only its last 4 digits", instrument::ROUTING_RULE)})
        }
        // Not `multipleOf: 0.01`: validators that read JSON numbers as binary
        // floats refuse 19.99, 1.15 or 0.07 with it. The rule is in words and
        // in `x-payctl-decimal-places`, as in the answers (model::amount_schema).
        "amount" => {
            json!({"type": "number", "exclusiveMinimum": 0,
            "exclusiveMaximum": format!("1e{}", rules::AMOUNT_INT_DIGITS).parse::<f64>().expect("a number"),
            "x-payctl-decimal-places": rules::AMOUNT_PLACES,
            "description": format!("greater than 0, at most {} decimal places as written (`5.000` is refused like `0.001`), at most {} digits before the decimal point; kept exactly as sent. Send it as a JSON number written in decimal (`19.99`), from a decimal type rather than a binary float", rules::AMOUNT_PLACES, rules::AMOUNT_INT_DIGITS)})
        }
        "account_id" => {
            json!({"type": ["string", "null"], "minLength": 1,
            "description": "`@source_customers` and `@targets` values only (null elsewhere): the id of one of the value's customer's payment instruments, which the step then must use (it must be Active and of the step's type when the worker runs it); null lets any of the customer's instruments do"})
        }
        "customer_profile_individual" => schema_ref("Individual"),
        "payment_instrument_ach" => schema_ref("Ach"),
        "transaction_parameters" => {
            json!({"type": "array", "maxItems": rules::caps::PARAMETERS, "items": schema_ref("Parameter"),
            "description": "every parameter the template's mandatory steps map"})
        }
        "transaction_parameter_name" => {
            // `@source_customers` is no identifier: generators that read
            // `x-enum-varnames` name it SOURCE_CUSTOMERS, not VALUE_0.
            let names: Vec<String> = crate::catalog::PARAMETER_NAMES
                .iter()
                .map(|n| n.trim_start_matches('@').to_ascii_uppercase())
                .collect();
            json!({"type": "string", "enum": crate::catalog::PARAMETER_NAMES, "x-enum-varnames": names,
            "description": "a parameter that the template's steps map"})
        }
        "transaction_parameter_values" => {
            json!({"type": "array", "minItems": 1, "maxItems": rules::caps::VALUES, "items": schema_ref("ParameterValue")})
        }
        "program_id" | "application_id" | "transaction_template_id" => {
            let mut s = identifier();
            s["description"] = json!(
                "an identifier (or, for a transaction, the name) in the Facilitator's catalog of this store: which ones exist depends on the store, not on this document"
            );
            s
        }
        // Identifiers of records (customer_profile_id), and what no rule names.
        _ => return None,
    })
}

/// Characters of customer keys and tags: digits, letters, `! @ . - _ #`.
const KEY_PATTERN: &str = rules::KEY_PATTERN;

/// An object of `fields`, `required` of them required; no other member.
fn object(fields: &[&str], required: &[&str]) -> Value {
    let props: Map<String, Value> = fields.iter().map(|f| (f.to_string(), field(f))).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// Mark the properties `names` of `schema` as not updatable: they may be
/// sent with their current value; a different one is refused (10003).
fn not_updatable(mut schema: Value, names: &[&str]) -> Value {
    for n in names {
        let p = &mut schema["properties"][*n];
        assert!(p.is_object(), "{n} is a property");
        let old = p
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!("{d}; "))
            .unwrap_or_default();
        if p.get("$ref").is_some() {
            *p = json!({"allOf": [p.clone()]});
        }
        p["readOnly"] = json!(true);
        p["description"] = json!(format!(
            "{old}cannot be updated: it may be sent with its current value, a different value is refused (10003)"
        ));
    }
    schema
}

/// Replace the properties `names` of `schema` by null only: any value is
/// refused in an update, the stored one too (10003), so that an update never
/// tells whether a guess is right.
fn never_sent(mut schema: Value, names: &[&str]) -> Value {
    for n in names {
        schema["properties"][*n] = json!({"type": "null",
            "description": "cannot be updated: any value is refused (10003), the stored one too; leave it out (null is ignored)"});
    }
    schema
}

/// Let the properties `names` of `schema` be null too: the server reads a
/// null field as an absent one (an optional field of a create, every field
/// an update may leave out and that is not refused whatever its value).
fn nullable(mut schema: Value, names: &[&str]) -> Value {
    for n in names {
        let p = &mut schema["properties"][*n];
        assert!(p.is_object(), "{n} is a property");
        if p["type"] == "null" {
            continue;
        }
        match p.get("type").and_then(Value::as_str) {
            Some(t) if p.get("const").is_none() && p.get("enum").is_none() => {
                p["type"] = json!([t, "null"]);
            }
            _ => {
                let mut inner = p.clone();
                let description = inner.as_object_mut().and_then(|o| o.remove("description"));
                *p = json!({"anyOf": [inner, {"type": "null"}]});
                if let Some(d) = description {
                    p["description"] = d;
                }
            }
        }
    }
    schema
}

/// The fields of the member `parent` in a list of required JSON paths.
fn nested(paths: &[&'static str], parent: &str) -> Vec<&'static str> {
    paths
        .iter()
        .filter_map(|p| p.strip_prefix(parent)?.strip_prefix('.'))
        .collect()
}

/// The top-level fields of a list of required JSON paths
/// (`customer_profile_individual.email` requires `customer_profile_individual`).
fn top_level(paths: &[&'static str]) -> Vec<&'static str> {
    let mut out: Vec<&str> = Vec::new();
    for p in paths {
        let first = p.split('.').next().unwrap_or(p);
        if !out.contains(&first) {
            out.push(first);
        }
    }
    out
}

fn schemas() -> Value {
    let key = json!({"type": "string", "minLength": rules::TAG_LEN.0, "maxLength": rules::TAG_LEN.1, "pattern": KEY_PATTERN});
    let tag = json!({"type": "object", "required": ["key", "value"], "additionalProperties": false,
        "description": "key and value: 3-50 of digits, letters and ! @ . - _ #",
        "properties": {"key": key, "value": key}});
    let txn_tag = json!({"type": "object", "required": ["key", "value"], "additionalProperties": false,
        "description": "key and value: 1-50 characters, any symbols",
        "properties": {"key": text(rules::TXN_TAG_LEN.0 as u32, rules::TXN_TAG_LEN.1 as u32),
                       "value": text(rules::TXN_TAG_LEN.0 as u32, rules::TXN_TAG_LEN.1 as u32)}});
    let mut profile_update = not_updatable(
        object(profile::FIELDS, &[]),
        &["customer_key", "customer_profile_tags"],
    );
    profile_update["properties"]["customer_profile_individual"] = schema_ref("IndividualUpdate");
    let profile_update = nullable(
        profile_update,
        &["customer_type_id", "customer_profile_individual"],
    );
    let mut instrument_update = not_updatable(
        object(instrument::FIELDS, &[]),
        &[
            "payment_instrument_tags",
            "payment_instrument_type_id",
            "payment_method_id",
            "program_id",
        ],
    );
    instrument_update["properties"]["payment_instrument_ach"] = schema_ref("AchUpdate");
    let instrument_update = nullable(
        instrument_update,
        &[
            "payment_instrument_label",
            "payment_instrument_change_reason",
            "is_default",
        ],
    );
    let ach_update = never_sent(
        not_updatable(
            object(instrument::ACH_FIELDS, &[]),
            &["payment_instrument_ach_type_id"],
        ),
        &["account_number", "routing_number"],
    );
    let mut attach = object(program::ATTACH_FIELDS, &["customer_profile_id"]);
    attach["properties"]["customer_profile_program_status_reason"]["maxLength"] =
        json!(program::MAX_REASON);
    let attach = nullable(attach, &["customer_profile_program_status_reason"]);
    let values = nullable(
        object(txn::VALUE_FIELDS, &["amount"]),
        &txn::VALUE_FIELDS
            .iter()
            .copied()
            .filter(|f| !["amount", "account_id"].contains(f))
            .collect::<Vec<_>>(),
    );
    let individual = nullable(
        object(
            profile::INDIVIDUAL_FIELDS,
            &nested(profile::REQUIRED, "customer_profile_individual"),
        ),
        &["middle_name", "ssn", "home_phone", "office_phone"],
    );
    let address_update = nullable(
        not_updatable(object(address::FIELDS, &[]), &["address_type_id"]),
        &address::FIELDS
            .iter()
            .copied()
            .filter(|f| *f != "address_type_id")
            .collect::<Vec<_>>(),
    );
    // What a schema cannot say: the default address stays the default
    // until another address becomes it (spec 3.2), so `false` on it is a
    // conflict (409, 21003), like a delete of it.
    let mut address_update = address_update;
    if let Some(d) = address_update.pointer_mut("/properties/is_default") {
        d["description"] = json!(
            "`true` makes this address the default (the previous one stops being it, in the same write); `false` on the profile's default address is refused with 409 (21003): a profile keeps its default until another address becomes it."
        );
    }
    let mut all = json!({
        "ErrorEnvelope": {
            "type": "object",
            "description": "The answer of a failure: errors only.",
            "required": ["paging", "data", "errors"],
            "properties": {
                "paging": {"type": "null"},
                "data": {"type": "null"},
                "errors": {"type": "array", "minItems": 1, "items": schema_ref("Error")}
            }
        },
        "Tag": tag,
        "Individual": individual,
        "Ach": object(instrument::ACH_FIELDS, instrument::ACH_FIELDS),
        "Parameter": object(txn::PARAMETER_FIELDS, txn::PARAMETER_FIELDS),
        "ParameterValue": values,
        "ProfileCreate": nullable(object(profile::FIELDS, &top_level(profile::REQUIRED)), &["customer_profile_tags"]),
        "ProfileUpdate": profile_update,
        "AddressCreate": nullable(object(address::FIELDS, address::REQUIRED), &["address_line2"]),
        "AddressUpdate": address_update,
        "InstrumentCreate": object(instrument::FIELDS, &top_level(instrument::REQUIRED)),
        "InstrumentUpdate": instrument_update,
        "Attach": attach,
        "TransactionCreate": nullable(object(txn::FIELDS, &["program_id", "application_id", "transaction_template_id", "transaction_parameters"]), &["transaction_status_reason", "transaction_tags"]),
        "Document": {"type": "object", "required": ["openapi", "paths"]}
    });
    all["TransactionTag"] = txn_tag;
    let updatable: Vec<&str> = profile::INDIVIDUAL_FIELDS
        .iter()
        .copied()
        .filter(|f| *f != "ssn")
        .collect();
    all["IndividualUpdate"] = nullable(
        never_sent(object(profile::INDIVIDUAL_FIELDS, &[]), &["ssn"]),
        &updatable,
    );
    all["AchUpdate"] = ach_update;
    all["RuleCreate"] = super::sim::rule_create_schema();
    all["Actor"] = json!({"type": "string", "minLength": 1, "maxLength": crate::api::server::MAX_ACTOR_HEADER,
        "pattern": actor_pattern(MAX_ACTOR),
        "description": "`X-Payctl-Actor`: visible ASCII, no leading or trailing space, percent-encoded UTF-8, 1-64 characters once decoded, none of the characters every text field refuses"});
    for (name, schema) in records::schemas() {
        assert!(all.get(&name).is_none(), "two schemas named {name}");
        all[name] = schema;
    }
    explain_requests(&mut all);
    all
}

/// The record each request body writes: its fields' descriptions (the model's
/// doc comments) explain the request's fields that no rule describes.
const WRITES: &[(&str, &str)] = &[
    ("ProfileCreate", "Profile"),
    ("ProfileUpdate", "Profile"),
    ("Individual", "StoredIndividual"),
    ("IndividualUpdate", "StoredIndividual"),
    ("Tag", "StoredTag"),
    ("TransactionTag", "StoredTag"),
    ("AddressCreate", "Address"),
    ("AddressUpdate", "Address"),
    ("InstrumentCreate", "Instrument"),
    ("InstrumentUpdate", "Instrument"),
    ("Ach", "StoredAch"),
    ("AchUpdate", "StoredAch"),
    ("Attach", "Attachment"),
    ("TransactionCreate", "Transaction"),
    ("Parameter", "StoredParameter"),
    ("ParameterValue", "StoredParameterValue"),
];

fn explain_requests(all: &mut Value) {
    for (request, record) in WRITES {
        let described: Map<String, Value> = all[*record]["properties"]
            .as_object()
            .expect("a record schema")
            .iter()
            .filter_map(|(k, p)| Some((k.clone(), p.get("description")?.clone())))
            .collect();
        let props = all[*request]["properties"]
            .as_object_mut()
            .expect("a request schema");
        for (k, p) in props.iter_mut() {
            if p.get("description").is_none()
                && let Some(d) = described.get(k)
            {
                p["description"] = d.clone();
            }
        }
    }
}

use super::openapi_ops::operation;

/// The document as a server with API keys or `--token` serves it: every
/// operation requires a Bearer credential (401 otherwise), so no anonymous
/// alternative is offered.
pub fn document_with_token() -> Value {
    let mut doc = document();
    doc["security"] = json!([{"bearer": []}]);
    doc
}

/// The whole document (`payctl openapi`; a server without `--token`, where
/// the Bearer token is optional).
pub fn document() -> Value {
    let mut paths: Map<String, Value> = Map::new();
    for e in ENDPOINTS {
        let item = paths.entry(e.path.to_string()).or_insert_with(|| json!({}));
        item[e.method.as_str().to_ascii_lowercase()] = operation(e);
    }
    let error = |d: &str| json!({"description": d, "content": {"application/json": {"schema": schema_ref("ErrorEnvelope")}}});
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "payctl",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The spec's HTTP API as `payctl serve` serves it. Every answer is the envelope {paging, data, errors}. Once the store has API keys (`payctl key create`), or with `serve --token`, every request but GET /_payctl/health needs `Authorization: Bearer SECRET`, and a key's role must allow it: reader every GET, writer also every create, update, delete and attach and the import (POST /_payctl/customer-profiles/import), admin also the rest of /_payctl/*."
        },
        "servers": [{"url": "/"}],
        "security": [{}, {"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {
                "Invalid": error("invalid request: validation (10001-10005), a bad query parameter or header"),
                "Unauthorized": error("no valid API key or token: missing, unknown, revoked or expired (10007)"),
                "Forbidden": error("the API key's role does not allow this request (10010); or, on a server without keys or token, a request a web page could have sent (10011)"),
                "NotFound": error("a record named in the path, the body or a filter does not exist (20001)"),
                "Conflict": error("conflict with the state of a record (21001-21005)"),
                "TooLarge": error("the body is larger than --max-body, or than 4 GiB for the import (10009)"),
                "UnsupportedMediaType": error("the body's Content-Type is not the documented one: JSON, or JSON Lines for the import (10005)"),
                "StoreUnusable": error("the store cannot be used (30002-30004)"),
                "TooManyRequests": {
                    "description": "more requests a second with this credential (or, without one, from this address) than the server's --rate-limit (10012); nothing was executed: retry after Retry-After seconds",
                    "headers": {"Retry-After": {"schema": {"type": "integer", "minimum": 1}}},
                    "content": {"application/json": {"schema": schema_ref("ErrorEnvelope")}}
                },
                "Busy": {
                    "description": "the store is busy (30001) or the database unreachable; retry after Retry-After seconds",
                    "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                    "content": {"application/json": {"schema": schema_ref("ErrorEnvelope")}}
                }
            }
        }
    })
}
