//! The built-in dictionaries of the payments service (spec 2.1-2.7 and 4.7,
//! and the status dictionaries of CLI.md): customer types, address types,
//! countries, US states and territories, payment instrument types, payment
//! methods, ACH account types, transfer types, destinations, account codes,
//! cardinality, parameter types and the four status dictionaries.
//!
//! The values are static Rust data. The functions of this module render them
//! as the JSON records of `GET /dictionaries/NAME` (`payctl dict list NAME`),
//! resolve the user's spelling of a dictionary name, and look up display names
//! for tables.

use serde_json::{Map, Value};

pub use super::dictionary_data::*;

/// The dictionary names accepted by `payctl dict list NAME`, canonical
/// spelling, in listing order.
pub use crate::model::limits::DICTIONARY_NAMES as NAMES;

/// What a dictionary holds.
#[derive(Clone, Copy)]
enum Kind {
    Plain(&'static [Entry]),
    Countries,
    States,
    TransferTypes,
}

/// A dictionary: its canonical name, the prefix of its field names and its
/// records.
#[derive(Clone, Copy)]
struct Dictionary {
    name: &'static str,
    prefix: &'static str,
    kind: Kind,
}

const fn dict(name: &'static str, prefix: &'static str, kind: Kind) -> Dictionary {
    Dictionary { name, prefix, kind }
}

/// Every dictionary, in the order of [`NAMES`].
const DICTIONARIES: &[Dictionary] = &[
    dict(
        "customer-types",
        "customer_type",
        Kind::Plain(CUSTOMER_TYPES),
    ),
    dict("address-types", "address_type", Kind::Plain(ADDRESS_TYPES)),
    dict("countries", "country", Kind::Countries),
    dict("states", "state", Kind::States),
    dict(
        "payment-instrument-types",
        "payment_instrument_type",
        Kind::Plain(PAYMENT_INSTRUMENT_TYPES),
    ),
    dict(
        "payment-methods",
        "payment_method",
        Kind::Plain(PAYMENT_METHODS),
    ),
    dict(
        "payment-instrument-ach-types",
        "payment_instrument_ach_type",
        Kind::Plain(ACH_TYPES),
    ),
    dict("transfer-types", "transfer_type", Kind::TransferTypes),
    dict("destinations", "destination", Kind::Plain(DESTINATIONS)),
    dict("account-codes", "account_code", Kind::Plain(ACCOUNT_CODES)),
    dict("cardinality", "cardinality", Kind::Plain(CARDINALITY)),
    dict(
        "parameter-types",
        "parameter_type",
        Kind::Plain(PARAMETER_TYPES),
    ),
    dict(
        "customer-profile-program-statuses",
        "customer_profile_program_status",
        Kind::Plain(CUSTOMER_PROFILE_PROGRAM_STATUSES),
    ),
    dict(
        "payment-instrument-statuses",
        "payment_instrument_status",
        Kind::Plain(PAYMENT_INSTRUMENT_STATUSES),
    ),
    dict(
        "transaction-statuses",
        "transaction_status",
        Kind::Plain(TRANSACTION_STATUSES),
    ),
    dict(
        "transaction-step-statuses",
        "transaction_step_status",
        Kind::Plain(TRANSACTION_STEP_STATUSES),
    ),
];

/// The dictionary a user spelling names, if any.
fn lookup(name: &str) -> Option<&'static Dictionary> {
    let normalize = |b: u8| match b {
        b'_' => b'-',
        _ => b.to_ascii_lowercase(),
    };
    DICTIONARIES.iter().find(|d| {
        d.name.len() == name.len()
            && d.name
                .bytes()
                .zip(name.bytes())
                .all(|(c, u)| c == normalize(u))
    })
}

/// Canonical name for a user spelling: accepts the canonical name, and the
/// same with `_` instead of `-` (so `customer_types` works),
/// case-insensitively. `None` if unknown.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    lookup(name).map(|d| d.name)
}

