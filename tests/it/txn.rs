//! Transactions (spec 2.7, 4.6; CLI.md "Transaction parameters", "The worker")
//! through the binary.

use crate::common;

use std::collections::HashMap;

use common::{Env, Out};
use serde_json::{Value, json};

/// A store with the built-in catalog, its ids by name, and customers.
struct Fx {
    env: Env,
    prm: String,
    app: String,
    /// transaction_template_id by transaction_template_name.
    trt: HashMap<String, String>,
}

impl Fx {
    fn new() -> Self {
        let env = Env::new();
        let prm = env.program_id();
        let apps = env.run(&["program", "applications", &prm]);
        let app = apps.data()[0]["application_id"]
            .as_str()
            .expect("app")
            .to_string();
        let tl = env.run(&["template", "list", &app]);
        let trt = tl
            .data()
            .iter()
            .map(|t| {
                (
                    t["transaction_template_name"].as_str().unwrap().to_string(),
                    t["transaction_template_id"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        Fx { env, prm, app, trt }
    }

    fn trt(&self, name: &str) -> &str {
        &self.trt[name]
    }

    /// A profile whose attachment to the default program is still Pending.
    fn pending(&self, key: &str) -> String {
        let csp = self.env.create_profile(key);
        self.env
            .run(&[
                "program",
                "attach",
                &self.prm,
                &csp,
                "--reason",
                "onboarding",
            ])
            .id();
        csp
    }

    /// A profile Attached to the default program.
    fn attached(&self, key: &str) -> String {
        let csp = self.pending(key);
        self.worker();
        csp
    }

    /// An Active instrument of `type_id` (1 Funding, 2 Withdrawal) for `csp`.
    fn instrument(&self, csp: &str, type_id: u32) -> String {
        let b = json!({
            "payment_instrument_tags": [{"key": "source", "value": "onboarding"}],
            "payment_instrument_type_id": type_id,
            "payment_method_id": 1,
            "is_default": true,
            "payment_instrument_label": "Main checking",
            "payment_instrument_change_reason": "Initial setup",
            "program_id": self.prm,
            "payment_instrument_ach": {
                "account_number": "000123456789",
                "routing_number": "021000021",
                "payment_instrument_ach_type_id": 2
            }
        });
        self.env.body(&["instrument", "create", csp], &b).id()
    }

    fn worker(&self) -> Value {
        let w = self.env.run(&["worker"]);
        assert_eq!(w.code, 0, "{w:?}");
        w.data()[0].clone()
    }

    /// A create body for template `name` with `params` as (name, values).
    fn body(&self, name: &str, params: &[(&str, Value)]) -> Value {
        json!({
            "program_id": self.prm,
            "application_id": self.app,
            "transaction_template_id": self.trt(name),
            "transaction_status_reason": "test",
            "transaction_tags": [{"key": "order", "value": "A-1"}],
            "transaction_parameters": params
                .iter()
                .map(|(n, v)| json!({"transaction_parameter_name": n, "transaction_parameter_values": v}))
                .collect::<Vec<_>>()
        })
    }

    fn create(&self, b: &Value) -> Out {
        self.env.body(&["txn", "create"], b)
    }

    /// Refused with exit 1 and `api` mentioning `text`; the store unchanged.
    fn refused(&self, b: &Value, api: u64, text: &str) -> Out {
        let before = self.env.snapshot();
        let o = self.create(b);
        o.refused(1, api).mentions(text);
        assert_eq!(
            before,
            self.env.snapshot(),
            "a refused create changed the store"
        );
        o
    }

    fn accepted(&self, b: &Value) -> String {
        let o = self.create(b);
        assert_eq!(o.code, 0, "expected success: {o:?}");
        o.id()
    }

    fn get(&self, trn: &str) -> Value {
        let o = self.env.run(&["txn", "get", trn]);
        assert_eq!(o.code, 0, "{o:?}");
        o.data()[0].clone()
    }

    fn params(&self, trn: &str) -> Vec<Value> {
        let o = self.env.run(&["txn", "parameters", trn]);
        assert_eq!(o.code, 0, "{o:?}");
        o.data().clone()
    }

    fn steps(&self, trn: &str) -> Vec<Value> {
        let o = self.env.run(&["txn", "steps", trn]);
        assert_eq!(o.code, 0, "{o:?}");
        o.data().clone()
    }
}

fn cust(csp: &str, amount: Value) -> Value {
    json!({"customer_profile_id": csp, "amount": amount})
}

fn check() -> Value {
    json!({
        "amount": 250,
        "first_name": "Ada",
        "last_name": "Lovelace",
        "address_line1": "1 Main St",
        "address_line2": "Apt 2",
        "city": "Springfield",
        "state_id": 5,
        "zip": "12345",
        "country_id": 1,
        "check_note": "Thanks"
    })
}

/// `v` with `field` set (or removed when `x` is None).
fn with(v: &Value, field: &str, x: Option<Value>) -> Value {
    let mut v = v.clone();
    let m = v.as_object_mut().unwrap();
    match x {
        Some(x) => m.insert(field.to_string(), x),
        None => m.remove(field),
    };
    v
}

/// The amount of value `j` of parameter `name`, as its exact JSON text.
fn amount_text(params: &[Value], name: &str, j: usize) -> String {
    let p = params
        .iter()
        .find(|p| p["transaction_parameter_name"] == name)
        .unwrap_or_else(|| panic!("no parameter {name}: {params:?}"));
    p["transaction_parameter_values"][j]["amount"].to_string()
}

fn statuses(steps: &[Value]) -> Vec<u64> {
    steps
        .iter()
        .map(|s| s["transaction_step_status_id"].as_u64().unwrap())
        .collect()
}

const VP: &str = "transaction_parameters[0].transaction_parameter_values[0]";

// ------------------------------------------------------------------ create

#[test]
fn create_from_body_starts_created_without_steps() {
    let fx = Fx::new();
    let csp = fx.attached("cust-0001");
    let b = fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&csp, json!(100.25))]))],
    );
    let trn = fx.accepted(&b);
    assert!(trn.starts_with("trn_"), "{trn}");
    let t = fx.get(&trn);
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "transaction_id",
            "program_id",
            "application_id",
            "transaction_template_id",
            "transaction_status_id",
            "transaction_status_reason",
            "transaction_tags",
            "created_by",
            "created_datetime",
            "modified_by",
            "modified_datetime"
        ]
    );
    assert_eq!(t["transaction_id"], trn);
    assert_eq!(t["program_id"], fx.prm);
    assert_eq!(t["application_id"], fx.app);
    assert_eq!(t["transaction_template_id"], fx.trt("ach_funding"));
    assert_eq!(t["transaction_status_id"], 10);
    assert_eq!(t["transaction_status_reason"], "test");
    assert_eq!(
        t["transaction_tags"],
        json!([{"key": "order", "value": "A-1"}])
    );
    assert_eq!(t["created_by"], "tester");
    assert_eq!(fx.steps(&trn), Vec::<Value>::new());
}

#[test]
fn create_from_flags_with_names() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let b = fx.attached("cust-0002");
    let o = fx.env.run(&[
        "txn",
        "create",
        "--program",
        "default_program",
        "--application",
        "payments",
        "--template",
        "internal_transfer",
        "--param",
        &format!("@source_customers={a}:100.25"),
        "--param",
        &format!("targets={b}:60.25"),
        "--param",
        &format!("@targets={a}:40"),
        "--param",
        "@facilitator=0.01",
        "--reason",
        "monthly",
        "--tag",
        "order=A-1",
    ]);
    let trn = o.id();
    let t = fx.get(&trn);
    assert_eq!(t["program_id"], fx.prm);
    assert_eq!(t["application_id"], fx.app);
    assert_eq!(t["transaction_template_id"], fx.trt("internal_transfer"));
    assert_eq!(t["transaction_status_reason"], "monthly");
    assert_eq!(
        t["transaction_tags"],
        json!([{"key": "order", "value": "A-1"}])
    );
    let p = fx.params(&trn);
    let names: Vec<&str> = p
        .iter()
        .map(|p| p["transaction_parameter_name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["@source_customers", "@targets", "@facilitator"]);
    assert_eq!(amount_text(&p, "@source_customers", 0), "100.25");
    assert_eq!(amount_text(&p, "@targets", 0), "60.25");
    assert_eq!(amount_text(&p, "@targets", 1), "40");
    assert_eq!(
        p[1]["transaction_parameter_values"][1]["customer_profile_id"],
        a
    );
    assert_eq!(amount_text(&p, "@facilitator", 0), "0.01");
}

#[test]
fn create_with_ids_as_flags_and_output_id() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let o = fx.env.run(&[
        "txn",
        "create",
        "--program",
        &fx.prm,
        "--application",
        &fx.app,
        "--template",
        fx.trt("ach_funding"),
        "--param",
        &format!("@source_customers={a}:5"),
        "-o",
        "id",
    ]);
    assert_eq!(o.code, 0, "{o:?}");
    let trn = o.stdout.trim();
    assert!(trn.starts_with("trn_"), "{o:?}");
    assert_eq!(fx.get(trn)["transaction_status_reason"], Value::Null);
}

