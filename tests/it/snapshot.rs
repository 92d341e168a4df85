//! Issue 37: snapshots and reset (`payctl store snapshot save|list|restore|delete`,
//! `store reset`, `/_payctl/snapshots…`, `POST /_payctl/reset`) on the JSON
//! store and PostgreSQL, through the binary and through `payctl serve`: each
//! command and route, refusals that change nothing, a kill -9 during a
//! restore (the old records or the new, never a mix), the configuration a
//! reset keeps, and servers that see a restore at once.

use crate::common;

use std::time::{Duration, Instant};

use common::serve::Server;
use common::{Env, assert_clean, finish, ok, payctl, txn_create_args};
use serde_json::{Value, json};

/// A profile attached to the built-in program with a Funding account and
/// a completed ach_funding transaction: `(program, customer)`.
fn fixture(env: &Env) -> (String, String) {
    let (prm, csp) = env.attached_profile("snap-fixture-1");
    let body = common::ach_instrument_body(
        &prm,
        "Checking",
        true,
        json!([{"key": "bank", "value": "first"}]),
    );
    ok(env.body(&["instrument", "create", &csp], &body));
    let src = format!("@source_customers={csp}:19.99");
    ok(env.run(&txn_create_args(&prm, "ach_funding", &[&src])));
    ok(env.run(&["worker"]));
    (prm, csp)
}

/// What a test compares of a store: every profile (id, key, attachments),
/// every transaction (id, status) and the queue's depth (a worker pass).
fn state(env: &Env) -> Value {
    let profiles: Vec<Value> = ok(env.run(&["profile", "list", "--page-size", "1000"]))
        .data()
        .iter()
        .map(|p| json!([p["customer_profile_id"], p["customer_key"]]))
        .collect();
    let txns: Vec<Value> = ok(env.run(&["txn", "list", "--page-size", "1000"]))
        .data()
        .iter()
        .map(|t| json!([t["transaction_id"], t["transaction_status_id"]]))
        .collect();
    json!({"profiles": profiles, "txns": txns})
}

/// Changes after the snapshot: a profile, a pending attach, a transaction.
fn change(env: &Env, prm: &str, csp: &str) {
    let other = env.create_profile("snap-later-1");
    ok(env.run(&["program", "attach", prm, &other]));
    let src = format!("@source_customers={csp}:5");
    ok(env.run(&txn_create_args(prm, "ach_funding", &[&src])));
}

