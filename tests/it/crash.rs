//! Crashes and `store check`: a payctl killed at any point of its write path
//! (fault injection with `PAYCTL_FAULT`, or a real SIGKILL at a random moment)
//! leaves the store either as it was or with the whole change, which the next
//! command completes; `store check` finds what was damaged by hand and
//! `--repair` rebuilds what is derived without touching a record.
//!
//! The fault-injection tests are exhaustive: for every fault point they abort
//! at its 1st, 2nd, … hit until the command runs to the end without reaching
//! the point again, so every file of a multi-file write is covered whatever
//! the number of files. The kill -9 soak runs `PAYCTL_CRASH_TRIALS` trials
//! (30 by default), each killing its command after a random 0 to
//! `PAYCTL_CRASH_MAX_MS` ms (15 by default); `PAYCTL_CRASH_SEED` replays a run.
//! A soak: `PAYCTL_CRASH_TRIALS=2000 cargo test --test it crash::kill_9 -- --nocapture`.

// The crash soak reports its rounds on stderr and reads its knobs from the environment.
#![allow(clippy::print_stderr, clippy::disallowed_methods)]

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use common::{
    Env, FAULT_POINTS, address_body, assert_clean, clone_env, feed, findings, finish, ok, payctl,
    profile_body, temp_files, txn_create_args,
};
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

fn command(env: &Env, fault: Option<&str>, args: &[&str]) -> Command {
    let mut c = payctl(env, "json");
    c.args(args);
    if let Some(f) = fault {
        c.env("PAYCTL_FAULT", f);
    }
    c
}

fn spawn(env: &Env, fault: Option<&str>, args: &[&str], stdin: Option<&[u8]>) -> Child {
    feed(command(env, fault, args), stdin)
}

/// A write whose every crash point is tried.
struct Scenario<'a> {
    name: &'a str,
    args: Vec<String>,
    body: Option<Value>,
    /// Check the store after the crash and a first read: `committed` says
    /// whether the crash came after the commit point. It ends with a write.
    verify: &'a dyn Fn(&Env, bool, &str),
}

/// Run `s` against a copy of `fixture` once per hit of every fault point;
/// the number of trials.
fn exhaust(fixture: &Env, s: &Scenario) -> usize {
    let mut trials = 0;
    for point in FAULT_POINTS {
        for n in 1.. {
            let fault = format!("{point}:{n}");
            let what = format!("{}, {fault}", s.name);
            let env = clone_env(fixture);
            let args: Vec<&str> = s.args.iter().map(String::as_str).collect();
            let mut args = args;
            let text = s.body.as_ref().map(Value::to_string);
            if text.is_some() {
                args.extend(["--body", "-"]);
            }
            let o = finish(spawn(
                &env,
                Some(&fault),
                &args,
                text.as_deref().map(str::as_bytes),
            ));
            trials += 1;
            if o.code == 0 {
                // The point is not reached that often: the command ran to its end.
                (s.verify)(&env, true, &what);
                assert_clean(&env, &what);
                break;
            }
            assert_eq!(
                o.code, -1,
                "{what}: the process should have been aborted: {o:?}"
            );
            assert_eq!(
                o.stdout, "",
                "{what}: nothing is printed before the change is durable"
            );
            // The journal's own temp file, sync and rename come first: the
            // rename of journal.json is the commit point.
            let committed =
                !(n == 1 && ["before-write", "after-write", "after-sync"].contains(point));
            // Any next command, a read too, completes or forgets the change.
            ok(env.run(&["profile", "list"]));
            assert_clean(&env, &what);
            (s.verify)(&env, committed, &what);
            assert_clean(&env, &what);
            assert!(n < 50, "{what}: runaway");
        }
    }
    eprintln!("{}: {trials} fault-injection trials", s.name);
    trials
}

#[test]
fn profile_create_crashes_are_all_or_nothing() {
    let fixture = Env::new();
    let base = fixture.create_profile("base-00001");
    let verify = |env: &Env, committed: bool, what: &str| {
        let all = env.all_profiles();
        assert_eq!(all[0]["customer_profile_id"], base.as_str(), "{what}");
        if committed {
            assert_eq!(all.len(), 2, "{what}: a committed create was lost: {all:?}");
            assert_eq!(all[1]["customer_key"], "new-00001", "{what}");
            let id = all[1]["customer_profile_id"].as_str().unwrap();
            let got = ok(env.run(&["profile", "get", id]));
            assert_eq!(got.data()[0], all[1], "{what}");
            let by_key = ok(env.run(&["profile", "list", "--customer-key", "new-00001"]));
            assert_eq!(by_key.data().len(), 1, "{what}");
            // The profile exists, so its key is taken.
            env.body(&["profile", "create"], &profile_body("new-00001"))
                .refused(1, 21002);
            ok(env.body(&["profile", "create"], &profile_body("new-00002")));
        } else {
            assert_eq!(
                all.len(),
                1,
                "{what}: an uncommitted create appeared: {all:?}"
            );
            // No dangling key index entry blocks the key.
            ok(env.body(&["profile", "create"], &profile_body("new-00001")));
            assert_eq!(env.all_profiles().len(), 2, "{what}");
        }
    };
    let n = exhaust(
        &fixture,
        &Scenario {
            name: "profile create",
            args: vec!["profile".into(), "create".into()],
            body: Some(profile_body("new-00001")),
            verify: &verify,
        },
    );
    assert!(n >= 20, "{n} trials");
}