#[test]
fn flags_override_the_body() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let b = fx.body(
        "ach_withdrawal",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    );
    let o = fx.env.run_with(
        &[
            "txn",
            "create",
            "--body",
            "-",
            "--template",
            "ach_funding",
            "--param",
            &format!("@source_customers={a}:7.5"),
            "--reason",
            "flag",
        ],
        Some(b.to_string().as_bytes()),
    );
    let trn = o.id();
    let t = fx.get(&trn);
    assert_eq!(t["transaction_template_id"], fx.trt("ach_funding"));
    assert_eq!(t["transaction_status_reason"], "flag");
    let p = fx.params(&trn);
    assert_eq!(p.len(), 1);
    assert_eq!(
        p[0]["transaction_parameter_values"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(amount_text(&p, "@source_customers", 0), "7.5");
}

#[test]
fn check_flag_builds_a_target_checks_value() {
    let fx = Fx::new();
    let o = fx.env.run(&[
        "txn",
        "create",
        "--program",
        "default_program",
        "--application",
        "payments",
        "--template",
        "check_payout",
        "--check",
        "250.00;organization_name=Acme Inc;address_line1=1 Main St;city=Springfield;state_id=IL;zip=62701;check_note=March",
    ]);
    let trn = o.id();
    let p = fx.params(&trn);
    let v = &p[0]["transaction_parameter_values"][0];
    assert_eq!(p[0]["transaction_parameter_name"], "@target_checks");
    assert_eq!(v["amount"].to_string(), "250.00");
    assert_eq!(v["organization_name"], "Acme Inc");
    assert_eq!(v["country_id"], 1);
    assert_eq!(v["first_name"], Value::Null);
    assert_eq!(v["check_note"], "March");
    // Illinois in the states dictionary.
    let states = fx.env.run(&["dict", "list", "states"]);
    let il = states
        .data()
        .iter()
        .find(|s| s["state_short_name"] == "IL")
        .unwrap();
    assert_eq!(v["state_id"], il["state_id"]);
}

#[test]
fn malformed_flags_are_usage_errors() {
    let fx = Fx::new();
    for bad in [
        vec!["--param", "@source_customers=csp_x:1,5"],
        vec!["--param", "@facilitator"],
        vec!["--param", "@facilitator=abc"],
        vec!["--check", "first_name=A"],
        vec!["--check", "1;state_id=ZZ"],
    ] {
        let before = fx.env.snapshot();
        let mut args = vec!["txn", "create", "--template", "ach_funding"];
        args.extend(bad.iter());
        let o = fx.env.run(&args);
        assert_eq!(o.code, 2, "{bad:?}: {o:?}");
        assert_eq!(before, fx.env.snapshot());
    }
}

// ------------------------------------------------------------------ validation

#[test]
fn required_fields_all_at_once() {
    let fx = Fx::new();
    let o = fx.refused(&json!({}), 10002, "program_id");
    for f in [
        "program_id",
        "application_id",
        "transaction_template_id",
        "transaction_parameters",
    ] {
        o.mentions(&format!("{f}: is required"));
    }
    assert_eq!(o.codes(), [10002, 10002, 10002, 10002]);
    fx.refused(&json!([]), 10005, "body");
    let o = fx
        .env
        .run_with(&["txn", "create", "--body", "-"], Some(b"{not json"));
    o.refused(1, 10005);
}

#[test]
fn unknown_program_application_template() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let ok = fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    );
    fx.accepted(&ok);
    fx.refused(
        &with(&ok, "program_id", Some(json!("prm_nope"))),
        10001,
        "program_id",
    );
    fx.refused(
        &with(&ok, "application_id", Some(json!("app_nope"))),
        10001,
        "application_id",
    );
    fx.refused(
        &with(&ok, "transaction_template_id", Some(json!("trt_nope"))),
        10001,
        "transaction_template_id",
    );
    fx.refused(
        &with(&ok, "program_id", Some(json!(12))),
        10005,
        "program_id",
    );
    // Names work in the body too.
    let named = with(
        &with(&ok, "program_id", Some(json!("default_program"))),
        "transaction_template_id",
        Some(json!("ach_funding")),
    );
    fx.accepted(&named);
}

#[test]
fn application_must_belong_to_program_and_template_to_application() {
    let env = Env::new();
    let catalog = json!({
        "programs": [
            {"program_id": "prm_one", "program_name": "one", "applications": [
                {"application_id": "app_one", "application_name": "a1", "transaction_templates": [
                    {"transaction_template_id": "trt_one", "transaction_template_name": "fund", "steps": [
                        {"sequence": 1, "transfer_type_id": 3, "destination_id": 1, "account_code_id": 1,
                         "parameter_mapping": {"source": "@facilitator", "target": null}}]}]}]},
            {"program_id": "prm_two", "program_name": "two", "applications": [
                {"application_id": "app_two", "application_name": "a2", "transaction_templates": [
                    {"transaction_template_id": "trt_two", "transaction_template_name": "fund", "steps": [
                        {"sequence": 1, "transfer_type_id": 3, "destination_id": 1, "account_code_id": 1,
                         "parameter_mapping": {"source": "@facilitator", "target": null}}]}]}]}
        ]
    });
    let file = env.dir.path().join("catalog.json");
    std::fs::write(&file, catalog.to_string()).unwrap();
    let o = env.run(&["init", "--catalog", file.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{o:?}");
    let body = |p: &str, a: &str, t: &str| {
        json!({"program_id": p, "application_id": a, "transaction_template_id": t,
               "transaction_parameters": [{"transaction_parameter_name": "@facilitator",
                                           "transaction_parameter_values": [{"amount": 1}]}]})
    };
    let create = |b: Value| env.body(&["txn", "create"], &b);
    assert_eq!(create(body("prm_one", "app_one", "trt_one")).code, 0);
    assert_eq!(create(body("prm_two", "app_two", "trt_two")).code, 0);
    // The name `fund` resolves within the application.
    let trn = create(body("two", "a2", "fund")).id();
    let t = env.run(&["txn", "get", &trn]);
    assert_eq!(t.data()[0]["transaction_template_id"], "trt_two");
    let before = env.snapshot();
    create(body("prm_one", "app_two", "trt_two"))
        .refused(1, 10001)
        .mentions("application_id: does not belong to the program prm_one");
    create(body("prm_one", "app_one", "trt_two"))
        .refused(1, 10001)
        .mentions("transaction_template_id: does not belong to the application app_one");
    assert_eq!(before, env.snapshot());
}

#[test]
fn parameter_names_must_be_mapped_by_the_template() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let src = ("@source_customers", json!([cust(&a, json!(1))]));
    // @facilitator is mapped by internal_transfer (optional step) but not by ach_funding.
    fx.accepted(&fx.body(
        "internal_transfer",
        &[
            src.clone(),
            ("@targets", json!([cust(&a, json!(1))])),
            ("@facilitator", json!([{"amount": 1}])),
        ],
    ));
    fx.refused(
        &fx.body("ach_funding", &[src.clone(), ("@facilitator", json!([{"amount": 1}]))]),
        10001,
        "transaction_parameters[1].transaction_parameter_name: is not a parameter of the template ach_funding",
    );
    fx.refused(
        &fx.body(
            "ach_funding",
            &[src.clone(), ("@nobody", json!([{"amount": 1}]))],
        ),
        10001,
        "transaction_parameters[1].transaction_parameter_name",
    );
    // A name given twice.
    fx.refused(
        &fx.body("ach_funding", &[src.clone(), src.clone()]),
        10001,
        "transaction_parameters[1].transaction_parameter_name: is given twice",
    );
    // Name missing.
    let mut b = fx.body("ach_funding", std::slice::from_ref(&src));
    b["transaction_parameters"][0]
        .as_object_mut()
        .unwrap()
        .remove("transaction_parameter_name");
    fx.refused(
        &b,
        10002,
        "transaction_parameters[0].transaction_parameter_name: is required",
    );
}

#[test]
fn steps_that_are_not_optional_need_their_parameters() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let src = ("@source_customers", json!([cust(&a, json!(1))]));
    let tgt = ("@targets", json!([cust(&a, json!(1))]));
    // internal_transfer: step 1 needs @source_customers and @targets; step 2 (optional) @facilitator.
    fx.accepted(&fx.body("internal_transfer", &[src.clone(), tgt.clone()]));
    fx.refused(
        &fx.body("internal_transfer", std::slice::from_ref(&src)),
        10002,
        "must include the parameter @targets",
    );
    let o = fx.refused(
        &fx.body("internal_transfer", &[]),
        10002,
        "must include the parameter @source_customers",
    );
    o.mentions("must include the parameter @targets");
    // Present with no value.
    fx.refused(
        &fx.body("internal_transfer", &[src.clone(), ("@targets", json!([]))]),
        10002,
        "transaction_parameters[1].transaction_parameter_values: must hold at least one value",
    );
    let mut b = fx.body("internal_transfer", &[src.clone(), tgt.clone()]);
    b["transaction_parameters"][1]
        .as_object_mut()
        .unwrap()
        .remove("transaction_parameter_values");
    fx.refused(
        &b,
        10002,
        "transaction_parameters[1].transaction_parameter_values: is required",
    );
    // Missing transaction_parameters altogether.
    let b = with(&fx.body("ach_funding", &[]), "transaction_parameters", None);
    fx.refused(&b, 10002, "transaction_parameters: is required");
}

