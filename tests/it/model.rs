//! A model-based test of the storage backends: random sequences of
//! operations (profile creates with colliding customer_keys, updates,
//! addresses added, made default and deleted, instruments added, program
//! attaches, transaction creates, worker passes, lists) run through `core`
//! (the endpoint table, the CLI's in-process transport) on the in-memory
//! backend and on a JSON directory must give the same answers, envelope for
//! envelope (the random ids and the times of the worker named by their
//! order of appearance), and `store check` must find nothing on either
//! after every operation.
//!
//! 32 cases of up to 20 operations by default (`PROPTEST_CASES` raises it).

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use payctl::api::endpoints::{Backend, Op, Request};
use payctl::api::{self, Local};
use payctl::core::Ctx;
use payctl::store::memory::MemoryStore;
use proptest::prelude::*;
use regex::Regex;
use serde_json::{Value, json};
use tempfile::TempDir;

#[derive(Debug, Clone)]
enum Step {
    /// A profile with key `key-<n>` (a small range: keys collide).
    Create {
        key: u8,
        first: u8,
    },
    Update {
        who: u8,
        first: u8,
    },
    AddressAdd {
        who: u8,
        default: bool,
    },
    AddressDefault {
        who: u8,
        which: u8,
    },
    AddressDelete {
        who: u8,
        which: u8,
    },
    InstrumentAdd {
        who: u8,
        type_id: u32,
        default: bool,
    },
    Attach {
        who: u8,
    },
    TxnCreate {
        who: u8,
    },
    Worker,
    List {
        page: u8,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0u8..5, 0u8..3).prop_map(|(key, first)| Step::Create { key, first }),
        1 => (any::<u8>(), 0u8..3).prop_map(|(who, first)| Step::Update { who, first }),
        2 => (any::<u8>(), any::<bool>()).prop_map(|(who, default)| Step::AddressAdd { who, default }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(who, which)| Step::AddressDefault { who, which }),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(who, which)| Step::AddressDelete { who, which }),
        1 => (any::<u8>(), 1u32..3, any::<bool>())
            .prop_map(|(who, type_id, default)| Step::InstrumentAdd { who, type_id, default }),
        2 => any::<u8>().prop_map(|who| Step::Attach { who }),
        2 => any::<u8>().prop_map(|who| Step::TxnCreate { who }),
        1 => Just(Step::Worker),
        1 => (0u8..3).prop_map(|page| Step::List { page }),
    ]
}

const FIRST: [&str; 3] = ["Ada", "Grace", "Edsger"];

/// One backend and the names its ids and times get, in order of appearance.
struct Side {
    backend: Box<dyn Backend>,
    names: HashMap<String, String>,
    /// The profiles created, in order.
    profiles: Vec<String>,
}

impl Side {
    fn name(&mut self, raw: &str) -> String {
        let n = self.names.len();
        self.names
            .entry(raw.to_string())
            .or_insert_with(|| format!("<{}#{n}>", &raw[..3]))
            .clone()
    }

