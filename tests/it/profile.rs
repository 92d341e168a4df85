//! `payctl profile create | list | get | update` through the binary: every
//! rule of the field table of spec 2.1 with edges on both sides, updates,
//! masking of the SSN, and random input that must never panic.

use crate::common;

use chrono::{Days, Local, Months, NaiveDate};
use common::{Env, Out, profile_body};
use proptest::prelude::*;
use serde_json::{Value, json};

const IND: &str = "customer_profile_individual";

fn create(env: &Env, body: &Value) -> Out {
    env.body(&["profile", "create"], body)
}

/// `profile_body(key)` with `customer_profile_individual.<field>` set to `v`
/// (removed when `v` is `None`).
fn with_ind(key: &str, field: &str, v: Option<Value>) -> Value {
    let mut b = profile_body(key);
    let ind = b[IND].as_object_mut().unwrap();
    match v {
        Some(v) => {
            ind.insert(field.to_string(), v);
        }
        None => {
            ind.remove(field);
        }
    }
    b
}

/// `profile_body(key)` with the top-level `field` set to `v`.
fn with_top(key: &str, field: &str, v: Value) -> Value {
    let mut b = profile_body(key);
    b[field] = v;
    b
}

/// A unique, valid customer key.
fn key(n: usize) -> String {
    format!("key-{n:05}")
}

/// Run a create that must be refused with exit 1 and `code`, a message naming
/// `path`, and the store byte-for-byte unchanged.
fn refused(env: &Env, body: &Value, code: u64, path: &str) -> Out {
    ensure_store(env);
    let before = env.snapshot();
    let o = create(env, body);
    o.refused(1, code).mentions(path);
    unchanged(env, &before, &o);
    o
}

/// Create the store (first use) so that snapshots compare only the request's effect.
fn ensure_store(env: &Env) {
    if !env.path().join("meta.json").exists() {
        assert_eq!(env.run(&["profile", "list"]).code, 0);
    }
}

/// Assert the store is byte-for-byte as in `before`, naming the files that differ.
fn unchanged(env: &Env, before: &[(std::path::PathBuf, Vec<u8>)], o: &Out) {
    let after = env.snapshot();
    if before != after.as_slice() {
        let names = |s: &[(std::path::PathBuf, Vec<u8>)]| -> Vec<(String, usize)> {
            s.iter()
                .map(|(p, b)| (p.display().to_string(), b.len()))
                .collect()
        };
        let (b, a) = (names(before), names(&after));
        let diff: Vec<_> = a
            .iter()
            .filter(|x| !b.contains(x))
            .chain(b.iter().filter(|x| !a.contains(x)))
            .collect();
        panic!("a refused request changed the store: {diff:?}\n{o:?}");
    }
}

fn accepted(env: &Env, body: &Value) -> String {
    let o = create(env, body);
    assert_eq!(o.code, 0, "expected success for {body}: {o:?}");
    let id = o.id();
    assert!(id.starts_with("csp_"), "{id}");
    id
}

fn get(env: &Env, id: &str) -> Value {
    let o = env.run(&["profile", "get", id]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data().len(), 1);
    o.data()[0].clone()
}

// ---------------------------------------------------------------- create

#[test]
fn create_and_get_round_trip() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("cust-0001"));
    let p = get(&env, &id);
    assert_eq!(p["customer_profile_id"], id.as_str());
    assert_eq!(p["customer_type_id"], 1);
    assert_eq!(p["customer_key"], "cust-0001");
    assert_eq!(
        p["customer_profile_tags"],
        json!([{"key": "segment", "value": "retail"}])
    );
    let ind = &p[IND];
    assert_eq!(ind["first_name"], "Ada");
    assert_eq!(ind["last_name"], "Lovelace");
    assert_eq!(ind["email"], "ada@example.com");
    assert_eq!(ind["date_of_birth"], "1990-12-10");
    assert_eq!(ind["ssn"], "6789");
    assert_eq!(ind["mobile_phone"], "+15551234567");
    assert_eq!(ind["home_phone"], "+15557654321");
    assert_eq!(p["created_by"], "tester");
    assert_eq!(p["modified_by"], "tester");
    assert_eq!(p["created_datetime"], p["modified_datetime"]);
    // ISO 8601 without a zone, with fractional seconds.
    let ts = p["created_datetime"].as_str().unwrap();
    assert!(
        chrono::NaiveDateTime::parse_from_str(ts, "%Y-%m-%dT%H:%M:%S%.f").is_ok(),
        "{ts}"
    );
    assert!(ts.contains('.'), "{ts}");
}

#[test]
fn get_of_unknown_or_malformed_id_is_not_found() {
    let env = Env::new();
    accepted(&env, &profile_body("cust-0001"));
    for id in ["csp_doesnotexist", "csp_../../etc", "pin_abc", "x"] {
        env.run(&["profile", "get", id]).refused(1, 20001);
    }
}

#[test]
fn customer_key_length_and_charset() {
    let env = Env::new();
    for k in ["abcde", &"a".repeat(50), "a!@.-_#Z9", "12345", "#####"] {
        accepted(&env, &profile_body(k));
    }
    for k in [
        "abcd",
        &"b".repeat(51),
        "abc de",
        "abc$de",
        "abcdé",
        "",
        "abc\nde",
    ] {
        refused(&env, &profile_body(k), 10001, "customer_key");
    }
}

#[test]
fn customer_key_is_unique() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("cust-0001"));
    let before = env.snapshot();
    let o = create(&env, &profile_body("cust-0001"));
    o.refused(1, 21002).mentions("customer_key");
    unchanged(&env, &before, &o);
    // Keys compare exactly: another case is another key.
    accepted(&env, &profile_body("CUST-0001"));
    let list = env.run(&["profile", "list", "--customer-key", "cust-0001"]);
    assert_eq!(list.data().len(), 1);
    assert_eq!(list.data()[0]["customer_profile_id"], id.as_str());
}

