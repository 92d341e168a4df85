//! `--idempotency-key` on every create: a retry with the same key and the
//! same request answers the first id and changes nothing; the same key with
//! another request is refused (21005); a key is remembered for 24 hours;
//! `store check --repair` keeps the records.

use crate::common;
use common::attached;

use std::path::PathBuf;

use common::{Env, Out, address_body, profile_body, txn_create_args};
use serde_json::{Value, json};

fn instrument_body(prm: &str, label: &str) -> Value {
    common::ach_instrument_body(
        prm,
        label,
        true,
        json!([{"key": "source", "value": "onboarding"}]),
    )
}

fn with_key<'a>(args: &[&'a str], key: &'a str) -> Vec<&'a str> {
    let mut a = args.to_vec();
    a.extend(["--idempotency-key", key]);
    a
}

/// The first run creates; the same request again answers the same envelope
/// and writes nothing; another request under the key is refused with 21005
/// and writes nothing.
fn check_retry(env: &Env, first: impl Fn() -> Out, other: impl Fn() -> Out) -> String {
    let a = first();
    let id = a.id();
    let before = env.snapshot();
    let b = first();
    assert_eq!(b.code, 0, "{b:?}");
    assert_eq!(b.json, a.json, "a retry answers the first envelope");
    assert!(b.stderr.contains("nothing was changed"), "{b:?}");
    assert_eq!(before, env.snapshot(), "a retry changed the store");
    let c = other();
    c.refused(1, 21005)
        .mentions("Idempotency key reused with another request");
    assert_eq!(
        before,
        env.snapshot(),
        "a conflicting retry changed the store"
    );
    id
}

fn count(env: &Env, args: &[&str]) -> usize {
    let o = env.run(args);
    assert_eq!(o.code, 0, "{o:?}");
    o.data().len()
}

