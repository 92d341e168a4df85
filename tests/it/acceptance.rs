//! Acceptance findings: rules of the spec and CLI.md checked through the
//! binary where an audit found the behaviour off, each kept as a regression test.

//!
//! Each test that has an endpoint runs in both modes: on the local store, and
//! in remote mode (`--base-url`) against a `payctl serve` spawned on a free
//! port, whose background work the commands drive with `payctl worker`
//! (POST /_payctl/worker). The envelopes must be the same.

use crate::common;

use std::collections::HashMap;

use common::serve::Side;
use common::{Env, Out, address_body, profile_body, txn_create_args};
use serde_json::{Value, json};

/// GET /dictionaries/countries/{country_id}/states: a country that does not
/// exist is an identifier in the path that does not exist (CLI.md: 20001);
/// the one that exists answers its states.
#[test]
fn states_of_a_country_that_does_not_exist_is_not_found() {
    for side in Side::both() {
        for country in ["0", "2", "999"] {
            side.run(&["dict", "list", "states", "--country", country])
                .refused(1, 20001)
                .mentions(&format!("country {country} does not exist"));
        }
        let us = side.run(&["dict", "list", "states", "--country", "1"]);
        assert_eq!(us.code, 0, "{}: {us:?}", side.name());
        assert_eq!(us.json["paging"]["total_count"], 56);
    }
}

/// Identifiers and times differ between two stores; the rest must not.
/// Ids become `<prefix>#N` by order of appearance, times `<time>`.
struct Normalizer {
    ids: HashMap<String, String>,
    id_re: regex::Regex,
    time_re: regex::Regex,
}

impl Normalizer {
    fn new() -> Self {
        Normalizer {
            ids: HashMap::new(),
            id_re: regex::Regex::new(r"\b(csp|cpa|pin|prm|app|trt|tts|trn|trs)_[A-Za-z0-9]{8,}\b")
                .unwrap(),
            time_re: regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?").unwrap(),
        }
    }
    fn text(&mut self, s: &str) -> String {
        let mut out = String::new();
        let mut last = 0;
        for m in self.id_re.find_iter(s) {
            out.push_str(&s[last..m.start()]);
            let n = self.ids.len();
            let prefix = &m.as_str()[..3];
            let name = self
                .ids
                .entry(m.as_str().to_string())
                .or_insert_with(|| format!("{prefix}#{n}"));
            out.push_str(name);
            last = m.end();
        }
        out.push_str(&s[last..]);
        self.time_re.replace_all(&out, "<time>").into_owned()
    }
    fn value(&mut self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(x)).collect()),
            Value::Object(m) => {
                let v = |(k, x): (&String, &Value)| match k.as_str() {
                    // Random integers (spec: parameter ids are integers).
                    "transaction_parameter_id" => (k.clone(), json!("<n>")),
                    _ => (k.clone(), self.value(x)),
                };
                Value::Object(m.iter().map(v).collect())
            }
            other => other.clone(),
        }
    }
}