#[test]
fn tag_key_and_value_length_and_charset() {
    let env = Env::new();
    let mut n = 0;
    let mut next = || {
        n += 1;
        key(n)
    };
    let tag = |k: &str, v: &str| json!([{"key": k, "value": v}]);
    for (k, v) in [
        ("abc", "xyz"),
        (&*"k".repeat(50), &*"v".repeat(50)),
        ("a!@.-_#", "1#2"),
    ] {
        accepted(&env, &with_top(&next(), "customer_profile_tags", tag(k, v)));
    }
    accepted(&env, &with_top(&next(), "customer_profile_tags", json!([])));
    for (k, v, path) in [
        ("ab", "xyz", "customer_profile_tags[0].key"),
        (&*"k".repeat(51), "xyz", "customer_profile_tags[0].key"),
        ("a c", "xyz", "customer_profile_tags[0].key"),
        ("a$c", "xyz", "customer_profile_tags[0].key"),
        ("abc", "xy", "customer_profile_tags[0].value"),
        ("abc", &*"v".repeat(51), "customer_profile_tags[0].value"),
        ("abc", "x y", "customer_profile_tags[0].value"),
        ("abc", "x$y", "customer_profile_tags[0].value"),
    ] {
        refused(
            &env,
            &with_top(&next(), "customer_profile_tags", tag(k, v)),
            10001,
            path,
        );
    }
    // A tag without its value, with an unknown member, or not an object.
    refused(
        &env,
        &with_top(&next(), "customer_profile_tags", json!([{"key": "abc"}])),
        10002,
        "customer_profile_tags[0].value",
    );
    refused(
        &env,
        &with_top(
            &next(),
            "customer_profile_tags",
            json!([{"key": "abc", "value": "xyz", "vale": 1}]),
        ),
        10004,
        "customer_profile_tags[0].vale",
    );
    refused(
        &env,
        &with_top(&next(), "customer_profile_tags", json!(["abc"])),
        10005,
        "customer_profile_tags[0]",
    );
    refused(
        &env,
        &with_top(&next(), "customer_profile_tags", json!({"key": "abc"})),
        10005,
        "customer_profile_tags",
    );
}

#[test]
fn names_count_characters_not_bytes() {
    let env = Env::new();
    let mut n = 0;
    for field in ["first_name", "middle_name", "last_name"] {
        for ok in [
            "x",
            &"é".repeat(50),
            &"a".repeat(50),
            "日本 語 !$",
            "O'Brien-Smith",
        ] {
            n += 1;
            let id = accepted(&env, &with_ind(&key(n), field, Some(json!(ok))));
            assert_eq!(get(&env, &id)[IND][field], ok);
        }
        for bad in [&"é".repeat(51), &"a".repeat(51)] {
            n += 1;
            refused(
                &env,
                &with_ind(&key(n), field, Some(json!(bad))),
                10001,
                &format!("{IND}.{field}"),
            );
        }
    }
    for field in ["first_name", "last_name"] {
        n += 1;
        refused(
            &env,
            &with_ind(&key(n), field, Some(json!(""))),
            10001,
            &format!("{IND}.{field}"),
        );
    }
}

#[test]
fn middle_name_empty_or_absent_is_accepted() {
    let env = Env::new();
    // The spec's example sends "".
    let id = accepted(&env, &with_ind("key-00001", "middle_name", Some(json!(""))));
    let m = &get(&env, &id)[IND]["middle_name"];
    assert!(m.is_null() || *m == "", "{m}");
    accepted(&env, &with_ind("key-00002", "middle_name", None));
    accepted(
        &env,
        &with_ind("key-00003", "middle_name", Some(Value::Null)),
    );
}

#[test]
fn email_length_and_whatwg_rule() {
    let env = Env::new();
    let local = |n: usize| "a".repeat(n);
    // 256 characters in all: accepted; 257: refused.
    let e256 = format!("{}@example.com", local(256 - 12));
    let e257 = format!("{}@example.com", local(257 - 12));
    assert_eq!(e256.len(), 256);
    let mut n = 0;
    for ok in [
        "a@b",
        "a.b+c@example.com",
        "x@localhost",
        "!#$%&'*+/=?^_`{|}~-@example.com",
        "a@sub-domain.example.co",
        &e256,
    ] {
        n += 1;
        accepted(&env, &with_ind(&key(n), "email", Some(json!(ok))));
    }
    for bad in [
        "", &e257, "a", "a@", "@b.c", "a b@c.d", "a@b..c", "a@-b.c", "a@b-.c", "a@b.c.", "é@b.c",
        "a@b_c.d", "a@@b.c",
    ] {
        n += 1;
        refused(
            &env,
            &with_ind(&key(n), "email", Some(json!(bad))),
            10001,
            &format!("{IND}.email"),
        );
    }
}

#[test]
fn phones() {
    let env = Env::new();
    let mut n = 0;
    for field in ["mobile_phone", "home_phone", "office_phone"] {
        for ok in ["+12", "+10", "+9123", &format!("+1{}", "2".repeat(15))] {
            n += 1;
            accepted(&env, &with_ind(&key(n), field, Some(json!(ok))));
        }
        for bad in [
            "+1",
            "+0123",
            "+",
            "",
            "12345",
            "1+2345",
            &format!("+1{}", "2".repeat(16)),
            "+1 234",
            "+1-234",
            "+١٢٣",
            "+12a",
        ] {
            // An empty optional phone means "not given".
            if bad.is_empty() && field != "mobile_phone" {
                continue;
            }
            n += 1;
            refused(
                &env,
                &with_ind(&key(n), field, Some(json!(bad))),
                10001,
                &format!("{IND}.{field}"),
            );
        }
    }
}

#[test]
fn ssn_nine_or_four_digits() {
    let env = Env::new();
    let mut n = 0;
    for ok in ["123456789", "1234", "000000000"] {
        n += 1;
        accepted(&env, &with_ind(&key(n), "ssn", Some(json!(ok))));
    }
    n += 1;
    accepted(&env, &with_ind(&key(n), "ssn", None));
    for bad in [
        "12345",
        "123",
        "12345678",
        "1234567890",
        "123-45-6789",
        "abcd",
        "１２３４",
    ] {
        n += 1;
        refused(
            &env,
            &with_ind(&key(n), "ssn", Some(json!(bad))),
            10001,
            &format!("{IND}.ssn"),
        );
    }
}

fn today() -> NaiveDate {
    Local::now().date_naive()
}