#[test]
fn customers_must_exist_and_be_attached() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let pending = fx.pending("cust-0002");
    let never = fx.env.create_profile("cust-0003");
    let body = |csp: &str| {
        fx.body(
            "ach_funding",
            &[("@source_customers", json!([cust(csp, json!(1))]))],
        )
    };
    fx.accepted(&body(&a));
    let o = fx.refused(
        &body(&pending),
        21004,
        &format!("{VP}.customer_profile_id: Customer Profile not attached to the program"),
    );
    assert_eq!(o.codes(), [21004]);
    fx.refused(
        &body(&never),
        21004,
        "Customer Profile not attached to the program",
    );
    fx.refused(
        &body("csp_doesnotexist0000000"),
        10001,
        &format!("{VP}.customer_profile_id: is not a customer profile"),
    );
    fx.refused(&body("../etc/passwd"), 10001, "customer_profile_id");
    // @targets too.
    fx.refused(
        &fx.body(
            "ach_withdrawal",
            &[("@targets", json!([cust(&pending, json!(1))]))],
        ),
        21004,
        "customer_profile_id",
    );
    // Missing customer_profile_id or amount.
    fx.refused(
        &fx.body(
            "ach_funding",
            &[("@source_customers", json!([{"amount": 1}]))],
        ),
        10002,
        &format!("{VP}.customer_profile_id: is required"),
    );
    fx.refused(
        &fx.body(
            "ach_funding",
            &[("@source_customers", json!([{"customer_profile_id": a}]))],
        ),
        10002,
        &format!("{VP}.amount: is required"),
    );
    // Check fields do not belong to customer values; nulls are fine.
    fx.refused(
        &fx.body(
            "ach_funding",
            &[(
                "@source_customers",
                json!([with(&cust(&a, json!(1)), "city", Some(json!("X")))]),
            )],
        ),
        10001,
        &format!("{VP}.city: is not used by @source_customers values"),
    );
    fx.refused(
        &fx.body(
            "ach_funding",
            &[(
                "@source_customers",
                json!([with(&cust(&a, json!(1)), "account_id", Some(json!("x")))]),
            )],
        ),
        10001,
        &format!("{VP}.account_id"),
    );
    fx.accepted(&fx.body(
        "ach_funding",
        &[(
            "@source_customers",
            json!([with(
                &with(&cust(&a, json!(1)), "city", Some(Value::Null)),
                "account_id",
                Some(Value::Null)
            )]),
        )],
    ));
}

#[test]
fn facilitator_values_carry_an_amount_only() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let body = |f: Value| {
        fx.body(
            "internal_transfer",
            &[
                ("@source_customers", json!([cust(&a, json!(1))])),
                ("@targets", json!([cust(&a, json!(1))])),
                ("@facilitator", json!([f])),
            ],
        )
    };
    fx.accepted(&body(json!({"amount": 2.5})));
    fx.accepted(&body(
        json!({"amount": 2.5, "customer_profile_id": null, "first_name": null}),
    ));
    let fp = "transaction_parameters[2].transaction_parameter_values[0]";
    fx.refused(
        &body(json!({"amount": 2.5, "customer_profile_id": a})),
        10001,
        &format!("{fp}.customer_profile_id: is not used by @facilitator values"),
    );
    fx.refused(
        &body(json!({"amount": 2.5, "first_name": "A"})),
        10001,
        &format!("{fp}.first_name"),
    );
    fx.refused(
        &body(json!({})),
        10002,
        &format!("{fp}.amount: is required"),
    );
}

#[test]
fn check_values() {
    let fx = Fx::new();
    let cp = VP;
    let body = |v: Value| fx.body("check_payout", &[("@target_checks", json!([v]))]);
    let c = check();
    fx.accepted(&body(c.clone()));
    // Payee: an organization alone is enough; so are both names.
    let org = with(
        &with(&with(&c, "first_name", None), "last_name", None),
        "organization_name",
        Some(json!("Acme")),
    );
    fx.accepted(&body(org.clone()));
    fx.refused(
        &body(with(&org, "organization_name", None)),
        10002,
        &format!("{cp}.first_name: a check needs a payee"),
    );
    fx.refused(
        &body(with(&c, "last_name", None)),
        10002,
        &format!("{cp}.last_name: is required with first_name"),
    );
    fx.refused(
        &body(with(&c, "first_name", None)),
        10002,
        &format!("{cp}.first_name: is required with last_name"),
    );
    // Names 1-50.
    for f in ["first_name", "last_name"] {
        fx.accepted(&body(with(&c, f, Some(json!("a".repeat(50))))));
        fx.refused(
            &body(with(&c, f, Some(json!("a".repeat(51))))),
            10001,
            &format!("{cp}.{f}: must be 1-50"),
        );
        fx.refused(
            &body(with(&c, f, Some(json!("")))),
            10001,
            &format!("{cp}.{f}: must be 1-50"),
        );
    }
    fx.accepted(&body(with(
        &org,
        "organization_name",
        Some(json!("é".repeat(50))),
    )));
    fx.refused(
        &body(with(&org, "organization_name", Some(json!("é".repeat(51))))),
        10001,
        "organization_name",
    );
    // Address lines.
    fx.accepted(&body(with(
        &c,
        "address_line1",
        Some(json!("a".repeat(256))),
    )));
    fx.refused(
        &body(with(&c, "address_line1", Some(json!("a".repeat(257))))),
        10001,
        &format!("{cp}.address_line1"),
    );
    fx.refused(
        &body(with(&c, "address_line1", Some(json!("")))),
        10001,
        &format!("{cp}.address_line1"),
    );
    fx.refused(
        &body(with(&c, "address_line1", None)),
        10002,
        &format!("{cp}.address_line1: is required"),
    );
    fx.accepted(&body(with(&c, "address_line2", None)));
    fx.accepted(&body(with(&c, "address_line2", Some(json!("")))));
    fx.accepted(&body(with(
        &c,
        "address_line2",
        Some(json!("a".repeat(256))),
    )));
    fx.refused(
        &body(with(&c, "address_line2", Some(json!("a".repeat(257))))),
        10001,
        &format!("{cp}.address_line2"),
    );
    // City 1-50.
    fx.accepted(&body(with(&c, "city", Some(json!("a".repeat(50))))));
    fx.refused(
        &body(with(&c, "city", Some(json!("a".repeat(51))))),
        10001,
        &format!("{cp}.city"),
    );
    fx.refused(
        &body(with(&c, "city", None)),
        10002,
        &format!("{cp}.city: is required"),
    );
    // State of country 1.
    fx.accepted(&body(with(&c, "state_id", Some(json!(1)))));
    fx.refused(
        &body(with(&c, "state_id", Some(json!(0)))),
        10001,
        &format!("{cp}.state_id"),
    );
    fx.refused(
        &body(with(&c, "state_id", Some(json!(99999)))),
        10001,
        &format!("{cp}.state_id"),
    );
    fx.refused(
        &body(with(&c, "state_id", Some(json!("5")))),
        10005,
        &format!("{cp}.state_id"),
    );
    fx.refused(
        &body(with(&c, "state_id", None)),
        10002,
        &format!("{cp}.state_id: is required"),
    );
    // Zip.
    for z in ["12345", "12345-6789"] {
        fx.accepted(&body(with(&c, "zip", Some(json!(z)))));
    }
    for z in ["1234", "123456", "12345-678", "12345 6789", "abcde"] {
        fx.refused(
            &body(with(&c, "zip", Some(json!(z)))),
            10001,
            &format!("{cp}.zip"),
        );
    }
    fx.refused(
        &body(with(&c, "zip", None)),
        10002,
        &format!("{cp}.zip: is required"),
    );
    // Country: required, only 1.
    fx.refused(
        &body(with(&c, "country_id", None)),
        10002,
        &format!("{cp}.country_id: is required"),
    );
    fx.refused(
        &body(with(&c, "country_id", Some(json!(2)))),
        10001,
        &format!("{cp}.country_id"),
    );
    // Check note: optional, up to 256.
    fx.accepted(&body(with(&c, "check_note", None)));
    fx.accepted(&body(with(&c, "check_note", Some(json!("n".repeat(256))))));
    fx.refused(
        &body(with(&c, "check_note", Some(json!("n".repeat(257))))),
        10001,
        &format!("{cp}.check_note"),
    );
    fx.refused(
        &body(with(&c, "check_note", Some(json!(5)))),
        10005,
        &format!("{cp}.check_note"),
    );
    // No customer on a check.
    fx.refused(
        &body(with(&c, "customer_profile_id", Some(json!("csp_abc")))),
        10001,
        &format!("{cp}.customer_profile_id"),
    );
}

