//! The OpenAPI 3.1 document (`payctl openapi`, `GET /openapi.json`): it
//! validates against the official OpenAPI 3.1 schema (with
//! `openapi-spec-validator`, which bundles that schema; `.ci/run` installs
//! it), its structure is that of OpenAPI 3.1 (the rules of the specification
//! that a generic tool relies on, checked here without any tool), it covers
//! every endpoint of the table, and the running server answers what it
//! documents.

mod common;

use std::collections::{BTreeSet, HashSet};

use common::serve::Server;
use common::{Env, profile_body};
use payctl::api::endpoints::ENDPOINTS;
use serde_json::{Value, json};

fn document(env: &Env) -> Value {
    let o = env.run(&["openapi"]);
    assert_eq!(o.code, 0, "{o:?}");
    o.json.clone()
}

/// Every `$ref` of `v`, as a JSON pointer into the document.
fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "$ref" {
                    out.push(x.as_str().expect("$ref is a string").to_string());
                } else {
                    refs(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// The command that validates an OpenAPI document against the official
/// schema: `$PAYCTL_OPENAPI_VALIDATOR`, else `openapi-spec-validator` on the
/// PATH. `None` (the test says so and passes) outside CI when neither is
/// there; with `CI=true` its absence fails the test.
// Finds the validator from the environment and says on stderr when it is skipped.
#[allow(clippy::disallowed_methods, clippy::print_stderr)]
fn validator() -> Option<std::path::PathBuf> {
    let named = std::env::var_os("PAYCTL_OPENAPI_VALIDATOR").map(std::path::PathBuf::from);
    let found = named.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join("openapi-spec-validator"))
            .find(|p| p.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true: openapi-spec-validator is required (see .ci/run)"
        );
        eprintln!(
            "skipped: openapi-spec-validator not found; run \
             `python3 -m venv /tmp/oas && /tmp/oas/bin/pip install openapi-spec-validator` \
             and set PAYCTL_OPENAPI_VALIDATOR=/tmp/oas/bin/openapi-spec-validator"
        );
    }
    found
}

/// Run the validator on `doc`: its exit status and what it printed.
fn validate(tool: &std::path::Path, dir: &std::path::Path, doc: &Value) -> (bool, String) {
    let file = dir.join("openapi.json");
    std::fs::write(&file, serde_json::to_vec_pretty(doc).unwrap()).unwrap();
    let o = std::process::Command::new(tool)
        .arg(&file)
        .output()
        .expect("run openapi-spec-validator");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), said)
}

#[test]
fn the_document_validates_against_the_official_openapi_3_1_schema() {
    let Some(tool) = validator() else { return };
    let env = Env::new();
    let doc = document(&env);
    let dir = tempfile::tempdir().unwrap();
    let (ok, said) = validate(&tool, dir.path(), &doc);
    assert!(ok, "the document is not valid OpenAPI 3.1:\n{said}");
    assert!(said.contains("OK"), "{said}");
    // The validator is not a rubber stamp: a response without its required
    // string description, and an operation without responses, are refused.
    let mut bad = doc.clone();
    let first = bad["paths"]
        .as_object_mut()
        .unwrap()
        .values_mut()
        .next()
        .unwrap();
    let op = first.as_object_mut().unwrap().values_mut().next().unwrap();
    op["responses"] = json!({"200": {"description": 1}});
    let (ok, said) = validate(&tool, dir.path(), &bad);
    assert!(!ok, "a broken document passed: {said}");
}

