//! The checkpoints of `payctl serve`'s group commit that apply its log
//! while the creates go on (see the book's "Durability" page): every
//! acknowledged create lands through many of them, a crash at each step of
//! one loses none, a key bucket split beside them keeps every key, and a
//! payctl that waits for the store gets in while the creates never pause.

use crate::common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::serve::Server;
use common::{Env, profile_body};

/// The log is applied past 16 KB, about a dozen creates: many checkpoints.
const SMALL: (&str, &str) = ("PAYCTL_CHECKPOINT_BYTES", "16384");

/// `threads` clients posting `per` creates each: the ids acknowledged.
fn load(s: &Server, threads: usize, per: usize, tag: &str) -> Vec<String> {
    let acked = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for t in 0..threads {
            let acked = &acked;
            scope.spawn(move || {
                for i in 0..per {
                    let key = format!("cust-{tag}{t}-{i:04}");
                    match s.try_post("/customer-profiles", &profile_body(&key)) {
                        Some(r) if r.status == 201 => acked.lock().unwrap().push(r.id()),
                        Some(r) => panic!("{key}: {r:?}"),
                        None => break,
                    }
                }
            });
        }
    });
    acked.into_inner().unwrap()
}

/// A create of each key of `keys`, by 8 clients: the ids (each answered 201).
fn post_all(s: &Server, keys: &[String]) -> Vec<String> {
    let acked = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for part in keys.chunks(keys.len().div_ceil(8)) {
            let acked = &acked;
            scope.spawn(move || {
                for k in part {
                    let r = s.post("/customer-profiles", &profile_body(k));
                    assert_eq!(r.status, 201, "{k}: {r:?}");
                    acked.lock().unwrap().push(r.id());
                }
            });
        }
    });
    acked.into_inner().unwrap()
}

/// 8 clients posting creates without a pause, in `scope`, until `stop`:
/// the ids acknowledged go to `acked`.
fn endless_load<'scope, 'env>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    s: &'env Server,
    tag: &'env str,
    stop: &'env AtomicBool,
    acked: &'env Mutex<Vec<String>>,
) {
    for t in 0..8 {
        scope.spawn(move || {
            for i in 0.. {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let key = format!("cust-{tag}{t}-{i:05}");
                let r = s.post("/customer-profiles", &profile_body(&key));
                assert_eq!(r.status, 201, "{r:?}");
                acked.lock().unwrap().push(r.id());
            }
        });
    }
}

/// A server whose creates pause for 5 s before it lets the store go on its
/// own (a load in a debug build pauses for more than the 2 ms it waits):
/// only a knock, or a checkpoint that stops the creates, makes it let go
/// sooner. `envs`: more of its environment.
fn serve_without_idle_checkpoints(env: &Env, envs: &[(&str, &str)]) -> Server {
    let mut all = vec![("PAYCTL_IDLE_MS", "5000")];
    all.extend_from_slice(envs);
    serve(env, &all)
}

/// A quiet server without a worker on `env`'s store, with `envs` in its
/// environment.
fn serve(env: &Env, envs: &[(&str, &str)]) -> Server {
    Server::try_start_with(env, &["--no-worker"], &["--quiet"], envs).expect("serve started")
}

/// Every `step`th id of `acked` is read through the server `s`.
fn read_through(s: &Server, acked: &[String], step: usize) {
    for id in acked.iter().step_by(step) {
        let got = s.get(&format!("/customer-profiles/{id}"));
        assert_eq!(got.status, 200, "{got:?}");
    }
}

/// Every id in `acked` is read back by the CLI, and the store checks clean
/// with `customers` customers (when given).
fn all_landed(env: &Env, acked: &[String], customers: Option<usize>) {
    for id in acked {
        let got = env.run(&["profile", "get", id]);
        assert_eq!(got.code, 0, "acknowledged {id} landed: {got:?}");
    }
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    if let Some(n) = customers {
        assert_eq!(check.json["data"][0]["customers"], n, "{check:?}");
    }
    assert!(
        !env.path().join("journal.json").exists(),
        "the log was applied"
    );
}

