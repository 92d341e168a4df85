//! Issue 36, the event log, through the real binary and a real `payctl
//! serve`: every event type a command makes, masking, filters and paging,
//! `history`, `events tail`, the chain check against each kind of
//! tampering (and `--repair` leaving history alone), concurrent processes,
//! and the same on PostgreSQL.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::serve::Server;
use crate::common::{self, Env, Out, ach_instrument_body, address_body, finish, profile_body};

fn ok(o: Out) -> Out {
    assert_eq!(o.code, 0, "{o:?}");
    o
}

/// Every event of the store, oldest first.
fn all_events(env: &Env) -> Vec<Value> {
    ok(env.run(&["events", "list", "--all"])).data().clone()
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap().to_string())
        .collect()
}

/// The whole lifecycle: a profile and its update, addresses (a new default
/// demotes the old one, a delete), an instrument and its update, an attach
/// and its outcome, a transaction that completes and one that fails.
fn lifecycle(env: &Env) -> (String, String) {
    let csp = env.create_profile("events-0001");
    ok(env.run(&["profile", "update", &csp, "--email", "ada.l@example.com"]));
    let a1 = ok(env.body(&["address", "create", &csp], &address_body(true))).id();
    let a2 = ok(env.body(&["address", "create", &csp], &address_body(true))).id();
    let a3 = ok(env.body(&["address", "create", &csp], &address_body(false))).id();
    ok(env.run(&["address", "update", &csp, &a3, "--city", "Boston"]));
    ok(env.run(&["address", "delete", &csp, &a3, "--yes"]));
    let _ = a1;
    let _ = a2;
    let prm = env.program_id();
    ok(env.run(&["program", "attach", &prm, &csp]));
    ok(env.run(&["worker"]));
    // Without a funding instrument the ACH funding fails.
    let failed = ok(env.run(&common::txn_create_args(
        &prm,
        "ach_funding",
        &[&format!("@source_customers={csp}:10.00")],
    )))
    .id();
    ok(env.run(&["worker"]));
    let body = ach_instrument_body(
        &prm,
        "Funding",
        true,
        json!([{"key": "bank", "value": "first"}]),
    );
    let pin = ok(env.body(&["instrument", "create", &csp], &body)).id();
    ok(env.run(&["instrument", "update", &csp, &pin, "--label", "Main"]));
    (csp, failed)
}

#[test]
fn every_change_records_its_events_masked_and_chained() {
    let env = Env::new();
    let (csp, failed) = lifecycle(&env);
    let events = all_events(&env);
    let t = types(&events);
    for expected in [
        "customer_profile.created",
        "customer_profile.updated",
        "address.created",
        "address.updated",
        "address.deleted",
        "payment_instrument.created",
        "payment_instrument.updated",
        "attachment.requested",
        "attachment.attached",
        "transaction.created",
        "transaction_step.created",
        "transaction_step.failed",
        "transaction.failed",
    ] {
        assert!(
            t.contains(&expected.to_string()),
            "{expected} missing: {t:?}"
        );
    }
    // Gapless, with ids carrying their sequence, UTC times, the actor.
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence"], i + 1);
        assert!(e["event_id"].as_str().unwrap().starts_with("evt_"));
        assert_eq!(e["hash"].as_str().unwrap().len(), 64);
        if i > 0 {
            assert_eq!(e["previous_hash"], events[i - 1]["hash"]);
        }
    }
    assert_eq!(events[0]["actor"], "tester", "{}", events[0]);
    // A new default address demotes the old one: two events of one commit.
    let demoted = events
        .iter()
        .filter(|e| e["event_type"] == "address.updated" && e["data"]["is_default"] == false)
        .count();
    assert!(demoted >= 1, "{t:?}");
    // The data is the record as a GET shows it.
    let updated = events
        .iter()
        .find(|e| e["event_type"] == "customer_profile.updated")
        .unwrap();
    let got = ok(env.run(&["profile", "get", &csp]));
    assert_eq!(updated["data"], got.data()[0]);
    // The failed transaction's history, in the order a reader expects.
    let h = ok(env.run(&["history", &failed]));
    assert_eq!(
        types(h.data()),
        ["transaction.created", "transaction.failed"]
    );
    // The profile's history: its own events and its attachment's.
    let h = types(ok(env.run(&["history", &csp])).data());
    assert_eq!(
        h,
        [
            "customer_profile.created",
            "customer_profile.updated",
            "attachment.requested",
            "attachment.attached"
        ]
    );
    // Masked everywhere: output and the store's files.
    let all = ok(env.run(&["events", "list", "--all"])).stdout;
    for secret in ["123456789", "000123456789"] {
        assert!(!all.contains(secret), "{secret} in the events");
    }
    for (path, bytes) in env.snapshot() {
        if path.to_string_lossy().contains("events") {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains("123456789"), "{path:?}");
        }
    }
    ok(env.store_check(false));
}