fn years_before(d: NaiveDate, years: u32) -> NaiveDate {
    d.checked_sub_months(Months::new(12 * years)).unwrap()
}

#[test]
fn date_of_birth_formats_and_real_dates() {
    let env = Env::new();
    let mut n = 0;
    for ok in ["02/29/2000", "2000-02-29", "12/31/1990", "1990-01-01"] {
        n += 1;
        let id = accepted(&env, &with_ind(&key(n), "date_of_birth", Some(json!(ok))));
        assert_eq!(get(&env, &id)[IND]["date_of_birth"], ok);
    }
    for bad in [
        "02/30/2000",
        "2000-02-30",
        "02/29/2001",
        "13/01/2000",
        "2000-13-01",
        "00/10/2000",
        "1/2/2000",
        "2000/01/02",
        "01-02-2000",
        "2000-1-2",
        "20000101",
        "",
        "yesterday",
        "2000-01-01T00:00:00",
    ] {
        n += 1;
        refused(
            &env,
            &with_ind(&key(n), "date_of_birth", Some(json!(bad))),
            10001,
            &format!("{IND}.date_of_birth"),
        );
    }
}

#[test]
fn date_of_birth_age_limits_18_to_120() {
    let env = Env::new();
    let t = today();
    let iso = |d: NaiveDate| d.format("%Y-%m-%d").to_string();
    let us = |d: NaiveDate| d.format("%m/%d/%Y").to_string();
    let eighteen_today = years_before(t, 18);
    let eighteen_tomorrow = eighteen_today.checked_add_days(Days::new(1)).unwrap();
    let hundred_twenty = years_before(t, 120);
    let hundred_twenty_one = years_before(t, 121);
    let last_day_at_120 = hundred_twenty_one.checked_add_days(Days::new(1)).unwrap();
    let mut n = 0;
    for ok in [
        eighteen_today,
        hundred_twenty,
        last_day_at_120,
        years_before(t, 50),
    ] {
        for text in [iso(ok), us(ok)] {
            n += 1;
            accepted(&env, &with_ind(&key(n), "date_of_birth", Some(json!(text))));
        }
    }
    for bad in [
        eighteen_tomorrow,
        hundred_twenty_one,
        t,
        years_before(t, 17),
        years_before(t, 200),
    ] {
        for text in [iso(bad), us(bad)] {
            n += 1;
            refused(
                &env,
                &with_ind(&key(n), "date_of_birth", Some(json!(text))),
                10001,
                &format!("{IND}.date_of_birth"),
            )
            .mentions("18 to 120");
        }
    }
    // Born in the future.
    n += 1;
    let future = t.checked_add_days(Days::new(400)).unwrap();
    refused(
        &env,
        &with_ind(&key(n), "date_of_birth", Some(json!(iso(future)))),
        10001,
        "date_of_birth",
    );
}

#[test]
fn customer_type_from_the_dictionary() {
    let env = Env::new();
    for (i, t) in [1, 2, 3, 4].into_iter().enumerate() {
        accepted(&env, &with_top(&key(i), "customer_type_id", json!(t)));
    }
    for (i, t) in [
        json!(0),
        json!(5),
        json!(-1),
        json!(1.5),
        json!(4294967297u64),
    ]
    .into_iter()
    .enumerate()
    {
        refused(
            &env,
            &with_top(&key(100 + i), "customer_type_id", t),
            10001,
            "customer_type_id",
        );
    }
}

#[test]
fn required_fields_are_all_reported_at_once() {
    let env = Env::new();
    let o = refused(&env, &json!({}), 10002, "customer_key");
    let msgs = o.messages();
    let required: Vec<&String> = o.json["errors"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&msgs)
        .filter(|(e, _)| e["code"] == 10002)
        .map(|(_, m)| m)
        .collect();
    for path in ["customer_type_id", "customer_key", IND] {
        assert!(
            required.iter().any(|m| m.starts_with(&format!("{path}:"))),
            "{path}: {o:?}"
        );
    }
    // Inside the individual object: each missing field, one error each.
    let mut b = profile_body("key-00001");
    b[IND] = json!({});
    let o = refused(&env, &b, 10002, "first_name");
    let want = [
        "first_name",
        "last_name",
        "email",
        "date_of_birth",
        "mobile_phone",
    ];
    for f in want {
        o.mentions(&format!("{IND}.{f}"));
    }
    assert_eq!(
        o.codes().iter().filter(|c| **c == 10002).count(),
        want.len(),
        "{o:?}"
    );
    for f in ["middle_name", "ssn", "home_phone", "office_phone"] {
        assert!(
            !o.messages().iter().any(|m| m.contains(f)),
            "{f} is optional: {o:?}"
        );
    }
    // Several kinds of error in one answer.
    let mut b = with_ind("ab", "email", Some(json!("nope")));
    b.as_object_mut().unwrap().remove("customer_type_id");
    b[IND].as_object_mut().unwrap().remove("mobile_phone");
    b[IND]["fist_name"] = json!("x");
    let o = refused(&env, &b, 10001, "customer_key");
    o.mentions(&format!("{IND}.email"))
        .mentions("customer_type_id")
        .mentions("mobile_phone");
    for c in [10001, 10002, 10004] {
        assert!(o.codes().contains(&c), "{c}: {o:?}");
    }
    // Each message starts with the field's JSON path.
    for m in o.messages() {
        assert!(m.starts_with("customer"), "{m}");
    }
}

#[test]
fn unknown_fields_suggest_the_right_name() {
    let env = Env::new();
    let cases = [
        (
            with_top("key-00001", "customer_type", json!(1)),
            "customer_type",
            "customer_type_id",
        ),
        (
            with_top("key-00002", "tags", json!([])),
            "tags",
            "customer_profile_tags",
        ),
        (
            with_top("key-00003", "customer_kee", json!("x")),
            "customer_kee",
            "customer_key",
        ),
        (
            with_ind("key-00004", "emial", Some(json!("a@b.c"))),
            "emial",
            "customer_profile_individual.email",
        ),
        (
            with_ind("key-00005", "dob", Some(json!("1990-01-01"))),
            "dob",
            "customer_profile_individual.date_of_birth",
        ),
        (
            with_ind("key-00006", "phone", Some(json!("+12"))),
            "phone",
            "customer_profile_individual.mobile_phone",
        ),
        (
            with_ind("key-00007", "firstname", Some(json!("x"))),
            "firstname",
            "customer_profile_individual.first_name",
        ),
    ];
    for (body, name, suggestion) in cases {
        let o = refused(&env, &body, 10004, name);
        o.mentions(&format!("did you mean `{suggestion}`"));
    }
}

