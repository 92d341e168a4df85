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

/// One plain dictionary entry (`<name>_id`, `<name>_name`,
/// `<name>_display_name`, `<name>_description`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub id: u32,
    pub name: &'static str,
    pub display_name: &'static str,
    pub description: &'static str,
}

/// A record of the `countries` dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Country {
    pub id: u32,
    pub name: &'static str,
    pub display_name: &'static str,
    pub two_letter_code: &'static str,
    pub three_letter_code: &'static str,
}

/// A record of the `states` dictionary (states of a country); `short_name` is
/// the USPS code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    pub id: u32,
    pub country_id: u32,
    pub name: &'static str,
    pub short_name: &'static str,
}

/// A record of the `transfer-types` dictionary: a plain entry plus the
/// cardinality, payment method, parameter type and internal marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferType {
    pub entry: Entry,
    pub cardinality_id: u32,
    pub payment_method_id: u32,
    pub parameter_type_id: u32,
    pub is_internal: bool,
}

const fn e(
    id: u32,
    name: &'static str,
    display_name: &'static str,
    description: &'static str,
) -> Entry {
    Entry {
        id,
        name,
        display_name,
        description,
    }
}

const fn st(id: u32, name: &'static str, short_name: &'static str) -> State {
    State {
        id,
        country_id: US,
        name,
        short_name,
    }
}

/// `country_id` of the United States, the only supported country.
const US: u32 = 1;

/// Customer types (spec 2.1).
pub const CUSTOMER_TYPES: &[Entry] = &[
    e(
        1,
        "Individual",
        "Individual",
        "A natural person who is a customer of the Facilitator.",
    ),
    e(
        2,
        "Organization",
        "Organization",
        "A business or other legal entity that is a customer of the Facilitator.",
    ),
    e(
        3,
        "Facilitator",
        "Facilitator",
        "The business party that owns the customers.",
    ),
    e(
        4,
        "CustomersOfProgram",
        "Customers of Program",
        "Any customer attached to the transaction's program.",
    ),
];

/// Address types (spec 2.2).
pub const ADDRESS_TYPES: &[Entry] = &[
    e(
        1,
        "Mailing",
        "Mailing",
        "The address where the customer receives mail.",
    ),
    e(
        2,
        "Street",
        "Street",
        "The physical street address of the customer.",
    ),
    e(
        3,
        "Billing",
        "Billing",
        "The address used for billing the customer.",
    ),
];

/// Countries (spec 2.2): only the United States is supported.
pub const COUNTRIES: &[Country] = &[Country {
    id: US,
    name: "UnitedStates",
    display_name: "United States",
    two_letter_code: "US",
    three_letter_code: "USA",
}];

/// The states of the United States, the District of Columbia and the
/// inhabited territories; ids in alphabetical order of name (stable).
pub const STATES: &[State] = &[
    st(1, "Alabama", "AL"),
    st(2, "Alaska", "AK"),
    st(3, "American Samoa", "AS"),
    st(4, "Arizona", "AZ"),
    st(5, "Arkansas", "AR"),
    st(6, "California", "CA"),
    st(7, "Colorado", "CO"),
    st(8, "Connecticut", "CT"),
    st(9, "Delaware", "DE"),
    st(10, "District of Columbia", "DC"),
    st(11, "Florida", "FL"),
    st(12, "Georgia", "GA"),
    st(13, "Guam", "GU"),
    st(14, "Hawaii", "HI"),
    st(15, "Idaho", "ID"),
    st(16, "Illinois", "IL"),
    st(17, "Indiana", "IN"),
    st(18, "Iowa", "IA"),
    st(19, "Kansas", "KS"),
    st(20, "Kentucky", "KY"),
    st(21, "Louisiana", "LA"),
    st(22, "Maine", "ME"),
    st(23, "Maryland", "MD"),
    st(24, "Massachusetts", "MA"),
    st(25, "Michigan", "MI"),
    st(26, "Minnesota", "MN"),
    st(27, "Mississippi", "MS"),
    st(28, "Missouri", "MO"),
    st(29, "Montana", "MT"),
    st(30, "Nebraska", "NE"),
    st(31, "Nevada", "NV"),
    st(32, "New Hampshire", "NH"),
    st(33, "New Jersey", "NJ"),
    st(34, "New Mexico", "NM"),
    st(35, "New York", "NY"),
    st(36, "North Carolina", "NC"),
    st(37, "North Dakota", "ND"),
    st(38, "Northern Mariana Islands", "MP"),
    st(39, "Ohio", "OH"),
    st(40, "Oklahoma", "OK"),
    st(41, "Oregon", "OR"),
    st(42, "Pennsylvania", "PA"),
    st(43, "Puerto Rico", "PR"),
    st(44, "Rhode Island", "RI"),
    st(45, "South Carolina", "SC"),
    st(46, "South Dakota", "SD"),
    st(47, "Tennessee", "TN"),
    st(48, "Texas", "TX"),
    st(49, "U.S. Virgin Islands", "VI"),
    st(50, "Utah", "UT"),
    st(51, "Vermont", "VT"),
    st(52, "Virginia", "VA"),
    st(53, "Washington", "WA"),
    st(54, "West Virginia", "WV"),
    st(55, "Wisconsin", "WI"),
    st(56, "Wyoming", "WY"),
];