/// The whole lifecycle through the commands; every answer, normalized.
fn lifecycle(side: &Side) -> Vec<(String, i32, Value)> {
    let mut n = Normalizer::new();
    let mut seen = Vec::new();
    let mut note = |args: &[&str], o: &Out| {
        let shown = n.text(&args.join(" "));
        seen.push((shown, o.code, n.value(&o.json)));
    };
    macro_rules! run {
        ($args:expr) => {{
            let owned = $args;
            let args: Vec<&str> = owned.iter().map(|s| s.as_ref()).collect();
            let o = side.run(&args);
            note(&args, &o);
            o
        }};
    }
    macro_rules! body {
        ($args:expr, $body:expr) => {{
            let owned = $args;
            let args: Vec<&str> = owned.iter().map(|s| s.as_ref()).collect();
            let o = side.body(&args, &$body);
            note(&args, &o);
            o
        }};
    }
    let csp = body!(["profile", "create"], profile_body("cust-acc-001")).id();
    let other = body!(["profile", "create"], profile_body("cust-acc-002")).id();
    body!(["profile", "create"], profile_body("cust-acc-001"));
    body!(["profile", "create"], json!({"customer_key": "x"}));
    run!(["profile", "get", &csp]);
    run!(["profile", "get", "csp_doesnotexist000000"]);
    run!([
        "profile",
        "list",
        "--email",
        "ADA@example.com",
        "--page-size",
        "1"
    ]);
    run!([
        "profile",
        "list",
        "--tag",
        "segment=retail",
        "--customer-key",
        "cust-acc-002"
    ]);
    run!(["profile", "update", &csp, "--email", "new@example.com"]);
    run!(["profile", "update", &csp, "--customer-key", "cust-other"]);
    let cpa = body!(["address", "create", &csp], address_body(true)).id();
    let cpa2 = body!(["address", "create", &csp], address_body(false)).id();
    run!(["address", "list", &csp]);
    run!(["address", "get", &csp, &cpa]);
    run!(["address", "update", &csp, &cpa2, "--city", "Shelbyville"]);
    run!(["address", "delete", &csp, &cpa, "--yes"]);
    run!(["address", "delete", &csp, &cpa2, "--yes"]);
    run!(["address", "delete", &csp, &cpa2]);
    let prm = run!(["program", "list"]).data()[0]["program_id"]
        .as_str()
        .unwrap()
        .to_string();
    let app = run!(["program", "applications", &prm]).data()[0]["application_id"]
        .as_str()
        .unwrap()
        .to_string();
    let templates = run!(["template", "list", &app]);
    let trt = templates.data()[0]["transaction_template_id"]
        .as_str()
        .unwrap()
        .to_string();
    run!(["template", "steps", &trt]);
    run!(["program", "attach", &prm, &csp, "--reason", "acceptance"]);
    run!(["program", "attach", &prm, &csp]);
    run!(["program", "profile", &prm, &csp]);
    run!(["program", "profile", &prm, &other]);
    run!(["worker"]);
    run!(["program", "profiles", &prm]);
    let pin = run!([
        "instrument",
        "create",
        &csp,
        "--program",
        &prm,
        "--type-id",
        "1",
        "--payment-method-id",
        "1",
        "--default",
        "true",
        "--label",
        "Main",
        "--change-reason",
        "Initial",
        "--account-number",
        "000123456789",
        "--routing-number",
        "021000021",
        "--ach-type-id",
        "2",
        "--tag",
        "source=acceptance"
    ])
    .id();
    run!([
        "instrument",
        "create",
        &other,
        "--program",
        &prm,
        "--type-id",
        "1"
    ]);
    run!(["instrument", "list", &csp]);
    run!(["instrument", "get", &csp, &pin]);
    run!(["instrument", "update", &csp, &pin, "--label", "Renamed"]);
    let param = format!("@source_customers={csp}:100.25");
    let trn = run!(txn_create_args(&prm, "ach_funding", &[&param])).id();
    let bad = format!("@source_customers={other}:1.005");
    run!(txn_create_args(&prm, "ach_funding", &[&bad]));
    run!(["txn", "get", &trn]);
    run!(["txn", "steps", &trn]);
    run!(["txn", "parameters", &trn]);
    run!(["worker"]);
    run!(["txn", "steps", &trn]);
    run!(["txn", "list", "--status", "60"]);
    run!([
        "txn",
        "list",
        "--customer",
        &csp,
        "--template",
        "ach_funding"
    ]);
    run!(["dict", "list"]);
    run!(["dict", "list", "customer_types"]);
    run!(["dict", "list", "no-such-dictionary"]);
    run!([
        "dict",
        "list",
        "transaction-step-statuses",
        "--page-size",
        "2",
        "--page-number",
        "2"
    ]);
    seen
}

/// The same commands give the same envelopes and exit codes on the
/// PostgreSQL store (`--database-url`), locally and through `payctl serve`
/// on the database, as on a directory (issue 16).
#[test]
#[ignore = "needs PostgreSQL"]
fn the_lifecycle_answers_the_same_on_postgres() {
    let name = "the_lifecycle_answers_the_same_on_postgres";
    let Some(db) = Side::database(name) else {
        return;
    };
    let Some(db_remote) = Side::database_remote(name) else {
        return;
    };
    let here = lifecycle(&Side::local());
    for (side, what) in [(&db, "database"), (&db_remote, "serve on the database")] {
        let there = lifecycle(side);
        assert_eq!(here.len(), there.len());
        for (l, r) in here.iter().zip(&there) {
            assert_eq!(l, r, "directory vs {what}");
        }
    }
}