#[test]
fn profile_update_crashes_are_all_or_nothing() {
    let fixture = Env::new();
    let csp = fixture.create_profile("upd-00001");
    let verify = |env: &Env, committed: bool, what: &str| {
        let all = env.all_profiles();
        assert_eq!(all.len(), 1, "{what}");
        let got = ok(env.run(&["profile", "get", &csp]));
        let p = &got.data()[0];
        assert_eq!(p, &all[0], "{what}");
        let ind = &p["customer_profile_individual"];
        assert_eq!(ind["first_name"] == "Crashed", committed, "{what}: {p}");
        assert_eq!(
            ind["email"] == "c@example.com",
            committed,
            "{what}: half an update: {p}"
        );
        // The summary log agrees with the record.
        let by_email = ok(env.run(&["profile", "list", "--email", "c@example.com"]));
        assert_eq!(by_email.data().len(), usize::from(committed), "{what}");
        let by_name = ok(env.run(&["profile", "list", "--first-name", "Ada"]));
        assert_eq!(by_name.data().len(), usize::from(!committed), "{what}");
        ok(env.run(&["profile", "update", &csp, "--last-name", "After"]));
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "profile update",
            args: [
                "profile",
                "update",
                &csp,
                "--first-name",
                "Crashed",
                "--email",
                "c@example.com",
            ]
            .map(String::from)
            .to_vec(),
            body: None,
            verify: &verify,
        },
    );
}

#[test]
fn address_create_crashes_never_leave_two_defaults() {
    let fixture = Env::new();
    let csp = fixture.create_profile("adr-00001");
    let first = fixture
        .body(&["address", "create", &csp], &address_body(true))
        .id();
    let verify = |env: &Env, committed: bool, what: &str| {
        let o = ok(env.run(&["address", "list", &csp]));
        let list = o.data();
        let defaults: Vec<&str> = list
            .iter()
            .filter(|a| a["is_default"] == true)
            .map(|a| a["address_id"].as_str().unwrap())
            .collect();
        assert_eq!(defaults.len(), 1, "{what}: exactly one default: {list:?}");
        assert_eq!(list[0]["address_id"], first.as_str(), "{what}");
        if committed {
            assert_eq!(list.len(), 2, "{what}: {list:?}");
            assert_eq!(
                defaults[0],
                list[1]["address_id"].as_str().unwrap(),
                "{what}: demoted"
            );
        } else {
            assert_eq!(list.len(), 1, "{what}: {list:?}");
            assert_eq!(defaults[0], first, "{what}");
        }
        ok(env.body(&["address", "create", &csp], &address_body(false)));
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "address create",
            args: ["address", "create", &csp].map(String::from).to_vec(),
            body: Some(address_body(true)),
            verify: &verify,
        },
    );
}

fn worker_summary(env: &Env) -> Value {
    ok(env.run(&["worker"])).data()[0].clone()
}

fn attachment_status(env: &Env, prm: &str, csp: &str) -> Option<u64> {
    let o = env.run(&["program", "profile", prm, csp]);
    match o.code {
        0 => o.data()[0]["customer_profile_program_status_id"].as_u64(),
        _ => {
            o.refused(1, 10001);
            None
        }
    }
}

#[test]
fn program_attach_crashes_are_all_or_nothing() {
    let fixture = Env::new();
    let prm = fixture.program_id();
    let csp = fixture.create_profile("att-00001");
    let verify = |env: &Env, committed: bool, what: &str| {
        if committed {
            assert_eq!(attachment_status(env, &prm, &csp), Some(1), "{what}");
            env.run(&["program", "attach", &prm, &csp])
                .refused(1, 21001);
        } else {
            assert_eq!(attachment_status(env, &prm, &csp), None, "{what}");
            ok(env.run(&["program", "attach", &prm, &csp]));
        }
        // Queued exactly once either way.
        assert_eq!(worker_summary(env)["attachments_processed"], 1, "{what}");
        assert_eq!(attachment_status(env, &prm, &csp), Some(10), "{what}");
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "program attach",
            args: ["program", "attach", &prm, &csp, "--reason", "crash"]
                .map(String::from)
                .to_vec(),
            body: None,
            verify: &verify,
        },
    );
}

#[test]
fn worker_crashes_process_a_batch_wholly_or_not_at_all() {
    let fixture = Env::new();
    let prm = fixture.program_id();
    let (s, t, u) = (
        fixture.create_profile("wrk-00001"),
        fixture.create_profile("wrk-00002"),
        fixture.create_profile("wrk-00003"),
    );
    for c in [&s, &t] {
        ok(fixture.run(&["program", "attach", &prm, c]));
    }
    worker_summary(&fixture);
    ok(fixture.run(&["program", "attach", &prm, &u]));
    let src = format!("@source_customers={s}:10.50");
    let dst = format!("@targets={t}:10.50");
    let trn = ok(fixture.run(&txn_create_args(
        &prm,
        "internal_transfer",
        &[&src, &dst, "@facilitator=0.50"],
    )))
    .id();
    let steps = |env: &Env| ok(env.run(&["txn", "steps", &trn])).data().clone();
    let verify = |env: &Env, committed: bool, what: &str| {
        let status = ok(env.run(&["txn", "get", &trn])).data()[0]["transaction_status_id"].clone();
        if committed {
            assert_eq!(attachment_status(env, &prm, &u), Some(10), "{what}");
            assert_eq!(steps(env).len(), 2, "{what}");
            assert_eq!(status, 60, "{what}");
            let w = worker_summary(env);
            assert_eq!(w["attachments_processed"], 0, "{what}: processed twice");
            assert_eq!(w["transactions_processed"], 0, "{what}: processed twice");
        } else {
            assert_eq!(attachment_status(env, &prm, &u), Some(1), "{what}");
            assert_eq!(steps(env).len(), 0, "{what}");
            assert_eq!(status, 10, "{what}");
            let w = worker_summary(env);
            assert_eq!(w["attachments_processed"], 1, "{what}");
            assert_eq!(w["transactions_processed"], 1, "{what}");
            assert_eq!(w["steps_created"], 2, "{what}");
        }
        let st = steps(env);
        let seqs: Vec<u64> = st.iter().map(|x| x["sequence"].as_u64().unwrap()).collect();
        assert_eq!(seqs, [1, 2], "{what}: one step per template step");
        assert!(
            st.iter().all(|x| x["transaction_step_status_id"] == 60),
            "{what}"
        );
        assert_eq!(attachment_status(env, &prm, &u), Some(10), "{what}");
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "worker",
            args: vec!["worker".into()],
            body: None,
            verify: &verify,
        },
    );
}

