//! `payctl address …`: customer profile addresses (spec 2.2, 4.2).

use crate::common;

use common::{Env, Out, address_body};
use serde_json::{Value, json};

/// A store with one profile; its id.
fn setup() -> (Env, String) {
    let env = Env::new();
    let csp = env.create_profile("addr-cust-1");
    (env, csp)
}

fn create(env: &Env, csp: &str, body: &Value) -> Out {
    env.body(&["address", "create", csp], body)
}

fn with(mut body: Value, field: &str, v: Value) -> Value {
    body[field] = v;
    body
}

fn without(mut body: Value, field: &str) -> Value {
    body.as_object_mut().unwrap().remove(field);
    body
}

fn list(env: &Env, csp: &str) -> Vec<Value> {
    let o = env.run(&["address", "list", csp]);
    assert_eq!(o.code, 0, "{o:?}");
    o.data().clone()
}

fn get(env: &Env, csp: &str, cpa: &str) -> Value {
    let o = env.run(&["address", "get", csp, cpa]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data().len(), 1);
    o.data()[0].clone()
}

fn defaults(env: &Env, csp: &str) -> Vec<String> {
    list(env, csp)
        .iter()
        .filter(|a| a["is_default"] == true)
        .map(|a| a["address_id"].as_str().unwrap().to_string())
        .collect()
}

/// Assert that `body` is refused with `api` (exit 1) and the store is unchanged.
fn refused_create(env: &Env, csp: &str, body: &Value, api: u64) -> Out {
    let before = env.snapshot();
    let o = create(env, csp, body);
    o.refused(1, api);
    assert_eq!(before, env.snapshot(), "a refused create changed the store");
    o
}

fn refused_update(env: &Env, csp: &str, cpa: &str, body: &Value, api: u64) -> Out {
    let before = env.snapshot();
    let o = env.body(&["address", "update", csp, cpa], body);
    o.refused(1, api);
    assert_eq!(before, env.snapshot(), "a refused update changed the store");
    o
}

#[test]
fn create_and_get_round_trip() {
    let (env, csp) = setup();
    let cpa = create(&env, &csp, &address_body(true)).id();
    assert!(cpa.starts_with("cpa_"), "{cpa}");
    let a = get(&env, &csp, &cpa);
    let keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "address_id",
            "customer_profile_id",
            "address_type_id",
            "is_default",
            "country_id",
            "state_id",
            "first_name",
            "last_name",
            "address_line1",
            "address_line2",
            "city",
            "zip",
            "created_by",
            "created_datetime",
            "modified_by",
            "modified_datetime"
        ]
    );
    assert_eq!(a["address_id"], cpa);
    assert_eq!(a["customer_profile_id"], csp);
    assert_eq!(a["address_type_id"], 1);
    assert_eq!(a["is_default"], true);
    assert_eq!(a["country_id"], 1);
    assert_eq!(a["state_id"], 5);
    assert_eq!(a["first_name"], "Ada");
    assert_eq!(a["last_name"], "Lovelace");
    assert_eq!(a["address_line1"], "1 Main St");
    assert_eq!(a["address_line2"], "");
    assert_eq!(a["city"], "Springfield");
    assert_eq!(a["zip"], "12345");
    assert_eq!(a["created_by"], "tester");
    assert_eq!(a["modified_by"], "tester");
    assert!(a["created_datetime"].is_string());
    let o = env.run(&["address", "get", &csp, &cpa]);
    assert!(o.json["paging"].is_null());
    assert!(o.json["errors"].is_null());
}

