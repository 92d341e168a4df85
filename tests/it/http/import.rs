//! The import route, `POST /_payctl/customer-profiles/import`: remote
//! `profile import` through a real `payctl serve` is the local import (all
//! or none, `line N` named, `--skip-existing`, the same output), a raw
//! JSON Lines POST works and a refused one changes nothing, and the route
//! takes a writer's key. (A module of tests/it/http.rs.)

use serde_json::{Value, json};

use super::common::serve::{Reply, Server};
use super::common::{self, Env, profile_body};

const ROUTE: &str = "/_payctl/customer-profiles/import";

/// `n` create bodies, keys `{prefix}-000`…, as JSON Lines.
fn jsonl(prefix: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| profile_body(&format!("{prefix}-{i:03}")).to_string())
        .collect()
}

fn bad_email(key: &str) -> String {
    let mut bad = profile_body(key);
    bad["customer_profile_individual"]["email"] = json!("nope");
    bad.to_string()
}

fn total(s: &Server) -> u64 {
    let r = s.get("/customer-profiles");
    r.json["paging"]["total_count"].as_u64().expect("a count")
}

/// A raw POST of `body` to the route as JSON Lines, with `headers`.
fn post(s: &Server, query: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![("Content-Type", "application/x-ndjson")];
    all.extend_from_slice(headers);
    s.send("POST", &format!("{ROUTE}{query}"), Some(body), &all)
}

/// A file with one bad line creates nothing remotely, as locally: every
/// line is checked first and the bad one is named; fixed, the whole file
/// is created in line order; again, every key is refused unless
/// --skip-existing, which skips them all.
#[test]
fn remote_import_is_all_or_none_and_skips_existing_keys_on_request() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let file = env.dir.path().join("customers.jsonl");
    let path = file.to_str().unwrap();
    let mut lines = jsonl("cust-imp", 20);
    lines[5] = bad_email("cust-imp-005");
    std::fs::write(&file, lines.join("\r\n") + "\n\n").unwrap();
    let o = s.cli(&env, &["profile", "import", path]);
    o.refused(1, 10001)
        .mentions("line 6: customer_profile_individual.email");
    assert_eq!(o.codes(), vec![10001], "only line 6 is bad: {o:?}");
    assert_eq!(total(&s), 0, "nothing was created");

    lines[5] = profile_body("cust-imp-005").to_string();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let o = s.cli(&env, &["profile", "import", path]);
    assert_eq!(o.code, 0, "{o:?}");
    let lines_of: Vec<u64> = o
        .data()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines_of, (1..=20).collect::<Vec<u64>>());
    assert_eq!(o.data()[5]["customer_key"], "cust-imp-005");
    assert_eq!(total(&s), 20);

    let again = s.cli(&env, &["profile", "import", path]);
    again.refused(1, 21002).mentions("line 20: customer_key");
    assert_eq!(total(&s), 20);
    let skip = s.cli(&env, &["profile", "import", path, "--skip-existing"]);
    assert_eq!(skip.code, 0, "{skip:?}");
    assert!(skip.data().is_empty(), "{skip:?}");
    assert!(skip.stderr.contains("skipped 20 line(s)"), "{skip:?}");
    // Some new, some stored: only the new ones, from stdin too.
    let mixed = [jsonl("cust-imp", 2), jsonl("cust-new", 2)]
        .concat()
        .join("\n");
    let o = s.cli_with(
        &env,
        &["profile", "import", "-", "--skip-existing"],
        mixed.as_bytes(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let keys: Vec<&str> = o
        .data()
        .iter()
        .map(|d| d["customer_key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["cust-new-000", "cust-new-001"]);
    assert!(o.stderr.contains("skipped 2 line(s)"), "{o:?}");
    assert_eq!(total(&s), 22);
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

/// The same file imported locally and remotely prints the same bytes in
/// every format but the table (the ids aside, which are new each time).
#[test]
fn remote_import_prints_what_the_local_one_prints() {
    let lines = jsonl("cust-same", 3).join("\n");
    let ids = regex::Regex::new("csp_[a-z0-9]{20}").unwrap();
    for format in [&["-o", "json"][..], &["-o", "jsonl"], &["-o", "id"]] {
        let local = Env::new();
        let mut args = vec!["profile", "import", "-"];
        args.extend_from_slice(format);
        let here = local.run_with(&args, Some(lines.as_bytes()));
        assert_eq!(here.code, 0, "{here:?}");
        let env = Env::new();
        let s = Server::start(&env, &["--quiet"]);
        let there = s.cli_with(&env, &args, lines.as_bytes());
        assert_eq!(there.code, 0, "{there:?}");
        assert_eq!(
            ids.replace_all(&here.stdout, "csp_ID"),
            ids.replace_all(&there.stdout, "csp_ID"),
            "{format:?}"
        );
        assert!(here.stdout.contains("csp_"), "{here:?}");
    }
}

/// A raw POST of JSON Lines imports them: the created profiles in line
/// order, counted in Payctl-Created. A body with a bad line is 400 naming
/// it, a stored key 409, neither changing the store; the body must be JSON
/// Lines (415), skip_existing `true` or `false`, and there is no dry run.
#[test]
fn a_raw_json_lines_post_imports_and_a_refused_one_changes_nothing() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let r = post(&s, "", &jsonl("raw", 3).join("\n"), &[]);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("payctl-created"), Some("3"), "{r:?}");
    assert_eq!(r.header("payctl-skipped"), Some("0"), "{r:?}");
    assert!(
        r.json["paging"].is_null() && r.json["errors"].is_null(),
        "{r:?}"
    );
    let data = r.json["data"].as_array().unwrap();
    assert_eq!(data.len(), 3);
    assert_eq!(data[2]["line"], 3);
    assert_eq!(data[2]["customer_key"], "raw-002");
    let id = data[0]["id"].as_str().unwrap();
    assert_eq!(s.get(&format!("/customer-profiles/{id}")).status, 200);

    // A bad line among good ones: 400, the line named, nothing written.
    let mut lines = jsonl("raw-b", 4);
    lines[1] = bad_email("raw-b-001");
    let r = post(&s, "", &lines.join("\n"), &[]);
    r.refused(400, 10001);
    assert!(
        r.text.contains("line 2: customer_profile_individual.email"),
        "{r:?}"
    );
    assert_eq!(total(&s), 3);
    // A key already stored: 409 (21002) unless skip_existing.
    let stored = [jsonl("raw", 1), jsonl("raw-c", 1)].concat().join("\n");
    post(&s, "", &stored, &[]).refused(409, 21002);
    assert_eq!(total(&s), 3);
    let r = post(&s, "?skip_existing=true", &stored, &[]);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.header("payctl-skipped"), Some("1"), "{r:?}");
    assert_eq!(r.json["data"][0]["customer_key"], "raw-c-000", "{r:?}");
    assert_eq!(total(&s), 4);

    let more = jsonl("raw-d", 1).join("\n");
    let r = s.send("POST", ROUTE, Some(&more), &[]);
    r.refused(415, 10005);
    post(&s, "?skip_existing=maybe", &more, &[]).refused(400, 10001);
    post(&s, "", &more, &[("Payctl-Dry-Run", "true")]).refused(400, 10001);
    assert_eq!(total(&s), 4);
    // An empty body imports nothing.
    let r = post(&s, "", "", &[]);
    assert_eq!(
        (r.status, r.json["data"].clone()),
        (200, json!([])),
        "{r:?}"
    );
}

/// A line past 1 MiB stops the import at once, and a remote client still
/// reads the refusal (the server reads the rest of the body and drops it)
/// rather than losing the answer; nothing is written.
#[test]
fn a_line_too_long_is_refused_remotely_with_its_number() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let mut text = jsonl("long", 2).join("\n");
    text.push('\n');
    text.push_str(&"x".repeat(3 << 20));
    text.push('\n');
    text.push_str(&jsonl("after", 2000).join("\n"));
    let file = env.dir.path().join("long.jsonl");
    std::fs::write(&file, &text).unwrap();
    let o = s.cli(&env, &["profile", "import", file.to_str().unwrap()]);
    o.refused(1, 10005).mentions("line 3: is longer than 1 MiB");
    assert_eq!(total(&s), 0);
}

