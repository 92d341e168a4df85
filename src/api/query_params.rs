//! The OpenAPI document's query parameters: each one's schema and
//! description, with the values the server accepts.

use serde_json::{Value, json};

use super::openapi::{entry_ids, ids_schema};
use crate::catalog::dictionaries as dict;

pub(super) fn query_param(name: &str) -> Value {
    let (schema, what) = match name {
        "page_size" => (
            json!({"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}),
            "records per page",
        ),
        "page_number" => (
            json!({"type": "integer", "minimum": 1, "maximum": u32::MAX}),
            "the page, from 1 (with last_evaluated_key as well, the key wins)",
        ),
        "last_evaluated_key" => (
            json!({"type": "string"}),
            "continue after this key of the previous page",
        ),
        // Repeated as `tag=a:1&tag=b:2` (form style, exploded): an array,
        // so that generated clients take a list.
        "tag" => (
            json!({"type": "array", "items": {"type": "string", "pattern": "^[^:]*:.*$"}}),
            "KEY:VALUE, as often as needed: a profile must have every one of them",
        ),
        "status" => {
            let mut s = ids_schema(
                entry_ids(dict::TRANSACTION_STATUSES),
                "a transaction status",
            );
            s.as_object_mut().expect("an object").remove("description");
            (
                s,
                "transaction_status_id, a value of `GET /dictionaries/transaction-statuses`",
            )
        }
        "template" | "program" => (
            json!({"type": "string"}),
            "only records of this id or name in the Facilitator's catalog (one this store's catalog does not hold is refused: which ones exist depends on the store)",
        ),
        // Repeated as `type=a&type=b`, or `type=a,b`: any of them matches.
        "type" => (
            json!({"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 200}}),
            "event types or globs of them (`customer_profile.*`, `*.failed`), repeated or separated by commas: an event of any of them",
        ),
        "record_id" => (
            json!({"type": "string", "minLength": 1, "maxLength": 200}),
            "only the events of this record (an attachment's carry its customer's id)",
        ),
        "since" => (
            json!({"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?Z?)?$"}),
            "only events created at or after this UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z])",
        ),
        "skip_existing" => (
            json!({"type": "boolean", "default": false}),
            "skip the lines whose customer_key a stored profile already has (counted in Payctl-Skipped) instead of refusing the import (21002)",
        ),
        _ => (json!({"type": "string"}), "only records with this value"),
    };
    let mut p = json!({"name": name, "in": "query", "required": false, "schema": schema, "description": what});
    if name == "tag" || name == "type" {
        p["style"] = json!("form");
        p["explode"] = json!(true);
    }
    p
}
