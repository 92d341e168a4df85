//! `payctl program …` and `payctl template …`: the catalog, attaching
//! customer profiles to a program, and `payctl init --catalog`.

use crate::common;
use common::{program_record as record, succeeded as ok};

use common::{Env, Out};
use serde_json::{Value, json};

fn application_id(env: &Env) -> String {
    let o = env.run(&["program", "applications", &env.program_id()]);
    ok(&o).data()[0]["application_id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Template id by name in the built-in application.
fn template_id(env: &Env, name: &str) -> String {
    let o = env.run(&["template", "list", &application_id(env)]);
    ok(&o)
        .data()
        .iter()
        .find(|t| t["transaction_template_name"] == name)
        .and_then(|t| t["transaction_template_id"].as_str())
        .unwrap_or_else(|| panic!("template {name}"))
        .to_string()
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(|k| k.as_str()).collect()
}

fn attach(env: &Env, prm: &str, csp: &str, reason: Option<&str>) -> Out {
    let mut args = vec!["program", "attach", prm, csp];
    if let Some(r) = reason {
        args.extend(["--reason", r]);
    }
    env.run(&args)
}

#[test]
fn program_list_shows_programs_without_applications() {
    let env = Env::new();
    let o = env.run(&["program", "list"]);
    ok(&o);
    assert_eq!(o.json["paging"]["total_count"], 1);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    let p = &o.data()[0];
    assert_eq!(
        keys(p),
        [
            "program_id",
            "program_name",
            "program_description",
            "program_display_name",
            "created_by",
            "created_date_time",
            "modified_by",
            "modified_date_time"
        ]
    );
    assert_eq!(p["program_name"], "default_program");
    assert!(p["program_id"].as_str().unwrap().starts_with("prm_"));
    assert!(p.get("created_datetime").is_none());
    assert!(p.get("applications").is_none());
    // The catalog is assigned by the platform, whoever created the store.
    assert_eq!(p["created_by"], "SYSTEM");
}

#[test]
fn applications_and_templates_have_their_fields_and_no_children() {
    let env = Env::new();
    let prm = env.program_id();
    let o = env.run(&["program", "applications", &prm]);
    ok(&o);
    assert_eq!(o.data().len(), 1);
    let a = &o.data()[0];
    assert_eq!(
        keys(a),
        [
            "application_id",
            "application_name",
            "application_display_name",
            "application_description",
            "created_by",
            "created_datetime",
            "modified_by",
            "modified_datetime"
        ]
    );
    assert_eq!(a["application_name"], "payments");
    assert!(a.get("created_date_time").is_none());

    let app = a["application_id"].as_str().unwrap();
    let o = env.run(&["template", "list", app]);
    ok(&o);
    let names: Vec<&str> = o
        .data()
        .iter()
        .map(|t| t["transaction_template_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ach_funding",
            "ach_withdrawal",
            "internal_transfer",
            "funding_and_payout",
            "check_payout"
        ]
    );
    for t in o.data() {
        assert_eq!(
            keys(t),
            [
                "transaction_template_id",
                "application_id",
                "transaction_template_name",
                "transaction_template_display_name",
                "transaction_template_description",
                "created_by",
                "created_datetime",
                "modified_by",
                "modified_datetime"
            ]
        );
        assert_eq!(t["application_id"], app);
        assert!(
            t["transaction_template_id"]
                .as_str()
                .unwrap()
                .starts_with("trt_")
        );
    }
}

/// sequence, transfer type, mapping source, mapping target, optional
type Step = (u64, u64, Value, Value, bool);

#[test]
fn builtin_template_steps_match_the_contract() {
    let env = Env::new();
    let (s, t, f, n) = ("@source_customers", "@targets", "@facilitator", Value::Null);
    // (template, [(sequence, transfer type, source, target, optional)])
    let expected: Vec<(&str, Vec<Step>)> = vec![
        ("ach_funding", vec![(1, 1, json!(s), n.clone(), false)]),
        ("ach_withdrawal", vec![(1, 2, n.clone(), json!(t), false)]),
        (
            "internal_transfer",
            vec![
                (1, 3, json!(s), json!(t), false),
                (2, 3, json!(s), json!(f), true),
            ],
        ),
        (
            "funding_and_payout",
            vec![
                (1, 1, json!(s), n.clone(), false),
                (2, 3, json!(s), json!(t), false),
                (3, 3, json!(s), json!(f), true),
            ],
        ),
        (
            "check_payout",
            vec![(1, 4, n.clone(), json!("@target_checks"), false)],
        ),
    ];
    for (name, steps) in expected {
        let trt = template_id(&env, name);
        let o = env.run(&["template", "steps", &trt]);
        ok(&o);
        assert_eq!(o.data().len(), steps.len(), "{name}");
        assert_eq!(o.json["paging"]["total_count"], steps.len(), "{name}");
        for (got, (seq, tt, src, tgt, optional)) in o.data().iter().zip(steps) {
            assert_eq!(
                keys(got),
                [
                    "transaction_template_step_id",
                    "transaction_template_id",
                    "transfer_type_id",
                    "sequence",
                    "wait_to_complete",
                    "is_optional",
                    "source_customer_type_ids",
                    "target_customer_type_ids",
                    "destination_id",
                    "account_code_id",
                    "parameter_mapping",
                    "created_by",
                    "created_datetime",
                    "modified_by",
                    "modified_datetime"
                ]
            );
            assert!(
                got["transaction_template_step_id"]
                    .as_str()
                    .unwrap()
                    .starts_with("tts_")
            );
            assert_eq!(got["transaction_template_id"], trt.as_str());
            assert_eq!(got["sequence"], seq, "{name}");
            assert_eq!(got["transfer_type_id"], tt, "{name} {seq}");
            assert_eq!(got["is_optional"], optional, "{name} {seq}");
            assert_eq!(
                got["parameter_mapping"],
                json!({"source": src, "target": tgt}),
                "{name} {seq}"
            );
        }
    }
}

#[test]
fn catalog_lists_page() {
    let env = Env::new();
    let app = application_id(&env);
    let o = env.run(&["template", "list", &app, "--page-size", "2"]);
    ok(&o);
    assert_eq!(o.data().len(), 2);
    assert_eq!(o.json["paging"]["total_count"], 5);
    assert_eq!(o.json["paging"]["page_size"], 2);
    let key = o.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        key,
        o.data()[1]["transaction_template_id"].as_str().unwrap()
    );
    let o = env.run(&[
        "template",
        "list",
        &app,
        "--page-size",
        "2",
        "--after",
        &key,
    ]);
    ok(&o);
    assert_eq!(
        o.data()[0]["transaction_template_name"],
        "internal_transfer"
    );
    let o = env.run(&[
        "template",
        "list",
        &app,
        "--page-size",
        "2",
        "--page-number",
        "3",
    ]);
    ok(&o);
    assert_eq!(o.data().len(), 1);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    let o = env.run(&["template", "list", &app, "--page-size", "5"]);
    assert_eq!(ok(&o).data().len(), 5);
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
    // Paging flags are checked by the parser (exit 2).
    assert_eq!(env.run(&["program", "list", "--page-size", "0"]).code, 2);
    assert_eq!(env.run(&["program", "list", "--page-size", "1001"]).code, 2);
    assert_eq!(
        ok(&env.run(&["program", "list", "--page-size", "1000"]))
            .data()
            .len(),
        1
    );
}

#[test]
fn unknown_or_malformed_catalog_ids_are_not_found() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-unknown");
    let before = env.snapshot();
    for args in [
        vec!["program", "applications", "prm_doesnotexist"],
        vec!["program", "applications", "../../etc/passwd"],
        vec!["program", "applications", ""],
        vec!["template", "list", "app_doesnotexist"],
        vec!["template", "list", &prm],
        vec!["template", "steps", "trt_doesnotexist"],
        vec!["template", "steps", "trt_../x"],
        vec!["program", "profiles", "prm_doesnotexist"],
        vec!["program", "profile", "prm_doesnotexist", &csp],
        vec!["program", "attach", "prm_doesnotexist", &csp],
    ] {
        env.run(&args).refused(1, 20001);
    }
    assert_eq!(env.snapshot(), before, "refusals changed the store");
}

