//! The operator's experience without a terminal: the demo, tables, colour,
//! a closed pipe, dictionary values by name, `--wait`, help examples.
//! (With a terminal: tests/it/interactive.rs.)

use crate::common;
use common::bin;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory;
use common::{Env, Out, address_body, profile_body};
use serde_json::{Value, json};

fn ok(o: &Out) -> &Out {
    assert_eq!(o.code, 0, "expected success: {o:?}");
    o
}

/// Run with `-o table` (the harness's `-o json` overridden: the last wins).
fn table(env: &Env, args: &[&str]) -> Out {
    let mut a = args.to_vec();
    a.extend(["-o", "table"]);
    env.run(&a)
}

/// The header cells of a table printed by comfy-table.
fn header(text: &str) -> Vec<String> {
    text.lines()
        .nth(1)
        .expect("a header line")
        .split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect()
}

/// The cells of the first data row.
fn first_row(text: &str) -> Vec<String> {
    text.lines()
        .nth(3)
        .expect("a row")
        .split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect()
}

fn attached_profile(env: &Env, key: &str) -> (String, String) {
    let (prm, csp) = env.attached_profile(key);
    (csp, prm)
}

fn instrument(env: &Env, csp: &str, prm: &str, extra: &[&str]) -> Out {
    let mut args = vec![
        "instrument",
        "create",
        csp,
        "--program",
        prm,
        "--payment-method-id",
        "1",
        "--default",
        "true",
        "--label",
        "Main",
        "--change-reason",
        "Setup",
        "--account-number",
        "000123456789",
        "--routing-number",
        "021000021",
        "--tag",
        "source=onboarding",
    ];
    args.extend(extra);
    env.run(&args)
}

// ---------------------------------------------------------------- the demo

#[test]
fn demo_runs_the_whole_lifecycle_on_a_scratch_store() {
    let home = tempfile::TempDir::new().unwrap();
    let o = Command::new(bin())
        .args(["demo", "-o", "json"])
        .env_remove("PAYCTL_DATA_DIR")
        .env_remove("PAYCTL_OUTPUT")
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON envelope");
    let d = &v["data"][0];
    assert!(v["errors"].is_null());
    assert!(d["transaction_id"].as_str().unwrap().starts_with("trn_"));
    assert!(
        d["customer_profile_id"]
            .as_str()
            .unwrap()
            .starts_with("csp_")
    );
    assert_eq!(d["transaction_status_id"], 60, "{v}");
    let steps = d["transaction_steps"].as_array().unwrap();
    assert!(!steps.is_empty());
    assert!(
        steps.iter().all(|s| s["transaction_step_status_id"] == 60),
        "{v}"
    );
    // The scratch store is gone; nothing was created in the default store.
    assert!(d["data_dir"].is_null());
    assert!(!home.path().join("payctl").exists());
    // The tour itself went to stderr: commands and their tables.
    let tour = String::from_utf8_lossy(&o.stderr);
    assert!(tour.contains("$ payctl profile create"), "{tour}");
    assert!(tour.contains("60 Completed"), "{tour}");
}

/// `PAYCTL_DATA_DIR` names the team's real store: the demo tours a
/// scratch directory and writes nothing there; `--data-dir` on the command
/// line (after the subcommand too) is what points it at a store.
#[test]
fn demo_never_writes_into_the_store_of_the_environment() {
    let env = Env::new();
    ok(&env.run(&["init"]));
    let before = env.snapshot();
    let o = Command::new(bin())
        .args(["demo", "-o", "json"])
        .env("PAYCTL_DATA_DIR", env.path())
        .env_remove("PAYCTL_OUTPUT")
        .env_remove("PAYCTL_DATABASE_URL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON envelope");
    assert!(v["data"][0]["data_dir"].is_null(), "a scratch store: {v}");
    assert!(
        env.snapshot() == before,
        "the store of PAYCTL_DATA_DIR is untouched"
    );
    let listed = env.run(&["profile", "list"]);
    assert_eq!(listed.json["paging"]["total_count"], 0, "{listed:?}");

    let dir = tempfile::TempDir::new().unwrap();
    let target = dir.path().join("kept");
    let o = Command::new(bin())
        .args(["demo", "-o", "json", "--data-dir"])
        .arg(&target)
        .env("PAYCTL_DATA_DIR", env.path())
        .env_remove("PAYCTL_OUTPUT")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["data"][0]["data_dir"], target.display().to_string());
    assert!(env.snapshot() == before);
}

#[test]
fn demo_with_a_data_dir_keeps_a_sound_store() {
    let env = Env::new();
    let o = ok(&env.run(&["demo"])).json.clone();
    let d = &o["data"][0];
    assert_eq!(d["data_dir"], env.path().display().to_string());
    let trn = d["transaction_id"].as_str().unwrap();
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    let txn = ok(&env.run(&["txn", "get", trn])).json.clone();
    assert_eq!(txn["data"][0]["transaction_status_id"], 60);
    let steps = ok(&env.run(&["txn", "steps", trn])).json.clone();
    let steps = steps["data"].as_array().unwrap();
    assert!(!steps.is_empty());
    assert!(steps.iter().all(|s| s["transaction_step_status_id"] == 60));
    // The demo's profile has its address by name: Mailing in Arkansas.
    let csp = d["customer_profile_id"].as_str().unwrap();
    let addrs = ok(&env.run(&["address", "list", csp])).json.clone();
    assert_eq!(addrs["data"][0]["address_type_id"], 1);
    assert_eq!(addrs["data"][0]["state_id"], 5);
}

// ---------------------------------------------------------------- tables

#[test]
fn profile_list_table_shows_the_columns_an_operator_scans() {
    let env = Env::new();
    env.create_profile("cust-table-1");
    let o = ok(&table(&env, &["profile", "list"])).stdout.clone();
    assert_eq!(
        header(&o),
        [
            "customer_profile_id",
            "customer_key",
            "first name",
            "last name",
            "email",
            "created"
        ]
    );
    let row = first_row(&o);
    assert_eq!(row[1], "cust-table-1");
    assert_eq!(row[2..5], ["Ada", "Lovelace", "ada@example.com"]);
    assert!(!o.contains("123456789") && !o.contains("6789"), "{o}");
    assert!(o.contains("page 1 (50 per page), 1 in all"), "{o}");
}

#[test]
fn address_and_instrument_tables_name_their_dictionary_values() {
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-table-2");
    let mut body = address_body(true);
    body["state_id"] = json!(6);
    ok(&env.body(&["address", "create", &csp], &body));
    let o = ok(&table(&env, &["address", "list", &csp])).stdout.clone();
    assert_eq!(
        header(&o),
        [
            "address_id",
            "type",
            "default",
            "line1",
            "city",
            "state",
            "zip"
        ]
    );
    assert_eq!(
        first_row(&o)[1..],
        [
            "1 Mailing",
            "yes",
            "1 Main St",
            "Springfield",
            "CA",
            "12345"
        ]
    );

    ok(&instrument(
        &env,
        &csp,
        &prm,
        &["--type-id", "1", "--ach-type-id", "2"],
    ));
    let o = ok(&table(&env, &["instrument", "list", &csp]))
        .stdout
        .clone();
    assert_eq!(
        header(&o),
        [
            "payment_instrument_id",
            "type",
            "default",
            "status",
            "account",
            "routing",
            "label"
        ]
    );
    assert_eq!(
        first_row(&o)[1..],
        ["1 Funding", "yes", "40 Active", "…6789", "…0021", "Main"]
    );
    assert!(!o.contains("000123456789") && !o.contains("021000021"));

    let o = ok(&table(&env, &["program", "profiles", &prm]))
        .stdout
        .clone();
    assert_eq!(
        header(&o),
        ["customer_profile_id", "program_id", "status", "reason"]
    );
    assert_eq!(first_row(&o)[2], "10 Attached");
}

#[test]
fn transaction_and_step_tables_show_status_names() {
    let env = Env::new();
    let o = ok(&env.run(&["demo"])).json.clone();
    let trn = o["data"][0]["transaction_id"].as_str().unwrap().to_string();
    let t = ok(&table(&env, &["txn", "list"])).stdout.clone();
    assert_eq!(
        header(&t),
        ["transaction_id", "template", "status", "total", "created"]
    );
    assert_eq!(first_row(&t)[1], "ach_funding", "the template's name");
    assert_eq!(first_row(&t)[2], "60 Completed");
    let t = ok(&table(&env, &["txn", "steps", &trn])).stdout.clone();
    assert_eq!(
        header(&t),
        [
            "seq",
            "transaction_step_id",
            "transfer type",
            "status",
            "reason"
        ]
    );
    assert_eq!(
        first_row(&t)[2..],
        ["1 ACH Funding", "60 Completed", "Successfully completed."]
    );
    // A single record: field/value, ids with names.
    let t = ok(&table(&env, &["txn", "get", &trn])).stdout.clone();
    assert_eq!(header(&t), ["field", "value"]);
    assert!(
        t.lines()
            .any(|l| l.contains("transaction_status_id") && l.contains("60 Completed")),
        "{t}"
    );
}

