//! Corrupt stores and hostile input: a damaged file is named and left as it
//! is (exit 3); a hostile body or identifier is refused with the JSON
//! envelope (exit 1), the store unchanged, nothing written outside it, and
//! never a panic. A property test throws random JSON and random bytes at the
//! creates.

use crate::common;

use std::fs;

use common::{Env, Out, address_body, profile_body};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{Value, json};

/// No panic, and stdout is exactly one envelope.
fn sane(o: &Out, what: &str) {
    assert!(!o.stderr.contains("panicked"), "{what}: {o:?}");
    assert!(
        o.json.is_object(),
        "{what}: stdout is not one JSON object: {o:?}"
    );
    for k in ["paging", "data", "errors"] {
        assert!(o.json.get(k).is_some(), "{what}: no {k}: {o:?}");
    }
}

/// Refused with exit 1: errors non-empty, data null, nothing changed.
fn refused(env: &Env, args: &[&str], stdin: &[u8], what: &str) -> Out {
    let before = env.snapshot();
    let o = env.run_with(args, Some(stdin));
    sane(&o, what);
    assert_eq!(o.code, 1, "{what}: {o:?}");
    assert!(o.json["data"].is_null(), "{what}: {o:?}");
    assert!(!o.codes().is_empty(), "{what}: {o:?}");
    assert!(
        before == env.snapshot(),
        "{what}: a refusal changed the store"
    );
    o
}

// ------------------------------------------------------------ corrupt stores

#[test]
fn a_truncated_customer_file_is_named_and_left_as_it_is() {
    let env = Env::new();
    let csp = env.create_profile("trunc-0001");
    let other = env.create_profile("trunc-0002");
    let path = env.customer_file(&csp);
    let bytes = fs::read(&path).unwrap();
    let cut = bytes[..bytes.len() / 2].to_vec();
    fs::write(&path, &cut).unwrap();
    let name = format!("{csp}.json");
    for args in [
        vec!["profile", "get", &csp],
        vec!["profile", "list"],
        vec!["address", "list", &csp],
        vec!["profile", "update", &csp, "--first-name", "Changed"],
    ] {
        let o = env.run(&args);
        sane(&o, &args.join(" "));
        o.refused(3, 30002).mentions(&name);
        assert_eq!(
            fs::read(&path).unwrap(),
            cut,
            "{args:?}: the file was touched"
        );
    }
    let o = env.body(&["address", "create", &csp], &address_body(true));
    o.refused(3, 30002).mentions(&name);
    // The rest of the store still works, and check names the file.
    assert_eq!(env.run(&["profile", "get", &other]).code, 0);
    let o = env.run(&["store", "check", "--repair"]);
    o.refused(3, 30006).mentions(&name);
    assert_eq!(fs::read(&path).unwrap(), cut);
}