/// The scenario every backend runs: save, list, change, restore, delete,
/// and the refusals that leave the store as it is.
fn save_list_restore_delete(env: &Env) {
    let (prm, csp) = fixture(env);
    let before = state(env);
    let saved = ok(env.run(&["store", "snapshot", "save", "baseline"]));
    let snap = &saved.data()[0];
    assert_eq!(snap["snapshot_name"], "baseline");
    assert_eq!(snap["customer_profiles"], 1);
    assert_eq!(snap["transactions"], 1);
    assert_eq!(snap["created_by"], "tester");
    let listed = ok(env.run(&["store", "snapshot", "list"]));
    assert_eq!(listed.json["paging"]["total_count"], 1);
    assert_eq!(listed.data()[0]["snapshot_name"], "baseline");
    let id = ok(env.run(&["store", "snapshot", "list", "-o", "id"]));
    assert_eq!(id.stdout.trim(), "baseline");

    change(env, &prm, &csp);
    let changed = state(env);
    assert_ne!(changed, before);

    // Without --yes where no one can be asked: exit 2, nothing changed.
    let o = env.run(&["store", "snapshot", "restore", "baseline"]);
    o.refused(2, 10006).mentions("--yes");
    assert_eq!(state(env), changed);
    // Refusals: a bad name (naming the field), an unknown snapshot.
    for bad in ["../x", ".hidden", "a b", &"n".repeat(65)] {
        env.run(&["store", "snapshot", "restore", bad, "--yes"])
            .refused(1, 10001)
            .mentions("name: ");
        env.run(&["store", "snapshot", "save", bad])
            .refused(1, 10001)
            .mentions("name: ");
    }
    env.run(&["store", "snapshot", "restore", "nothing-here", "--yes"])
        .refused(1, 20001)
        .mentions("snapshot nothing-here");
    env.run(&["store", "snapshot", "delete", "nothing-here", "--yes"])
        .refused(1, 20001);
    assert_eq!(state(env), changed);

    let restored = ok(env.run(&["store", "snapshot", "restore", "baseline", "--yes"]));
    assert_eq!(restored.data()[0]["snapshot_name"], "baseline");
    assert_eq!(state(env), before);
    // The pending attach of the change is gone with it: nothing queued.
    let pass = ok(env.run(&["worker"]));
    assert_eq!(pass.data()[0]["attachments_processed"], 0);
    assert_eq!(pass.data()[0]["transactions_processed"], 0);
    if env.db.is_none() {
        assert_clean(env, "after the restore");
    } else {
        ok(env.run(&["store", "check"]));
    }
    // A restore again, after more changes: the snapshot is as it was saved.
    change(env, &prm, &csp);
    ok(env.run(&["store", "snapshot", "restore", "baseline", "--yes"]));
    assert_eq!(state(env), before);
    // A save over a name replaces the snapshot.
    let other = env.create_profile("snap-second-1");
    let again = ok(env.run(&["store", "snapshot", "save", "baseline"]));
    assert_eq!(again.data()[0]["customer_profiles"], 2);
    ok(env.run(&["store", "snapshot", "restore", "baseline", "--yes"]));
    assert!(state(env)["profiles"].to_string().contains(&other));

    let deleted = ok(env.run(&["store", "snapshot", "delete", "baseline", "--yes"]));
    assert_eq!(deleted.data()[0]["id"], "baseline");
    assert_eq!(
        ok(env.run(&["store", "snapshot", "list"])).json["paging"]["total_count"],
        0
    );
}

#[test]
fn save_list_restore_delete_on_a_directory() {
    let env = Env::new();
    save_list_restore_delete(&env);
    assert!(!env.path().join("restore.json").exists());
    assert!(!env.path().join("restore.staging").exists());
}

#[test]
#[ignore = "needs PostgreSQL"]
fn save_list_restore_delete_on_postgresql() {
    let Some(env) = Env::database("snapshot::save_list_restore_delete_on_postgresql") else {
        return;
    };
    save_list_restore_delete(&env);
}

/// Reset removes every record and keeps the catalog, the keys and the
/// rules; a snapshot survives it and brings the records back.
fn reset_keeps_the_configuration(env: &Env) {
    let (prm, csp) = fixture(env);
    ok(env.run(&["key", "create", "ci", "--role", "admin"]));
    let rule = ok(env.run(&[
        "sim",
        "rule",
        "add",
        "--on",
        "attach",
        "--when",
        "customer_key~^reject-",
        "--outcome",
        "rejected",
    ]))
    .data()[0]["rule_id"]
        .clone();
    // An idempotency key used before the reset is free after it.
    let body = common::profile_body("snap-idem-1");
    let first = env
        .body(&["profile", "create", "--idempotency-key", "k-1"], &body)
        .id();
    ok(env.run(&["store", "snapshot", "save", "full"]));
    let o = env.run(&["store", "reset"]);
    o.refused(2, 10006);
    assert_eq!(state(env)["profiles"].as_array().unwrap().len(), 2);

    let removed = ok(env.run(&["store", "reset", "--yes"]));
    assert_eq!(
        removed.data()[0],
        json!({"customer_profiles": 2, "transactions": 1})
    );
    assert_eq!(state(env), json!({"profiles": [], "txns": []}));
    assert_eq!(env.program_id(), prm, "the catalog is kept");
    assert_eq!(ok(env.run(&["key", "list"])).data()[0]["name"], "ci");
    assert_eq!(
        ok(env.run(&["sim", "rule", "list"])).data()[0]["rule_id"],
        rule
    );
    assert_eq!(
        ok(env.run(&["store", "snapshot", "list", "-o", "id"]))
            .stdout
            .trim(),
        "full"
    );
    let again = env
        .body(&["profile", "create", "--idempotency-key", "k-1"], &body)
        .id();
    assert_ne!(again, first, "the key's record went with the reset");
    let pass = ok(env.run(&["worker"]));
    assert_eq!(pass.data()[0]["attachments_processed"], 0);
    ok(env.run(&["store", "check"]));
    ok(env.run(&["store", "snapshot", "restore", "full", "--yes"]));
    let back = state(env);
    assert!(back["profiles"].to_string().contains(&csp));
    assert!(back["profiles"].to_string().contains(&first));
    ok(env.run(&["store", "check"]));
}