#[test]
fn a_refusal_or_a_dry_run_records_nothing() {
    let env = Env::new();
    let csp = env.create_profile("events-0002");
    let before = all_events(&env).len();
    env.body(&["profile", "create"], &profile_body("events-0002"))
        .refused(1, 21002);
    env.run(&["profile", "update", &csp, "--email", "not-an-email"])
        .refused(1, 10001);
    ok(env.run(&[
        "profile",
        "update",
        &csp,
        "--email",
        "x@example.com",
        "--dry-run",
    ]));
    assert_eq!(all_events(&env).len(), before);
}

#[test]
fn filters_paging_and_get() {
    let env = Env::new();
    for i in 0..5 {
        env.create_profile(&format!("events-p{i:03}"));
    }
    let csp = env.create_profile("events-pxxx");
    ok(env.run(&["profile", "update", &csp, "--first-name", "Grace"]));
    let page = ok(env.run(&["events", "list", "--page-size", "2"]));
    assert_eq!(page.json["paging"]["total_count"], 7);
    let key = page.json["paging"]["last_evaluated_key"]
        .as_str()
        .unwrap()
        .to_string();
    let next = ok(env.run(&["events", "list", "--page-size", "2", "--after", &key]));
    assert_eq!(next.data()[0]["sequence"], 3);
    let last = ok(env.run(&["events", "list", "--page-size", "2", "--page-number", "4"]));
    assert_eq!(last.data().len(), 1);
    assert!(last.json["paging"]["last_evaluated_key"].is_null());
    let upd = ok(env.run(&["events", "list", "--type", "*.updated"]));
    assert_eq!(types(upd.data()), ["customer_profile.updated"]);
    let both = ok(env.run(&[
        "events",
        "list",
        "--type",
        "customer_profile.updated,address.*",
        "--record",
        &csp,
    ]));
    assert_eq!(both.data().len(), 1);
    let since = ok(env.run(&["events", "list", "--since", "2000-01-01"]));
    assert_eq!(since.data().len(), 7);
    let future = ok(env.run(&["events", "list", "--since", "2999-01-01T00:00:00Z"]));
    assert_eq!(future.data().len(), 0);
    let id = upd.data()[0]["event_id"].as_str().unwrap();
    let one = ok(env.run(&["events", "get", id]));
    assert_eq!(one.data()[0]["event_type"], "customer_profile.updated");
    // Refusals name the flag or the id.
    env.run(&["events", "get", "evt_00000000ffzzzzzzzzzz"])
        .refused(1, 20001);
    env.run(&["events", "list", "--type", "profile.made"])
        .refused(1, 10001)
        .mentions("type");
    env.run(&["events", "list", "--since", "yesterday"])
        .refused(1, 10001)
        .mentions("since");
    env.run(&["events", "list", "--after", "evt_nope"])
        .refused(1, 10001);
    let table = ok(env.run(&["events", "list", "-o", "table"]));
    assert!(
        table.stdout.contains("customer_profile.updated"),
        "{table:?}"
    );
}