/// Appends the four plain fields of `entry` under `prefix` to `map`.
fn push_entry(map: &mut Map<String, Value>, prefix: &str, entry: &Entry) {
    map.insert(format!("{prefix}_id"), Value::from(entry.id));
    map.insert(format!("{prefix}_name"), Value::from(entry.name));
    map.insert(
        format!("{prefix}_display_name"),
        Value::from(entry.display_name),
    );
    map.insert(
        format!("{prefix}_description"),
        Value::from(entry.description),
    );
}

fn entry_record(prefix: &str, entry: &Entry) -> Value {
    let mut map = Map::new();
    push_entry(&mut map, prefix, entry);
    Value::Object(map)
}

fn country_record(country: &Country) -> Value {
    let mut map = Map::new();
    map.insert("country_id".into(), Value::from(country.id));
    map.insert("country_name".into(), Value::from(country.name));
    map.insert(
        "country_display_name".into(),
        Value::from(country.display_name),
    );
    map.insert(
        "country_two_letter_code".into(),
        Value::from(country.two_letter_code),
    );
    map.insert(
        "country_three_letter_code".into(),
        Value::from(country.three_letter_code),
    );
    Value::Object(map)
}

fn state_record(state: &State) -> Value {
    let mut map = Map::new();
    map.insert("state_id".into(), Value::from(state.id));
    map.insert("country_id".into(), Value::from(state.country_id));
    map.insert("state_name".into(), Value::from(state.name));
    map.insert("state_short_name".into(), Value::from(state.short_name));
    Value::Object(map)
}

fn transfer_type_record(transfer_type: &TransferType) -> Value {
    let mut map = Map::new();
    push_entry(&mut map, "transfer_type", &transfer_type.entry);
    map.insert(
        "cardinality_id".into(),
        Value::from(transfer_type.cardinality_id),
    );
    map.insert(
        "payment_method_id".into(),
        Value::from(transfer_type.payment_method_id),
    );
    map.insert(
        "parameter_type_id".into(),
        Value::from(transfer_type.parameter_type_id),
    );
    map.insert("is_internal".into(), Value::Bool(transfer_type.is_internal));
    Value::Object(map)
}

/// The records of a dictionary as JSON objects, in id order. `country` only
/// matters for `states` (states of that country; an unknown country gives an
/// empty list). `None` if the name is unknown.
pub fn records(name: &str, country: u32) -> Option<Vec<Value>> {
    let dictionary = lookup(name)?;
    let records = match dictionary.kind {
        Kind::Plain(entries) => entries
            .iter()
            .map(|entry| entry_record(dictionary.prefix, entry))
            .collect(),
        Kind::Countries => COUNTRIES.iter().map(country_record).collect(),
        Kind::States => STATES
            .iter()
            .filter(|state| state.country_id == country)
            .map(state_record)
            .collect(),
        Kind::TransferTypes => TRANSFER_TYPES.iter().map(transfer_type_record).collect(),
    };
    Some(records)
}

/// Field name of the identifier of a dictionary's records, e.g.
/// `"customer_type_id"`, `"state_id"`, `"cardinality_id"` (what `-o id` prints).
pub(crate) fn id_field(name: &str) -> Option<String> {
    lookup(name).map(|d| format!("{}_id", d.prefix))
}

/// Display name of a value, for tables: e.g.
/// `display_name("transaction-statuses", 60) == Some("Completed")`. States
/// have no display name of their own; their name is returned.
pub fn display_name(name: &str, id: u32) -> Option<&'static str> {
    match lookup(name)?.kind {
        Kind::Plain(entries) => entries
            .iter()
            .find(|entry| entry.id == id)
            .map(|entry| entry.display_name),
        Kind::Countries => COUNTRIES
            .iter()
            .find(|country| country.id == id)
            .map(|country| country.display_name),
        Kind::States => state(id).map(|state| state.name),
        Kind::TransferTypes => TRANSFER_TYPES
            .iter()
            .find(|transfer_type| transfer_type.entry.id == id)
            .map(|transfer_type| transfer_type.entry.display_name),
    }
}