#[test]
fn wrong_json_types_are_malformed() {
    let env = Env::new();
    let cases = [
        (
            with_top("key-00001", "customer_type_id", json!("1")),
            "customer_type_id",
        ),
        (
            with_top("key-00002", "customer_key", json!(12345)),
            "customer_key",
        ),
        (
            with_top("key-00003", "customer_profile_tags", json!("a=b")),
            "customer_profile_tags",
        ),
        (with_top("key-00004", IND, json!("Ada")), IND),
        (
            with_ind("key-00005", "email", Some(json!(5))),
            "customer_profile_individual.email",
        ),
        (
            with_ind("key-00006", "first_name", Some(json!(["Ada"]))),
            "customer_profile_individual.first_name",
        ),
        (
            with_ind("key-00007", "ssn", Some(json!(123456789))),
            "customer_profile_individual.ssn",
        ),
        (
            with_ind("key-00008", "mobile_phone", Some(json!(15551234567u64))),
            "customer_profile_individual.mobile_phone",
        ),
        (
            with_ind("key-00009", "date_of_birth", Some(json!({"y": 1990}))),
            "customer_profile_individual.date_of_birth",
        ),
        (
            with_ind("key-00010", "middle_name", Some(json!(true))),
            "customer_profile_individual.middle_name",
        ),
    ];
    for (body, path) in cases {
        let o = refused(&env, &body, 10005, path);
        // A wrong type is not also reported as missing.
        assert!(!o.codes().contains(&10002), "{o:?}");
    }
    // Not an object at all, not JSON, empty.
    for text in ["[1, 2]", "\"x\"", "{", "{\"customer_key\": }", "", "null"] {
        let before = env.snapshot();
        let o = env.run_with(&["profile", "create", "--body", "-"], Some(text.as_bytes()));
        o.refused(1, 10005);
        unchanged(&env, &before, &o);
    }
}

#[test]
fn flags_build_a_body_and_win_over_it() {
    let env = Env::new();
    let o = env.run(&[
        "profile",
        "create",
        "--customer-type-id",
        "1",
        "--customer-key",
        "flag-0001",
        "--first-name",
        "Grace",
        "--last-name",
        "Hopper",
        "--email",
        "grace@example.com",
        "--date-of-birth",
        "12/09/1976",
        "--mobile-phone",
        "+15550000000",
        "--tag",
        "team=navy",
    ]);
    let id = o.id();
    let p = get(&env, &id);
    assert_eq!(p[IND]["first_name"], "Grace");
    assert_eq!(
        p["customer_profile_tags"],
        json!([{"key": "team", "value": "navy"}])
    );
    let mut a = vec![
        "profile",
        "create",
        "--email",
        "flag@example.com",
        "--first-name",
        "Flag",
    ];
    a.extend(["--body", "-"]);
    let o = env.run_with(&a, Some(profile_body("flag-0002").to_string().as_bytes()));
    let p = get(&env, &o.id());
    assert_eq!(p[IND]["email"], "flag@example.com");
    assert_eq!(p[IND]["first_name"], "Flag");
    assert_eq!(p[IND]["last_name"], "Lovelace");
    // A body that is not an object is reported, not silently replaced by the flags.
    for text in ["[1]", "null", "\"x\"", "5"] {
        let o = env.run_with(
            &["profile", "create", "--email", "a@b.c", "--body", "-"],
            Some(text.as_bytes()),
        );
        o.refused(1, 10005).mentions("body");
        assert!(!o.codes().contains(&10002), "{o:?}");
    }
}

// ---------------------------------------------------------------- SSN masking