#[test]
fn create_answers_id_and_output_id_prints_it() {
    let (env, csp) = setup();
    let o = create(&env, &csp, &address_body(true));
    assert_eq!(o.code, 0);
    assert!(o.json["paging"].is_null());
    assert_eq!(o.data().len(), 1);
    assert_eq!(o.data()[0].as_object().unwrap().len(), 1);

    let body = address_body(false).to_string();
    let o = env.run_with(
        &["address", "create", &csp, "--body", "-", "-o", "id"],
        Some(body.as_bytes()),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let id = o.stdout.trim();
    assert!(
        id.starts_with("cpa_") && !id.contains('\n'),
        "{:?}",
        o.stdout
    );
    assert_eq!(get(&env, &csp, id)["address_id"], id);
}

#[test]
fn create_from_flags_and_flags_win_over_body() {
    let (env, csp) = setup();
    let cpa = env
        .run(&[
            "address",
            "create",
            &csp,
            "--address-type-id",
            "2",
            "--default",
            "true",
            "--country-id",
            "1",
            "--state-id",
            "6",
            "--first-name",
            "Grace",
            "--last-name",
            "Hopper",
            "--address-line1",
            "2 Navy Rd",
            "--address-line2",
            "Apt 4",
            "--city",
            "Arlington",
            "--zip",
            "22201-1234",
        ])
        .id();
    let a = get(&env, &csp, &cpa);
    assert_eq!(a["address_type_id"], 2);
    assert_eq!(a["is_default"], true);
    assert_eq!(a["state_id"], 6);
    assert_eq!(a["address_line2"], "Apt 4");
    assert_eq!(a["zip"], "22201-1234");

    let cpa = env
        .body(
            &[
                "address",
                "create",
                &csp,
                "--city",
                "Flagtown",
                "--default",
                "false",
            ],
            &address_body(true),
        )
        .id();
    let a = get(&env, &csp, &cpa);
    assert_eq!(a["city"], "Flagtown");
    assert_eq!(a["is_default"], false);
    assert_eq!(a["first_name"], "Ada");
}

#[test]
fn bad_default_flag_is_a_usage_error() {
    let (env, csp) = setup();
    let before = env.snapshot();
    let o = env.body(
        &["address", "create", &csp, "--default", "maybe"],
        &address_body(true),
    );
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(before, env.snapshot());
}

#[test]
fn first_address_may_be_non_default() {
    let (env, csp) = setup();
    let cpa = create(&env, &csp, &address_body(false)).id();
    assert_eq!(get(&env, &csp, &cpa)["is_default"], false);
    assert!(defaults(&env, &csp).is_empty());
}

#[test]
fn address_line2_may_be_absent_or_empty() {
    let (env, csp) = setup();
    let cpa = create(&env, &csp, &without(address_body(false), "address_line2")).id();
    assert!(get(&env, &csp, &cpa)["address_line2"].is_null());
    let cpa = create(&env, &csp, &address_body(false)).id();
    assert_eq!(get(&env, &csp, &cpa)["address_line2"], "");
}

#[test]
fn unknown_profile_is_not_found() {
    let (env, _) = setup();
    for csp in ["csp_doesnotexist000000", "csp_../../etc", "nonsense"] {
        refused_create(&env, csp, &address_body(true), 20001);
        env.run(&["address", "list", csp]).refused(1, 20001);
        env.run(&["address", "get", csp, "cpa_abc"])
            .refused(1, 20001);
        refused_update(&env, csp, "cpa_abc", &json!({"city": "X"}), 20001);
        let before = env.snapshot();
        env.run(&["address", "delete", csp, "cpa_abc", "--yes"])
            .refused(1, 20001);
        assert_eq!(before, env.snapshot());
    }
}

#[test]
fn unknown_or_malformed_address_is_not_found() {
    let (env, csp) = setup();
    create(&env, &csp, &address_body(true)).id();
    for cpa in [
        "cpa_doesnotexist0000000",
        "cpa_../x",
        "pin_abc",
        "",
        "cpa_a\nb",
        "cpa_é",
    ] {
        env.run(&["address", "get", &csp, cpa]).refused(1, 20001);
        refused_update(&env, &csp, cpa, &json!({"city": "X"}), 20001);
        let before = env.snapshot();
        env.run(&["address", "delete", &csp, cpa, "--yes"])
            .refused(1, 20001);
        assert_eq!(before, env.snapshot());
    }
}

#[test]
fn address_of_another_profile_is_not_found() {
    let (env, csp) = setup();
    let other = env.create_profile("addr-cust-2");
    let cpa = create(&env, &other, &address_body(true)).id();
    env.run(&["address", "get", &csp, &cpa]).refused(1, 20001);
    refused_update(&env, &csp, &cpa, &json!({"city": "X"}), 20001);
}

#[test]
fn missing_required_fields_are_all_reported() {
    let (env, csp) = setup();
    let o = refused_create(&env, &csp, &json!({}), 10002);
    let required = [
        "address_type_id",
        "is_default",
        "country_id",
        "state_id",
        "first_name",
        "last_name",
        "address_line1",
        "city",
        "zip",
    ];
    assert_eq!(o.codes().len(), required.len(), "{o:?}");
    for f in required {
        o.mentions(&format!("{f}: is required"));
    }
    // null is the same as absent
    refused_create(
        &env,
        &csp,
        &with(address_body(true), "city", Value::Null),
        10002,
    )
    .mentions("city: is required");
    // each field alone
    for f in required {
        let o = refused_create(&env, &csp, &without(address_body(true), f), 10002);
        assert_eq!(o.codes(), [10002], "{o:?}");
        o.mentions(f);
    }
}

#[test]
fn every_bad_field_is_reported_at_once() {
    let (env, csp) = setup();
    let body = json!({
        "address_type_id": 9,
        "is_default": true,
        "country_id": 1,
        "state_id": 999,
        "first_name": "",
        "last_name": "x".repeat(51),
        "address_line1": "",
        "city": "",
        "zip": "1234"
    });
    let o = refused_create(&env, &csp, &body, 10001);
    assert_eq!(o.codes(), [10001; 7], "{o:?}");
    for f in [
        "address_type_id",
        "state_id",
        "first_name",
        "last_name",
        "address_line1",
        "city",
        "zip",
    ] {
        o.mentions(&format!("{f}:"));
    }
}

#[test]
fn wrong_json_types_are_malformed() {
    let (env, csp) = setup();
    for (field, v) in [
        ("address_type_id", json!("1")),
        ("is_default", json!("true")),
        ("is_default", json!(1)),
        ("country_id", json!("1")),
        ("state_id", json!([5])),
        ("first_name", json!(5)),
        ("city", json!({"a": 1})),
        ("zip", json!(12345)),
        ("address_line2", json!(false)),
    ] {
        let o = refused_create(&env, &csp, &with(address_body(true), field, v), 10005);
        o.mentions(field);
    }
    refused_create(&env, &csp, &json!([1, 2]), 10005);
    let before = env.snapshot();
    let o = env.run_with(
        &["address", "create", &csp, "--body", "-"],
        Some(b"{not json"),
    );
    o.refused(1, 10005);
    assert_eq!(before, env.snapshot());
}

#[test]
fn negative_or_fractional_ids_are_invalid() {
    let (env, csp) = setup();
    for v in [json!(-1), json!(1.5), json!(99999999999u64)] {
        refused_create(&env, &csp, &with(address_body(true), "state_id", v), 10001);
    }
}

/// An integer written with a zero fraction (`38.0`) is an integer, as JSON
/// Schema reads it (a generated client may send one): taken, and stored as
/// the integer.
#[test]
fn an_integral_number_with_a_zero_fraction_is_an_integer() {
    let (env, csp) = setup();
    let body: Value = serde_json::from_str(
        &address_body(true)
            .to_string()
            .replace("\"state_id\":5", "\"state_id\":38.0"),
    )
    .unwrap();
    assert!(body.to_string().contains("38.0"), "{body}");
    let o = env.body(&["address", "create", &csp], &body);
    assert_eq!(o.code, 0, "{o:?}");
    let got = env.run(&["address", "get", &csp, &o.id()]);
    assert_eq!(got.data()[0]["state_id"], 38, "{got:?}");
}

#[test]
fn unknown_fields_are_refused_with_a_suggestion() {
    let (env, csp) = setup();
    let body = with(without(address_body(true), "state_id"), "state", json!(5));
    let o = refused_create(&env, &csp, &body, 10004);
    o.mentions("did you mean `state_id`?");
    let body = with(
        without(address_body(true), "country_id"),
        "country",
        json!(1),
    );
    refused_create(&env, &csp, &body, 10004).mentions("did you mean `country_id`?");
    let o = refused_create(
        &env,
        &csp,
        &with(address_body(true), "citty", json!("x")),
        10004,
    );
    o.mentions("did you mean `city`?");
    // response-only fields are not request fields
    refused_create(
        &env,
        &csp,
        &with(address_body(true), "address_id", json!("cpa_x")),
        10004,
    );
    let cpa = create(&env, &csp, &address_body(true)).id();
    refused_update(&env, &csp, &cpa, &json!({"state": 6}), 10004).mentions("state_id");
}

#[test]
fn address_type_must_be_in_the_dictionary() {
    let (env, csp) = setup();
    for t in [1, 2, 3] {
        create(
            &env,
            &csp,
            &with(address_body(false), "address_type_id", json!(t)),
        )
        .id();
    }
    for t in [0, 4] {
        refused_create(
            &env,
            &csp,
            &with(address_body(false), "address_type_id", json!(t)),
            10001,
        )
        .mentions("address_type_id");
    }
}

#[test]
fn only_the_united_states_is_supported() {
    let (env, csp) = setup();
    for c in [0, 2, 3] {
        let o = refused_create(
            &env,
            &csp,
            &with(address_body(true), "country_id", json!(c)),
            10001,
        );
        o.mentions("country_id").mentions("United States (1)");
    }
}

#[test]
fn state_must_belong_to_the_country() {
    let (env, csp) = setup();
    for s in [1, 56] {
        create(&env, &csp, &with(address_body(false), "state_id", json!(s))).id();
    }
    for s in [0, 57, 1000] {
        refused_create(
            &env,
            &csp,
            &with(address_body(false), "state_id", json!(s)),
            10001,
        )
        .mentions("state_id");
    }
    // a state with country 2: only the country is reported
    let body = with(address_body(false), "country_id", json!(2));
    let o = refused_create(&env, &csp, &body, 10001);
    assert_eq!(o.codes(), [10001], "{o:?}");
    o.mentions("country_id");
}

/// (field, max): both sides of every length limit, characters not bytes.
const LIMITS: &[(&str, usize)] = &[
    ("first_name", 50),
    ("last_name", 50),
    ("address_line1", 256),
    ("address_line2", 256),
    ("city", 50),
];

#[test]
fn length_limits_count_characters() {
    let (env, csp) = setup();
    for (field, max) in LIMITS {
        for ch in ["a", "é", "日", "🦀"] {
            let cpa = create(
                &env,
                &csp,
                &with(address_body(false), field, json!(ch.repeat(*max))),
            )
            .id();
            assert_eq!(get(&env, &csp, &cpa)[*field], ch.repeat(*max));
            let o = refused_create(
                &env,
                &csp,
                &with(address_body(false), field, json!(ch.repeat(max + 1))),
                10001,
            );
            o.mentions(&format!("{field}: must be 1-{max} characters"));
        }
        create(&env, &csp, &with(address_body(false), field, json!("x"))).id();
    }
}

#[test]
fn empty_required_strings_are_invalid() {
    let (env, csp) = setup();
    for field in ["first_name", "last_name", "address_line1", "city", "zip"] {
        refused_create(
            &env,
            &csp,
            &with(address_body(false), field, json!("")),
            10001,
        )
        .mentions(field);
    }
}

#[test]
fn values_are_never_echoed() {
    let (env, csp) = setup();
    let secret = "SECRET-VALUE-1234567890";
    let body = with(
        with(address_body(false), "zip", json!(secret)),
        "city",
        json!(format!("{secret}{}", "x".repeat(60))),
    );
    let o = refused_create(&env, &csp, &body, 10001);
    assert!(!o.stdout.contains("SECRET"), "{o:?}");
}

#[test]
fn zip_forms() {
    let (env, csp) = setup();
    for z in ["12345", "00000", "12345-6789"] {
        let cpa = create(&env, &csp, &with(address_body(false), "zip", json!(z))).id();
        assert_eq!(get(&env, &csp, &cpa)["zip"], z);
    }
    for z in [
        "1234",
        "123456",
        "12345-678",
        "12345-67890",
        "12345 6789",
        "abcde",
        "1234a",
        "12345-",
        " 12345",
        "１２３４５",
    ] {
        refused_create(
            &env,
            &csp,
            &with(address_body(false), "zip", json!(z)),
            10001,
        )
        .mentions("zip");
    }
}

#[test]
fn creating_a_default_demotes_the_previous_one() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let before = get(&env, &csp, &a);
    let b = create(&env, &csp, &address_body(false)).id();
    assert_eq!(defaults(&env, &csp), [a.as_str()]);
    assert_eq!(
        get(&env, &csp, &a),
        before,
        "a non-default create leaves the default alone"
    );
    let c = env
        .body(
            &["address", "create", &csp, "--actor", "other"],
            &address_body(true),
        )
        .id();
    assert_eq!(defaults(&env, &csp), [c.as_str()]);
    let demoted = get(&env, &csp, &a);
    assert_eq!(demoted["is_default"], false);
    assert_eq!(demoted["modified_by"], "other");
    assert_ne!(demoted["modified_datetime"], before["modified_datetime"]);
    assert_eq!(demoted["created_datetime"], before["created_datetime"]);
    assert_eq!(demoted["created_by"], "tester");
    assert_eq!(
        get(&env, &csp, &b)["modified_by"],
        "tester",
        "non-defaults are not touched"
    );
}

