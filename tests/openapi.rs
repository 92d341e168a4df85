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
        // Not an envelope (the metrics): the documented media type.
        if let Some(text) = documented["content"].get("text/plain") {
            assert_eq!(text["schema"]["type"], "string", "GET {path}");
            let ct = r.header("content-type").unwrap_or_default();
            assert!(ct.starts_with("text/plain"), "GET {path}: {ct}");
            checked += 1;
            continue;
        }
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

/// `pattern` as the document states it, compiled (the actor's is large).
fn pattern(p: &str) -> regex::Regex {
    regex::RegexBuilder::new(p)
        .size_limit(1 << 27)
        .build()
        .unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The request schemas state the rules the server applies, so that a
/// generic tester's schema-valid request is not refused for a rule the
/// document could have said: the tag rule, the lengths of free text, the
/// characters every string refuses, the integer bounds.
#[test]
fn request_schemas_state_the_servers_field_rules() {
    let env = Env::new();
    let doc = document(&env);
    let schemas = &doc["components"]["schemas"];
    // Tags of profiles and instruments: 3-50 of digits, letters, ! @ . - _ #.
    for side in ["key", "value"] {
        let s = &schemas["Tag"]["properties"][side];
        assert_eq!((&s["minLength"], &s["maxLength"]), (&json!(3), &json!(50)));
        let p = pattern(s["pattern"].as_str().unwrap());
        for ok in ["abc", "A1!@.-_#", "seg-ment"] {
            assert!(p.is_match(ok), "{ok}");
        }
        for bad in ["a b", "ab:c", "é99", "a/b", "abc\n"] {
            assert!(!p.is_match(bad), "{bad:?}");
        }
    }
    for (schema, f) in [
        ("ProfileCreate", "customer_profile_tags"),
        ("InstrumentCreate", "payment_instrument_tags"),
    ] {
        let tags = &schemas[schema]["properties"][f];
        assert_eq!(tags["items"]["$ref"], "#/components/schemas/Tag");
        assert_eq!(tags["maxItems"], 50);
    }
    assert_eq!(
        schemas["InstrumentCreate"]["properties"]["payment_instrument_tags"]["minItems"],
        1
    );
    assert_eq!(
        schemas["Parameter"]["properties"]["transaction_parameter_values"]["minItems"],
        1
    );
    // Free text the server refuses empty has minLength 1; the limits are the server's.
    for (schema, f, min, max) in [
        ("Individual", "first_name", 1, 50),
        ("Individual", "middle_name", 0, 50),
        ("Individual", "last_name", 1, 50),
        ("AddressCreate", "first_name", 1, 50),
        ("AddressCreate", "address_line1", 1, 256),
        ("AddressCreate", "address_line2", 0, 256),
        ("AddressCreate", "city", 1, 50),
        ("InstrumentCreate", "payment_instrument_label", 1, 256),
        (
            "InstrumentCreate",
            "payment_instrument_change_reason",
            1,
            256,
        ),
        ("InstrumentUpdate", "payment_instrument_label", 1, 256),
        ("ParameterValue", "organization_name", 1, 50),
        ("TransactionTag", "key", 1, 50),
    ] {
        let s = &schemas[schema]["properties"][f];
        assert_eq!(
            (&s["minLength"], &s["maxLength"]),
            (&json!(min), &json!(max)),
            "{schema}.{f}"
        );
    }
    // The characters every string field refuses (rules::clean_text).
    let text = pattern(
        schemas["Individual"]["properties"]["first_name"]["pattern"]
            .as_str()
            .unwrap(),
    );
    for ok in [
        "Zoë 李 😀",
        "مهدی\u{200C}زاده",
        "e\u{0301}",
        "O'Brien-Smith",
    ] {
        assert!(text.is_match(ok), "{ok}");
    }
    for bad in [
        "a\u{1b}[2J",
        "a\nb",
        "\u{85}",
        "x\u{202E}y",
        "\u{2066}",
        "\u{2028}",
        "\u{200B}",
        "\u{FEFF}",
        "\u{AD}",
        "\u{FDD0}",
        "\u{FFFF}",
        "\u{10FFFE}",
        "\u{E0041}",
    ] {
        assert!(!text.is_match(bad), "{bad:?}");
    }
    // Dictionary values the built-in dictionaries fix; query integers within u32.
    let p = &schemas["AddressCreate"]["properties"];
    assert_eq!(p["country_id"]["const"], 1);
    assert_eq!(
        (&p["state_id"]["minimum"], &p["state_id"]["maximum"]),
        (&json!(1), &json!(56))
    );
    assert_eq!(p["address_type_id"]["maximum"], 3);
    assert_eq!(
        schemas["ParameterValue"]["properties"]["account_id"]["type"],
        "null"
    );
    let list = &doc["paths"]["/transactions"]["get"]["parameters"];
    let query = |name: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|q| q["name"] == name)
            .unwrap()["schema"]
            .clone()
    };
    assert_eq!(query("page_number")["maximum"], u64::from(u32::MAX));
    // The dictionary of transaction statuses fixes the status filter.
    assert_eq!(query("status")["enum"], json!([10, 20, 60, 70]));
    // What cannot be updated says so, and is marked readOnly only in updates.
    let up = &schemas["InstrumentUpdate"]["properties"];
    for f in ["program_id", "payment_method_id", "payment_instrument_tags"] {
        assert_eq!(up[f]["readOnly"], true, "{f}");
        assert!(
            up[f]["description"].as_str().unwrap().contains("10003"),
            "{f}"
        );
        assert!(
            schemas["InstrumentCreate"]["properties"][f]
                .get("readOnly")
                .is_none()
        );
    }
    assert_eq!(
        schemas["AchUpdate"]["properties"]["account_number"]["type"],
        "null"
    );
    assert_eq!(
        schemas["IndividualUpdate"]["properties"]["ssn"]["type"],
        "null"
    );
    assert_eq!(
        schemas["ProfileUpdate"]["properties"]["customer_key"]["readOnly"],
        true
    );
}