#[test]
fn reset_keeps_the_catalog_keys_and_rules_on_a_directory() {
    reset_keeps_the_configuration(&Env::new());
}

#[test]
#[ignore = "needs PostgreSQL"]
fn reset_keeps_the_catalog_keys_and_rules_on_postgresql() {
    let Some(env) = Env::database("snapshot::reset_keeps_the_configuration_on_postgresql") else {
        return;
    };
    reset_keeps_the_configuration(&env);
}

#[test]
fn a_snapshot_of_another_format_is_refused() {
    let env = Env::new();
    fixture(&env);
    ok(env.run(&["store", "snapshot", "save", "old"]));
    let meta = env.path().join("snapshots/old/snapshot.json");
    let mut snap: Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    snap["store_version"] = json!("json 9");
    std::fs::write(&meta, serde_json::to_vec(&snap).unwrap()).unwrap();
    let other = env.create_profile("snap-other-1");
    let files = env.snapshot();
    env.run(&["store", "snapshot", "restore", "old", "--yes"])
        .refused(1, 10001)
        .mentions("json 9")
        .mentions("json 14");
    assert_eq!(env.snapshot(), files, "a refused restore changes nothing");
    assert!(state(&env)["profiles"].to_string().contains(&other));
    // Format 14 changed only the journal: a snapshot of format 13 has the
    // same records, and restores.
    snap["store_version"] = json!("json 13");
    std::fs::write(&meta, serde_json::to_vec(&snap).unwrap()).unwrap();
    ok(env.run(&["store", "snapshot", "restore", "old", "--yes"]));
    assert!(!state(&env)["profiles"].to_string().contains(&other));
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_snapshot_of_another_schema_is_refused_on_postgresql() {
    let Some(env) = Env::database("snapshot::a_snapshot_of_another_schema_is_refused") else {
        return;
    };
    fixture(&env);
    ok(env.run(&["store", "snapshot", "save", "old"]));
    let mut c = postgres::Client::connect(env.db.as_ref().unwrap(), postgres::NoTls).unwrap();
    c.batch_execute(
        "UPDATE payctl_snapshots SET doc = jsonb_set(doc, '{store_version}', '\"postgresql 5\"')",
    )
    .unwrap();
    let other = env.create_profile("snap-other-1");
    env.run(&["store", "snapshot", "restore", "old", "--yes"])
        .refused(1, 10001)
        .mentions("postgresql 5");
    assert!(state(&env)["profiles"].to_string().contains(&other));
}

/// A directory store with a snapshot `base` of its fixture, and changes
/// after it: `(store, state of the snapshot, state now)`.
fn crash_fixture() -> (Env, Value, Value) {
    let env = Env::new();
    let (prm, csp) = fixture(&env);
    ok(env.run(&["store", "snapshot", "save", "base"]));
    let saved = state(&env);
    change(&env, &prm, &csp);
    let now = state(&env);
    (env, saved, now)
}

/// After a crash of a restore, the next command sees `want` and the store
/// is clean (the restore finished, or never happened).
fn after_crash(env: &Env, want: &Value, what: &str) {
    assert_eq!(&state(env), want, "{what}");
    assert!(!env.path().join("restore.json").exists(), "{what}");
    assert_clean(env, what);
    // And it still restores as always.
    ok(env.run(&["store", "snapshot", "restore", "base", "--yes"]));
    assert!(!env.path().join("restore.staging").exists(), "{what}");
    assert_clean(env, what);
}

#[test]
fn a_restore_aborted_at_each_point_leaves_the_old_records_or_the_new() {
    let (fixture_env, saved, now) = crash_fixture();
    let points = [
        ("restore-staged", false),
        ("after-rename", true),
        ("restore-swapped:1", true),
        ("restore-swapped:2", true),
        ("restore-swapped:4", true),
        ("restore-done", true),
    ];
    for (point, committed) in points {
        let env = common::clone_env(&fixture_env);
        let mut c = payctl(&env, "json");
        c.args(["store", "snapshot", "restore", "base", "--yes"]);
        c.env("PAYCTL_FAULT", point);
        let o = finish(common::feed(c, None));
        assert_ne!(o.code, 0, "{point}: {o:?}");
        let want = if committed { &saved } else { &now };
        after_crash(&env, want, point);
    }
}

/// Start a restore that sleeps at `slow`, wait until `seen` is in the
/// store, then SIGKILL it.
fn kill_restore(env: &Env, slow: &str, seen: &str) {
    let mut c = payctl(env, "json");
    c.args(["store", "snapshot", "restore", "base", "--yes"]);
    c.env("PAYCTL_SLOW", slow);
    let mut child = common::feed(c, None);
    let start = Instant::now();
    while !env.path().join(seen).exists() {
        assert!(start.elapsed() < Duration::from_secs(20), "no {seen}");
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(50));
    child.kill().expect("SIGKILL");
    let status = child.wait().unwrap();
    assert!(!status.success(), "the restore ended before the kill");
}

#[test]
fn kill_9_during_a_restore_leaves_the_old_records_or_the_new() {
    let (fixture_env, saved, now) = crash_fixture();
    // Killed while copying the snapshot in, before the commit point: as it was.
    let env = common::clone_env(&fixture_env);
    kill_restore(&env, "restore-staged:2000", "restore.staging");
    assert!(!env.path().join("restore.json").exists());
    after_crash(&env, &now, "killed before its commit point");
    // Killed between the swaps of the directories: the next command
    // finishes it.
    for _ in 0..2 {
        let env = common::clone_env(&fixture_env);
        kill_restore(&env, "restore-swapping:300", "restore.json");
        assert!(env.path().join("restore.json").exists());
        after_crash(&env, &saved, "killed while swapping");
    }
}

/// A server on `env` (no worker), with `extra` flags.
fn server(env: &Env) -> Server {
    Server::start(env, &["--quiet"])
}

#[test]
fn the_routes_answer_and_every_server_sees_a_restore_at_once() {
    let env = Env::new();
    let (_, csp) = fixture(&env);
    let a = server(&env);
    let b = server(&env);
    let saved = a.send("POST", "/_payctl/snapshots/base", None, &[]);
    assert_eq!(saved.status, 200, "{saved:?}");
    assert_eq!(saved.json["data"][0]["snapshot_name"], "base");
    let listed = b.get("/_payctl/snapshots");
    assert_eq!(
        listed.json["data"][0]["snapshot_name"], "base",
        "{listed:?}"
    );
    assert_eq!(listed.json["paging"]["total_count"], 1);
    // A change through b, a restore through a: b sees the restored records
    // at its next request.
    let later = b
        .post("/customer-profiles", &common::profile_body("snap-srv-1"))
        .id();
    assert_eq!(b.get(&format!("/customer-profiles/{later}")).status, 200);
    let r = a.send("POST", "/_payctl/snapshots/base/restore", None, &[]);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(b.get(&format!("/customer-profiles/{later}")).status, 404);
    assert_eq!(b.get(&format!("/customer-profiles/{csp}")).status, 200);
    // Refusals: unknown, bad name, dry run; nothing changed.
    a.send("POST", "/_payctl/snapshots/none/restore", None, &[])
        .refused(404, 20001);
    a.send("POST", "/_payctl/snapshots/.x/restore", None, &[])
        .refused(400, 10001);
    a.send(
        "POST",
        "/_payctl/reset",
        None,
        &[("Payctl-Dry-Run", "true")],
    )
    .refused(400, 10001);
    assert_eq!(b.get(&format!("/customer-profiles/{csp}")).status, 200);
    // Reset through b: a sees an empty store.
    let reset = b.send("POST", "/_payctl/reset", None, &[]);
    assert_eq!(
        reset.json["data"][0],
        json!({"customer_profiles": 1, "transactions": 1})
    );
    assert_eq!(a.get("/customer-profiles").json["paging"]["total_count"], 0);
    // The CLI in remote mode, the same commands.
    let o = a.cli(&env, &["store", "snapshot", "restore", "base", "--yes"]);
    assert_eq!(ok(o).data()[0]["snapshot_name"], "base");
    assert_eq!(b.get("/customer-profiles").json["paging"]["total_count"], 1);
    let o = a.cli(&env, &["store", "snapshot", "delete", "base", "--yes"]);
    assert_eq!(ok(o).data()[0]["id"], "base");
    let o = a.cli(&env, &["store", "reset", "--yes"]);
    assert_eq!(ok(o).data()[0]["customer_profiles"], 1);
    a.send("DELETE", "/_payctl/snapshots/base", None, &[])
        .refused(404, 20001);
    // Without keys, a request a web page could send is refused.
    a.send(
        "POST",
        "/_payctl/reset",
        None,
        &[("Origin", "http://evil.example")],
    )
    .refused(403, 10011);
}

#[test]
fn the_routes_need_an_admin_key() {
    let env = Env::new();
    fixture(&env);
    let secret = |name: &str, role: &str| -> String {
        let o = ok(env.run(&["key", "create", name, "--role", role]));
        o.data()[0]["secret"].as_str().unwrap().to_string()
    };
    let admin = secret("ci", "admin");
    let writer = secret("svc", "writer");
    let s = server(&env);
    let bearer = |k: &str| format!("Bearer {k}");
    for (method, path) in [
        ("POST", "/_payctl/snapshots/base"),
        ("GET", "/_payctl/snapshots"),
        ("POST", "/_payctl/snapshots/base/restore"),
        ("DELETE", "/_payctl/snapshots/base"),
        ("POST", "/_payctl/reset"),
    ] {
        s.send(method, path, None, &[]).refused(401, 10007);
        s.send(method, path, None, &[("Authorization", &bearer(&writer))])
            .refused(403, 10010);
    }
    let auth = [("Authorization", bearer(&admin))];
    let auth: Vec<(&str, &str)> = auth.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert_eq!(
        s.send("POST", "/_payctl/snapshots/base", None, &auth)
            .status,
        200
    );
    assert_eq!(s.send("POST", "/_payctl/reset", None, &auth).status, 200);
    assert_eq!(
        s.send("POST", "/_payctl/snapshots/base/restore", None, &auth)
            .status,
        200
    );
    assert_eq!(
        s.send("DELETE", "/_payctl/snapshots/base", None, &auth)
            .status,
        200
    );
}

#[test]
#[ignore = "needs PostgreSQL"]
fn servers_on_one_database_see_a_restore_and_a_kill_rolls_it_back() {
    let Some(env) = Env::database("snapshot::servers_on_one_database") else {
        return;
    };
    let (prm, csp) = fixture(&env);
    let a = server(&env);
    let b = server(&env);
    assert_eq!(
        a.send("POST", "/_payctl/snapshots/base", None, &[]).status,
        200
    );
    let later = b
        .post("/customer-profiles", &common::profile_body("snap-pg-1"))
        .id();
    let r = a.send("POST", "/_payctl/snapshots/base/restore", None, &[]);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(b.get(&format!("/customer-profiles/{later}")).status, 404);
    assert_eq!(b.get(&format!("/customer-profiles/{csp}")).status, 200);
    drop((a, b));
    // A restore killed after it deleted and refilled the tables, before its
    // commit: the database rolls it all back.
    change(&env, &prm, &csp);
    let now = state(&env);
    let mut c = payctl(&env, "json");
    c.args(["store", "snapshot", "restore", "base", "--yes"]);
    c.env("PAYCTL_SLOW", "restore-filled:3000");
    let mut child = common::feed(c, None);
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    assert!(!child.wait().unwrap().success());
    assert_eq!(state(&env), now);
    ok(env.run(&["store", "check"]));
    ok(env.run(&["store", "snapshot", "restore", "base", "--yes"]));
    assert_ne!(state(&env), now);
    ok(env.run(&["store", "check"]));
}
