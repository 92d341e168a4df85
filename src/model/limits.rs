//! The shapes of the model's values that the OpenAPI document states and
//! the rules check: kept here, in the lowest layer, so that the model's
//! schemas and `core`'s validators read the same constants (re-exported
//! where `core`, `mask` and `catalog` always had them).

/// How the audit fields write a time (UTC, no zone, microseconds): fixed
/// width, so that times compare as their text does.
pub const TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6f";
/// What [`TIME_FORMAT`] writes, as a pattern (the OpenAPI document's).
pub const TIME_PATTERN: &str = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}$";
/// The longest tag key or value of any record.
pub const TAG_MAX: usize = 50;
/// Most decimal places of an amount.
pub const AMOUNT_PLACES: u32 = 2;
/// Largest transaction_parameter_id (exclusive): exact in every JSON reader.
pub const MAX_PARAMETER_ID: u64 = 1 << 53;
/// A sensitive field as every answer shows it: its last 4 digits (each of
/// them is digits only, of at least 4), as the OpenAPI document says.
pub const MASKED_PATTERN: &str = "^[0-9]{4}$";

/// The dictionary names accepted by `payctl dict list NAME`, canonical
/// spelling, in listing order.
pub const DICTIONARY_NAMES: &[&str] = &[
    "customer-types",
    "address-types",
    "countries",
    "states",
    "payment-instrument-types",
    "payment-methods",
    "payment-instrument-ach-types",
    "transfer-types",
    "destinations",
    "account-codes",
    "cardinality",
    "parameter-types",
    "customer-profile-program-statuses",
    "payment-instrument-statuses",
    "transaction-statuses",
    "transaction-step-statuses",
];