#[test]
fn updating_to_default_demotes_the_previous_one() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let b = create(&env, &csp, &address_body(false)).id();
    let c = create(&env, &csp, &address_body(false)).id();
    let o = env.run(&[
        "address",
        "update",
        &csp,
        &b,
        "--default",
        "true",
        "--actor",
        "other",
    ]);
    assert_eq!(o.id(), b);
    assert!(o.json["paging"].is_null());
    assert_eq!(defaults(&env, &csp), [b.as_str()]);
    assert_eq!(get(&env, &csp, &a)["modified_by"], "other");
    assert_eq!(get(&env, &csp, &c)["modified_by"], "tester");
    // and via the body
    assert_eq!(
        env.body(
            &["address", "update", &csp, &c],
            &json!({"is_default": true})
        )
        .id(),
        c
    );
    assert_eq!(defaults(&env, &csp), [c.as_str()]);
    // making the default the default again changes nothing
    let snap = env.snapshot();
    assert_eq!(
        env.body(
            &["address", "update", &csp, &c],
            &json!({"is_default": true})
        )
        .id(),
        c
    );
    assert_eq!(snap, env.snapshot());
    // with no default yet
    let (env, csp) = setup();
    let x = create(&env, &csp, &address_body(false)).id();
    env.run(&["address", "update", &csp, &x, "--default", "true"])
        .id();
    assert_eq!(defaults(&env, &csp), [x]);
}