#[test]
fn attach_creates_a_pending_record() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-attach");
    let o = attach(&env, &prm, &csp, Some("new member"));
    assert_eq!(o.id(), csp);
    assert!(o.json["paging"].is_null());
    let r = record(&env, &prm, &csp);
    assert_eq!(
        keys(&r),
        [
            "customer_profile_id",
            "program_id",
            "customer_profile_program_status_id",
            "customer_profile_program_status_reason",
            "is_locked",
            "created_by",
            "created_datetime",
            "modified_by",
            "modified_datetime"
        ]
    );
    assert_eq!(r["customer_profile_id"], csp.as_str());
    assert_eq!(r["program_id"], prm.as_str());
    assert_eq!(r["customer_profile_program_status_id"], 1);
    assert_eq!(r["customer_profile_program_status_reason"], "new member");
    assert_eq!(r["is_locked"], false);
    assert_eq!(r["created_by"], "tester");
    assert_eq!(r["modified_by"], "tester");

    let o = env.run(&["program", "profiles", &prm]);
    ok(&o);
    assert_eq!(o.json["paging"]["total_count"], 1);
    assert_eq!(o.data()[0], r);
    // -o id gives the profile ids.
    let mut c = env.cmd();
    c.args(["-o", "id", "program", "profiles", &prm]);
    let out = c.output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), csp);
}

