//! The command frame of CLI.md through the binary: the JSON envelope, the
//! `id` and `table` formats, stdout carrying nothing but the output, exit
//! codes, the environment variables, and paging of `profile list`.

use crate::common;

use assert_cmd::Command;
use common::{Env, Out, profile_body};
use serde_json::{Value, json};

/// payctl with no default flags at all (no --data-dir, no -o).
fn bare() -> Command {
    let mut c = Command::cargo_bin("payctl").expect("binary");
    c.env_remove("PAYCTL_OUTPUT")
        .env_remove("PAYCTL_DATA_DIR")
        .env_remove("PAYCTL_NO_INPUT")
        .env("PAYCTL_ACTOR", "tester")
        .write_stdin(Vec::<u8>::new());
    c
}

/// Exactly one compact JSON object on one line, with the three members.
fn assert_envelope(o: &Out) -> &Value {
    assert!(o.stdout.ends_with('\n'), "{o:?}");
    assert_eq!(
        o.stdout.trim_end().lines().count(),
        1,
        "one line when piped: {o:?}"
    );
    let v: Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {o:?}"));
    let m = v.as_object().expect("an object");
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    assert_eq!(keys, ["data", "errors", "paging"], "{o:?}");
    &o.json
}

#[test]
fn json_envelope_of_create_get_list_and_errors() {
    let env = Env::new();
    let o = env.body(&["profile", "create"], &profile_body("env-00001"));
    assert_eq!(o.code, 0);
    let v = assert_envelope(&o);
    assert!(v["paging"].is_null());
    assert!(v["errors"].is_null());
    let id = v["data"][0]["id"].as_str().unwrap().to_string();
    assert_eq!(v["data"], json!([{"id": id}]));

    let o = env.run(&["profile", "get", &id]);
    let v = assert_envelope(&o);
    assert!(v["paging"].is_null() && v["errors"].is_null());
    assert_eq!(v["data"].as_array().unwrap().len(), 1);

    let o = env.run(&["profile", "list"]);
    let v = assert_envelope(&o);
    assert_eq!(
        v["paging"],
        json!({"page_size": 50, "page_number": 1, "total_count": 1, "last_evaluated_key": null})
    );
    assert!(v["errors"].is_null());

    let o = env.run(&["profile", "update", &id, "--first-name", "Augusta"]);
    let v = assert_envelope(&o);
    assert_eq!(
        *v,
        json!({"paging": null, "data": [{"id": id}], "errors": null})
    );

    // Failures: data null, errors with integer code and string message.
    let o = env.run(&["profile", "get", "csp_nope"]);
    assert_eq!(o.code, 1);
    let v = assert_envelope(&o);
    assert!(v["paging"].is_null() && v["data"].is_null());
    let errs = v["errors"].as_array().unwrap();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0]["code"], 20001);
    assert!(
        errs[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Record Not Found"),
        "{o:?}"
    );
    assert!(o.stderr.is_empty(), "json errors go to stdout only: {o:?}");
}