#[test]
fn every_create_answers_a_retry_with_its_first_id() {
    let env = Env::new();
    // profile create
    check_retry(
        &env,
        || {
            env.body(
                &with_key(&["profile", "create"], "p-1"),
                &profile_body("key-00001"),
            )
        },
        || {
            env.body(
                &with_key(&["profile", "create"], "p-1"),
                &profile_body("key-00002"),
            )
        },
    );
    assert_eq!(count(&env, &["profile", "list"]), 1);
    // Flags are part of the request.
    let o = env.body(
        &with_key(&["profile", "create", "--first-name", "Bea"], "p-1"),
        &profile_body("key-00001"),
    );
    o.refused(1, 21005);

    let (csp, prm) = attached(&env, "key-00003");
    // address create: the profile in the path is part of the request.
    let other = env.create_profile("key-00004");
    check_retry(
        &env,
        || {
            env.body(
                &with_key(&["address", "create", &csp], "a-1"),
                &address_body(true),
            )
        },
        || {
            env.body(
                &with_key(&["address", "create", &other], "a-1"),
                &address_body(true),
            )
        },
    );
    assert_eq!(count(&env, &["address", "list", &csp]), 1);
    assert_eq!(count(&env, &["address", "list", &other]), 0);

    // instrument create
    check_retry(
        &env,
        || {
            env.body(
                &with_key(&["instrument", "create", &csp], "i-1"),
                &instrument_body(&prm, "Main"),
            )
        },
        || {
            env.body(
                &with_key(&["instrument", "create", &csp], "i-1"),
                &instrument_body(&prm, "Other"),
            )
        },
    );
    assert_eq!(count(&env, &["instrument", "list", &csp]), 1);

    // program attach: a retry of an attach that was made answers its id
    // instead of 21001.
    let third = env.create_profile("key-00005");
    check_retry(
        &env,
        || env.run(&with_key(&["program", "attach", &prm, &third], "att-1")),
        || env.run(&with_key(&["program", "attach", &prm, &other], "att-1")),
    );
    env.run(&["program", "attach", &prm, &third])
        .refused(1, 21001);

    // txn create
    let param = format!("@source_customers={csp}:125.50");
    let other_param = format!("@source_customers={csp}:125.51");
    let args = txn_create_args(&prm, "ach_funding", &[&param]);
    let other_args = txn_create_args(&prm, "ach_funding", &[&other_param]);
    let trn = check_retry(
        &env,
        || env.run(&with_key(&args, "t-1")),
        || env.run(&with_key(&other_args, "t-1")),
    );
    assert_eq!(count(&env, &["txn", "list"]), 1);
    assert!(trn.starts_with("trn_"));

    // One key is one request, whatever the command: a profile create under
    // the transaction's key is refused.
    env.body(
        &with_key(&["profile", "create"], "t-1"),
        &profile_body("key-00009"),
    )
    .refused(1, 21005);
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

#[test]
fn a_refused_create_records_nothing_and_its_retry_runs() {
    let env = Env::new();
    env.create_profile("key-00001");
    let before = env.snapshot();
    // Key in use: refused, and nothing remembered under the key.
    env.body(
        &with_key(&["profile", "create"], "k"),
        &profile_body("key-00001"),
    )
    .refused(1, 21002);
    assert_eq!(before, env.snapshot());
    // A corrected request under the same key is a first request.
    let id = env
        .body(
            &with_key(&["profile", "create"], "k"),
            &profile_body("key-00002"),
        )
        .id();
    let again = env
        .body(
            &with_key(&["profile", "create"], "k"),
            &profile_body("key-00002"),
        )
        .id();
    assert_eq!(id, again);
}

#[test]
fn a_malformed_key_is_refused_before_anything_is_read() {
    let env = Env::new();
    let long = "k".repeat(256);
    for bad in ["", "a b", "a\"b", "naïve", long.as_str()] {
        let o = env.body(
            &with_key(&["profile", "create"], bad),
            &profile_body("key-00001"),
        );
        o.refused(1, 10001).mentions("--idempotency-key");
    }
    assert!(
        !env.path().join("customers").exists(),
        "nothing was written"
    );
    let ok = "0f8fad5b-d9cb-469f-a165-70867728950e";
    env.body(
        &with_key(&["profile", "create"], ok),
        &profile_body("key-00001"),
    )
    .id();
}

/// The files under `idempotency/`.
fn buckets(env: &Env) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(env.path().join("idempotency"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// Rewrite every record of the bucket files as made `secs` ago.
fn age(env: &Env, secs: i64) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    for b in buckets(env) {
        let text = std::fs::read_to_string(&b).unwrap();
        let mut out = String::new();
        for l in text.lines() {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["at"] = json!(now - secs);
            out.push_str(&v.to_string());
            out.push('\n');
        }
        std::fs::write(&b, out).unwrap();
    }
}

#[test]
fn a_key_is_remembered_for_24_hours_then_forgotten_and_cleaned_up() {
    let env = Env::new();
    let run = |key: &str| env.body(&with_key(&["profile", "create"], key), &profile_body(key));
    let first = run("key-aaaaa").id();
    // 23 h later: still the first answer.
    age(&env, 23 * 3600);
    assert_eq!(run("key-aaaaa").id(), first);
    // 24 h later: forgotten, so the create runs again (here refused: the
    // customer_key is taken, which proves it ran).
    age(&env, 24 * 3600);
    run("key-aaaaa").refused(1, 21002);
    // The next write to the bucket drops the expired record: a key of the
    // same bucket (the low byte of the key's FNV-1a hash).
    let key = (0..)
        .map(|n| format!("key-{n:05}"))
        .find(|k| bucket_of(k) == bucket_of("key-aaaaa"))
        .unwrap();
    run(&key).id();
    let files = buckets(&env);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(!text.contains("key-aaaaa"), "expired record kept: {text}");
    assert!(text.contains(&key), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
}

fn bucket_of(key: &str) -> u8 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_le_bytes()[0]
}

#[test]
fn store_check_knows_the_records_and_repair_keeps_them() {
    let env = Env::new();
    let id = env
        .body(
            &with_key(&["profile", "create"], "kept"),
            &profile_body("key-00001"),
        )
        .id();
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    // Still remembered after a repair.
    let again = env
        .body(
            &with_key(&["profile", "create"], "kept"),
            &profile_body("key-00001"),
        )
        .id();
    assert_eq!(id, again);
    // A damaged line is named, and kept by --repair.
    let bucket = buckets(&env)[0].clone();
    let mut text = std::fs::read_to_string(&bucket).unwrap();
    text.push_str("not a record\n");
    std::fs::write(&bucket, &text).unwrap();
    let o = env.run(&["store", "check"]);
    o.refused(3, 30006).mentions("is not an idempotency record");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 3, "{o:?}");
    assert_eq!(std::fs::read_to_string(&bucket).unwrap(), text);
}

#[test]
fn every_create_documents_the_flag_in_its_help() {
    let env = Env::new();
    for cmd in [
        &["profile", "create"][..],
        &["address", "create"],
        &["instrument", "create"],
        &["program", "attach"],
        &["txn", "create"],
    ] {
        let mut args = cmd.to_vec();
        args.push("--help");
        let o = env.run(&args);
        assert_eq!(o.code, 0, "{cmd:?}");
        assert!(
            o.stdout.contains("--idempotency-key <KEY>"),
            "{cmd:?}: {}",
            o.stdout
        );
        // The words, however the help wraps them.
        let text = o.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains("21005"), "{cmd:?}");
        assert!(text.contains("24 hours"), "{cmd:?}");
    }
}