#[test]
fn amounts_are_positive_numbers_with_two_decimals() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let body = |amt: Value| {
        fx.body(
            "ach_funding",
            &[("@source_customers", json!([cust(&a, amt)]))],
        )
    };
    let ap = format!("{VP}.amount");
    fx.refused(
        &body(json!("100.25")),
        10005,
        &format!("{ap}: must be a JSON number"),
    );
    fx.refused(&body(json!(true)), 10005, &ap);
    fx.refused(
        &body(json!(0)),
        10001,
        &format!("{ap}: must be greater than 0"),
    );
    fx.refused(
        &body(json!(-1)),
        10001,
        &format!("{ap}: must be greater than 0"),
    );
    fx.refused(
        &body(json!(0.001)),
        10001,
        &format!("{ap}: may have at most 2 decimal places"),
    );
    fx.refused(&body(json!(1.005)), 10001, &ap);
    fx.accepted(&body(json!(0.01)));
    fx.accepted(&body(json!(1.5)));
    // Out of the exact range: refused, never a crash.
    let huge: Value = serde_json::from_str("1e40").unwrap();
    fx.refused(&body(huge), 10001, &ap);
    let huge: Value = serde_json::from_str("123456789012345678901234567890.5").unwrap();
    fx.refused(&body(huge), 10001, &ap);
}

/// Issue 12: amounts are kept exactly or refused, never rounded, whatever
/// their spelling, in a body and in the flags alike.
#[test]
fn amounts_are_exact_or_refused_in_bodies_and_flags() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let ap = format!("{VP}.amount");
    let raw_body = |amt: &str| -> Value {
        let v: Value = serde_json::from_str(amt).unwrap();
        fx.body(
            "ach_funding",
            &[("@source_customers", json!([cust(&a, v)]))],
        )
    };
    let places = format!("{ap}: may have at most 2 decimal places");
    for amt in [
        "1.000000000000000000000000000001",
        "0.000000000000000000000000000001",
        "5.000",
        "0.001",
        "1e-3",
        "1.5e-2",
        "-0.001",
    ] {
        fx.refused(&raw_body(amt), 10001, &places);
    }
    let positive = format!("{ap}: must be greater than 0");
    for amt in ["-0", "-0.0", "0e5", "-1e2"] {
        fx.refused(&raw_body(amt), 10001, &positive);
    }
    for amt in ["1e999999999", "1e99999999999999999999999", "1e27"] {
        let started = std::time::Instant::now();
        fx.refused(
            &raw_body(amt),
            10001,
            &format!("{ap}: is too large to keep exactly"),
        );
        assert!(started.elapsed().as_secs() < 10, "{amt} took too long");
    }
    // Exponent forms are read exactly and kept as their plain value.
    for (amt, kept) in [("1.5E1", "15"), ("1.50e1", "15.0"), ("12345E-2", "123.45")] {
        let trn = fx.accepted(&raw_body(amt));
        assert_eq!(
            amount_text(&fx.params(&trn), "@source_customers", 0),
            kept,
            "{amt}"
        );
    }
    // The flags go through the same rule.
    let flags = |param: String, check: Option<&str>| -> Out {
        let mut args = vec![
            "txn".to_string(),
            "create".into(),
            "--program".into(),
            "default_program".into(),
            "--application".into(),
            "payments".into(),
            "--template".into(),
            "ach_funding".into(),
            "--param".into(),
            param,
        ];
        if let Some(c) = check {
            args.extend(["--check".into(), c.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fx.env.run(&args)
    };
    for amt in [
        "1.000000000000000000000000000001",
        "5.000",
        "0.000000000000000000000000000001",
    ] {
        let before = fx.env.snapshot();
        flags(format!("@source_customers={a}:{amt}"), None)
            .refused(1, 10001)
            .mentions(&places);
        assert_eq!(before, fx.env.snapshot(), "{amt}");
    }
    flags(format!("@source_customers={a}:1e999999999"), None)
        .refused(1, 10001)
        .mentions("is too large to keep exactly");
    let o = flags(format!("@source_customers={a}:+1"), None);
    assert_eq!(o.code, 2, "a leading + is not a number: {o:?}");
    // --check amounts too (a template whose checks are accepted is not
    // needed: the amount is refused whatever else the body holds).
    flags(format!("@source_customers={a}:1"), Some("5.000;first_name=A"))
        .refused(1, 10001)
        .mentions("transaction_parameters[1].transaction_parameter_values[0].amount: may have at most 2 decimal places");
}

#[test]
fn amounts_round_trip_exactly() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    for text in [
        "0.01",
        "100.5",
        "100.50",
        "12345678901234567890.12",
        "7",
        "99999999999999999999999999.99",
        "1.00",
    ] {
        let amount: Value = serde_json::from_str(text).unwrap();
        let trn = fx.accepted(&fx.body(
            "ach_funding",
            &[("@source_customers", json!([cust(&a, amount)]))],
        ));
        assert_eq!(
            amount_text(&fx.params(&trn), "@source_customers", 0),
            text,
            "{text}"
        );
    }
    // The body text itself, not re-serialized by the test.
    let raw = format!(
        r#"{{"program_id":"{}","application_id":"{}","transaction_template_id":"ach_funding",
            "transaction_parameters":[{{"transaction_parameter_name":"@source_customers",
            "transaction_parameter_values":[{{"customer_profile_id":"{a}","amount":100.499999999999999999}}]}}]}}"#,
        fx.prm, fx.app
    );
    let o = fx
        .env
        .run_with(&["txn", "create", "--body", "-"], Some(raw.as_bytes()));
    o.refused(1, 10001);
    let raw = raw.replace("100.499999999999999999", "100.5");
    let o = fx
        .env
        .run_with(&["txn", "create", "--body", "-"], Some(raw.as_bytes()));
    assert_eq!(
        amount_text(&fx.params(&o.id()), "@source_customers", 0),
        "100.5"
    );
    // An exponent is accepted and kept as its plain value.
    let raw = raw.replace("100.5", "1e2");
    let o = fx
        .env
        .run_with(&["txn", "create", "--body", "-"], Some(raw.as_bytes()));
    assert_eq!(
        amount_text(&fx.params(&o.id()), "@source_customers", 0),
        "100"
    );
    // Through the flags too.
    let o = fx.env.run(&[
        "txn",
        "create",
        "--program",
        "default_program",
        "--application",
        "payments",
        "--template",
        "ach_funding",
        "--param",
        &format!("@source_customers={a}:12345678901234567890.12"),
        "--param",
        &format!("@source_customers={a}:100.50"),
    ]);
    let p = fx.params(&o.id());
    assert_eq!(
        amount_text(&p, "@source_customers", 0),
        "12345678901234567890.12"
    );
    assert_eq!(amount_text(&p, "@source_customers", 1), "100.50");
}

#[test]
fn unknown_fields_everywhere() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let ok = fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    );
    fx.refused(
        &with(&ok, "templateid", Some(json!("x"))),
        10004,
        "templateid",
    );
    let mut b = ok.clone();
    b["transaction_parameters"][0]["extra"] = json!(1);
    fx.refused(&b, 10004, "transaction_parameters[0].extra");
    let mut b = ok.clone();
    b["transaction_parameters"][0]["transaction_parameter_values"][0]["amont"] = json!(1);
    fx.refused(
        &b,
        10004,
        &format!("{VP}.amont: is not a field of this request; did you mean `{VP}.amount`?"),
    );
    let mut b = ok.clone();
    b["transaction_tags"][0]["colour"] = json!("x");
    fx.refused(&b, 10004, "transaction_tags[0].colour");
}