#[test]
fn id_format() {
    let env = Env::new();
    let o = env.run_with(
        &["-o", "id", "profile", "create", "--body", "-"],
        Some(profile_body("id-00001").to_string().as_bytes()),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let first = o.stdout.trim_end().to_string();
    assert!(
        first.starts_with("csp_") && !first.contains(char::is_whitespace),
        "{o:?}"
    );
    assert_eq!(o.stdout, format!("{first}\n"));
    let second = env
        .run_with(
            &["-o", "id", "profile", "create", "--body", "-"],
            Some(profile_body("id-00002").to_string().as_bytes()),
        )
        .stdout;
    let second = second.trim_end();
    let o = env.run(&["-o", "id", "profile", "list"]);
    assert_eq!(o.stdout, format!("{first}\n{second}\n"));
    let o = env.run(&["-o", "id", "profile", "get", second]);
    assert_eq!(o.stdout, format!("{second}\n"));
    let o = env.run(&["-o", "id", "profile", "update", second, "--last-name", "B"]);
    assert_eq!(o.stdout, format!("{second}\n"));
    // An error prints nothing on stdout and `error[CODE]` on stderr.
    let o = env.run(&["-o", "id", "profile", "get", "csp_nope"]);
    assert_eq!(o.code, 1);
    assert_eq!(o.stdout, "");
    assert!(o.stderr.contains("error[20001]: "), "{o:?}");
}

#[test]
fn table_format() {
    let env = Env::new();
    let id = env.create_profile("tbl-00001");
    let o = env.run(&["-o", "table", "profile", "get", &id]);
    assert_eq!(o.code, 0);
    assert!(
        serde_json::from_str::<Value>(&o.stdout).is_err(),
        "a table, not JSON: {o:?}"
    );
    for text in [
        id.as_str(),
        "customer_key",
        "tbl-00001",
        "customer_profile_individual.first_name",
        "Ada",
    ] {
        assert!(o.stdout.contains(text), "{text}: {o:?}");
    }
    let o = env.run(&["-o", "table", "profile", "list"]);
    assert_eq!(o.code, 0);
    assert!(serde_json::from_str::<Value>(&o.stdout).is_err(), "{o:?}");
    assert!(
        o.stdout.contains(&id) && o.stdout.contains("tbl-00001"),
        "{o:?}"
    );
    assert!(o.stdout.contains("1 in all"), "{o:?}");
    // Errors: nothing on stdout, `error[CODE]: message` lines on stderr.
    let o = env.run_with(
        &["-o", "table", "profile", "create", "--body", "-"],
        Some(b"{}"),
    );
    assert_eq!(o.code, 1);
    assert_eq!(o.stdout, "");
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert!(lines.len() >= 3, "{o:?}");
    for l in &lines {
        assert!(l.starts_with("error[1000"), "{l}");
    }
    assert!(
        lines.contains(&"error[10002]: customer_key: is required"),
        "{o:?}"
    );
    // Without a terminal the default is json; a terminal is needed for table.
    let o = Out::from(
        bare()
            .args(["--data-dir"])
            .arg(env.path())
            .args(["profile", "list"])
            .output()
            .unwrap(),
    );
    assert_envelope(&o);
}

#[test]
fn stdout_has_only_the_output_and_notes_go_to_stderr() {
    let env = Env::new();
    // First use creates the store: the note goes to stderr.
    let o = env.body(&["profile", "create"], &profile_body("std-00001"));
    assert_eq!(o.code, 0);
    assert_envelope(&o);
    assert!(o.stderr.contains("created a new store"), "{o:?}");
    assert!(!o.stdout.contains("created"), "{o:?}");
    // Only the first use.
    let o = env.run(&["profile", "list"]);
    assert!(o.stderr.is_empty(), "{o:?}");
    // -o id after a first use: only the id on stdout.
    let env2 = Env::new();
    let o = env2.run_with(
        &["-o", "id", "profile", "create", "--body", "-"],
        Some(profile_body("std-00002").to_string().as_bytes()),
    );
    assert_eq!(o.stdout.lines().count(), 1, "{o:?}");
    assert!(o.stdout.starts_with("csp_"));
    assert!(o.stderr.contains("created a new store"), "{o:?}");
}

#[test]
fn exit_codes() {
    let env = Env::new();
    env.create_profile("ext-00001");
    // 0
    assert_eq!(env.run(&["profile", "list"]).code, 0);
    // 1: refused
    env.run(&["profile", "get", "csp_nope"]).refused(1, 20001);
    env.body(&["profile", "create"], &profile_body("ext-00001"))
        .refused(1, 21002);
    // 2: usage
    for args in [
        &["profile", "list", "--bogus"][..],
        &["profile", "frobnicate"],
        &["nosuchcommand"],
        &["profile", "get"],
        &["profile", "list", "--page-size", "x"],
        &["profile", "create", "--customer-type-id", "one"],
        &["--output", "xml", "profile", "list"],
        &["--lock-timeout", "soon", "profile", "list"],
    ] {
        let o = env.run(args);
        assert_eq!(o.code, 2, "{args:?}: {o:?}");
        // In json format a usage error is an envelope too.
        let v = assert_envelope(&o);
        assert!(
            v["data"].is_null() && v["errors"][0]["code"].is_u64(),
            "{o:?}"
        );
    }
    // 3: the store cannot be used (a newer format).
    std::fs::write(env.path().join("meta.json"), r#"{"format_version": 999}"#).unwrap();
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.code, 3, "{o:?}");
    assert_envelope(&o);
    // --help and --version succeed on stdout.
    let o = Out::from(bare().arg("--help").output().unwrap());
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("Usage"), "{o:?}");
    let o = Out::from(bare().arg("--version").output().unwrap());
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("payctl"), "{o:?}");
}