/// The state (of any country) with this `state_id`.
pub fn state(id: u32) -> Option<&'static State> {
    STATES.iter().find(|state| state.id == id)
}

/// Whether `entries` holds a value with this id.
pub fn contains(entries: &[Entry], id: u32) -> bool {
    entries.iter().any(|entry| entry.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn plain_dictionaries() -> Vec<(&'static str, &'static [Entry])> {
        DICTIONARIES
            .iter()
            .filter_map(|d| match d.kind {
                Kind::Plain(entries) => Some((d.name, entries)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn states_cover_the_us_dc_and_inhabited_territories() {
        assert_eq!(STATES.len(), 56);
        let codes: HashSet<&str> = STATES.iter().map(|s| s.short_name).collect();
        assert_eq!(codes.len(), 56, "USPS codes are unique");
        let ids: HashSet<u32> = STATES.iter().map(|s| s.id).collect();
        assert_eq!(ids.len(), 56, "ids are unique");
        for (i, s) in STATES.iter().enumerate() {
            assert_eq!(s.id as usize, i + 1, "ids run 1.. without gaps");
            assert_eq!(s.country_id, 1);
            assert_eq!(s.short_name.len(), 2);
            assert!(s.short_name.bytes().all(|b| b.is_ascii_uppercase()));
        }
        assert!(
            STATES.windows(2).all(|w| w[0].name < w[1].name),
            "states are in alphabetical order of name"
        );
        let expected = [
            ("District of Columbia", "DC"),
            ("American Samoa", "AS"),
            ("Guam", "GU"),
            ("Northern Mariana Islands", "MP"),
            ("Puerto Rico", "PR"),
            ("U.S. Virgin Islands", "VI"),
            ("Alabama", "AL"),
            ("Alaska", "AK"),
            ("California", "CA"),
            ("Maine", "ME"),
            ("Missouri", "MO"),
            ("Nebraska", "NE"),
            ("New York", "NY"),
            ("Texas", "TX"),
            ("Wyoming", "WY"),
        ];
        for (name, code) in expected {
            let s = STATES
                .iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name} missing"));
            assert_eq!(s.short_name, code, "{name}");
        }
    }

    #[test]
    fn state_lookup() {
        assert_eq!(state(1).map(|s| s.short_name), Some("AL"));
        assert_eq!(state(10).map(|s| s.short_name), Some("DC"));
        assert_eq!(state(56).map(|s| s.short_name), Some("WY"));
        assert!(state(0).is_none());
        assert!(state(57).is_none());
    }

    #[test]
    fn canonical_names() {
        assert_eq!(canonical_name("customer_types"), Some("customer-types"));
        assert_eq!(canonical_name("customer-types"), Some("customer-types"));
        assert_eq!(canonical_name("Customer_Types"), Some("customer-types"));
        assert_eq!(
            canonical_name("PAYMENT-INSTRUMENT-ACH-TYPES"),
            Some("payment-instrument-ach-types")
        );
        assert_eq!(canonical_name("customertypes"), None);
        assert_eq!(canonical_name("customer types"), None);
        assert_eq!(canonical_name(""), None);
        assert_eq!(canonical_name("customer-types-"), None);
        for name in NAMES {
            assert_eq!(canonical_name(name), Some(*name));
            assert_eq!(canonical_name(&name.replace('-', "_")), Some(*name));
            assert_eq!(canonical_name(&name.to_uppercase()), Some(*name));
        }
    }

    #[test]
    fn names_match_dictionaries() {
        assert_eq!(NAMES.len(), 16);
        let names: Vec<&str> = DICTIONARIES.iter().map(|d| d.name).collect();
        assert_eq!(names, NAMES);
    }

    #[test]
    fn every_name_renders_records_with_its_id_field() {
        for name in NAMES {
            let records = records(name, 1).unwrap_or_else(|| panic!("{name}"));
            assert!(!records.is_empty(), "{name} has records");
            let field = id_field(name).unwrap();
            let mut previous = 0;
            for record in &records {
                let id = record[field.as_str()]
                    .as_u64()
                    .unwrap_or_else(|| panic!("{name}: {field} in {record}"));
                assert!(id > previous, "{name} is in id order");
                previous = id;
                let id = u32::try_from(id).unwrap();
                assert!(display_name(name, id).is_some(), "{name} {id}");
            }
        }
        assert!(records("nope", 1).is_none());
        assert!(id_field("nope").is_none());
    }

    #[test]
    fn id_fields() {
        assert_eq!(
            id_field("customer_types").as_deref(),
            Some("customer_type_id")
        );
        assert_eq!(id_field("states").as_deref(), Some("state_id"));
        assert_eq!(id_field("countries").as_deref(), Some("country_id"));
        assert_eq!(id_field("cardinality").as_deref(), Some("cardinality_id"));
        assert_eq!(
            id_field("payment-instrument-ach-types").as_deref(),
            Some("payment_instrument_ach_type_id")
        );
        assert_eq!(
            id_field("transaction-step-statuses").as_deref(),
            Some("transaction_step_status_id")
        );
    }

    #[test]
    fn record_shapes() {
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        let address = &records("address-types", 1).unwrap()[0];
        assert_eq!(
            keys(address),
            [
                "address_type_id",
                "address_type_name",
                "address_type_display_name",
                "address_type_description"
            ]
        );
        let country = &records("countries", 1).unwrap()[0];
        assert_eq!(
            keys(country),
            [
                "country_id",
                "country_name",
                "country_display_name",
                "country_two_letter_code",
                "country_three_letter_code"
            ]
        );
        assert_eq!(country["country_two_letter_code"], "US");
        assert_eq!(country["country_three_letter_code"], "USA");
        let states = records("states", 1).unwrap();
        assert_eq!(states.len(), 56);
        assert_eq!(
            keys(&states[0]),
            ["state_id", "country_id", "state_name", "state_short_name"]
        );
        assert_eq!(states[9]["state_short_name"], "DC");
        assert_eq!(records("states", 2), Some(vec![]));
        let transfer = &records("transfer-types", 1).unwrap()[3];
        assert_eq!(
            keys(transfer),
            [
                "transfer_type_id",
                "transfer_type_name",
                "transfer_type_display_name",
                "transfer_type_description",
                "cardinality_id",
                "payment_method_id",
                "parameter_type_id",
                "is_internal"
            ]
        );
        assert_eq!(transfer["transfer_type_display_name"], "Check Payment");
        assert_eq!(transfer["payment_method_id"], 2);
        assert_eq!(transfer["parameter_type_id"], 2);
        assert_eq!(transfer["is_internal"], false);
        let status = &records("transaction_statuses", 1).unwrap()[2];
        assert_eq!(status["transaction_status_id"], 60);
        assert_eq!(status["transaction_status_name"], "Completed");
    }

    #[test]
    fn display_names() {
        assert_eq!(display_name("transaction-statuses", 60), Some("Completed"));
        assert_eq!(display_name("transaction-statuses", 61), None);
        assert_eq!(
            display_name("transaction-step-statuses", 80),
            Some("Cancelled")
        );
        assert_eq!(
            display_name("customer-profile-program-statuses", 10),
            Some("Attached")
        );
        assert_eq!(
            display_name("payment-instrument-statuses", 40),
            Some("Active")
        );
        assert_eq!(display_name("customer_types", 1), Some("Individual"));
        assert_eq!(display_name("transfer-types", 1), Some("ACH Funding"));
        assert_eq!(display_name("transfer-types", 3), Some("Internal Transfer"));
        assert_eq!(display_name("countries", 1), Some("United States"));
        assert_eq!(display_name("states", 10), Some("District of Columbia"));
        assert_eq!(display_name("payment-methods", 2), Some("Check"));
        assert_eq!(display_name("nope", 1), None);
    }

    #[test]
    fn entries_are_well_formed() {
        for (dict, entries) in plain_dictionaries() {
            let ids: HashSet<u32> = entries.iter().map(|e| e.id).collect();
            assert_eq!(ids.len(), entries.len(), "{dict}: unique ids");
            let names: HashSet<&str> = entries.iter().map(|e| e.name).collect();
            assert_eq!(names.len(), entries.len(), "{dict}: unique names");
            assert!(entries.windows(2).all(|w| w[0].id < w[1].id), "{dict}");
            for entry in entries {
                assert!(!entry.name.contains(' '), "{dict}: {}", entry.name);
                assert!(!entry.display_name.is_empty());
                assert!(entry.description.ends_with('.'), "{dict}: {}", entry.id);
            }
        }
        for t in TRANSFER_TYPES {
            assert!(contains(CARDINALITY, t.cardinality_id));
            assert!(contains(PAYMENT_METHODS, t.payment_method_id));
            assert!(contains(PARAMETER_TYPES, t.parameter_type_id));
            assert!(!t.entry.name.contains(' '));
        }
    }

    #[test]
    fn fixed_values() {
        let pairs = |entries: &[Entry]| -> Vec<(u32, &'static str)> {
            entries.iter().map(|e| (e.id, e.display_name)).collect()
        };
        assert_eq!(
            pairs(CUSTOMER_TYPES),
            [
                (1, "Individual"),
                (2, "Organization"),
                (3, "Facilitator"),
                (4, "Customers of Program")
            ]
        );
        assert_eq!(CUSTOMER_TYPES[3].name, "CustomersOfProgram");
        assert_eq!(
            pairs(ADDRESS_TYPES),
            [(1, "Mailing"), (2, "Street"), (3, "Billing")]
        );
        assert_eq!(
            pairs(PAYMENT_INSTRUMENT_TYPES),
            [(1, "Funding"), (2, "Withdrawal")]
        );
        assert_eq!(pairs(PAYMENT_METHODS), [(1, "ACH"), (2, "Check")]);
        assert_eq!(pairs(ACH_TYPES), [(1, "Savings"), (2, "Checking")]);
        assert_eq!(pairs(CARDINALITY), [(1, "One"), (2, "Many")]);
        assert_eq!(pairs(PARAMETER_TYPES), [(1, "Transfer"), (2, "Check")]);
        assert_eq!(
            pairs(CUSTOMER_PROFILE_PROGRAM_STATUSES),
            [(1, "Pending"), (10, "Attached"), (20, "Rejected")]
        );
        assert_eq!(pairs(PAYMENT_INSTRUMENT_STATUSES), [(40, "Active")]);
        assert_eq!(
            pairs(TRANSACTION_STATUSES),
            [
                (10, "Created"),
                (20, "Processing"),
                (60, "Completed"),
                (70, "Failed")
            ]
        );
        assert_eq!(
            pairs(TRANSACTION_STEP_STATUSES),
            [
                (10, "Pending"),
                (60, "Completed"),
                (70, "Failed"),
                (80, "Cancelled")
            ]
        );
        let transfer: Vec<(u32, &str, bool)> = TRANSFER_TYPES
            .iter()
            .map(|t| (t.entry.id, t.entry.display_name, t.is_internal))
            .collect();
        assert_eq!(
            transfer,
            [
                (1, "ACH Funding", false),
                (2, "ACH Withdrawal", false),
                (3, "Internal Transfer", true),
                (4, "Check Payment", false)
            ]
        );
        assert!(contains(ADDRESS_TYPES, 3));
        assert!(!contains(ADDRESS_TYPES, 4));
        assert!(!contains(&[], 1));
    }
}