#[test]
fn creates_beside_checkpoints_in_the_background_all_land() {
    let env = Env::new();
    // Each checkpoint takes 30 ms longer: the creates go on beside it, and
    // some log past the size again before it is done (then they wait).
    let s = serve(&env, &[SMALL, ("PAYCTL_SLOW", "background-checkpoint:30")]);
    let acked = load(&s, 8, 60, "bg");
    assert_eq!(acked.len(), 480);
    // Read through the server while it holds the store.
    read_through(&s, &acked, 41);
    drop(s);
    all_landed(&env, &acked, Some(480));
}

/// A crash before the records applied in the background are cut from the
/// log (the log is whole: its replay rewrites what was applied), and one
/// after (the new log holds only the records that followed).
#[test]
fn a_crash_at_each_step_of_a_background_checkpoint_loses_no_acknowledged_create() {
    for point in [
        "before-log-compact",
        "after-log-compact",
        "before-checkpoint",
    ] {
        let env = Env::new();
        let s = serve(&env, &[SMALL, ("PAYCTL_FAULT", point)]);
        let acked = load(&s, 8, 200, "crash");
        let (code, _) = s.wait();
        assert_ne!(
            code,
            Some(0),
            "{point}: serve aborted at its first checkpoint"
        );
        assert!(acked.len() < 1600, "{point}: the load was cut");
        // The answers that were on their way may be lost, not the creates.
        let check = env.run(&["store", "check"]);
        assert_eq!(check.code, 0, "{point}: {check:?}");
        let customers = check.json["data"][0]["customers"].as_u64().unwrap() as usize;
        assert!(
            customers >= acked.len() && customers <= acked.len() + 8,
            "{point}: {customers} customers, {} acknowledged",
            acked.len()
        );
        all_landed(&env, &acked, Some(customers));
    }
}

#[test]
fn a_key_bucket_split_beside_checkpoints_in_the_background_keeps_every_create() {
    let env = Env::new();
    let s = serve(&env, &[SMALL, ("PAYCTL_SPLIT_BYTES", "4096")]);
    let keys = crate::store::keys_of_one_bucket(400);
    let acked = post_all(&s, &keys);
    drop(s);
    assert!(
        env.path().join("index/keys/5a").is_dir(),
        "the bucket was not split"
    );
    all_landed(&env, &acked, Some(400));
    for k in [&keys[0], &keys[199], &keys[399]] {
        let found = env.run(&["profile", "list", "--customer-key", k]);
        assert_eq!(found.data().len(), 1, "{k}: {found:?}");
    }
}

/// A background checkpoint that lingers after letting the log's lock go
/// (closing the log it replaced can wait for the device to trim its
/// blocks): a commit sets the next checkpoint aside meanwhile, and the
/// splits' flushes wait for that one too. (When the first said it was done
/// only after lingering, a flush took it for the second's end and applied
/// the log beside it: acknowledged creates were lost, or listed twice.)
#[test]
fn a_checkpoint_that_lingers_after_the_logs_lock_keeps_every_create() {
    let env = Env::new();
    let s = serve(
        &env,
        &[
            SMALL,
            ("PAYCTL_SPLIT_BYTES", "2048"),
            (
                "PAYCTL_SLOW",
                "background-checkpoint:30,background-checkpoint-unlocked:20",
            ),
        ],
    );
    let keys = crate::store::keys_of_one_bucket(400);
    let acked = post_all(&s, &keys);
    // Read through the server while it holds the store, then by the CLI.
    read_through(&s, &acked, 7);
    drop(s);
    all_landed(&env, &acked, Some(400));
}

