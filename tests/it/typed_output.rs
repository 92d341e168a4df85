//! Typed output (issues 14 and 15): every answer says what kind of record it
//! holds, and `-o id` and `-o table` render from that kind, never from the
//! keys a record happens to have. For each kind, in local and in remote mode
//! (`payctl serve`), `-o id` prints exactly the ids of the `-o json`
//! envelope's records (taken from the kind's id field), and a list's table
//! starts with the kind's columns.

use crate::common;

use common::serve::Side;
use common::{Out, ach_instrument_body, address_body, profile_body, txn_create_args};
use serde_json::Value;

/// The command `args` in `-o json` and `-o id`: the id lines must be the
/// values of `field` in the envelope's records, in order, and not empty.
fn ids_match(side: &Side, args: &[&str], field: &str) {
    let json = side.run(args);
    assert_eq!(json.code, 0, "{} {args:?}: {json:?}", side.name());
    let want: Vec<String> = json
        .data()
        .iter()
        .map(|r| match &r[field] {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => panic!("{} {args:?}: {field} is {other}", side.name()),
        })
        .collect();
    assert!(!want.is_empty(), "{} {args:?}: no records", side.name());
    let mut a = args.to_vec();
    a.extend(["-o", "id"]);
    let id = side.run(&a);
    assert_eq!(id.code, 0, "{} {a:?}: {id:?}", side.name());
    let got: Vec<&str> = id.stdout.lines().collect();
    assert_eq!(got, want, "{} {a:?}", side.name());
}

/// The header cells of the table `args` prints with `-o table`.
fn table_header(side: &Side, args: &[&str]) -> Vec<String> {
    let mut a = args.to_vec();
    a.extend(["-o", "table"]);
    let o: Out = side.run(&a);
    assert_eq!(o.code, 0, "{} {a:?}: {o:?}", side.name());
    let line = o
        .stdout
        .lines()
        .find(|l| l.starts_with('│'))
        .unwrap_or_else(|| panic!("{} {a:?}: no table in {}", side.name(), o.stdout));
    line.split(['│', '┆'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn id_and_table_render_from_the_kind_of_each_endpoint_in_both_modes() {
    for side in Side::both() {
        let run = |args: &[&str]| {
            let o = side.run(args);
            assert_eq!(o.code, 0, "{} {args:?}: {o:?}", side.name());
            o
        };
        let csp = side
            .body(&["profile", "create"], &profile_body("typed-1"))
            .id();
        side.body(&["profile", "create"], &profile_body("typed-2"))
            .id();
        side.body(&["address", "create", &csp], &address_body(false))
            .id();
        let prm = run(&["program", "list"]).data()[0]["program_id"]
            .as_str()
            .expect("program_id")
            .to_string();
        let app = run(&["program", "applications", &prm]).data()[0]["application_id"]
            .as_str()
            .expect("application_id")
            .to_string();
        let trt = run(&["template", "list", &app]).data()[0]["transaction_template_id"]
            .as_str()
            .expect("transaction_template_id")
            .to_string();
        run(&["program", "attach", &prm, &csp]);
        run(&["worker"]);
        let pin = ach_instrument_body(
            &prm,
            "Main",
            true,
            serde_json::json!([{"key": "source", "value": "typed"}]),
        );
        side.body(&["instrument", "create", &csp], &pin).id();
        let param = format!("@source_customers={csp}:10.00");
        let trn = run(&txn_create_args(&prm, "ach_funding", &[&param])).id();
        run(&["worker"]);

        let cases: Vec<(Vec<&str>, &str, &str)> = vec![
            (
                vec!["profile", "list"],
                "customer_profile_id",
                "customer_profile_id",
            ),
            (vec!["profile", "get", &csp], "customer_profile_id", ""),
            (vec!["address", "list", &csp], "address_id", "address_id"),
            (
                vec!["instrument", "list", &csp],
                "payment_instrument_id",
                "payment_instrument_id",
            ),
            (vec!["program", "list"], "program_id", "program_id"),
            (
                vec!["program", "applications", &prm],
                "application_id",
                "application_id",
            ),
            (
                vec!["program", "profiles", &prm],
                "customer_profile_id",
                "customer_profile_id",
            ),
            (
                vec!["template", "list", &app],
                "transaction_template_id",
                "transaction_template_id",
            ),
            (
                vec!["template", "steps", &trt],
                "transaction_template_step_id",
                "seq",
            ),
            (vec!["txn", "list"], "transaction_id", "transaction_id"),
            (vec!["txn", "get", &trn], "transaction_id", ""),
            (
                vec!["txn", "parameters", &trn],
                "transaction_parameter_id",
                "id",
            ),
            (vec!["txn", "steps", &trn], "transaction_step_id", "seq"),
            // Its records have no `…_id` field: a guess from the keys prints nothing.
            (vec!["dict", "list"], "dictionary_name", "dictionary_name"),
            (
                vec!["dict", "list", "customer-types"],
                "customer_type_id",
                "customer_type_id",
            ),
            (
                vec!["dict", "list", "countries"],
                "country_id",
                "country_id",
            ),
            (vec!["dict", "list", "states"], "state_id", "state_id"),
            (
                vec!["dict", "list", "transfer-types"],
                "transfer_type_id",
                "transfer_type_id",
            ),
        ];
        for (args, field, first_column) in &cases {
            ids_match(&side, args, field);
            if !first_column.is_empty() {
                let header = table_header(&side, args);
                assert_eq!(
                    header.first().map(String::as_str),
                    Some(*first_column),
                    "{} {args:?}: {header:?}",
                    side.name()
                );
            }
        }

        // A create answers its id; the worker's summary is not a record.
        let o = side.run(&["profile", "create", "--body", "-", "-o", "id"]);
        assert_ne!(o.code, 0, "an empty body is refused");
        let w = side.run(&["worker", "-o", "id"]);
        assert_eq!((w.code, w.stdout.as_str()), (0, ""), "{}", side.name());
    }
}