#[test]
fn the_default_cannot_be_unset_directly() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let b = create(&env, &csp, &address_body(false)).id();
    refused_update(&env, &csp, &a, &json!({"is_default": false}), 10001).mentions("is_default");
    let before = env.snapshot();
    env.run(&["address", "update", &csp, &a, "--default", "false"])
        .refused(1, 10001);
    assert_eq!(before, env.snapshot());
    // false on a non-default is fine
    env.body(
        &["address", "update", &csp, &b],
        &json!({"is_default": false}),
    )
    .id();
    assert_eq!(defaults(&env, &csp), [a]);
}

#[test]
fn updates_are_partial() {
    let (env, csp) = setup();
    let a = create(
        &env,
        &csp,
        &with(address_body(true), "address_line2", json!("Apt 1")),
    )
    .id();
    let before = get(&env, &csp, &a);
    let o = env.run(&[
        "address",
        "update",
        &csp,
        &a,
        "--city",
        "Shelbyville",
        "--actor",
        "other",
    ]);
    assert_eq!(o.id(), a);
    assert_eq!(o.data(), &vec![json!({"id": a})]);
    let after = get(&env, &csp, &a);
    assert_eq!(after["city"], "Shelbyville");
    assert_eq!(after["modified_by"], "other");
    assert_eq!(after["created_by"], "tester");
    assert_eq!(after["created_datetime"], before["created_datetime"]);
    for f in [
        "address_type_id",
        "is_default",
        "country_id",
        "state_id",
        "first_name",
        "last_name",
        "address_line1",
        "address_line2",
        "zip",
    ] {
        assert_eq!(after[f], before[f], "{f} changed");
    }
    // every updatable field through the body
    let body = json!({
        "is_default": true,
        "country_id": 1,
        "state_id": 48,
        "first_name": "Grace",
        "last_name": "Hopper",
        "address_line1": "2 Navy Rd",
        "address_line2": "",
        "city": "Austin",
        "zip": "73301-0001"
    });
    env.body(&["address", "update", &csp, &a], &body).id();
    let after = get(&env, &csp, &a);
    for (k, v) in body.as_object().unwrap() {
        assert_eq!(&after[k], v, "{k}");
    }
    // address_line2 null clears it
    env.body(
        &["address", "update", &csp, &a],
        &json!({"address_line2": null}),
    )
    .id();
    assert!(get(&env, &csp, &a)["address_line2"].is_null());
    // an empty update changes nothing
    let snap = env.snapshot();
    env.body(&["address", "update", &csp, &a], &json!({})).id();
    env.body(&["address", "update", &csp, &a], &json!({"city": "Austin"}))
        .id();
    assert_eq!(snap, env.snapshot());
}