#[test]
fn dictionary_tables_show_id_name_and_display_name() {
    let env = Env::new();
    let t = ok(&table(&env, &["dict", "list", "customer-types"]))
        .stdout
        .clone();
    assert_eq!(header(&t), ["customer_type_id", "name", "display name"]);
    assert_eq!(first_row(&t), ["1", "Individual", "Individual"]);
    let t = ok(&table(&env, &["dict", "list", "states"])).stdout.clone();
    assert_eq!(header(&t), ["state_id", "code", "name"]);
    assert_eq!(first_row(&t), ["1", "AL", "Alabama"]);
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let env = Env::new();
    env.create_profile("cust-colour");
    let esc = |o: &Out| o.stdout.contains('\x1b') || o.stderr.contains('\x1b');
    // Not a terminal: no colour by default, nor with never or NO_COLOR.
    assert!(!esc(ok(&table(&env, &["profile", "list"]))));
    assert!(!esc(ok(&table(
        &env,
        &["profile", "list", "--color", "never"]
    ))));
    let o = env
        .cmd()
        .args(["profile", "list", "-o", "table"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains('\x1b'));
    // --color always colours even a pipe.
    assert!(esc(ok(&table(
        &env,
        &["profile", "list", "--color", "always"]
    ))));
    // Error lines too.
    let o = env.run(&[
        "profile", "get", "csp_nope", "-o", "table", "--color", "never",
    ]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.starts_with("error[20001]"), "{o:?}");
}

#[test]
fn a_closed_pipe_ends_quietly_with_exit_0() {
    let env = Env::new();
    // Long rows, so that the table is far larger than a pipe's buffer.
    let long = "a".repeat(50);
    for i in 0..300 {
        let mut b = profile_body(&format!("cust-pipe-{i:04}"));
        b["customer_profile_individual"]["first_name"] = json!(long);
        b["customer_profile_individual"]["last_name"] = json!(long);
        b["customer_profile_individual"]["email"] =
            json!(format!("{}@{}.example.com", "m".repeat(60), "d".repeat(60)));
        ok(&env.body(&["profile", "create"], &b));
    }
    // As a person types it.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' --data-dir '{}' profile list -o table --page-size 1000 | head -1; echo \"exit=${{PIPESTATUS[0]}}\"",
            bin().display(),
            env.path().display()
        ))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with('┌'), "{out}");
    assert!(out.contains("exit=0"), "{out}");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // And with the reader gone after one line, in every format.
    for format in ["table", "json", "id"] {
        let mut child = Command::new(bin())
            .arg("--data-dir")
            .arg(env.path())
            .args(["profile", "list", "--page-size", "1000", "-o", format])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{format}: {out:?}");
        assert!(out.stderr.is_empty(), "{format}: {out:?}");
    }
}

// ---------------------------------------------------------------- dictionary names on flags

#[test]
fn dictionary_flags_take_ids_or_names() {
    let env = Env::new();
    let csp = env.create_profile("cust-names-1");
    let base = [
        "--default",
        "false",
        "--first-name",
        "Ada",
        "--last-name",
        "Lovelace",
        "--address-line1",
        "1 Main St",
        "--city",
        "Springfield",
        "--zip",
        "12345",
    ];
    for (names, want_type, want_state) in [
        (["1", "1", "6"], 1, 6),
        (["Mailing", "US", "CA"], 1, 6),
        (["billing", "United States", "california"], 3, 6),
        (["Street", "USA", "District of Columbia"], 2, 10),
        (["3", "1", "ny"], 3, 35),
    ] {
        let mut args = vec!["address", "create", &csp];
        args.extend(["--address-type-id", names[0]]);
        args.extend(["--country-id", names[1]]);
        args.extend(["--state-id", names[2]]);
        args.extend(base);
        let id = env.run(&args).id();
        let got = ok(&env.run(&["address", "get", &csp, &id])).json.clone();
        assert_eq!(got["data"][0]["address_type_id"], want_type, "{names:?}");
        assert_eq!(got["data"][0]["state_id"], want_state, "{names:?}");
    }
    // A number outside the dictionary is still the body's rule (10001, exit 1), as before.
    let before = env.snapshot();
    let mut args = vec!["address", "create", &csp, "--address-type-id", "9"];
    args.extend(["--country-id", "1", "--state-id", "6"]);
    args.extend(base);
    env.run(&args).refused(1, 10001).mentions("address_type_id");
    // An unknown name is a usage error (exit 2), naming the dictionary.
    let mut args = vec!["address", "create", &csp, "--state-id", "Atlantis"];
    args.extend(base);
    let o = env.run(&args);
    o.refused(2, 10000).mentions("payctl dict list states");
    assert!(!o.stdout.contains("Atlantis") && !o.stderr.contains("Atlantis"));
    assert_eq!(env.snapshot(), before);

    // Profiles and instruments.
    let mut b = profile_body("cust-names-2");
    b.as_object_mut().unwrap().remove("customer_type_id");
    let o = env.body(
        &["profile", "create", "--customer-type-id", "Individual"],
        &b,
    );
    let csp2 = o.id();
    let got = ok(&env.run(&["profile", "get", &csp2])).json.clone();
    assert_eq!(got["data"][0]["customer_type_id"], 1);

    let (csp3, prm) = attached_profile(&env, "cust-names-3");
    let pin = instrument(
        &env,
        &csp3,
        &prm,
        &["--type-id", "Withdrawal", "--ach-type-id", "savings"],
    )
    .id();
    let got = ok(&env.run(&["instrument", "get", &csp3, &pin]))
        .json
        .clone();
    assert_eq!(got["data"][0]["payment_instrument_type_id"], 2);
    assert_eq!(
        got["data"][0]["payment_instrument_ach"]["payment_instrument_ach_type_id"],
        1
    );
    let pin = instrument(
        &env,
        &csp3,
        &prm,
        &["--type-id", "Funding", "--ach-type-id", "Checking"],
    )
    .id();
    let got = ok(&env.run(&["instrument", "get", &csp3, &pin]))
        .json
        .clone();
    assert_eq!(got["data"][0]["payment_instrument_type_id"], 1);
    assert_eq!(
        got["data"][0]["payment_instrument_ach"]["payment_instrument_ach_type_id"],
        2
    );
    instrument(
        &env,
        &csp3,
        &prm,
        &["--type-id", "Savings", "--ach-type-id", "Checking"],
    )
    .refused(2, 10000)
    .mentions("payment-instrument-types");
}

