//! Confidentiality: an SSN, an account number or a routing number never
//! leaves the store whole, through any read command in any output format,
//! through error messages (refused updates and creates, a corrupt record),
//! or through the worker; and the store's files are 0600 and its
//! directories 0700 even under `umask 000`.
//!
//! A 4-digit SSN is its own last 4 digits, so it is shown as sent; the tests
//! check that it is shown as exactly those 4 digits.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Env, Out, address_body, feed, finish, payctl, profile_body, txn_create_args};
use serde_json::{Value, json};

const SSN: &str = "123456789";
const ACCOUNT: &str = "000123456789";
const ROUTING: &str = "021000021";
/// Values sent in refused requests: they must not be echoed either.
const BAD_SSN: &str = "98765432100";
const BAD_ACCOUNT: &str = "12345678901234567890";
const OTHER_SSN: &str = "987650001";

const SECRETS: &[&str] = &[SSN, ACCOUNT, ROUTING, BAD_SSN, BAD_ACCOUNT, OTHER_SSN];

/// Run payctl with `-o format` and `stdin`; both streams are returned.
fn run(env: &Env, format: &str, args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut c = payctl(env, format);
    c.args(["--no-input", "--color", "never"]).args(args);
    finish(feed(c, stdin))
}

/// Neither stream holds a secret whole.
fn no_secret(o: &Out, what: &str) {
    for s in SECRETS {
        for (name, text) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            assert!(!text.contains(s), "{what}: {name} shows {s} whole:\n{text}");
        }
    }
    assert!(!o.stderr.contains("panicked"), "{what}: {o:?}");
}

/// `args` in every output format: no secret; the json one is returned.
fn every_format(env: &Env, args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut json_out = None;
    for format in ["json", "table", "id"] {
        let o = run(env, format, args, stdin);
        no_secret(&o, &format!("{args:?} -o {format}"));
        if format == "json" {
            json_out = Some(o);
        }
    }
    json_out.unwrap()
}

struct Fx {
    env: Env,
    prm: String,
    csp: String,
    short: String,
    pin: String,
    trn: String,
}

fn instrument_body(prm: &str, account: &str) -> Value {
    json!({
        "payment_instrument_tags": [{"key": "source", "value": "test"}],
        "payment_instrument_type_id": 1,
        "payment_method_id": 1,
        "is_default": true,
        "payment_instrument_label": "Main checking",
        "payment_instrument_change_reason": "Initial setup",
        "program_id": prm,
        "payment_instrument_ach": {
            "account_number": account,
            "routing_number": ROUTING,
            "payment_instrument_ach_type_id": 2
        }
    })
}

fn ok(o: Out) -> Out {
    assert_eq!(o.code, 0, "{o:?}");
    o
}

fn fixture() -> Fx {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env
        .body(&["profile", "create"], &profile_body("conf-00001"))
        .id();
    let mut b = profile_body("conf-00002");
    b["customer_profile_individual"]["ssn"] = json!("4321");
    let short = env.body(&["profile", "create"], &b).id();
    env.body(&["address", "create", &csp], &address_body(true))
        .id();
    for c in [&csp, &short] {
        ok(env.run(&["program", "attach", &prm, c]));
    }
    ok(env.run(&["worker"]));
    let pin = env
        .body(
            &["instrument", "create", &csp],
            &instrument_body(&prm, ACCOUNT),
        )
        .id();
    let src = format!("@source_customers={csp}:10.00");
    let trn = ok(env.run(&txn_create_args(&prm, "ach_funding", &[&src]))).id();
    // The store keeps them whole; only the output reduces them.
    let file = fs::read_to_string(env.customer_file(&csp)).unwrap();
    for s in [SSN, ACCOUNT, ROUTING] {
        assert!(file.contains(s), "stored whole: {s}");
    }
    Fx {
        env,
        prm,
        csp,
        short,
        pin,
        trn,
    }
}

