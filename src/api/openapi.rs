//! The OpenAPI 3.1 document of the served API (`GET /openapi.json`, `payctl
//! openapi`), generated from the endpoint table so that it cannot drift from
//! what `payctl serve` routes: every path and method, its path and query
//! parameters, its request body (the field names are the core's own lists),
//! its statuses and the envelope of each answer.

use serde_json::{Map, Value, json};

use super::endpoints::{self, Body, ENDPOINTS, Endpoint, Kind, Method, Query};
use crate::core::{address, instrument, profile, program, txn};

fn schema_ref(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// The schema of one request field, by its name.
fn field(name: &str) -> Value {
    let text = |min: u32, max: u32| json!({"type": "string", "minLength": min, "maxLength": max});
    match name {
        "customer_type_id"
        | "address_type_id"
        | "country_id"
        | "state_id"
        | "payment_instrument_type_id"
        | "payment_method_id"
        | "payment_instrument_ach_type_id" => {
            json!({"type": "integer", "minimum": 0})
        }
        "is_default" => json!({"type": "boolean"}),
        "customer_key" => {
            json!({"type": "string", "minLength": 5, "maxLength": 50, "pattern": "^[A-Za-z0-9!@.\\-_#]+$"})
        }
        "customer_profile_tags" | "payment_instrument_tags" | "transaction_tags" => {
            json!({"type": "array", "items": schema_ref("Tag")})
        }
        "first_name" | "middle_name" | "last_name" | "city" => text(0, 50),
        "email" => text(1, 256),
        "date_of_birth" => json!({"type": "string", "description": "YYYY-MM-DD or MM/DD/YYYY"}),
        "ssn" => json!({"type": "string", "pattern": "^([0-9]{4}|[0-9]{9})$"}),
        "mobile_phone" | "home_phone" | "office_phone" => {
            json!({"type": "string", "pattern": "^\\+[1-9][0-9]{1,15}$"})
        }
        "address_line1"
        | "address_line2"
        | "payment_instrument_label"
        | "payment_instrument_change_reason"
        | "customer_profile_program_status_reason"
        | "transaction_status_reason"
        | "check_note"
        | "organization_name" => text(0, 256),
        "zip" => json!({"type": "string", "pattern": "^[0-9]{5}(-[0-9]{4})?$"}),
        "account_number" => json!({"type": "string", "pattern": "^[0-9]{4,17}$"}),
        "routing_number" => json!({"type": "string", "pattern": "^[0-9]{9}$"}),
        "amount" => {
            json!({"type": "number", "exclusiveMinimum": 0, "description": "at most 2 decimal places; kept exactly as sent"})
        }
        "customer_profile_individual" => schema_ref("Individual"),
        "payment_instrument_ach" => schema_ref("Ach"),
        "transaction_parameters" => json!({"type": "array", "items": schema_ref("Parameter")}),
        "transaction_parameter_values" => {
            json!({"type": "array", "items": schema_ref("ParameterValue")})
        }
        // Identifiers of records (or, where the CLI allows it, their names).
        _ => json!({"type": "string"}),
    }
}

/// An object of `fields`, `required` of them required; no other member.
fn object(fields: &[&str], required: &[&str]) -> Value {
    let props: Map<String, Value> = fields.iter().map(|f| (f.to_string(), field(f))).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn body_schema(b: Body) -> Option<&'static str> {
    Some(match b {
        Body::None => return None,
        Body::ProfileCreate => "ProfileCreate",
        Body::ProfileUpdate => "ProfileUpdate",
        Body::AddressCreate => "AddressCreate",
        Body::AddressUpdate => "AddressUpdate",
        Body::InstrumentCreate => "InstrumentCreate",
        Body::InstrumentUpdate => "InstrumentUpdate",
        Body::Attach => "Attach",
        Body::TxnCreate => "TransactionCreate",
    })
}

fn kind_schema(k: Kind) -> &'static str {
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
        Kind::Dictionary(_) => "DictionaryRecord",
        Kind::DictionaryName => "DictionaryName",
        Kind::WorkerSummary => "WorkerSummary",
        Kind::Health => "Health",
        Kind::Document => "Document",
        // Answers of commands without an endpoint: never in the document.
        Kind::Imported | Kind::Summary => "Document",
    }
}

/// A record whose identifier is the string `id` (other fields are listed by the spec and CLI.md).
fn record(id: &str, prefix: Option<&str>) -> Value {
    let mut id_schema = json!({"type": "string"});
    if let Some(p) = prefix {
        id_schema["pattern"] = json!(format!("^{p}_"));
    }
    json!({"type": "object", "required": [id], "properties": {id: id_schema}})
}