#[test]
fn tags_and_reason() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let ok = fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    );
    let tags = |t: Value| with(&ok, "transaction_tags", Some(t));
    fx.accepted(&tags(json!([])));
    fx.accepted(&with(&ok, "transaction_tags", None));
    fx.accepted(&tags(json!([{"key": "k", "value": "v"}])));
    fx.accepted(&tags(
        json!([{"key": "k".repeat(50), "value": "any symbols: é €"}]),
    ));
    fx.refused(
        &tags(json!([{"key": "k".repeat(51), "value": "v"}])),
        10001,
        "transaction_tags[0].key: must be 1-50",
    );
    fx.refused(
        &tags(json!([{"key": "k", "value": "v".repeat(51)}])),
        10001,
        "transaction_tags[0].value: must be 1-50",
    );
    fx.refused(
        &tags(json!([{"key": "", "value": "v"}])),
        10001,
        "transaction_tags[0].key",
    );
    fx.refused(
        &tags(json!([{"key": "k", "value": 5}])),
        10005,
        "transaction_tags[0].value",
    );
    fx.refused(
        &tags(json!([{"key": "k"}])),
        10002,
        "transaction_tags[0].value: is required",
    );
    fx.refused(
        &tags(json!([{"key": "k", "value": "1"}, {"key": "k", "value": "2"}])),
        10001,
        "transaction_tags[1].key: tag keys must be unique",
    );
    fx.refused(&tags(json!({"key": "k"})), 10005, "transaction_tags");
    let reason = |r: Value| with(&ok, "transaction_status_reason", Some(r));
    fx.accepted(&reason(json!("r".repeat(256))));
    fx.accepted(&reason(json!("")));
    fx.refused(
        &reason(json!("r".repeat(257))),
        10001,
        "transaction_status_reason",
    );
    fx.refused(&reason(json!(1)), 10005, "transaction_status_reason");
}

#[test]
fn every_error_at_once() {
    let fx = Fx::new();
    let pending = fx.pending("cust-0002");
    let b = json!({
        "program_id": fx.prm,
        "application_id": fx.app,
        "transaction_template_id": fx.trt("funding_and_payout"),
        "transaction_tags": [{"key": "", "value": "v"}],
        "bogus": 1,
        "transaction_parameters": [
            {"transaction_parameter_name": "@source_customers",
             "transaction_parameter_values": [
                {"customer_profile_id": pending, "amount": 1},
                {"customer_profile_id": "csp_missing000000000000", "amount": "1"}]},
            {"transaction_parameter_name": "@facilitator",
             "transaction_parameter_values": [{"amount": 0.001, "city": "X"}]}
        ]
    });
    let o = fx.refused(
        &b,
        21004,
        "transaction_parameters[0].transaction_parameter_values[0].customer_profile_id",
    );
    o.mentions("transaction_tags[0].key")
        .mentions("bogus")
        .mentions("transaction_parameters[0].transaction_parameter_values[1].customer_profile_id: is not a customer profile")
        .mentions("transaction_parameters[0].transaction_parameter_values[1].amount: must be a JSON number")
        .mentions("transaction_parameters[1].transaction_parameter_values[0].amount: may have at most 2 decimal places")
        .mentions("transaction_parameters[1].transaction_parameter_values[0].city")
        .mentions("must include the parameter @targets");
    let mut codes = o.codes();
    codes.sort();
    assert_eq!(
        codes,
        [10001, 10001, 10001, 10001, 10002, 10004, 10005, 21004],
        "{o:?}"
    );
}

#[test]
fn parameter_records_have_every_field() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let trn = fx.accepted(&fx.body(
        "internal_transfer",
        &[
            ("@source_customers", json!([cust(&a, json!(10))])),
            ("@targets", json!([cust(&a, json!(9.99))])),
            ("@facilitator", json!([{"amount": 0.01}])),
        ],
    ));
    let p = fx.params(&trn);
    assert_eq!(p.len(), 3);
    let mut ids = std::collections::HashSet::new();
    for rec in &p {
        let keys: Vec<&str> = rec
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "transaction_parameter_id",
                "transaction_parameter_name",
                "transaction_parameter_values",
                "created_by",
                "created_date_time",
                "modified_by",
                "modified_date_time"
            ]
        );
        let id = rec["transaction_parameter_id"]
            .as_u64()
            .expect("integer id");
        assert!(id > 0 && id < 1 << 53, "{id}");
        assert!(ids.insert(id));
        assert_eq!(rec["created_by"], "tester");
        for v in rec["transaction_parameter_values"].as_array().unwrap() {
            let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(
                keys,
                [
                    "customer_profile_id",
                    "amount",
                    "account_id",
                    "check_note",
                    "first_name",
                    "last_name",
                    "organization_name",
                    "country_id",
                    "state_id",
                    "address_line1",
                    "address_line2",
                    "city",
                    "zip"
                ]
            );
            assert!(v["amount"].is_number());
            assert_eq!(v["account_id"], Value::Null);
            assert_eq!(v["zip"], Value::Null);
        }
    }
    assert_eq!(
        p[0]["transaction_parameter_values"][0]["customer_profile_id"],
        a
    );
    assert_eq!(
        p[2]["transaction_parameter_values"][0]["customer_profile_id"],
        Value::Null
    );
    // Paging of the parameters.
    let o = fx.env.run(&["txn", "parameters", &trn, "--page-size", "2"]);
    assert_eq!(o.data().len(), 2);
    assert_eq!(o.json["paging"]["total_count"], 3);
    assert!(o.json["paging"]["last_evaluated_key"].is_string());
}

#[test]
fn unknown_transactions_are_not_found() {
    let fx = Fx::new();
    for cmd in ["get", "parameters", "steps"] {
        for id in ["trn_doesnotexist00000000", "trn_../../x", "csp_abc", ""] {
            fx.env.run(&["txn", cmd, id]).refused(1, 20001);
        }
    }
}

#[test]
fn list_filters_and_paging() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let b = fx.attached("cust-0002");
    fx.instrument(&a, 1);
    let t1 = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    ));
    let t2 = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&b, json!(1))]))],
    ));
    let t3 = fx.accepted(&fx.body(
        "ach_withdrawal",
        &[("@targets", json!([cust(&b, json!(1))]))],
    ));
    let ids = |args: &[&str]| -> Vec<String> {
        let mut a = vec!["txn", "list"];
        a.extend(args);
        let o = fx.env.run(&a);
        assert_eq!(o.code, 0, "{o:?}");
        o.data()
            .iter()
            .map(|t| t["transaction_id"].as_str().unwrap().to_string())
            .collect::<Vec<String>>()
    };
    assert_eq!(ids(&[]), vec![t1.clone(), t2.clone(), t3.clone()]);
    assert_eq!(
        ids(&["--status", "10"]),
        vec![t1.clone(), t2.clone(), t3.clone()]
    );
    assert_eq!(
        ids(&["--template", "ach_funding"]),
        vec![t1.clone(), t2.clone()]
    );
    assert_eq!(
        ids(&["--template", fx.trt("ach_withdrawal")]),
        vec![t3.clone()]
    );
    assert_eq!(ids(&["--customer", &b]), vec![t2.clone(), t3.clone()]);
    assert_eq!(
        ids(&["--program", "default_program", "--customer", &a]),
        vec![t1.clone()]
    );
    // The worker's status changes reach the list.
    fx.worker();
    assert_eq!(ids(&["--status", "10"]), Vec::<String>::new());
    assert_eq!(ids(&["--status", "60"]), vec![t1.clone()]);
    assert_eq!(ids(&["--status", "70"]), vec![t2.clone(), t3.clone()]);
    assert_eq!(
        ids(&["--status", "70", "--template", "ach_withdrawal"]),
        vec![t3.clone()]
    );
    // Paging.
    let o = fx.env.run(&["txn", "list", "--page-size", "2"]);
    assert_eq!(o.json["paging"]["total_count"], 3);
    assert_eq!(o.json["paging"]["last_evaluated_key"], t2);
    assert_eq!(ids(&["--after", &t2]), vec![t3.clone()]);
    assert_eq!(
        ids(&["--page-size", "2", "--page-number", "2"]),
        vec![t3.clone()]
    );
    // Bad filters.
    fx.env
        .run(&["txn", "list", "--status", "11"])
        .refused(1, 10001)
        .mentions("status");
    fx.env
        .run(&["txn", "list", "--template", "nope"])
        .refused(1, 10001)
        .mentions("template");
    fx.env
        .run(&["txn", "list", "--program", "nope"])
        .refused(1, 10001)
        .mentions("program");
}

// ------------------------------------------------------------------ worker