#[test]
fn the_document_has_the_structure_of_openapi_3_1_and_every_route() {
    let env = Env::new();
    let doc = document(&env);
    assert_eq!(doc["openapi"], "3.1.0");
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string());
    let paths = doc["paths"].as_object().expect("paths");
    let methods = [
        "get", "put", "post", "delete", "options", "head", "patch", "trace",
    ];
    let mut ids = HashSet::new();
    for (path, item) in paths {
        assert!(path.starts_with('/'), "{path}");
        let templated: BTreeSet<&str> = path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect();
        for (method, op) in item.as_object().unwrap() {
            assert!(methods.contains(&method.as_str()), "{path}: {method}");
            let id = op["operationId"].as_str().expect("operationId");
            assert!(ids.insert(id.to_string()), "operationId {id} is not unique");
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let mut in_path = BTreeSet::new();
            let mut seen = HashSet::new();
            for p in &params {
                let name = p["name"].as_str().expect("parameter name");
                let place = p["in"].as_str().expect("parameter in");
                assert!(
                    ["path", "query", "header", "cookie"].contains(&place),
                    "{path} {method}: {place}"
                );
                assert!(seen.insert((name, place)), "{path} {method}: {name} twice");
                assert!(
                    p["schema"].is_object(),
                    "{path} {method}: {name} has no schema"
                );
                if place == "path" {
                    assert_eq!(p["required"], true, "{path}: a path parameter is required");
                    in_path.insert(name);
                }
            }
            assert_eq!(in_path, templated, "{method} {path}: path parameters");
            let responses = op["responses"].as_object().expect("responses");
            assert!(!responses.is_empty());
            for (status, r) in responses {
                assert!(
                    status.len() == 3 && status.chars().all(|c| c.is_ascii_digit()),
                    "{status}"
                );
                assert!(
                    r["description"].is_string() || r["$ref"].is_string(),
                    "{path} {method} {status}"
                );
            }
            if let Some(body) = op.get("requestBody") {
                assert!(body["content"]["application/json"]["schema"].is_object());
            }
        }
    }
    // Every $ref resolves.
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(all.len() > 50, "refs: {}", all.len());
    for r in all {
        let pointer = r.strip_prefix('#').expect("local $ref");
        assert!(doc.pointer(pointer).is_some(), "{r} does not resolve");
    }
    // The table, whole: every endpoint with its method, and nothing else.
    let mut documented = 0;
    for e in ENDPOINTS {
        let op = &doc["paths"][e.path][e.method.as_str().to_ascii_lowercase()];
        assert!(
            op.is_object(),
            "{} {} is not documented",
            e.method.as_str(),
            e.path
        );
        documented += 1;
    }
    let count: usize = paths.values().map(|i| i.as_object().unwrap().len()).sum();
    assert_eq!(count, documented);
    // The spec's spellings are there.
    for p in [
        "/customer-profiles/{customer_profile_id}/payment_instruments",
        "/customer-profiles/{customer_profile_id}/payment-instruments",
        "/dictionaries/customer_types",
        "/dictionaries/countries/{country_id}/states",
        "/_payctl/worker",
    ] {
        assert!(paths.contains_key(p), "{p}");
    }
}

/// The served document is the printed one, and every documented GET answers
/// a documented status with an envelope whose records have the documented
/// identifier fields.
#[test]
fn the_server_answers_what_the_document_says() {
    let env = Env::new();
    let doc = document(&env);
    let s = Server::start(&env, &[]);
    let served = s.get("/openapi.json");
    assert_eq!(served.status, 200);
    assert_eq!(served.json, doc);

    // Real ids for the path parameters.
    let csp = s
        .post("/customer-profiles", &profile_body("cust-oa-001"))
        .id();
    let prm = env.program_id();
    s.post(
        &format!("/programs/{prm}/customer-profiles"),
        &json!({"customer_profile_id": csp}),
    );
    s.send("POST", "/_payctl/worker", None, &[]);
    let app = s.get(&format!("/programs/{prm}/applications")).json["data"][0]["application_id"]
        .as_str()
        .unwrap()
        .to_string();
    let trt = s
        .get(&format!("/applications/{app}/transaction-templates"))
        .json["data"][0]["transaction_template_id"]
        .as_str()
        .unwrap()
        .to_string();
    let fill = |path: &str| -> String {
        path.replace("{customer_profile_id}", &csp)
            .replace("{program_id}", &prm)
            .replace("{application_id}", &app)
            .replace("{transaction_template_id}", &trt)
            .replace("{country_id}", "1")
            .replace("{transaction_id}", "trn_doesnotexist0000000")
            .replace("{address_id}", "cpa_doesnotexist0000000")
            .replace("{payment_instrument_id}", "pin_doesnotexist0000000")
    };
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let Some(op) = item.get("get") else { continue };
        if path == "/openapi.json" {
            continue;
        }
        let r = s.get(&fill(path));
        let status = r.status.to_string();
        let documented = &op["responses"][&status];
        assert!(
            documented.is_object(),
            "GET {path}: {status} is not documented: {r:?}"
        );
        for member in ["paging", "data", "errors"] {
            assert!(
                r.json.get(member).is_some(),
                "GET {path}: no {member}: {r:?}"
            );
        }
        if r.status == 200 {
            let schema = &op["responses"]["200"]["content"]["application/json"]["schema"];
            let item_ref = schema["properties"]["data"]["items"]["$ref"]
                .as_str()
                .unwrap();
            let item = doc.pointer(item_ref.strip_prefix('#').unwrap()).unwrap();
            let required = item["required"].as_array().cloned().unwrap_or_default();
            for rec in r.json["data"].as_array().unwrap() {
                for f in &required {
                    let f = f.as_str().unwrap();
                    assert!(
                        rec.get(f).is_some(),
                        "GET {path}: a record without {f}: {rec}"
                    );
                }
            }
            assert_eq!(
                r.json["paging"].is_null(),
                schema["properties"]["paging"]["type"] == "null",
                "GET {path}: paging"
            );
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
    // A method the document does not list is 405 with Allow.
    let r = s.send("PATCH", "/customer-profiles", Some("{}"), &[]);
    r.refused(405, 10008);
}