#[test]
fn a_store_from_a_newer_payctl_is_refused_clearly() {
    let env = Env::new();
    env.create_profile("newer-001");
    let meta = env.path().join("meta.json");
    fs::write(&meta, br#"{"format_version": 999}"#).unwrap();
    let before = env.snapshot();
    for args in [
        vec!["profile", "list"],
        vec!["profile", "update", "csp_x", "--first-name", "Z"],
        vec!["store", "check", "--repair"],
        vec!["worker"],
    ] {
        let o = env.run(&args);
        sane(&o, &args.join(" "));
        o.refused(3, 30004)
            .mentions("999")
            .mentions("upgrade payctl");
    }
    let o = env.body(&["profile", "create"], &profile_body("newer-002"));
    o.refused(3, 30004);
    assert!(before == env.snapshot(), "a newer store was written to");
}

#[test]
fn a_corrupt_catalog_or_meta_is_named() {
    let env = Env::new();
    env.create_profile("catlg-001");
    let catalog = env.path().join("catalog.json");
    fs::write(&catalog, b"{\"programs\": [ oops").unwrap();
    for args in [vec!["program", "list"], vec!["store", "check"]] {
        let o = env.run(&args);
        sane(&o, &args.join(" "));
        assert_eq!(o.code, 3, "{o:?}");
        o.mentions("catalog.json");
    }
    let o = env.body(&["profile", "create"], &profile_body("catlg-002"));
    o.refused(3, 30002).mentions("catalog.json");
    assert_eq!(fs::read(&catalog).unwrap(), b"{\"programs\": [ oops");

    let env = Env::new();
    env.run(&["init"]);
    fs::write(env.path().join("meta.json"), b"\x00\x01garbage").unwrap();
    env.run(&["profile", "list"])
        .refused(3, 30002)
        .mentions("meta.json");
}

// ------------------------------------------------------------ hostile bodies

fn deep(n: usize) -> Vec<u8> {
    let mut v = vec![b'['; n];
    v.extend(std::iter::repeat_n(b']', n));
    v
}

/// Bodies that are not a usable request at all.
fn hostile_bodies() -> Vec<(&'static str, Vec<u8>)> {
    let mut with_nul = profile_body("nul-00001").to_string().into_bytes();
    let at = with_nul.windows(3).position(|w| w == b"Ada").unwrap();
    with_nul.insert(at + 1, 0);
    let mut bad_utf8 = profile_body("utf-00001").to_string().into_bytes();
    let at = bad_utf8.windows(3).position(|w| w == b"Ada").unwrap();
    bad_utf8.splice(at..at + 1, [0xC3, 0x28, 0xFF]);
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend(profile_body("bom-00001").to_string().bytes());
    let big = "x".repeat(2 << 20);
    let mut big_name = profile_body("big-00001");
    big_name["customer_profile_individual"]["first_name"] = json!(big);
    let mut escaped_nul = profile_body("nul-00002");
    escaped_nul["customer_profile_individual"]["first_name"] = json!("A\u{0}da");
    let mut escape_seq = profile_body("esc-00001");
    escape_seq["customer_profile_individual"]["last_name"] = json!("\u{1b}]0;owned\u{7}");
    let mut lone = profile_body("sur-00001").to_string();
    lone = lone.replace("\"Ada\"", "\"\\ud800\"");
    let mut deep_obj = String::new();
    for _ in 0..100_000 {
        deep_obj.push_str("{\"a\":");
    }
    deep_obj.push('1');
    deep_obj.push_str(&"}".repeat(100_000));
    vec![
        ("empty", Vec::new()),
        ("whitespace", b" \n\t\r\n ".to_vec()),
        ("not JSON", b"customer_key=abc".to_vec()),
        ("truncated JSON", br#"{"customer_key": "abcde""#.to_vec()),
        (
            "trailing garbage",
            format!("{} x", profile_body("trl-00001")).into_bytes(),
        ),
        (
            "two documents",
            format!("{0}{0}", profile_body("two-00001")).into_bytes(),
        ),
        ("an array", b"[]".to_vec()),
        ("a string", b"\"str\"".to_vec()),
        ("null", b"null".to_vec()),
        ("a number", b"12345".to_vec()),
        ("true", b"true".to_vec()),
        ("an empty object", b"{}".to_vec()),
        ("a byte-order mark", bom),
        ("a raw NUL inside a string", with_nul),
        ("a raw NUL outside strings", b"{\x00}".to_vec()),
        (
            "an escaped NUL inside a string",
            escaped_nul.to_string().into_bytes(),
        ),
        (
            "a terminal escape sequence",
            escape_seq.to_string().into_bytes(),
        ),
        ("invalid UTF-8", bad_utf8),
        ("a lone surrogate", lone.into_bytes()),
        ("100k-deep arrays", deep(100_000)),
        ("100k-deep objects", deep_obj.into_bytes()),
        ("a 2 MB string", big_name.to_string().into_bytes()),
        (
            "a 2 MB key",
            json!({"customer_key": big}).to_string().into_bytes(),
        ),
        (
            "a 2 MB field name",
            format!("{{\"{big}\": 1}}").into_bytes(),
        ),
        ("a huge number", br#"{"customer_type_id": 1e400}"#.to_vec()),
        (
            "a 400-digit number",
            format!("{{\"customer_type_id\": {}}}", "9".repeat(400)).into_bytes(),
        ),
    ]
}

#[test]
fn hostile_bodies_are_refused_with_an_envelope() {
    let env = Env::new();
    let csp = env.create_profile("host-0001");
    env.body(&["address", "create", &csp], &address_body(true))
        .id();
    let targets: [(&str, Vec<&str>); 4] = [
        ("profile create", vec!["profile", "create", "--body", "-"]),
        (
            "address create",
            vec!["address", "create", &csp, "--body", "-"],
        ),
        (
            "profile update",
            vec!["profile", "update", &csp, "--body", "-"],
        ),
        ("txn create", vec!["txn", "create", "--body", "-"]),
    ];
    for (name, body) in hostile_bodies() {
        for (cmd, args) in &targets {
            // An empty object is a valid (empty) partial update.
            if *cmd == "profile update" && name == "an empty object" {
                continue;
            }
            let what = format!("{cmd} with {name}");
            let o = refused(&env, args, &body, &what);
            // Messages never echo what was sent.
            let text = o.messages().join("\n");
            assert!(
                text.len() < 20_000,
                "{what}: {} bytes of messages",
                text.len()
            );
            assert!(!text.contains("owned"), "{what}: {text}");
        }
    }
}

#[test]
fn wrong_types_in_every_field_are_each_reported() {
    let env = Env::new();
    env.run(&["init"]);
    let body = json!({
        "customer_type_id": "1",
        "customer_key": 12345,
        "customer_profile_tags": {"key": "abc", "value": "def"},
        "customer_profile_individual": {
            "first_name": 1,
            "middle_name": [],
            "last_name": true,
            "email": {},
            "date_of_birth": 19901210,
            "ssn": 123456789,
            "mobile_phone": 15551234567u64,
            "home_phone": false,
            "office_phone": ["+15551234567"]
        }
    });
    let o = refused(
        &env,
        &["profile", "create", "--body", "-"],
        body.to_string().as_bytes(),
        "types",
    );
    let msgs = o.messages();
    for path in [
        "customer_type_id",
        "customer_key",
        "customer_profile_tags",
        "customer_profile_individual.first_name",
        "customer_profile_individual.middle_name",
        "customer_profile_individual.last_name",
        "customer_profile_individual.email",
        "customer_profile_individual.date_of_birth",
        "customer_profile_individual.ssn",
        "customer_profile_individual.mobile_phone",
        "customer_profile_individual.home_phone",
        "customer_profile_individual.office_phone",
    ] {
        assert!(
            msgs.iter().any(|m| m.starts_with(&format!("{path}:"))),
            "no error for {path}: {msgs:#?}"
        );
    }
    assert!(
        o.codes().iter().all(|c| [10005, 10001].contains(c)),
        "{o:?}"
    );
    assert!(!o.stdout.contains("123456789"), "the SSN sent is echoed");

    // One wrong type at a time, in an otherwise valid body.
    let wrong = [
        json!(null),
        json!("x"),
        json!(1.5),
        json!(-1),
        json!([]),
        json!({}),
        json!(true),
    ];
    let base = profile_body("types-001");
    let mut tried = 0;
    for (field, nested, kind) in [
        ("customer_type_id", false, "number"),
        ("customer_key", false, "string"),
        ("customer_profile_tags", false, "array"),
        ("customer_profile_individual", false, "object"),
        ("first_name", true, "string"),
        ("email", true, "string"),
        ("date_of_birth", true, "string"),
        ("ssn", true, "string"),
        ("mobile_phone", true, "string"),
    ] {
        for v in &wrong {
            let same_type = match kind {
                "number" => v.is_number() && *v != json!(1.5) && *v != json!(-1),
                "string" => v.is_string(),
                "array" => v.is_array(),
                _ => v.is_object(),
            };
            // Null is "absent", which an optional field may be.
            if same_type || (v.is_null() && matches!(field, "customer_profile_tags" | "ssn")) {
                continue;
            }
            let mut b = base.clone();
            if nested {
                b["customer_profile_individual"][field] = v.clone();
            } else {
                b[field] = v.clone();
            }
            let what = format!("{field} = {v}");
            tried += 1;
            let o = refused(
                &env,
                &["profile", "create", "--body", "-"],
                b.to_string().as_bytes(),
                &what,
            );
            assert!(
                o.messages().iter().any(|m| m.contains(field)),
                "{what}: {o:?}"
            );
        }
    }
    assert!(tried >= 50, "{tried}");
}

#[test]
fn unreadable_body_files_are_refused() {
    let env = Env::new();
    env.run(&["init"]);
    let dir = env.dir.path().to_str().unwrap();
    for (what, path) in [
        ("a missing file", "/nonexistent/body.json"),
        ("a directory", dir),
    ] {
        let o = refused(&env, &["profile", "create", "--body", path], b"", what);
        assert!(o.codes().contains(&10005), "{what}: {o:?}");
    }
}

#[test]
fn control_characters_in_flags_are_refused() {
    let env = Env::new();
    let csp = env.create_profile("flags-001");
    for v in ["A\u{1b}[2J", "line\nbreak", "tab\there", "\u{7f}", "\u{85}"] {
        let o = refused(
            &env,
            &["profile", "update", &csp, "--first-name", v],
            b"",
            &format!("{v:?}"),
        );
        o.refused(1, 10001)
            .mentions("customer_profile_individual.first_name");
    }
    // Unicode that is not a control character is a name like any other.
    let o = env.run(&["profile", "update", &csp, "--first-name", "Zoë 李 😀"]);
    assert_eq!(o.code, 0, "{o:?}");
}

// ------------------------------------------------------------ hostile identifiers

#[test]
fn hostile_identifiers_are_refused_without_touching_the_disk() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("ids-00001");
    let long = format!("csp_{}", "a".repeat(10 * 1024));
    let bad: Vec<String> = vec![
        "prm_abcdefghij".into(),
        "../".into(),
        "..".into(),
        "csp_../../etc/passwd".into(),
        "csp_..".into(),
        "csp_a/b".into(),
        "/etc/passwd".into(),
        "csp_".into(),
        "".into(),
        "csp_ünï€😀".into(),
        "csp_abc def".into(),
        "csp_abc\u{1b}[2J".into(),
        long,
    ];
    let outside = |env: &Env| {
        let mut v: Vec<_> = fs::read_dir(env.dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        v.sort();
        v
    };
    let parent = outside(&env);
    assert_eq!(parent, ["store"]);
    for id in &bad {
        let cpa = id.replacen("csp_", "cpa_", 1);
        let commands: Vec<Vec<&str>> = vec![
            vec!["profile", "get", id],
            vec!["profile", "update", id, "--first-name", "X"],
            vec!["address", "list", id],
            vec!["address", "get", &csp, &cpa],
            vec!["address", "delete", &csp, id, "--yes"],
            vec!["instrument", "list", id],
            vec!["program", "attach", &prm, id],
            vec!["program", "attach", id, &csp],
            vec!["program", "profile", &prm, id],
            vec!["program", "applications", id],
            vec!["template", "list", id],
            vec!["template", "steps", id],
            vec!["txn", "get", id],
            vec!["txn", "steps", id],
            vec!["txn", "parameters", id],
        ];
        for args in commands {
            let what = format!("{args:?}");
            let o = refused(&env, &args, b"", &what);
            assert!(
                o.codes().iter().any(|c| [20001, 10001].contains(c)),
                "{what}: {o:?}"
            );
        }
        let o = refused(
            &env,
            &["address", "create", id, "--body", "-"],
            address_body(true).to_string().as_bytes(),
            id,
        );
        assert!(o.codes().contains(&20001), "{o:?}");
    }
    assert_eq!(outside(&env), parent, "a file was made outside the store");
    assert!(!std::path::Path::new("/etc/passwd.json").exists());
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

/// Continuation keys are user input too: a key of no record, of any length
/// or form, is refused with 10001 (never a panic, never a path).
#[test]
fn hostile_continuation_keys_are_refused() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("after-001");
    env.body(&["address", "create", &csp], &address_body(true))
        .id();
    let long = "a".repeat(10 * 1024);
    let long_id = format!("csp_{long}");
    let keys = [
        "",
        "../../etc/passwd",
        long.as_str(),
        long_id.as_str(),
        "csp_",
        "csp_ünï€",
        "csp_a b",
    ];
    for key in keys {
        for args in [
            vec!["profile", "list", "--after", key],
            vec!["profile", "list", "--first-name", "Ada", "--after", key],
            vec!["address", "list", &csp, "--after", key],
            vec!["program", "profiles", &prm, "--after", key],
            vec!["program", "list", "--after", key],
            vec!["txn", "list", "--after", key],
        ] {
            let shown: String = format!("{args:?}").chars().take(120).collect();
            let o = refused(&env, &args, b"", &shown);
            assert!(o.codes().contains(&10001), "{shown}: {o:?}");
        }
    }
}

// ------------------------------------------------------------ property test

/// Random JSON: scalars (strings of any characters, control ones too),
/// arrays and objects, some of whose keys are real field names.
fn json_value() -> impl Strategy<Value = Value> {
    let names = prop::sample::select(vec![
        "customer_type_id",
        "customer_key",
        "customer_profile_tags",
        "customer_profile_individual",
        "first_name",
        "last_name",
        "email",
        "date_of_birth",
        "ssn",
        "mobile_phone",
        "key",
        "value",
        "address_type_id",
        "is_default",
        "country_id",
        "state_id",
        "address_line1",
        "city",
        "zip",
    ]);
    let key = prop_oneof![names.prop_map(String::from), any::<String>()];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        any::<String>().prop_map(Value::from),
        "[0-9]{0,12}".prop_map(Value::from),
        "[a-z@.]{0,20}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn body_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => json_value().prop_map(|v| v.to_string().into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..512),
    ]
}

/// 64 random bodies for `profile create` and `address create`: never a
/// panic, always one parseable envelope, exit 0 or 1, and a refusal
/// changes nothing.
#[test]
fn random_bodies_never_panic() {
    let env = Env::new();
    let csp = env.create_profile("prop-0001");
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&(body_bytes(), any::<bool>()), |(bytes, address)| {
        let args: Vec<&str> = if address {
            vec!["address", "create", &csp, "--body", "-"]
        } else {
            vec!["profile", "create", "--body", "-"]
        };
        let before = env.snapshot();
        let o = env.run_with(&args, Some(&bytes));
        let fail = |m: String| Err(TestCaseError::fail(m));
        if o.stderr.contains("panicked") {
            return fail(format!("panic: {o:?}"));
        }
        if !o.json.is_object() || o.json.get("errors").is_none() {
            return fail(format!("no envelope: {o:?}"));
        }
        match o.code {
            0 => prop_assert!(o.json["errors"].is_null()),
            1 => {
                prop_assert!(o.json["data"].is_null(), "{o:?}");
                prop_assert!(!o.codes().is_empty(), "{o:?}");
                prop_assert!(before == env.snapshot(), "a refusal changed the store");
            }
            _ => return fail(format!("exit {}: {o:?}", o.code)),
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

// ------------------------------------------------------------ caps (issue 12)

fn tags(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({"key": format!("key{i:03}"), "value": "val"}))
            .collect(),
    )
}

/// An instrument create body for `prm` with `tags`.
fn instrument_body(prm: &str, tags: Value) -> Value {
    common::ach_instrument_body(prm, "Main checking", false, tags)
}

/// Issue 12: every array has a documented cap, refused with 10001 naming
/// the field and the cap; the cap itself is accepted.
#[test]
fn arrays_past_their_caps_are_refused_naming_the_field_and_the_cap() {
    let env = Env::new();
    env.run(&["init"]);
    // Tags of a profile.
    let mut body = profile_body("caps-0001");
    body["customer_profile_tags"] = tags(51);
    let o = refused(
        &env,
        &["profile", "create", "--body", "-"],
        body.to_string().as_bytes(),
        "51 tags",
    );
    o.refused(1, 10001)
        .mentions("customer_profile_tags: may hold at most 50 tags (has 51)");
    body["customer_profile_tags"] = tags(50);
    let csp = env.body(&["profile", "create"], &body).id();

    // Tags of a transaction, parameters, values of a parameter.
    let prm = env.program_id();
    let value = json!({"customer_profile_id": csp, "amount": 1});
    let param = |name: &str, n: usize| {
        json!({"transaction_parameter_name": name,
               "transaction_parameter_values": vec![value.clone(); n]})
    };
    let txn = |tags: Value, params: Vec<Value>| {
        json!({"program_id": prm, "application_id": "payments",
               "transaction_template_id": "ach_funding",
               "transaction_tags": tags, "transaction_parameters": params})
    };
    let args = ["txn", "create", "--body", "-"];
    let b = txn(tags(51), vec![param("@source_customers", 1)]);
    refused(&env, &args, b.to_string().as_bytes(), "51 txn tags")
        .refused(1, 10001)
        .mentions("transaction_tags: may hold at most 50 tags (has 51)");
    let b = txn(tags(1), vec![param("@source_customers", 1); 101]);
    refused(&env, &args, b.to_string().as_bytes(), "101 parameters")
        .refused(1, 10001)
        .mentions("transaction_parameters: may hold at most 100 parameters (has 101)");
    let b = txn(tags(1), vec![param("@source_customers", 1001)]);
    refused(&env, &args, b.to_string().as_bytes(), "1001 values")
        .refused(1, 10001)
        .mentions(
            "transaction_parameters[0].transaction_parameter_values: may hold at most 1000 values (has 1001)",
        );

    // Tags of an instrument.
    let b = instrument_body(&prm, tags(51));
    refused(
        &env,
        &["instrument", "create", &csp, "--body", "-"],
        b.to_string().as_bytes(),
        "51 instrument tags",
    )
    .refused(1, 10001)
    .mentions("payment_instrument_tags: may hold at most 50 tags (has 51)");
}

#[test]
fn a_profile_holds_at_most_50_addresses_and_50_instruments() {
    let env = Env::new();
    let csp = env.create_profile("caps-0002");
    for i in 0..50 {
        let o = env.body(&["address", "create", &csp], &address_body(i == 0));
        assert_eq!(o.code, 0, "address {i}: {o:?}");
    }
    let b = address_body(false).to_string();
    refused(
        &env,
        &["address", "create", &csp, "--body", "-"],
        b.as_bytes(),
        "51st address",
    )
    .refused(1, 10001)
    .mentions("customer_profile_id: already has 50 addresses");

    let prm = env.program_id();
    env.run(&["program", "attach", &prm, &csp]).id();
    assert_eq!(env.run(&["worker"]).code, 0);
    for i in 0..50 {
        let o = env.body(
            &["instrument", "create", &csp],
            &instrument_body(&prm, tags(1)),
        );
        assert_eq!(o.code, 0, "instrument {i}: {o:?}");
    }
    let b = instrument_body(&prm, tags(1)).to_string();
    refused(
        &env,
        &["instrument", "create", &csp, "--body", "-"],
        b.as_bytes(),
        "51st instrument",
    )
    .refused(1, 10001)
    .mentions("customer_profile_id: already has 50 payment instruments");
}

/// `--body` and `init --catalog` are read whole: both stop one byte past
/// their cap, so a huge file or a device costs no memory.
#[test]
fn bodies_and_catalogs_past_their_caps_are_refused_unread() {
    let env = Env::new();
    env.run(&["init"]);
    // A valid JSON body just past 1 MiB (spaces then an object).
    let mut big = vec![b' '; (1 << 20) - 1];
    big.extend_from_slice(b"{}");
    let o = refused(
        &env,
        &["profile", "create", "--body", "-"],
        &big,
        "a 1 MiB body",
    );
    o.refused(1, 10005).mentions("body: is larger than 1 MiB");
    let o = refused(
        &env,
        &["profile", "create", "--body", "/dev/zero"],
        b"",
        "/dev/zero",
    );
    o.refused(1, 10005).mentions("body: is larger than 1 MiB");

    let dir = tempfile::TempDir::new().unwrap();
    let sparse = dir.path().join("catalog.json");
    fs::File::create(&sparse)
        .unwrap()
        .set_len((16 << 20) + 1)
        .unwrap();
    let fresh = dir.path().join("store");
    let o: Out = env
        .cmd()
        .args(["--data-dir", fresh.to_str().unwrap(), "init", "--catalog"])
        .arg(&sparse)
        .output()
        .unwrap()
        .into();
    o.refused(1, 10005)
        .mentions("--catalog: is larger than 16 MiB");
}

// ------------------------------------------------------------ text that reaches a terminal

#[test]
fn the_actor_is_checked_like_a_field() {
    let env = Env::new();
    env.run(&["init"]);
    let before = env.snapshot();
    let long = "a".repeat(100_000);
    for (what, actor) in [
        ("escape sequences", "x\u{1b}]0;owned\u{7}\u{1b}[2J"),
        ("a bidi override", "admin\u{202E}nimda"),
        ("100,000 characters", long.as_str()),
    ] {
        for by_env in [false, true] {
            let mut c = env.cmd();
            if by_env {
                c.env("PAYCTL_ACTOR", actor);
            } else {
                c.args(["--actor", actor]);
            }
            c.args(["profile", "create", "--body", "-"]);
            c.write_stdin(profile_body("actor-0001").to_string());
            let o = Out::from(c.output().unwrap());
            sane(&o, what);
            assert_eq!(o.code, 2, "{what}: {o:?}");
            o.mentions("--actor");
            assert!(
                !o.stdout.contains('\u{1b}') && !o.stderr.contains('\u{1b}'),
                "{what}: {o:?}"
            );
            assert!(env.snapshot() == before, "{what}: the store changed");
        }
    }
    let o = env.run(&["--actor", "Zoë Ünal", "profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
}

/// Invisible and direction-changing characters are refused in every string
/// field; what real names need is kept.
#[test]
fn bidi_format_and_separator_characters_are_refused() {
    let env = Env::new();
    let csp = env.create_profile("bidi-00001");
    for (i, c) in [
        '\u{202A}',
        '\u{202D}',
        '\u{202E}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{2028}',
        '\u{2029}',
        '\u{200B}',
        '\u{200E}',
        '\u{FEFF}',
        '\u{00AD}',
        '\u{FDD0}',
        '\u{FFFE}',
        '\u{FFFF}',
        '\u{1FFFF}',
        '\u{E0041}',
    ]
    .into_iter()
    .enumerate()
    {
        let what = format!("U+{:04X}", c as u32);
        let mut b = profile_body(&format!("bidi-1{i:04}"));
        b["customer_profile_individual"]["last_name"] = json!(format!("Love{c}lace"));
        let o = refused(
            &env,
            &["profile", "create", "--body", "-"],
            b.to_string().as_bytes(),
            &what,
        );
        o.refused(1, 10001)
            .mentions("customer_profile_individual.last_name")
            .mentions(&what);
        let mut a = address_body(false);
        a["city"] = json!(format!("Spring{c}field"));
        refused(
            &env,
            &["address", "create", &csp, "--body", "-"],
            a.to_string().as_bytes(),
            &what,
        )
        .refused(1, 10001)
        .mentions("city");
        refused(
            &env,
            &[
                "profile",
                "update",
                &csp,
                "--first-name",
                &format!("A{c}da"),
            ],
            b"",
            &what,
        )
        .refused(1, 10001);
    }
    // Persian and Indic names (ZWNJ, ZWJ), combining marks, emoji: accepted.
    for (i, name) in [
        "مهدی\u{200C}زاده",
        "क्\u{200D}ष",
        "Zoe\u{0308}",
        "José",
        "👍🏽 李",
    ]
    .into_iter()
    .enumerate()
    {
        let mut b = profile_body(&format!("bidi-2{i:04}"));
        b["customer_profile_individual"]["last_name"] = json!(name);
        let o = env.body(&["profile", "create"], &b);
        assert_eq!(o.code, 0, "{name}: {o:?}");
        let got = env.run(&["profile", "get", &o.id()]);
        assert_eq!(
            got.data()[0]["customer_profile_individual"]["last_name"],
            name
        );
    }
}

#[test]
fn a_repeated_key_is_refused_at_any_depth() {
    let env = Env::new();
    let csp = env.create_profile("dupk-00001");
    let top = r#"{"customer_type_id":1,"customer_key":"dupk-00002","customer_key":"dupk-00003",
        "customer_profile_individual":{"first_name":"A","last_name":"B","email":"a@b.co",
        "date_of_birth":"1990-01-01","mobile_phone":"+15551234567"}}"#;
    let nested = r#"{"customer_type_id":1,"customer_key":"dupk-00004",
        "customer_profile_individual":{"first_name":"A","first_name":"B","last_name":"B",
        "email":"a@b.co","date_of_birth":"1990-01-01","mobile_phone":"+15551234567"}}"#;
    let in_array = r#"{"customer_type_id":1,"customer_key":"dupk-00005",
        "customer_profile_tags":[{"key":"seg","value":"a1b","value":"c2d"}],
        "customer_profile_individual":{"first_name":"A","last_name":"B",
        "email":"a@b.co","date_of_birth":"1990-01-01","mobile_phone":"+15551234567"}}"#;
    for (body, key) in [
        (top, "`customer_key`"),
        (nested, "`customer_profile_individual.first_name`"),
        (in_array, "`customer_profile_tags[0].value`"),
    ] {
        refused(
            &env,
            &["profile", "create", "--body", "-"],
            body.as_bytes(),
            key,
        )
        .refused(1, 10005)
        .mentions(key);
        // The same body without the repetition is fine (the test is honest).
        let one: Value = serde_json::from_str(body).unwrap();
        assert!(serde_json::to_string(&one).unwrap().len() < body.len());
    }
    refused(
        &env,
        &["profile", "update", &csp, "--body", "-"],
        br#"{"customer_profile_individual":{"email":"a@b.co","email":"c@d.co"}}"#,
        "update",
    )
    .refused(1, 10005)
    .mentions("`customer_profile_individual.email`");
    // In a line of an import: named with its line.
    let lines = format!(
        "{}\n{}\n",
        profile_body("dupk-00006"),
        nested.replace('\n', "")
    );
    let o = refused(
        &env,
        &["profile", "import", "-"],
        lines.as_bytes(),
        "import",
    );
    o.refused(1, 10005)
        .mentions("line 2:")
        .mentions("`customer_profile_individual.first_name`");
}

/// A catalog file of the shape `init --catalog` takes: the stored one of a
/// fresh store, edited by `edit`.
fn catalog_file(env: &Env, edit: impl FnOnce(&mut Value)) -> std::path::PathBuf {
    let scratch = Env::new();
    scratch.run(&["init"]);
    let mut v: Value =
        serde_json::from_slice(&fs::read(scratch.path().join("catalog.json")).unwrap()).unwrap();
    edit(&mut v);
    let path = env.dir.path().join("catalog-in.json");
    fs::write(&path, v.to_string()).unwrap();
    path
}

#[test]
fn every_string_of_a_catalog_follows_the_rules_of_input() {
    let env = Env::new();
    for (what, field, text) in [
        (
            "escape",
            "program_display_name",
            "Evil\u{1b}]0;owned\u{7}\u{1b}[2J",
        ),
        ("bidi", "program_description", "txt\u{202E}exe.pdf"),
        ("separator", "program_name", "a\u{2028}b"),
        ("an empty name", "program_name", ""),
    ] {
        let path = catalog_file(&env, |v| v["programs"][0][field] = json!(text));
        let o = env.run(&["init", "--catalog", path.to_str().unwrap()]);
        sane(&o, what);
        o.refused(1, 10001)
            .mentions(&format!("programs[0].{field}"));
        assert!(
            !env.path().join("meta.json").exists(),
            "{what}: a store was made"
        );
    }
    let long = "x".repeat(5000);
    let path = catalog_file(&env, |v| {
        v["programs"][0]["program_description"] = json!(long)
    });
    env.run(&["init", "--catalog", path.to_str().unwrap()])
        .refused(1, 10001)
        .mentions("at most 1024 characters");
    // A repeated key in a catalog.
    let path = catalog_file(&env, |_| {});
    let text = fs::read_to_string(&path).unwrap();
    let dup = text.replacen("\"programs\":", "\"facilitator\":{},\"programs\":", 1);
    let dup = dup.replacen("{\"facilitator\"", "{\"facilitator\":{},\"facilitator\"", 1);
    fs::write(&path, dup).unwrap();
    env.run(&["init", "--catalog", path.to_str().unwrap()])
        .refused(1, 10005)
        .mentions("`facilitator`");
    // A clean catalog loads, and its table is plain.
    let path = catalog_file(&env, |v| {
        v["programs"][0]["program_display_name"] = json!("Ünïcode Program")
    });
    let o = env.run(&["init", "--catalog", path.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = env.run(&["program", "list", "-o", "table"]);
    assert!(o.stdout.contains("Ünïcode Program"), "{o:?}");
}

// ------------------------------------------------------------ the data directory

fn listing(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            let data = fs::read(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), data)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_directory_that_is_not_a_store_is_left_exactly_as_it_was() {
    let env = Env::new();
    let home = env.dir.path().join("home");
    fs::create_dir(&home).unwrap();
    fs::write(home.join(".bashrc"), b"# mine").unwrap();
    fs::create_dir(home.join("Documents")).unwrap();
    let before = listing(&home);
    let mode = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(p).unwrap().permissions().mode()
    };
    let home_mode = mode(&home);
    for args in [
        vec!["profile", "list"],
        vec!["program", "list"],
        vec!["init"],
        vec!["store", "check"],
        vec!["store", "check", "--repair"],
        vec!["worker"],
    ] {
        let mut c = Env::new().cmd();
        c.args(["--data-dir", home.to_str().unwrap()]).args(&args);
        let o = Out::from(c.output().unwrap());
        sane(&o, &args.join(" "));
        assert_eq!(o.code, 3, "{args:?}: {o:?}");
        o.mentions("not a payctl store");
        assert_eq!(
            listing(&home),
            before,
            "{args:?} wrote into a foreign directory"
        );
        assert_eq!(mode(&home), home_mode, "{args:?} changed its mode");
    }
    // A file given as the store: said so.
    let file = home.join(".bashrc");
    let mut c = Env::new().cmd();
    c.args(["--data-dir", file.to_str().unwrap(), "profile", "list"]);
    let o = Out::from(c.output().unwrap());
    sane(&o, "a file");
    assert_eq!(o.code, 3, "{o:?}");
    o.mentions("is not a directory");
    assert!(!o.messages()[0].contains("os error"), "{o:?}");
    assert_eq!(fs::read(&file).unwrap(), b"# mine");
}

#[test]
fn store_check_repair_is_the_way_out_of_a_corrupt_journal() {
    let env = Env::new();
    let csp = env.create_profile("jrnl-00001");
    let journal = env.path().join("journal.json");
    fs::write(&journal, b"{\"ops\": [ garbage").unwrap();
    for args in [vec!["profile", "list"], vec!["store", "check"]] {
        let o = env.run(&args);
        o.refused(3, 30002)
            .mentions("journal.json")
            .mentions("store check --repair");
    }
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("moved aside"), "{o:?}");
    let repaired = o.data()[0]["repaired"].to_string();
    assert!(repaired.contains("journal.json.corrupt-"), "{o:?}");
    assert!(!journal.exists());
    let aside: Vec<_> = fs::read_dir(env.path())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("journal.json.corrupt-")
        })
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(fs::read(aside[0].path()).unwrap(), b"{\"ops\": [ garbage");
    let o = env.run(&["profile", "get", &csp]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

#[test]
fn store_check_repair_is_the_way_out_of_a_corrupt_applied_journal() {
    let env = Env::new();
    let csp = env.create_profile("appl-00001");
    // Damaged while the machine was down: it must be replayed, and cannot.
    let applied = env.path().join("applied.json");
    assert!(applied.exists(), "a point commit left applied.json");
    fs::write(&applied, b"{\"boot\":\"x\",\"ops\": [ garbage").unwrap();
    for args in [vec!["profile", "list"], vec!["store", "check"]] {
        let o = env.run(&args);
        o.refused(3, 30002)
            .mentions("applied.json")
            .mentions("store check --repair");
    }
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("moved aside"), "{o:?}");
    let repaired = o.data()[0]["repaired"].to_string();
    assert!(repaired.contains("applied.json.corrupt-"), "{o:?}");
    assert!(!applied.exists());
    let o = env.run(&["profile", "get", &csp]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(env.run(&["store", "check"]).code, 0);
}