/// The same commands give the same envelopes and exit codes locally and in
/// remote mode against `payctl serve` (issue 15).
#[test]
fn the_lifecycle_answers_the_same_locally_and_remotely() {
    let [local, remote] = Side::both();
    let here = lifecycle(&local);
    let there = lifecycle(&remote);
    assert_eq!(here.len(), there.len());
    for (l, r) in here.iter().zip(&there) {
        assert_eq!(l, r, "local vs remote");
    }
    // Not vacuous: successes and refusals of each kind were compared.
    let codes: Vec<i32> = here.iter().map(|(_, c, _)| *c).collect();
    assert!(
        codes.contains(&0) && codes.contains(&1) && codes.contains(&2),
        "{codes:?}"
    );
    assert!(
        here.iter()
            .any(|(_, _, v)| v["data"][0]["steps_completed"] == 1)
    );
    // The remote writes name the client's --actor (X-Payctl-Actor).
    let got = remote.run(&["profile", "list"]);
    assert_eq!(got.data()[0]["created_by"], "tester");
}

/// A usage error with `-o json` says what is wrong in the envelope: the
/// missing argument is named, not only "were not provided:".
#[test]
fn usage_errors_name_the_missing_argument_and_the_possible_values() {
    let env = Env::new();
    let o = env.run(&["profile", "get"]);
    assert_eq!(o.code, 2, "{o:?}");
    assert_eq!(o.codes(), [10000]);
    assert!(o.json["data"].is_null());
    o.mentions("<CSP>");
    let o = env.run(&["address", "get", "csp_abc"]);
    assert_eq!(o.code, 2, "{o:?}");
    o.mentions("<CPA>");
    let o = env.run(&["completions", "nosh"]);
    assert_eq!(o.code, 2, "{o:?}");
    o.mentions("bash");
    // One line, no usage text or tips in the message.
    for m in o.messages() {
        assert!(
            !m.contains('\n') && !m.contains("Usage: payctl") && !m.contains("tip:"),
            "{m:?}"
        );
    }
}

/// `init --catalog FILE` takes "the shape of the built-in catalog": a stored
/// catalog.json, audit fields and the ids of the enclosing records included,
/// loads as it is; an enclosing id that names another record is refused and
/// no store is created.
#[test]
fn init_takes_a_stored_catalog_json_as_it_is() {
    let built_in = Env::new();
    let programs = built_in.run(&["program", "list"]);
    assert_eq!(programs.code, 0, "{programs:?}");
    let stored = std::fs::read_to_string(built_in.path().join("catalog.json")).unwrap();
    let file = built_in.dir.path().join("copy.json");
    std::fs::write(&file, &stored).unwrap();

    let env = Env::new();
    let o = env.run(&["init", "--catalog", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{o:?}");
    let listed = env.run(&["program", "list"]);
    assert_eq!(
        listed.data()[0]["program_id"],
        programs.data()[0]["program_id"]
    );
    assert_eq!(listed.data()[0]["created_by"], "SYSTEM");
    let app = listed.data()[0]["program_id"].as_str().unwrap().to_string();
    let apps = env.run(&["program", "applications", &app]);
    let app_id = apps.data()[0]["application_id"]
        .as_str()
        .unwrap()
        .to_string();
    let templates = env.run(&["template", "list", &app_id]);
    assert_eq!(templates.json["paging"]["total_count"], 5);

    // The enclosing ids, where given, must be those of the enclosing record.
    let mut cat: Value = serde_json::from_str(&stored).unwrap();
    let t = &mut cat["programs"][0]["applications"][0]["transaction_templates"][0];
    t["application_id"] = "app_someotherapplication".into();
    t["steps"][0]["transaction_template_id"] = "trt_someothertemplate00".into();
    std::fs::write(&file, cat.to_string()).unwrap();
    let bad = Env::new();
    bad.run(&["init", "--catalog", file.to_str().unwrap()])
        .refused(1, 10001)
        .mentions("transaction_templates[0].application_id")
        .mentions("steps[0].transaction_template_id");
    assert!(!bad.path().exists(), "a refused init creates no store");
}