/// The route is a writer's, as one create is: a reader's key is refused
/// (403, remotely exit 1) and creates nothing; a writer's imports.
#[test]
fn the_import_route_needs_a_writer_key() {
    let env = Env::new();
    let key = |name: &str, role: &str| -> String {
        let o = env.run(&["key", "create", name, "--role", role]);
        assert_eq!(o.code, 0, "{o:?}");
        o.data()[0]["secret"].as_str().unwrap().to_string()
    };
    let (reader, writer) = (key("dashboards", "reader"), key("loader", "writer"));
    let s = Server::start(&env, &["--quiet"]);
    let lines = jsonl("keyed", 2).join("\n");
    let bearer = |k: &str| format!("Bearer {k}");
    post(&s, "", &lines, &[]).refused(401, 10007);
    post(&s, "", &lines, &[("Authorization", &bearer(&reader))]).refused(403, 10010);
    let remote = |token: &str| {
        let mut c = env.cmd();
        c.env("PAYCTL_BASE_URL", &s.base)
            .env("PAYCTL_TOKEN", token)
            .args(["profile", "import", "-"])
            .write_stdin(lines.clone());
        common::Out::from(c.output().unwrap())
    };
    remote(&reader).refused(1, 10010).mentions("writer");
    let auth = [("Authorization", bearer(&writer))];
    let count = s.send(
        "GET",
        "/customer-profiles",
        None,
        &[(auth[0].0, &auth[0].1)],
    );
    assert_eq!(count.json["paging"]["total_count"], 0, "{count:?}");
    let o = remote(&writer);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data().len(), 2);
    // Created as the key's name (with the actor the CLI claims).
    let id = o.data()[0]["id"].as_str().unwrap();
    let got = s.send(
        "GET",
        &format!("/customer-profiles/{id}"),
        None,
        &[(auth[0].0, &auth[0].1)],
    );
    assert_eq!(
        got.json["data"][0]["created_by"],
        Value::from("loader:tester"),
        "{got:?}"
    );
}
