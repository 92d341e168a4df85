//! Payment instruments (spec 2.3, 4.3) through the binary.

use crate::common;
use common::attached;

use common::{Env, Out};
use serde_json::{Value, json};

const ACCOUNT: &str = "000123456789";
const ROUTING: &str = "021000021";

fn body(prm: &str, type_id: u32, is_default: bool) -> Value {
    json!({
        "payment_instrument_tags": [{"key": "source", "value": "onboarding"}],
        "payment_instrument_type_id": type_id,
        "payment_method_id": 1,
        "is_default": is_default,
        "payment_instrument_label": "Main checking",
        "payment_instrument_change_reason": "Initial setup",
        "program_id": prm,
        "payment_instrument_ach": {
            "account_number": ACCOUNT,
            "routing_number": ROUTING,
            "payment_instrument_ach_type_id": 2
        }
    })
}

fn create(env: &Env, csp: &str, b: &Value) -> Out {
    env.body(&["instrument", "create", csp], b)
}

fn get(env: &Env, csp: &str, pin: &str) -> Value {
    let o = env.run(&["instrument", "get", csp, pin]);
    assert_eq!(o.code, 0, "{o:?}");
    o.data()[0].clone()
}

/// The request is refused with `api`, and the store is unchanged.
fn refused(env: &Env, csp: &str, b: &Value, api: u64, path: &str) {
    let before = env.snapshot();
    let o = create(env, csp, b);
    o.refused(1, api).mentions(path);
    assert_eq!(before, env.snapshot(), "a refused create changed the store");
}

fn set(b: &mut Value, path: &str, v: Value) {
    let mut cur = b;
    let parts: Vec<&str> = path.split('.').collect();
    for p in &parts[..parts.len() - 1] {
        cur = &mut cur[*p];
    }
    cur[parts[parts.len() - 1]] = v;
}

#[test]
fn create_answers_an_id_and_the_record_is_active_and_masked() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0001");
    let o = create(&env, &csp, &body(&prm, 1, true));
    let pin = o.id();
    assert!(pin.starts_with("pin_"), "{pin}");
    let r = get(&env, &csp, &pin);
    assert_eq!(r["payment_instrument_id"], pin.as_str());
    assert_eq!(r["payment_instrument_status_id"], 40);
    assert_eq!(r["is_locked"], false);
    assert_eq!(r["is_default"], true);
    assert_eq!(r["payment_instrument_type_id"], 1);
    assert_eq!(r["payment_method_id"], 1);
    assert_eq!(r["payment_instrument_ach"]["account_number"], "6789");
    assert_eq!(r["payment_instrument_ach"]["routing_number"], "0021");
    assert_eq!(
        r["payment_instrument_ach"]["payment_instrument_ach_type_id"],
        2
    );
    assert_eq!(
        r["payment_instrument_tags"],
        json!([{"key": "source", "value": "onboarding"}])
    );
    for f in [
        "created_by",
        "created_datetime",
        "modified_by",
        "modified_datetime",
        "payment_instrument_change_reason",
    ] {
        assert!(r.get(f).is_some(), "missing {f}");
    }
    // Never whole, in any format.
    for fmt in ["json", "table", "id"] {
        for args in [
            vec!["instrument", "get", &csp, &pin],
            vec!["instrument", "list", &csp],
        ] {
            let mut a = args.clone();
            a.extend(["-o", fmt]);
            let o = env.run(&a);
            assert_eq!(o.code, 0);
            for secret in [ACCOUNT, ROUTING] {
                assert!(
                    !o.stdout.contains(secret) && !o.stderr.contains(secret),
                    "{fmt}: {o:?}"
                );
            }
        }
    }
}

#[test]
fn the_store_keeps_the_numbers_whole_for_the_worker() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0002");
    create(&env, &csp, &body(&prm, 1, true)).id();
    let whole = env
        .snapshot()
        .iter()
        .any(|(_, b)| String::from_utf8_lossy(b).contains(ACCOUNT));
    assert!(whole, "the account number must be stored whole");
}

#[test]
fn customer_must_be_attached_not_merely_pending() {
    let env = Env::new();
    let csp = env.create_profile("inst-0003");
    let prm = env.program_id();
    refused(&env, &csp, &body(&prm, 1, true), 21004, "program_id");
    env.run(&["program", "attach", &prm, &csp]).id();
    refused(&env, &csp, &body(&prm, 1, true), 21004, "program_id");
    env.run(&["worker"]);
    create(&env, &csp, &body(&prm, 1, true)).id();
}

#[test]
fn unknown_profile_and_program() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0004");
    create(&env, "csp_doesnotexist000000", &body(&prm, 1, true)).refused(1, 20001);
    create(&env, "../../etc", &body(&prm, 1, true)).refused(1, 20001);
    refused(
        &env,
        &csp,
        &body("prm_nosuchprogram0000", 1, true),
        10001,
        "program_id",
    );
}