fn schemas() -> Value {
    let tag = json!({"type": "object", "required": ["key", "value"], "additionalProperties": false,
        "properties": {"key": {"type": "string", "minLength": 1, "maxLength": 50},
                       "value": {"type": "string", "minLength": 1, "maxLength": 50}}});
    let count = json!({"type": "integer", "minimum": 0});
    json!({
        "Envelope": {
            "type": "object",
            "description": "Every answer (spec 1): paging for lists, data on success, errors on failure.",
            "required": ["paging", "data", "errors"],
            "properties": {
                "paging": {"oneOf": [{"type": "null"}, schema_ref("Paging")]},
                "data": {"type": ["array", "null"]},
                "errors": {"type": ["array", "null"], "items": schema_ref("Error")}
            }
        },
        "ErrorEnvelope": {
            "type": "object",
            "required": ["paging", "data", "errors"],
            "properties": {
                "paging": {"type": "null"},
                "data": {"type": "null"},
                "errors": {"type": "array", "minItems": 1, "items": schema_ref("Error")}
            }
        },
        "Error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}
        },
        "Paging": {
            "type": "object",
            "required": ["page_size", "page_number", "total_count", "last_evaluated_key"],
            "properties": {
                "page_size": {"type": "integer", "minimum": 1, "maximum": 1000},
                "page_number": {"type": "integer", "minimum": 1},
                "total_count": count,
                "last_evaluated_key": {"type": ["string", "null"]}
            }
        },
        "Tag": tag,
        "Individual": object(profile::INDIVIDUAL_FIELDS, &["first_name", "last_name", "email", "date_of_birth", "mobile_phone"]),
        "Ach": object(instrument::ACH_FIELDS, instrument::ACH_FIELDS),
        "Parameter": object(txn::PARAMETER_FIELDS, txn::PARAMETER_FIELDS),
        "ParameterValue": object(txn::VALUE_FIELDS, &["amount"]),
        "ProfileCreate": object(profile::FIELDS, &["customer_type_id", "customer_key", "customer_profile_individual"]),
        "ProfileUpdate": object(profile::FIELDS, &[]),
        "AddressCreate": object(address::FIELDS, address::REQUIRED),
        "AddressUpdate": object(address::FIELDS, &[]),
        "InstrumentCreate": object(instrument::FIELDS, instrument::FIELDS),
        "InstrumentUpdate": object(instrument::FIELDS, &[]),
        "Attach": object(program::ATTACH_FIELDS, &["customer_profile_id"]),
        "TransactionCreate": object(txn::FIELDS, &["program_id", "application_id", "transaction_template_id", "transaction_parameters"]),
        "Id": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
        "Profile": record("customer_profile_id", Some("csp")),
        "Address": record("address_id", Some("cpa")),
        "Instrument": record("payment_instrument_id", Some("pin")),
        "Program": record("program_id", Some("prm")),
        "Application": record("application_id", Some("app")),
        "Template": record("transaction_template_id", Some("trt")),
        "TemplateStep": record("transaction_template_step_id", Some("tts")),
        "Attachment": {"type": "object", "required": ["customer_profile_id", "program_id", "customer_profile_program_status_id"],
            "properties": {"customer_profile_id": {"type": "string"}, "program_id": {"type": "string"},
                           "customer_profile_program_status_id": {"type": "integer"}}},
        "Transaction": record("transaction_id", Some("trn")),
        "StoredParameter": {"type": "object", "required": ["transaction_parameter_id", "transaction_parameter_name"],
            "properties": {"transaction_parameter_id": {"type": "integer"}, "transaction_parameter_name": {"type": "string"}}},
        "Step": record("transaction_step_id", Some("trs")),
        "DictionaryRecord": {"type": "object", "minProperties": 1},
        "DictionaryName": record("dictionary_name", None),
        "WorkerSummary": {"type": "object",
            "required": ["attachments_processed", "transactions_processed", "steps_created", "steps_completed", "steps_failed"],
            "properties": {"attachments_processed": count, "transactions_processed": count,
                           "steps_created": count, "steps_completed": count, "steps_failed": count}},
        "Health": {"type": "object", "required": ["status", "commits"], "properties": {"status": {"const": "ok"}, "commits": {"type": "integer"}}},
        "Document": {"type": "object", "required": ["openapi", "paths"]}
    })
}

/// The envelope of a success of `e`.
fn success(e: &Endpoint) -> Value {
    let paging = if e.query == Query::None {
        json!({"type": "null"})
    } else {
        schema_ref("Paging")
    };
    json!({
        "type": "object",
        "required": ["paging", "data", "errors"],
        "properties": {
            "paging": paging,
            "data": {"type": "array", "items": schema_ref(kind_schema(e.kind))},
            "errors": {"type": "null"}
        }
    })
}