/// Under creates that never pause, the server keeps the store across its
/// checkpoints (of the size users get: they keep up with the load); a
/// payctl that waits for it knocks, and gets in at the next one (without
/// the knock it would wait for the load to end, past its lock timeout).
#[test]
fn a_payctl_waiting_for_the_store_gets_in_under_a_load_that_never_pauses() {
    let env = Env::new();
    let s = serve_without_idle_checkpoints(&env, &[]);
    let stop = AtomicBool::new(false);
    let acked = Mutex::new(Vec::new());
    let (cli, served) = std::thread::scope(|scope| {
        endless_load(scope, &s, "n", &stop, &acked);
        std::thread::sleep(Duration::from_millis(500));
        let first = acked.lock().unwrap()[0].clone();
        let mut cli = Vec::new();
        let mut served = Vec::new();
        for _ in 0..3 {
            cli.push(env.run(&["--lock-timeout", "5", "profile", "get", &first]));
            served.push(s.get(&format!("/customer-profiles/{first}")).status);
            cli.push(
                env.run_with(
                    &["--lock-timeout", "5", "profile", "create", "--body", "-"],
                    Some(
                        profile_body(&format!("cust-n-cli-{}", cli.len()))
                            .to_string()
                            .as_bytes(),
                    ),
                ),
            );
        }
        // The load went on all along.
        let during = acked.lock().unwrap().len();
        std::thread::sleep(Duration::from_millis(200));
        assert!(acked.lock().unwrap().len() > during, "the creates went on");
        stop.store(true, Ordering::SeqCst);
        (cli, served)
    });
    for out in &cli {
        assert_eq!(out.code, 0, "got in beside the load: {out:?}");
    }
    assert_eq!(served, [200, 200, 200]);
    drop(s);
    let acked = acked.into_inner().unwrap();
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.json["data"][0]["customers"], acked.len() + 3);
}