#[test]
fn every_field_rule() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0005");
    let cases: Vec<(&str, Value, u64)> = vec![
        ("payment_instrument_type_id", json!(3), 10001),
        ("payment_instrument_type_id", json!(0), 10001),
        ("payment_instrument_type_id", json!("1"), 10005),
        ("payment_method_id", json!(2), 10001),
        ("payment_method_id", json!(9), 10001),
        ("is_default", json!("yes"), 10005),
        ("payment_instrument_label", json!(""), 10001),
        ("payment_instrument_label", json!("x".repeat(257)), 10001),
        ("payment_instrument_change_reason", json!(""), 10001),
        (
            "payment_instrument_change_reason",
            json!("é".repeat(257)),
            10001,
        ),
        ("payment_instrument_ach.account_number", json!("123"), 10001),
        (
            "payment_instrument_ach.account_number",
            json!("1".repeat(18)),
            10001,
        ),
        (
            "payment_instrument_ach.account_number",
            json!("12345a"),
            10001,
        ),
        (
            "payment_instrument_ach.account_number",
            json!(123456),
            10005,
        ),
        (
            "payment_instrument_ach.routing_number",
            json!("12345678"),
            10001,
        ),
        (
            "payment_instrument_ach.routing_number",
            json!("1234567890"),
            10001,
        ),
        (
            "payment_instrument_ach.routing_number",
            json!("12345678x"),
            10001,
        ),
        (
            "payment_instrument_ach.payment_instrument_ach_type_id",
            json!(3),
            10001,
        ),
        ("payment_instrument_tags", json!([]), 10002),
        (
            "payment_instrument_tags",
            json!([{"key": "ab", "value": "valid"}]),
            10001,
        ),
        (
            "payment_instrument_tags",
            json!([{"key": "abc", "value": "x".repeat(51)}]),
            10001,
        ),
        (
            "payment_instrument_tags",
            json!([{"key": "a b c", "value": "valid"}]),
            10001,
        ),
        (
            "payment_instrument_tags",
            json!([{"key": "abc", "value": "one"}, {"key": "abc", "value": "two"}]),
            10001,
        ),
    ];
    for (path, v, api) in cases {
        let mut b = body(&prm, 1, true);
        set(&mut b, path, v.clone());
        let field = path.rsplit('.').next().unwrap();
        let before = env.snapshot();
        let o = create(&env, &csp, &b);
        assert!(
            o.codes().contains(&api),
            "{path}={v}: expected {api}: {o:?}"
        );
        o.refused(1, api).mentions(field);
        assert_eq!(before, env.snapshot());
        for secret in [ACCOUNT, ROUTING] {
            assert!(!o.stdout.contains(secret) && !o.stderr.contains(secret));
        }
    }
    // The edges that are allowed.
    let ok: Vec<(&str, Value)> = vec![
        ("payment_instrument_ach.account_number", json!("1234")),
        (
            "payment_instrument_ach.account_number",
            json!("1".repeat(17)),
        ),
        ("payment_instrument_label", json!("é".repeat(256))),
        ("payment_instrument_change_reason", json!("x")),
        (
            "payment_instrument_tags",
            json!([{"key": "abc", "value": "x".repeat(50)}, {"key": "k!@.-_#", "value": "v!@.-_#"}]),
        ),
        (
            "payment_instrument_ach.payment_instrument_ach_type_id",
            json!(1),
        ),
    ];
    for (path, v) in ok {
        let mut b = body(&prm, 2, false);
        set(&mut b, path, v.clone());
        let o = create(&env, &csp, &b);
        assert_eq!(o.code, 0, "{path}={v}: {o:?}");
    }
}

#[test]
fn missing_fields_are_all_reported_at_once() {
    let env = Env::new();
    let (csp, _) = attached(&env, "inst-0006");
    let before = env.snapshot();
    let o = env.body(&["instrument", "create", &csp], &json!({}));
    o.refused(1, 10002);
    let msgs = o.messages().join("\n");
    for f in FIELDS_REQUIRED {
        assert!(msgs.contains(f), "{f} not reported: {msgs}");
    }
    assert_eq!(before, env.snapshot());
    let o = env.body(
        &["instrument", "create", &csp],
        &json!({"payment_instrument_ach": {}}),
    );
    let msgs = o.messages().join("\n");
    for f in [
        "account_number",
        "routing_number",
        "payment_instrument_ach_type_id",
    ] {
        assert!(
            msgs.contains(&format!("payment_instrument_ach.{f}")),
            "{f}: {msgs}"
        );
    }
}

const FIELDS_REQUIRED: &[&str] = &[
    "payment_instrument_tags",
    "payment_instrument_type_id",
    "payment_method_id",
    "is_default",
    "payment_instrument_label",
    "payment_instrument_change_reason",
    "program_id",
    "payment_instrument_ach",
];