/// Payment instrument types (spec 2.3).
pub const PAYMENT_INSTRUMENT_TYPES: &[Entry] = &[
    e(
        1,
        "Funding",
        "Funding",
        "A bank account from which funds are pulled into the program.",
    ),
    e(
        2,
        "Withdrawal",
        "Withdrawal",
        "A bank account to which funds are paid out of the program.",
    ),
];

/// Payment methods (spec 2.3 and 2.6).
pub const PAYMENT_METHODS: &[Entry] = &[
    e(
        1,
        "ACH",
        "ACH",
        "Electronic bank transfer through the Automated Clearing House network.",
    ),
    e(2, "Check", "Check", "A paper check mailed to the payee."),
];

/// ACH account types (`payment-instrument-ach-types`, spec 2.3).
pub const ACH_TYPES: &[Entry] = &[
    e(1, "Savings", "Savings", "A savings bank account."),
    e(2, "Checking", "Checking", "A checking bank account."),
];

/// Transfer types (spec 2.6, CLI.md "The built-in catalog").
pub const TRANSFER_TYPES: &[TransferType] = &[
    TransferType {
        entry: e(
            1,
            "ACHFunding",
            "ACH Funding",
            "Pulls funds from a customer's bank account into the member account.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: false,
    },
    TransferType {
        entry: e(
            2,
            "ACHWithdrawal",
            "ACH Withdrawal",
            "Pays funds from the member account out to a customer's bank account.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: false,
    },
    TransferType {
        entry: e(
            3,
            "InternalTransfer",
            "Internal Transfer",
            "Moves funds between customers, or an admin portion to the Facilitator.",
        ),
        cardinality_id: 2,
        payment_method_id: 1,
        parameter_type_id: 1,
        is_internal: true,
    },
    TransferType {
        entry: e(
            4,
            "CheckPayment",
            "Check Payment",
            "Pays a payee from the member account with a mailed paper check.",
        ),
        cardinality_id: 2,
        payment_method_id: 2,
        parameter_type_id: 2,
        is_internal: false,
    },
];

/// Destinations of template steps (spec 2.6).
pub const DESTINATIONS: &[Entry] = &[
    e(
        1,
        "MemberAccount",
        "Member Account",
        "The account a customer holds within the program.",
    ),
    e(
        2,
        "BankAccount",
        "Bank Account",
        "An external bank account reached through a payment instrument.",
    ),
    e(
        3,
        "Customer",
        "Customer",
        "Another customer profile of the Facilitator.",
    ),
    e(
        4,
        "Facilitator",
        "Facilitator",
        "The Facilitator's own account.",
    ),
    e(
        5,
        "CheckRecipient",
        "Check Recipient",
        "A payee who receives a mailed paper check.",
    ),
];

/// Account codes of template steps (spec 2.6).
pub const ACCOUNT_CODES: &[Entry] = &[
    e(
        1,
        "Principal",
        "Principal",
        "The principal amount moved on behalf of a customer.",
    ),
    e(2, "Fee", "Fee", "A fee collected for the Facilitator."),
    e(
        3,
        "Settlement",
        "Settlement",
        "Funds moved to settle balances between the parties.",
    ),
];

/// Cardinality of transfer types: number of transfers within one step.
pub const CARDINALITY: &[Entry] = &[
    e(1, "One", "One", "A single transfer per step."),
    e(2, "Many", "Many", "One transfer per parameter value."),
];

/// Parameter types of transfer types: which fields the input parameters need.
pub const PARAMETER_TYPES: &[Entry] = &[
    e(
        1,
        "Transfer",
        "Transfer",
        "Parameter values name a customer profile and an amount.",
    ),
    e(
        2,
        "Check",
        "Check",
        "Parameter values name a check payee, a US address and an amount.",
    ),
];

/// Statuses of a customer profile in a program (CLI.md "Status values").
pub const CUSTOMER_PROFILE_PROGRAM_STATUSES: &[Entry] = &[
    e(
        1,
        "Pending",
        "Pending",
        "Attach requested; the worker has not processed it yet.",
    ),
    e(
        10,
        "Attached",
        "Attached",
        "The customer profile is attached to the program.",
    ),
    e(
        20,
        "Rejected",
        "Rejected",
        "The worker refused the attachment; the reason says why.",
    ),
];

/// Statuses of a payment instrument (CLI.md "Status values").
pub const PAYMENT_INSTRUMENT_STATUSES: &[Entry] = &[e(
    40,
    "Active",
    "Active",
    "The payment instrument can be used.",
)];

/// Statuses of a transaction (CLI.md "Status values").
pub const TRANSACTION_STATUSES: &[Entry] = &[
    e(
        10,
        "Created",
        "Created",
        "The transaction exists; its steps are not generated yet.",
    ),
    e(
        20,
        "Processing",
        "Processing",
        "Steps are generated and not all of them have finished.",
    ),
    e(
        60,
        "Completed",
        "Completed",
        "Every step of the transaction completed.",
    ),
    e(
        70,
        "Failed",
        "Failed",
        "A step failed and the later steps were cancelled.",
    ),
];

/// Statuses of a transaction step (CLI.md "Status values").
pub const TRANSACTION_STEP_STATUSES: &[Entry] = &[
    e(10, "Pending", "Pending", "The step has not run yet."),
    e(
        60,
        "Completed",
        "Completed",
        "The step completed successfully.",
    ),
    e(
        70,
        "Failed",
        "Failed",
        "The step failed; the reason says why.",
    ),
    e(
        80,
        "Cancelled",
        "Cancelled",
        "The step was not run because an earlier step failed.",
    ),
];

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