/// A transaction create writes its record, the transaction log and a queue
/// item: a crash never leaves a transaction that no worker will process.
#[test]
fn txn_create_crashes_never_strand_a_transaction() {
    let fixture = Env::new();
    let (prm, csp) = fixture.attached_profile("txc-00001");
    let src = format!("@source_customers={csp}:5.00");
    let dst = format!("@targets={csp}:5.00");
    let verify = |env: &Env, committed: bool, what: &str| {
        let list = ok(env.run(&["txn", "list"]));
        assert_eq!(
            list.data().len(),
            usize::from(committed),
            "{what}: {list:?}"
        );
        let w = worker_summary(env);
        assert_eq!(w["transactions_processed"], u64::from(committed), "{what}");
        if let Some(t) = list.data().first() {
            let trn = t["transaction_id"].as_str().unwrap();
            let steps = ok(env.run(&["txn", "steps", trn]));
            assert_eq!(steps.data().len(), 1, "{what}: {steps:?}");
            let got = ok(env.run(&["txn", "get", trn]));
            assert_eq!(got.data()[0]["transaction_status_id"], 60, "{what}");
        }
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "txn create",
            args: txn_create_args(&prm, "internal_transfer", &[&src, &dst])
                .into_iter()
                .map(String::from)
                .collect(),
            body: None,
            verify: &verify,
        },
    );
}

/// An import is one commit per chunk (a batch journal here: 8 profiles, 18
/// operations): a crash keeps all of a chunk or none of it, and re-running
/// the import with --skip-existing creates exactly the missing profiles.
#[test]
fn profile_import_crashes_keep_whole_chunks_and_a_rerun_completes() {
    import_crashes(Env::new());
}

/// The same with the chunk's profiles packed (`packs/<n>.jsonl` and the
/// shards' `packed.log`, see src/store/packs.rs), as an import of at least
/// 256 lines writes them (`PAYCTL_PACK_MIN` lowers that to 4 here).
#[test]
fn a_packed_import_crashes_keep_whole_chunks_and_a_rerun_completes() {
    let mut fixture = Env::new();
    fixture.envs.push(("PAYCTL_PACK_MIN", "4".into()));
    import_crashes(fixture);
}

fn import_crashes(fixture: Env) {
    fixture.create_profile("imp-base-1");
    let lines = common::profile_lines("imp", 8);
    let file = fixture.dir.path().join("import.jsonl");
    fs::write(&file, &lines).unwrap();
    let packed = !fixture.envs.is_empty();
    let verify = |env: &Env, committed: bool, what: &str| {
        let all = env.all_profiles();
        assert_eq!(all.len(), if committed { 9 } else { 1 }, "{what}: {all:?}");
        // Packed, the 8 have no file of their own; else each has one.
        let files = all
            .iter()
            .filter(|p| {
                env.customer_file(p["customer_profile_id"].as_str().unwrap())
                    .exists()
            })
            .count();
        let packs = env.path().join("packs").join("1.jsonl").exists();
        if committed {
            assert_eq!(
                (files, packs),
                if packed { (1, true) } else { (9, false) },
                "{what}"
            );
        }
        let o = ok(env.run_with(
            &["profile", "import", "-", "--skip-existing"],
            Some(lines.as_bytes()),
        ));
        assert_eq!(
            o.data().len(),
            if committed { 0 } else { 8 },
            "{what}: {o:?}"
        );
        let all = env.all_profiles();
        let keys: BTreeSet<&str> = all
            .iter()
            .map(|p| p["customer_key"].as_str().unwrap())
            .collect();
        // The list reads every customer file: each profile is whole.
        assert_eq!((all.len(), keys.len()), (9, 9), "{what}");
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "profile import",
            args: vec![
                "profile".into(),
                "import".into(),
                file.display().to_string(),
            ],
            body: None,
            verify: &verify,
        },
    );
}

/// A worker batch large enough to be one big journal (12 attachments: 24
/// operations, applied as a batch with one sync at the end): every crash
/// point leaves all 12 processed or none.
#[test]
fn a_large_worker_batch_is_all_or_nothing() {
    let fixture = Env::new();
    let prm = fixture.program_id();
    let kids: Vec<Child> = (0..12)
        .map(|i| {
            let body = profile_body(&format!("big-{i:05}")).to_string();
            spawn(
                &fixture,
                None,
                &["profile", "create", "--body", "-"],
                Some(body.as_bytes()),
            )
        })
        .collect();
    let ids: Vec<String> = kids.into_iter().map(|c| ok(finish(c)).id()).collect();
    for c in &ids {
        ok(fixture.run(&["program", "attach", &prm, c]));
    }
    let verify = |env: &Env, committed: bool, what: &str| {
        let o = ok(env.run(&["program", "profiles", &prm, "--page-size", "100"]));
        let statuses: BTreeSet<u64> = o
            .data()
            .iter()
            .map(|a| a["customer_profile_program_status_id"].as_u64().unwrap())
            .collect();
        let want = if committed { 10 } else { 1 };
        assert_eq!(statuses, BTreeSet::from([want]), "{what}: {o:?}");
        assert_eq!(o.data().len(), 12, "{what}");
        let w = worker_summary(env);
        assert_eq!(
            w["attachments_processed"],
            if committed { 0 } else { 12 },
            "{what}"
        );
    };
    exhaust(
        &fixture,
        &Scenario {
            name: "worker batch",
            args: vec!["worker".into()],
            body: None,
            verify: &verify,
        },
    );
}

/// A first use killed while it creates the store: the next payctl finishes
/// the creation instead of refusing a half-made directory.
#[test]
fn a_first_use_killed_halfway_is_finished_by_the_next_command() {
    for point in FAULT_POINTS {
        for n in 1..=3 {
            let fault = format!("{point}:{n}");
            let env = Env::new();
            let o = finish(spawn(&env, Some(&fault), &["profile", "list"], None));
            if o.code == 0 {
                break;
            }
            assert_eq!(o.code, -1, "{fault}: {o:?}");
            let o = ok(env.run(&["profile", "list"]));
            assert_eq!(o.json["paging"]["total_count"], 0, "{fault}");
            assert_clean(&env, &fault);
            ok(env.body(&["profile", "create"], &profile_body("first-001")));
            assert!(env.path().join("meta.json").is_file(), "{fault}");
        }
    }
}