#[test]
fn no_read_command_shows_a_secret_in_any_format() {
    let fx = fixture();
    let (env, prm, csp, pin, trn) = (&fx.env, &fx.prm, &fx.csp, &fx.pin, &fx.trn);
    let o = every_format(env, &["worker"], None);
    assert_eq!(o.data()[0]["steps_completed"], 1, "{o:?}");
    let reads: Vec<Vec<&str>> = vec![
        vec!["profile", "get", csp],
        vec!["profile", "get", &fx.short],
        vec!["profile", "list"],
        vec!["profile", "list", "--customer-key", "conf-00001"],
        vec!["profile", "list", "--first-name", "ada", "--page-size", "1"],
        vec!["address", "list", csp],
        vec!["instrument", "list", csp],
        vec!["instrument", "get", csp, pin],
        vec!["program", "list"],
        vec!["program", "profiles", prm],
        vec!["program", "profile", prm, csp],
        vec!["txn", "get", trn],
        vec!["txn", "list"],
        vec!["txn", "parameters", trn],
        vec!["txn", "steps", trn],
        vec!["store", "check"],
        vec!["worker"],
    ];
    for args in &reads {
        let o = every_format(env, args, None);
        assert_eq!(o.code, 0, "{args:?}: {o:?}");
    }
    // What is shown is exactly the last 4 digits.
    let p = every_format(env, &["profile", "get", csp], None);
    assert_eq!(p.data()[0]["customer_profile_individual"]["ssn"], "6789");
    let p = every_format(env, &["profile", "get", &fx.short], None);
    assert_eq!(p.data()[0]["customer_profile_individual"]["ssn"], "4321");
    let i = every_format(env, &["instrument", "get", csp, pin], None);
    let ach = &i.data()[0]["payment_instrument_ach"];
    assert_eq!(ach["account_number"], "6789", "{i:?}");
    assert_eq!(ach["routing_number"], "0021", "{i:?}");
    let t = run(env, "table", &["instrument", "get", csp, pin], None);
    assert!(
        t.stdout.contains("6789") && t.stdout.contains("0021"),
        "{t:?}"
    );
}

#[test]
fn no_error_message_shows_a_secret() {
    let fx = fixture();
    let (env, prm, csp, pin) = (&fx.env, &fx.prm, &fx.csp, &fx.pin);
    let refusals: Vec<(Vec<&str>, Option<Value>)> = vec![
        // A different SSN: not updatable.
        (vec!["profile", "update", csp, "--ssn", OTHER_SSN], None),
        // An SSN of the wrong form.
        (vec!["profile", "update", csp, "--ssn", BAD_SSN], None),
        (
            vec!["profile", "update", csp, "--body", "-"],
            Some(
                json!({"customer_profile_individual": {"ssn": BAD_SSN}, "customer_key": "other-key"}),
            ),
        ),
        // A create refused for another field, the SSN valid.
        (
            vec!["profile", "create", "--body", "-"],
            Some({
                let mut b = profile_body("conf-00009");
                b["customer_profile_individual"]["email"] = json!("not an email");
                b["customer_profile_individual"]["ssn"] = json!(OTHER_SSN);
                b
            }),
        ),
        // The SSN of the wrong JSON type.
        (
            vec!["profile", "create", "--body", "-"],
            Some({
                let mut b = profile_body("conf-00010");
                b["customer_profile_individual"]["ssn"] = json!(123456789u64);
                b
            }),
        ),
        // The key of another profile, with an SSN.
        (
            vec!["profile", "create", "--body", "-"],
            Some(profile_body("conf-00001")),
        ),
        // An account number that is too long, and one of the wrong type.
        (
            vec!["instrument", "create", csp, "--body", "-"],
            Some(instrument_body(prm, BAD_ACCOUNT)),
        ),
        (
            vec!["instrument", "create", csp, "--body", "-"],
            Some({
                let mut b = instrument_body(prm, ACCOUNT);
                b["payment_instrument_ach"]["account_number"] = json!(12345678901234567890u64);
                b["payment_instrument_ach"]["routing_number"] = json!("02100002x");
                b
            }),
        ),
        // Unchanged-field violations on an instrument.
        (
            vec!["instrument", "update", csp, pin, "--body", "-"],
            Some(json!({
                "payment_instrument_ach": {"account_number": BAD_ACCOUNT, "routing_number": ROUTING}
            })),
        ),
        (
            vec!["instrument", "update", csp, pin, "--body", "-"],
            Some(json!({
                "payment_instrument_ach": {"account_number": ACCOUNT, "routing_number": "021000022"},
                "payment_instrument_type_id": 2
            })),
        ),
        // An instrument for a profile not attached: the body holds secrets.
        (
            vec![
                "instrument",
                "create",
                "csp_doesnotexist00000",
                "--body",
                "-",
            ],
            Some(instrument_body(prm, ACCOUNT)),
        ),
    ];
    for (args, body) in &refusals {
        let text = body.as_ref().map(Value::to_string);
        let o = every_format(env, args, text.as_deref().map(str::as_bytes));
        assert_eq!(o.code, 1, "{args:?} {body:?}: {o:?}");
        assert!(o.json["data"].is_null(), "{o:?}");
    }
}

