//! Faults other than a kill: the lock file deleted under a writer, readers
//! that never stop, a signal during a lock wait, a read-only mount, a store
//! owned by another user, links and FIFOs in place of store files, and the
//! repairs that must never make things worse. Each test drives the real
//! binary.

mod common;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{Env, Out, profile_body};

/// A payctl child on `env`'s store, JSON output, `stdin` fed and closed.
fn spawn(env: &Env, args: &[&str], stdin: Option<&[u8]>) -> Child {
    let mut c = Command::new(env!("CARGO_BIN_EXE_payctl"));
    c.arg("--data-dir")
        .arg(env.path())
        .args(["-o", "json"])
        .args(args)
        .env_remove("PAYCTL_OUTPUT")
        .env_remove("PAYCTL_DATA_DIR")
        .env_remove("PAYCTL_FAULT")
        .env_remove("PAYCTL_ALLOW_OTHER_OWNER")
        .env("PAYCTL_ACTOR", "tester")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn payctl");
    let mut pipe = child.stdin.take().expect("stdin");
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).expect("write stdin");
    }
    drop(pipe);
    child
}

fn finish(child: Child) -> Out {
    Out::from(child.wait_with_output().expect("wait payctl"))
}

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

fn assert_clean(env: &Env) {
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "store check: {o:?}");
}

/// `n` profile create bodies as JSON Lines, keys `prefix-0` …
fn jsonl(prefix: &str, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("{}\n", profile_body(&format!("{prefix}-{i}"))))
        .collect::<String>()
        .into_bytes()
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
    let last = format!("race-{}", n - 1);
    let importer = spawn(&env, &["profile", "import", "-"], Some(&jsonl("race", n)));
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
    let rival = spawn(
        &env,
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
    let importer = spawn(
        &env,
        &["profile", "import", "-"],
        Some(&jsonl("again", 3_000)),
    );
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
    let rival = spawn(
        &env,
        &["--lock-timeout", "120", "profile", "create", "--body", "-"],
        Some(profile_body("again-2999").to_string().as_bytes()),
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
        let o = finish(spawn(
            &env,
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
        let worker = spawn(&env, &["--lock-timeout", "60", "worker", "--watch"], None);
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

/// A tmpfs mounted at `dir` (needs root); `None` when mounting is not
/// possible here.
fn mount_tmpfs(dir: &Path) -> Option<()> {
    fs::create_dir_all(dir).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(())
}

fn remount(dir: &Path, how: &str) {
    let ok = Command::new("mount")
        .args(["-o", &format!("remount,{how}")])
        .arg(dir)
        .status()
        .expect("mount")
        .success();
    assert!(ok, "remount {how}");
}

struct Unmount(PathBuf);
impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// A store on a read-only mount (a snapshot, a backup) is read; a write is
/// refused with exit 3 saying the file system is read-only.
#[test]
fn a_store_on_a_read_only_mount_is_readable_and_writes_say_why_not() {
    let env = Env::new();
    let mnt = env.dir.path().join("store");
    if mount_tmpfs(&mnt).is_none() {
        eprintln!("skipped: cannot mount a tmpfs here (not root?)");
        return;
    }
    let _unmount = Unmount(mnt.clone());
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
fn a_store_owned_by_another_user_is_not_written() {
    let env = Env::new();
    let id = env.create_profile("own-001");
    if rustix_euid() != 0 {
        eprintln!("skipped: not root, cannot give the store to another user");
        return;
    }
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
    // The documented way out.
    let mut c = env.cmd();
    c.env("PAYCTL_ALLOW_OTHER_OWNER", "1")
        .args(["profile", "create", "--body", "-"])
        .write_stdin(profile_body("own-002").to_string());
    let o = Out::from(c.output().unwrap());
    assert_eq!(o.code, 0, "{o:?}");
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