/// A first use that finds a store half made (its creation's journal
/// committed, `meta.json` not yet written) while another payctl finishes
/// it: the journal it listed is gone when it looks at it, and the store is
/// complete, not a foreign directory (8 processes racing for a new store
/// once got "not a payctl store").
#[test]
fn a_store_finished_while_a_first_use_looks_at_it_is_not_refused() {
    let env = Env::new();
    let o = finish(spawn(
        &env,
        Some("after-rename:1"),
        &["profile", "list"],
        None,
    ));
    assert_eq!(o.code, -1, "{o:?}");
    assert!(env.path().join("journal.json").is_file());
    assert!(!env.path().join("meta.json").exists());
    // It lists the directory, then sleeps before looking at the entries.
    let mut c = command(&env, None, &["profile", "list"]);
    c.env("PAYCTL_SLOW", "store-listed:1500");
    let looking = feed(c, None);
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Meanwhile another payctl replays the journal: the store is complete.
    ok(env.run(&["profile", "list"]));
    assert!(!env.path().join("journal.json").exists());
    let o = ok(finish(looking));
    assert_eq!(o.json["paging"]["total_count"], 0);
    assert_clean(&env, "after both");
}

// ------------------------------------------------------------ kill -9

/// Longest random wait before the kill, in ms (`PAYCTL_CRASH_MAX_MS`, default 15).
fn max_sleep_ms() -> u64 {
    std::env::var("PAYCTL_CRASH_MAX_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|v| *v > 0)
        .unwrap_or(15)
}

fn trials() -> usize {
    std::env::var("PAYCTL_CRASH_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30)
}

/// Start a command, SIGKILL it after a random 0-15 ms, and check that what it
/// reported before dying is on disk, the next command leaves the store clean,
/// and the rules hold (one default address, keys unique, every attachment
/// processed once).
#[test]
fn kill_9_at_random_moments_loses_nothing_that_was_reported() {
    let seed: u64 = std::env::var("PAYCTL_CRASH_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!(
        "kill -9 soak: {} trials, PAYCTL_CRASH_SEED={seed}",
        trials()
    );
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let env = Env::new();
    let prm = env.program_id();
    let home = env.create_profile("kill-home");
    let mut keys: BTreeSet<String> = BTreeSet::new();
    let mut reported_addresses: Vec<String> = Vec::new();
    // Killed with no change made, killed after its commit but before it
    // printed, finished and reported.
    let mut outcomes = [0usize; 3];
    let max_us = 1000 * max_sleep_ms();
    let mut addresses = 0;
    for i in 0..trials() {
        let what = format!("trial {i} (PAYCTL_CRASH_SEED={seed})");
        let op = rng.random_range(0..3);
        let key = format!("kill-{i:05}");
        let child = match op {
            0 => spawn(
                &env,
                None,
                &["profile", "create", "--body", "-"],
                Some(profile_body(&key).to_string().as_bytes()),
            ),
            1 => spawn(
                &env,
                None,
                &["address", "create", &home, "--body", "-"],
                Some(address_body(true).to_string().as_bytes()),
            ),
            _ => {
                let csp = env.create_profile(&key);
                keys.insert(key.clone());
                ok(env.run(&["program", "attach", &prm, &csp]));
                spawn(&env, None, &["worker"], None)
            }
        };
        let mut child = child;
        std::thread::sleep(Duration::from_micros(rng.random_range(0..max_us)));
        let _ = child.kill();
        let o = finish(child);
        let reported = o.code == 0 && o.json["errors"].is_null() && o.json["data"].is_array();
        match op {
            0 => {
                let listed = ok(env.run(&["profile", "list", "--customer-key", &key]));
                let there = listed.data().len();
                assert!(there <= 1, "{what}: {listed:?}");
                if reported {
                    assert_eq!(there, 1, "{what}: a reported create is missing");
                    let id = o.id();
                    assert_eq!(
                        listed.data()[0]["customer_profile_id"],
                        id.as_str(),
                        "{what}"
                    );
                    ok(env.run(&["profile", "get", &id]));
                }
                outcomes[if reported { 2 } else { there }] += 1;
                if there == 0 {
                    // Not made: the key is free.
                    ok(env.body(&["profile", "create"], &profile_body(&key)));
                }
                keys.insert(key);
            }
            1 => {
                if reported {
                    reported_addresses.push(o.id());
                }
                let list = ok(env.run(&["address", "list", &home, "--page-size", "1000"]));
                let ids: BTreeSet<&str> = list
                    .data()
                    .iter()
                    .map(|a| a["address_id"].as_str().unwrap())
                    .collect();
                for a in &reported_addresses {
                    assert!(
                        ids.contains(a.as_str()),
                        "{what}: reported address {a} lost"
                    );
                }
                let defaults = list
                    .data()
                    .iter()
                    .filter(|a| a["is_default"] == true)
                    .count();
                assert_eq!(defaults, usize::from(!ids.is_empty()), "{what}: {list:?}");
                let changed = ids.len() > addresses;
                assert!(ids.len() <= addresses + 1, "{what}");
                addresses = ids.len();
                outcomes[if reported { 2 } else { usize::from(changed) }] += 1;
            }
            _ => {
                if reported {
                    assert_eq!(
                        o.json["data"][0]["attachments_processed"], 1,
                        "{what}: {o:?}"
                    );
                }
                // Whatever the killed worker did, a second one finishes the rest, once.
                let processed = worker_summary(&env)["attachments_processed"]
                    .as_u64()
                    .unwrap();
                if reported {
                    assert_eq!(processed, 0, "{what}: processed twice");
                } else {
                    // The killed one may have committed without printing.
                    assert!(processed <= 1, "{what}");
                    outcomes[usize::from(processed == 0)] += 1;
                }
                if reported {
                    outcomes[2] += 1;
                }
                let o = ok(env.run(&["program", "profiles", &prm, "--page-size", "1000"]));
                assert!(
                    o.data()
                        .iter()
                        .all(|a| a["customer_profile_program_status_id"] == 10),
                    "{what}: {o:?}"
                );
            }
        }
        assert_clean(&env, &what);
    }
    let all = env.all_profiles();
    let listed: BTreeSet<String> = all
        .iter()
        .map(|p| p["customer_key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(all.len(), listed.len(), "a key is held twice");
    assert_eq!(listed.len(), keys.len() + 1);
    eprintln!(
        "kill -9 soak: {} killed before any change, {} killed after the commit point but before printing (completed by the next command), {} reported",
        outcomes[0], outcomes[1], outcomes[2]
    );
    assert_eq!(outcomes.iter().sum::<usize>(), trials());
}

// ------------------------------------------------------------ temp files

/// A temp file left by a killed writer, before or after the commit point,
/// is gone after the next write command.
#[test]
fn temp_files_of_a_killed_writer_are_removed_by_the_next_writer() {
    // Every hit of the points between a temp file's creation and its rename.
    let mut left = Vec::new();
    for point in ["after-write", "after-sync"] {
        for n in 1.. {
            let fault = format!("{point}:{n}");
            let env = Env::new();
            env.create_profile("tmp-00001");
            let o = finish(spawn(
                &env,
                Some(&fault),
                &["profile", "create", "--body", "-"],
                Some(profile_body("tmp-00002").to_string().as_bytes()),
            ));
            if o.code == 0 {
                break;
            }
            assert_eq!(o.code, -1, "{fault}: {o:?}");
            let temps = temp_files(&env);
            if temps.is_empty() {
                continue; // an append, or a point past the rename
            }
            left.push((fault.clone(), temps.len()));
            // The next write command (not a read) removes them.
            ok(env.body(&["profile", "create"], &profile_body("tmp-00003")));
            assert!(
                temp_files(&env).is_empty(),
                "{fault}: {:?}",
                temp_files(&env)
            );
            assert_clean(&env, &fault);
        }
    }
    // The journal's temp, written and synced. (A point commit writes its
    // files in place after the commit point: the journal covers a torn one.)
    assert!(left.len() >= 2, "too few faults left a temp file: {left:?}");
    assert!(left.iter().any(|(f, _)| f == "after-write:1"), "{left:?}");
    assert!(left.iter().any(|(f, _)| f == "after-sync:1"), "{left:?}");
}

// ------------------------------------------------------------ store check

fn customer_files(env: &Env) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    common::files(&env.path().join("customers"), &mut files);
    common::files(&env.path().join("transactions"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| (p.clone(), fs::read(&p).unwrap()))
        .collect()
}

/// The bucket of the key index that has an entry for `key`, if any.
fn key_bucket(env: &Env, key: &str) -> Option<PathBuf> {
    let prefix = format!("{key} ");
    fs::read_dir(env.path().join("index/keys"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            fs::read_to_string(p)
                .unwrap()
                .lines()
                .any(|l| l.starts_with(&prefix))
        })
}

/// Remove the key index entry of `key`; its bucket's path.
fn remove_key_entry(env: &Env, key: &str) -> PathBuf {
    let bucket = key_bucket(env, key).expect("the key has an entry");
    let prefix = format!("{key} ");
    let text = fs::read_to_string(&bucket).unwrap();
    let kept: String = text
        .lines()
        .filter(|l| !l.starts_with(&prefix))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(&bucket, kept).unwrap();
    bucket
}

#[test]
fn store_check_is_clean_on_a_fresh_and_a_used_store() {
    let env = Env::new();
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["status"], "clean");
    let csp = env.create_profile("chk-00001");
    ok(env.body(&["address", "create", &csp], &address_body(true)));
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["customers"], 1);
    let o = ok(env.store_check(true));
    assert_eq!(
        o.data()[0]["repaired"],
        json!([]),
        "nothing to repair: {o:?}"
    );
}

#[test]
fn store_check_lists_each_damage_and_repair_fixes_it_without_touching_records() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("chk-00001");
    let b = env.create_profile("chk-00002");
    ok(env.run(&["program", "attach", &prm, &b]));
    ok(env.store_check(false));
    let records = customer_files(&env);
    let log = fs::read(env.path().join("index/profiles.log")).unwrap();

    // 1. a key index entry removed, 2. garbage appended to the summary log,
    // 3. the queue file of a pending attachment removed, 4. a stray temp file.
    let bucket = remove_key_entry(&env, "chk-00001");
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(env.path().join("index/profiles.log"))
        .unwrap();
    f.write_all(b"{not json at all\n").unwrap();
    drop(f);
    let queued: Vec<PathBuf> = fs::read_dir(env.path().join("queue"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(queued.len(), 1, "{queued:?}");
    fs::remove_file(&queued[0]).unwrap();
    fs::write(env.path().join("x.payctl-tmp"), b"left behind").unwrap();

    let o = env.store_check(false);
    let found = findings(&o);
    let has = |path: &str, text: &str| {
        assert!(
            found.iter().any(|m| m.contains(path) && m.contains(text)),
            "no finding on {path} ({text}): {found:#?}"
        )
    };
    let key_rel = env.rel(&bucket);
    has(&key_rel, &a);
    has("index/profiles.log", "line 3");
    has("queue", &b);
    has("x.payctl-tmp", "temp");
    assert_eq!(found.len(), 4, "{found:#?}");
    // A check changes nothing.
    assert!(env.path().join("x.payctl-tmp").exists());

    let o = ok(env.store_check(true));
    assert!(
        !o.data()[0]["repaired"].as_array().unwrap().is_empty(),
        "{o:?}"
    );
    ok(env.store_check(false));
    assert_eq!(
        customer_files(&env),
        records,
        "--repair never rewrites a record"
    );
    assert_eq!(
        fs::read(env.path().join("index/profiles.log")).unwrap(),
        log,
        "rebuilt in order"
    );
    assert_eq!(key_bucket(&env, "chk-00001"), Some(bucket));
    assert!(!env.path().join("x.payctl-tmp").exists());
    // The repaired indexes work: the key is taken, the queue has the attachment.
    env.body(&["profile", "create"], &profile_body("chk-00001"))
        .refused(1, 21002);
    assert_eq!(worker_summary(&env)["attachments_processed"], 1);
    assert_eq!(attachment_status(&env, &prm, &b), Some(10));
}

/// Damage of each kind to the key index: a line that does not parse, a
/// line in the wrong bucket, an entry naming a customer without the key, a
/// partial last line, a stray file. Each is named; repair rebuilds the
/// buckets and the index answers again.
#[test]
fn store_check_reads_the_key_buckets_line_by_line() {
    let env = Env::new();
    let a = env.create_profile("kix-00001");
    let b = env.create_profile("kix-00002");
    let bucket = key_bucket(&env, "kix-00001").unwrap();
    assert_ne!(Some(&bucket), key_bucket(&env, "kix-00002").as_ref());
    let mut f = fs::OpenOptions::new().append(true).open(&bucket).unwrap();
    // Line 2 has no space; kix-00002 does not belong in this bucket; `b`
    // does not hold kix-00001; the last line has no end.
    f.write_all(format!("no-space-here\nkix-00002 {b}\nkix-00001 {b}\nkix-0").as_bytes())
        .unwrap();
    drop(f);
    fs::write(
        env.path().join("index/keys/k6b69782d3030303031"),
        format!("{a}\n"),
    )
    .unwrap();

    let o = env.store_check(false);
    assert_eq!(o.code, 3, "{o:?}");
    let found = findings(&o);
    let rel = env.rel(&bucket);
    let has = |path: &str, text: &str| {
        assert!(
            found.iter().any(|m| m.contains(path) && m.contains(text)),
            "no finding on {path} ({text}): {found:#?}"
        )
    };
    has(&rel, "line 2 is not `<customer_key> <customer id>`");
    has(&rel, "line 3 is in the wrong bucket");
    has(&rel, &format!("points to {b}, which does not hold the key"));
    has(&rel, "line 5 is incomplete");
    has("index/keys/k6b69782d3030303031", "not a bucket");
    // (fs::write made it 0644.)
    has("index/keys/k6b69782d3030303031", "has mode 0644");
    assert_eq!(found.len(), 6, "{found:#?}");

    ok(env.store_check(true));
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["status"], "clean");
    assert!(!env.path().join("index/keys/k6b69782d3030303031").exists());
    let text = fs::read_to_string(&bucket).unwrap();
    assert!(text.contains(&format!("kix-00001 {a}\n")), "{text}");
    assert!(!text.contains(&b), "{text}");
    for key in ["kix-00001", "kix-00002"] {
        env.body(&["profile", "create"], &profile_body(key))
            .refused(1, 21002);
    }
}

#[test]
fn a_directory_inside_the_key_index_is_named_and_never_removed() {
    let env = Env::new();
    env.create_profile("dir-00001");
    let sub = env.path().join("index/keys/sub");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("00.log"), b"someone's file\n").unwrap();
    // Private modes: this test is about the directory, not the modes.
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(sub.join("00.log"), fs::Permissions::from_mode(0o600)).unwrap();
    for repair in [false, true] {
        let o = env.store_check(repair);
        assert_eq!(o.code, 3, "{o:?}");
        let found = findings(&o);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].contains("index/keys/sub/00.log"), "{found:#?}");
    }
    assert!(
        sub.join("00.log").exists(),
        "repair never removes a directory's files"
    );
    fs::remove_dir_all(&sub).unwrap();
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["status"], "clean");
}