/// The envelope, the stderr and the exit code of a run, for comparing answers.
fn answer(o: &Out) -> (i32, Value, String) {
    (o.code, o.json["errors"].clone(), o.stderr.clone())
}

#[test]
fn an_update_never_tells_whether_a_guessed_secret_is_right() {
    let fx = fixture();
    let (env, csp, pin) = (&fx.env, &fx.csp, &fx.pin);
    let before = env.snapshot();
    // The stored SSN, a wrong one, one of the wrong form: the same answer.
    for format in ["json", "table"] {
        let answers: Vec<_> = [SSN, OTHER_SSN, "123450000", BAD_SSN]
            .iter()
            .map(|g| {
                answer(&run(
                    env,
                    format,
                    &["profile", "update", csp, "--ssn", g],
                    None,
                ))
            })
            .collect();
        assert_eq!(answers[0].0, 1, "{answers:?}");
        assert!(answers.iter().all(|a| a == &answers[0]), "{answers:?}");
        // The profile without an SSN answers the same too.
        let none = answer(&run(
            env,
            format,
            &["profile", "update", &fx.short, "--ssn", "4321"],
            None,
        ));
        assert_eq!(none.0, answers[0].0);
        assert_eq!(none.1, answers[0].1);
    }
    let o = run(env, "json", &["profile", "update", csp, "--ssn", SSN], None);
    assert_eq!(o.codes(), vec![10003], "{o:?}");
    // In a body too, and beside a change that is allowed.
    let body = |ssn: &str| {
        json!({"customer_profile_individual": {"ssn": ssn, "first_name": "Ada"}}).to_string()
    };
    let a = run(
        env,
        "json",
        &["profile", "update", csp, "--body", "-"],
        Some(body(SSN).as_bytes()),
    );
    let b = run(
        env,
        "json",
        &["profile", "update", csp, "--body", "-"],
        Some(body(OTHER_SSN).as_bytes()),
    );
    assert_eq!(answer(&a), answer(&b));
    assert_eq!(a.code, 1);
    // Account and routing numbers of an instrument: the same for each.
    let upd = |account: &str, routing: &str| {
        let b = json!({"payment_instrument_ach": {"account_number": account, "routing_number": routing}});
        answer(&run(
            env,
            "json",
            &["instrument", "update", csp, pin, "--body", "-"],
            Some(b.to_string().as_bytes()),
        ))
    };
    let right = upd(ACCOUNT, ROUTING);
    assert_eq!(right.0, 1, "{right:?}");
    for (a, r) in [
        (BAD_ACCOUNT, ROUTING),
        (ACCOUNT, "021000022"),
        ("999999999999", "111111111"),
    ] {
        assert_eq!(upd(a, r), right, "{a} {r}");
    }
    for flag in ["--account-number", "--routing-number"] {
        let x = answer(&run(
            env,
            "json",
            &["instrument", "update", csp, pin, flag, ACCOUNT],
            None,
        ));
        let y = answer(&run(
            env,
            "json",
            &["instrument", "update", csp, pin, flag, ROUTING],
            None,
        ));
        let z = answer(&run(
            env,
            "json",
            &["instrument", "update", csp, pin, flag, "123456789"],
            None,
        ));
        assert_eq!(x, y);
        assert_eq!(y, z);
        assert_eq!(x.0, 1);
    }
    assert_eq!(env.snapshot(), before, "a refused update changed the store");
}