#[test]
fn lock_timeout_must_be_a_number_of_seconds() {
    let env = Env::new();
    for bad in ["nan", "NaN", "-1", "inf", "x"] {
        let o = env.run(&["--lock-timeout", bad, "profile", "list"]);
        assert_eq!(o.code, 2, "{bad}: {o:?}");
        assert!(!o.stderr.contains("panicked"), "{o:?}");
    }
    for ok in ["0", "0.5", "30"] {
        assert_eq!(
            env.run(&["--lock-timeout", ok, "profile", "list"]).code,
            0,
            "{ok}"
        );
    }
}

#[test]
fn env_vars_data_dir_and_output() {
    let env = Env::new();
    let dir = env.path();
    let o = Out::from(
        bare()
            .env("PAYCTL_DATA_DIR", &dir)
            .env("PAYCTL_OUTPUT", "id")
            .args(["profile", "create", "--body", "-"])
            .write_stdin(profile_body("envv-0001").to_string())
            .output()
            .unwrap(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let id = o.stdout.trim().to_string();
    assert!(id.starts_with("csp_"), "{o:?}");
    assert!(
        dir.join("meta.json").exists(),
        "the store is at PAYCTL_DATA_DIR"
    );
    // PAYCTL_OUTPUT=json, and the flags win over the environment.
    let o = Out::from(
        bare()
            .env("PAYCTL_DATA_DIR", &dir)
            .env("PAYCTL_OUTPUT", "json")
            .args(["profile", "get", &id])
            .output()
            .unwrap(),
    );
    assert_eq!(o.json["data"][0]["customer_profile_id"], id.as_str());
    let o = Out::from(
        bare()
            .env("PAYCTL_DATA_DIR", "/nonexistent/elsewhere")
            .env("PAYCTL_OUTPUT", "table")
            .arg("--data-dir")
            .arg(&dir)
            .args(["-o", "id", "profile", "list"])
            .output()
            .unwrap(),
    );
    assert_eq!(o.stdout, format!("{id}\n"), "{o:?}");
    let o = Out::from(
        bare()
            .env("PAYCTL_DATA_DIR", &dir)
            .env("PAYCTL_OUTPUT", "table")
            .args(["profile", "list"])
            .output()
            .unwrap(),
    );
    assert!(
        o.stdout.contains(&id) && serde_json::from_str::<Value>(&o.stdout).is_err(),
        "{o:?}"
    );
    // PAYCTL_ACTOR and --actor.
    let p = &env.run(&["profile", "get", &id]).json["data"][0];
    assert_eq!(p["created_by"], "tester");
    let o = Out::from(
        bare()
            .env("PAYCTL_DATA_DIR", &dir)
            .env("PAYCTL_ACTOR", "envactor")
            .args(["profile", "update", &id, "--first-name", "X"])
            .output()
            .unwrap(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(
        env.run(&["profile", "get", &id]).json["data"][0]["modified_by"],
        "envactor"
    );
}

// ---------------------------------------------------------------- paging

fn list(env: &Env, args: &[&str]) -> Out {
    let mut a = vec!["profile", "list"];
    a.extend(args);
    env.run(&a)
}

fn ids_of(o: &Out) -> Vec<String> {
    o.data()
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
        .collect()
}

fn create_n(env: &Env, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| env.create_profile(&format!("page-{i:04}")))
        .collect()
}

#[test]
fn page_size_and_number() {
    let env = Env::new();
    let all = create_n(&env, 7);
    // Creation order, oldest first (ids are random, so not sorted by id).
    let o = list(&env, &[]);
    assert_eq!(ids_of(&o), all);
    assert_eq!(o.json["paging"]["total_count"], 7);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());

    let o = list(&env, &["--page-size", "3"]);
    assert_eq!(ids_of(&o), all[0..3]);
    assert_eq!(
        o.json["paging"],
        json!({"page_size": 3, "page_number": 1, "total_count": 7, "last_evaluated_key": all[2]})
    );
    let o = list(&env, &["--page-size", "3", "--page-number", "2"]);
    assert_eq!(ids_of(&o), all[3..6]);
    assert_eq!(o.json["paging"]["page_number"], 2);
    assert_eq!(o.json["paging"]["last_evaluated_key"], all[5].as_str());
    let o = list(&env, &["--page-size", "3", "--page-number", "3"]);
    assert_eq!(ids_of(&o), all[6..7]);
    assert!(o.json["paging"]["last_evaluated_key"].is_null(), "{o:?}");
    assert_eq!(o.json["paging"]["total_count"], 7);
    let o = list(&env, &["--page-size", "3", "--page-number", "4"]);
    assert_eq!(o.code, 0);
    assert!(o.data().is_empty());
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    // An exact fit: the last page has no next key.
    let o = list(&env, &["--page-size", "7"]);
    assert_eq!(ids_of(&o), all);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    let o = list(&env, &["--page-size", "1"]);
    assert_eq!(ids_of(&o), all[0..1]);
    let o = list(&env, &["--page-size", "1000"]);
    assert_eq!(ids_of(&o), all);
    // Out of range: usage errors, exit 2.
    for bad in [
        &["--page-size", "0"][..],
        &["--page-size", "1001"],
        &["--page-size", "-1"],
        &["--page-number", "0"],
    ] {
        let o = list(&env, bad);
        assert_eq!(o.code, 2, "{bad:?}: {o:?}");
        assert!(o.json["data"].is_null(), "{o:?}");
    }
}

#[test]
fn after_walks_every_profile_exactly_once() {
    let env = Env::new();
    let all = create_n(&env, 11);
    for size in ["1", "2", "4", "5", "11", "50"] {
        let mut seen = Vec::new();
        let mut after: Option<String> = None;
        let mut pages = 0;
        loop {
            let mut args = vec!["--page-size", size];
            if let Some(a) = &after {
                args.extend(["--after", a.as_str()]);
            }
            let o = list(&env, &args);
            assert_eq!(o.code, 0, "{o:?}");
            assert_eq!(o.json["paging"]["total_count"], 11);
            pages += 1;
            assert_eq!(o.json["paging"]["page_number"], pages, "size {size}");
            let ids = ids_of(&o);
            seen.extend(ids.clone());
            match o.json["paging"]["last_evaluated_key"].as_str() {
                Some(k) => {
                    assert_eq!(Some(k), ids.last().map(String::as_str));
                    after = Some(k.to_string());
                }
                None => break,
            }
            assert!(pages <= 11, "runaway paging");
        }
        assert_eq!(seen, all, "page size {size}");
    }
    // --after an unknown key is refused; with --page-number it is a usage error.
    list(&env, &["--after", "csp_nosuchprofile"]).refused(1, 10001);
    assert_eq!(
        list(&env, &["--after", &all[0], "--page-number", "2"]).code,
        2
    );
}

#[test]
fn paging_counts_matches_of_the_filter() {
    let env = Env::new();
    let mut want = Vec::new();
    for i in 0..6 {
        let mut b = profile_body(&format!("pf-{i:05}"));
        if i % 2 == 0 {
            b["customer_profile_individual"]["last_name"] = json!("Even");
        }
        let id = env.body(&["profile", "create"], &b).id();
        if i % 2 == 0 {
            want.push(id);
        }
    }
    let o = list(&env, &["--last-name", "even", "--page-size", "2"]);
    assert_eq!(o.json["paging"]["total_count"], 3);
    assert_eq!(ids_of(&o), want[0..2]);
    let k = o.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    let o = list(
        &env,
        &["--last-name", "even", "--page-size", "2", "--after", &k],
    );
    assert_eq!(ids_of(&o), want[2..3]);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    // An update keeps the profile's place in creation order and does not duplicate it.
    env.run(&["profile", "update", &want[0], "--first-name", "Moved"])
        .id();
    let o = list(&env, &["--last-name", "even"]);
    assert_eq!(ids_of(&o), want);
    assert_eq!(list(&env, &[]).json["paging"]["total_count"], 6);
}

#[test]
fn an_empty_store_lists_nothing() {
    let env = Env::new();
    let o = list(&env, &[]);
    assert_eq!(o.code, 0);
    assert_eq!(
        o.json["paging"],
        json!({"page_size": 50, "page_number": 1, "total_count": 0, "last_evaluated_key": null})
    );
    assert_eq!(o.data().len(), 0);
    let o = env.run(&["-o", "table", "profile", "list"]);
    assert_eq!(o.code, 0);
    let o = env.run(&["-o", "id", "profile", "list"]);
    assert_eq!(o.stdout, "");
}

/// PAYCTL_NO_INPUT takes the usual spellings of a boolean environment variable.
#[test]
fn no_input_env_var_spellings() {
    let env = Env::new();
    env.create_profile("noin-0001");
    for v in ["1", "true", "yes", "0", "false", "no", "off", ""] {
        let o = Out::from(
            bare()
                .arg("--data-dir")
                .arg(env.path())
                .env("PAYCTL_NO_INPUT", v)
                .args(["-o", "json", "profile", "list"])
                .output()
                .unwrap(),
        );
        assert_eq!(o.code, 0, "PAYCTL_NO_INPUT={v:?}: {o:?}");
        assert_eq!(o.data().len(), 1);
    }
    let o = env.run(&["--no-input", "profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
}
