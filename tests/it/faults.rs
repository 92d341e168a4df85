//! Faults other than a kill: the lock file deleted under a writer, readers
//! that never stop, a signal during a lock wait, a read-only mount, a store
//! owned by another user, links and FIFOs in place of store files, and the
//! repairs that must never make things worse. Each test drives the real
//! binary.

// Holds the store's lock as another process would, and says on stderr when a check is skipped.
#![allow(clippy::print_stderr, clippy::disallowed_methods)]

use crate::common;
use common::assert_check_passes as assert_clean;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Env, Out, findings, finish, profile_body};

/// Wait for `child` at most `limit`; `None` (and the child killed) when it
/// did not exit by then.
fn finish_within(mut child: Child, limit: Duration) -> Option<Out> {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if child.try_wait().expect("try_wait").is_some() {
            return Some(finish(child));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// `n` profile create bodies as JSON Lines.
fn jsonl(prefix: &str, n: usize) -> Vec<u8> {
    common::profile_lines(prefix, n).into_bytes()
}

/// Whether some process holds `path` exclusively (a shared try fails).
fn held_exclusively(path: &Path) -> bool {
    let Ok(f) = fs::File::open(path) else {
        return false;
    };
    match f.try_lock_shared() {
        Ok(()) => false,
        Err(fs::TryLockError::WouldBlock) => true,
        Err(e) => panic!("{e:?}"),
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("kill")
        .success();
    assert!(ok, "kill {sig}");
}

// ---------------------------------------------------------------- the lock

/// `payctl.lock` deleted while an import holds it: a profile create started
/// then must wait for the import (and find the key taken), not get in at
/// once beside it and create the key a second time.
#[test]
fn deleting_the_lock_file_under_a_writer_lets_no_second_writer_in() {
    let env = Env::new();
    env.run(&["init"]);
    let n = 3_000;
    let last = format!("race-{:06}", n - 1);
    let importer = env.spawn(&["profile", "import", "-"], Some(&jsonl("race", n)));
    let lock = env.path().join("payctl.lock");
    let start = Instant::now();
    while !held_exclusively(&lock) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "import never took the lock"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    fs::remove_file(&lock).unwrap();
    let mut importer = importer;
    let rival = env.spawn(
        &["--lock-timeout", "120", "profile", "create", "--body", "-"],
        Some(profile_body(&last).to_string().as_bytes()),
    );
    assert!(
        importer.try_wait().unwrap().is_none(),
        "the import ended before the rival started: no race tested"
    );
    let imported = finish(importer);
    let o = finish(rival);
    assert_eq!(imported.code, 0, "{imported:?}");
    o.refused(1, 21002);
    assert_clean(&env);
    // Replaced rather than deleted: the same.
    let importer = env.spawn(&["profile", "import", "-"], Some(&jsonl("again", 3_000)));
    while !held_exclusively(&lock) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "import never took the lock"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let fresh = env.path().join("fresh");
    fs::write(&fresh, b"").unwrap();
    fs::rename(&fresh, &lock).unwrap();
    let rival = env.spawn(
        &["--lock-timeout", "120", "profile", "create", "--body", "-"],
        Some(profile_body("again-002999").to_string().as_bytes()),
    );
    assert_eq!(finish(importer).code, 0);
    finish(rival).refused(1, 21002);
    assert_clean(&env);
}

/// Four reader loops listing a large store back to back: a writer still
/// gets in within its lock timeout (after the readers already inside).
#[test]
fn a_writer_is_not_starved_by_back_to_back_readers() {
    let env = Env::new();
    let id = env.create_profile("writer-target");
    // A long summary log (60,000 versions of the one profile: still
    // consistent for `store check`) makes each list take a while, so the
    // readers' turns overlap.
    let log = env.path().join("index/profiles.log");
    let line = fs::read(&log).unwrap();
    let mut f = fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(&line.repeat(60_000)).unwrap();
    drop(f);
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let stop = stop.clone();
            let path = env.path();
            std::thread::spawn(move || {
                let mut runs = 0;
                while !stop.load(Ordering::SeqCst) {
                    let o = Command::new(env!("CARGO_BIN_EXE_payctl"))
                        .arg("--data-dir")
                        .arg(&path)
                        .args(["-o", "json", "--lock-timeout", "60"])
                        .args(["profile", "list", "--last-name", "Nobody"])
                        .output()
                        .expect("reader");
                    assert!(o.status.success(), "{o:?}");
                    runs += 1;
                }
                runs
            })
        })
        .collect();
    // Let the readers overlap.
    std::thread::sleep(Duration::from_millis(1500));
    let mut outs = Vec::new();
    for _ in 0..3 {
        let o = finish(env.spawn(
            &[
                "--lock-timeout",
                "15",
                "address",
                "create",
                &id,
                "--body",
                "-",
            ],
            Some(common::address_body(false).to_string().as_bytes()),
        ));
        outs.push(o);
    }
    stop.store(true, Ordering::SeqCst);
    let runs: usize = readers.into_iter().map(|r| r.join().unwrap()).sum();
    assert!(
        runs >= 8,
        "the readers did not run back to back ({runs} runs)"
    );
    for o in &outs {
        assert_eq!(o.code, 0, "a writer starved behind readers: {o:?}");
    }
    assert_clean(&env);
}

/// A timeout names what it waited for: the writers' turn held by another
/// payctl (not "another payctl holds" a lock that no single process held).
#[test]
fn a_lock_timeout_says_what_was_waited_for() {
    let env = Env::new();
    env.run(&["init"]);
    let lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(env.path().join("payctl.lock"))
        .unwrap();
    lock.lock().unwrap();
    let o = env.body(
        &["--lock-timeout", "0.2", "profile", "create"],
        &profile_body("key-0"),
    );
    o.refused(3, 30001)
        .mentions("payctl.lock")
        .mentions("another payctl is writing to this store or waiting to");
    drop(lock);
    // A reader inside (the directory held shared): a writer waits for it.
    let dir = fs::File::open(env.path()).unwrap();
    dir.lock_shared().unwrap();
    let o = env.body(
        &["--lock-timeout", "0.2", "profile", "create"],
        &profile_body("key-1"),
    );
    o.refused(3, 30001).mentions("readers");
    assert!(o.stderr.contains("waiting for"), "{o:?}");
    let o = env.run(&["--lock-timeout", "0.2", "profile", "list"]);
    assert_eq!(o.code, 0, "readers share: {o:?}");
}

/// `worker --watch` waiting for the lock stops on SIGTERM (and on SIGINT)
/// at once, printing its total, instead of waiting out the timeout.
#[test]
fn worker_watch_stops_waiting_for_the_lock_on_sigterm() {
    let env = Env::new();
    env.run(&["init"]);
    for sig in ["-TERM", "-INT"] {
        let lock = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(env.path().join("payctl.lock"))
            .unwrap();
        lock.lock().unwrap();
        let worker = env.spawn(&["--lock-timeout", "60", "worker", "--watch"], None);
        std::thread::sleep(Duration::from_millis(700));
        let sent = Instant::now();
        signal(&worker, sig);
        let o = finish_within(worker, Duration::from_secs(5))
            .unwrap_or_else(|| panic!("worker --watch ignored {sig} while waiting for the lock"));
        assert!(sent.elapsed() < Duration::from_secs(3));
        assert_eq!(o.code, 0, "{o:?}");
        assert!(o.stderr.contains("waiting for"), "{o:?}");
        assert!(o.data()[0]["attachments_processed"].is_u64(), "{o:?}");
        drop(lock);
    }
}

// ------------------------------------------------------ read-only, owners

fn remount(dir: &Path, how: &str) {
    let ok = Command::new("mount")
        .args(["-o", &format!("remount,{how}")])
        .arg(dir)
        .status()
        .expect("mount")
        .success();
    assert!(ok, "remount {how}");
}

/// A store on a read-only mount (a snapshot, a backup) is read; a write is
/// refused with exit 3 saying the file system is read-only.
#[test]
#[ignore = "needs root (mounts a tmpfs)"]
fn a_store_on_a_read_only_mount_is_readable_and_writes_say_why_not() {
    let env = Env::new();
    let mnt = env.dir.path().join("store");
    let _unmount = common::mount_tmpfs(&mnt, "size=64m").expect("mount a tmpfs: run as root");
    let id = env.create_profile("ro-001");
    let before = env.snapshot();
    remount(&mnt, "ro");
    let o = env.run(&["profile", "get", &id]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["customer_key"], "ro-001");
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_clean(&env);
    let o = env.body(&["profile", "create"], &profile_body("ro-002"));
    o.refused(3, 30003).mentions("read-only file system");
    let o = env.run(&["worker"]);
    o.refused(3, 30003).mentions("read-only file system");
    assert_eq!(before, env.snapshot());
    remount(&mnt, "rw");
    // Without payctl.lock (a copy that lost it): still readable.
    fs::remove_file(mnt.join("payctl.lock")).unwrap();
    remount(&mnt, "ro");
    let o = env.run(&["profile", "get", &id]);
    assert_eq!(o.code, 0, "{o:?}");
    remount(&mnt, "rw");
}

fn chown_tree(p: &Path, uid: u32) {
    std::os::unix::fs::lchown(p, Some(uid), Some(uid)).unwrap();
    if p.is_dir() && !p.is_symlink() {
        for e in fs::read_dir(p).unwrap() {
            chown_tree(&e.unwrap().path(), uid);
        }
    }
}

/// Root writing a user's store would leave root-owned records the user
/// cannot read: refused (30009, exit 3, store unchanged) with a way out;
/// reads still work.
#[test]
#[ignore = "needs root (gives the store to another user)"]
fn a_store_owned_by_another_user_is_not_written() {
    let env = Env::new();
    let id = env.create_profile("own-001");
    assert_eq!(
        rustix_euid(),
        0,
        "run as root to give the store to another user"
    );
    chown_tree(&env.path(), 65534);
    let before = env.snapshot();
    let o = env.body(&["profile", "create"], &profile_body("own-002"));
    o.refused(3, 30009)
        .mentions("owned by another user")
        .mentions("PAYCTL_ALLOW_OTHER_OWNER=1");
    let o = env.run(&["profile", "update", &id, "--first-name", "Bo"]);
    assert_eq!(o.code, 3, "{o:?}");
    assert_eq!(before, env.snapshot(), "a refused write changed the store");
    let o = env.run(&["profile", "get", &id]);
    assert_eq!(o.code, 0, "reads work: {o:?}");
    // Even without payctl.lock, a reader creates nothing in it.
    fs::remove_file(env.path().join("payctl.lock")).unwrap();
    let o = env.run(&["profile", "get", &id]);
    assert_eq!(o.code, 0, "reads work: {o:?}");
    assert!(
        !env.path().join("payctl.lock").exists(),
        "a reader created a file in another user's store"
    );
    // A change committed but not applied (killed after the journal): a
    // reader reads through the journal without replaying it.
    chown_tree(&env.path(), 0);
    let mut c = env.cmd();
    c.env("PAYCTL_FAULT", "after-journal")
        .args(["profile", "create", "--body", "-"])
        .write_stdin(profile_body("own-003").to_string());
    let o = Out::from(c.output().unwrap());
    assert!(![0, 1, 2, 3].contains(&o.code), "{o:?}");
    assert!(env.path().join("journal.json").exists());
    chown_tree(&env.path(), 65534);
    let before = env.snapshot();
    let o = env.run(&["profile", "list"]);
    assert_eq!(
        o.code, 0,
        "a reader of another user's store with a pending journal: {o:?}"
    );
    assert_eq!(o.data().len(), 2, "{o:?}");
    assert_eq!(
        before,
        env.snapshot(),
        "a reader wrote another user's store"
    );
    // The documented way out.
    let mut c = env.cmd();
    c.env("PAYCTL_ALLOW_OTHER_OWNER", "1")
        .args(["profile", "create", "--body", "-"])
        .write_stdin(profile_body("own-002").to_string());
    let o = Out::from(c.output().unwrap());
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(env.run(&["profile", "list"]).data().len(), 3);
}

fn rustix_euid() -> u32 {
    fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
        .unwrap_or(u32::MAX)
}

#[allow(dead_code)]
fn mode(p: &Path) -> u32 {
    fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

// ------------------------------------------------- links, FIFOs, sizes

/// A store with a profile attached to a program (its item queued) and a
/// second profile: (env, attached csp, other csp, program).
fn base_store() -> (Env, String, String, String) {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("base-00001");
    let b = env.create_profile("base-00002");
    let o = env.run(&["program", "attach", &prm, &a]);
    assert_eq!(o.code, 0, "{o:?}");
    (env, a, b, prm)
}

fn queue_items(env: &Env) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(env.path().join("queue"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Run `args` on `env`, failing the test if it does not end within 20 s
/// (a FIFO must never hang a command).
fn run_bounded(env: &Env, args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut a = vec!["--lock-timeout", "5"];
    a.extend_from_slice(args);
    let child = env.spawn(&a, stdin);
    finish_within(child, Duration::from_secs(20)).unwrap_or_else(|| panic!("payctl {args:?} hung"))
}

/// Every command a store file can meet: reads, writes, the worker, check.
fn commands(env: &Env, a: &str, b: &str, prm: &str) -> Vec<Out> {
    let body = profile_body("new-00001").to_string();
    vec![
        run_bounded(env, &["profile", "get", a], None),
        run_bounded(env, &["profile", "list"], None),
        run_bounded(
            env,
            &["profile", "create", "--body", "-"],
            Some(body.as_bytes()),
        ),
        run_bounded(env, &["program", "attach", prm, b], None),
        run_bounded(env, &["worker"], None),
        run_bounded(env, &["store", "check"], None),
    ]
}

/// A link in place of each kind of store file (and of a directory) is
/// never followed: the file it points to keeps its bytes and its mode,
/// nothing is created outside the store, no command hangs or panics, and
/// `store check` names the link.
#[test]
fn links_in_place_of_store_files_are_never_followed() {
    let (base, a, b, prm) = base_store();
    let queue_item = base.rel(&queue_items(&base)[0]);
    let customer = base.rel(&base.customer_file(&a));
    let shard = Path::new(&customer).parent().unwrap().display().to_string();
    let bucket = fs::read_dir(base.path().join("index/keys"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .into_string()
        .unwrap();
    let bucket = format!("index/keys/{bucket}");
    let files = [
        "payctl.lock",
        "meta.json",
        "catalog.json",
        "journal.json",
        &customer,
        "index/profiles.log",
        "index/profiles.ids",
        "index/transactions.log",
        "index/attachments.log",
        &bucket,
        &queue_item,
    ];
    for rel in files {
        let env = Env::new();
        common::copy_dir(&base.path(), &env.path());
        let target = env.path().join(rel);
        let outside = env.dir.path().join("outside");
        // What the link points to: the real content (a journal: a valid one
        // that would write a file outside, if followed), mode 0644.
        let content = if rel == "journal.json" {
            r#"{"ops":[{"op":"put","path":"queue/zz","data":""}]}"#
                .as_bytes()
                .to_vec()
        } else {
            fs::read(&target).unwrap_or_default()
        };
        fs::write(&outside, &content).unwrap();
        fs::set_permissions(&outside, fs::Permissions::from_mode(0o644)).unwrap();
        let _ = fs::remove_file(&target);
        std::os::unix::fs::symlink(&outside, &target).unwrap();
        let outs = commands(&env, &a, &b, &prm);
        for o in &outs {
            assert!(!o.stderr.contains("panicked"), "{rel}: {o:?}");
        }
        assert_eq!(
            fs::read(&outside).unwrap(),
            content,
            "{rel}: the outside file was written"
        );
        assert_eq!(
            mode(&outside),
            0o644,
            "{rel}: the outside file was chmodded"
        );
        assert!(
            fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink())
                || rel.starts_with("customers/"),
            "{rel}: the link was replaced by a command"
        );
        let names: Vec<String> = fs::read_dir(env.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            names.len(),
            2,
            "{rel}: something was created outside the store: {names:?}"
        );
        if fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink()) {
            let o = outs.last().unwrap();
            assert_eq!(o.code, 3, "{rel}: {o:?}");
            assert!(
                o.messages()
                    .iter()
                    .any(|m| m.contains(rel) && m.contains("symbolic link")),
                "{rel}: store check does not name the link: {o:?}"
            );
        }
        // --repair removes a link where derived data or the lock belong,
        // never one where a record, the catalog or the metadata belong.
        let derived =
            rel == "payctl.lock" || rel.starts_with("index/") || rel.starts_with("queue/");
        let is_link = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink());
        let o = run_bounded(&env, &["store", "check", "--repair"], None);
        assert!(!o.stderr.contains("panicked"), "{rel}: {o:?}");
        if derived {
            assert_eq!(o.code, 0, "{rel}: {o:?}");
            assert!(!is_link(&target), "{rel}: repair kept the link");
            assert_clean(&env);
        } else if rel != "journal.json" {
            assert_eq!(o.code, 3, "{rel}: {o:?}");
            assert!(
                is_link(&target) || rel.starts_with("customers/"),
                "{rel}: repair removed it"
            );
        }
        assert_eq!(
            fs::read(&outside).unwrap(),
            content,
            "{rel}: written by repair"
        );
        assert_eq!(mode(&outside), 0o644, "{rel}: chmodded by repair");
    }
    // Links in place of directories: the key index, a customer shard.
    for rel in ["index/keys", &shard, "index"] {
        let env = Env::new();
        common::copy_dir(&base.path(), &env.path());
        let target = env.path().join(rel);
        let outside = env.dir.path().join("outside-dir");
        common::copy_dir(&target, &outside);
        fs::remove_dir_all(&target).unwrap();
        std::os::unix::fs::symlink(&outside, &target).unwrap();
        let before = common_snapshot(&outside);
        let outs = commands(&env, &a, &b, &prm);
        for o in &outs {
            assert!(!o.stderr.contains("panicked"), "{rel}: {o:?}");
        }
        assert_eq!(
            before,
            common_snapshot(&outside),
            "{rel}: written through a linked directory"
        );
        let o = outs.last().unwrap();
        assert_eq!(o.code, 3, "{rel}: {o:?}");
        assert!(
            o.messages().iter().any(|m| m.contains("symbolic link")),
            "{rel}: {o:?}"
        );
    }
}

/// Every file under `dir` with its bytes and mode.
fn common_snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(common_snapshot(&p));
        } else {
            out.push((p.clone(), fs::read(&p).unwrap(), mode(&p)));
        }
    }
    out.sort();
    out
}