#[test]
fn usage_errors_and_help_do_not_echo_secrets() {
    let env = Env::new();
    env.run(&["init"]);
    let secrets = [
        "000123456789",
        "123456789",
        "987654321",
        "000-12-3456",
        "98765432100",
    ];
    let cases: Vec<Vec<&str>> = vec![
        vec!["instrument", "get", "CSP", "pin_x", "000123456789"],
        vec!["profile", "create", "--ssn", "123456789", "987654321"],
        vec!["profile", "create", "--ssn=123456789", "extra"],
        vec!["profile", "create", "--ssn", "98765432100", "--bogus"],
        vec!["profile", "update", "csp_x", "--ssn=987654321", "--ssn"],
        vec![
            "instrument",
            "update",
            "c",
            "p",
            "--account-number",
            "000123456789",
            "--routing-number",
        ],
        vec![
            "instrument",
            "create",
            "c",
            "--routing-number=123456789",
            "--page-size",
            "x",
        ],
        vec![
            "instrument",
            "create",
            "c",
            "--account-number",
            "000123456789",
            "--type-id",
            "Nope",
        ],
        vec!["profile", "get", "csp_x", "--", "000-12-3456"],
        vec!["profile", "create", "--ssn", "123456789", "--help"],
    ];
    for args in &cases {
        for format in ["json", "table"] {
            let o = run(&env, format, args, None);
            for s in secrets {
                assert!(
                    !o.stdout.contains(s),
                    "{args:?} -o {format}: stdout shows {s}:\n{}",
                    o.stdout
                );
                assert!(
                    !o.stderr.contains(s),
                    "{args:?} -o {format}: stderr shows {s}:\n{}",
                    o.stderr
                );
            }
            if args.last() != Some(&"--help") {
                assert_eq!(o.code, 2, "{args:?}: {o:?}");
            }
        }
    }
    // What is refused is still named, by its last 4 digits.
    let o = run(&env, "json", &cases[1], None);
    assert!(o.stderr.contains("'…4321'"), "{o:?}");
    assert!(o.messages()[0].contains("'…4321'"), "{o:?}");
}

#[test]
fn ordinary_numbers_in_messages_are_not_masked() {
    let env = Env::new();
    env.run(&["init"]);
    let o = run(
        &env,
        "json",
        &["profile", "list", "--page-number", "4294967296"],
        None,
    );
    assert_eq!(o.code, 2);
    assert!(
        o.messages()[0].contains("'4294967296'") && o.messages()[0].contains("4294967295"),
        "{o:?}"
    );
    assert!(o.stderr.contains("4294967296"), "{o:?}");
    let o = run(
        &env,
        "json",
        &["--lock-timeout", "99999999999", "profile", "list"],
        None,
    );
    assert!(
        o.messages()[0].contains("99999999999") && o.messages()[0].contains("31536000"),
        "{o:?}"
    );
    let o = run(
        &env,
        "json",
        &["worker", "--watch", "--interval", "100000"],
        None,
    );
    assert!(o.messages()[0].contains("100000"), "{o:?}");
    let mut b = profile_body("num-00001");
    b["customer_profile_individual"]["first_name"] = json!("a".repeat(100000));
    let o = run(
        &env,
        "json",
        &["profile", "create", "--body", "-"],
        Some(b.to_string().as_bytes()),
    );
    assert_eq!(o.code, 1);
    assert!(
        o.messages().iter().any(|m| m.contains("(is 100000)")),
        "{o:?}"
    );
    let t = run(
        &env,
        "table",
        &["profile", "create", "--body", "-"],
        Some(b.to_string().as_bytes()),
    );
    assert!(t.stderr.contains("(is 100000)"), "{t:?}");
}

#[test]
fn a_corrupt_record_is_reported_without_its_secrets() {
    let fx = fixture();
    let (env, csp) = (&fx.env, &fx.csp);
    let path = env.customer_file(csp);
    let text = fs::read_to_string(&path).unwrap();
    // Values of the wrong type: a parser's message would quote them.
    let broken = text
        .replace(&format!("\"ssn\":\"{SSN}\""), &format!("\"ssn\":{SSN}"))
        .replace(
            &format!("\"account_number\":\"{ACCOUNT}\""),
            &format!("\"account_number\":[{ACCOUNT}]"),
        );
    assert_ne!(broken, text, "the record was not edited");
    fs::write(&path, &broken).unwrap();
    for args in [
        vec!["profile", "get", csp],
        vec!["profile", "list"],
        vec!["instrument", "list", csp],
        vec!["store", "check"],
        vec!["store", "check", "--repair"],
    ] {
        let o = every_format(env, &args, None);
        assert_eq!(o.code, 3, "{args:?}: {o:?}");
    }
    assert_eq!(fs::read_to_string(&path).unwrap(), broken);
}

// ------------------------------------------------------------ file modes

/// payctl under `umask 000`, through `sh -c 'umask 000; exec "$0" "$@"'`.
fn permissive(env: &Env, args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut c = Command::new("sh");
    c.args([
        "-c",
        "umask 000; exec \"$0\" \"$@\"",
        env!("CARGO_BIN_EXE_payctl"),
    ]);
    common::configure(&mut c, env, "json");
    c.args(args);
    let out = finish(feed(c, stdin));
    assert_eq!(out.code, 0, "{args:?}: {out:?}");
    out
}