#[test]
fn update_checks_fields_like_create() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    refused_update(&env, &csp, &a, &json!({"city": "x".repeat(51)}), 10001);
    env.body(
        &["address", "update", &csp, &a],
        &json!({"city": "日".repeat(50)}),
    )
    .id();
    refused_update(&env, &csp, &a, &json!({"zip": "123"}), 10001);
    refused_update(&env, &csp, &a, &json!({"country_id": 2}), 10001).mentions("United States (1)");
    refused_update(&env, &csp, &a, &json!({"state_id": 57}), 10001);
    refused_update(&env, &csp, &a, &json!({"first_name": ""}), 10001);
    refused_update(&env, &csp, &a, &json!({"is_default": "yes"}), 10005);
    refused_update(&env, &csp, &a, &json!("city"), 10005);
    let o = refused_update(
        &env,
        &csp,
        &a,
        &json!({"city": "", "zip": "1", "last_name": ""}),
        10001,
    );
    assert_eq!(o.codes().len(), 3, "{o:?}");
}

#[test]
fn address_type_cannot_be_changed() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let o = refused_update(&env, &csp, &a, &json!({"address_type_id": 2}), 10003);
    o.mentions("address_type_id");
    let before = env.snapshot();
    env.run(&["address", "update", &csp, &a, "--address-type-id", "3"])
        .refused(1, 10003);
    assert_eq!(before, env.snapshot());
    // the same value is accepted
    env.body(
        &["address", "update", &csp, &a],
        &json!({"address_type_id": 1, "city": "Ogden"}),
    )
    .id();
    let after = get(&env, &csp, &a);
    assert_eq!(after["address_type_id"], 1);
    assert_eq!(after["city"], "Ogden");
    // a refused type change refuses the whole update
    refused_update(
        &env,
        &csp,
        &a,
        &json!({"address_type_id": 2, "city": "Provo"}),
        10003,
    );
    assert_eq!(get(&env, &csp, &a)["city"], "Ogden");
}