#[test]
fn unknown_field_suggests_the_request_spelling() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0007");
    let mut b = body(&prm, 1, true);
    b.as_object_mut()
        .unwrap()
        .remove("payment_instrument_type_id");
    b["payment_instrument_id"] = json!(1);
    let o = create(&env, &csp, &b);
    o.refused(1, 10004).mentions("payment_instrument_type_id");
}

#[test]
fn one_default_per_profile_and_type() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0008");
    let f1 = create(&env, &csp, &body(&prm, 1, true)).id();
    let w1 = create(&env, &csp, &body(&prm, 2, true)).id();
    let f2 = create(&env, &csp, &body(&prm, 1, true)).id();
    assert_eq!(
        get(&env, &csp, &f1)["is_default"],
        false,
        "the new funding default demotes the old one"
    );
    assert_eq!(get(&env, &csp, &f2)["is_default"], true);
    assert_eq!(
        get(&env, &csp, &w1)["is_default"],
        true,
        "another type keeps its default"
    );
    // Making f1 default again via update demotes f2.
    env.body(
        &["instrument", "update", &csp, &f1],
        &json!({"is_default": true}),
    )
    .id();
    assert_eq!(get(&env, &csp, &f1)["is_default"], true);
    assert_eq!(get(&env, &csp, &f2)["is_default"], false);
    let list = env.run(&["instrument", "list", &csp]);
    let defaults = list
        .data()
        .iter()
        .filter(|i| i["is_default"] == true && i["payment_instrument_type_id"] == 1)
        .count();
    assert_eq!(defaults, 1);
    assert_eq!(list.json["paging"]["total_count"], 3);
}

#[test]
fn update_changes_only_label_reason_and_default() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0009");
    let pin = create(&env, &csp, &body(&prm, 1, false)).id();
    let o = env.run(&[
        "instrument",
        "update",
        &csp,
        &pin,
        "--label",
        "Savings",
        "--change-reason",
        "Renamed",
    ]);
    assert_eq!(o.id(), pin);
    let r = get(&env, &csp, &pin);
    assert_eq!(r["payment_instrument_label"], "Savings");
    assert_eq!(r["payment_instrument_change_reason"], "Renamed");
    // Unchanged values of other fields may be sent back; the account and
    // routing numbers may not (any value is refused: no oracle on them).
    let mut same = body(&prm, 1, false);
    same.as_object_mut()
        .unwrap()
        .remove("payment_instrument_ach");
    env.body(&["instrument", "update", &csp, &pin], &same).id();
    env.body(&["instrument", "update", &csp, &pin], &body(&prm, 1, false))
        .refused(1, 10003)
        .mentions("account_number");
    for (path, v) in [
        ("payment_instrument_type_id", json!(2)),
        ("payment_method_id", json!(2)),
        ("program_id", json!("prm_other0000000000000")),
        ("payment_instrument_ach.account_number", json!("99999999")),
        ("payment_instrument_ach.routing_number", json!("111111111")),
        (
            "payment_instrument_ach.payment_instrument_ach_type_id",
            json!(1),
        ),
        (
            "payment_instrument_tags",
            json!([{"key": "other", "value": "value"}]),
        ),
    ] {
        let mut b = body(&prm, 1, false);
        set(&mut b, path, v);
        let before = env.snapshot();
        let o = env.body(&["instrument", "update", &csp, &pin], &b);
        o.refused(1, 10003)
            .mentions(path.rsplit('.').next().unwrap());
        assert_eq!(before, env.snapshot(), "{path}");
        assert!(!o.stdout.contains("99999999") && !o.stdout.contains(ACCOUNT));
    }
    let before = env.snapshot();
    env.body(
        &["instrument", "update", &csp, &pin],
        &json!({"payment_instrument_label": ""}),
    )
    .refused(1, 10001);
    env.run(&["instrument", "update", &csp, "pin_nosuchinstrument00"])
        .refused(1, 20001);
    assert_eq!(before, env.snapshot());
}

#[test]
fn list_pages_in_creation_order() {
    let env = Env::new();
    let (csp, prm) = attached(&env, "inst-0010");
    let ids: Vec<String> = (0..3)
        .map(|_| create(&env, &csp, &body(&prm, 2, false)).id())
        .collect();
    let p1 = env.run(&["instrument", "list", &csp, "--page-size", "2"]);
    let got: Vec<&str> = p1
        .data()
        .iter()
        .map(|i| i["payment_instrument_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[0].as_str(), ids[1].as_str()]);
    let key = p1.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    let p2 = env.run(&[
        "instrument",
        "list",
        &csp,
        "--page-size",
        "2",
        "--after",
        &key,
    ]);
    assert_eq!(p2.data()[0]["payment_instrument_id"], ids[2].as_str());
    assert!(p2.json["paging"]["last_evaluated_key"].is_null());
    let o = env.run(&["instrument", "list", &csp, "-o", "id"]);
    assert_eq!(
        o.stdout.lines().collect::<Vec<_>>(),
        ids.iter().map(String::as_str).collect::<Vec<_>>()
    );
}