fn modes(root: &Path, out: &mut Vec<(PathBuf, u32)>) {
    for e in fs::read_dir(root).unwrap().flatten() {
        let p = e.path();
        let mode = fs::symlink_metadata(&p).unwrap().permissions().mode() & 0o777;
        out.push((p.clone(), mode));
        if p.is_dir() {
            modes(&p, out);
        }
    }
}

#[test]
fn files_are_0600_and_directories_0700_under_umask_000() {
    let env = Env::new();
    let body = |v: &Value| v.to_string().into_bytes();
    // Every kind of file: first use, records, key index, logs, queue, journal.
    let csp = permissive(
        &env,
        &["profile", "create", "--body", "-"],
        Some(&body(&profile_body("mode-00001"))),
    )
    .id();
    permissive(
        &env,
        &["address", "create", &csp, "--body", "-"],
        Some(&body(&address_body(true))),
    );
    let prm = permissive(&env, &["program", "list"], None).data()[0]["program_id"]
        .as_str()
        .unwrap()
        .to_string();
    permissive(&env, &["program", "attach", &prm, &csp], None);
    let queued = fs::read_dir(env.path().join("queue")).unwrap().count();
    assert_eq!(queued, 1, "a queue file to check");
    let mut all = Vec::new();
    modes(&env.path(), &mut all);
    permissive(&env, &["worker"], None);
    permissive(
        &env,
        &["instrument", "create", &csp, "--body", "-"],
        Some(&body(&instrument_body(&prm, ACCOUNT))),
    );
    let src = format!("@source_customers={csp}:1.00");
    permissive(&env, &txn_create_args(&prm, "ach_funding", &[&src]), None);
    // Repair rewrites the derived files.
    fs::remove_file(env.path().join("index/profiles.log")).unwrap();
    permissive(&env, &["store", "check", "--repair"], None);
    permissive(&env, &["worker"], None);
    modes(&env.path(), &mut all);
    let mut kinds = std::collections::BTreeSet::new();
    for (p, mode) in &all {
        let rel = p.strip_prefix(env.path()).unwrap().display().to_string();
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(*mode, want, "{rel} is {mode:o}");
        kinds.insert(rel.split('/').next().unwrap().to_string());
    }
    for k in [
        "customers",
        "transactions",
        "index",
        "queue",
        "meta.json",
        "catalog.json",
        "payctl.lock",
    ] {
        assert!(kinds.contains(k), "no {k} checked: {kinds:?}");
    }
    assert!(all.iter().any(|(p, _)| p.ends_with("index/profiles.log")));
    assert!(
        all.iter()
            .any(|(p, _)| p.to_string_lossy().contains("index/keys/")
                && p.extension().is_some_and(|e| e == "log"))
    );
    // The store directory itself.
    let root = fs::metadata(env.path()).unwrap().permissions().mode() & 0o777;
    assert_eq!(root, 0o700);
}

/// What a message echoes of the input (an identifier, a field name, a
/// dictionary name) has its long digit runs masked: an account number typed
/// in the wrong place is not shown whole either.
#[test]
fn echoed_input_is_masked() {
    let env = Env::new();
    let csp = env.create_profile("echo-00000");
    let mut body = profile_body("echo-00001");
    body[ACCOUNT] = json!(1);
    let cases: Vec<(Vec<&str>, Option<String>)> = vec![
        (
            vec!["profile", "create", "--body", "-"],
            Some(body.to_string()),
        ),
        (vec!["profile", "get", ACCOUNT], None),
        (vec!["instrument", "get", &csp, ACCOUNT], None),
        (vec!["dict", "list", ACCOUNT], None),
        (vec!["profile", "create", "--body", ACCOUNT], None),
        (vec!["profile", "import", ACCOUNT], None),
        (vec!["init", "--catalog", ACCOUNT], None),
        (
            vec!["profile", "create", "--body", "-"],
            Some(format!(r#"{{"{ACCOUNT}": 1, "{ACCOUNT}": 2}}"#)),
        ),
    ];
    for (args, stdin) in &cases {
        for format in ["json", "table"] {
            let o = run(&env, format, args, stdin.as_deref().map(str::as_bytes));
            assert_ne!(o.code, 0, "{args:?}: {o:?}");
            assert!(
                !o.stdout.contains(ACCOUNT) && !o.stderr.contains(ACCOUNT),
                "{args:?}: {o:?}"
            );
            assert!(
                o.stdout.contains("…6789") || o.stderr.contains("…6789"),
                "{args:?}: {o:?}"
            );
        }
    }
}