#[test]
fn worker_generates_steps_in_sequence_order() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    fx.instrument(&a, 1);
    let full = fx.accepted(&fx.body(
        "funding_and_payout",
        &[
            ("@source_customers", json!([cust(&a, json!(10))])),
            ("@targets", json!([cust(&a, json!(9))])),
            ("@facilitator", json!([{"amount": 1}])),
        ],
    ));
    let short = fx.accepted(&fx.body(
        "funding_and_payout",
        &[
            ("@source_customers", json!([cust(&a, json!(10))])),
            ("@targets", json!([cust(&a, json!(10))])),
        ],
    ));
    let s = fx.worker();
    assert_eq!(s["transactions_processed"], 2);
    assert_eq!(s["steps_created"], 5);
    assert_eq!(s["steps_completed"], 5);
    assert_eq!(s["steps_failed"], 0);
    let steps = fx.steps(&full);
    assert_eq!(steps.len(), 3);
    let seqs: Vec<u64> = steps
        .iter()
        .map(|s| s["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2, 3]);
    let types: Vec<u64> = steps
        .iter()
        .map(|s| s["transfer_type_id"].as_u64().unwrap())
        .collect();
    assert_eq!(types, [1, 3, 3]);
    let waits: Vec<bool> = steps
        .iter()
        .map(|s| s["wait_to_complete"].as_bool().unwrap())
        .collect();
    assert_eq!(waits, [true, false, false]);
    for st in &steps {
        let id = st["transaction_step_id"].as_str().unwrap();
        assert!(id.starts_with("trs_"), "{id}");
        assert_eq!(st["transaction_id"], full);
        assert_eq!(st["transaction_step_status_id"], 60);
        assert_eq!(
            st["transaction_step_status_reason"],
            "Successfully completed."
        );
        assert_eq!(st["created_by"], "SYSTEM");
        assert_eq!(st["modified_by"], "SYSTEM");
        for k in ["created_datetime", "modified_datetime"] {
            assert!(st[k].is_string(), "{k}");
        }
    }
    // The optional step 3 (@facilitator) is left out when not given.
    let steps = fx.steps(&short);
    let seqs: Vec<u64> = steps
        .iter()
        .map(|s| s["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [1, 2]);
    let t = fx.get(&full);
    assert_eq!(t["transaction_status_id"], 60);
    assert_eq!(t["modified_by"], "SYSTEM");
    assert_eq!(t["created_by"], "tester");
}

#[test]
fn ach_funding_needs_the_sources_funding_instrument() {
    let fx = Fx::new();
    let with_funding = fx.attached("cust-0001");
    let only_withdrawal = fx.attached("cust-0002");
    fx.instrument(&with_funding, 1);
    fx.instrument(&only_withdrawal, 2);
    let ok = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&with_funding, json!(1))]))],
    ));
    let bad = fx.accepted(&fx.body(
        "ach_funding",
        &[(
            "@source_customers",
            json!([cust(&only_withdrawal, json!(1))]),
        )],
    ));
    let mixed = fx.accepted(&fx.body(
        "ach_funding",
        &[(
            "@source_customers",
            json!([
                cust(&with_funding, json!(1)),
                cust(&only_withdrawal, json!(2))
            ]),
        )],
    ));
    let s = fx.worker();
    assert_eq!(s["transactions_processed"], 3);
    assert_eq!(s["steps_created"], 3);
    assert_eq!(s["steps_completed"], 1);
    assert_eq!(s["steps_failed"], 2);

    let steps = fx.steps(&ok);
    assert_eq!(statuses(&steps), [60]);
    assert_eq!(
        steps[0]["transaction_step_status_reason"],
        "Successfully completed."
    );
    assert_eq!(fx.get(&ok)["transaction_status_id"], 60);

    for trn in [&bad, &mixed] {
        let steps = fx.steps(trn);
        assert_eq!(statuses(&steps), [70]);
        let reason = steps[0]["transaction_step_status_reason"].as_str().unwrap();
        assert!(
            reason.contains(&only_withdrawal) && reason.contains("Funding"),
            "{reason}"
        );
        assert!(!reason.contains(&with_funding), "{reason}");
        let t = fx.get(trn);
        assert_eq!(t["transaction_status_id"], 70);
        assert!(
            t["transaction_status_reason"]
                .as_str()
                .unwrap()
                .contains(&only_withdrawal)
        );
    }
}

/// `account_id` names one of the customer's instruments: it is checked when
/// the transaction is created, stored, shown, and the worker needs that very
/// instrument (Active, of the step's type), not just any.
#[test]
fn account_id_names_one_of_the_customers_instruments() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let b = fx.attached("cust-0002");
    let a_funding = fx.instrument(&a, 1);
    let a_withdrawal = fx.instrument(&a, 2);
    let b_funding = fx.instrument(&b, 1);
    let named = |csp: &str, pin: &str| with(&cust(csp, json!(1)), "account_id", Some(json!(pin)));

    // Another customer's instrument, an unknown id, a wrong type of value.
    for pin in [b_funding.as_str(), "pin_doesnotexist", ""] {
        let o = fx.refused(
            &fx.body(
                "ach_funding",
                &[("@source_customers", json!([named(&a, pin)]))],
            ),
            10001,
            &format!("{VP}.account_id"),
        );
        o.mentions("payment instrument");
    }
    fx.refused(
        &fx.body(
            "ach_funding",
            &[(
                "@source_customers",
                json!([with(&cust(&a, json!(1)), "account_id", Some(json!(7)))]),
            )],
        ),
        10005,
        &format!("{VP}.account_id"),
    );
    // Values without a customer carry no account.
    let with_facilitator = fx.body(
        "internal_transfer",
        &[
            ("@source_customers", json!([cust(&a, json!(3))])),
            ("@targets", json!([cust(&b, json!(2))])),
            (
                "@facilitator",
                json!([{"amount": 1, "account_id": a_funding.clone()}]),
            ),
        ],
    );
    let o = fx.create(&with_facilitator);
    assert_eq!(o.code, 1, "{o:?}");
    o.mentions("account_id").mentions("@facilitator");

    // The customer's own instrument: stored and shown as sent.
    let good = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([named(&a, &a_funding)]))],
    ));
    let p = fx.params(&good);
    assert_eq!(
        p[0]["transaction_parameter_values"][0]["account_id"],
        a_funding
    );
    // Its Withdrawal instrument exists, but a Funding step cannot use it,
    // although the customer has an Active Funding instrument too.
    let wrong = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([named(&a, &a_withdrawal)]))],
    ));
    // The flag form `CSP:AMOUNT:PIN` says the same.
    let flag = format!("@source_customers={a}:1.50:{a_funding}");
    let o = fx.env.run(&common::txn_create_args(
        &fx.prm,
        "ach_funding",
        &[flag.as_str()],
    ));
    assert_eq!(o.code, 0, "{o:?}");
    let by_flag = o.id();
    assert_eq!(
        fx.params(&by_flag)[0]["transaction_parameter_values"][0]["account_id"],
        a_funding
    );

    fx.worker();
    assert_eq!(statuses(&fx.steps(&good)), [60]);
    assert_eq!(statuses(&fx.steps(&by_flag)), [60]);
    let steps = fx.steps(&wrong);
    assert_eq!(statuses(&steps), [70]);
    let reason = steps[0]["transaction_step_status_reason"].as_str().unwrap();
    assert!(
        reason.contains(&a_withdrawal) && reason.contains("Active Funding"),
        "{reason}"
    );
}

#[test]
fn funding_and_payout_without_funding_cancels_later_steps() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let trn = fx.accepted(&fx.body(
        "funding_and_payout",
        &[
            ("@source_customers", json!([cust(&a, json!(10))])),
            ("@targets", json!([cust(&a, json!(9))])),
            ("@facilitator", json!([{"amount": 1}])),
        ],
    ));
    let s = fx.worker();
    assert_eq!(s["steps_created"], 3);
    assert_eq!(s["steps_completed"], 0);
    assert_eq!(s["steps_failed"], 1);
    let steps = fx.steps(&trn);
    assert_eq!(statuses(&steps), [70, 80, 80]);
    for st in &steps[1..] {
        assert_eq!(
            st["transaction_step_status_reason"],
            "Cancelled: step 1 failed."
        );
    }
    assert_eq!(fx.get(&trn)["transaction_status_id"], 70);
}

#[test]
fn ach_withdrawal_needs_the_targets_withdrawal_instrument() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    fx.instrument(&a, 1);
    let body = fx.body(
        "ach_withdrawal",
        &[("@targets", json!([cust(&a, json!(5))]))],
    );
    let first = fx.accepted(&body);
    fx.worker();
    let steps = fx.steps(&first);
    assert_eq!(statuses(&steps), [70]);
    assert_eq!(steps[0]["transfer_type_id"], 2);
    assert!(
        steps[0]["transaction_step_status_reason"]
            .as_str()
            .unwrap()
            .contains("Withdrawal")
    );
    assert_eq!(fx.get(&first)["transaction_status_id"], 70);
    fx.instrument(&a, 2);
    let second = fx.accepted(&body);
    fx.worker();
    assert_eq!(statuses(&fx.steps(&second)), [60]);
    assert_eq!(fx.get(&second)["transaction_status_id"], 60);
    // The first is finished: never processed again.
    assert_eq!(statuses(&fx.steps(&first)), [70]);
}

#[test]
fn transfers_and_checks_complete_without_instruments() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let it = fx.accepted(&fx.body(
        "internal_transfer",
        &[
            ("@source_customers", json!([cust(&a, json!(1))])),
            ("@targets", json!([cust(&a, json!(1))])),
        ],
    ));
    let ck = fx.accepted(&fx.body("check_payout", &[("@target_checks", json!([check()]))]));
    fx.worker();
    assert_eq!(statuses(&fx.steps(&it)), [60]);
    let steps = fx.steps(&ck);
    assert_eq!(statuses(&steps), [60]);
    assert_eq!(steps[0]["transfer_type_id"], 4);
    assert_eq!(fx.get(&ck)["transaction_status_id"], 60);
}