#[test]
fn store_check_finds_a_damaged_attachment_index_and_repair_rebuilds_it() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("att-00001");
    let b = env.create_profile("att-00002");
    for csp in [&a, &b] {
        ok(env.run(&["program", "attach", &prm, csp]));
    }
    let log = env.path().join("index/attachments.log");
    let whole = fs::read_to_string(&log).unwrap();
    assert_eq!(whole, format!("{prm} {a}\n{prm} {b}\n"));
    // b's line lost, a line for a customer that has no record, a torn end.
    fs::write(
        &log,
        format!("{prm} {a}\n{prm} csp_00000000000000000000\n{prm} cs"),
    )
    .unwrap();
    let o = env.store_check(false);
    assert_eq!(o.code, 3, "{o:?}");
    let found = findings(&o);
    for text in [
        format!("the record of {b} in {prm} is missing"),
        format!("lists csp_00000000000000000000 in {prm}, which has no such record"),
        "ends with a partial line".to_string(),
    ] {
        assert!(
            found
                .iter()
                .any(|m| m.contains("index/attachments.log") && m.contains(&text)),
            "no finding {text}: {found:#?}"
        );
    }
    assert_eq!(found.len(), 3, "{found:#?}");
    ok(env.store_check(true));
    ok(env.store_check(false));
    assert_eq!(fs::read_to_string(&log).unwrap(), whole, "rebuilt in order");
    let o = ok(env.run(&["program", "profiles", &prm]));
    assert_eq!(o.data().len(), 2);
}