#[test]
fn ssn_never_leaves_the_store_whole() {
    let env = Env::new();
    let whole = "123456789";
    let id = accepted(&env, &profile_body("ssn-00001"));
    let mut outputs: Vec<Out> = Vec::new();
    for fmt in ["json", "table", "id"] {
        outputs.push(env.run(&["-o", fmt, "profile", "get", &id]));
        outputs.push(env.run(&["-o", fmt, "profile", "list"]));
        outputs.push(env.run(&["-o", fmt, "profile", "list", "--customer-key", "ssn-00001"]));
    }
    // Refusals that carry the SSN in the body.
    let mut upd = json!({IND: {"ssn": "987654321"}});
    outputs.push(env.body(&["profile", "update", &id], &upd));
    upd[IND]["ssn"] = json!(whole);
    upd[IND]["email"] = json!("bad");
    outputs.push(env.body(&["profile", "update", &id], &upd));
    outputs.push(create(&env, &profile_body("ssn-00001")));
    outputs.push(create(
        &env,
        &with_ind("bad key", "ssn", Some(json!(whole))),
    ));
    outputs.push(create(
        &env,
        &with_ind("ssn-00002", "ssn", Some(json!(123456789))),
    ));
    outputs.push(create(
        &env,
        &with_ind("ssn-00003", whole, Some(json!(whole))),
    ));
    outputs.push(env.run(&[
        "-o", "table", "profile", "update", &id, "--ssn", whole, "--email", "x",
    ]));
    outputs.push(env.run(&[
        "-o",
        "table",
        "profile",
        "create",
        "--ssn",
        "987654321",
        "--email",
        "x",
    ]));
    outputs.push(env.run_with(
        &["profile", "create", "--body", "-"],
        Some(br#"{"customer_profile_individual": {"ssn": 123456789x}}"#),
    ));
    for o in &outputs {
        for text in [&o.stdout, &o.stderr] {
            assert!(!text.contains(whole), "the whole SSN leaked: {o:?}");
            assert!(!text.contains("987654321"), "the whole SSN leaked: {o:?}");
        }
    }
    // The record shows the last 4 digits, in every format.
    assert_eq!(outputs[0].json["data"][0][IND]["ssn"], "6789");
    assert_eq!(outputs[1].json["data"][0][IND]["ssn"], "6789");
    assert!(outputs[3].stdout.contains("6789"), "{:?}", outputs[3]);
    // (A list table shows the columns an operator scans, without the SSN.)
    assert!(outputs[4].stdout.contains("ssn-00001"), "{:?}", outputs[4]);
    // Stored whole; an update with the same SSN answers as one with another
    // (no oracle), and the store still holds it whole.
    let same = env.body(&["profile", "update", &id], &json!({IND: {"ssn": whole}}));
    let other = env.body(
        &["profile", "update", &id],
        &json!({IND: {"ssn": "987654321"}}),
    );
    same.refused(1, 10003);
    assert_eq!(same.json, other.json);
    let file = std::fs::read_to_string(env.customer_file(&id)).unwrap();
    assert!(file.contains(whole));
}

// ---------------------------------------------------------------- update

fn update(env: &Env, id: &str, body: &Value) -> Out {
    env.body(&["profile", "update", id], body)
}

#[test]
fn update_is_partial() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("upd-00001"));
    let before = get(&env, &id);
    std::thread::sleep(std::time::Duration::from_millis(5));
    let o = env
        .cmd()
        .args([
            "--actor", "changer", "profile", "update", &id, "--body", "-",
        ])
        .write_stdin(json!({IND: {"email": "new@example.com"}}).to_string())
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        answer,
        json!({"paging": null, "data": [{"id": id}], "errors": null})
    );
    let after = get(&env, &id);
    assert_eq!(after[IND]["email"], "new@example.com");
    for f in [
        "first_name",
        "middle_name",
        "last_name",
        "date_of_birth",
        "ssn",
        "mobile_phone",
        "home_phone",
        "office_phone",
    ] {
        assert_eq!(after[IND][f], before[IND][f], "{f}");
    }
    for f in [
        "customer_profile_id",
        "customer_type_id",
        "customer_key",
        "customer_profile_tags",
        "created_by",
        "created_datetime",
    ] {
        assert_eq!(after[f], before[f], "{f}");
    }
    assert_ne!(after["modified_datetime"], before["modified_datetime"]);
    assert!(after["modified_datetime"].as_str() > before["modified_datetime"].as_str());
    assert_eq!(after["modified_by"], "changer");

    // Top-level only; an empty body changes nothing.
    let o = update(&env, &id, &json!({"customer_type_id": 2}));
    assert_eq!(o.id(), id);
    let p = get(&env, &id);
    assert_eq!(p["customer_type_id"], 2);
    assert_eq!(p[IND], after[IND]);
    let o = update(&env, &id, &json!({}));
    assert_eq!(o.id(), id);
    assert_eq!(get(&env, &id), p);
    // Optional fields can be set and cleared.
    update(
        &env,
        &id,
        &json!({IND: {"office_phone": "+19998887777", "middle_name": "Byron"}}),
    )
    .id();
    let p = get(&env, &id);
    assert_eq!(p[IND]["office_phone"], "+19998887777");
    assert_eq!(p[IND]["middle_name"], "Byron");
    update(&env, &id, &json!({IND: {"office_phone": null}})).id();
    assert!(get(&env, &id)[IND]["office_phone"].is_null());
    // The list shows the new values and filters on them.
    let l = env.run(&["profile", "list", "--email", "new@example.com"]);
    assert_eq!(l.data().len(), 1);
    assert_eq!(l.data()[0][IND]["middle_name"], "Byron");
    assert_eq!(
        env.run(&["profile", "list", "--email", "ada@example.com"])
            .data()
            .len(),
        0
    );
}

#[test]
fn non_updatable_fields_same_value_ok_changed_refused() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("upd-00001"));
    let other = accepted(&env, &profile_body("upd-00002"));
    // The same values: accepted (tags in any order).
    let mut b = profile_body("upd-00001");
    b["customer_profile_tags"] = json!([{"key": "segment", "value": "retail"}]);
    b[IND]["first_name"] = json!("Augusta");
    // (The SSN is refused whatever its value: see below.)
    b[IND].as_object_mut().unwrap().remove("ssn");
    assert_eq!(update(&env, &id, &b).id(), id);
    assert_eq!(get(&env, &id)[IND]["first_name"], "Augusta");
    assert_eq!(
        update(&env, &id, &json!({"customer_key": "upd-00001"})).id(),
        id
    );
    // Changed: 10003, store unchanged. The SSN, the stored one too: an
    // answer that depended on it would confirm a guess.
    for (body, path) in [
        (json!({IND: {"ssn": "123456789"}}), "ssn"),
        (json!({"customer_key": "upd-00003"}), "customer_key"),
        (json!({"customer_key": "upd-00002"}), "customer_key"),
        (json!({IND: {"ssn": "987654321"}}), "ssn"),
        (json!({IND: {"ssn": "6789"}}), "ssn"),
        (
            json!({"customer_profile_tags": []}),
            "customer_profile_tags",
        ),
        (
            json!({"customer_profile_tags": [{"key": "segment", "value": "vip"}]}),
            "customer_profile_tags",
        ),
        (
            json!({"customer_profile_tags": [{"key": "segment", "value": "retail"}, {"key": "extra", "value": "tag"}]}),
            "customer_profile_tags",
        ),
        (
            json!({"customer_key": "upd-00003", IND: {"email": "changed@example.com"}}),
            "customer_key",
        ),
    ] {
        let before = env.snapshot();
        let o = update(&env, &id, &body);
        o.refused(1, 10003).mentions(path);
        unchanged(&env, &before, &o);
    }
    // The refused key change did not take the new key nor release the old one.
    accepted(&env, &profile_body("upd-00003"));
    create(&env, &profile_body("upd-00001")).refused(1, 21002);
    assert_eq!(get(&env, &other)["customer_key"], "upd-00002");
    // The flag form too.
    env.run(&["profile", "update", &id, "--customer-key", "other-key"])
        .refused(1, 10003);
    env.run(&["profile", "update", &id, "--ssn", "1111"])
        .refused(1, 10003);
    env.run(&["profile", "update", &id, "--tag", "segment=vip"])
        .refused(1, 10003);
}

