//! Serde records of the store and the API, identifiers and status values.
//!
//! Field names are the spec's JSON names, including its two spellings of the
//! audit timestamps (`created_datetime` on most records, `created_date_time`
//! on programs and transaction parameters).

pub mod api_key;
pub mod catalog;
pub mod customer;
pub mod digest;
pub mod event;
pub mod id;
pub mod invariants;
pub mod limits;
pub mod reply;
pub mod sim_rule;
pub mod status;
pub mod txn;
pub mod webhook;

pub use customer::*;

/// The schema of an amount as `payctl serve` sends it: `Decimal` serializes
/// as a JSON number with its exact digits (`serde_json`'s
/// `arbitrary_precision`), never as a string or a rounded float. The
/// two-decimal rule is said in words and in `x-payctl-decimal-places`, not
/// with `multipleOf: 0.01`, which validators that read numbers as binary
/// floats refuse for 19.99, 1.15 or 0.07.
fn amount_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "number",
        "exclusiveMinimum": 0,
        "x-payctl-decimal-places": crate::model::limits::AMOUNT_PLACES,
        "description": "Exact as it was sent: a JSON number greater than 0 with at most 2 decimal places (`100.50` stays `100.50`); read it as a decimal, not a binary float."
    })
}

/// For `skip_serializing_if`: a field left out of a file while it is 0.
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}