/// A journal operation through a linked directory (`index/evil/…`) creates
/// nothing outside the store: the replay refuses the link.
#[test]
fn a_journal_path_through_a_linked_directory_writes_nothing_outside() {
    let env = Env::new();
    let id = env.create_profile("evil-00001");
    let outside = env.dir.path().join("elsewhere");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, env.path().join("index/evil")).unwrap();
    fs::write(
        env.path().join("journal.json"),
        r#"{"ops":[{"op":"put","path":"index/evil/planted","data":"x"}]}"#,
    )
    .unwrap();
    let o = run_bounded(&env, &["profile", "get", &id], None);
    assert_eq!(o.code, 3, "{o:?}");
    assert!(
        o.messages()
            .iter()
            .any(|m| m.contains("index/evil") && m.contains("symbolic link")),
        "{o:?}"
    );
    assert_eq!(
        fs::read_dir(&outside).unwrap().count(),
        0,
        "a file was created outside"
    );
}

/// The same through a batch (a journal of more than 16 operations, applied
/// as an import chunk is): its directories are opened each through its
/// parent, and a link among them is refused as well, in the middle of the
/// path (`index/evil/deeper/…`) as at its end, with nothing created
/// outside; the store's own directories that the batch needs are created.
#[test]
fn a_batch_journal_through_a_linked_directory_writes_nothing_outside() {
    for dir in ["index/evil", "index/evil/deeper"] {
        let env = Env::new();
        let id = env.create_profile("evil-00001");
        let outside = env.dir.path().join("elsewhere");
        fs::create_dir(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, env.path().join("index/evil")).unwrap();
        let mut ops: Vec<String> = (0..20)
            .map(|i| format!(r#"{{"op":"put","path":"index/fresh/{i}/x","data":"y"}}"#))
            .collect();
        ops.push(format!(
            r#"{{"op":"put","path":"{dir}/planted","data":"x"}}"#
        ));
        fs::write(
            env.path().join("journal.json"),
            format!(r#"{{"ops":[{}]}}"#, ops.join(",")),
        )
        .unwrap();
        let o = run_bounded(&env, &["profile", "get", &id], None);
        assert_eq!(o.code, 3, "{dir}: {o:?}");
        assert!(
            o.messages()
                .iter()
                .any(|m| m.contains("index/evil") && m.contains("symbolic link")),
            "{dir}: {o:?}"
        );
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            0,
            "{dir}: a file was created outside"
        );
    }
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().unwrap().success();
    assert!(ok, "mkfifo {}", p.display());
}

/// A FIFO in place of a store file hangs nothing: every command ends
/// within seconds, a read of it is refused naming the file, and `store
/// check` names it.
#[test]
fn fifos_in_place_of_store_files_hang_nothing() {
    let (base, a, b, prm) = base_store();
    let customer = base.rel(&base.customer_file(&a));
    let queue_item = base.rel(&queue_items(&base)[0]);
    for rel in [
        "payctl.lock",
        "meta.json",
        "catalog.json",
        "journal.json",
        &customer,
        "index/profiles.log",
        "index/profiles.ids",
        "index/attachments.log",
        &queue_item,
    ] {
        let env = Env::new();
        common::copy_dir(&base.path(), &env.path());
        let target = env.path().join(rel);
        let _ = fs::remove_file(&target);
        mkfifo(&target);
        let outs = commands(&env, &a, &b, &prm);
        for o in &outs {
            assert!(!o.stderr.contains("panicked"), "{rel}: {o:?}");
        }
        let o = outs.last().unwrap();
        assert_eq!(o.code, 3, "{rel}: {o:?}");
        assert!(
            o.messages()
                .iter()
                .any(|m| m.contains(rel) && m.contains("FIFO")),
            "{rel}: store check does not name the FIFO: {o:?}"
        );
    }
}

/// A directory in place of the lock file or of a queue item stops nothing,
/// and `store check` names it (repair never removes a directory).
#[test]
fn a_directory_in_place_of_a_file_is_named() {
    let (base, a, b, prm) = base_store();
    let queue_item = base.rel(&queue_items(&base)[0]);
    for rel in ["payctl.lock", &queue_item] {
        let env = Env::new();
        common::copy_dir(&base.path(), &env.path());
        let target = env.path().join(rel);
        fs::remove_file(&target).unwrap();
        fs::create_dir(&target).unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o700)).unwrap();
        let outs = commands(&env, &a, &b, &prm);
        assert_eq!(outs[0].code, 0, "{rel}: {:?}", outs[0]);
        let o = outs.last().unwrap();
        assert!(
            findings(o)
                .iter()
                .any(|m| m.contains(rel) && m.contains("is a directory where a file should be")),
            "{rel}: {o:?}"
        );
        assert!(target.is_dir());
    }
}

