//! Group commit in `payctl serve`: concurrent HTTP creates are gathered into
//! fewer journal commits than creates, each acknowledged only once durable;
//! a customer_key raced inside one group has one winner; a group whose
//! commit fails (a full disk) acknowledges none; a `kill -9` under load
//! loses no acknowledged create.

use crate::common;

use std::sync::{Barrier, Mutex};

use common::serve::Server;
use common::{Env, profile_body};

/// `n` threads posting the body `body(i)` at once (after a barrier): the
/// statuses and ids (or error codes) of the answers.
fn burst(
    s: &Server,
    n: usize,
    body: impl Fn(usize) -> serde_json::Value + Sync,
) -> Vec<(u16, Result<String, Vec<u64>>)> {
    let out = Mutex::new(Vec::new());
    let start = Barrier::new(n);
    std::thread::scope(|scope| {
        for i in 0..n {
            let (s, out, start, body) = (s, &out, &start, &body);
            scope.spawn(move || {
                let b = body(i);
                start.wait();
                let r = s.post("/customer-profiles", &b);
                let v = if r.status == 201 {
                    Ok(r.id())
                } else {
                    Err(r.codes())
                };
                out.lock().unwrap().push((r.status, v));
            });
        }
    });
    out.into_inner().unwrap()
}

fn commits(s: &Server) -> u64 {
    let h = s.get("/_payctl/health");
    assert_eq!(h.status, 200, "{h:?}");
    h.json["data"][0]["commits"].as_u64().expect("commits")
}

#[test]
fn concurrent_creates_share_commits_beside_cli_writers_and_all_land() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let before = commits(&s);
    const N: usize = 32;
    let cli_ids = Mutex::new(Vec::new());
    let answers = std::thread::scope(|scope| {
        let (env, cli_ids) = (&env, &cli_ids);
        scope.spawn(move || {
            for i in 0..4 {
                cli_ids
                    .lock()
                    .unwrap()
                    .push(env.create_profile(&format!("cust-gc-cli-{i}")));
            }
        });
        burst(&s, N, |i| profile_body(&format!("cust-gc-{i:03}")))
    });
    let mut ids: Vec<String> = answers
        .iter()
        .map(|(status, v)| {
            assert_eq!(*status, 201, "{v:?}");
            v.clone().unwrap()
        })
        .collect();
    let made = commits(&s) - before;
    assert!(
        made < N as u64,
        "{N} concurrent creates took {made} commits: they were not grouped"
    );
    ids.extend(cli_ids.into_inner().unwrap());
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "ids are unique");
    for id in &ids {
        let got = env.run(&["profile", "get", id]);
        assert_eq!(got.code, 0, "acknowledged {id} is in the store: {got:?}");
    }
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.json["data"][0]["customers"], n);
    // One event per create, grouped or not, in one gapless chain (which
    // store check verified): each profile's created event, once.
    let events = env.run(&["events", "list", "--all"]);
    assert_eq!(events.code, 0, "{events:?}");
    let mut recorded: Vec<&str> = events
        .data()
        .iter()
        .map(|e| e["record_id"].as_str().unwrap())
        .collect();
    recorded.sort();
    assert_eq!(recorded, ids, "each create recorded its event once");
}

#[test]
fn a_key_raced_in_one_group_has_exactly_one_winner() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let before = commits(&s);
    let answers = burst(&s, 24, |_| profile_body("cust-raced-01"));
    let won: Vec<_> = answers.iter().filter(|(st, _)| *st == 201).collect();
    assert_eq!(won.len(), 1, "{answers:?}");
    for (status, v) in &answers {
        if *status != 201 {
            assert_eq!(*status, 409, "{v:?}");
            assert_eq!(v.as_ref().unwrap_err(), &vec![21002], "{v:?}");
        }
    }
    // The refused ones staged nothing: one commit at most per group, and
    // the one winner is the key's holder.
    assert!(commits(&s) - before <= 24);
    let listed = s.get("/customer-profiles?customer_key=cust-raced-01");
    assert_eq!(listed.json["paging"]["total_count"], 1, "{listed:?}");
    assert_eq!(
        listed.json["data"][0]["customer_profile_id"].as_str(),
        won[0].1.as_ref().ok().map(String::as_str)
    );
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