/// The `X-Payctl-Actor` pattern is the server's rule exactly: for each value
/// the pattern matches if and only if a running server accepts it.
#[test]
fn the_actor_header_pattern_is_the_servers_rule() {
    let env = Env::new();
    let doc = document(&env);
    let schema = &doc["components"]["schemas"]["Actor"];
    assert_eq!(schema["maxLength"], 768);
    let p = pattern(schema["pattern"].as_str().unwrap());
    let s = Server::start(&env, &[]);
    let long_ok = "x".repeat(64);
    let long_bad = "x".repeat(65);
    let encoded_ok = "%41".repeat(64);
    // 64 characters of 4 UTF-8 bytes: 768 bytes as sent (was refused past 192).
    let emoji_ok = "%F0%9F%98%80".repeat(64);
    let encoded_bad = "%C3%A9".repeat(65);
    let cases = [
        "00",
        "a b",
        "ada@example.com",
        "%20a",
        "%25",
        "%41",
        "%7e",
        "%C3%A9",
        "%c3%a9",
        "%C2%A0",
        "%E2%80%8C",
        "%EF%BF%BD",
        "%F0%9F%98%80",
        "%F4%8F%BF%BD",
        &long_ok,
        &encoded_ok,
        &emoji_ok,
        "%00",
        "%0e",
        "%0E",
        "%1f",
        "%7F",
        "%7f",
        "%C2%80",
        "%C2%9F",
        "%C2%AD",
        "%E2%80%8B",
        "%E2%80%AE",
        "%E2%81%A6",
        "%E2%80%A8",
        "%D8%80",
        "%EF%BB%BF",
        "%EF%B7%90",
        "%EF%BF%BF",
        "%F0%91%82%BD",
        "%F3%A0%80%81",
        "%F4%8F%BF%BF",
        "%ff",
        "%C3",
        "%C3%28",
        "%C0%80",
        "%E0%80%80",
        "%ED%A0%80",
        "%F4%90%80%80",
        "%F5%80%80%80",
        "%",
        "%4",
        "%4g",
        "%%41",
        &long_bad,
        &encoded_bad,
    ];
    for v in cases {
        let r = s.send("POST", "/_payctl/worker", None, &[("X-Payctl-Actor", v)]);
        let accepted = r.status == 200;
        if !accepted {
            r.refused(400, 10001);
            assert!(r.text.contains("X-Payctl-Actor"), "{v}: {r:?}");
        }
        assert_eq!(p.is_match(v), accepted, "{v}: pattern and server disagree");
    }
}
