//! Dictionaries (spec 4.7 and the status dictionaries of CLI.md) through the binary.

use crate::common;

use common::Env;

const NAMES: &[&str] = &[
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

#[test]
fn without_a_name_the_names_are_listed() {
    let env = Env::new();
    let o = env.run(&["dict", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
    let names: Vec<&str> = o
        .data()
        .iter()
        .map(|r| r["dictionary_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, NAMES);
    assert_eq!(o.json["paging"]["total_count"], NAMES.len());
}

#[test]
fn every_dictionary_is_a_list_with_paging_and_ids() {
    let env = Env::new();
    for name in NAMES {
        let o = env.run(&["dict", "list", name]);
        assert_eq!(o.code, 0, "{name}: {o:?}");
        assert!(!o.data().is_empty(), "{name} is empty");
        // CLI.md: every list pages, 50 per page by default.
        let paging = &o.json["paging"];
        let total = paging["total_count"].as_u64().unwrap();
        assert_eq!(paging["page_size"], 50, "{name}");
        assert_eq!(o.data().len() as u64, total.min(50), "{name}");
        assert_eq!(
            paging["last_evaluated_key"].is_null(),
            total <= 50,
            "{name}"
        );
        let first = o.data()[0].as_object().unwrap();
        assert!(
            first.keys().next().unwrap().ends_with("_id"),
            "{name}: {first:?}"
        );
    }
}

#[test]
fn the_guide_spelling_customer_types_works() {
    let env = Env::new();
    let a = env.run(&["dict", "list", "customer_types"]);
    let b = env.run(&["dict", "list", "customer-types"]);
    assert_eq!(a.json, b.json);
    let ids: Vec<u64> = a
        .data()
        .iter()
        .map(|r| r["customer_type_id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(a.data()[0]["customer_type_name"], "Individual");
}

#[test]
fn states_hold_dc_and_the_territories_with_usps_codes() {
    let env = Env::new();
    let o = env.run(&[
        "dict",
        "list",
        "states",
        "--country",
        "1",
        "--page-size",
        "100",
    ]);
    let codes: Vec<&str> = o
        .data()
        .iter()
        .map(|s| s["state_short_name"].as_str().unwrap())
        .collect();
    assert_eq!(codes.len(), 56);
    for c in ["CA", "NY", "TX", "WY", "DC", "PR", "GU", "VI", "AS", "MP"] {
        assert!(codes.contains(&c), "{c} missing");
    }
    assert!(o.data().iter().all(|s| s["country_id"] == 1));
    // GET /dictionaries/countries/2/states: the country in the path does not exist.
    env.run(&["dict", "list", "states", "--country", "2"])
        .refused(1, 20001)
        .mentions("country 2");
}

#[test]
fn dictionaries_page_when_asked() {
    let env = Env::new();
    let p1 = env.run(&["dict", "list", "states", "--page-size", "20"]);
    assert_eq!(p1.data().len(), 20);
    assert_eq!(p1.json["paging"]["total_count"], 56);
    let key = p1.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(key, p1.data()[19]["state_id"].to_string());
    let p2 = env.run(&[
        "dict",
        "list",
        "states",
        "--page-size",
        "20",
        "--after",
        &key,
    ]);
    assert_eq!(p2.data()[0]["state_id"], 21);
    let p3 = env.run(&[
        "dict",
        "list",
        "states",
        "--page-size",
        "20",
        "--page-number",
        "3",
    ]);
    assert_eq!(p3.data().len(), 16);
    assert!(p3.json["paging"]["last_evaluated_key"].is_null());
}

#[test]
fn an_unknown_dictionary_is_refused() {
    let env = Env::new();
    env.run(&["dict", "list", "planets"])
        .refused(1, 20001)
        .mentions("customer-types");
}

#[test]
fn status_dictionaries_name_the_values_of_cli_md() {
    let env = Env::new();
    let pairs = |name: &str, field: &str| -> Vec<(u64, String)> {
        env.run(&["dict", "list", name])
            .data()
            .iter()
            .map(|r| {
                (
                    r[format!("{field}_id")].as_u64().unwrap(),
                    r[format!("{field}_name")].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let ids = |v: Vec<(u64, String)>| v.into_iter().map(|(i, _)| i).collect::<Vec<_>>();
    assert_eq!(
        ids(pairs(
            "customer-profile-program-statuses",
            "customer_profile_program_status"
        )),
        [1, 10, 20]
    );
    assert_eq!(
        ids(pairs(
            "payment-instrument-statuses",
            "payment_instrument_status"
        )),
        [40]
    );
    assert_eq!(
        ids(pairs("transaction-statuses", "transaction_status")),
        [10, 20, 60, 70]
    );
    assert_eq!(
        ids(pairs(
            "transaction-step-statuses",
            "transaction_step_status"
        )),
        [10, 60, 70, 80]
    );
    assert_eq!(ids(pairs("transfer-types", "transfer_type")), [1, 2, 3, 4]);
    assert_eq!(ids(pairs("payment-methods", "payment_method")), [1, 2]);
    assert_eq!(ids(pairs("address-types", "address_type")), [1, 2, 3]);
    assert_eq!(
        ids(pairs(
            "payment-instrument-ach-types",
            "payment_instrument_ach_type"
        )),
        [1, 2]
    );
}
