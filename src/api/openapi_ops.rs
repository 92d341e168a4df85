//! Each operation of the OpenAPI document (see [`super::openapi`]): its
//! parameters, request body and responses, from its entry in the table.

use serde_json::{Map, Value, json};

use super::endpoints::{self, Body, Endpoint, Kind, Method, Op, Query};
use super::openapi::schema_ref;
use super::records;

/// The envelope of a success of `e` (`records.rs`).
fn success(e: &Endpoint) -> Value {
    schema_ref(&records::envelope_name(e))
}

/// The operation's name; an operation served at several paths (the
/// dictionaries, the two spellings) is named with its path too.
use super::operation_names::{operation_id, tag};
use super::query_params::query_param;

pub(super) fn operation(e: &Endpoint) -> Value {
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
            "schema": schema_ref("Actor"),
            "description": "the actor written to created_by / modified_by, percent-encoded UTF-8, 1-64 characters once decoded, no control or invisible format characters (default: serve's --actor)"}));
    }
    params.push(json!({"name": "X-Request-Id", "in": "header", "required": false,
        "schema": {"type": "string"},
        "description": format!("the request's id, echoed in the answer's X-Request-Id and the access log when it is 1-{} visible ASCII characters; any other value is not refused but replaced by a generated id", super::access_log::MAX_REQUEST_ID)}));
    let ok = if e.creates() { "201" } else { "200" };
    let mut responses = Map::new();
    let content = if e.op == Op::Metrics {
        json!({"text/plain": {"schema": {"type": "string"}}})
    } else if e.kind == Kind::Document {
        json!({"application/json": {"schema": schema_ref("Document")}})
    } else {
        json!({"application/json": {"schema": success(e)}})
    };
    let mut success = json!({"description": "success", "content": content});
    if e.body == Body::ProfileLines {
        let count =
            |what: &str| json!({"schema": {"type": "integer", "minimum": 0}, "description": what});
        success["headers"] = json!({
            "Payctl-Created": count("profiles created (on a 409 too: those of the other lines)"),
            "Payctl-Skipped": count("lines skipped: their customer_key was in use (skip_existing)"),
        });
    }
    responses.insert(ok.into(), success);
    let err = |d: &str| json!({"$ref": format!("#/components/responses/{d}")});
    responses.insert("400".into(), err("Invalid"));
    responses.insert("401".into(), err("Unauthorized"));
    responses.insert("403".into(), err("Forbidden"));
    // A filter of the transactions names a status, a template, a program or
    // a customer: one that does not exist is 404 too.
    if !e.path_params().is_empty() || e.body != Body::None || e.query == Query::Transactions {
        responses.insert("404".into(), err("NotFound"));
    }
    if e.method != Method::Get {
        responses.insert("409".into(), err("Conflict"));
    }
    if e.body != Body::None {
        responses.insert("413".into(), err("TooLarge"));
        responses.insert("415".into(), err("UnsupportedMediaType"));
    }
    // Health and readiness are never limited (see api::limit).
    if !matches!(e.op, Op::Health | Op::Ready) {
        responses.insert("429".into(), err("TooManyRequests"));
    }
    responses.insert("500".into(), err("StoreUnusable"));
    responses.insert("503".into(), err("Busy"));
    let mut op = json!({
        "operationId": operation_id(e),
        "tags": [tag(e.op)],
        "summary": e.summary,
        "parameters": params,
        "responses": responses,
    });
    if e.alias {
        op["deprecated"] = json!(true);
    }
    if e.body == Body::ProfileLines {
        op["requestBody"] = json!({"required": true, "description": IMPORT_BODY,
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}}});
    }
    if let Some(name) = body_schema(e.body) {
        op["requestBody"] = json!({"required": true,
            "content": {"application/json": {"schema": schema_ref(name)}}});
    }
    op
}

/// The body of the import, which no JSON schema of one value describes.
const IMPORT_BODY: &str = "JSON Lines (`application/x-ndjson`, also accepted as \
`application/jsonl`): one ProfileCreate body (`#/components/schemas/ProfileCreate`) a line, \
each at most 1 MiB; blank lines, CRLF line ends and a byte-order mark are ignored. Read as a \
stream, up to 4 GiB whatever --max-body says. Every line is checked before anything is \
written: one refused line refuses the import (400 or 409, each bad line named `line N: \
PATH: RULE`) and nothing is created. Then the profiles are committed in chunks, in line \
order; a customer_key that another request took meanwhile refuses its line (409, the other \
lines created: see Payctl-Created).";

/// The schema of a JSON body, by name.
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
        Body::RuleCreate => "RuleCreate",
        Body::WebhookCreate => "WebhookCreate",
        Body::EventResend => "EventResend",
        // Not JSON: JSON Lines (see `openapi_ops`).
        Body::ProfileLines => return None,
    })
}