fn query_param(name: &str) -> Value {
    let (schema, what) = match name {
        "page_size" => (
            json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}),
            "records per page",
        ),
        "page_number" => (
            json!({"type": "integer", "minimum": 1}),
            "the page, from 1 (not with last_evaluated_key)",
        ),
        "last_evaluated_key" => (
            json!({"type": "string"}),
            "continue after this key of the previous page",
        ),
        "tag" => (
            json!({"type": "string", "pattern": "^[^:]*:.*$"}),
            "KEY:VALUE; repeatable, all must match",
        ),
        "status" => (
            json!({"type": "integer", "minimum": 0}),
            "transaction_status_id",
        ),
        _ => (json!({"type": "string"}), "only records with this value"),
    };
    let mut p = json!({"name": name, "in": "query", "required": false, "schema": schema, "description": what});
    if name == "tag" {
        p["explode"] = json!(true);
    }
    p
}

/// The operation's name; an operation served at several paths (the
/// dictionaries, the two spellings) is named with its path too.
fn operation_id(e: &Endpoint) -> String {
    let name = format!("{:?}", e.op);
    if ENDPOINTS.iter().filter(|o| o.op == e.op).count() == 1 {
        return name;
    }
    let path: String = e
        .path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let alias = if e.alias { "_alias" } else { "" };
    format!("{name}{path}{alias}")
}

fn operation(e: &Endpoint) -> Value {
    let mut params: Vec<Value> = e
        .path_params()
        .into_iter()
        .map(|name| {
            json!({"name": name, "in": "path", "required": true,
                   "schema": {"type": "string", "minLength": 1}})
        })
        .collect();
    params.extend(
        endpoints::query_names(e.query)
            .iter()
            .map(|n| query_param(n)),
    );
    if e.creates() {
        params.push(json!({"name": "Idempotency-Key", "in": "header", "required": false,
            "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[A-Za-z0-9\\-_.:~+/=]+$"},
            "description": "a retry with the same key and request answers the first result; another request with it is 409 (21005)"}));
    }
    if e.method != Method::Get {
        params.push(json!({"name": "X-Payctl-Actor", "in": "header", "required": false,
            "schema": {"type": "string", "minLength": 1, "maxLength": 192,
                       "pattern": "^([!-$&-~]|%[0-9A-Fa-f]{2})([ !-$&-~]|%[0-9A-Fa-f]{2})*$"},
            "description": "the actor written to created_by / modified_by, percent-encoded UTF-8, 1-64 characters once decoded, no control or invisible format characters (default: serve's --actor)"}));
    }
    let ok = if e.creates() { "201" } else { "200" };
    let mut responses = Map::new();
    let content = if e.kind == Kind::Document {
        json!({"application/json": {"schema": schema_ref("Document")}})
    } else {
        json!({"application/json": {"schema": success(e)}})
    };
    responses.insert(
        ok.into(),
        json!({"description": "success", "content": content}),
    );
    let err = |d: &str| json!({"$ref": format!("#/components/responses/{d}")});
    responses.insert("400".into(), err("Invalid"));
    responses.insert("401".into(), err("Unauthorized"));
    if !e.path_params().is_empty() || e.body != Body::None {
        responses.insert("404".into(), err("NotFound"));
    }
    if e.method != Method::Get {
        responses.insert("409".into(), err("Conflict"));
    }
    if e.body != Body::None {
        responses.insert("413".into(), err("TooLarge"));
        responses.insert("415".into(), err("UnsupportedMediaType"));
    }
    responses.insert("500".into(), err("StoreUnusable"));
    responses.insert("503".into(), err("Busy"));
    let mut op = json!({
        "operationId": operation_id(e),
        "summary": e.summary,
        "parameters": params,
        "responses": responses,
    });
    if let Some(name) = body_schema(e.body) {
        op["requestBody"] = json!({"required": true,
            "content": {"application/json": {"schema": schema_ref(name)}}});
    }
    op
}

/// The document as a server started with `--token` serves it: every
/// operation requires the Bearer token (401 otherwise), so no anonymous
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
            "title": "payctl: customer profiles, payment instruments and transactions",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The spec's HTTP API as `payctl serve` serves it. Every answer is the envelope {paging, data, errors}. With `serve --token`, every request needs `Authorization: Bearer TOKEN`."
        },
        "servers": [{"url": "/"}],
        "security": [{}, {"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "responses": {
                "Invalid": error("invalid request: validation (10001-10005), a bad query parameter or header"),
                "Unauthorized": error("no or another Bearer token (10007)"),
                "NotFound": error("a record in the path does not exist (20001)"),
                "Conflict": error("conflict with the state of a record (21001-21005)"),
                "TooLarge": error("the body is larger than --max-body (10009)"),
                "UnsupportedMediaType": error("the body's Content-Type is not JSON (10005)"),
                "StoreUnusable": error("the store cannot be used (30002-30004)"),
                "Busy": {
                    "description": "the store is busy (30001); retry after Retry-After seconds",
                    "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                    "content": {"application/json": {"schema": schema_ref("ErrorEnvelope")}}
                }
            }
        }
    })
}