#[test]
fn a_second_worker_run_changes_nothing() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    let trn = fx.accepted(&fx.body(
        "ach_funding",
        &[("@source_customers", json!([cust(&a, json!(1))]))],
    ));
    fx.worker();
    let steps = fx.steps(&trn);
    let before = fx.env.snapshot();
    let s = fx.worker();
    assert_eq!(s["transactions_processed"], 0);
    assert_eq!(s["steps_created"], 0);
    assert_eq!(fx.steps(&trn), steps);
    assert_eq!(before, fx.env.snapshot());
}

#[test]
fn two_workers_never_process_a_transaction_twice() {
    let fx = Fx::new();
    let a = fx.attached("cust-0001");
    fx.instrument(&a, 1);
    let mut trns = Vec::new();
    for i in 0..12 {
        let name = if i % 2 == 0 {
            "funding_and_payout"
        } else {
            "ach_funding"
        };
        let mut params = vec![("@source_customers", json!([cust(&a, json!(1))]))];
        if i % 2 == 0 {
            params.push(("@targets", json!([cust(&a, json!(1))])));
        }
        trns.push((
            fx.accepted(&fx.body(name, &params)),
            if i % 2 == 0 { 2 } else { 1 },
        ));
    }
    let spawn = || {
        let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("payctl"));
        c.arg("--data-dir")
            .arg(fx.env.path())
            .args(["-o", "json", "worker"]);
        c.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        c.spawn().expect("spawn worker")
    };
    let children: Vec<_> = (0..3).map(|_| spawn()).collect();
    let mut processed = 0;
    let mut created = 0;
    for ch in children {
        let out = ch.wait_with_output().unwrap();
        assert!(out.status.success());
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        processed += v["data"][0]["transactions_processed"].as_u64().unwrap();
        created += v["data"][0]["steps_created"].as_u64().unwrap();
    }
    assert_eq!(processed, 12);
    assert_eq!(created, 18);
    for (trn, n) in &trns {
        let steps = fx.steps(trn);
        assert_eq!(steps.len(), *n, "{trn}");
        assert!(statuses(&steps).iter().all(|s| *s == 60));
        assert_eq!(fx.get(trn)["transaction_status_id"], 60);
    }
}

// ------------------------------------------- txn list through the transaction indexes

/// The ids `txn list args` answers, with its paging.
fn listed(env: &Env, args: &[&str]) -> (Vec<String>, Value) {
    let mut a = vec!["txn", "list"];
    a.extend(args);
    let o = env.run(&a);
    assert_eq!(o.code, 0, "{o:?}");
    let ids = o
        .data()
        .iter()
        .map(|t| t["transaction_id"].as_str().unwrap().to_string())
        .collect();
    (ids, o.json["paging"].clone())
}

/// Every page of `txn list args` at `size` per page, followed by
/// `last_evaluated_key` (`--after`).
fn all_pages(env: &Env, args: &[&str], size: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut a: Vec<&str> = args.to_vec();
        a.extend(["--page-size", size]);
        if let Some(k) = &after {
            a.extend(["--after", k.as_str()]);
        }
        let (ids, paging) = listed(env, &a);
        out.extend(ids);
        match paging["last_evaluated_key"].as_str() {
            Some(k) => after = Some(k.to_string()),
            None => return out,
        }
    }
}

/// Five transactions of two templates: t[0], t[2], t[4] fund `a` (who has
/// an instrument: Completed by the worker), t[1], t[3] withdraw to `b`
/// (who has none: Failed).
fn five(fx: &Fx) -> Vec<String> {
    let a = fx.attached("idx-0001");
    let b = fx.attached("idx-0002");
    fx.instrument(&a, 1);
    (0..5)
        .map(|i| {
            if i % 2 == 0 {
                fx.accepted(&fx.body(
                    "ach_funding",
                    &[("@source_customers", json!([cust(&a, json!(1))]))],
                ))
            } else {
                fx.accepted(&fx.body(
                    "ach_withdrawal",
                    &[("@targets", json!([cust(&b, json!(1))]))],
                ))
            }
        })
        .collect()
}

fn pick(t: &[String], idx: &[usize]) -> Vec<String> {
    idx.iter().map(|&i| t[i].clone()).collect()
}

/// The summary log emptied: a list that still reads it sees nothing.
fn empty_summary_log(env: &Env) {
    std::fs::write(env.path().join("index/transactions.log"), "").unwrap();
}

#[test]
fn status_template_and_program_filters_answer_from_the_indexes() {
    let fx = Fx::new();
    let t = five(&fx);
    let env = &fx.env;
    let funding = fx.trt("ach_funding").to_string();
    // Before the worker: all Created.
    assert_eq!(all_pages(env, &["--status", "10"], "2"), t);
    let (first, paging) = listed(env, &["--status", "10", "--page-size", "2"]);
    assert_eq!(first, pick(&t, &[0, 1]));
    assert_eq!(paging["total_count"], 5);
    assert_eq!(paging["last_evaluated_key"], t[1].as_str());
    assert_eq!(
        listed(
            env,
            &["--status", "10", "--page-size", "2", "--page-number", "3"]
        )
        .0,
        pick(&t, &[4])
    );
    assert_eq!(
        all_pages(env, &["--template", &funding], "1"),
        pick(&t, &[0, 2, 4])
    );
    assert_eq!(
        all_pages(
            env,
            &["--program", "default_program", "--status", "10"],
            "3"
        ),
        t
    );
    fx.worker();
    // The status index followed the worker's changes, in the same commit.
    assert_eq!(
        all_pages(env, &["--status", "10"], "2"),
        Vec::<String>::new()
    );
    assert_eq!(
        all_pages(env, &["--status", "60"], "2"),
        pick(&t, &[0, 2, 4])
    );
    assert_eq!(all_pages(env, &["--status", "70"], "1"), pick(&t, &[1, 3]));
    assert_eq!(
        all_pages(
            env,
            &["--status", "60", "--template", "ach_withdrawal"],
            "2"
        ),
        Vec::<String>::new()
    );
    assert!(
        !env.path().join("index/txn-by-status/10").exists()
            || std::fs::read_dir(env.path().join("index/txn-by-status/10"))
                .unwrap()
                .next()
                .is_none(),
        "no transaction is Created: its status index holds no file"
    );
    // An --after key of another list is refused as before.
    let o = env.run(&["txn", "list", "--status", "60", "--after", &t[1]]);
    o.refused(1, 10001).mentions("last_evaluated_key");
    let o = env.run(&["txn", "list", "--status", "60", "--after", "trn_nosuch"]);
    o.refused(1, 10001).mentions("last_evaluated_key");
    assert_clean(env, "after the worker");
    // The filters do not read the summary log: emptied, they still answer
    // (and store check names it).
    empty_summary_log(env);
    assert_eq!(all_pages(env, &["--status", "70"], "5"), pick(&t, &[1, 3]));
    assert_eq!(
        all_pages(env, &["--template", &funding], "5"),
        pick(&t, &[0, 2, 4])
    );
    let o = env.run(&["store", "check"]);
    assert!(o.stdout.contains("index/transactions.log"), "{o:?}");
}

/// The store is clean for `store check`.
fn assert_clean(env: &Env, what: &str) {
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{what}: {o:?}");
    assert_eq!(o.data()[0]["status"], "clean", "{what}: {o:?}");
}

#[test]
fn a_worker_killed_around_its_commit_leaves_the_status_index_with_the_records() {
    let fx = Fx::new();
    let t = five(&fx);
    let env = &fx.env;
    // Killed before its commit point: nothing changed.
    let before = env.snapshot();
    let mut c = env.cmd();
    c.env("PAYCTL_FAULT", "before-write").args(["worker"]);
    let o = Out::from(c.output().unwrap());
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(before, env.snapshot(), "a worker killed before its commit");
    assert_eq!(all_pages(env, &["--status", "10"], "2"), t);
    // Killed after it: the next command (a read) completes the commit.
    let mut c = env.cmd();
    c.env("PAYCTL_FAULT", "after-journal").args(["worker"]);
    let o = Out::from(c.output().unwrap());
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(
        all_pages(env, &["--status", "60"], "2"),
        pick(&t, &[0, 2, 4])
    );
    assert_eq!(
        all_pages(env, &["--status", "10"], "2"),
        Vec::<String>::new()
    );
    assert_eq!(all_pages(env, &["--status", "70"], "2"), pick(&t, &[1, 3]));
    for id in &t {
        let st = fx.get(id)["transaction_status_id"].as_u64().unwrap();
        assert!(st == 60 || st == 70, "{id}: {st}");
    }
    assert_clean(env, "after the replay");
}

