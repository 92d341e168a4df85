//! A full disk (ENOSPC) at every write point of the write path, and a stdout
//! that cannot be written: the answer tells the truth in both directions.
//!
//! `PAYCTL_FAULT=enospc@<point>:<n>` makes the n-th and every later hit of a
//! point fail with ENOSPC (src/store/fault.rs). For profile create, txn
//! create, import and the worker, every point at every hit is tried: a
//! failure before the commit point (the rename of `journal.json`) answers
//! exit 3 with 30003 naming the file and leaves the store exactly as it
//! was; a failure after it answers success with the new id and a warning on
//! stderr, and the next command completes the change. Either way a retry
//! with the same `--idempotency-key` (or, for the import, `--skip-existing`;
//! for the worker, another run) creates nothing twice, and `store check` is
//! clean.

// Says on stderr when a check is skipped (no small filesystem to fill).
#![allow(clippy::print_stderr)]

use crate::common;
use common::mount_tmpfs;

use std::path::Path;
use std::process::Stdio;

use common::{
    Env, FAULT_POINTS, Out, assert_clean, clone_env, ok, payctl, profile_body, txn_create_args,
};

const NO_SPACE: &str = "No space left on device";

fn run(env: &Env, fault: Option<&str>, args: &[&str], stdin: Option<&str>) -> Out {
    let mut c = env.cmd();
    c.args(args).env_remove("PAYCTL_FAULT");
    if let Some(f) = fault {
        c.env("PAYCTL_FAULT", f);
    }
    c.write_stdin(stdin.unwrap_or("").as_bytes().to_vec());
    Out::from(c.output().expect("run payctl"))
}

/// A write tried with ENOSPC at every hit of every point.
struct Case<'a> {
    name: &'a str,
    args: Vec<String>,
    stdin: Option<String>,
    /// The arguments of the retry (the same, with the same key, for a create).
    retry: Vec<String>,
    /// Whether the answer is one id that a retry must answer again.
    one_id: bool,
    /// Check the store after the retry: the change is there exactly once.
    verify: &'a dyn Fn(&Env, &str),
}