#[test]
fn update_validates_with_the_same_rules() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("upd-00001"));
    let t = today();
    let young = t
        .checked_sub_months(Months::new(12 * 17))
        .unwrap()
        .format("%Y-%m-%d")
        .to_string();
    let cases = [
        (json!({"customer_type_id": 5}), 10001, "customer_type_id"),
        (json!({"customer_type_id": 0}), 10001, "customer_type_id"),
        (json!({"customer_type_id": "1"}), 10005, "customer_type_id"),
        (json!({IND: {"email": "nope"}}), 10001, "email"),
        (json!({IND: {"email": 5}}), 10005, "email"),
        (json!({IND: {"first_name": ""}}), 10001, "first_name"),
        (
            json!({IND: {"last_name": "é".repeat(51)}}),
            10001,
            "last_name",
        ),
        (
            json!({IND: {"middle_name": "é".repeat(51)}}),
            10001,
            "middle_name",
        ),
        (json!({IND: {"mobile_phone": "+1"}}), 10001, "mobile_phone"),
        (json!({IND: {"home_phone": "+0123"}}), 10001, "home_phone"),
        (
            json!({IND: {"date_of_birth": "02/30/2000"}}),
            10001,
            "date_of_birth",
        ),
        (
            json!({IND: {"date_of_birth": young}}),
            10001,
            "date_of_birth",
        ),
        (json!({IND: {"emial": "a@b.c"}}), 10004, "email"),
        (
            json!({"customer_profile_id": "csp_x"}),
            10004,
            "customer_profile_id",
        ),
        (json!({IND: "x"}), 10005, IND),
        // A wrong JSON type of a non-updatable field is malformed, not a change.
        (json!({"customer_key": 12345}), 10005, "customer_key"),
        (json!({IND: {"ssn": 123456789}}), 10005, "ssn"),
        (
            json!({"customer_profile_tags": "segment=retail"}),
            10005,
            "customer_profile_tags",
        ),
        (json!([]), 10005, "body"),
    ];
    for (body, code, path) in cases {
        let before = env.snapshot();
        let o = update(&env, &id, &body);
        o.refused(1, code).mentions(path);
        unchanged(&env, &before, &o);
    }
    // Every bad field at once.
    let o = update(
        &env,
        &id,
        &json!({IND: {"email": "nope", "mobile_phone": "+1"}}),
    );
    assert_eq!(o.codes(), [10001, 10001], "{o:?}");
    // Unknown profile.
    update(&env, "csp_nosuchprofile", &json!({})).refused(1, 20001);
}

#[test]
fn update_email_flag_wins_over_body() {
    let env = Env::new();
    let id = accepted(&env, &profile_body("upd-00001"));
    let o = env.run_with(
        &[
            "profile",
            "update",
            &id,
            "--email",
            "flag@example.com",
            "--body",
            "-",
        ],
        Some(
            json!({IND: {"email": "body@example.com", "first_name": "Body"}})
                .to_string()
                .as_bytes(),
        ),
    );
    assert_eq!(o.id(), id);
    let p = get(&env, &id);
    assert_eq!(p[IND]["email"], "flag@example.com");
    assert_eq!(p[IND]["first_name"], "Body");
    // A flag alone.
    env.run(&["profile", "update", &id, "--last-name", "Byron"])
        .id();
    assert_eq!(get(&env, &id)[IND]["last_name"], "Byron");
}

// ---------------------------------------------------------------- list filters

#[test]
fn list_filters() {
    let env = Env::new();
    let mk = |k: &str, first: &str, last: &str, email: &str, tags: Value| {
        let mut b = profile_body(k);
        b[IND]["first_name"] = json!(first);
        b[IND]["last_name"] = json!(last);
        b[IND]["email"] = json!(email);
        b["customer_profile_tags"] = tags;
        accepted(&env, &b)
    };
    let a = mk(
        "flt-00001",
        "Ada",
        "Lovelace",
        "ada@example.com",
        json!([{"key": "segment", "value": "retail"}]),
    );
    let b = mk(
        "flt-00002",
        "Grace",
        "Hopper",
        "grace@example.com",
        json!([{"key": "segment", "value": "vip"}, {"key": "team", "value": "navy"}]),
    );
    let c = mk(
        "flt-00003",
        "Ada",
        "Byron",
        "ada.b@example.com",
        json!([{"key": "team", "value": "navy"}]),
    );
    let (a, b, c) = (a.as_str(), b.as_str(), c.as_str());
    let ids = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["profile", "list"];
        a.extend(args);
        let o = env.run(&a);
        assert_eq!(o.code, 0, "{o:?}");
        assert_eq!(o.json["paging"]["total_count"], o.data().len(), "{o:?}");
        o.data()
            .iter()
            .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&[]), [a, b, c]);
    assert_eq!(ids(&["--first-name", "Ada"]), [a, c]);
    assert_eq!(ids(&["--first-name", "ada"]), [a, c]);
    assert_eq!(ids(&["--first-name", "Ad"]), Vec::<String>::new());
    assert_eq!(ids(&["--last-name", "HOPPER"]), [b]);
    assert_eq!(ids(&["--email", "ada@example.com"]), [a]);
    assert_eq!(ids(&["--email", "ADA@EXAMPLE.COM"]), [a]);
    assert_eq!(ids(&["--customer-key", "flt-00003"]), [c]);
    assert_eq!(ids(&["--customer-key", "FLT-00003"]), Vec::<String>::new());
    assert_eq!(ids(&["--tag", "team=navy"]), [b, c]);
    assert_eq!(ids(&["--tag", "team=navy", "--tag", "segment=vip"]), [b]);
    assert_eq!(
        ids(&["--tag", "segment=retail", "--tag", "team=navy"]),
        Vec::<String>::new()
    );
    assert_eq!(ids(&["--first-name", "Ada", "--tag", "team=navy"]), [c]);
    assert_eq!(
        ids(&["--first-name", "Ada", "--last-name", "Lovelace"]),
        [a]
    );
    // A tag flag without `=` is a usage error.
    let o = env.run(&["profile", "list", "--tag", "team"]);
    assert_eq!(o.code, 2, "{o:?}");
}