#[test]
fn a_damaged_transaction_index_is_named_by_store_check_and_rebuilt_by_repair() {
    let fx = Fx::new();
    let t = five(&fx);
    let env = &fx.env;
    fx.worker();
    let root = env.path();
    // A status file loses a line and gains a foreign one; a template
    // bucket gains a line of no transaction; a position bucket is gone.
    let status = root.join("index/txn-by-status/60/0.log");
    let text = std::fs::read_to_string(&status).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.ends_with(t[2].as_str()))
        .collect();
    assert_eq!(kept.len(), 2, "{text}");
    std::fs::write(&status, format!("{}\n", kept.join("\n"))).unwrap();
    std::fs::write(
        root.join("index/txn-by-status/10/0.log"),
        format!("3 {}\n", t[3]),
    )
    .unwrap();
    let funding = fx.trt("ach_funding").to_string();
    let mut buckets = Vec::new();
    common::files(&root.join("index/txn-by-template"), &mut buckets);
    let bucket = buckets
        .iter()
        .find(|p| std::fs::read_to_string(p).unwrap().contains(&funding))
        .unwrap()
        .clone();
    let mut b = std::fs::read_to_string(&bucket).unwrap();
    b.push_str(&format!("9 trn_ghost \"{funding}\"\n"));
    std::fs::write(&bucket, b).unwrap();
    let mut positions = Vec::new();
    common::files(&root.join("index/txn-positions"), &mut positions);
    std::fs::remove_file(&positions[0]).unwrap();
    // The damaged index answers wrong: that is what check must name.
    assert_eq!(all_pages(env, &["--status", "60"], "5"), pick(&t, &[0, 4]));
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    let f = common::findings(&o);
    let named = |path: &str| f.iter().any(|x| x.contains(path));
    assert!(named("index/txn-by-status/60/0.log"), "{f:?}");
    assert!(named("index/txn-by-status/10/0.log"), "{f:?}");
    assert!(named(&env.rel(&bucket)), "{f:?}");
    assert!(named(&env.rel(&positions[0])), "{f:?}");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_clean(env, "after the repair");
    assert_eq!(
        all_pages(env, &["--status", "60"], "2"),
        pick(&t, &[0, 2, 4])
    );
    assert_eq!(
        all_pages(env, &["--status", "10"], "2"),
        Vec::<String>::new()
    );
    assert_eq!(
        all_pages(env, &["--template", &funding], "2"),
        pick(&t, &[0, 2, 4])
    );
    // The rebuilt index is kept by the next changes.
    let more = fx.accepted(&fx.body(
        "ach_withdrawal",
        &[(
            "@targets",
            json!([cust(&fx.attached("idx-0003"), json!(1))]),
        )],
    ));
    assert_eq!(
        all_pages(env, &["--status", "10"], "2"),
        std::slice::from_ref(&more)
    );
    fx.worker();
    let mut failed = pick(&t, &[1, 3]);
    failed.push(more);
    assert_eq!(all_pages(env, &["--status", "70"], "2"), failed);
    assert_clean(env, "after more changes");
}

#[test]
fn a_format_5_store_gets_its_transaction_indexes_all_or_nothing() {
    let fx = Fx::new();
    let t = five(&fx);
    let env = &fx.env;
    fx.worker();
    let root = env.path();
    // Format 5: no transaction indexes.
    std::fs::remove_file(root.join("index/transactions.ids")).unwrap();
    for d in [
        "txn-positions",
        "txn-by-status",
        "txn-by-template",
        "txn-by-program",
    ] {
        std::fs::remove_dir_all(root.join("index").join(d)).unwrap();
    }
    std::fs::write(root.join("meta.json"), "{\"format_version\":5}\n").unwrap();
    let before = env.snapshot();
    let mut c = env.cmd();
    c.env("PAYCTL_FAULT", "before-write")
        .args(["txn", "list", "--status", "60"]);
    let o = Out::from(c.output().unwrap());
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(
        before,
        env.snapshot(),
        "an upgrade killed before its commit"
    );
    let mut c = env.cmd();
    c.env("PAYCTL_FAULT", "after-journal")
        .args(["txn", "list", "--status", "60"]);
    let o = Out::from(c.output().unwrap());
    assert_ne!(o.code, 0, "{o:?}");
    // The next command finishes the upgrade.
    assert_eq!(
        all_pages(env, &["--status", "60"], "2"),
        pick(&t, &[0, 2, 4])
    );
    let meta: Value =
        serde_json::from_slice(&std::fs::read(root.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    assert!(!root.join("journal.json").exists());
    assert_eq!(all_pages(env, &["--status", "70"], "1"), pick(&t, &[1, 3]));
    assert_eq!(
        all_pages(
            env,
            &[
                "--template",
                "ach_withdrawal",
                "--program",
                "default_program"
            ],
            "1"
        ),
        pick(&t, &[1, 3])
    );
    assert_clean(env, "after the upgrade");
}

/// What `store check` says of each kind of damage to the transaction
/// indexes, word for word: it compares them by counts and hashes and reads
/// a differing file line by line only to say what is wrong (issue 17: a
/// million transactions in bounded memory), so each message is pinned here.
#[test]
fn store_check_says_exactly_what_is_wrong_with_a_transaction_index() {
    let fx = Fx::new();
    let t = five(&fx);
    let env = &fx.env;
    fx.worker();
    assert_clean(env, "before");
    let root = env.path();
    let ids = root.join("index/transactions.ids");
    let original = std::fs::read(&ids).unwrap();
    let check = |what: &str| -> Vec<String> {
        let f = common::findings(&env.run(&["store", "check"]));
        assert!(!f.is_empty(), "{what}: nothing found");
        f
    };
    // Two records swapped: the same ids in another order.
    let rec = original.len() / 5;
    let mut swapped = original.clone();
    swapped[..rec].copy_from_slice(&original[rec..2 * rec]);
    swapped[rec..2 * rec].copy_from_slice(&original[..rec]);
    std::fs::write(&ids, &swapped).unwrap();
    let f = check("swapped");
    assert!(
        f.iter().any(|m| m.contains("index/transactions.ids")
            && m.contains(
                "does not list the transactions in the creation order of the summary log"
            )),
        "{f:?}"
    );
    // A record dropped, then one listed twice.
    std::fs::write(&ids, &original[..4 * rec]).unwrap();
    let f = check("dropped");
    assert!(
        f.iter()
            .any(|m| m
                .contains("does not list each of the 5 transaction records once (it lists 4 ids)")),
        "{f:?}"
    );
    let mut twice = original[..4 * rec].to_vec();
    twice.extend_from_slice(&original[..rec]);
    std::fs::write(&ids, &twice).unwrap();
    let f = check("twice");
    assert!(
        f.iter()
            .any(|m| m
                .contains("does not list each of the 5 transaction records once (it lists 5 ids)")),
        "{f:?}"
    );
    std::fs::write(&ids, &original).unwrap();
    assert_clean(env, "the ids file restored");
    // A status line twice; then one lacking and a torn last line.
    let status = root.join("index/txn-by-status/60/0.log");
    let text = std::fs::read_to_string(&status).unwrap();
    let first = text.lines().next().unwrap().to_string();
    std::fs::write(&status, format!("{text}{first}\n")).unwrap();
    let f = check("a line twice");
    assert!(
        f.iter().any(|m| m.contains("index/txn-by-status/60/0.log") && m.contains("holds a line twice")),
        "{f:?}"
    );
    let rest: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
    std::fs::write(&status, format!("{rest}12 trn_")).unwrap();
    let f = check("a line lacking, a torn line");
    assert!(
        f.iter().any(|m| m.contains("index/txn-by-status/60/0.log")
            && m.contains("lacks 1 line(s) that the transaction records give")),
        "{f:?}"
    );
    assert!(
        f.iter().any(|m| m.contains("index/txn-by-status/60/0.log")
            && m.contains("ends with a partial line")),
        "{f:?}"
    );
    // A file gone, and a stray one.
    std::fs::write(&status, &text).unwrap();
    std::fs::remove_file(&status).unwrap();
    std::fs::write(root.join("index/txn-by-status/60/9.log"), "").unwrap();
    let f = check("gone and stray");
    let entries = text.lines().count();
    assert!(
        f.iter().any(|m| m.contains("index/txn-by-status/60/0.log")
            && m.contains(&format!(
                "is missing: {entries} entries of the transaction records"
            ))),
        "{f:?}"
    );
    assert!(
        f.iter().any(|m| m.contains("index/txn-by-status/60/9.log")
            && m.contains("is not a file of the transaction indexes that the records give")),
        "{f:?}"
    );
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_clean(env, "after the repair");
    assert_eq!(
        all_pages(env, &["--status", "60"], "2"),
        pick(&t, &[0, 2, 4])
    );
}