/// The server's creates are appended to packs (no file a customer), a new
/// one each time the last passes its size; each is read back by the
/// server, by the CLI and through an update (which gives it its own file);
/// a key taken by one of them, in the same group or after, is refused.
#[test]
fn the_servers_creates_are_packed_and_read_back_from_the_packs() {
    let env = Env::new();
    let s = serve(&env, &[SMALL, ("PAYCTL_GROUP_PACK_BYTES", "8192")]);
    let acked = load(&s, 4, 40, "pk");
    assert_eq!(acked.len(), 160);
    // A key raced again at once (the group still holds the store, the
    // customer is only in its pack) and after its checkpoint.
    for _ in 0..2 {
        let r = s.post("/customer-profiles", &profile_body("cust-pk0-0000"));
        assert_eq!((r.status, r.codes()), (409, vec![21002]), "{r:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    read_through(&s, &acked, 7);
    drop(s);
    let packs: Vec<_> = std::fs::read_dir(env.path().join("packs"))
        .expect("packs")
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(packs.len() >= 3, "a new pack past 8 KB: {packs:?}");
    for id in &acked {
        let shard = &id.split_once('_').unwrap().1[..2];
        let file = env.path().join(format!("customers/{shard}/{id}.json"));
        assert!(!file.exists(), "{id} is packed, not a file of its own");
    }
    all_landed(&env, &acked, Some(160));
    let id = &acked[3];
    let up = env.run(&["profile", "update", id, "--email", "new@example.com"]);
    assert_eq!(up.code, 0, "{up:?}");
    let got = env.run(&["profile", "get", id]);
    assert!(got.stdout.contains("new@example.com"), "{got:?}");
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

/// A snapshot hard-links the packs: the server's creates never append to
/// one it shares, so the snapshot keeps what it saved and its restore
/// checks clean (a pack grown past its entries would not).
#[test]
fn the_servers_creates_never_grow_a_pack_that_a_snapshot_shares() {
    let env = Env::new();
    let start = || serve(&env, &[SMALL]);
    let s = start();
    let first = load(&s, 2, 20, "snap-a");
    drop(s);
    let saved = env.run(&["store", "snapshot", "save", "baseline"]);
    assert_eq!(saved.code, 0, "{saved:?}");
    let s = start();
    let second = load(&s, 2, 20, "snap-b");
    drop(s);
    all_landed(&env, &[first.clone(), second.clone()].concat(), Some(80));
    let back = env.run(&["store", "snapshot", "restore", "baseline", "--yes"]);
    assert_eq!(back.code, 0, "{back:?}");
    all_landed(&env, &first, Some(40));
    for id in &second {
        assert_ne!(
            env.run(&["profile", "get", id]).code,
            0,
            "{id} is not in the snapshot"
        );
    }
    // Creates after the restore go to a new pack too, and the snapshot
    // still restores clean.
    let s = start();
    let third = load(&s, 2, 20, "snap-c");
    drop(s);
    all_landed(&env, &[first.clone(), third].concat(), Some(80));
    let again = env.run(&["store", "snapshot", "restore", "baseline", "--yes"]);
    assert_eq!(again.code, 0, "{again:?}");
    all_landed(&env, &first, Some(40));
}

/// A background checkpoint that fails (a full disk as it starts applying)
/// loses nothing: the log still holds its records, the next checkpoint
/// stops the writes and replays the whole log, and the creates go on.
#[test]
fn a_background_checkpoint_that_fails_is_replayed_and_the_creates_go_on() {
    let env = Env::new();
    let s = serve(
        &env,
        &[SMALL, ("PAYCTL_FAULT", "enospc@before-checkpoint:2")],
    );
    let acked = load(&s, 4, 60, "fail");
    assert_eq!(acked.len(), 240, "every create answered 201");
    drop(s);
    all_landed(&env, &acked, Some(240));
}

/// serve's webhook deliverer looks for webhooks once a second: with none,
/// it reads them through the store the creates hold instead of waiting for
/// it, so the server keeps the store under a load that never pauses (each
/// time it takes the store again, `payctl.lock` grows by a byte).
#[test]
fn the_webhook_deliverer_does_not_make_the_creates_let_the_store_go() {
    let env = Env::new();
    // Nor a checkpoint that stops the creates, for a log past its size
    // while the last is being applied (a loaded debug build): only the
    // deliverer could make the server let the store go.
    let s = serve_without_idle_checkpoints(&env, &[("PAYCTL_CHECKPOINT_BYTES", "268435456")]);
    let (before, after, ()) = takes_across_a_load(&env, &s, "w", || {
        std::thread::sleep(Duration::from_millis(3000));
    });
    assert_eq!(
        before, after,
        "the server took the store again during the load"
    );
    drop(s);
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

/// A pack whose end is not a whole entry (a torn write, damage) is never
/// appended to: an append at its last whole entry would cut those bytes
/// off, and `store check` names them as they are. The creates start a new
/// pack.
#[test]
fn the_servers_creates_never_append_to_a_pack_with_a_damaged_end() {
    let env = Env::new();
    let s = Server::start(&env, &["--no-worker", "--quiet"]);
    let first = load(&s, 1, 3, "torn-a");
    drop(s);
    // (The server was killed: a command replays what it had not applied.)
    assert_eq!(env.run(&["profile", "get", &first[0]]).code, 0);
    let pack = env.path().join("packs/1.jsonl");
    let mut bytes = std::fs::read(&pack).expect("the creates went to pack 1");
    bytes.extend_from_slice(b"{\"torn");
    std::fs::write(&pack, &bytes).unwrap();
    let s = Server::start(&env, &["--no-worker", "--quiet"]);
    let second = load(&s, 1, 3, "torn-b");
    drop(s);
    assert_eq!(env.run(&["profile", "get", &second[0]]).code, 0);
    assert_eq!(
        std::fs::read(&pack).unwrap(),
        bytes,
        "pack 1 kept as it was"
    );
    assert!(env.path().join("packs/2.jsonl").is_file(), "a new pack");
    for id in first.iter().chain(&second) {
        let got = env.run(&["profile", "get", id]);
        assert_eq!(got.code, 0, "{id}: {got:?}");
    }
}

/// A knock that nobody takes back (its payctl was killed while it waited)
/// costs the server one wait of 100 ms: it removes the knock then, and its
/// creates go on.
#[test]
fn a_knock_left_by_a_killed_payctl_is_removed_and_the_creates_go_on() {
    let env = Env::new();
    let s = Server::start(&env, &["--no-worker", "--quiet"]);
    let knock = env.path().join("payctl.knock");
    std::fs::write(&knock, b"").unwrap();
    let acked = load(&s, 4, 20, "stale");
    assert_eq!(acked.len(), 80);
    assert!(!knock.exists(), "the knock was removed");
    drop(s);
    all_landed(&env, &acked, Some(80));
}

/// How many times the server took the store (`payctl.lock` grows by a
/// byte each time).
fn takes(env: &Env) -> u64 {
    std::fs::metadata(env.path().join("payctl.lock"))
        .expect("payctl.lock")
        .len()
}

/// The server's takes of the store ([`takes`]) before and after `during`,
/// run under [`endless_load`] once it has gone on for 700 ms, and what
/// `during` answered.
fn takes_across_a_load<R>(
    env: &Env,
    s: &Server,
    tag: &str,
    during: impl FnOnce() -> R,
) -> (u64, u64, R) {
    let stop = AtomicBool::new(false);
    let acked = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        endless_load(scope, s, tag, &stop, &acked);
        std::thread::sleep(Duration::from_millis(700));
        let before = takes(env);
        let answer = during();
        let after = takes(env);
        stop.store(true, Ordering::SeqCst);
        (before, after, answer)
    })
}

/// While a checkpoint applies the log in the background, the creates go on
/// past the log's size (up to eight times it) without stopping for a
/// checkpoint of their own: the server keeps the store. (Each such stop was
/// a create's p99 at 4,500 creates a second.)
#[test]
fn the_creates_go_on_past_the_logs_size_while_a_checkpoint_applies_it() {
    let env = Env::new();
    // The log is set aside past 64 KB (about 20 creates one at a time) and
    // its checkpoint takes 4 s.
    let s = serve_without_idle_checkpoints(
        &env,
        &[
            ("PAYCTL_CHECKPOINT_BYTES", "65536"),
            ("PAYCTL_SLOW", "background-checkpoint:4000"),
        ],
    );
    let mut acked = load(&s, 4, 15, "first");
    let before = takes(&env);
    // About 250 KB more: past the size, not past eight times it.
    let started = std::time::Instant::now();
    acked.extend(load(&s, 4, 20, "more"));
    assert!(
        started.elapsed() < Duration::from_millis(3500),
        "the creates were not held up by the checkpoint: {:?}",
        started.elapsed()
    );
    assert_eq!(
        takes(&env),
        before,
        "the server let the store go for a checkpoint that stopped the creates"
    );
    drop(s);
    all_landed(&env, &acked, Some(140));
}

/// A request whose credential the server has not seen looks it up through
/// the store the creates hold instead of opening it: a lookup that waited
/// for the store knocked, and the creates stopped and let it go.
#[test]
fn a_credential_looked_up_during_the_creates_does_not_make_them_let_the_store_go() {
    let env = Env::new();
    let s = serve_without_idle_checkpoints(&env, &[("PAYCTL_CHECKPOINT_BYTES", "268435456")]);
    let (before, after, asked) = takes_across_a_load(&env, &s, "k", || {
        // A create with a new bearer token each time: never in the keys
        // kept (a GET would read the store: that is another matter).
        let mut asked = 0;
        let until = std::time::Instant::now() + Duration::from_millis(2500);
        while std::time::Instant::now() < until {
            let token = format!("Bearer pk_unknown_{asked}");
            let body = profile_body(&format!("cust-token-{asked}")).to_string();
            let r = s.send(
                "POST",
                "/customer-profiles",
                Some(&body),
                &[("Authorization", &token)],
            );
            assert!(r.status == 201 || r.status == 401, "{r:?}");
            asked += 1;
            std::thread::sleep(Duration::from_millis(20));
        }
        asked
    });
    assert!(asked > 20, "{asked} lookups");
    assert_eq!(
        before, after,
        "the server took the store again during the load ({asked} lookups)"
    );
    drop(s);
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}