#[test]
fn tail_follows_new_events_as_json_lines() {
    let env = Env::new();
    env.create_profile("events-t001");
    let mut c = common::payctl(&env, "json");
    c.args([
        "events",
        "tail",
        "--type",
        "customer_profile.*",
        "--interval",
        "0.1",
    ]);
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let a = env.create_profile("events-t002");
    let b = env.create_profile("events-t003");
    ok(env.run(&["profile", "update", &a, "--first-name", "Tail"]));
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut got = Vec::new();
    let end = Instant::now() + Duration::from_secs(20);
    while got.len() < 3 && Instant::now() < end {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(200)) {
            got.push(serde_json::from_str::<Value>(&l).expect("a JSON line"));
        }
    }
    let _ = rustix_kill(&child);
    let o = finish(child);
    assert_eq!(got.len(), 3, "{got:?} {o:?}");
    assert_eq!(got[0]["record_id"], a.as_str());
    assert_eq!(got[1]["record_id"], b.as_str());
    assert_eq!(got[2]["event_type"], "customer_profile.updated");
    // --from replays from a sequence.
    let mut c = common::payctl(&env, "json");
    c.args(["events", "tail", "--from", "2", "--interval", "0.1"]);
    c.stdout(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let out = child.stdout.take().unwrap();
    let first = BufReader::new(out).lines().next().unwrap().unwrap();
    let _ = rustix_kill(&child);
    let _ = child.wait();
    let first: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["sequence"], 2);
}

/// SIGINT, as Ctrl-C sends it.
fn rustix_kill(child: &std::process::Child) -> std::io::Result<()> {
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .map(|_| ())
}

fn log_file(env: &Env) -> std::path::PathBuf {
    env.path().join("events/log/00000000.jsonl")
}