#[test]
fn list_filters_answer_from_field_indexes_that_check_and_repair_keep() {
    let env = Env::new();
    let mk = |k: &str, first: &str, last: &str| {
        let mut b = profile_body(k);
        b[IND]["first_name"] = json!(first);
        b[IND]["last_name"] = json!(last);
        accepted(&env, &b)
    };
    let a = mk("fix-00001", "Élodie", "Lovelace");
    let b = mk("fix-00002", "Grace", "Hopper");
    let c = mk("fix-00003", "Ada", "Byron");
    let ids = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["profile", "list"];
        a.extend(args);
        let o = env.run(&a);
        assert_eq!(o.code, 0, "{o:?}");
        assert_eq!(o.json["paging"]["total_count"], o.data().len(), "{o:?}");
        o.data()
            .iter()
            .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
            .collect()
    };
    // Unicode case folding, as documented.
    assert_eq!(ids(&["--first-name", "éLODIE"]), [a.as_str()]);
    // A rename: found under the new name in creation order, not under the old one.
    let o = env.run(&["profile", "update", &a, "--last-name", "BYRON"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(ids(&["--last-name", "byron"]), [a.clone(), c.clone()]);
    assert!(ids(&["--last-name", "lovelace"]).is_empty());
    let o = env.run(&[
        "profile",
        "list",
        "--last-name",
        "byron",
        "--page-size",
        "1",
    ]);
    assert_eq!(o.json["paging"]["total_count"], 2, "{o:?}");
    let after = o.json["paging"]["last_evaluated_key"].as_str().unwrap();
    assert_eq!(after, a);
    let o = env.run(&["profile", "list", "--last-name", "byron", "--after", after]);
    assert_eq!(o.data()[0]["customer_profile_id"], c.as_str(), "{o:?}");
    assert_eq!(
        ids(&["--tag", "segment=retail", "--last-name", "Hopper"]),
        [b.as_str()]
    );
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
    // The index is what answers: without it, check names it, repair rebuilds it.
    std::fs::remove_dir_all(env.path().join("index/by-last-name")).unwrap();
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("index/by-last-name/"), "{o:?}");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(ids(&["--last-name", "byron"]), [a.clone(), c.clone()]);
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
    // An entry at a wrong position is named.
    let bucket = std::fs::read_dir(env.path().join("index/by-email"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&bucket).unwrap();
    let (_, rest) = text.split_once(' ').unwrap();
    std::fs::write(&bucket, format!("{text}77 {rest}")).unwrap();
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("position 77"), "{o:?}");
}