#[test]
fn attach_without_reason_stores_an_empty_reason() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-noreason");
    ok(&attach(&env, &prm, &csp, None));
    assert_eq!(
        record(&env, &prm, &csp)["customer_profile_program_status_reason"],
        ""
    );
}

#[test]
fn attach_again_is_refused_while_pending_and_once_attached() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-twice");
    ok(&attach(&env, &prm, &csp, Some("first")));
    let before = env.snapshot();
    let o = attach(&env, &prm, &csp, Some("second"));
    o.refused(1, 21001);
    assert_eq!(
        o.json["errors"],
        json!([{"code": 21001, "message": "Customer Profile already attached to the program"}])
    );
    assert_eq!(env.snapshot(), before);

    ok(&env.run(&["worker"]));
    assert_eq!(
        record(&env, &prm, &csp)["customer_profile_program_status_id"],
        10
    );
    let before = env.snapshot();
    attach(&env, &prm, &csp, None).refused(1, 21001);
    assert_eq!(env.snapshot(), before);
    assert_eq!(
        record(&env, &prm, &csp)["customer_profile_program_status_reason"],
        "first"
    );
}

#[test]
fn attach_of_an_unknown_profile_is_not_found() {
    let env = Env::new();
    let prm = env.program_id();
    let before = env.snapshot();
    attach(&env, &prm, "csp_doesnotexist", None).refused(1, 20001);
    attach(&env, &prm, "csp_../../x", None).refused(1, 20001);
    assert_eq!(env.snapshot(), before);
}

#[test]
fn attach_takes_the_spec_body() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("cust-body-a");
    let b = env.create_profile("cust-body-b");
    let o = env.body(
        &["program", "attach", &prm],
        &json!({"customer_profile_id": a, "customer_profile_program_status_reason": "from body"}),
    );
    assert_eq!(o.id(), a);
    assert_eq!(
        record(&env, &prm, &a)["customer_profile_program_status_reason"],
        "from body"
    );
    // The argument and the body may both name the profile when they agree;
    // --reason wins over the body's reason.
    let o = env.body(
        &["program", "attach", &prm, &b, "--reason", "flag"],
        &json!({"customer_profile_id": b, "customer_profile_program_status_reason": "body"}),
    );
    assert_eq!(o.id(), b);
    assert_eq!(
        record(&env, &prm, &b)["customer_profile_program_status_reason"],
        "flag"
    );
}