fn lines_of(env: &Env) -> Vec<String> {
    std::fs::read_to_string(log_file(env))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(env: &Env, lines: &[String]) {
    std::fs::write(log_file(env), lines.join("\n") + "\n").unwrap();
}

#[test]
fn store_check_reports_every_kind_of_tampering_and_repair_never_rewrites_history() {
    let fixture = Env::new();
    for i in 0..4 {
        fixture.create_profile(&format!("events-c{i:03}"));
    }
    let lines = lines_of(&fixture);
    assert_eq!(lines.len(), 4);
    let id_of = |l: &str| {
        serde_json::from_str::<Value>(l).unwrap()["event_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // Changed: an actor rewritten.
    let env = common::clone_env(&fixture);
    let mut l = lines.clone();
    l[1] = l[1].replace("\"actor\":\"tester\"", "\"actor\":\"mallory\"");
    assert_ne!(l[1], lines[1]);
    write_lines(&env, &l);
    let o = env.store_check(false);
    o.refused(3, 30006)
        .mentions(&id_of(&lines[1]))
        .mentions("changed");
    // --repair reports it and leaves the log as it was.
    let before = std::fs::read(log_file(&env)).unwrap();
    let o = env.store_check(true);
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(std::fs::read(log_file(&env)).unwrap(), before);
    // Removed: the second event gone.
    let env = common::clone_env(&fixture);
    let mut l = lines.clone();
    l.remove(1);
    write_lines(&env, &l);
    env.store_check(false).refused(3, 30006).mentions("removed");
    // Cut from the end: the last event gone (the log's head is its last
    // line; the customer file its commit wrote still names it).
    let env = common::clone_env(&fixture);
    let mut l = lines.clone();
    let cut: Value = serde_json::from_str(&l.pop().unwrap()).unwrap();
    write_lines(&env, &l);
    let o = env.store_check(false);
    o.refused(3, 30006)
        .mentions("removed from its end")
        .mentions(cut["record_id"].as_str().unwrap())
        .mentions("names event 4");
    // --repair keeps the evidence: the file still names it.
    let csp = cut["record_id"].as_str().unwrap();
    let file = env
        .path()
        .join(format!("customers/{}/{csp}.json", &csp[4..6]));
    let before = std::fs::read(&file).unwrap();
    assert_ne!(env.store_check(true).code, 0);
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // The last two cut: the third's file names event 3.
    let env = common::clone_env(&fixture);
    write_lines(&env, &lines[..2]);
    env.store_check(false)
        .refused(3, 30006)
        .mentions("removed from its end");
    // Reordered: the second and third swapped.
    let env = common::clone_env(&fixture);
    let mut l = lines.clone();
    l.swap(1, 2);
    write_lines(&env, &l);
    env.store_check(false)
        .refused(3, 30006)
        .mentions(&id_of(&lines[2]));
    // Forged: a whole event rewritten with a fresh hash of its own still
    // breaks the next event's previous_hash.
    let env = common::clone_env(&fixture);
    let mut l = lines.clone();
    let mut v: Value = serde_json::from_str(&l[1]).unwrap();
    v["hash"] = json!("0".repeat(64));
    l[1] = v.to_string();
    write_lines(&env, &l);
    env.store_check(false).refused(3, 30006);
    // Untouched: clean.
    ok(fixture.store_check(false));
}

/// A transaction's events cut from the log's end: its file names the
/// worker's last event, which `store check` reports.
#[test]
fn events_cut_after_a_transaction_are_named_by_its_file() {
    let env = Env::new();
    let csp = env.create_profile("events-t001");
    let prm = env.program_id();
    ok(env.run(&["program", "attach", &prm, &csp]));
    ok(env.run(&["worker"]));
    let trn = ok(env.run(&common::txn_create_args(
        &prm,
        "ach_funding",
        &[&format!("@source_customers={csp}:10.00")],
    )))
    .id();
    ok(env.run(&["worker"]));
    ok(env.store_check(false));
    let lines = lines_of(&env);
    let last: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(last["record_id"], trn.as_str(), "{last}");
    // The transaction's creation and its failure cut.
    let kept = lines
        .iter()
        .take_while(|l| !l.contains("\"transaction.created\""))
        .cloned()
        .collect::<Vec<_>>();
    assert!(kept.len() < lines.len());
    write_lines(&env, &kept);
    env.store_check(false)
        .refused(3, 30006)
        .mentions("removed from its end")
        .mentions(&trn)
        .mentions(&format!("names event {}", lines.len()));
}

/// The record index is derived from the log: the buckets
/// (`events/records/XX`) hold the lines of every segment but the last
/// (whose events `history` reads from the segment itself). A bucket lost
/// or edited is named by `store check` and rebuilt by `--repair`, so that
/// `history` finds every event again; while the chain is broken the index
/// is left as it is (it is evidence then).
#[test]
fn store_check_rebuilds_the_record_index_from_an_intact_log() {
    let fixture = Env::new();
    // 1,030 creates: the first segment (1,024 events) is in the buckets,
    // the rest and the updates below only in the second segment.
    ok(fixture.run_with(
        &["profile", "import", "-"],
        Some(common::profile_lines("events-r", 1030).as_bytes()),
    ));
    let ids: Vec<String> = fixture.all_profiles()[..6]
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
        .collect();
    for (i, csp) in ids.iter().enumerate() {
        ok(fixture.body(
            &["profile", "update", csp],
            &json!({"customer_profile_individual": {"first_name": format!("Renamed{i}")}}),
        ));
    }
    let history = history_sequences;
    let want: Vec<Vec<u64>> = ids.iter().map(|id| history(&fixture, id)).collect();
    for h in &want {
        assert_eq!(h.len(), 2, "{want:?}");
        assert!(h[0] <= 1024 && h[1] > 1024, "{want:?}");
    }
    assert_eq!(bucket_lines(&fixture), 1024);
    assert!(!fixture.path().join("events/log/00000000.records").exists());
    assert!(!fixture.path().join("events/log/00000001.records").exists());
    let bucket_of = bucket_naming;
    ok(fixture.store_check(false));

    // A bucket removed: the record's creation is missing from its history
    // until the repair.
    let env = common::clone_env(&fixture);
    std::fs::remove_file(bucket_of(&env, &ids[0])).unwrap();
    assert_eq!(history(&env, &ids[0]), want[0][1..]);
    let o = env.store_check(false);
    assert_eq!(o.code, 3, "{o:?}");
    o.mentions("events/records").mentions("--repair");
    let log_before = std::fs::read(log_file(&env)).unwrap();
    let o = env.store_check(true);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("rebuilt the event record index"), "{o:?}");
    ok(env.store_check(false));
    for (id, h) in ids.iter().zip(&want) {
        assert_eq!(&history(&env, id), h, "{id}");
    }
    assert_eq!(std::fs::read(log_file(&env)).unwrap(), log_before);

    // A bucket line edited to name another record's event, and a stray
    // line. (A sequence past the log's end would read as events cut from
    // it, which is evidence the repair keeps.)
    let env = common::clone_env(&fixture);
    let path = bucket_of(&env, &ids[1]);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        &format!("{} {}\n", ids[1], want[1][0]),
        &format!("{} {}\n", ids[1], want[0][0]),
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&path, format!("{edited}garbage\n")).unwrap();
    env.store_check(false)
        .refused(3, 30006)
        .mentions("events/records");
    ok(env.store_check(true));
    ok(env.store_check(false));
    assert_eq!(history(&env, &ids[1]), want[1]);

    // A bucket line naming an event of the last segment (which the
    // buckets never hold) is off too, and repaired away.
    let env = common::clone_env(&fixture);
    let path = bucket_of(&env, &ids[2]);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&format!("{} {}\n", ids[2], want[2][1]));
    std::fs::write(&path, text).unwrap();
    assert_eq!(history(&env, &ids[2]), want[2]);
    env.store_check(false)
        .refused(3, 30006)
        .mentions("events/records");
    ok(env.store_check(true));
    assert_eq!(history(&env, &ids[2]), want[2]);
    assert_eq!(bucket_lines(&env), 1024);
    ok(env.store_check(false));

    // A broken chain: --repair leaves the index as it is.
    let env = common::clone_env(&fixture);
    let mut l = lines_of(&env);
    l.remove(2);
    write_lines(&env, &l);
    let path = bucket_of(&env, &ids[2]);
    let before = std::fs::read(&path).unwrap();
    let o = env.store_check(true);
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// A store of format 12 kept the last segment's record lines in a
/// companion file, one of format 10 or 11 in the buckets with the rest: the
/// first command to open it upgrades it to 13, whose buckets hold the full
/// segments' lines only and no companion, and `history` and `store check`
/// read as before.
#[test]
fn stores_of_formats_11_and_12_upgrade_their_record_index() {
    let fixture = Env::new();
    ok(fixture.run_with(
        &["profile", "import", "-"],
        Some(common::profile_lines("events-u", 1030).as_bytes()),
    ));
    let id = fixture.all_profiles()[0]["customer_profile_id"]
        .as_str()
        .unwrap()
        .to_string();
    ok(fixture.body(
        &["profile", "update", &id],
        &json!({"customer_profile_individual": {"first_name": "Later"}}),
    ));
    let history = |env: &Env| history_sequences(env, &id);
    assert_eq!(history(&fixture), vec![1, 1031]);
    // The record lines of the last segment (1025..=1031), from the log.
    let seg1 = std::fs::read_to_string(fixture.path().join("events/log/00000001.jsonl")).unwrap();
    let last_lines: String = seg1
        .lines()
        .map(|l| {
            let e: Value = serde_json::from_str(l).unwrap();
            format!("{} {}\n", e["record_id"].as_str().unwrap(), e["sequence"])
        })
        .collect();
    assert_eq!(last_lines.lines().count(), 7);
    let meta = |env: &Env| -> Value {
        serde_json::from_slice(&std::fs::read(env.path().join("meta.json")).unwrap()).unwrap()
    };
    let set_version = |env: &Env, v: u32| {
        std::fs::write(
            env.path().join("meta.json"),
            format!("{{\"format_version\":{v}}}\n"),
        )
        .unwrap();
    };

    // Format 12: the companion.
    let env = common::clone_env(&fixture);
    let companion = env.path().join("events/log/00000001.records");
    std::fs::write(&companion, &last_lines).unwrap();
    set_version(&env, 12);
    assert_eq!(history(&env), vec![1, 1031]);
    assert_eq!(meta(&env), json!({"format_version": 14}));
    assert!(!companion.exists());
    assert_eq!(bucket_lines(&env), 1024);
    ok(env.store_check(false));

    // Format 11: the last segment's lines in the buckets too (here all in
    // one bucket: the upgrade goes by their sequence).
    let env = common::clone_env(&fixture);
    let bucket = bucket_naming(&env, &id);
    let mut text = std::fs::read_to_string(&bucket).unwrap();
    text.push_str(&last_lines);
    std::fs::write(&bucket, text).unwrap();
    set_version(&env, 11);
    assert_eq!(history(&env), vec![1, 1031]);
    assert_eq!(meta(&env), json!({"format_version": 14}));
    assert_eq!(bucket_lines(&env), 1024);
    ok(env.store_check(false));
}

/// The sequences of `id`'s events, as `history` answers them.
fn history_sequences(env: &Env, id: &str) -> Vec<u64> {
    ok(env.run(&["history", id]))
        .data()
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect()
}

/// The record bucket that names `id`.
fn bucket_naming(env: &Env, id: &str) -> std::path::PathBuf {
    std::fs::read_dir(env.path().join("events/records"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains(id))
        .expect("a bucket names the record")
}

/// The lines of the record buckets, all together.
fn bucket_lines(env: &Env) -> usize {
    std::fs::read_dir(env.path().join("events/records"))
        .map(|d| {
            d.map(|e| {
                std::fs::read_to_string(e.unwrap().path())
                    .unwrap()
                    .lines()
                    .count()
            })
            .sum()
        })
        .unwrap_or(0)
}

/// A commit that starts a segment moves the record lines of the one it
/// leaves to the buckets: `history` reads the same across the boundary,
/// one update at a time.
#[test]
fn the_record_index_moves_to_the_buckets_as_a_segment_fills() {
    let env = Env::new();
    ok(env.run_with(
        &["profile", "import", "-"],
        Some(common::profile_lines("events-b", 1020).as_bytes()),
    ));
    let first = env.all_profiles()[0]["customer_profile_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(bucket_lines(&env), 0);
    let mut seqs = Vec::new();
    for i in 0..8 {
        ok(env.body(
            &["profile", "update", &first],
            &json!({"customer_profile_individual": {"first_name": format!("Again{i}")}}),
        ));
        let h = history_sequences(&env, &first);
        seqs.push(*h.last().unwrap());
        assert_eq!(h.len(), i + 2, "{h:?}");
    }
    assert_eq!(seqs, (1021..=1028).collect::<Vec<u64>>());
    // Segment 0 is full: its 1,024 lines are in the buckets, the first
    // profile's creation and its updates 1021 to 1024 among them.
    assert_eq!(bucket_lines(&env), 1024);
    let bucketed: Vec<String> = std::fs::read_dir(env.path().join("events/records"))
        .unwrap()
        .flat_map(|e| {
            std::fs::read_to_string(e.unwrap().path())
                .unwrap()
                .lines()
                .filter(|l| l.starts_with(&first))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(bucketed.len(), 5, "{bucketed:?}");
    ok(env.store_check(false));
}

/// Concurrent creates through the server (its group commits) across a
/// segment's end: the record lines of the full segment move to the buckets
/// once, every event is in its record's history, and the store checks clean.
#[test]
fn group_commits_across_a_segment_end_keep_the_record_index_whole() {
    let env = Env::new();
    ok(env.run_with(
        &["profile", "import", "-"],
        Some(common::profile_lines("events-g", 1020).as_bytes()),
    ));
    let s = Server::start(&env, &[]);
    let ids: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let s = &s;
                scope.spawn(move || {
                    (0..5)
                        .map(|i| {
                            let r = s.post(
                                "/customer-profiles",
                                &common::profile_body(&format!("events-h{t}{i}")),
                            );
                            assert_eq!(r.status, 201, "{}", r.text);
                            r.id()
                        })
                        .collect::<Vec<String>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    drop(s);
    assert_eq!(ids.len(), 40);
    let mut seqs: Vec<u64> = ids
        .iter()
        .map(|id| {
            let h = ok(env.run(&["history", id]));
            assert_eq!(h.data().len(), 1, "{id}");
            h.data()[0]["sequence"].as_u64().unwrap()
        })
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1021..=1060).collect::<Vec<u64>>());
    assert_eq!(bucket_lines(&env), 1024);
    ok(env.store_check(false));
}

#[test]
fn store_migrate_copies_the_log_as_it_is() {
    let env = Env::new();
    lifecycle(&env);
    let target = env.path().with_file_name("migrated");
    let o = ok(env.run(&["store", "migrate", "--to", target.to_str().unwrap()]));
    let n = all_events(&env).len();
    assert_eq!(o.data()[0]["events"], n, "{o:?}");
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_payctl"));
    c.args(["--data-dir", target.to_str().unwrap(), "-o", "json"]);
    c.args(["events", "list", "--all"])
        .env_remove("PAYCTL_DATA_DIR");
    let copied = ok(Out::from(c.output().unwrap()));
    assert_eq!(copied.data().len(), n);
    assert_eq!(copied.data(), &all_events(&env));
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_payctl"));
    c.args([
        "--data-dir",
        target.to_str().unwrap(),
        "-o",
        "json",
        "store",
        "check",
    ]);
    ok(Out::from(c.output().unwrap()));
}

#[test]
fn concurrent_processes_keep_one_gapless_chain() {
    let env = Env::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let body = profile_body(&format!("events-r{i:03}")).to_string();
            env.spawn(&["profile", "create", "--body", "-"], Some(body.as_bytes()))
        })
        .collect();
    for c in children {
        ok(finish(c));
    }
    let events = all_events(&env);
    assert_eq!(events.len(), 8);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence"], i + 1);
    }
    ok(env.store_check(false));
}

#[test]
fn the_server_answers_the_log_and_a_reader_key_reads_it() {
    let env = Env::new();
    let csp = env.create_profile("events-s001");
    let s = Server::start(&env, &[]);
    let created = s.post("/customer-profiles", &profile_body("events-s002"));
    let other = created.id();
    let r = s.get("/events?type=customer_profile.created&page_size=1&page_number=2");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["data"][0]["record_id"], other.as_str());
    let r = s.get(&format!("/events?record_id={csp}"));
    assert_eq!(r.json["data"].as_array().unwrap().len(), 1);
    let id = r.json["data"][0]["event_id"].as_str().unwrap().to_string();
    let r = s.get(&format!("/events/{id}"));
    assert_eq!(r.json["data"][0]["record_id"], csp.as_str());
    s.get("/events?type=bogus").refused(400, 10001);
    s.get("/events?kind=x").refused(400, 10004);
    s.get("/events/evt_nothere").refused(404, 20001);
    drop(s);
    // With keys: a reader key reads the log, none does not.
    let o = ok(env.run(&["key", "create", "auditor", "--role", "reader"]));
    let secret = o.data()[0]["secret"].as_str().unwrap().to_string();
    let s = Server::start(&env, &[]);
    let auth = format!("Bearer {secret}");
    let r = s.send("GET", "/events", None, &[("Authorization", &auth)]);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json["paging"]["total_count"], 2);
    assert_eq!(s.get("/events").status, 401);
    // Remote mode: the same commands against the service.
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_payctl"));
    c.args(["--base-url", &s.base, "-o", "json", "history", &csp]);
    c.env("PAYCTL_TOKEN", &secret).env_remove("PAYCTL_DATA_DIR");
    let o = ok(Out::from(c.output().unwrap()));
    assert_eq!(types(o.data()), ["customer_profile.created"]);
}