/// Run `c` once per hit of every point; the numbers of (failed before the
/// commit point, committed with a warning) trials.
fn exhaust(fixture: &Env, c: &Case) -> (usize, usize) {
    let (mut before_commit, mut after_commit) = (0, 0);
    for point in FAULT_POINTS {
        for n in 1.. {
            assert!(n < 60, "{}: runaway", c.name);
            let fault = format!("enospc@{point}:{n}");
            let what = format!("{}, {fault}", c.name);
            let env = clone_env(fixture);
            let before = env.snapshot();
            let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
            let o = run(&env, Some(&fault), &args, c.stdin.as_deref());
            assert!(!o.stderr.contains("panicked"), "{what}: {o:?}");
            let reached = o.code != 0 || o.stderr.contains("warning:");
            let first_id = if o.code == 0 {
                if reached {
                    // After the commit point: success, and a warning that
                    // names the file and says the change is made.
                    after_commit += 1;
                    assert!(
                        o.stderr.contains("the change was committed"),
                        "{what}: {o:?}"
                    );
                    assert!(o.stderr.contains(NO_SPACE), "{what}: {o:?}");
                }
                c.one_id.then(|| o.id())
            } else {
                // Before it: exit 3, 30003 naming a file of the store, and
                // nothing changed, not even a temp file left behind.
                before_commit += 1;
                o.refused(3, 30003).mentions(NO_SPACE);
                let store = env.path().display().to_string();
                o.mentions(&store);
                assert_eq!(
                    before,
                    env.snapshot(),
                    "{what}: a failed write changed the store"
                );
                None
            };
            // A read (no fault: the disk has room again) sees the truth.
            ok(env.run(&["profile", "list"]));
            // The retry creates nothing twice.
            let retry: Vec<&str> = c.retry.iter().map(String::as_str).collect();
            let again = ok(run(&env, None, &retry, c.stdin.as_deref()));
            if let Some(id) = first_id {
                assert_eq!(again.id(), id, "{what}: the retry answers the first id");
            }
            (c.verify)(&env, &what);
            assert_clean(&env, &what);
            if !reached {
                break; // the point is not reached that often
            }
        }
    }
    eprintln!(
        "{}: {before_commit} failures before the commit point, {after_commit} after",
        c.name
    );
    assert!(
        before_commit > 0 && after_commit > 0,
        "{}: both sides tried",
        c.name
    );
    (before_commit, after_commit)
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn profile_create_on_a_full_disk_tells_the_truth() {
    let fixture = Env::new();
    fixture.create_profile("base-00001");
    let body = profile_body("new-00001").to_string();
    let args = strings(&[
        "profile",
        "create",
        "--body",
        "-",
        "--idempotency-key",
        "k-profile",
    ]);
    let verify = |env: &Env, what: &str| {
        let all = env.all_profiles();
        assert_eq!(all.len(), 2, "{what}: {all:?}");
        assert_eq!(all[1]["customer_key"], "new-00001", "{what}");
    };
    exhaust(
        &fixture,
        &Case {
            name: "profile create",
            args: args.clone(),
            stdin: Some(body),
            retry: args,
            one_id: true,
            verify: &verify,
        },
    );
}

#[test]
fn txn_create_on_a_full_disk_never_makes_two_debits() {
    let fixture = Env::new();
    let (prm, csp) = fixture.attached_profile("txn-00001");
    let src = format!("@source_customers={csp}:125.50");
    let mut args = strings(&txn_create_args(&prm, "ach_funding", &[&src]));
    args.extend(strings(&["--idempotency-key", "k-txn"]));
    let verify = |env: &Env, what: &str| {
        let list = ok(env.run(&["txn", "list"]));
        assert_eq!(list.data().len(), 1, "{what}: {list:?}");
        let w = ok(env.run(&["worker"]));
        assert_eq!(w.data()[0]["transactions_processed"], 1, "{what}: {w:?}");
    };
    exhaust(
        &fixture,
        &Case {
            name: "txn create",
            args: args.clone(),
            stdin: None,
            retry: args,
            one_id: true,
            verify: &verify,
        },
    );
}

#[test]
fn import_on_a_full_disk_is_retried_with_skip_existing() {
    import_on_a_full_disk(Env::new());
}

/// The same with the chunk packed (see src/store/packs.rs; an import of at
/// least 256 lines is, 4 here).
#[test]
fn a_packed_import_on_a_full_disk_is_retried_with_skip_existing() {
    let mut fixture = Env::new();
    fixture.envs.push(("PAYCTL_PACK_MIN", "4".into()));
    import_on_a_full_disk(fixture);
}

fn import_on_a_full_disk(fixture: Env) {
    fixture.create_profile("imp-base-1");
    // 8 profiles: one commit, applied as a batch journal.
    let lines = common::profile_lines("imp", 8);
    let verify = |env: &Env, what: &str| {
        let all = env.all_profiles();
        assert_eq!(all.len(), 9, "{what}");
        let keys: std::collections::BTreeSet<&str> = all
            .iter()
            .map(|p| p["customer_key"].as_str().unwrap())
            .collect();
        assert_eq!(keys.len(), 9, "{what}");
    };
    exhaust(
        &fixture,
        &Case {
            name: "profile import",
            args: strings(&["profile", "import", "-"]),
            stdin: Some(lines.clone()),
            retry: strings(&["profile", "import", "-", "--skip-existing"]),
            one_id: false,
            verify: &verify,
        },
    );
}

#[test]
fn worker_on_a_full_disk_processes_each_item_once() {
    let fixture = Env::new();
    let prm = fixture.program_id();
    let s = fixture.create_profile("wrk-00001");
    let t = fixture.create_profile("wrk-00002");
    for c in [&s, &t] {
        ok(fixture.run(&["program", "attach", &prm, c]));
    }
    ok(fixture.run(&["worker"]));
    let u = fixture.create_profile("wrk-00003");
    ok(fixture.run(&["program", "attach", &prm, &u]));
    let src = format!("@source_customers={s}:10.50");
    let dst = format!("@targets={t}:10.50");
    let trn = ok(fixture.run(&txn_create_args(
        &prm,
        "internal_transfer",
        &[&src, &dst, "@facilitator=0.50"],
    )))
    .id();
    let verify = |env: &Env, what: &str| {
        let got = ok(env.run(&["txn", "get", &trn]));
        assert_eq!(got.data()[0]["transaction_status_id"], 60, "{what}");
        let steps = ok(env.run(&["txn", "steps", &trn]));
        let seqs: Vec<u64> = steps
            .data()
            .iter()
            .map(|x| x["sequence"].as_u64().unwrap())
            .collect();
        assert_eq!(seqs, [1, 2], "{what}: one step per template step");
        let rec = ok(env.run(&["program", "profile", &prm, &u]));
        assert_eq!(
            rec.data()[0]["customer_profile_program_status_id"],
            10,
            "{what}"
        );
        let w = ok(env.run(&["worker"]));
        assert_eq!(w.data()[0]["attachments_processed"], 0, "{what}: twice");
        assert_eq!(w.data()[0]["transactions_processed"], 0, "{what}: twice");
    };
    exhaust(
        &fixture,
        &Case {
            name: "worker",
            args: strings(&["worker"]),
            stdin: None,
            retry: strings(&["worker"]),
            one_id: false,
            verify: &verify,
        },
    );
}

/// Run payctl with `args` and its stdout on /dev/full.
fn to_dev_full(env: &Env, args: &[&str]) -> std::process::Output {
    payctl(env, "json")
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap()
}

/// `txn create … > /dev/full`: the transaction is committed but its id
/// cannot be printed. Exit 3, and stderr says that the change was committed
/// and names the id; a retry with the same key answers that id.
#[test]
fn a_create_whose_answer_cannot_be_written_says_it_was_committed() {
    assert!(Path::new("/dev/full").exists(), "Linux has /dev/full");
    let env = Env::new();
    let (prm, csp) = env.attached_profile("full-00001");
    let src = format!("@source_customers={csp}:125.50");
    let mut args = txn_create_args(&prm, "ach_funding", &[&src]);
    args.extend(["--idempotency-key", "k-devfull"]);
    let o = to_dev_full(&env, &args);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("writing output"), "{stderr}");
    assert!(stderr.contains("the change was committed"), "{stderr}");
    let list = ok(env.run(&["txn", "list"]));
    assert_eq!(list.data().len(), 1, "{list:?}");
    let trn = list.data()[0]["transaction_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(stderr.contains(&trn), "the id is named: {stderr}");
    // The retry answers the same id and creates nothing.
    let again = ok(env.run(&args));
    assert_eq!(again.id(), trn);
    assert_eq!(ok(env.run(&["txn", "list"])).data().len(), 1);
    // A read whose output is lost changed nothing: exit 3, no such note.
    let o = to_dev_full(&env, &["txn", "list"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    assert!(!stderr.contains("committed"), "{stderr}");
}

/// While the disk is full, reads work and show a change that was committed
/// but could not be completed; a write says which file it could not write
/// and why; once there is room, the next command completes the change.
#[test]
fn reads_work_while_the_disk_is_full() {
    let env = Env::new();
    let a = env.create_profile("full-00001");
    let args = [
        "profile",
        "create",
        "--body",
        "-",
        "--idempotency-key",
        "k-full",
    ];
    let body = profile_body("full-00002").to_string();
    // Committed, then the disk filled up: success, the journal left behind.
    let o = ok(run(&env, Some("enospc@after-journal"), &args, Some(&body)));
    let b = o.id();
    assert!(o.stderr.contains("the change was committed"), "{o:?}");
    let journal = env.path().join("journal.json");
    assert!(journal.exists());
    let full = Some("enospc@before-write");
    // Reads on the full disk: every one works and shows the change.
    let got = ok(run(&env, full, &["profile", "get", &b], None));
    assert_eq!(got.data()[0]["customer_key"], "full-00002", "{got:?}");
    assert!(got.stderr.contains("not completed on disk yet"), "{got:?}");
    let list = ok(run(&env, full, &["profile", "list"], None));
    let ids: Vec<&str> = list
        .data()
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [a.as_str(), b.as_str()], "{list:?}");
    assert_eq!(list.json["paging"]["total_count"], 2, "{list:?}");
    let by_key = ok(run(
        &env,
        full,
        &["profile", "list", "--customer-key", "full-00002"],
        None,
    ));
    assert_eq!(by_key.data().len(), 1, "{by_key:?}");
    let by_name = ok(run(
        &env,
        full,
        &["profile", "list", "--last-name", "lovelace"],
        None,
    ));
    assert_eq!(by_name.data().len(), 2, "{by_name:?}");
    assert!(journal.exists(), "a read wrote nothing");
    // A write on the full disk: exit 3, naming the file it could not write
    // and that it belongs to the earlier, committed change. (The journal
    // holds every point commit since the files were last synced, the first
    // create's too: the file named is the first whole file of its replay,
    // the head of the event log.)
    let o = run(
        &env,
        full,
        &["profile", "create", "--body", "-"],
        Some(&profile_body("full-00003").to_string()),
    );
    o.refused(3, 30003)
        .mentions(NO_SPACE)
        .mentions("/events/head")
        .mentions("a change committed earlier");
    assert!(journal.exists());
    assert_eq!(
        ok(run(&env, full, &["profile", "list"], None)).data().len(),
        2
    );
    // Room again: the next command completes the change; the retry answers it.
    let again = ok(run(&env, None, &args, Some(&body)));
    assert_eq!(again.id(), b);
    assert!(!journal.exists());
    assert_eq!(env.all_profiles().len(), 2);
    assert_clean(&env, "after the disk has room again");
}

// ------------------------------------------------- a real full disk (tmpfs)

/// Fill the file system of `dir` with `filler` until ENOSPC, then free
/// `pages` pages of it.
fn fill(filler: &Path, pages: u64) {
    use std::io::Write;
    let mut f = std::fs::File::create(filler).unwrap();
    let page = vec![0u8; 4096];
    loop {
        match f.write(&page) {
            Ok(n) if n == page.len() => {}
            Ok(_) => break,
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("{e}"),
        }
    }
    let _ = f.sync_all();
    let len = f.metadata().unwrap().len() / 4096 * 4096;
    f.set_len(len.saturating_sub(pages * 4096)).unwrap();
}

/// Fill the inodes of the file system at `dir` with empty files in
/// `dir/fill-inodes` until ENOSPC, then remove `free` of them.
fn fill_inodes(dir: &Path, free: usize) {
    let d = dir.join("fill-inodes");
    let _ = std::fs::create_dir(&d);
    let mut made = Vec::new();
    for i in 0.. {
        let p = d.join(i.to_string());
        match std::fs::File::create(&p) {
            Ok(_) => made.push(p),
            Err(e) if e.raw_os_error() == Some(28) => break,
            Err(e) => panic!("{e}"),
        }
    }
    for p in made.iter().rev().take(free) {
        std::fs::remove_file(p).unwrap();
    }
}

/// On a really full file system (`make_full(n)`: no room but for `n`
/// blocks or inodes; `make_room()`: room again): a create that cannot write
/// its journal answers 30003 and changes nothing; one whose journal fits
/// but whose record does not answers its id; reads go on working; when room
/// is made, a retry with the same key answers the same id and creates
/// nothing.
fn really_full(env: &Env, make_full: &dyn Fn(u64), make_room: &dyn Fn()) {
    let mnt = env.path();
    let a = env.create_profile("real-00001");
    let body = profile_body("real-00002").to_string();
    let args = [
        "profile",
        "create",
        "--body",
        "-",
        "--idempotency-key",
        "k-real",
    ];

    // No room at all: refused before the commit point, nothing changed.
    make_full(0);
    let before = env.snapshot();
    let o = run(env, None, &args, Some(&body));
    o.refused(3, 30003).mentions(NO_SPACE);
    assert_eq!(before, env.snapshot(), "a refused create changed the store");
    assert_eq!(ok(env.run(&["profile", "get", &a])).data().len(), 1);
    make_room();

    // Room for two pages: the journal (the record, its event and index
    // lines) fits, the files it names do not. The create is
    // committed: it answers its id, and says the rest is left to replay.
    make_full(2);
    let o = ok(run(env, None, &args, Some(&body)));
    let b = o.id();
    assert!(o.stderr.contains("the change was committed"), "{o:?}");
    assert!(mnt.join("journal.json").exists());

    // Still full: reads work and show it.
    let got = ok(env.run(&["profile", "get", &b]));
    assert_eq!(got.data()[0]["customer_key"], "real-00002");
    let list = ok(env.run(&["profile", "list"]));
    assert_eq!(list.data().len(), 2, "{list:?}");
    // A write says what it could not write.
    let o = env.body(&["profile", "create"], &profile_body("real-00003"));
    o.refused(3, 30003)
        .mentions(NO_SPACE)
        .mentions("a change committed earlier");

    // Room again: the retry answers the first id, and nothing is doubled.
    make_room();
    let again = ok(run(env, None, &args, Some(&body)));
    assert_eq!(again.id(), b);
    let keys: Vec<String> = env
        .all_profiles()
        .iter()
        .map(|p| p["customer_key"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(keys, ["real-00001", "real-00002"]);
    assert_clean(env, "after the disk has room again");
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn a_really_full_disk_never_hides_a_committed_create() {
    let env = Env::new();
    let _unmount = mount_tmpfs(&env.path(), "size=2m").expect("mount a tmpfs: run as root");
    let filler = env.path().join("filler");
    really_full(&env, &|pages| fill(&filler, pages), &|| {
        let _ = std::fs::remove_file(&filler);
    });
}

#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn out_of_inodes_never_hides_a_committed_create() {
    let env = Env::new();
    let _unmount =
        mount_tmpfs(&env.path(), "size=8m,nr_inodes=400").expect("mount a tmpfs: run as root");
    let dir = env.path();
    really_full(&env, &|n| fill_inodes(&dir, n as usize), &|| {
        let _ = std::fs::remove_dir_all(dir.join("fill-inodes"));
    });
}

/// An import of two chunks whose second commit fails before its commit
/// point: the error says which profiles the first chunk created (they are
/// kept), and a re-run with --skip-existing creates exactly the rest.
#[test]
fn an_import_failing_after_a_committed_chunk_says_what_it_created() {
    let env = Env::new();
    env.create_profile("imp-base-1");
    let chunk = payctl::core::import::CHUNK;
    let n = chunk + 3;
    let lines = common::profile_lines("imp", n);
    // The 1st before-write is the first chunk's journal, the 2nd the
    // second chunk's (the batch apply writes its files in place).
    let o = run(
        &env,
        Some("enospc@before-write:2"),
        &["profile", "import", "-"],
        Some(&lines),
    );
    o.refused(3, 30003)
        .mentions(NO_SPACE)
        .mentions("were created before the failure")
        .mentions(&format!("{chunk} profile(s)"))
        .mentions(&format!("up to line {chunk}"));
    let count = |env: &Env| {
        ok(env.run(&["profile", "list", "--page-size", "1"])).json["paging"]["total_count"]
            .as_u64()
            .unwrap()
    };
    assert_eq!(count(&env), 1 + chunk as u64);
    let again = ok(run(
        &env,
        None,
        &["profile", "import", "-", "--skip-existing"],
        Some(&lines),
    ));
    assert_eq!(again.data().len(), 3, "exactly the rest");
    assert_eq!(count(&env), 1 + n as u64);
    assert_clean(&env, "after the re-run");
}

/// Every kind of write (updates and deletes too) on a full disk: before the
/// commit point exit 3 and nothing changed; after it success and the
/// change is there.
#[test]
fn every_write_tells_the_truth_on_a_full_disk() {
    let fixture = Env::new();
    let prm = fixture.program_id();
    let csp = fixture.create_profile("all-00001");
    let other = fixture.create_profile("all-00002");
    ok(fixture.run(&["program", "attach", &prm, &csp]));
    ok(fixture.run(&["worker"]));
    ok(fixture.body(&["address", "create", &csp], &common::address_body(true)));
    let cpa = ok(fixture.body(&["address", "create", &csp], &common::address_body(false))).id();
    let instrument = common::ach_instrument_body(
        &prm,
        "Main",
        true,
        serde_json::json!([{"key": "source", "value": "onboarding"}]),
    );
    let pin = ok(fixture.body(&["instrument", "create", &csp], &instrument)).id();
    let addresses = |env: &Env| ok(env.run(&["address", "list", &csp])).data().len();
    let instruments = |env: &Env| ok(env.run(&["instrument", "list", &csp])).data().len();
    let email = |env: &Env| {
        ok(env.run(&["profile", "get", &csp])).data()[0]["customer_profile_individual"]["email"]
            .clone()
    };
    let city = |env: &Env| ok(env.run(&["address", "get", &csp, &cpa])).data()[0]["city"].clone();
    let label = |env: &Env| {
        ok(env.run(&["instrument", "get", &csp, &pin])).data()[0]["payment_instrument_label"]
            .clone()
    };
    let addr = common::address_body(false).to_string();
    let instr = instrument.to_string();
    type Changed<'a> = Box<dyn Fn(&Env) -> bool + 'a>;
    let cases: Vec<(Vec<&str>, Option<&str>, Changed)> = vec![
        (
            vec!["profile", "update", &csp, "--email", "new@example.com"],
            None,
            Box::new(|env| email(env) == "new@example.com"),
        ),
        (
            vec![
                "address",
                "create",
                &csp,
                "--body",
                "-",
                "--idempotency-key",
                "k-a",
            ],
            Some(&addr),
            Box::new(|env| addresses(env) == 3),
        ),
        (
            vec!["address", "update", &csp, &cpa, "--city", "Newtown"],
            None,
            Box::new(|env| city(env) == "Newtown"),
        ),
        (
            vec!["address", "delete", &csp, &cpa, "--yes"],
            None,
            Box::new(|env| addresses(env) == 1),
        ),
        (
            vec![
                "instrument",
                "create",
                &csp,
                "--body",
                "-",
                "--idempotency-key",
                "k-i",
            ],
            Some(&instr),
            Box::new(|env| instruments(env) == 2),
        ),
        (
            vec!["instrument", "update", &csp, &pin, "--label", "Renamed"],
            None,
            Box::new(|env| label(env) == "Renamed"),
        ),
        (
            vec![
                "program",
                "attach",
                &prm,
                &other,
                "--idempotency-key",
                "k-p",
            ],
            None,
            Box::new(|env| env.run(&["program", "profile", &prm, &other]).code == 0),
        ),
    ];
    for (args, stdin, changed) in &cases {
        let what = args.join(" ");
        // Before the commit point: exit 3, nothing changed.
        let env = clone_env(&fixture);
        let before = env.snapshot();
        let o = run(&env, Some("enospc@before-write"), args, *stdin);
        o.refused(3, 30003).mentions(NO_SPACE);
        assert_eq!(before, env.snapshot(), "{what}");
        assert!(!changed(&env), "{what}: a refused write happened");
        // After it: success, a warning, and the change is there.
        let env = clone_env(&fixture);
        let o = ok(run(&env, Some("enospc@after-journal"), args, *stdin));
        assert!(
            o.stderr.contains("the change was committed"),
            "{what}: {o:?}"
        );
        assert!(changed(&env), "{what}: a committed write is missing");
        assert_clean(&env, &what);
    }
}

/// Reads through a pending journal cover every index: a transaction (its
/// log and queue item) and an attachment (the attachment index).
#[test]
fn transactions_and_attachments_are_read_while_the_disk_is_full() {
    let env = Env::new();
    let (prm, csp) = env.attached_profile("rd-000001");
    let full = Some("enospc@before-write");
    // A committed attach whose journal is left pending.
    let late = env.create_profile("rd-000002");
    let o = ok(run(
        &env,
        Some("enospc@after-journal"),
        &["program", "attach", &prm, &late],
        None,
    ));
    assert!(o.stderr.contains("the change was committed"), "{o:?}");
    let recs = ok(run(&env, full, &["program", "profiles", &prm], None));
    let ids: Vec<&str> = recs
        .data()
        .iter()
        .map(|r| r["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [csp.as_str(), late.as_str()], "{recs:?}");
    let rec = ok(run(&env, full, &["program", "profile", &prm, &late], None));
    assert_eq!(rec.data()[0]["customer_profile_program_status_id"], 1);
    ok(env.run(&["worker"]));
    // A committed transaction whose journal is left pending.
    let src = format!("@source_customers={csp}:125.50");
    let args = txn_create_args(&prm, "ach_funding", &[&src]);
    let trn = ok(run(&env, Some("enospc@after-journal"), &args, None)).id();
    let got = ok(run(&env, full, &["txn", "get", &trn], None));
    assert_eq!(got.data()[0]["transaction_status_id"], 10);
    let list = ok(run(&env, full, &["txn", "list", "--customer", &csp], None));
    assert_eq!(list.data().len(), 1, "{list:?}");
    let params = ok(run(&env, full, &["txn", "parameters", &trn], None));
    assert_eq!(params.data().len(), 1, "{params:?}");
    // The worker cannot write: it says so; with room it processes the
    // transaction once.
    run(&env, full, &["worker"], None).refused(3, 30003);
    let w = ok(env.run(&["worker"]));
    assert_eq!(w.data()[0]["transactions_processed"], 1, "{w:?}");
    assert_clean(&env, "after the disk has room again");
}