#[test]
fn attach_body_errors_are_all_reported_and_change_nothing() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("cust-bad-a");
    let b = env.create_profile("cust-bad-b");
    let before = env.snapshot();
    // The argument and the body disagree.
    env.body(
        &["program", "attach", &prm, &a],
        &json!({"customer_profile_id": b}),
    )
    .refused(1, 10001)
    .mentions("customer_profile_id");
    // No profile at all.
    env.body(&["program", "attach", &prm], &json!({}))
        .refused(1, 10002)
        .mentions("customer_profile_id");
    env.run(&["program", "attach", &prm]).refused(1, 10002);
    // Every problem at once: unknown field, wrong type.
    let o = env.body(
        &["program", "attach", &prm],
        &json!({"customer_profile_id": 5, "reason": "x"}),
    );
    o.refused(1, 10005).mentions("customer_profile_id");
    o.refused(1, 10004)
        .mentions("customer_profile_program_status_reason");
    env.body(
        &["program", "attach", &prm, &a],
        &json!({"customer_profile_program_status_reason": ["x"]}),
    )
    .refused(1, 10005);
    // The reason: at most 256 characters.
    attach(&env, &prm, &a, Some(&"r".repeat(257)))
        .refused(1, 10001)
        .mentions("customer_profile_program_status_reason");
    // Not a JSON object.
    env.body(&["program", "attach", &prm, &a], &json!([1]))
        .refused(1, 10005);
    assert_eq!(env.snapshot(), before);
    ok(&attach(&env, &prm, &a, Some(&"é".repeat(256))));
}

#[test]
fn profile_not_attached_is_invalid_value() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-notatt");
    let before = env.snapshot();
    for id in [csp.as_str(), "csp_doesnotexist", "nonsense"] {
        let o = env.run(&["program", "profile", &prm, id]);
        o.refused(1, 10001);
        assert_eq!(o.codes(), [10001]);
        // The spec's message, exactly.
        assert_eq!(o.messages()[0], "Invalid Value", "{o:?}");
    }
    assert_eq!(env.snapshot(), before);
    let o = env.run(&["program", "profiles", &prm]);
    assert_eq!(ok(&o).data().len(), 0);
    assert_eq!(o.json["paging"]["total_count"], 0);
}

#[test]
fn profiles_lists_the_program_records_with_paging() {
    let env = Env::new();
    let prm = env.program_id();
    let ids: Vec<String> = (0..5)
        .map(|i| env.create_profile(&format!("cust-list-{i}")))
        .collect();
    // Attach in reverse creation order; the list follows the attach order.
    for id in ids.iter().rev().skip(1) {
        ok(&attach(&env, &prm, id, None));
    }
    let o = env.run(&["program", "profiles", &prm, "--page-size", "3"]);
    ok(&o);
    assert_eq!(o.json["paging"]["total_count"], 4);
    let got: Vec<&str> = o
        .data()
        .iter()
        .map(|r| r["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, [&ids[3], &ids[2], &ids[1]]);
    let key = o.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(key, ids[1]);
    let o = env.run(&[
        "program",
        "profiles",
        &prm,
        "--page-size",
        "3",
        "--after",
        &key,
    ]);
    ok(&o);
    assert_eq!(o.data().len(), 1);
    assert_eq!(o.data()[0]["customer_profile_id"], ids[0].as_str());
    assert!(o.json["paging"]["last_evaluated_key"].is_null());
}

#[test]
fn a_rejected_attachment_may_be_attached_again() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-rejected");
    ok(&attach(&env, &prm, &csp, Some("first")));
    ok(&env.run(&["worker"]));
    // The worker rejects only for reasons the CLI cannot cause; set it by hand.
    let path = env.customer_file(&csp);
    let mut c: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    c["attachments"][0]["customer_profile_program_status_id"] = json!(20);
    c["attachments"][0]["customer_profile_program_status_reason"] =
        json!("refused by the platform");
    std::fs::write(&path, serde_json::to_vec(&c).unwrap()).unwrap();
    let r = record(&env, &prm, &csp);
    assert_eq!(r["customer_profile_program_status_id"], 20);

    assert_eq!(attach(&env, &prm, &csp, Some("second")).id(), csp);
    let again = record(&env, &prm, &csp);
    assert_eq!(again["customer_profile_program_status_id"], 1);
    assert_eq!(again["customer_profile_program_status_reason"], "second");
    assert_eq!(again["created_datetime"], r["created_datetime"]);
    attach(&env, &prm, &csp, None).refused(1, 21001);
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).data()[0]["attachments_processed"], 1);
    assert_eq!(
        record(&env, &prm, &csp)["customer_profile_program_status_id"],
        10
    );
}