#[test]
fn a_group_whose_commit_fails_on_a_full_disk_acknowledges_none() {
    let env = Env::new();
    // The store exists before the disk fills.
    env.create_profile("cust-before-01");
    let s = Server::try_start_with(
        &env,
        &["--no-worker", "--quiet"],
        &[],
        &[("PAYCTL_FAULT", "enospc@before-write")],
    )
    .expect("serve");
    let answers = burst(&s, 16, |i| profile_body(&format!("cust-full-{i:03}")));
    for (status, v) in &answers {
        assert_eq!(*status, 500, "{v:?}");
        assert!(v.as_ref().unwrap_err().contains(&30003), "{v:?}");
    }
    drop(s);
    let listed = env.run(&["profile", "list", "--page-size", "100"]);
    assert_eq!(listed.json["paging"]["total_count"], 1, "{listed:?}");
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

#[test]
fn kill_9_under_load_loses_no_acknowledged_create() {
    kill_9_under_load_loses_no_acknowledged_create_on(Env::new());
}

/// The same with the server on PostgreSQL: an answer follows the COMMIT.
#[test]
#[ignore = "needs PostgreSQL"]
fn kill_9_under_load_loses_no_acknowledged_create_on_postgres() {
    if let Some(env) = Env::database("kill_9_under_load_loses_no_acknowledged_create_on_postgres") {
        kill_9_under_load_loses_no_acknowledged_create_on(env);
    }
}

fn kill_9_under_load_loses_no_acknowledged_create_on(env: Env) {
    let s = Server::start(&env, &["--quiet"]);
    let acked = Mutex::new(Vec::new());
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|scope| {
        for t in 0..16 {
            let (s, acked, stop) = (&s, &acked, &stop);
            scope.spawn(move || {
                for i in 0.. {
                    if stop.load(std::sync::atomic::Ordering::SeqCst) {
                        break;
                    }
                    let r = s.try_post(
                        "/customer-profiles",
                        &profile_body(&format!("cust-k{t}-{i:04}")),
                    );
                    match r {
                        Some(r) if r.status == 201 => acked.lock().unwrap().push(r.id()),
                        Some(_) => {}
                        None => break,
                    }
                }
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(1500));
        s.kill9();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let acked = acked.into_inner().unwrap();
    assert!(!acked.is_empty(), "some creates were acknowledged");
    for id in &acked {
        let got = env.run(&["profile", "get", id]);
        assert_eq!(got.code, 0, "acknowledged {id} survived kill -9: {got:?}");
    }
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

#[test]
fn an_acknowledged_create_is_in_the_journal_before_its_checkpoint_and_survives_a_kill() {
    let env = Env::new();
    // serve dies when it starts applying its first group's journal: after
    // the create was acknowledged (the journal is the commit point).
    let s = Server::try_start_with(
        &env,
        &["--no-worker", "--quiet"],
        &[],
        &[("PAYCTL_FAULT", "before-checkpoint")],
    )
    .expect("serve");
    let mut acked = Vec::new();
    for i in 0..50 {
        match s.try_post(
            "/customer-profiles",
            &profile_body(&format!("cust-j-{i:03}")),
        ) {
            Some(r) if r.status == 201 => acked.push(r.id()),
            Some(r) => panic!("{r:?}"),
            None => break,
        }
    }
    let (code, _) = s.wait();
    assert_ne!(code, Some(0), "serve aborted at its checkpoint");
    // The answer to the create that was committed last can be lost: serve
    // commits, hands the answer to its writer task and may reach the
    // checkpoint (2 ms idle) and abort before that answer leaves the socket.
    // The create is durable all the same: the checkpoint only ever follows
    // a commit, so at least the first create is in the journal.
    assert!(
        env.path().join("journal.json").exists(),
        "the committed creates are in the journal, not applied yet"
    );
    // The journal is the groups' log, one synced record a group; a record
    // cut short by a crash (never acknowledged) is left out of the replay.
    let journal = env.path().join("journal.json");
    let text = std::fs::read(&journal).unwrap();
    assert!(text.starts_with(b"payctl journal log 1\n"), "{text:?}");
    assert!(text.ends_with(b"\n"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    std::io::Write::write_all(&mut f, b"0123456789abcdef {\"ops\":[{\"put\"").unwrap();
    drop(f);
    // Under load even the first answer can be the lost one, so `acked` may
    // be empty: the replay is asked for by a command that runs whatever
    // was acknowledged.
    let first = env.run(&["profile", "list", "--customer-key", "cust-j-000"]);
    assert_eq!(first.code, 0, "{first:?}");
    assert_eq!(
        first.json["data"].as_array().map(Vec::len),
        Some(1),
        "the first create, committed before the checkpoint, was replayed: {first:?}"
    );
    assert!(!env.path().join("journal.json").exists(), "replayed");
    for id in &acked {
        let got = env.run(&["profile", "get", id]);
        assert_eq!(
            got.code, 0,
            "acknowledged {id} replayed from the journal: {got:?}"
        );
    }
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    // Requests are sequential: every acknowledged create, plus at most the
    // one whose answer was lost.
    let customers = check.json["data"][0]["customers"].as_u64().unwrap_or(0) as usize;
    assert!(
        customers == acked.len() || customers == acked.len() + 1,
        "{customers} customers for {} acknowledged creates",
        acked.len()
    );
}

#[test]
fn creates_past_the_checkpoint_size_all_land_and_a_cli_writer_gets_its_turn() {
    let env = Env::new();
    let s = Server::start(&env, &["--no-worker", "--quiet"]);
    // About 1.3 KB of journal a create: 8 x 80 creates are past the 512 KB
    // at which the journal is applied while writes keep coming.
    let acked = Mutex::new(Vec::new());
    let cli = std::thread::scope(|scope| {
        for t in 0..8 {
            let (s, acked) = (&s, &acked);
            scope.spawn(move || {
                for i in 0..80 {
                    let r = s.post(
                        "/customer-profiles",
                        &profile_body(&format!("cust-cp{t}-{i:03}")),
                    );
                    assert_eq!(r.status, 201, "{r:?}");
                    acked.lock().unwrap().push(r.id());
                }
            });
        }
        let env = &env;
        scope
            .spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(200));
                (0..3)
                    .map(|i| {
                        env.run_with(
                            &["--lock-timeout", "20", "profile", "create", "--body", "-"],
                            Some(
                                profile_body(&format!("cust-cp-cli-{i}"))
                                    .to_string()
                                    .as_bytes(),
                            ),
                        )
                    })
                    .collect::<Vec<_>>()
            })
            .join()
            .unwrap()
    });
    for out in &cli {
        assert_eq!(
            out.code, 0,
            "the CLI writer got in beside the load: {out:?}"
        );
    }
    let acked = acked.into_inner().unwrap();
    assert_eq!(acked.len(), 640);
    // Read through the server, then through the CLI once it let go.
    for id in acked.iter().step_by(37) {
        assert_eq!(s.get(&format!("/customer-profiles/{id}")).status, 200);
    }
    drop(s);
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.json["data"][0]["customers"], 643);
    for id in acked.iter().step_by(53) {
        assert_eq!(env.run(&["profile", "get", id]).code, 0);
    }
}

/// A key bucket that fills inside a group is split there: what the group
/// staged so far is committed and applied first, and the creates after it
/// append to the files as the split left them (not at the lengths they had
/// when the group began). Every create lands and the store checks clean.
#[test]
fn a_key_bucket_split_inside_a_group_keeps_every_create() {
    let env = Env::new();
    // Buckets split past 4 KB: about a hundred keys.
    let s = Server::try_start_with(
        &env,
        &["--no-worker"],
        &["--quiet"],
        &[("PAYCTL_SPLIT_BYTES", "4096")],
    )
    .expect("serve started");
    let keys = crate::store::keys_of_one_bucket(400);
    let mut ids = Vec::new();
    for chunk in keys.chunks(40) {
        for (status, v) in burst(&s, chunk.len(), |i| profile_body(&chunk[i])) {
            assert_eq!(status, 201, "{v:?}");
            ids.push(v.unwrap());
        }
    }
    drop(s);
    assert!(
        env.path().join("index/keys/5a").is_dir(),
        "the bucket was not split"
    );
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.json["data"][0]["customers"], 400);
    for k in [&keys[0], &keys[150], &keys[399]] {
        let found = env.run(&["profile", "list", "--customer-key", k]);
        assert_eq!(found.data().len(), 1, "{k}: {found:?}");
    }
}
