//! `payctl worker`: attachments become Attached, each queued item is processed
//! exactly once even with several workers at once, and a killed worker leaves
//! nothing half-done.

use crate::common;
use common::{program_record as record, succeeded as ok};

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, Out};
use serde_json::{Value, json};

fn summary(attachments: u64) -> Value {
    json!({
        "attachments_processed": attachments,
        "transactions_processed": 0,
        "steps_created": 0,
        "steps_completed": 0,
        "steps_failed": 0
    })
}

fn attach(env: &Env, prm: &str, csp: &str) {
    let o = env.run(&["program", "attach", prm, csp, "--reason", "test"]);
    assert_eq!(o.id(), csp);
}

fn queue_len(env: &Env) -> usize {
    std::fs::read_dir(env.path().join("queue"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn worker_attaches_pending_profiles_once() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("cust-work-a");
    let b = env.create_profile("cust-work-b");
    attach(&env, &prm, &a);
    attach(&env, &prm, &b);
    let pending = record(&env, &prm, &a);
    assert_eq!(pending["customer_profile_program_status_id"], 1);

    let o = env.run(&["worker"]);
    ok(&o);
    assert!(o.json["paging"].is_null());
    assert_eq!(o.json["data"], json!([summary(2)]));
    for csp in [&a, &b] {
        let r = record(&env, &prm, csp);
        assert_eq!(r["customer_profile_program_status_id"], 10);
        assert_eq!(r["modified_by"], "SYSTEM");
        assert_eq!(r["created_by"], "tester");
        assert_eq!(r["customer_profile_program_status_reason"], "test");
        assert_eq!(r["is_locked"], false);
        assert!(r["modified_datetime"].as_str() >= r["created_datetime"].as_str());
    }
    assert_ne!(
        record(&env, &prm, &a)["modified_datetime"],
        pending["modified_datetime"]
    );
    assert_eq!(queue_len(&env), 0);

    // Nothing left to do: a second run processes nothing and changes nothing.
    let before = env.snapshot();
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).json["data"], json!([summary(0)]));
    assert_eq!(env.snapshot(), before);
}

#[test]
fn worker_on_a_new_store_does_nothing() {
    let env = Env::new();
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).json["data"], json!([summary(0)]));
}

#[test]
fn worker_ignores_actor_and_writes_system() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("cust-actor");
    attach(&env, &prm, &a);
    ok(&env.run(&["--actor", "alice", "worker"]));
    assert_eq!(record(&env, &prm, &a)["modified_by"], "SYSTEM");
}

#[test]
fn worker_flags_are_checked() {
    let env = Env::new();
    assert_eq!(
        env.run(&["worker", "--interval", "1"]).code,
        2,
        "--interval needs --watch"
    );
    for bad in ["0", "-1", "abc", "NaN", "inf", "86401", "0.001"] {
        let o = env.run(&["worker", "--watch", "--interval", bad]);
        assert_eq!(o.code, 2, "{bad}: {o:?}");
        assert_eq!(o.codes(), [10000]);
    }
}

#[test]
fn worker_processes_more_than_one_batch() {
    // 250 > one batch of 200: the worker repeats until the queue is empty.
    let env = Env::new();
    let prm = env.program_id();
    let ids = create_attached_pending(&env, &prm, 250);
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).json["data"], json!([summary(250)]));
    assert_eq!(queue_len(&env), 0);
    for csp in [&ids[0], &ids[199], &ids[200], &ids[249]] {
        assert_eq!(
            record(&env, &prm, csp)["customer_profile_program_status_id"],
            10
        );
    }
}