/// A record far above the documented size (a 1 GB sparse file) is refused
/// by its size, at once, without reading it.
#[test]
fn an_oversized_record_is_refused_unread() {
    let env = Env::new();
    let id = env.create_profile("big-00001");
    let f = fs::OpenOptions::new()
        .write(true)
        .open(env.customer_file(&id))
        .unwrap();
    f.set_len(1 << 30).unwrap();
    drop(f);
    let start = Instant::now();
    let o = run_bounded(&env, &["profile", "get", &id], None);
    o.refused(3, 30002).mentions("above the limit of");
    let o = run_bounded(&env, &["store", "check"], None);
    assert!(
        findings(&o)
            .iter()
            .any(|m| m.contains(&id) && m.contains("above the limit of")),
        "{o:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "reading 1 GB to refuse it"
    );
}

// ------------------------------------------------------------- repair

/// One unreadable customer record: `--repair` must not rebuild the indexes
/// without it (its customer_key would become free, its pending attachment
/// dropped); it says so, naming the record. Restored, all is clean.
#[test]
fn repair_never_frees_the_key_of_an_unreadable_record() {
    let (env, a, _b, _prm) = base_store();
    let file = env.customer_file(&a);
    let good = fs::read(&file).unwrap();
    fs::write(&file, b"{ not json").unwrap();
    // Something for repair to want to rebuild.
    fs::write(env.path().join("index/profiles.log"), b"").unwrap();
    let queued = queue_items(&env);
    assert_eq!(queued.len(), 1);
    let o = env.store_check(true);
    let found = findings(&o);
    assert!(
        found
            .iter()
            .any(|m| m.contains(&a) && m.contains("not rebuilt")),
        "{found:#?}"
    );
    assert_eq!(
        queue_items(&env),
        queued,
        "the pending attachment was dropped"
    );
    let o = env.body(&["profile", "create"], &profile_body("base-00001"));
    assert_ne!(
        o.code, 0,
        "the unreadable record's key was given away: {o:?}"
    );
    fs::write(&file, &good).unwrap();
    assert_eq!(env.store_check(true).code, 0);
    assert_clean(&env);
    let o = env.run(&["worker"]);
    assert_eq!(o.data()[0]["attachments_processed"], 1, "{o:?}");
}