#[test]
fn concurrent_attach_of_one_profile_succeeds_once() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("cust-race");
    let outs: Vec<Out> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (env, prm, csp) = (&env, &prm, &csp);
                s.spawn(move || attach(env, prm, csp, Some(&format!("racer {i}"))))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let wins = outs.iter().filter(|o| o.code == 0).count();
    assert_eq!(wins, 1, "{outs:?}");
    for o in outs.iter().filter(|o| o.code != 0) {
        o.refused(1, 21001);
    }
    let o = env.run(&["program", "profiles", &prm]);
    assert_eq!(ok(&o).data().len(), 1);
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).data()[0]["attachments_processed"], 1);
}

fn custom_catalog() -> Value {
    json!({
        "facilitator": {"min_age": 21, "max_age": 99},
        "programs": [{
            "program_name": "gold",
            "program_display_name": "Gold",
            "applications": [{
                "application_name": "payouts",
                "transaction_templates": [{
                    "transaction_template_name": "two_step",
                    "steps": [
                        {"sequence": 2, "transfer_type_id": 3, "is_optional": true,
                         "destination_id": 4, "account_code_id": 2,
                         "parameter_mapping": {"source": "@source_customers", "target": "@facilitator"}},
                        {"sequence": 1, "transfer_type_id": 1,
                         "destination_id": 1, "account_code_id": 1,
                         "parameter_mapping": {"source": "@source_customers", "target": null}}
                    ]
                }]
            }]
        }, {
            "program_id": "prm_silver0000000000001",
            "program_name": "silver",
            "applications": [{"application_name": "checks", "transaction_templates": [{
                "transaction_template_name": "pay_check",
                "steps": [{"sequence": 1, "transfer_type_id": 4, "wait_to_complete": true,
                           "destination_id": 5, "account_code_id": 1,
                           "parameter_mapping": {"source": null, "target": "@target_checks"}}]
            }]}]
        }]
    })
}

fn init_with(env: &Env, catalog: &Value) -> Out {
    let file = env.dir.path().join("catalog.json");
    std::fs::write(&file, serde_json::to_vec(catalog).unwrap()).unwrap();
    env.run(&["init", "--catalog", file.to_str().unwrap()])
}