/// `n` profiles, each with a Pending attachment to `prm`, created quickly
/// with a few processes at a time.
fn create_attached_pending(env: &Env, prm: &str, n: usize) -> Vec<String> {
    let ids: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = (0..8)
            .map(|t| {
                s.spawn(move || {
                    (0..n)
                        .filter(|i| i % 8 == t)
                        .map(|i| {
                            let csp = env.create_profile(&format!("cust-bulk-{i:04}"));
                            attach(env, prm, &csp);
                            csp
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        chunks.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(ids.len(), n);
    ids
}

#[test]
fn concurrent_workers_process_each_item_exactly_once() {
    let env = Env::new();
    let prm = env.program_id();
    let ids = create_attached_pending(&env, &prm, 50);
    let outs: Vec<Out> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..5).map(|_| s.spawn(|| env.run(&["worker"]))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut total = 0;
    for o in &outs {
        ok(o);
        total += o.json["data"][0]["attachments_processed"].as_u64().unwrap();
        assert_eq!(o.json["data"][0]["transactions_processed"], 0);
    }
    assert_eq!(total, 50, "{outs:?}");
    let o = env.run(&["program", "profiles", &prm, "--page-size", "1000"]);
    ok(&o);
    assert_eq!(o.data().len(), 50);
    for r in o.data() {
        assert_eq!(r["customer_profile_program_status_id"], 10, "{r}");
        assert_eq!(r["modified_by"], "SYSTEM");
    }
    let mut listed: Vec<&str> = o
        .data()
        .iter()
        .map(|r| r["customer_profile_id"].as_str().unwrap())
        .collect();
    let mut want: Vec<&str> = ids.iter().map(String::as_str).collect();
    listed.sort();
    want.sort();
    assert_eq!(listed, want);
    assert_eq!(queue_len(&env), 0);
}

#[test]
fn workers_racing_attaches_still_process_each_item_once() {
    // Workers run while attaches are being made: every attachment ends
    // Attached, counted once across all worker runs.
    let env = Env::new();
    let prm = env.program_id();
    let ids: Vec<String> = (0..20)
        .map(|i| env.create_profile(&format!("cust-live-{i:02}")))
        .collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let total: u64 = std::thread::scope(|s| {
        let workers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut n = 0;
                    while !done.load(std::sync::atomic::Ordering::SeqCst) {
                        let o = env.run(&["worker"]);
                        n += ok(&o).json["data"][0]["attachments_processed"]
                            .as_u64()
                            .unwrap();
                    }
                    n
                })
            })
            .collect();
        for csp in &ids {
            attach(&env, &prm, csp);
        }
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        workers.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let last = env.run(&["worker"]);
    let total = total
        + ok(&last).json["data"][0]["attachments_processed"]
            .as_u64()
            .unwrap();
    assert_eq!(total, 20);
    for csp in &ids {
        assert_eq!(
            record(&env, &prm, csp)["customer_profile_program_status_id"],
            10
        );
    }
}

fn worker_with_fault(env: &Env, fault: &str) -> std::process::Output {
    let mut c = env.cmd();
    c.arg("worker").env("PAYCTL_FAULT", fault);
    c.output().unwrap()
}

#[test]
fn a_worker_killed_before_its_commit_point_changed_nothing() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("cust-crash-a");
    let b = env.create_profile("cust-crash-b");
    attach(&env, &prm, &a);
    attach(&env, &prm, &b);
    let before = env.snapshot();
    // The first file written is the journal's temp file: killed there, the
    // batch never happened.
    let out = worker_with_fault(&env, "after-write");
    assert!(!out.status.success());
    for csp in [&a, &b] {
        assert_eq!(
            record(&env, &prm, csp)["customer_profile_program_status_id"],
            1
        );
    }
    let after: Vec<_> = env
        .snapshot()
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().ends_with(".payctl-tmp"))
        .collect();
    assert!(after == before, "the store changed");
    let o = env.run(&["worker"]);
    assert_eq!(ok(&o).json["data"], json!([summary(2)]));
}

#[test]
fn a_worker_killed_after_its_commit_point_is_completed_by_the_next_payctl() {
    for fault in ["after-journal", "before-journal-remove"] {
        let env = Env::new();
        let prm = env.program_id();
        let a = env.create_profile("cust-crash-c");
        let b = env.create_profile("cust-crash-d");
        attach(&env, &prm, &a);
        attach(&env, &prm, &b);
        let out = worker_with_fault(&env, fault);
        assert!(!out.status.success(), "{fault}");
        // The next payctl (here a reader) replays the journal: the whole batch.
        for csp in [&a, &b] {
            let r = record(&env, &prm, csp);
            assert_eq!(r["customer_profile_program_status_id"], 10, "{fault}");
            assert_eq!(r["modified_by"], "SYSTEM");
        }
        assert_eq!(queue_len(&env), 0, "{fault}");
        assert!(!env.path().join("journal.json").exists());
        let o = env.run(&["worker"]);
        assert_eq!(ok(&o).json["data"], json!([summary(0)]), "{fault}");
    }
}

fn spawn_watch(env: &Env) -> Child {
    let bin = assert_cmd::cargo::cargo_bin("payctl");
    Command::new(bin)
        .arg("--data-dir")
        .arg(env.path())
        .args(["-o", "json", "worker", "--watch", "--interval", "0.1"])
        .env_remove("PAYCTL_OUTPUT")
        .env_remove("PAYCTL_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(30);
    while !f() {
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn watch_keeps_working_until_interrupted_then_prints_the_total() {
    for signal in ["-INT", "-TERM"] {
        let env = Env::new();
        let prm = env.program_id();
        let child = spawn_watch(&env);
        let ids: Vec<String> = (0..3)
            .map(|i| env.create_profile(&format!("cust-watch-{i}")))
            .collect();
        for csp in &ids {
            attach(&env, &prm, csp);
            wait_until("the watcher to attach", || {
                record(&env, &prm, csp)["customer_profile_program_status_id"] == 10
            });
        }
        let st = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{signal}: {out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["data"], json!([summary(3)]), "{signal}");
        assert!(v["errors"].is_null());
        // One JSON summary line on stderr per pass that did something.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let passes: u64 = stderr
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|v| v["attachments_processed"].as_u64().unwrap())
            .sum();
        assert_eq!(passes, 3, "{stderr}");
    }
}

#[test]
fn a_corrupt_record_holds_its_item_and_the_others_are_processed() {
    let env = Env::new();
    let prm = env.program_id();
    let ids: Vec<String> = ["bad-rec-1", "bad-rec-2", "bad-rec-3"]
        .iter()
        .map(|k| env.create_profile(k))
        .collect();
    for csp in &ids {
        attach(&env, &prm, csp);
    }
    // The middle one's file is cut in half: its item cannot be processed.
    let file = env.customer_file(&ids[1]);
    let whole = std::fs::read(&file).unwrap();
    std::fs::write(&file, &whole[..whole.len() / 2]).unwrap();

    let o = env.run(&["worker"]);
    assert_eq!(o.code, 3, "{o:?}");
    assert!(o.json["data"].is_null(), "{o:?}");
    let errors = o.json["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{o:?}");
    assert_eq!(errors[0]["code"], 30002);
    let msg = errors[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("left queued") && msg.contains(&ids[1]) && msg.contains(".json"),
        "{msg}"
    );
    assert!(o.stderr.contains("\"attachments_processed\":2"), "{o:?}");
    // The others are Attached; the held item is still queued, its file untouched.
    for csp in [&ids[0], &ids[2]] {
        assert_eq!(
            record(&env, &prm, csp)["customer_profile_program_status_id"],
            10
        );
    }
    assert_eq!(queue_len(&env), 1);
    assert_eq!(std::fs::read(&file).unwrap(), &whole[..whole.len() / 2]);

    // Once the file is mended, the next run processes the item.
    std::fs::write(&file, &whole).unwrap();
    let o = env.run(&["worker"]);
    ok(&o);
    assert_eq!(o.json["data"], json!([summary(1)]));
    assert_eq!(
        record(&env, &prm, &ids[1])["customer_profile_program_status_id"],
        10
    );
    assert_eq!(queue_len(&env), 0);
}

#[test]
fn an_unreadable_catalog_stops_the_worker_before_any_item() {
    let env = Env::new();
    let prm = env.program_id();
    let csp = env.create_profile("bad-cat-1");
    attach(&env, &prm, &csp);
    let catalog = env.path().join("catalog.json");
    let whole = std::fs::read(&catalog).unwrap();
    std::fs::write(&catalog, b"{").unwrap();
    let before = env.snapshot();
    let o = env.run(&["worker"]);
    assert_eq!(o.code, 3, "{o:?}");
    let errors = o.json["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{o:?}");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("catalog.json"),
        "{o:?}"
    );
    assert_eq!(env.snapshot(), before, "nothing written");
    std::fs::write(&catalog, &whole).unwrap();
    ok(&env.run(&["worker"]));
    assert_eq!(
        record(&env, &prm, &csp)["customer_profile_program_status_id"],
        10
    );
}

#[test]
fn watch_notes_a_held_item_and_keeps_working() {
    let env = Env::new();
    let prm = env.program_id();
    let bad = env.create_profile("watch-bad-1");
    let good = env.create_profile("watch-good-1");
    attach(&env, &prm, &bad);
    let file = env.customer_file(&bad);
    std::fs::write(&file, b"{").unwrap();
    let child = spawn_watch(&env);
    attach(&env, &prm, &good);
    wait_until("the watcher to attach the good one", || {
        record(&env, &prm, &good)["customer_profile_program_status_id"] == 10
    });
    let st = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"], json!([summary(1)]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().any(|l| l.starts_with("note: queue item")
            && l.contains("left queued")
            && l.contains(&bad)),
        "{stderr}"
    );
    assert_eq!(queue_len(&env), 1, "the bad item stays queued");
}
