//! Acceptance findings: rules of the spec and CLI.md checked through the
//! binary where an audit found the behaviour off, each kept as a regression test.

mod common;

use common::Env;
use serde_json::Value;

/// GET /dictionaries/countries/{country_id}/states: a country that does not
/// exist is an identifier in the path that does not exist (CLI.md: 20001);
/// the one that exists answers its states.
#[test]
fn states_of_a_country_that_does_not_exist_is_not_found() {
    let env = Env::new();
    for country in ["0", "2", "999"] {
        env.run(&["dict", "list", "states", "--country", country])
            .refused(1, 20001)
            .mentions(&format!("country {country} does not exist"));
    }
    let us = env.run(&["dict", "list", "states", "--country", "1"]);
    assert_eq!(us.code, 0, "{us:?}");
    assert_eq!(us.json["paging"]["total_count"], 56);
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