#[test]
fn two_default_addresses_are_reported_and_never_repaired() {
    let env = Env::new();
    let csp = env.create_profile("two-00001");
    ok(env.body(&["address", "create", &csp], &address_body(true)));
    ok(env.body(&["address", "create", &csp], &address_body(false)));
    let (path, bytes) = customer_files(&env).remove(0);
    let mut rec: Value = serde_json::from_slice(&bytes).unwrap();
    let addrs = rec["addresses"]
        .as_array_mut()
        .expect("addresses in the customer file");
    assert_eq!(addrs.len(), 2);
    for a in addrs {
        a["is_default"] = json!(true);
    }
    let mut edited = serde_json::to_vec(&rec).unwrap();
    edited.push(b'\n');
    fs::write(&path, &edited).unwrap();
    for repair in [false, true] {
        let o = env.store_check(repair);
        let found = findings(&o);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].contains(&csp) && found[0].contains("more than one default"),
            "{found:?}"
        );
        assert_eq!(
            fs::read(&path).unwrap(),
            edited,
            "the record is left as it is"
        );
    }
}

/// A customer_key held by three records (edited by hand): `store check`
/// names each holder after the first in the order it reads them, with the
/// one before it, and `--repair` never touches them. One of the records
/// has an id that payctl does not make (upper case), which the check keeps
/// whole and names as it is.
#[test]
fn a_key_held_by_three_records_names_each_later_holder() {
    let env = Env::new();
    let ids: Vec<String> = ["thr-00001", "thr-00002", "thr-00003"]
        .iter()
        .map(|k| env.create_profile(k))
        .collect();
    let path_of = |id: &str| {
        let shard = &id["csp_".len().."csp_".len() + 2];
        env.path()
            .join("customers")
            .join(shard)
            .join(format!("{id}.json"))
    };
    // The second and third take the first's key; the third gets an odd id.
    let odd = "csp_ODD3x";
    let mut holders = [ids[0].clone(), ids[1].clone(), odd.to_string()];
    for (i, id) in ids.iter().enumerate().skip(1) {
        let mut rec: Value = serde_json::from_slice(&fs::read(path_of(id)).unwrap()).unwrap();
        rec["profile"]["customer_key"] = json!("thr-00001");
        let mut to = path_of(id);
        if i == 2 {
            rec["profile"]["customer_profile_id"] = json!(odd);
            fs::remove_file(&to).unwrap();
            to = path_of(odd);
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::set_permissions(
                to.parent().unwrap(),
                std::os::unix::fs::PermissionsExt::from_mode(0o700),
            )
            .unwrap();
        }
        fs::write(&to, serde_json::to_vec(&rec).unwrap()).unwrap();
        fs::set_permissions(&to, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    }
    holders.sort();
    for repair in [false, true] {
        let o = env.store_check(repair);
        let found = findings(&o);
        let twice: Vec<&String> = found
            .iter()
            .filter(|f| f.contains("customer_key is also held by"))
            .collect();
        assert_eq!(twice.len(), 2, "{found:#?}");
        // Each names itself (its path) and another holder; two different
        // subjects, and the one not named as a subject is named by one.
        let mut subjects = Vec::new();
        for f in &twice {
            let (subject, other) = f.split_once("customer_key is also held by").unwrap();
            let me: Vec<&String> = holders.iter().filter(|h| subject.contains(*h)).collect();
            assert_eq!(me.len(), 1, "{f}");
            let named: Vec<&String> = holders.iter().filter(|h| other.contains(*h)).collect();
            assert_eq!(named.len(), 1, "{f}");
            assert_ne!(me[0], named[0], "{f}");
            subjects.push(me[0].clone());
        }
        subjects.sort();
        subjects.dedup();
        assert_eq!(subjects.len(), 2, "{twice:?}");
        if !repair {
            // The derived data disagrees too: the odd id is in no index.
            assert!(
                found
                    .iter()
                    .any(|f| f.contains(odd) && f.contains("missing from the key index"))
                    || found.iter().any(|f| f.contains("profiles.log")),
                "{found:#?}"
            );
        }
    }
    assert!(path_of(odd).exists() && path_of(&ids[1]).exists());
}

/// `store check --repair` rebuilds the indexes in pieces of bounded size
/// (src/store/rebuild.rs): the first commit sets a flag in `meta.json` and
/// empties `index/`, the customers and then the transactions are indexed
/// again (50,000 per commit; 500 here, `PAYCTL_REBUILD_PIECE`), and the
/// last commit clears the flag. Killed
/// after any piece (or inside one), the store is refused by every other
/// command (30002, naming the way out) and left as it is; `store check`
/// names the interrupted rebuild; `store check --repair` finishes it, and
/// the indexes answer as they did before.
#[test]
fn a_repair_killed_between_its_pieces_is_refused_until_repaired() {
    let fixture = Env::new();
    // The customers take three pieces of 500.
    let file = fixture.dir.path().join("import.jsonl");
    fs::write(&file, common::profile_lines("rbk", 1_203)).unwrap();
    ok(fixture.run(&["profile", "import", &file.display().to_string()]));
    let (prm, paid) = fixture.attached_profile("rbk-paid-1");
    let pending = fixture.create_profile("rbk-pending");
    ok(fixture.run(&["program", "attach", &prm, &pending]));
    let src = format!("@source_customers={paid}:5.00");
    let dst = format!("@targets={paid}:5.00");
    let trn = fixture
        .run(&txn_create_args(&prm, "internal_transfer", &[&src, &dst]))
        .id();
    // What the indexes answer, before and after.
    let answers = |env: &Env| -> Vec<Value> {
        [
            vec!["profile", "list", "--page-size", "7"],
            vec![
                "profile",
                "list",
                "--email",
                "ADA@example.com",
                "--page-size",
                "5",
            ],
            vec!["profile", "list", "--customer-key", "rbk-001202"],
            vec![
                "profile",
                "list",
                "--tag",
                "segment=retail",
                "--page-size",
                "3",
            ],
            vec!["txn", "list", "--status", "10"],
        ]
        .iter()
        .map(|args| {
            let o = ok(env.run(args));
            json!([o.json["data"], o.json["paging"]["total_count"]])
        })
        .collect()
    };
    let expected = answers(&fixture);
    assert_eq!(expected[1][1], 1_205, "{:?}", expected[1]);
    assert_eq!(expected[4][0].as_array().unwrap().len(), 1);
    // A rebuild is needed.
    fs::remove_file(fixture.path().join("index/profiles.ids")).unwrap();

    // Pieces: 1 the flag, 2 and 3 the customers, 4 the transactions (the
    // 5th commit clears the flag); then two kills inside a piece's commit.
    let faults = [
        "rebuild-piece:1",
        "rebuild-piece:2",
        "rebuild-piece:3",
        "rebuild-piece:4",
        "after-journal:2",
        "before-journal-remove:3",
    ];
    for fault in faults {
        let env = clone_env(&fixture);
        let mut repair = command(&env, Some(fault), &["store", "check", "--repair"]);
        repair.env("PAYCTL_REBUILD_PIECE", "500");
        let o = finish(feed(repair, None));
        assert_eq!(o.code, -1, "{fault}: killed: {o:?}");
        let meta = fs::read_to_string(env.path().join("meta.json")).unwrap();
        assert!(meta.contains("\"rebuilding\":true"), "{fault}: {meta}");

        let before = env.snapshot();
        for args in [
            vec!["profile", "get", pending.as_str()],
            vec!["profile", "list"],
            vec!["txn", "get", trn.as_str()],
            vec!["worker"],
            vec!["program", "attach", prm.as_str(), paid.as_str()],
        ] {
            let o = env.run(&args);
            o.refused(3, 30002);
            assert!(
                o.messages()[0].contains("store check --repair"),
                "{fault}: {args:?}: {o:?}"
            );
        }
        env.body(&["profile", "create"], &profile_body("rbk-000001"))
            .refused(3, 30002);
        assert_eq!(env.snapshot(), before, "{fault}: refusals change nothing");

        let found = findings(&env.store_check(false));
        assert!(
            found
                .iter()
                .any(|m| m.contains("meta.json: a `store check --repair` was interrupted")),
            "{fault}: {found:#?}"
        );
        if fault == "rebuild-piece:1" {
            // The key index is empty: 100 customers named, the rest counted.
            let named = found
                .iter()
                .filter(|m| m.contains("customer_key of csp_"))
                .count();
            assert_eq!(named, 100, "{found:#?}");
            assert!(
                found.iter().any(|m| m
                    .contains("index/keys: the customer_key of 1105 more customers is missing")),
                "{found:#?}"
            );
        }
        let mut repair = command(&env, None, &["store", "check", "--repair"]);
        repair.env("PAYCTL_REBUILD_PIECE", "500");
        ok(finish(feed(repair, None)));
        assert_clean(&env, fault);
        assert!(
            !fs::read_to_string(env.path().join("meta.json"))
                .unwrap()
                .contains("rebuilding"),
            "{fault}"
        );
        assert_eq!(answers(&env), expected, "{fault}");
        // The rebuilt key index holds every key; the queue has the pending
        // attachment and the open transaction.
        env.body(&["profile", "create"], &profile_body("rbk-000001"))
            .refused(1, 21002);
        env.body(&["profile", "create"], &profile_body("rbk-001202"))
            .refused(1, 21002);
        let w = worker_summary(&env);
        assert_eq!(w["attachments_processed"], 1, "{fault}: {w}");
        assert_eq!(w["transactions_processed"], 1, "{fault}: {w}");
    }
}

/// `n` profiles imported into a new store, which `store check` finds clean.
fn imported_and_checked(prefix: &str, n: usize) -> Env {
    let env = Env::new();
    let file = env.dir.path().join("import.jsonl");
    fs::write(&file, common::profile_lines(prefix, n)).unwrap();
    ok(env.run(&["profile", "import", &file.display().to_string()]));
    ok(env.store_check(false));
    env
}

/// A summary line that says another value than its record in one field
/// (here the email) is found: the check compares the summary logs with the
/// records as hashes of their fields.
#[test]
fn a_summary_line_that_differs_from_its_record_in_one_field_is_found() {
    let env = imported_and_checked("sum", 5);
    let log = env.path().join("index/profiles.log");
    let text = fs::read_to_string(&log).unwrap();
    let first = text.lines().next().unwrap();
    let v: Value = serde_json::from_str(first).unwrap();
    let email = v["email"].as_str().unwrap().to_string();
    let changed = first.replace(&email, &format!("x{email}"));
    assert_ne!(changed, first);
    fs::write(&log, text.replacen(first, &changed, 1)).unwrap();
    let found = findings(&env.store_check(false));
    assert!(
        found
            .iter()
            .any(|m| m.contains("index/profiles.log: does not agree with the customer records")),
        "{found:#?}"
    );
    ok(env.store_check(true));
    ok(env.store_check(false));
}

/// An entry of a field index copied to a wrong position, its right one
/// kept (so that no customer's value is missing), is named: `store check`
/// reads the buckets again for the positions when an entry is one that no
/// value calls for.
#[test]
fn a_field_entry_copied_to_a_wrong_position_beside_its_own_is_named() {
    let env = imported_and_checked("cop", 20);
    let dir = env.path().join("index/by-email");
    let bucket = fs::read_dir(&dir).unwrap().flatten().next().unwrap().path();
    let text = fs::read_to_string(&bucket).unwrap();
    let first = text.lines().next().unwrap();
    let (pos, rest) = first.split_once(' ').unwrap();
    let moved = format!("{} {rest}\n", pos.parse::<usize>().unwrap() + 7);
    fs::write(&bucket, format!("{text}{moved}")).unwrap();
    let found = findings(&env.store_check(false));
    let named: Vec<&String> = found
        .iter()
        .filter(|m| m.contains("which is not its place in creation order"))
        .collect();
    assert_eq!(named.len(), 1, "{found:#?}");
    assert!(
        named[0].contains(&format!(
            "at position {}",
            pos.parse::<usize>().unwrap() + 7
        )),
        "{found:#?}"
    );
    ok(env.store_check(true));
    ok(env.store_check(false));
}

/// Field index entries at the wrong position in creation order are named
/// one by one up to 100, then counted in one finding: a store whose
/// entries are all misplaced (or whose `index/profiles.ids` is lost) is
/// not one finding per entry held in memory. `--repair` rebuilds them.
#[test]
fn misplaced_field_entries_are_named_up_to_a_hundred_then_counted() {
    let env = imported_and_checked("mis", 130);
    // Every first-name entry moved 1,000 places on.
    let dir = env.path().join("index/by-first-name");
    for e in fs::read_dir(&dir).unwrap().flatten() {
        let text = fs::read_to_string(e.path()).unwrap();
        let moved: String = text
            .lines()
            .map(|l| {
                let (pos, rest) = l.split_once(' ').unwrap();
                format!("{} {rest}\n", pos.parse::<usize>().unwrap() + 1000)
            })
            .collect();
        fs::write(e.path(), moved).unwrap();
    }
    let found = findings(&env.store_check(false));
    let named = found
        .iter()
        .filter(|m| m.contains("which is not its place in creation order"))
        .count();
    assert_eq!(named, 100, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|m| m.contains("index/by-*: 30 more entries name a profile at a position")),
        "{found:#?}"
    );
    ok(env.store_check(true));
    ok(env.store_check(false));
    let o = ok(env.run(&["profile", "list", "--first-name", "ada"]));
    assert_eq!(o.json["paging"]["total_count"], 130, "{o:?}");
}