#[test]
fn init_with_a_custom_catalog() {
    let env = Env::new();
    ok(&init_with(&env, &custom_catalog()));
    let o = env.run(&["program", "list"]);
    ok(&o);
    let names: Vec<&str> = o
        .data()
        .iter()
        .map(|p| p["program_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gold", "silver"]);
    assert_eq!(o.data()[1]["program_id"], "prm_silver0000000000001");
    assert_eq!(o.data()[0]["program_display_name"], "Gold");
    let gold = o.data()[0]["program_id"].as_str().unwrap().to_string();
    let o = env.run(&["program", "applications", &gold]);
    let app = ok(&o).data()[0]["application_id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = env.run(&["template", "list", &app]);
    ok(&o);
    assert_eq!(o.data()[0]["transaction_template_name"], "two_step");
    let trt = o.data()[0]["transaction_template_id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = env.run(&["template", "steps", &trt]);
    ok(&o);
    let seqs: Vec<u64> = o
        .data()
        .iter()
        .map(|s| s["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2]);
    assert_eq!(o.data()[1]["is_optional"], true);
    assert_eq!(o.data()[0]["wait_to_complete"], false);
    let o = env.run(&["program", "applications", "prm_silver0000000000001"]);
    assert_eq!(ok(&o).data()[0]["application_name"], "checks");
    // A profile can be attached to a custom program.
    let csp = env.create_profile("cust-gold");
    ok(&attach(&env, &gold, &csp, None));
}

#[test]
fn an_invalid_catalog_is_refused_naming_the_field() {
    let env = Env::new();
    let mut dup = custom_catalog();
    dup["programs"][0]["applications"][0]["transaction_templates"][0]["steps"][0]["sequence"] =
        json!(1);
    let o = init_with(&env, &dup);
    o.refused(1, 10001).mentions("steps[1].sequence");
    assert!(
        !env.path().join("meta.json").exists(),
        "no store may be created"
    );

    let mut tt = custom_catalog();
    tt["programs"][0]["applications"][0]["transaction_templates"][0]["steps"][1]["transfer_type_id"] =
        json!(99);
    init_with(&env, &tt)
        .refused(1, 10001)
        .mentions("steps[1].transfer_type_id");
    assert!(!env.path().join("meta.json").exists());

    let mut bad_id = custom_catalog();
    bad_id["programs"][1]["program_id"] = json!("app_wrongprefix");
    init_with(&env, &bad_id)
        .refused(1, 10001)
        .mentions("programs[1].program_id");

    // Both at once.
    let mut both = dup.clone();
    both["programs"][0]["applications"][0]["transaction_templates"][0]["steps"][1]["transfer_type_id"] =
        json!(0);
    let o = init_with(&env, &both);
    o.mentions("sequence").mentions("transfer_type_id");
    assert!(!env.path().join("meta.json").exists());

    // The valid one still loads afterwards.
    ok(&init_with(&env, &custom_catalog()));
}

/// Names wherever ids are taken: a program by `program_name`, an
/// application by `application_name`, a template by
/// `transaction_template_name` and a transaction status by its name, in
/// positional arguments, flags and HTTP paths alike, answered as with the
/// ids; a miss is 20001 with the closest name, and changes nothing.
#[test]
fn names_are_taken_wherever_ids_are() {
    let env = Env::new();
    let prm = env.program_id();
    let app = application_id(&env);
    let trt = template_id(&env, "ach_funding");
    let csp = env.create_profile("cust-names");
    let same = |by_name: &[&str], by_id: &[&str]| {
        let a = env.run(by_name);
        let b = env.run(by_id);
        ok(&a);
        assert_eq!(a.json, b.json, "{by_name:?} answers as {by_id:?}");
    };
    same(
        &["program", "applications", "default_program"],
        &["program", "applications", &prm],
    );
    same(
        &["template", "list", "payments"],
        &["template", "list", &app],
    );
    same(
        &["template", "steps", "ach_funding"],
        &["template", "steps", &trt],
    );
    ok(&attach(&env, "default_program", &csp, None));
    same(
        &["program", "profiles", "default_program"],
        &["program", "profiles", &prm],
    );
    same(
        &["program", "profile", "default_program", &csp],
        &["program", "profile", &prm, &csp],
    );
    assert_eq!(record(&env, &prm, &csp)["program_id"], prm.as_str());
    ok(&env.run(&["worker"]));
    let mut body = common::ach_instrument_body(
        "default_program",
        "by name",
        true,
        json!([{"key": "via", "value": "name"}]),
    );
    body["program_id"] = json!("default_program");
    let pin = env.body(&["instrument", "create", &csp], &body).id();
    let got = env.run(&["instrument", "get", &csp, &pin]);
    assert_eq!(
        ok(&got).data()[0]["program_id"],
        prm.as_str(),
        "stored as the id"
    );

    // A status by name, in any case; a miss names the closest.
    let src = format!("@source_customers={csp}:10.00");
    ok(&env.run(&common::txn_create_args(&prm, "ach_funding", &[&src])));
    same(
        &["txn", "list", "--status", "Created"],
        &["txn", "list", "--status", "10"],
    );
    let listed = env.run(&["txn", "list", "--status", "created"]);
    assert_eq!(ok(&listed).json["paging"]["total_count"], 1);

    let before = env.snapshot();
    let o = env.run(&["txn", "list", "--status", "Fialed"]);
    o.refused(1, 20001).mentions("did you mean `Failed`");
    let o = env.run(&["program", "attach", "default_progam", &csp]);
    o.refused(1, 20001)
        .mentions("did you mean `default_program`");
    env.run(&["template", "steps", "ach_fundin"])
        .refused(1, 20001)
        .mentions("did you mean `ach_funding`");
    env.run(&["template", "list", "paymnts"])
        .refused(1, 20001)
        .mentions("did you mean `payments`");
    assert_eq!(env.snapshot(), before, "refusals changed nothing");

    // The same names over HTTP.
    let s = common::serve::Server::start(&env, &["--quiet"]);
    let r = s.get("/programs/default_program/applications");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["data"][0]["application_id"], app.as_str());
    let r = s.get("/transactions?status=Created");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["paging"]["total_count"], 1);
    s.get("/transaction-templates/ach_fundin/transaction-template-steps")
        .refused(404, 20001);
}