/// `init --catalog` is one commit: a crash at any point of it leaves no
/// catalog without its metadata (which the next command would fill with
/// the built-in catalog); after the commit point the catalog is the file's.
#[test]
fn init_with_a_catalog_is_one_atomic_commit() {
    let source = Env::new();
    let programs = source.run(&["program", "list"]);
    let file = source.dir.path().join("catalog-copy.json");
    fs::copy(source.path().join("catalog.json"), &file).unwrap();
    let want = programs.data()[0]["program_id"].clone();
    let mut committed = 0;
    for fault in [
        "before-write",
        "after-write",
        "after-sync",
        "after-rename",
        "before-dir-sync",
        "after-journal",
        "after-rename:2",
        "after-rename:3",
        "before-journal-remove",
    ] {
        let env = Env::new();
        let mut c = env.cmd();
        c.env("PAYCTL_FAULT", fault)
            .args(["init", "--catalog", file.to_str().unwrap()]);
        let o = Out::from(c.output().unwrap());
        assert_ne!(o.code, 0, "{fault}: no crash: {o:?}");
        let has = |n: &str| env.path().join(n).exists();
        if !has("meta.json") && !has("journal.json") {
            assert!(
                !has("catalog.json"),
                "{fault}: a catalog without its metadata"
            );
            continue;
        }
        committed += 1;
        let listed = env.run(&["program", "list"]);
        assert_eq!(listed.data()[0]["program_id"], want, "{fault}: {listed:?}");
        assert_clean(&env);
    }
    assert!(committed >= 3, "no crash after the commit point was tried");
}