#[test]
#[ignore = "needs PostgreSQL"]
fn the_log_on_postgresql() {
    let Some(env) = Env::database("events::the_log_on_postgresql") else {
        return;
    };
    let (csp, failed) = lifecycle(&env);
    let events = all_events(&env);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["sequence"], i + 1);
    }
    assert!(types(&events).contains(&"payment_instrument.updated".to_string()));
    let h = ok(env.run(&["history", &failed]));
    assert_eq!(
        types(h.data()),
        ["transaction.created", "transaction.failed"]
    );
    assert_eq!(ok(env.run(&["history", &csp])).data().len(), 4);
    let children: Vec<_> = (0..6)
        .map(|i| {
            let body = profile_body(&format!("events-pg{i:03}")).to_string();
            env.spawn(&["profile", "create", "--body", "-"], Some(body.as_bytes()))
        })
        .collect();
    for c in children {
        ok(finish(c));
    }
    let n = all_events(&env).len();
    assert_eq!(n, events.len() + 6);
    ok(env.store_check(false));
}

#[test]
fn a_restore_continues_its_chain_and_a_reset_starts_the_log_again() {
    let env = Env::new();
    env.create_profile("events-x001");
    ok(env.run(&["store", "snapshot", "save", "one"]));
    env.create_profile("events-x002");
    assert_eq!(all_events(&env).len(), 2);
    // The restored log (one event), then the restore itself.
    ok(env.run(&["store", "snapshot", "restore", "one", "--yes"]));
    let after = all_events(&env);
    assert_eq!(
        types(&after),
        ["customer_profile.created", "store.restored"],
        "{after:?}"
    );
    assert_eq!(after[1]["record_id"], "store");
    assert_eq!(after[1]["previous_hash"], after[0]["hash"]);
    ok(env.store_check(false));
    // A reset: every record and event gone, the reset the first event.
    ok(env.run(&["store", "reset", "--yes"]));
    let after = all_events(&env);
    assert_eq!(types(&after), ["store.reset"], "{after:?}");
    assert_eq!(after[0]["sequence"], 1);
    ok(env.store_check(false));
    env.create_profile("events-x003");
    assert_eq!(all_events(&env).len(), 2);
}

#[test]
#[ignore = "needs PostgreSQL"]
fn a_reset_and_a_restore_on_postgresql() {
    let Some(env) = Env::database("events::a_reset_and_a_restore_on_postgresql") else {
        return;
    };
    env.create_profile("events-y001");
    ok(env.run(&["store", "snapshot", "save", "one"]));
    env.create_profile("events-y002");
    ok(env.run(&["store", "snapshot", "restore", "one", "--yes"]));
    assert_eq!(
        types(&all_events(&env)),
        ["customer_profile.created", "store.restored"]
    );
    ok(env.store_check(false));
    ok(env.run(&["store", "reset", "--yes"]));
    assert_eq!(types(&all_events(&env)), ["store.reset"]);
    env.create_profile("events-y003");
    assert_eq!(all_events(&env).len(), 2);
    ok(env.store_check(false));
}