    /// `v` with its ids named and its times blanked.
    fn normal(&mut self, v: &Value, re: &Patterns) -> Value {
        match v {
            Value::String(s) => {
                let s = re.time.replace_all(s, "<time>").into_owned();
                let mut out = String::new();
                let mut last = 0;
                for m in re.id.find_iter(&s) {
                    out.push_str(&s[last..m.start()]);
                    out.push_str(&self.name(m.as_str()));
                    last = m.end();
                }
                out.push_str(&s[last..]);
                Value::String(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|x| self.normal(x, re)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), self.normal(x, re)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

struct Patterns {
    id: Regex,
    time: Regex,
}

fn ctx() -> Ctx {
    let now = chrono::NaiveDate::from_ymd_opt(2026, 3, 4)
        .and_then(|d| d.and_hms_micro_opt(5, 6, 7, 8))
        .expect("a time");
    Ctx::new("model", now)
}

fn profile_body(key: &str, first: &str) -> Value {
    let mut b = common::profile_body(key);
    b["customer_profile_individual"]["first_name"] = json!(first);
    b
}

/// The request of `step` on this side (its own ids), or `None` when the
/// step names nothing that exists yet on it (then on neither side).
fn request(side: &Side, ctx: &Ctx, step: &Step) -> Option<Request> {
    let call = |req: Request| api::call_envelope(&*side.backend, ctx, &req);
    let who = |w: u8| -> Option<String> {
        (!side.profiles.is_empty()).then(|| side.profiles[w as usize % side.profiles.len()].clone())
    };
    let program = || -> String {
        call(Request::new(Op::ProgramList))["data"][0]["program_id"]
            .as_str()
            .expect("a program")
            .to_string()
    };
    let address = |csp: &str, which: u8| -> Option<String> {
        let e = call(Request::new(Op::AddressList).at([csp]));
        let all = e["data"].as_array()?;
        let a = all.get(which as usize % all.len().max(1))?;
        a["address_id"].as_str().map(str::to_string)
    };
    Some(match step {
        Step::Create { key, first } => Request::new(Op::ProfileCreate)
            .body(profile_body(&format!("key-{key}"), FIRST[*first as usize])),
        Step::Update { who: w, first } => Request::new(Op::ProfileUpdate)
            .at([who(*w)?])
            .body(json!({"customer_profile_individual": {"first_name": FIRST[*first as usize]}})),
        Step::AddressAdd { who: w, default } => Request::new(Op::AddressCreate)
            .at([who(*w)?])
            .body(common::address_body(*default)),
        Step::AddressDefault { who: w, which } => {
            let csp = who(*w)?;
            let adr = address(&csp, *which)?;
            Request::new(Op::AddressUpdate)
                .at([csp, adr])
                .body(json!({"is_default": true}))
        }
        Step::AddressDelete { who: w, which } => {
            let csp = who(*w)?;
            let adr = address(&csp, *which)?;
            Request::new(Op::AddressDelete).at([csp, adr])
        }
        Step::InstrumentAdd {
            who: w,
            type_id,
            default,
        } => {
            let csp = who(*w)?;
            Request::new(Op::InstrumentCreate).at([csp]).body(json!({
                "payment_instrument_tags": [{"key": "source", "value": "model"}],
                "payment_instrument_type_id": type_id,
                "payment_method_id": 1,
                "is_default": default,
                "payment_instrument_label": "Main checking",
                "payment_instrument_change_reason": "Initial setup",
                "program_id": program(),
                "payment_instrument_ach": {
                    "account_number": "000123456789",
                    "routing_number": "021000021",
                    "payment_instrument_ach_type_id": 2
                }
            }))
        }
        Step::Attach { who: w } => Request::new(Op::Attach)
            .at([program()])
            .body(json!({"customer_profile_id": who(*w)?})),
        Step::TxnCreate { who: w } => {
            let csp = who(*w)?;
            let prm = program();
            let e = call(Request::new(Op::ApplicationList).at([prm.as_str()]));
            let app = e["data"][0]["application_id"].as_str()?.to_string();
            let e = call(Request::new(Op::TemplateList).at([app.as_str()]));
            let trt = e["data"]
                .as_array()?
                .iter()
                .find(|t| t["transaction_template_name"] == "ach_funding")?["transaction_template_id"]
                .as_str()?
                .to_string();
            Request::new(Op::TxnCreate).body(json!({
                "program_id": prm,
                "application_id": app,
                "transaction_template_id": trt,
                "transaction_status_reason": "model",
                "transaction_tags": [],
                "transaction_parameters": [{
                    "transaction_parameter_name": "@source_customers",
                    "transaction_parameter_values": [{"customer_profile_id": csp, "amount": 10}]
                }]
            }))
        }
        Step::Worker => Request::new(Op::Worker),
        Step::List { page } => {
            let mut req = Request::new(Op::ProfileList);
            req.query.page.size = 2;
            req.query.page.number = Some(u32::from(*page) + 1);
            req
        }
    })
}

/// After each step, what both sides say: the step's answer, every
/// profile, every transaction and every record of the program.
fn observe(side: &mut Side, ctx: &Ctx, re: &Patterns, answer: &Value) -> Value {
    let call = |req: Request| api::call_envelope(&*side.backend, ctx, &req);
    let mut req = Request::new(Op::ProfileList);
    req.query.page.size = 100;
    let profiles = call(req);
    let mut req = Request::new(Op::TxnList);
    req.query.page.size = 100;
    let txns = call(req);
    // Through each backend's transaction indexes: by status (10 Created,
    // 20 Processing, 60 Completed, 70 Failed).
    let by_status: Vec<Value> = [10, 20, 60, 70]
        .into_iter()
        .map(|st| {
            let mut req = Request::new(Op::TxnList);
            req.query.page.size = 100;
            req.query.status = Some(st);
            let e = call(req);
            assert!(e["errors"].is_null(), "txn list --status {st}: {e}");
            e
        })
        .collect();
    let prm = call(Request::new(Op::ProgramList))["data"][0]["program_id"].clone();
    let mut req = Request::new(Op::AttachmentList).at([prm.as_str().unwrap_or("")]);
    req.query.page.size = 100;
    let records = call(req);
    let check = side
        .backend
        .read()
        .and_then(|s| s.check(false))
        .map(|r| r.findings)
        .expect("store check");
    assert!(check.is_empty(), "store check: {check:#?}");
    let all = json!({
        "answer": answer,
        "profiles": profiles,
        "txns": txns,
        "by_status": by_status,
        "records": records
    });
    side.normal(&all, re)
}

/// Run `steps` on both sides; the answers (as the in-memory side gave
/// them, normalized), `None` for a step that named nothing yet.
fn run(steps: &[Step]) -> Result<Vec<Option<Value>>, TestCaseError> {
    let ctx = ctx();
    let dir = TempDir::new().expect("tempdir");
    let re = Patterns {
        id: Regex::new(r"\b(csp|cpa|pin|trn|prm|app|trt|tts)_[A-Za-z0-9]+").expect("regex"),
        time: Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?").expect("regex"),
    };
    let mut sides = [
        Side {
            backend: Box::new(MemoryStore::builtin(&ctx.now)),
            names: HashMap::new(),
            profiles: Vec::new(),
        },
        Side {
            backend: Box::new(Local {
                data_dir: dir.path().join("store"),
                database_url: None,
                lock_timeout: Duration::from_secs(10),
                kept: None,
            }),
            names: HashMap::new(),
            profiles: Vec::new(),
        },
    ];
    // The catalog's ids first, in one order on both sides.
    for side in &mut sides {
        let e = api::call_envelope(&*side.backend, &ctx, &Request::new(Op::ProgramList));
        side.normal(&e, &re);
    }
    let mut answers = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let reqs: Vec<Option<Request>> = sides.iter().map(|s| request(s, &ctx, step)).collect();
        prop_assert_eq!(
            reqs[0].is_some(),
            reqs[1].is_some(),
            "step {} {:?}: applicable on one side only",
            n,
            step
        );
        let mut seen = Vec::new();
        for (side, req) in sides.iter_mut().zip(&reqs) {
            let Some(req) = req else { continue };
            let answer = api::call_envelope(&*side.backend, &ctx, req);
            if matches!(step, Step::Create { .. })
                && let Some(id) = answer["data"][0]["id"].as_str()
            {
                side.profiles.push(id.to_string());
            }
            seen.push(observe(side, &ctx, &re, &answer));
        }
        if seen.len() == 2 {
            prop_assert_eq!(&seen[0], &seen[1], "step {} {:?}", n, step);
        }
        answers.push(seen.first().map(|v| v["answer"].clone()));
    }
    Ok(answers)
}

/// The steps do what they say (the comparison above is not of two sides
/// that refuse everything alike).
#[test]
fn the_steps_do_what_they_say() {
    let steps = [
        Step::Create { key: 0, first: 0 },
        Step::Create { key: 0, first: 1 },
        Step::AddressAdd {
            who: 0,
            default: true,
        },
        Step::AddressAdd {
            who: 0,
            default: true,
        },
        Step::AddressDelete { who: 0, which: 0 },
        Step::Attach { who: 0 },
        Step::Worker,
        Step::InstrumentAdd {
            who: 0,
            type_id: 1,
            default: true,
        },
        Step::TxnCreate { who: 0 },
        Step::Worker,
        Step::Update { who: 0, first: 2 },
        Step::List { page: 0 },
    ];
    let a = run(&steps).expect("both sides alike");
    let a: Vec<Value> = a.into_iter().map(|x| x.expect("applicable")).collect();
    let id = |v: &Value| v["data"][0]["id"].as_str().unwrap_or_default().to_string();
    assert!(id(&a[0]).starts_with("<csp#"), "{}", a[0]);
    assert_eq!(a[1]["errors"][0]["code"], 21002, "{}", a[1]);
    assert!(id(&a[2]).starts_with("<cpa#"), "{}", a[2]);
    assert!(id(&a[3]).starts_with("<cpa#"), "{}", a[3]);
    assert!(a[4]["errors"].is_null(), "{}", a[4]);
    assert!(id(&a[5]).starts_with("<csp#"), "{}", a[5]);
    assert!(a[6]["data"][0].is_object(), "{}", a[6]);
    assert!(id(&a[7]).starts_with("<pin#"), "{}", a[7]);
    assert!(id(&a[8]).starts_with("<trn#"), "{}", a[8]);
    assert!(a[9]["errors"].is_null(), "{}", a[9]);
    assert!(a[10]["errors"].is_null(), "{}", a[10]);
    assert_eq!(
        a[11]["data"][0]["customer_profile_individual"]["first_name"],
        "Edsger"
    );
}

/// 32 cases, or `PROPTEST_CASES`.
// A test's own knob, read as proptest itself reads it.
#[allow(clippy::disallowed_methods)]
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(32)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn memory_and_json_directory_answer_alike(steps in prop::collection::vec(step(), 1..=20)) {
        run(&steps)?;
    }
}