/// A regular file where `queue/` belongs: the attach that meets it, the
/// commands after it and `--repair` all work, and the item is processed.
#[test]
fn a_file_in_place_of_the_queue_is_repaired() {
    let env = Env::new();
    let prm = env.program_id();
    let a = env.create_profile("que-00001");
    let q = env.path().join("queue");
    fs::remove_dir_all(&q).unwrap();
    fs::write(&q, b"").unwrap();
    fs::set_permissions(&q, fs::Permissions::from_mode(0o600)).unwrap();
    let o = env.store_check(false);
    assert!(
        findings(&o)
            .iter()
            .any(|m| m.contains("queue") && m.contains("where a directory should be")),
        "{o:?}"
    );
    let o = env.run(&["program", "attach", &prm, &a]);
    assert!(!o.stderr.contains("panicked"), "{o:?}");
    let o = env.store_check(true);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(q.is_dir());
    assert_clean(&env);
    let o = env.run(&["program", "attach", &prm, &a]);
    assert!(o.code == 0 || o.codes().contains(&21001), "{o:?}");
    let o = env.run(&["worker"]);
    assert_eq!(o.data()[0]["attachments_processed"], 1, "{o:?}");
}

/// `store check` reports a 0644 record, a 0755 directory, a directory where
/// a record belongs and a zero-filled tail of profiles.log; `--repair`
/// fixes the modes and the tail, and never removes the directory.
#[test]
fn check_reports_modes_types_and_tails_and_repair_fixes_them() {
    let env = Env::new();
    let a = env.create_profile("mod-00001");
    let record = env.customer_file(&a);
    let shard = record.parent().unwrap().to_path_buf();
    fs::set_permissions(&record, fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(&shard, fs::Permissions::from_mode(0o755)).unwrap();
    let log = env.path().join("index/profiles.log");
    let log_len = fs::metadata(&log).unwrap().len();
    let f = fs::OpenOptions::new().write(true).open(&log).unwrap();
    f.set_len(log_len + (1 << 20)).unwrap();
    drop(f);
    let fake = shard.join("csp_0000000000000000000000fake.json");
    fs::create_dir(&fake).unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o700)).unwrap();
    let found = findings(&env.store_check(false));
    let has = |path: &str, text: &str| {
        assert!(
            found.iter().any(|m| m.contains(path) && m.contains(text)),
            "no finding on {path} ({text}): {found:#?}"
        )
    };
    let rel = |p: &Path| p.strip_prefix(env.path()).unwrap().display().to_string();
    has(&rel(&record), "mode 0644");
    has(&rel(&shard), "mode 0755");
    has("index/profiles.log", "zero-filled tail");
    has(&rel(&fake), "is a directory where a record file should be");
    // The directory stands where a record might be: the modes are fixed,
    // the indexes are not rebuilt while it is there.
    let found = findings(&env.store_check(true));
    assert!(found.iter().all(|m| !m.contains("mode")), "{found:#?}");
    assert!(
        found
            .iter()
            .any(|m| m.contains(&rel(&fake)) && m.contains("not rebuilt")),
        "{found:#?}"
    );
    assert_eq!(mode(&record), 0o600);
    assert_eq!(mode(&shard), 0o700);
    assert!(fake.is_dir(), "repair removed a directory");
    fs::remove_dir(&fake).unwrap();
    assert_eq!(env.store_check(true).code, 0);
    assert_eq!(fs::metadata(&log).unwrap().len(), log_len);
    assert_clean(&env);
}