#[test]
fn a_rename_writes_a_removal_line_so_a_filter_reads_only_its_page() {
    let env = Env::new();
    let mut ids = Vec::new();
    for i in 0..5 {
        let mut b = profile_body(&format!("rm-{i:05}"));
        b[IND]["last_name"] = json!("Lovelace");
        ids.push(accepted(&env, &b));
    }
    let o = env.run(&["profile", "update", &ids[1], "--last-name", "Byron"]);
    assert_eq!(o.code, 0, "{o:?}");
    // The old value's bucket says the profile left it.
    let bucket = |v: &str| -> String {
        let dir = env.path().join("index/by-last-name");
        std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .find(|t| t.contains(&format!("\"{v}\"")))
            .unwrap_or_default()
    };
    assert!(
        bucket("lovelace").contains(&format!("-1 {} \"lovelace\"", ids[1])),
        "{}",
        bucket("lovelace")
    );
    let o = env.run(&[
        "profile",
        "list",
        "--last-name",
        "LOVELACE",
        "--page-size",
        "2",
    ]);
    assert_eq!(o.json["paging"]["total_count"], 4, "{o:?}");
    let got: Vec<&str> = o
        .data()
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [ids[0].as_str(), ids[2].as_str()]);
    // The index is what answers: a page reads only its own records, so a
    // record outside the page may be unreadable without failing it.
    let stored = env.customer_file(&ids[4]);
    let saved = std::fs::read(&stored).unwrap();
    std::fs::write(&stored, b"{").unwrap();
    let o = env.run(&[
        "profile",
        "list",
        "--last-name",
        "lovelace",
        "--page-size",
        "2",
    ]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.json["paging"]["total_count"], 4, "{o:?}");
    std::fs::write(&stored, saved).unwrap();
    // Renamed back: listed again, at its place in creation order.
    let o = env.run(&["profile", "update", &ids[1], "--last-name", "lovelace"]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = env.run(&["profile", "list", "--last-name", "Lovelace"]);
    assert_eq!(o.json["paging"]["total_count"], 5, "{o:?}");
    assert_eq!(o.data()[1]["customer_profile_id"], ids[1].as_str());
    let o = env.run(&["profile", "list", "--last-name", "byron"]);
    assert_eq!(o.json["paging"]["total_count"], 0, "{o:?}");
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");

    // An entry whose profile no longer has its value (an update that lost
    // its removal line: here `byron`) is named by check, and repair
    // rebuilds the index.
    let strip_removals = || {
        for e in std::fs::read_dir(env.path().join("index/by-last-name"))
            .unwrap()
            .flatten()
        {
            let text = std::fs::read_to_string(e.path()).unwrap();
            let kept: String = text
                .lines()
                .filter(|l| !l.starts_with('-'))
                .map(|l| format!("{l}\n"))
                .collect();
            std::fs::write(e.path(), kept).unwrap();
        }
    };
    strip_removals();
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("no longer has"), "{o:?}");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
    let o = env.run(&["profile", "list", "--last-name", "lovelace"]);
    assert_eq!(o.json["paging"]["total_count"], 5, "{o:?}");

    // A store of format 6 (whose updates left their old values in the
    // index, with no removal lines) gets its field indexes rebuilt by the
    // first command that opens it.
    let o = env.run(&["profile", "update", &ids[3], "--last-name", "Hopper"]);
    assert_eq!(o.code, 0, "{o:?}");
    strip_removals();
    std::fs::write(env.path().join("meta.json"), "{\"format_version\":6}\n").unwrap();
    let o = env.run(&["profile", "list", "--last-name", "lovelace"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.json["paging"]["total_count"], 4, "{o:?}");
    let meta: Value =
        serde_json::from_slice(&std::fs::read(env.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
}

// ---------------------------------------------------------------- random input

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        "[0-9+@./-]{0,20}".prop_map(Value::String),
        "\\PC{0,60}".prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{1,12}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const TOP: &[&str] = &[
    "customer_type_id",
    "customer_key",
    "customer_profile_tags",
    IND,
];
const INDF: &[&str] = &[
    "first_name",
    "middle_name",
    "last_name",
    "email",
    "date_of_birth",
    "ssn",
    "mobile_phone",
    "home_phone",
    "office_phone",
];

fn check_envelope(o: &Out) {
    assert!(o.code == 0 || o.code == 1, "exit must be 0 or 1: {o:?}");
    assert!(!o.stderr.contains("panicked"), "{o:?}");
    let obj = o
        .json
        .as_object()
        .unwrap_or_else(|| panic!("no envelope: {o:?}"));
    assert_eq!(obj.len(), 3, "{o:?}");
    if o.code == 0 {
        assert!(
            o.json["errors"].is_null() && o.json["data"].is_array(),
            "{o:?}"
        );
    } else {
        assert!(
            o.json["data"].is_null() && !o.json["errors"].as_array().unwrap().is_empty(),
            "{o:?}"
        );
        for e in o.json["errors"].as_array().unwrap() {
            assert!(e["code"].is_u64() && e["message"].is_string(), "{o:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random JSON in random profile fields (create and update) never panics:
    /// the exit is 0 or 1 and stdout is the envelope.
    #[test]
    fn random_field_values_never_panic(
        top in prop::collection::vec((prop::sample::select(TOP), arb_json()), 0..3),
        ind in prop::collection::vec((prop::sample::select(INDF), arb_json()), 0..4),
        extra in prop::option::of(("\\PC{1,20}", arb_json())),
    ) {
        thread_local! {
            static ENV: (Env, String) = {
                let env = Env::new();
                let id = env.create_profile("prop-base");
                (env, id)
            };
        }
        let mut body = profile_body("prop-00001");
        for (f, v) in &top {
            body[*f] = v.clone();
        }
        let mut patch = json!({});
        if body[IND].is_object() {
            for (f, v) in &ind {
                body[IND][*f] = v.clone();
                patch[*f] = v.clone();
            }
        }
        if let Some((k, v)) = &extra {
            body[IND.to_string()].as_object_mut().map(|m| m.insert(k.clone(), v.clone()));
        }
        ENV.with(|(env, id)| {
            let o = create(env, &body);
            check_envelope(&o);
            let o = update(env, id, &json!({IND: patch}));
            check_envelope(&o);
            let mut top_patch = json!({});
            for (f, v) in &top {
                top_patch[*f] = v.clone();
            }
            let o = update(env, id, &top_patch);
            check_envelope(&o);
            let o = env.run(&["profile", "get", id]);
            prop_assert_eq!(o.code, 0);
            Ok(())
        })?;
    }
}

// ---------------------------------------------------------------- list filters

/// Every combination of filters answers exactly the profiles that match all
/// of them, in creation order, page after page: the matches of the filters'
/// indexes are intersected (the smallest list first), and a filter whose
/// value nobody holds answers an empty list whatever the others match.
#[test]
fn combined_filters_intersect_in_creation_order() {
    let env = Env::new();
    // 12 profiles: first name by i % 2, last name by i % 3, a tag by i % 4.
    let mut ids = Vec::new();
    for i in 0..12usize {
        let mut b = profile_body(&key(i));
        b[IND]["first_name"] = json!(["Ada", "Bea"][i % 2]);
        b[IND]["last_name"] = json!(["Xiong", "Yang", "Zeller"][i % 3]);
        b[IND]["email"] = json!(format!("p{}@example.com", i % 5));
        b["customer_profile_tags"] = json!([{"key": "tier", "value": format!("tier{}", i % 4)}]);
        ids.push(accepted(&env, &b));
    }
    let expect = |f: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..12).filter(|&i| f(i)).map(|i| ids[i].clone()).collect()
    };
    let listed = |args: &[&str]| -> Vec<String> {
        // Pages of 1, following last_evaluated_key, so paging is covered.
        let mut all = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut a: Vec<&str> = vec!["profile", "list", "--page-size", "1"];
            a.extend_from_slice(args);
            if let Some(k) = &after {
                a.extend_from_slice(&["--after", k]);
            }
            let o = env.run(&a);
            assert_eq!(o.code, 0, "{args:?}: {o:?}");
            let data = o.data();
            if data.is_empty() {
                break;
            }
            assert_eq!(data.len(), 1);
            let id = data[0]["customer_profile_id"].as_str().unwrap().to_string();
            all.push(id.clone());
            let total = o.json["paging"]["total_count"].as_u64();
            if let Some(t) = total {
                assert!(all.len() as u64 <= t, "{args:?}: more than total_count {t}");
            }
            after = Some(id);
            if all.len() > 12 {
                panic!("{args:?}: paging does not end");
            }
        }
        all
    };
    assert_eq!(listed(&["--first-name", "ADA"]), expect(&|i| i % 2 == 0));
    assert_eq!(
        listed(&["--first-name", "ada", "--last-name", "xiong"]),
        expect(&|i| i % 2 == 0 && i % 3 == 0)
    );
    assert_eq!(
        listed(&["--last-name", "Yang", "--tag", "tier=tier1"]),
        expect(&|i| i % 3 == 1 && i % 4 == 1)
    );
    assert_eq!(
        listed(&["--email", "P2@example.com", "--first-name", "Ada"]),
        expect(&|i| i % 5 == 2 && i % 2 == 0)
    );
    assert_eq!(
        listed(&["--customer-key", &key(6), "--last-name", "xiong"]),
        vec![ids[6].clone()]
    );
    assert!(listed(&["--customer-key", &key(6), "--last-name", "yang"]).is_empty());
    assert!(listed(&["--last-name", "nobody", "--first-name", "ada"]).is_empty());
    // A later update moves a profile between the indexes' values.
    let o = env.run(&["profile", "update", &ids[1], "--first-name", "Ada"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(
        listed(&["--first-name", "ada", "--last-name", "yang"]),
        expect(&|i| (i % 2 == 0 || i == 1) && i % 3 == 1)
    );
}