#[test]
fn the_default_address_cannot_be_deleted() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let before = env.snapshot();
    let o = env.run(&["address", "delete", &csp, &a, "--yes"]);
    o.refused(1, 21003)
        .mentions("Default address cannot be deleted")
        .mentions("default first");
    assert_eq!(before, env.snapshot());
    // after another address became the default, it can go
    let b = create(&env, &csp, &address_body(true)).id();
    let o = env.run(&["address", "delete", &csp, &a, "--yes"]);
    assert_eq!(o.id(), a);
    assert_eq!(o.data(), &vec![json!({"id": a})]);
    assert_eq!(defaults(&env, &csp), [b]);
}

#[test]
fn delete_a_non_default_with_yes() {
    let (env, csp) = setup();
    let a = create(&env, &csp, &address_body(true)).id();
    let b = create(&env, &csp, &address_body(false)).id();
    let o = env.run(&["address", "delete", &csp, &b, "-y"]);
    assert_eq!(o.id(), b);
    env.run(&["address", "get", &csp, &b]).refused(1, 20001);
    let left = list(&env, &csp);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["address_id"], a);
    // deleting it again: not found
    let before = env.snapshot();
    env.run(&["address", "delete", &csp, &b, "--yes"])
        .refused(1, 20001);
    assert_eq!(before, env.snapshot());
}