#[test]
fn completions_offer_dictionary_names() {
    let o = Command::new(bin())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let script = String::from_utf8_lossy(&o.stdout);
    for words in [
        "Mailing Street Billing",
        "Funding Withdrawal",
        "Savings Checking",
        "Individual Organization",
        "AL AK AS AZ",
    ] {
        assert!(script.contains(words), "{words}");
    }
    // The long list of states is not spelled out in --help.
    let help = Command::new(bin())
        .args(["address", "create", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--state-id <ID|NAME>"));
    assert!(!help.contains("Wyoming"), "{help}");
}

// ------------------------------------------------- dynamic completion (bash)

/// A real bash with payctl's dynamic completion loaded as the help says
/// (`source <(COMPLETE=bash payctl)`): `complete(line)` calls the function
/// the script registered for `payctl` as bash does on TAB at the end of
/// `line` (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT, COMP_TYPE, and the
/// command, the word and the word before as its arguments) and answers
/// COMPREPLY. The environment holds no PAYCTL_* of the caller's; HOME, the
/// XDG dirs and the config file are the test's own.
struct Bash {
    home: tempfile::TempDir,
    vars: Vec<(String, String)>,
}

impl Bash {
    fn new() -> Bash {
        Bash {
            home: tempfile::TempDir::new().unwrap(),
            vars: Vec::new(),
        }
    }
    fn var(mut self, k: &str, v: impl AsRef<std::ffi::OsStr>) -> Bash {
        self.vars
            .push((k.to_string(), v.as_ref().to_string_lossy().into_owned()));
        self
    }
    fn config(&self) -> std::path::PathBuf {
        self.home.path().join("config.toml")
    }
    /// The default store of this HOME (the platform data dir).
    fn default_store(&self) -> std::path::PathBuf {
        self.home.path().join("data").join("payctl")
    }
    fn command(&self, script: &str) -> Command {
        let mut c = Command::new("bash");
        c.args(["--norc", "--noprofile", "-c", script])
            .env_clear()
            .env("HOME", self.home.path())
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("PAYCTL_CONFIG", self.config())
            .env("PAYCTL_BIN", bin());
        for (k, v) in &self.vars {
            c.env(k, v);
        }
        c
    }
    fn complete(&self, line: &str) -> Vec<String> {
        let o = self.complete_output(line);
        assert!(o.status.success(), "bash: {o:?}");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(stderr.is_empty(), "completion said something: {stderr}");
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    }
    fn complete_output(&self, line: &str) -> std::process::Output {
        let q = |w: &str| format!("'{}'", w.replace('\'', r"'\''"));
        let words: Vec<&str> = line.split(' ').collect();
        let cword = words.len() - 1;
        let script = format!(
            r#"source <(COMPLETE=bash "$PAYCTL_BIN") || exit 9
spec=$(complete -p payctl) || exit 8
[[ $spec =~ -F\ ([^ ]+) ]] || exit 7; fn=${{BASH_REMATCH[1]}}
COMP_WORDS=({words}); COMP_CWORD={cword}; COMP_LINE={line}; COMP_POINT={point}; COMP_TYPE=9
"$fn" payctl {cur} {prev}
printf '%s\n' "${{COMPREPLY[@]}}""#,
            words = words.iter().map(|w| q(w)).collect::<Vec<_>>().join(" "),
            line = q(line),
            point = line.len(),
            cur = q(words[cword]),
            prev = q(words[cword.saturating_sub(1)]),
        );
        self.command(&script).output().expect("bash")
    }
}

/// The ids a completion offered (flags left out).
fn values(reply: &[String]) -> Vec<&str> {
    reply
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect()
}

#[test]
fn bash_completes_ids_and_names_from_the_store() {
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-complete-1");
    let other = env.create_profile("cust-complete-2");
    let cpa = env
        .body(&["address", "create", &csp], &address_body(true))
        .id();
    let param = format!("@source_customers={csp}:10.00");
    let trn = env.run(&funding_args(&prm, &param)).id();
    ok(&env.run(&["worker"]));
    let bash = Bash::new().var("PAYCTL_DATA_DIR", env.path());

    // Profiles: every id, then those that start with what is typed.
    let all = bash.complete("payctl profile get ");
    assert!(values(&all).contains(&csp.as_str()), "{all:?}");
    assert!(values(&all).contains(&other.as_str()), "{all:?}");
    let typed = &csp[..csp.len() - 3];
    assert_eq!(
        bash.complete(&format!("payctl profile get {typed}")),
        [csp.as_str()]
    );
    assert_eq!(
        bash.complete(&format!("payctl program attach {prm} {typed}")),
        [csp.as_str()]
    );
    assert_eq!(
        bash.complete(&format!("payctl txn list --customer {typed}")),
        [csp.as_str()]
    );
    // An address id after its profile's id.
    assert_eq!(
        values(&bash.complete(&format!("payctl address get {csp} "))),
        [cpa.as_str()]
    );
    // Programs, applications, templates: by name and by id.
    assert_eq!(
        bash.complete("payctl program attach default_pro"),
        ["default_program"]
    );
    assert_eq!(
        bash.complete(&format!(
            "payctl program applications {}",
            &prm[..prm.len() - 2]
        )),
        [prm.as_str()]
    );
    assert_eq!(
        bash.complete("payctl txn create --program default_pro"),
        ["default_program"]
    );
    assert_eq!(
        bash.complete("payctl txn create --application paym"),
        ["payments"]
    );
    assert_eq!(
        bash.complete("payctl txn create --template ach_fu"),
        ["ach_funding"]
    );
    assert_eq!(
        bash.complete("payctl template steps ach_fu"),
        ["ach_funding"]
    );
    let trt = bash.complete("payctl txn list --template trt_");
    assert!(
        !trt.is_empty() && trt.iter().all(|t| t.starts_with("trt_")),
        "{trt:?}"
    );
    // Transactions and their statuses (the name in any case).
    assert_eq!(
        values(&bash.complete("payctl txn get trn_")),
        [trn.as_str()]
    );
    assert_eq!(
        bash.complete(&format!("payctl txn steps {}", &trn[..6])),
        [trn.as_str()]
    );
    assert_eq!(bash.complete("payctl txn list --status Fa"), ["Failed"]);
    assert_eq!(
        bash.complete("payctl txn list --status c"),
        ["Created", "Completed"]
    );
    // Subcommands still come from the definitions.
    let subs = bash.complete("payctl pro");
    assert!(subs.contains(&"profile".to_string()) && subs.contains(&"program".to_string()));
}

#[test]
fn bash_completion_reads_the_store_the_command_line_names() {
    let env = Env::new();
    let there = env.create_profile("cust-complete-flag");
    let elsewhere = Env::new();
    let here = elsewhere.create_profile("cust-complete-env");
    let bash = Bash::new().var("PAYCTL_DATA_DIR", elsewhere.path());
    assert_eq!(
        values(&bash.complete("payctl profile get csp_")),
        [here.as_str()]
    );
    // --data-dir typed before the word wins over the environment.
    let line = format!(
        "payctl --data-dir {} profile get csp_",
        env.path().display()
    );
    assert_eq!(values(&bash.complete(&line)), [there.as_str()]);
    let line = format!(
        "payctl profile get --data-dir {} csp_",
        env.path().display()
    );
    assert_eq!(values(&bash.complete(&line)), [there.as_str()]);
}

#[test]
fn bash_completes_context_names_and_uses_the_context_store() {
    let env = Env::new();
    let csp = env.create_profile("cust-complete-ctx");
    let bash = Bash::new();
    for (name, dir) in [
        ("local", env.path()),
        ("staging", bash.home.path().join("x")),
    ] {
        let o = Command::new(bin())
            .args(["config", "set-context", name, "--data-dir"])
            .arg(dir)
            .env("PAYCTL_CONFIG", bash.config())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{o:?}");
    }
    assert_eq!(
        values(&bash.complete("payctl config use-context ")),
        ["local", "staging"]
    );
    assert_eq!(
        bash.complete("payctl config delete-context st"),
        ["staging"]
    );
    assert_eq!(bash.complete("payctl --context lo"), ["local"]);
    assert_eq!(
        bash.complete("payctl profile list --context s"),
        ["staging"]
    );
    // The store of the context named before the word.
    assert_eq!(
        values(&bash.complete("payctl --context local profile get csp_")),
        [csp.as_str()]
    );
    // The context whose store does not exist completes nothing, creates nothing.
    assert!(values(&bash.complete("payctl --context staging profile get csp_")).is_empty());
    assert!(!bash.home.path().join("x").exists());
}

#[test]
fn bash_completion_without_a_store_creates_nothing() {
    let bash = Bash::new();
    let missing = bash.home.path().join("missing");
    let empty = bash.home.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    // The default store, PAYCTL_DATA_DIR, --data-dir: none exists.
    for line in [
        "payctl profile get ".to_string(),
        "payctl txn create --template ".to_string(),
        format!("payctl --data-dir {} program attach ", missing.display()),
        format!("payctl --data-dir {} txn get ", empty.display()),
    ] {
        let reply = bash.complete(&line);
        assert!(values(&reply).is_empty(), "{line}: {reply:?}");
    }
    let with_env = Bash::new().var("PAYCTL_DATA_DIR", &missing);
    assert!(values(&with_env.complete("payctl address list ")).is_empty());
    assert!(
        !bash.default_store().exists(),
        "the default store was created"
    );
    assert!(!with_env.default_store().exists());
    assert!(
        !missing.exists(),
        "the store of PAYCTL_DATA_DIR was created"
    );
    assert_eq!(
        std::fs::read_dir(&empty).unwrap().count(),
        0,
        "files in an empty dir"
    );
    // A service that does not answer completes nothing either, quietly.
    let remote = Bash::new().var("PAYCTL_BASE_URL", "http://127.0.0.1:9");
    assert!(values(&remote.complete("payctl profile get csp_")).is_empty());
}

#[test]
fn completions_help_says_how_to_install_the_dynamic_completion() {
    let o = Command::new(bin())
        .args(["completions", "--help"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    for line in [
        "source <(COMPLETE=bash payctl)",
        "source <(COMPLETE=zsh payctl)",
        "COMPLETE=fish payctl | source",
        "$env:COMPLETE = \"powershell\"; payctl | Out-String | Invoke-Expression",
        "Remove-Item Env:\\COMPLETE",
        "eval (E:COMPLETE=elvish payctl | slurp)",
        "Static scripts",
    ] {
        assert!(help.contains(line), "no {line:?} in:\n{help}");
    }
    // What the help tells bash to source is a script that registers payctl.
    let o = Command::new(bin())
        .env("COMPLETE", "bash")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let script = String::from_utf8_lossy(&o.stdout);
    assert!(
        script.contains("complete ") && script.contains(" payctl"),
        "{script}"
    );
}

// ---------------------------------------------------------------- waiting

fn spawn_watch(env: &Env) -> Child {
    Command::new(bin())
        .arg("--data-dir")
        .arg(env.path())
        .args(["-o", "json", "worker", "--watch", "--interval", "0.1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn interrupt(child: Child) -> std::process::Output {
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    child.wait_with_output().unwrap()
}

#[test]
fn attach_wait_times_out_with_30005_and_leaves_the_request_queued() {
    let env = Env::new();
    let csp = env.create_profile("cust-wait-1");
    let prm = env.program_id();
    let start = Instant::now();
    let o = env.run(&[
        "program",
        "attach",
        &prm,
        &csp,
        "--wait",
        "--timeout",
        "0.4",
    ]);
    let took = start.elapsed();
    // Issue 30: the attach is committed, --wait gave up: exit 4, the answer
    // on stdout (the id a retry must not lose), what is pending on stderr.
    assert_eq!(o.code, 4, "{o:?}");
    assert_eq!(o.data(), &vec![serde_json::json!({"id": csp})]);
    assert!(o.json["errors"].is_null(), "{o:?}");
    assert!(o.stderr.contains("error[30005]"), "{o:?}");
    assert!(
        o.stderr.contains("0.4 s") && o.stderr.contains("still pending"),
        "{o:?}"
    );
    assert!(took >= Duration::from_millis(400), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    // The attach itself was made: Pending, and the worker takes it later.
    let rec = ok(&env.run(&["program", "profile", &prm, &csp]))
        .json
        .clone();
    assert_eq!(rec["data"][0]["customer_profile_program_status_id"], 1);
    assert_eq!(
        ok(&env.run(&["worker"])).json["data"][0]["attachments_processed"],
        1
    );
    // --timeout needs --wait; a bad timeout is a usage error.
    let csp2 = env.create_profile("cust-wait-2");
    env.run(&["program", "attach", &prm, &csp2, "--timeout", "1"])
        .refused(2, 10000);
    env.run(&[
        "program",
        "attach",
        &prm,
        &csp2,
        "--wait",
        "--timeout",
        "-1",
    ])
    .refused(2, 10000);
}

#[test]
fn attach_wait_returns_once_a_background_worker_attached_it() {
    let env = Env::new();
    let csp = env.create_profile("cust-wait-3");
    let prm = env.program_id();
    let watcher = spawn_watch(&env);
    let o = env.run(&["program", "attach", &prm, &csp, "--wait", "--timeout", "30"]);
    let out = interrupt(watcher);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(o.id(), csp);
    let rec = ok(&env.run(&["program", "profile", &prm, &csp]))
        .json
        .clone();
    assert_eq!(rec["data"][0]["customer_profile_program_status_id"], 10);
}

/// An ach_funding transaction of `csp` (Attached, with or without a Funding instrument).
fn funding_args<'a>(prm: &'a str, param: &'a str) -> Vec<&'a str> {
    common::txn_create_args(prm, "ach_funding", &[param])
}

#[test]
fn txn_create_wait_returns_when_the_worker_completed_or_failed_it() {
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-txn-wait");
    let param = format!("@source_customers={csp}:10.00");
    let watcher = spawn_watch(&env);
    // No Funding instrument yet: the step fails, and --wait returns too (exit 0).
    let mut args = funding_args(&prm, &param);
    args.extend(["--wait", "--timeout", "30"]);
    let failed = env.run(&args).id();
    let t = ok(&env.run(&["txn", "get", &failed])).json.clone();
    assert_eq!(t["data"][0]["transaction_status_id"], 70);
    ok(&instrument(
        &env,
        &csp,
        &prm,
        &["--type-id", "Funding", "--ach-type-id", "Checking"],
    ));
    let done = env.run(&args).id();
    let out = interrupt(watcher);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let t = ok(&env.run(&["txn", "get", &done])).json.clone();
    assert_eq!(t["data"][0]["transaction_status_id"], 60);
}

#[test]
fn txn_create_wait_without_a_worker_times_out_and_keeps_the_transaction() {
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-txn-wait-2");
    let param = format!("@source_customers={csp}:10.00");
    let mut args = funding_args(&prm, &param);
    args.extend(["--wait", "--timeout", "0.3"]);
    // Issue 30: exit 4 with the create's answer on stdout, never exit 1 with
    // the id only inside a message (a retry would create a second one).
    let o = env.run(&args);
    assert_eq!(o.code, 4, "{o:?}");
    let trn = o.data()[0]["id"].as_str().unwrap().to_string();
    assert!(o.stderr.contains("error[30005]"), "{o:?}");
    assert!(o.stderr.contains(&format!("payctl txn get {trn}")), "{o:?}");
    let mut ids = args.clone();
    ids.extend(["-o", "id"]);
    let o = env.run(&ids);
    assert_eq!(o.code, 4, "{o:?}");
    assert!(o.stdout.trim().starts_with("trn_"), "{o:?}");
    assert!(o.stderr.contains("0.3 s"), "{o:?}");
    ok(&env.run(&["txn", "get", o.stdout.trim()]));
    // The transaction was created (Created, 10) and the worker takes it later.
    let list = ok(&env.run(&["txn", "list"])).json.clone();
    assert_eq!(list["data"].as_array().unwrap().len(), 2);
    assert_eq!(list["data"][0]["transaction_id"], trn);
    assert_eq!(list["data"][0]["transaction_status_id"], 10);
    let w = ok(&env.run(&["worker"])).json.clone();
    assert_eq!(w["data"][0]["transactions_processed"], 2);
    // A refused create does not wait at all.
    let before = env.snapshot();
    let start = Instant::now();
    let mut bad = funding_args(&prm, "@source_customers=csp_nope:10.00");
    bad.extend(["--wait", "--timeout", "30"]);
    let o = env.run(&bad);
    assert_eq!(o.code, 1, "{o:?}");
    assert!(!o.codes().contains(&30005));
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(env.snapshot(), before);
}

#[test]
fn worker_without_a_terminal_prints_no_progress() {
    let env = Env::new();
    let prm = env.program_id();
    for i in 0..3 {
        let csp = env.create_profile(&format!("cust-quiet-{i}"));
        ok(&env.run(&["program", "attach", &prm, &csp]));
    }
    let o = ok(&env.run(&["worker"])).stderr.clone();
    assert!(o.is_empty(), "{o}");
}

// ---------------------------------------------------------------- help

/// Every command's --help ends with one or two examples.
#[test]
fn every_command_has_examples_in_its_help() {
    fn walk(c: &clap::Command, name: String, out: &mut Vec<String>) {
        for s in c.get_subcommands() {
            if s.get_name() == "help" || s.is_hide_set() {
                continue;
            }
            let n = format!("{name} {}", s.get_name());
            if s.has_subcommands() {
                walk(s, n, out);
            } else {
                let help = s
                    .get_after_help()
                    .or(s.get_after_long_help())
                    .map(|h| h.to_string())
                    .unwrap_or_default();
                if !help.contains("Example") || !help.contains("payctl") {
                    out.push(n);
                }
            }
        }
    }
    let mut missing = Vec::new();
    // Built: the subcommands' arguments and help are deferred until then.
    let mut cmd = payctl::cli::Cli::command();
    cmd.build();
    walk(&cmd, "payctl".into(), &mut missing);
    assert!(missing.is_empty(), "no examples in --help of {missing:?}");
    // As the user sees it.
    let o = Command::new(bin())
        .args(["program", "attach", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("Examples:") && help.contains("--wait"),
        "{help}"
    );
}

/// Every option and argument of every command has a help line; no help
/// points at the spec's sections (a user has no spec); the command's own
/// options come first, the global ones under a heading of their own.
#[test]
fn every_option_has_help_and_globals_come_last() {
    fn walk(c: &clap::Command, name: String, out: &mut Vec<String>) {
        for a in c.get_arguments() {
            if a.is_hide_set() || ["help", "version"].contains(&a.get_id().as_str()) {
                continue;
            }
            let help = a.get_help().or(a.get_long_help()).map(|h| h.to_string());
            if help.as_deref().is_none_or(|h| h.trim().is_empty()) {
                out.push(format!("{name}: {} has no help", a.get_id()));
            }
        }
        for text in [c.get_about(), c.get_long_about(), c.get_after_help()]
            .into_iter()
            .flatten()
        {
            if text.to_string().contains("(spec ") || text.to_string().contains("spec 2.") {
                out.push(format!("{name}: mentions the spec: {text}"));
            }
        }
        for s in c.get_subcommands() {
            if s.get_name() == "help" || s.is_hide_set() {
                continue;
            }
            walk(s, format!("{name} {}", s.get_name()), out);
        }
    }
    let mut bad = Vec::new();
    let mut cmd = payctl::cli::Cli::command();
    cmd.build();
    walk(&cmd, "payctl".into(), &mut bad);
    assert!(bad.is_empty(), "{bad:#?}");
    let o = Command::new(bin())
        .args(["profile", "list", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    let own = help.find("--first-name").expect("own option");
    let globals = help
        .find("Global options:")
        .expect("a heading of their own");
    let data_dir = help.find("--data-dir").expect("a global option");
    assert!(own < globals && globals < data_dir, "{help}");
    // A help that reads at a glance: one line or two an option, no
    // repeated value lists (the issue counted 123 lines here).
    for args in [
        ["instrument", "update", "--help"],
        ["profile", "create", "--help"],
    ] {
        let o = Command::new(bin()).args(args).output().unwrap();
        let help = String::from_utf8_lossy(&o.stdout);
        let lines = help.lines().count();
        assert!(lines <= 80, "{args:?}: {lines} lines\n{help}");
        assert!(!help.contains("Possible values:"), "{args:?}\n{help}");
    }
}

// ---------------------------------------------------------------- smaller things

#[test]
fn the_spec_messages_of_10001_and_21001_are_sent_exactly() {
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-exact-1");
    let other = env.create_profile("cust-exact-2");
    let o = env.run(&["program", "profile", &prm, &other]);
    o.refused(1, 10001);
    assert_eq!(
        o.json["errors"],
        json!([{"code": 10001, "message": "Invalid Value"}])
    );
    let o = env.run(&["program", "attach", &prm, &csp]);
    assert_eq!(
        o.json["errors"],
        json!([{"code": 21001, "message": "Customer Profile already attached to the program"}])
    );
    let t = table(&env, &["program", "profile", &prm, &other]);
    assert_eq!(t.code, 1);
    assert!(t.stderr.contains("error[10001]: Invalid Value"), "{t:?}");
    // The detail goes to a person's stderr only, never into the envelope.
    assert!(t.stderr.contains("not attached"), "{t:?}");
    let j = env.run(&["program", "profile", &prm, &other]);
    assert!(!j.stdout.contains("not attached"), "{j:?}");
}

#[test]
fn only_accepted_payment_methods_are_offered() {
    let help = Command::new(bin())
        .args(["instrument", "create", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let section = help
        .split("--payment-method-id")
        .nth(1)
        .unwrap()
        .split("\n      --")
        .next()
        .unwrap()
        .to_string();
    assert!(section.contains("ACH"), "{section}");
    assert!(!section.contains("Check"), "{section}");
    let env = Env::new();
    let (csp, prm) = attached_profile(&env, "cust-method-1");
    instrument(
        &env,
        &csp,
        &prm,
        &["--type-id", "Funding", "--payment-method-id", "Check"],
    )
    .refused(2, 10000)
    .mentions("1 ACH");
    let o = Command::new(bin())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let script = String::from_utf8_lossy(&o.stdout);
    let line = script
        .lines()
        .skip_while(|l| !l.contains("--payment-method-id)"))
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(line.contains("ACH") && !line.contains("Check"), "{line}");
}

#[test]
fn a_phone_one_digit_too_long_is_told_the_phone_rule() {
    let env = Env::new();
    let csp = env.create_profile("cust-phone-1");
    for flag in ["--mobile-phone", "--home-phone", "--office-phone"] {
        let o = env.run(&["profile", "update", &csp, flag, "+12345678901234567"]);
        o.refused(1, 10001)
            .mentions("a plus sign, a digit 1-9, then 1 to 15 digits");
        assert!(
            !o.messages().iter().any(|m| m.contains("characters long")),
            "{o:?}"
        );
    }
    ok(&env.run(&[
        "profile",
        "update",
        &csp,
        "--mobile-phone",
        "+1234567890123456",
    ]));
}

#[test]
fn worker_dash_o_id_prints_no_made_up_id() {
    let env = Env::new();
    env.run(&["init"]);
    let o = env.run(&["worker", "-o", "id"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.stdout, "", "{o:?}");
    let o = env.run(&["store", "check", "-o", "id"]);
    assert_eq!((o.code, o.stdout.as_str()), (0, ""), "{o:?}");
    // Records still give their ids.
    let o = env.run(&["program", "list", "-o", "id"]);
    assert!(o.stdout.starts_with("prm_"), "{o:?}");
}

#[test]
fn usage_errors_are_helpful() {
    let env = Env::new();
    env.run(&["init"]);
    // The hidden maintainers' command is not offered.
    for args in [vec![], vec!["--no-input"]] {
        let o = env.run(&args);
        assert_eq!(o.code, 2, "{o:?}");
        assert!(o.stderr.contains("profile"), "{o:?}");
        assert!(!o.stderr.contains("generate-docs"), "{o:?}");
        assert!(!o.stdout.contains("generate-docs"), "{o:?}");
    }
    // A negative number is a value out of range, not an unknown flag.
    for (args, want) in [
        (vec!["profile", "list", "--page-size", "-1"], "1..=1000"),
        (vec!["profile", "list", "--page-number", "-3"], "-3"),
        (vec!["--lock-timeout", "-1", "profile", "list"], "from 0 to"),
        (vec!["worker", "--watch", "--interval", "-1"], "0.01-86400"),
    ] {
        let o = env.run(&args);
        o.refused(2, 10000).mentions(want);
        assert!(!o.messages()[0].contains("unexpected argument"), "{o:?}");
    }
    // --country is for states only: refused elsewhere, naming the rule.
    for args in [
        vec!["dict", "list", "countries", "--country", "1"],
        vec!["dict", "list", "--country", "1"],
    ] {
        env.run(&args)
            .refused(2, 10000)
            .mentions("only `dict list states` takes a country");
    }
    let o = env.run(&[
        "dict",
        "list",
        "states",
        "--country",
        "1",
        "--page-size",
        "100",
    ]);
    assert_eq!(o.data().len(), 56, "{o:?}");
    env.run(&["dict", "list", "states", "--country", "7"])
        .refused(1, 20001);
}

#[test]
#[ignore = "needs script(1)"]
fn tables_use_columns_when_the_terminal_reports_no_width() {
    assert!(
        Command::new("script").arg("--version").output().is_ok(),
        "script(1) is not installed"
    );
    let env = Env::new();
    env.create_profile("cust-cols-01");
    // `script` gives payctl a terminal of width 0 (no terminal around it).
    let cmd = format!(
        "'{}' --data-dir '{}' --color never profile list",
        bin().display(),
        env.path().display()
    );
    for (columns, widest) in [(Some("100"), 100), (None, 80)] {
        let mut c = Command::new("script");
        c.args(["-qec", &cmd, "/dev/null"])
            .env_remove("PAYCTL_OUTPUT")
            .env_remove("PAYCTL_DATA_DIR")
            .env("PAYCTL_ACTOR", "tester")
            .stdin(Stdio::null());
        match columns {
            Some(v) => c.env("COLUMNS", v),
            None => c.env_remove("COLUMNS"),
        };
        let o = c.output().unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("customer_key"), "{columns:?}: {text}");
        assert!(text.contains("cust-cols-01"), "{columns:?}: {text}");
        for line in text.lines() {
            assert!(line.chars().count() <= widest, "{columns:?}: wider: {line}");
        }
    }
}

/// Timestamps are UTC whatever `TZ` the writing process has: a create and
/// the worker's changes under New York's and Tokyo's time are stamped
/// within a minute of UTC now.
#[test]
fn timestamps_are_utc_whatever_the_time_zone() {
    let env = Env::new();
    let near_now = |stamp: &Value| {
        let t =
            chrono::NaiveDateTime::parse_from_str(stamp.as_str().unwrap(), "%Y-%m-%dT%H:%M:%S%.f")
                .expect("an ISO 8601 time");
        let off = (chrono::Utc::now().naive_utc() - t).num_seconds().abs();
        assert!(off < 60, "{stamp} is {off} s from UTC now");
    };
    let prm = env.program_id();
    for tz in ["America/New_York", "Asia/Tokyo"] {
        let mut c = env.cmd();
        c.env("TZ", tz)
            .args(["profile", "create", "--body", "-"])
            .write_stdin(common::profile_body(&format!("utc-{}", &tz[..4])).to_string());
        let o = common::Out::from(c.output().unwrap());
        let csp = o.id();
        let got = ok(&env.run(&["profile", "get", &csp])).json.clone();
        near_now(&got["data"][0]["created_datetime"]);
        let mut c = env.cmd();
        c.env("TZ", tz).args(["program", "attach", &prm, &csp]);
        assert_eq!(c.output().unwrap().status.code(), Some(0));
        let mut c = env.cmd();
        c.env("TZ", tz).args(["worker"]);
        assert_eq!(c.output().unwrap().status.code(), Some(0));
        let att = ok(&env.run(&["program", "profile", &prm, &csp]))
            .json
            .clone();
        near_now(&att["data"][0]["modified_datetime"]);
    }
}

// ---------------------------------------------------------------- --all and JSON Lines

/// The raw stdout lines of `args` (the harness's `-o json` overridden).
fn lines(env: &Env, args: &[&str]) -> (i32, Vec<String>) {
    let o = env.run(args);
    (o.code, o.stdout.lines().map(str::to_string).collect())
}

/// `--all` fetches every page in order, locally and remotely: `-o json`
/// one envelope with every record, `-o jsonl` a record per line, `-o id`
/// an id per line, `-o table` every row; a get in JSON Lines is its one
/// record, a refusal still the envelope.
#[test]
fn all_pages_and_json_lines() {
    let env = Env::new();
    let ids: Vec<String> = (0..7)
        .map(|i| env.create_profile(&format!("cust-all-{i}")))
        .collect();
    let server = common::serve::Server::start(&env, &["--quiet"]);
    let remote = {
        let mut e = Env::new();
        e.envs.push(("PAYCTL_BASE_URL", server.base.clone()));
        e
    };
    for env in [&env, &remote] {
        let o = env.run(&["profile", "list", "--all", "--page-size", "3"]);
        ok(&o);
        let got: Vec<&str> = o
            .data()
            .iter()
            .map(|p| p["customer_profile_id"].as_str().unwrap())
            .collect();
        assert_eq!(got, ids, "every record, in creation order");
        assert_eq!(
            o.json["paging"],
            json!({"page_size": 7, "page_number": 1, "total_count": 7, "last_evaluated_key": null})
        );
        assert!(o.json["errors"].is_null());

        let (code, ls) = lines(
            env,
            &[
                "profile",
                "list",
                "--all",
                "--page-size",
                "2",
                "-o",
                "jsonl",
            ],
        );
        assert_eq!(code, 0);
        assert_eq!(ls.len(), 7, "{ls:?}");
        for (l, id) in ls.iter().zip(&ids) {
            let v: Value = serde_json::from_str(l).expect("a JSON record per line");
            assert_eq!(v["customer_profile_id"], id.as_str());
            assert_eq!(v["customer_profile_individual"]["ssn"], "6789", "masked");
        }
        let (code, ls) = lines(
            env,
            &["profile", "list", "--all", "--page-size", "4", "-o", "id"],
        );
        assert_eq!((code, ls), (0, ids.clone()));
        let (code, ls) = lines(
            env,
            &[
                "profile",
                "list",
                "--all",
                "--page-size",
                "3",
                "-o",
                "table",
            ],
        );
        assert_eq!(code, 0);
        let text = ls.join("\n");
        for id in &ids {
            assert!(text.contains(id.as_str()), "{text}");
        }
        assert!(!text.contains("next page"), "{text}");

        // Without --all: the first page only, a line per record.
        let (_, ls) = lines(env, &["profile", "list", "--page-size", "2", "-o", "jsonl"]);
        assert_eq!(ls.len(), 2);
        let (_, ls) = lines(env, &["profile", "get", &ids[3], "-o", "jsonl"]);
        assert_eq!(ls.len(), 1);
        let v: Value = serde_json::from_str(&ls[0]).unwrap();
        assert_eq!(v["customer_profile_id"], ids[3].as_str());
        // A refusal is the envelope, with its exit code.
        let (code, ls) = lines(
            env,
            &["profile", "get", "csp_00000000000000000000", "-o", "jsonl"],
        );
        assert_eq!(code, 1);
        let v: Value = serde_json::from_str(&ls[0]).unwrap();
        assert_eq!(v["errors"][0]["code"], 20001);
        // --all takes no page of its own.
        let o = env.run(&["profile", "list", "--all", "--page-number", "2"]);
        assert_eq!(o.code, 2, "{o:?}");
    }
    // An empty list is an empty envelope.
    let empty = env.run(&["txn", "list", "--all"]);
    ok(&empty);
    assert_eq!(empty.data().len(), 0);
    assert_eq!(empty.json["paging"]["total_count"], 0);
}

// ---------------------------------------------------------------- --dry-run

/// `--dry-run` on every create, update, delete and attach, locally and
/// remotely: the record as it would be (a new one's id `(new)`), exit 0,
/// nothing written (the store byte for byte, no idempotency record); a
/// request that would be refused is refused the same way.
#[test]
fn dry_run_checks_everything_and_writes_nothing() {
    let env = Env::new();
    let (prm, csp) = env.attached_profile("cust-dry-run");
    let cpa = env
        .body(&["address", "create", &csp], &address_body(true))
        .id();
    let pin = env
        .body(
            &["instrument", "create", &csp],
            &common::ach_instrument_body(
                &prm,
                "dry",
                true,
                json!([{"key": "via", "value": "dry"}]),
            ),
        )
        .id();
    let other = env.create_profile("cust-dry-other");
    let server = common::serve::Server::start(&env, &["--quiet"]);
    let remote = {
        let mut e = Env::new();
        e.envs.push(("PAYCTL_BASE_URL", server.base.clone()));
        e
    };
    let before = env.snapshot();
    let src = format!("@source_customers={csp}:5.00");
    for e in [&env, &remote] {
        let mut body = profile_body("cust-dry-new");
        body["customer_profile_individual"]["first_name"] = json!("Dora");
        let o = e.body(
            &[
                "profile",
                "create",
                "--dry-run",
                "--idempotency-key",
                "dry-1",
            ],
            &body,
        );
        ok(&o);
        let p = &o.data()[0];
        assert_eq!(p["customer_profile_id"], "(new)", "{o:?}");
        assert_eq!(p["customer_profile_individual"]["first_name"], "Dora");
        assert_eq!(
            p["customer_profile_individual"]["ssn"], "6789",
            "masked as a get"
        );
        assert_eq!(p["created_by"], "tester");

        let o = e.run(&[
            "profile",
            "update",
            &csp,
            "--first-name",
            "Augusta",
            "--dry-run",
        ]);
        assert_eq!(
            ok(&o).data()[0]["customer_profile_individual"]["first_name"],
            "Augusta"
        );
        assert_eq!(o.data()[0]["customer_profile_id"], csp.as_str());

        let o = e.body(
            &["address", "create", &csp, "--dry-run"],
            &address_body(false),
        );
        assert_eq!(ok(&o).data()[0]["address_id"], "(new)");
        let o = e.run(&[
            "address",
            "update",
            &csp,
            &cpa,
            "--city",
            "Shelbyville",
            "--dry-run",
        ]);
        assert_eq!(ok(&o).data()[0]["city"], "Shelbyville");
        // The default address cannot go: refused as for real.
        e.run(&["address", "delete", &csp, &cpa, "--dry-run"])
            .refused(1, 21003);

        let o = e.body(
            &["instrument", "create", &csp, "--dry-run"],
            &common::ach_instrument_body(
                &prm,
                "dry2",
                false,
                json!([{"key": "via", "value": "dry"}]),
            ),
        );
        ok(&o);
        assert_eq!(o.data()[0]["payment_instrument_id"], "(new)");
        assert_eq!(
            o.data()[0]["payment_instrument_ach"]["account_number"],
            "6789"
        );
        let o = e.run(&[
            "instrument",
            "update",
            &csp,
            &pin,
            "--label",
            "Renamed",
            "--dry-run",
        ]);
        assert_eq!(ok(&o).data()[0]["payment_instrument_label"], "Renamed");

        let o = e.run(&["program", "attach", &prm, &other, "--dry-run"]);
        let a = &ok(&o).data()[0];
        assert_eq!(a["customer_profile_id"], other.as_str());
        assert_eq!(a["customer_profile_program_status_id"], 1, "Pending: {o:?}");
        e.run(&["program", "attach", &prm, &csp, "--dry-run"])
            .refused(1, 21001);

        let mut args = common::txn_create_args(&prm, "ach_funding", &[&src]);
        args.push("--dry-run");
        let o = e.run(&args);
        let t = &ok(&o).data()[0];
        assert_eq!(t["transaction_id"], "(new)", "{o:?}");
        assert_eq!(t["transaction_status_id"], 10);
        // Refusals are the real ones.
        let mut bad = profile_body("cust-dry-run");
        bad["customer_profile_individual"]["email"] = json!("not-an-email");
        let o = e.body(&["profile", "create", "--dry-run"], &bad);
        o.refused(1, 10001);
        let o = e.run(&["profile", "get", "csp_00000000000000000000"]);
        o.refused(1, 20001);
    }
    assert!(env.snapshot() == before, "a dry run wrote to the store");
    // The dry run's key was not recorded: a real create may use it for another body.
    let o = env.body(
        &["profile", "create", "--idempotency-key", "dry-1"],
        &profile_body("cust-dry-real"),
    );
    ok(&o);
    // Over HTTP: the header, 200 (nothing created).
    let r = server.send(
        "POST",
        "/customer-profiles",
        Some(&profile_body("cust-dry-http").to_string()),
        &[("Payctl-Dry-Run", "true")],
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["data"][0]["customer_profile_id"], "(new)");
    let r = server.send(
        "POST",
        "/customer-profiles",
        Some("{}"),
        &[("Payctl-Dry-Run", "maybe")],
    );
    assert_eq!(r.status, 400, "{r:?}");
    let listed = env.run(&["profile", "list", "--customer-key", "cust-dry-http"]);
    assert_eq!(listed.json["paging"]["total_count"], 0);
}

// ---------------------------------------------------------------- contexts

/// A config file of the test's own (`PAYCTL_CONFIG`) in a directory that
/// does not exist yet, and payctl run on it with no `PAYCTL_*` variable of
/// the caller's and no `--data-dir`: the context decides the store.
struct Contexts {
    dir: tempfile::TempDir,
}

impl Contexts {
    fn new() -> Contexts {
        Contexts {
            dir: tempfile::TempDir::new().unwrap(),
        }
    }
    fn file(&self) -> std::path::PathBuf {
        self.dir.path().join("conf").join("config.toml")
    }
    /// A store directory of the test.
    fn store(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }
    fn cmd(&self) -> Command {
        let mut c = Command::new(bin());
        for var in [
            "PAYCTL_DATA_DIR",
            "PAYCTL_DATABASE_URL",
            "PAYCTL_BASE_URL",
            "PAYCTL_TOKEN",
            "PAYCTL_CONTEXT",
            "PAYCTL_OUTPUT",
        ] {
            c.env_remove(var);
        }
        c.env("PAYCTL_CONFIG", self.file())
            .env("PAYCTL_ACTOR", "tester")
            .stdin(Stdio::null())
            .args(["-o", "json"]);
        c
    }
    fn run_env(&self, args: &[&str], vars: &[(&str, &str)]) -> Out {
        let mut c = self.cmd();
        c.envs(vars.iter().copied()).args(args);
        Out::from(c.output().unwrap())
    }
    fn run(&self, args: &[&str]) -> Out {
        self.run_env(args, &[])
    }
    /// `config view`: the contexts by name.
    fn view(&self) -> Vec<Value> {
        ok(&self.run(&["config", "view"])).data().clone()
    }
    /// The customer keys of the profiles of the store at `dir`.
    fn keys_in(&self, dir: &std::path::Path) -> Vec<String> {
        let o = self.run(&["--data-dir", dir.to_str().unwrap(), "profile", "list"]);
        ok(&o)
            .data()
            .iter()
            .map(|p| p["customer_key"].as_str().unwrap().to_string())
            .collect()
    }
    /// Create a profile with key `key` with `args` and `vars` choosing the store.
    fn create(&self, key: &str, args: &[&str], vars: &[(&str, &str)]) -> Out {
        let mut c = self.cmd();
        c.envs(vars.iter().copied())
            .args(args)
            .args(["profile", "create", "--body", "-"])
            .stdin(Stdio::piped());
        let mut child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(profile_body(key).to_string().as_bytes())
            .unwrap();
        Out::from(child.wait_with_output().unwrap())
    }
}

fn by_name<'a>(contexts: &'a [Value], name: &str) -> &'a Value {
    contexts
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no context {name}: {contexts:?}"))
}

/// CLI.md "Contexts": set-context creates or changes only the keys given,
/// use-context makes one current, view shows them, delete-context removes
/// one and clears current-context when it was current.
#[test]
fn contexts_round_trip_through_set_use_view_and_delete() {
    let t = Contexts::new();
    assert_eq!(t.view(), Vec::<Value>::new(), "no file yet: no contexts");
    let a_dir = t.store("a");
    let o = t.run(&[
        "config",
        "set-context",
        "a",
        "--data-dir",
        a_dir.to_str().unwrap(),
    ]);
    assert_eq!(ok(&o).data()[0]["data_dir"], a_dir.display().to_string());
    assert_eq!(o.data()[0]["current"], false);
    ok(&t.run(&[
        "config",
        "set-context",
        "b",
        "--base-url",
        "http://127.0.0.1:9",
        "--token-env",
        "B_TOKEN",
    ]));
    // Only the keys given change.
    ok(&t.run(&["config", "set-context", "b", "--token-env", "OTHER_TOKEN"]));
    let v = t.view();
    assert_eq!(v.len(), 2, "{v:?}");
    let b = by_name(&v, "b");
    assert_eq!(b["base_url"], "http://127.0.0.1:9");
    assert_eq!(b["token_env"], "OTHER_TOKEN");
    assert!(
        b["data_dir"].is_null() && b["database_url"].is_null(),
        "{b}"
    );
    assert!(v.iter().all(|c| c["current"] == false), "{v:?}");

    let o = t.run(&["config", "use-context", "a"]);
    assert_eq!(ok(&o).data()[0]["name"], "a");
    let v = t.view();
    assert_eq!(by_name(&v, "a")["current"], true);
    assert_eq!(by_name(&v, "b")["current"], false);
    let ids = t.run(&["config", "view", "-o", "id"]);
    assert_eq!(ok(&ids).stdout, "a\nb\n");

    // An empty value removes a key.
    ok(&t.run(&["config", "set-context", "b", "--token-env", ""]));
    assert!(by_name(&t.view(), "b")["token_env"].is_null());

    let o = t.run(&["config", "delete-context", "a"]);
    assert_eq!(ok(&o).data()[0]["id"], "a");
    let v = t.view();
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(by_name(&v, "b")["current"], false);
    let text = std::fs::read_to_string(t.file()).unwrap();
    assert!(!text.contains("current-context"), "{text}");
    t.run(&["config", "delete-context", "a"]).refused(1, 20001);
}

/// `--context NAME`, `PAYCTL_CONTEXT` and the file's current-context pick
/// the store: a record created through a context lands in its directory.
#[test]
fn a_context_picks_the_data_dir() {
    let t = Contexts::new();
    let (one, two) = (t.store("one"), t.store("two"));
    for (name, dir) in [("one", &one), ("two", &two)] {
        ok(&t.run(&[
            "config",
            "set-context",
            name,
            "--data-dir",
            dir.to_str().unwrap(),
        ]));
    }
    ok(&t.create("by-flag", &["--context", "one"], &[]));
    ok(&t.create("by-env", &[], &[("PAYCTL_CONTEXT", "two")]));
    ok(&t.run(&["config", "use-context", "two"]));
    ok(&t.create("by-current", &[], &[]));
    // --context wins over the current context.
    ok(&t.create("flag-over-current", &["--context", "one"], &[]));
    assert_eq!(t.keys_in(&one), ["by-flag", "flag-over-current"]);
    assert_eq!(t.keys_in(&two), ["by-env", "by-current"]);
}

/// Precedence: flags, then environment variables, then the context.
#[test]
fn flags_beat_the_environment_which_beats_the_context() {
    let t = Contexts::new();
    let (flag, env, ctx) = (t.store("flag"), t.store("env"), t.store("ctx"));
    ok(&t.run(&[
        "config",
        "set-context",
        "c",
        "--data-dir",
        ctx.to_str().unwrap(),
    ]));
    ok(&t.run(&["config", "use-context", "c"]));
    let env_var = [("PAYCTL_DATA_DIR", env.to_str().unwrap())];
    ok(&t.create("k-flag", &["--data-dir", flag.to_str().unwrap()], &env_var));
    let o = t.create("k-env", &["--context", "c"], &env_var);
    ok(&o);
    assert!(
        o.stderr.contains("PAYCTL_DATA_DIR names the store"),
        "a context asked for and not used is said: {o:?}"
    );
    ok(&t.create("k-ctx", &[], &[]));
    assert_eq!(t.keys_in(&flag), ["k-flag"]);
    assert_eq!(t.keys_in(&env), ["k-env"]);
    assert_eq!(t.keys_in(&ctx), ["k-ctx"]);
    // A context's service never takes over a command whose store a flag names.
    ok(&t.run(&[
        "config",
        "set-context",
        "c",
        "--base-url",
        "http://127.0.0.1:9",
    ]));
    ok(&t.create("k-flag-2", &["--data-dir", flag.to_str().unwrap()], &[]));
    assert_eq!(t.keys_in(&flag), ["k-flag", "k-flag-2"]);
}

/// A context's `token-env` names the variable remote mode reads the token
/// from; PAYCTL_TOKEN still wins; the token is never written to the file.
#[test]
fn remote_mode_reads_the_token_from_the_contexts_variable() {
    const TOKEN: &str = "ctx-token-0123456789abcdef";
    let env = Env::new();
    let server = common::serve::Server::start(&env, &["--token", TOKEN]);
    let t = Contexts::new();
    ok(&t.run(&[
        "config",
        "set-context",
        "svc",
        "--base-url",
        &server.base,
        "--token-env",
        "PAYCTL_TEST_CTX_TOKEN",
    ]));
    ok(&t.run(&["config", "use-context", "svc"]));
    let text = std::fs::read_to_string(t.file()).unwrap();
    assert!(!text.contains(TOKEN), "{text}");

    // The variable unset: refused before anything is sent, naming it.
    let o = t.run(&["profile", "list"]);
    o.refused(2, 10000).mentions("PAYCTL_TEST_CTX_TOKEN");
    let o = t.run_env(
        &["profile", "list"],
        &[("PAYCTL_TEST_CTX_TOKEN", "wrong-token")],
    );
    o.refused(1, 10007);
    let o = t.create("remote-1", &[], &[("PAYCTL_TEST_CTX_TOKEN", TOKEN)]);
    let csp = o.id();
    let o = t.run_env(
        &["profile", "get", &csp],
        &[
            ("PAYCTL_TEST_CTX_TOKEN", "wrong-token"),
            ("PAYCTL_TOKEN", TOKEN),
        ],
    );
    assert_eq!(ok(&o).data()[0]["customer_key"], "remote-1");
    // It went to the service's store.
    let o = env.run(&["profile", "get", &csp]);
    assert_eq!(ok(&o).data()[0]["customer_key"], "remote-1");
}

#[test]
fn the_config_file_is_written_0600_in_a_0700_directory() {
    use std::os::unix::fs::PermissionsExt;
    let t = Contexts::new();
    ok(&t.run(&["config", "set-context", "a", "--data-dir", "/srv/payctl"]));
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&t.file()), 0o600);
    assert_eq!(mode(t.file().parent().unwrap()), 0o700);
    // A file made readable by others is private again once rewritten.
    std::fs::set_permissions(t.file(), std::fs::Permissions::from_mode(0o644)).unwrap();
    ok(&t.run(&["config", "use-context", "a"]));
    assert_eq!(mode(&t.file()), 0o600);
    let left: Vec<_> = std::fs::read_dir(t.file().parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["config.toml"], "no temp file left");
}

#[test]
fn an_unknown_context_is_refused_with_the_known_ones() {
    let t = Contexts::new();
    for name in ["staging", "local"] {
        ok(&t.run(&[
            "config",
            "set-context",
            name,
            "--data-dir",
            "/nonexistent/x",
        ]));
    }
    let file = t.file().display().to_string();
    let o = t.run(&["--context", "stagin", "profile", "list"]);
    o.refused(2, 10000)
        .mentions(&file)
        .mentions("did you mean `staging`")
        .mentions("staging, local");
    let o = t.run_env(&["profile", "list"], &[("PAYCTL_CONTEXT", "prod")]);
    o.refused(2, 10000)
        .mentions("PAYCTL_CONTEXT=prod")
        .mentions("staging, local");
    let o = t.run(&["config", "use-context", "locl"]);
    o.refused(1, 20001).mentions("did you mean `local`");
    assert!(t.view().iter().all(|c| c["current"] == false));
    t.run(&["config", "set-context", "no/slash"])
        .refused(2, 10000);
}

#[test]
fn a_malformed_config_file_is_refused_naming_its_line() {
    let t = Contexts::new();
    std::fs::create_dir_all(t.file().parent().unwrap()).unwrap();
    for (text, line, says) in [
        (
            "current-context = \"a\"\n[contexts.a]\ndata-dir = /srv\n",
            "line 3",
            "not valid TOML",
        ),
        (
            "[contexts.a]\ndata-dir = \"/srv\"\nbase_url = \"http://x\"\n",
            "line 3",
            "did you mean `base-url`",
        ),
        ("current-context = 1\n", "line 1", "must be a string"),
    ] {
        std::fs::write(t.file(), text).unwrap();
        for args in [
            &["config", "view"][..],
            &["profile", "list"],
            &["--context", "a", "profile", "list"],
            &["config", "set-context", "b"],
        ] {
            let o = t.run(args);
            o.refused(2, 10000)
                .mentions(&t.file().display().to_string())
                .mentions(line)
                .mentions(says);
            assert!(!o.stderr.contains("panicked"), "{o:?}");
        }
        assert_eq!(
            std::fs::read_to_string(t.file()).unwrap(),
            text,
            "a file refused is never rewritten"
        );
    }
    std::fs::write(t.file(), b"\xff\xfe").unwrap();
    t.run(&["config", "view"])
        .refused(2, 10000)
        .mentions("UTF-8");
}

#[test]
fn config_view_never_prints_a_database_password() {
    let t = Contexts::new();
    let o = t.run(&[
        "config",
        "set-context",
        "pg",
        "--database-url",
        "postgresql://app:s3cretPW@db.example:5432/pay?sslmode=require",
        "--base-url",
        "https://ops:hunter2pw@pay.example",
    ]);
    assert_eq!(
        ok(&o).data()[0]["database_url"],
        "postgresql://app@db.example:5432/pay?sslmode=require"
    );
    assert_eq!(o.data()[0]["base_url"], "https://ops:****@pay.example");
    // A URL written by hand that does not parse is masked all the same.
    let mut text = std::fs::read_to_string(t.file()).unwrap();
    text.push_str("[contexts.bad]\ndatabase-url = \"postgresql://app:s3cretPW@[::1/x\"\n");
    std::fs::write(t.file(), text).unwrap();
    for format in ["json", "table", "id"] {
        let o = t.run(&["config", "view", "-o", format]);
        ok(&o);
        for secret in ["s3cretPW", "hunter2pw"] {
            assert!(
                !o.stdout.contains(secret) && !o.stderr.contains(secret),
                "-o {format}: {o:?}"
            );
        }
    }
    let v = t.view();
    assert_eq!(
        by_name(&v, "bad")["database_url"],
        "postgresql://app:****@[::1/x"
    );
}

/// Refusals name the flag a value came from, and the flag that gives a
/// missing field; a customer id without its amount is "missing", not "not
/// a number"; a template typo gets the closest name; an id of another
/// kind says what it is.
#[test]
fn errors_name_the_flags_and_what_was_meant() {
    let env = Env::new();
    let o = env.run(&[
        "profile",
        "create",
        "--no-input",
        "--customer-key",
        "cust-flags",
        "--email",
        "bad",
    ]);
    o.refused(1, 10001);
    let msgs = o.messages().join("\n");
    assert!(
        msgs.contains("customer_profile_individual.email: is not a valid e-mail address")
            && msgs.contains("(the value of --email)"),
        "{msgs}"
    );
    assert!(
        msgs.contains("customer_profile_individual.first_name: is required: give --first-name"),
        "{msgs}"
    );
    let o = env.run(&[
        "txn",
        "create",
        "--program",
        "default_program",
        "--template",
        "ach_funding",
    ]);
    assert!(
        o.messages()
            .join("\n")
            .contains("application_id: is required: give --application"),
        "{o:?}"
    );
    let o = env.run(&[
        "txn",
        "create",
        "--program",
        "default_program",
        "--application",
        "payments",
        "--template",
        "ach_fundin",
        "--param",
        "@source_customers=csp_00000000000000000000:1",
    ]);
    assert!(
        o.messages()
            .join("\n")
            .contains("did you mean `ach_funding`"),
        "{o:?}"
    );
    let o = env.run(&[
        "txn",
        "create",
        "--param",
        "@source_customers=csp_00000000000000000000",
    ]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(
        o.stdout.contains("the amount is missing") || o.stderr.contains("the amount is missing"),
        "{o:?}"
    );
    let o = env.run(&["profile", "get", "cpa_0123456789abcdefghij"]);
    o.refused(1, 20001)
        .mentions("is the prefix of an address id");
}

/// A table shows people the record: an update answers the record as it
/// now is, and `txn list` the template's name and the amount; scripts
/// (`-o json`, `-o id`) keep the id.
#[test]
fn tables_show_the_record_and_the_names() {
    let env = Env::new();
    let (prm, csp) = {
        let prm = env.program_id();
        let csp = env.create_profile("cust-table-rec");
        ok(&env.run(&["program", "attach", &prm, &csp]));
        ok(&env.run(&["worker"]));
        (prm, csp)
    };
    let o = table(
        &env,
        &["profile", "update", &csp, "--first-name", "Augusta"],
    );
    ok(&o);
    assert!(
        o.stdout.contains("Augusta") && o.stdout.contains("customer_profile_individual.first_name"),
        "{o:?}"
    );
    let o = env.run(&["profile", "update", &csp, "--first-name", "Ada", "-o", "id"]);
    assert_eq!(o.stdout.trim(), csp);
    let src = format!("@source_customers={csp}:12.50");
    let also = format!("@source_customers={csp}:0.25");
    ok(&env.run(&common::txn_create_args(
        &prm,
        "ach_funding",
        &[&src, &also],
    )));
    let o = table(&env, &["txn", "list"]);
    ok(&o);
    assert!(
        o.stdout.contains("ach_funding") && o.stdout.contains("12.75"),
        "{o:?}"
    );
    let o = env.run(&["txn", "list"]);
    assert!(
        o.data()[0].get("_total").is_none(),
        "the JSON record is the API's: {o:?}"
    );
}