#[test]
fn delete_without_yes_changes_nothing_and_exits_2() {
    let (env, csp) = setup();
    create(&env, &csp, &address_body(true)).id();
    let b = create(&env, &csp, &address_body(false)).id();
    let before = env.snapshot();
    // stdin is not a terminal in tests
    let o = env.run(&["address", "delete", &csp, &b]);
    o.refused(2, 10006).mentions("--yes");
    assert_eq!(before, env.snapshot());
    let o = env.run(&["address", "delete", &csp, &b, "--no-input"]);
    o.refused(2, 10006);
    assert_eq!(before, env.snapshot());
    assert_eq!(list(&env, &csp).len(), 2);
}

#[test]
fn list_in_creation_order_with_paging() {
    let (env, csp) = setup();
    let o = env.run(&["address", "list", &csp]);
    assert_eq!(o.code, 0);
    assert!(o.data().is_empty());
    assert_eq!(o.json["paging"]["total_count"], 0);
    assert_eq!(o.json["paging"]["page_size"], 50);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());

    let ids: Vec<String> = (0..5)
        .map(|i| {
            create(
                &env,
                &csp,
                &with(address_body(i == 0), "city", json!(format!("City{i}"))),
            )
            .id()
        })
        .collect();
    let all = list(&env, &csp);
    let got: Vec<&str> = all
        .iter()
        .map(|a| a["address_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, ids);
    assert_eq!(all[3]["city"], "City3");

    let o = env.run(&["address", "list", &csp, "--page-size", "2"]);
    assert_eq!(o.data().len(), 2);
    assert_eq!(o.json["paging"]["total_count"], 5);
    assert_eq!(o.json["paging"]["last_evaluated_key"], ids[1].as_str());
    let o = env.run(&[
        "address",
        "list",
        &csp,
        "--page-size",
        "2",
        "--after",
        &ids[1],
    ]);
    let got: Vec<&str> = o
        .data()
        .iter()
        .map(|a| a["address_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[2].as_str(), ids[3].as_str()]);
    assert_eq!(o.json["paging"]["page_number"], 2);
    let o = env.run(&[
        "address",
        "list",
        &csp,
        "--page-size",
        "2",
        "--page-number",
        "3",
    ]);
    assert_eq!(o.data().len(), 1);
    assert_eq!(o.data()[0]["address_id"], ids[4].as_str());
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    env.run(&["address", "list", &csp, "--after", "cpa_nope"])
        .refused(1, 10001);
    let o = env.run(&["address", "list", &csp, "--page-size", "0"]);
    assert_eq!(o.code, 2);

    // another profile's list is its own
    let other = env.create_profile("addr-cust-2");
    assert!(list(&env, &other).is_empty());

    // -o id prints one id per line
    let o = env.run(&["address", "list", &csp, "-o", "id"]);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines, ids.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn update_and_delete_answer_id_in_id_format() {
    let (env, csp) = setup();
    create(&env, &csp, &address_body(true)).id();
    let b = create(&env, &csp, &address_body(false)).id();
    let o = env.run(&["address", "update", &csp, &b, "--city", "X", "-o", "id"]);
    assert_eq!(o.stdout.trim(), b);
    let o = env.run(&["address", "delete", &csp, &b, "--yes", "-o", "id"]);
    assert_eq!(o.stdout.trim(), b);
}
