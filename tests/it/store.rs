//! The store through the binary: permissions, format version, corrupt files,
//! the lock, journal recovery after a crash (PAYCTL_FAULT), and `init`.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{Env, Out, assert_clean, profile_body};
use serde_json::{Value, json};

/// Run payctl with an extra environment variable.
fn run_env(env: &Env, var: (&str, &str), args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut c = env.cmd();
    c.env(var.0, var.1)
        .args(args)
        .write_stdin(stdin.unwrap_or(b"").to_vec());
    Out::from(c.output().unwrap())
}

fn ensure_store(env: &Env) {
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    out.push(dir.to_path_buf());
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn customer_files(env: &Env) -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&env.path().join("customers"), &mut all);
    all.into_iter().filter(|p| p.is_file()).collect()
}

/// A store's temporary file (named `<name>.payctl-tmp`). Not "contains
/// tmp": a random record id such as `csp_9qa5eftmpcnhi85s84um` may.
fn is_temp(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".payctl-tmp"))
}

fn temp_files(env: &Env) -> Vec<PathBuf> {
    let mut all = Vec::new();
    walk(&env.path(), &mut all);
    all.into_iter().filter(|p| is_temp(p)).collect()
}

type Snapshot = Vec<(PathBuf, Vec<u8>)>;

/// Assert two snapshots are equal, naming the files that differ (not their bytes).
fn same(before: &Snapshot, after: &Snapshot, what: &str) {
    if before != after {
        let differ: Vec<String> = before
            .iter()
            .chain(after)
            .filter(|x| !(before.contains(x) && after.contains(x)))
            .map(|(p, b)| format!("{} ({} bytes)", p.display(), b.len()))
            .collect();
        panic!("{what}: the store changed: {differ:?}");
    }
}

// ---------------------------------------------------------------- permissions

fn assert_private(root: &Path) {
    let mut all = Vec::new();
    walk(root, &mut all);
    assert!(all.len() > 5, "{all:?}");
    for p in all {
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        let want = if p.is_dir() { 0o700 } else { 0o600 };
        assert_eq!(mode, want, "{} is {mode:o}", p.display());
    }
}

fn permissive(env: &Env, args: &str, stdin: &str) -> Out {
    let bin = assert_cmd::cargo::cargo_bin("payctl");
    let script = format!(
        "umask 000; exec '{}' --data-dir '{}' -o json {args}",
        bin.display(),
        env.path().display()
    );
    let o = std::process::Command::new("sh")
        .args(["-c", &script])
        .env("PAYCTL_ACTOR", "tester")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(stdin.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    Out::from(o)
}

#[test]
fn files_0600_dirs_0700_even_with_umask_000() {
    let env = Env::new();
    let o = permissive(
        &env,
        "profile create --body -",
        &profile_body("perm-0001").to_string(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let id = o.json["data"][0]["id"].as_str().unwrap().to_string();
    let o = permissive(&env, &format!("profile update {id} --first-name Z"), "");
    assert_eq!(o.code, 0, "{o:?}");
    let o = permissive(
        &env,
        "profile create --body -",
        &profile_body("perm-0002").to_string(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    assert!(env.path().join("index/profiles.log").exists());
    assert_private(&env.path());
}

#[test]
fn files_0600_dirs_0700_with_the_default_umask_and_nested_data_dir() {
    let env = Env::new();
    let deep = env.dir.path().join("a/b/store");
    let o = Out::from(
        env.cmd()
            .arg("--data-dir")
            .arg(&deep)
            .args(["profile", "create", "--body", "-"])
            .write_stdin(profile_body("perm-0001").to_string())
            .output()
            .unwrap(),
    );
    assert_eq!(o.code, 0, "{o:?}");
    assert_private(&deep);
}

#[test]
fn init_creates_with_private_modes_under_umask_000() {
    let env = Env::new();
    let o = permissive(&env, "init", "");
    assert_eq!(o.code, 0, "{o:?}");
    assert_private(&env.path());
}

// ---------------------------------------------------------------- format version

#[test]
fn newer_format_is_refused_with_exit_3() {
    let env = Env::new();
    let id = env.create_profile("ver-00001");
    let meta = env.path().join("meta.json");
    let v: Value = serde_json::from_slice(&fs::read(&meta).unwrap()).unwrap();
    assert_eq!(v, json!({"format_version": 14}));
    fs::write(&meta, r#"{"format_version": 999}"#).unwrap();
    let before = env.snapshot();
    for args in [
        &["profile", "list"][..],
        &["profile", "get", &id],
        &["profile", "update", &id, "--first-name", "X"],
        &["profile", "create", "--customer-key", "ver-00002"],
    ] {
        let o = env.run(args);
        o.refused(3, 30004)
            .mentions("999")
            .mentions("upgrade payctl");
        let o = env.run(&[&["-o", "table"][..], args].concat());
        assert_eq!(o.code, 3);
        assert!(
            o.stderr.contains("error[30004]") && o.stderr.contains("999"),
            "{o:?}"
        );
    }
    same(
        &before,
        &env.snapshot(),
        "a newer store must not be touched",
    );
    // Not JSON, or a version of 0: corrupt, exit 3.
    for bad in ["{", r#"{"format_version": 0}"#, r#"{"version": 1}"#, ""] {
        fs::write(&meta, bad).unwrap();
        let o = env.run(&["profile", "list"]);
        o.refused(3, 30002).mentions("meta.json");
    }
}

/// Turn the store into the layout of format version 3, which had no
/// field indexes.
fn as_format_3(env: &Env) {
    for d in ["by-email", "by-first-name", "by-last-name", "by-tag"] {
        let p = env.path().join("index").join(d);
        if p.exists() {
            fs::remove_dir_all(p).unwrap();
        }
    }
    fs::write(env.path().join("meta.json"), "{\"format_version\":3}\n").unwrap();
}

/// Turn the store into the layout of format version 2, which had no
/// attachment index.
fn as_format_2(env: &Env) {
    as_format_3(env);
    fs::remove_file(env.path().join("index/attachments.log")).unwrap();
    fs::write(env.path().join("meta.json"), "{\"format_version\":2}\n").unwrap();
}

/// Turn the store into the layout of format version 1, whose key index was
/// one file per key: `index/keys/k<hex of the key>` holding the owner's id.
fn as_format_1(env: &Env) {
    as_format_2(env);
    let keys = env.path().join("index/keys");
    let buckets: Vec<PathBuf> = fs::read_dir(&keys)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(!buckets.is_empty());
    for b in buckets {
        for line in fs::read_to_string(&b).unwrap().lines() {
            let (key, owner) = line.split_once(' ').unwrap();
            let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
            fs::write(keys.join(format!("k{hex}")), format!("{owner}\n")).unwrap();
        }
        fs::remove_file(b).unwrap();
    }
    fs::write(env.path().join("meta.json"), "{\"format_version\":1}\n").unwrap();
}

#[test]
fn a_format_1_store_is_upgraded_by_the_first_command_all_or_nothing() {
    let env = Env::new();
    let a = env.create_profile("old-00001");
    let b = env.create_profile("old-00002");
    let prm = env.program_id();
    for csp in [&b, &a] {
        assert_eq!(env.run(&["program", "attach", &prm, csp]).code, 0);
    }
    as_format_1(&env);
    let before = env.snapshot();

    // Killed before the upgrade's journal is written: nothing changed.
    let o = run_env(
        &env,
        ("PAYCTL_FAULT", "before-write"),
        &["profile", "get", &a],
        None,
    );
    assert_ne!(o.code, 0, "{o:?}");
    same(
        &before,
        &env.snapshot(),
        "an upgrade killed before its commit",
    );

    // Killed after its commit point: the next command (a read) finishes it.
    let o = run_env(
        &env,
        ("PAYCTL_FAULT", "after-journal"),
        &["profile", "list"],
        None,
    );
    assert_ne!(o.code, 0, "{o:?}");
    let o = env.run(&["profile", "get", &a]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["customer_key"], "old-00001");
    let meta: Value =
        serde_json::from_slice(&fs::read(env.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    assert!(!env.path().join("journal.json").exists());
    // The attachment index was built, in the order the records were created.
    let o = env.run(&["program", "profiles", &prm]);
    assert_eq!(o.code, 0, "{o:?}");
    let listed: Vec<&str> = o
        .data()
        .iter()
        .map(|r| r["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [b.as_str(), a.as_str()]);
    let names: Vec<String> = fs::read_dir(env.path().join("index/keys"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| n.ends_with(".log") && n.len() == 6),
        "only buckets are left: {names:?}"
    );

    // The upgraded index knows both keys, and the store checks clean.
    for key in ["old-00001", "old-00002"] {
        env.body(&["profile", "create"], &profile_body(key))
            .refused(1, 21002);
    }
    env.create_profile("old-00003");
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
}

#[test]
fn a_format_2_store_gets_its_attachment_index() {
    let env = Env::new();
    let prm = env.program_id();
    let ids: Vec<String> = (1..=3)
        .map(|i| env.create_profile(&format!("two-0000{i}")))
        .collect();
    for csp in ids.iter().rev() {
        assert_eq!(env.run(&["program", "attach", &prm, csp]).code, 0);
    }
    assert_eq!(env.run(&["worker"]).code, 0);
    as_format_2(&env);
    let o = env.run(&["program", "profiles", &prm, "--page-size", "2"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.stderr.contains("note: upgrading the store at")
            && o.stderr.contains("from format 2 to 14"),
        "{o:?}"
    );
    assert_eq!(o.json["paging"]["total_count"], 3);
    let listed: Vec<&str> = o
        .data()
        .iter()
        .map(|r| r["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [ids[2].as_str(), ids[1].as_str()]);
    let meta: Value =
        serde_json::from_slice(&fs::read(env.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
}

#[test]
fn a_format_3_store_gets_its_field_indexes() {
    let env = Env::new();
    let ids: Vec<String> = (1..=3)
        .map(|i| env.create_profile(&format!("three-000{i}")))
        .collect();
    // The second one changes its e-mail: the upgrade indexes the current one.
    let o = env.run(&["profile", "update", &ids[1], "--email", "New@Example.com"]);
    assert_eq!(o.code, 0, "{o:?}");
    as_format_3(&env);
    let o = env.run(&["profile", "list", "--email", "new@example.COM"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("from format 3 to 14"), "{o:?}");
    assert_eq!(o.json["paging"]["total_count"], 1, "{o:?}");
    assert_eq!(o.data()[0]["customer_profile_id"], ids[1].as_str());
    assert!(env.path().join("index/by-email").is_dir());
    let meta: Value =
        serde_json::from_slice(&fs::read(env.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    let o = env.run(&["store", "check"]);
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
}

// ---------------------------------------------------------------- corrupt files

#[test]
fn corrupt_customer_file_is_named_never_overwritten() {
    let env = Env::new();
    let id = env.create_profile("cor-00001");
    let other = env.create_profile("cor-00002");
    let file = customer_files(&env)
        .into_iter()
        .find(|p| p.to_string_lossy().contains(&id))
        .unwrap();
    let bytes = fs::read(&file).unwrap();
    for cut in [bytes.len() / 2, 0, 1] {
        fs::write(&file, &bytes[..cut]).unwrap();
        let corrupt = fs::read(&file).unwrap();
        let name = file.file_name().unwrap().to_str().unwrap();
        for args in [
            &["profile", "get", &id][..],
            &["profile", "list"],
            &["profile", "update", &id, "--first-name", "X"],
            &["profile", "update", &id, "--body", "-"],
        ] {
            let o = env.run_with(
                args,
                Some(br#"{"customer_profile_individual": {"last_name": "Y"}}"#),
            );
            o.refused(3, 30002).mentions(name);
            assert!(!o.stderr.contains("panicked"), "{o:?}");
            assert_eq!(
                fs::read(&file).unwrap(),
                corrupt,
                "{args:?} overwrote the corrupt file"
            );
        }
        // The key of the corrupt profile cannot be taken over silently.
        let o = env.body(&["profile", "create"], &profile_body("cor-00001"));
        assert_eq!(o.code, 3, "{o:?}");
        assert_eq!(fs::read(&file).unwrap(), corrupt);
        // Other profiles still work.
        assert_eq!(env.run(&["profile", "get", &other]).code, 0);
        let o = env.run(&["-o", "table", "profile", "get", &id]);
        assert_eq!(o.code, 3);
        assert!(
            o.stderr.contains("error[30002]") && o.stderr.contains(name),
            "{o:?}"
        );
    }
    // Restored, it reads again.
    fs::write(&file, &bytes).unwrap();
    assert_eq!(env.run(&["profile", "get", &id]).code, 0);
}

#[test]
fn corrupt_profile_index_is_named() {
    let env = Env::new();
    env.create_profile("idx-00001");
    env.create_profile("idx-00002");
    // A filtered list reads the field index of its filter (an unfiltered
    // one pages through index/profiles.ids: tests/it/import.rs).
    let dir = env.path().join("index/by-last-name");
    let bucket = fs::read_dir(&dir).unwrap().flatten().next().unwrap().path();
    let mut bytes = fs::read(&bucket).unwrap();
    bytes[0] = b'#';
    fs::write(&bucket, &bytes).unwrap();
    let o = env.run(&["profile", "list", "--last-name", "Lovelace"]);
    o.refused(3, 30002).mentions("by-last-name");
    assert_eq!(fs::read(&bucket).unwrap(), bytes);
    // The summary log: named by store check.
    let log = env.path().join("index/profiles.log");
    let mut bytes = fs::read(&log).unwrap();
    bytes[3] = b'#';
    fs::write(&log, &bytes).unwrap();
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("profiles.log"), "{o:?}");
    assert_eq!(fs::read(&log).unwrap(), bytes);
}

// ---------------------------------------------------------------- lock

// Holds the store's lock as another payctl would (clippy.toml keeps File::lock in store/lock.rs).
#[allow(clippy::disallowed_methods)]
fn hold_lock(env: &Env, shared: bool) -> fs::File {
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(env.path().join("payctl.lock"))
        .unwrap();
    if shared {
        f.lock_shared().unwrap();
    } else {
        f.lock().unwrap();
    }
    f
}

#[test]
fn a_held_lock_times_out_with_30001() {
    let env = Env::new();
    let id = env.create_profile("lck-00001");
    let lock = hold_lock(&env, false);
    let before = env.snapshot();
    let start = Instant::now();
    let o = env.run(&[
        "--lock-timeout",
        "0.3",
        "profile",
        "update",
        &id,
        "--first-name",
        "X",
    ]);
    let took = start.elapsed();
    o.refused(3, 30001).mentions("payctl.lock");
    assert!(o.stderr.contains("waiting for lock on"), "{o:?}");
    assert!(o.stderr.contains("payctl.lock"), "{o:?}");
    assert!(took >= Duration::from_millis(300), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    // Readers wait too while a writer holds the store.
    let o = env.run(&["--lock-timeout", "0.3", "profile", "list"]);
    o.refused(3, 30001);
    let o = env.body(
        &["--lock-timeout", "0", "profile", "create"],
        &profile_body("lck-00002"),
    );
    o.refused(3, 30001);
    same(&before, &env.snapshot(), "lock timeout");
    drop(lock);
    // A shared holder lets readers in but keeps writers out.
    let shared = hold_lock(&env, true);
    let o = env.run(&["--lock-timeout", "0.3", "profile", "get", &id]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(!o.stderr.contains("waiting"), "{o:?}");
    env.run(&[
        "--lock-timeout",
        "0.3",
        "profile",
        "update",
        &id,
        "--first-name",
        "X",
    ])
    .refused(3, 30001);
    drop(shared);
    // Released: the write goes through.
    assert_eq!(
        env.run(&[
            "--lock-timeout",
            "0.3",
            "profile",
            "update",
            &id,
            "--first-name",
            "X"
        ])
        .id(),
        id
    );
}

#[test]
fn a_waiting_writer_proceeds_when_the_lock_is_released() {
    let env = Env::new();
    let id = env.create_profile("lck-00001");
    let lock = hold_lock(&env, false);
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(400));
        drop(lock);
    });
    let o = env.run(&[
        "--lock-timeout",
        "20",
        "profile",
        "update",
        &id,
        "--first-name",
        "Later",
    ]);
    release.join().unwrap();
    assert_eq!(o.id(), id);
    assert!(o.stderr.contains("waiting for lock on"), "{o:?}");
    assert_eq!(
        env.run(&["profile", "get", &id]).json["data"][0]["customer_profile_individual"]["first_name"],
        "Later"
    );
}

// ---------------------------------------------------------------- journal recovery

fn listed(env: &Env) -> Vec<Value> {
    let o = env.run(&["profile", "list", "--page-size", "1000"]);
    assert_eq!(o.code, 0, "{o:?}");
    o.data().clone()
}

fn crash(env: &Env, fault: &str, args: &[&str], body: Option<&Value>) -> Out {
    let text = body.map(Value::to_string);
    let mut a = args.to_vec();
    if body.is_some() {
        a.extend(["--body", "-"]);
    }
    let o = run_env(
        env,
        ("PAYCTL_FAULT", fault),
        &a,
        text.as_deref().map(str::as_bytes),
    );
    assert!(
        ![0, 1, 2, 3].contains(&o.code),
        "{fault}: the process should have died: {o:?}"
    );
    assert_eq!(
        o.stdout, "",
        "{fault}: nothing is printed before the change is durable: {o:?}"
    );
    o
}

#[test]
fn crash_after_the_journal_commit_is_replayed() {
    let env = Env::new();
    ensure_store(&env);
    let first = env.create_profile("jrn-00001");
    crash(
        &env,
        "after-journal",
        &["profile", "create"],
        Some(&profile_body("jrn-00002")),
    );
    assert!(
        env.path().join("journal.json").exists(),
        "the journal is left for replay"
    );
    // The next command (a reader) replays it.
    let all = listed(&env);
    assert!(
        !env.path().join("journal.json").exists(),
        "replayed and removed"
    );
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["customer_profile_id"], first.as_str());
    assert_eq!(all[1]["customer_key"], "jrn-00002");
    let id = all[1]["customer_profile_id"].as_str().unwrap();
    assert_eq!(
        env.run(&["profile", "get", id]).json["data"][0]["customer_key"],
        "jrn-00002"
    );
    let o = env.run(&["profile", "list", "--customer-key", "jrn-00002"]);
    assert_eq!(o.data().len(), 1);
    env.body(&["profile", "create"], &profile_body("jrn-00002"))
        .refused(1, 21002);
    assert_eq!(listed(&env).len(), 2);
    assert!(temp_files(&env).is_empty(), "{:?}", temp_files(&env));
}

// ------------------------------------------- point commits left unsynced

/// The applied.json of `env`'s store, if any: (its boot id, how many
/// customer records it puts).
fn applied(env: &Env) -> Option<(String, usize)> {
    let text = fs::read_to_string(env.path().join("applied.json")).ok()?;
    let v: Value = serde_json::from_str(&text).expect("applied.json parses");
    let puts = v["ops"]
        .as_array()
        .expect("ops")
        .iter()
        .filter(|op| op["op"] == "put" && op["path"].as_str().unwrap().starts_with("customers/"))
        .count();
    Some((v["boot"].as_str().expect("boot").to_string(), puts))
}

/// A point commit's files are synced later, in bulk: what it applied is
/// kept in applied.json under this machine's boot id. After a restart (a
/// boot id that is not the running one) the files may have lost those
/// writes; the next command, a reader, replays them before it reads.
#[test]
fn changes_applied_before_a_restart_are_replayed_by_the_next_reader() {
    let env = Env::new();
    let ids: Vec<String> = (1..=3)
        .map(|i| env.create_profile(&format!("boot-0000{i}")))
        .collect();
    let (boot, puts) = applied(&env).expect("the creates left applied.json");
    let running = fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    assert_eq!(boot, running.trim());
    assert_eq!(puts, 3);
    // The machine stopped before the page cache reached the disk: the last
    // record and every index line never made it.
    let path = env.path().join("applied.json");
    let text = fs::read_to_string(&path).unwrap().replacen(
        &boot,
        "00000000-0000-0000-0000-000000000000",
        1,
    );
    fs::write(&path, text).unwrap();
    fs::remove_file(env.customer_file(&ids[2])).unwrap();
    for f in ["index/profiles.log", "index/profiles.ids"] {
        fs::OpenOptions::new()
            .write(true)
            .open(env.path().join(f))
            .unwrap()
            .set_len(0)
            .unwrap();
    }
    // A reader replays them, then sees every profile.
    let all = listed(&env);
    let got: Vec<&str> = all
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(got, ids.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!path.exists(), "replayed, synced and removed");
    assert_eq!(env.run(&["profile", "get", &ids[2]]).code, 0);
    env.body(&["profile", "create"], &profile_body("boot-00003"))
        .refused(1, 21002);
    assert_clean(&env, "after the replay");
}

/// applied.json stays small: past its size the files are synced (one
/// syncfs) and it is removed; every profile stays, the store clean.
#[test]
fn point_commits_are_synced_in_bulk_and_applied_json_stays_small() {
    let env = Env::new();
    let mut most = 0;
    let mut settled = false;
    for i in 0..40 {
        env.create_profile(&format!("bulk-{i:05}"));
        match applied(&env) {
            Some((_, puts)) => {
                settled |= puts < most;
                most = most.max(puts);
            }
            None => settled = true,
        }
    }
    assert!(settled, "applied.json was synced and removed on the way");
    assert!((1..40).contains(&most), "at most {most} creates pending");
    assert!(
        fs::metadata(env.path().join("applied.json")).map_or(0, |m| m.len()) < 48 * 1024,
        "bounded"
    );
    assert_eq!(listed(&env).len(), 40);
    assert_clean(&env, "after 40 point commits");
}

/// A point commit renames the applied.json it makes obsolete aside
/// (applied.old) instead of replacing it, and removes it once it has let go
/// of the store's lock: no command leaves one behind. One left by a killed
/// payctl is never read, `store check` passes over it, and the next point
/// commit replaces it and removes it.
#[test]
fn the_applied_json_a_point_commit_makes_obsolete_is_removed() {
    use std::os::unix::fs::OpenOptionsExt;
    let env = Env::new();
    let old = env.path().join("applied.old");
    env.create_profile("old-00001");
    env.create_profile("old-00002");
    assert!(applied(&env).is_some(), "pending point commits");
    assert!(!old.exists(), "removed by the command that made it");
    // What a payctl killed before removing it leaves: nothing reads it.
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&old)
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"boot\":\"not json").unwrap();
    drop(f);
    assert_clean(&env, "with an applied.old left behind");
    assert_eq!(listed(&env).len(), 2);
    env.create_profile("old-00003");
    assert!(
        !old.exists(),
        "replaced by the next point commit, then removed"
    );
    assert_eq!(applied(&env).map(|(_, puts)| puts), Some(3));
    assert_eq!(listed(&env).len(), 3);
    assert_clean(&env, "after the next point commit");
}

/// A kill while the unsynced changes are synced under the lock
/// (`before-settle`: past 64 KB of applied.json, here with the sync ahead of
/// the lock turned off) loses nothing: the create that reached it was
/// applied, its journal kept.
#[test]
fn a_kill_while_syncing_the_applied_changes_loses_nothing() {
    let mut env = Env::new();
    env.envs.push(("PAYCTL_SETTLE_AHEAD", "0".into()));
    ensure_store(&env);
    let mut created = 0;
    let mut killed = None;
    for i in 0..120 {
        let key = format!("sttl-{i:05}");
        let o = run_env(
            &env,
            ("PAYCTL_FAULT", "before-settle"),
            &["profile", "create", "--body", "-"],
            Some(profile_body(&key).to_string().as_bytes()),
        );
        if o.code == 0 {
            created += 1;
            continue;
        }
        assert!(![1, 2, 3].contains(&o.code), "killed, not refused: {o:?}");
        killed = Some(key);
        break;
    }
    let killed = killed.expect("a create reached the settle");
    assert!(created > 0);
    let o = env.run(&["profile", "list", "--customer-key", &killed]);
    assert_eq!(o.data().len(), 1, "the killed create was committed: {o:?}");
    assert_eq!(listed(&env).len(), created + 1);
    assert_clean(&env, "after a kill at the settle");
}

/// Past 32 KB of applied.json the next writer syncs the changes it names
/// before it takes the lock, and its commit leaves them out of the journal:
/// applied.json starts again from that commit's changes. A writer killed
/// during that sync (`before-settle-ahead`) had not taken the lock: its
/// create is not made, applied.json is as it was, the next writer syncs.
#[test]
fn the_next_writer_syncs_the_applied_changes_ahead_of_the_lock() {
    let env = Env::new();
    ensure_store(&env);
    let mut most = 0;
    let mut restarted = false;
    for i in 0..60 {
        env.create_profile(&format!("ahead-{i:05}"));
        let (_, puts) = applied(&env).expect("the point commits are kept");
        restarted |= most > 0 && puts < most;
        most = most.max(puts);
    }
    assert!(restarted, "the changes synced ahead were left out");
    let size = fs::metadata(env.path().join("applied.json")).unwrap().len();
    assert!(size < 40 * 1024, "{size} bytes");
    // Grown to just past 32 KB, then a writer killed in its sync ahead.
    let mut killed = None;
    for i in 0..60 {
        let key = format!("ahkil-{i:05}");
        let before = fs::read(env.path().join("applied.json")).unwrap();
        let o = run_env(
            &env,
            ("PAYCTL_FAULT", "before-settle-ahead"),
            &["profile", "create", "--body", "-"],
            Some(profile_body(&key).to_string().as_bytes()),
        );
        if o.code == 0 {
            continue;
        }
        assert!(![1, 2, 3].contains(&o.code), "killed, not refused: {o:?}");
        assert_eq!(
            fs::read(env.path().join("applied.json")).unwrap(),
            before,
            "applied.json as it was"
        );
        killed = Some((i, key));
        break;
    }
    let (made, killed) = killed.expect("a writer reached the sync ahead");
    let o = env.run(&["profile", "list", "--customer-key", &killed]);
    assert_eq!(o.data().len(), 0, "the killed create was not made: {o:?}");
    assert_eq!(listed(&env).len(), 60 + made);
    env.create_profile("ahead-after");
    let (_, puts) = applied(&env).expect("kept");
    assert_eq!(
        puts, 1,
        "the next writer synced ahead; its journal holds its own create"
    );
    assert_eq!(listed(&env).len(), 60 + made + 1);
    assert_clean(&env, "after a kill in the sync ahead of the lock");
}

/// A large commit (an import) first makes the unsynced changes durable and
/// removes applied.json with its own commit point; refused, it leaves
/// applied.json as it was.
#[test]
fn a_large_commit_settles_the_point_commits_and_a_refused_one_leaves_them() {
    let env = Env::new();
    env.create_profile("imp-00001");
    let before = applied(&env).expect("pending");
    // Refused before anything is written (a line without a key).
    let bad = format!("{}\n{{}}\n", profile_body("imp-00002"));
    let o = env.run_with(&["profile", "import", "-"], Some(bad.as_bytes()));
    assert_ne!(o.code, 0, "{o:?}");
    assert_eq!(applied(&env), Some(before), "untouched");
    let lines = common::profile_lines("imp-big", 40);
    ok_code(env.run_with(&["profile", "import", "-"], Some(lines.as_bytes())));
    assert!(applied(&env).is_none(), "settled by the import's commit");
    assert_eq!(listed(&env).len(), 41);
    assert_clean(&env, "after the import");
}

fn ok_code(o: Out) {
    assert_eq!(o.code, 0, "{o:?}");
}

#[test]
fn crash_before_the_commit_point_leaves_nothing() {
    let env = Env::new();
    ensure_store(&env);
    let first = env.create_profile("jrn-00001");
    let before = env.snapshot();
    for fault in ["before-write", "after-write:1", "after-sync:1"] {
        crash(
            &env,
            fault,
            &["profile", "create"],
            Some(&profile_body("jrn-00002")),
        );
        let all = listed(&env);
        assert_eq!(all.len(), 1, "{fault}: {all:?}");
        assert_eq!(all[0]["customer_profile_id"], first.as_str());
        assert_eq!(
            env.run(&["profile", "list", "--customer-key", "jrn-00002"])
                .data()
                .len(),
            0
        );
        let snap: Vec<_> = env
            .snapshot()
            .into_iter()
            .filter(|(p, _)| !is_temp(p))
            .collect();
        same(&before, &snap, fault);
    }
    // The key is free.
    let id = env
        .body(&["profile", "create"], &profile_body("jrn-00002"))
        .id();
    assert_eq!(listed(&env).len(), 2);
    assert_eq!(env.run(&["profile", "get", &id]).code, 0);
    // The next writer removed the temp file the killed one left.
    assert!(temp_files(&env).is_empty(), "{:?}", temp_files(&env));
}

/// Every crash point of a create leaves either no profile or the whole one,
/// listed once, its key taken exactly when it exists.
#[test]
fn every_crash_point_of_a_create_is_all_or_nothing() {
    // A create is a point commit (journal.rs, `commit_applied`): the
    // journal's temp file, its sync, its rename (the commit point), the sync
    // of the directory, then each of its seven files written in place
    // (after-write:2 to 8), then the journal kept as applied.json.
    let faults = [
        "before-write",
        "after-write:1",
        "after-sync:1",
        "after-rename:1",
        "before-dir-sync:1",
        "after-journal",
        "after-write:2",
        "after-write:3",
        "after-write:4",
        "after-write:5",
        "after-write:6",
        "after-write:7",
        "after-write:8",
        "before-journal-remove",
    ];
    for fault in faults {
        let env = Env::new();
        ensure_store(&env);
        let first = env.create_profile("all-00001");
        crash(
            &env,
            fault,
            &["profile", "create"],
            Some(&profile_body("all-00002")),
        );
        let all = listed(&env);
        let ids: Vec<&str> = all
            .iter()
            .map(|p| p["customer_profile_id"].as_str().unwrap())
            .collect();
        assert_eq!(ids[0], first);
        match all.len() {
            1 => {
                let id = env
                    .body(&["profile", "create"], &profile_body("all-00002"))
                    .id();
                assert_eq!(listed(&env).len(), 2, "{fault}");
                assert_eq!(env.run(&["profile", "get", &id]).code, 0, "{fault}");
            }
            2 => {
                assert_eq!(all[1]["customer_key"], "all-00002", "{fault}");
                assert_eq!(env.run(&["profile", "get", ids[1]]).code, 0, "{fault}");
                env.body(&["profile", "create"], &profile_body("all-00002"))
                    .refused(1, 21002);
            }
            n => panic!("{fault}: {n} profiles listed: {all:?}"),
        }
        // Whatever happened, the store is usable and clean after the next write.
        let o = env.body(&["profile", "create"], &profile_body("all-00003"));
        assert_eq!(o.code, 0, "{fault}: {o:?}");
        assert!(!env.path().join("journal.json").exists(), "{fault}");
        assert!(
            temp_files(&env).is_empty(),
            "{fault}: {:?}",
            temp_files(&env)
        );
        // The commit point: from the journal's rename on, the create survives.
        let committed = !["before-write", "after-write:1", "after-sync:1"].contains(&fault);
        if committed {
            assert_eq!(all.len(), 2, "{fault}: a committed create was lost");
        } else {
            assert_eq!(all.len(), 1, "{fault}: an uncommitted create appeared");
        }
    }
}

#[test]
fn crash_of_an_update_is_all_or_nothing_and_listed_once() {
    for fault in [
        "after-write:1",
        "after-journal",
        "after-write:2",
        "after-write:3",
        "before-journal-remove",
    ] {
        let env = Env::new();
        let id = env.create_profile("upd-00001");
        crash(
            &env,
            fault,
            &[
                "profile",
                "update",
                &id,
                "--first-name",
                "Crashed",
                "--email",
                "c@example.com",
            ],
            None,
        );
        let all = listed(&env);
        assert_eq!(all.len(), 1, "{fault}: {all:?}");
        let p = &env.run(&["profile", "get", &id]).json["data"][0]["customer_profile_individual"];
        let in_list = &all[0]["customer_profile_individual"];
        assert_eq!(p, in_list, "{fault}");
        let changed = p["first_name"] == "Crashed";
        assert_eq!(
            changed,
            p["email"] == "c@example.com",
            "{fault}: half an update"
        );
        assert_eq!(changed, fault != "after-write:1", "{fault}");
        let by_email = env
            .run(&["profile", "list", "--email", "c@example.com"])
            .data()
            .len();
        assert_eq!(
            by_email,
            usize::from(changed),
            "{fault}: the index agrees with the record"
        );
    }
}

#[test]
fn a_crash_during_recovery_is_recovered_again() {
    let env = Env::new();
    ensure_store(&env);
    crash(
        &env,
        "after-journal",
        &["profile", "create"],
        Some(&profile_body("rec-00001")),
    );
    // The replaying reader dies halfway through the replay.
    crash(&env, "after-write:2", &["profile", "list"], None);
    assert!(env.path().join("journal.json").exists());
    let all = listed(&env);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["customer_key"], "rec-00001");
    env.body(&["profile", "create"], &profile_body("rec-00001"))
        .refused(1, 21002);
}

#[test]
fn a_corrupt_journal_is_named_and_kept() {
    let env = Env::new();
    ensure_store(&env);
    let j = env.path().join("journal.json");
    fs::write(&j, b"{\"ops\": [").unwrap();
    let o = env.run(&["profile", "list"]);
    o.refused(3, 30002).mentions("journal.json");
    assert_eq!(fs::read(&j).unwrap(), b"{\"ops\": [");
}

// ---------------------------------------------------------------- init

#[test]
fn init_creates_a_store_once() {
    let env = Env::new();
    let o = env.run(&["init"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("created a new store"), "{o:?}");
    assert!(o.json["errors"].is_null());
    assert!(
        o.data()
            .iter()
            .any(|p| p["program_name"] == "default_program"),
        "{o:?}"
    );
    assert!(env.path().join("meta.json").exists());
    let before = env.snapshot();
    let o = env.run(&["init"]);
    o.refused(1, 10001).mentions("already exists");
    same(&before, &env.snapshot(), "second init");
    // The store works and no first-use note is printed.
    let o = env.body(&["profile", "create"], &profile_body("ini-00001"));
    assert_eq!(o.code, 0);
    assert!(o.stderr.is_empty(), "{o:?}");
    // init after first use: refused too.
    let env2 = Env::new();
    ensure_store(&env2);
    env2.run(&["init"]).refused(1, 10001);
}

#[test]
fn first_use_creates_the_store_with_a_note() {
    let env = Env::new();
    assert!(!env.path().exists());
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("created a new store"), "{o:?}");
    assert!(
        o.stderr.contains(&env.path().display().to_string()),
        "{o:?}"
    );
    for f in ["meta.json", "catalog.json", "payctl.lock"] {
        assert!(env.path().join(f).is_file(), "{f}");
    }
    let o = env.run(&["profile", "list"]);
    assert!(o.stderr.is_empty(), "{o:?}");
}

#[test]
fn a_foreign_directory_is_not_taken_over() {
    let env = Env::new();
    fs::create_dir_all(env.path()).unwrap();
    fs::write(env.path().join("notes.txt"), b"mine").unwrap();
    for args in [&["profile", "list"][..], &["init"]] {
        let o = env.run(args);
        assert_eq!(o.code, 3, "{args:?}: {o:?}");
        assert!(
            o.messages()
                .iter()
                .any(|m| m.contains("not a payctl store")),
            "{o:?}"
        );
    }
    let mut names: Vec<_> = fs::read_dir(env.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    assert!(
        names.iter().all(|n| n == "notes.txt" || n == "payctl.lock"),
        "{names:?}"
    );
}

// ---------------------------------------------------------------- first use killed, concurrency

/// A first use killed at any point of creating the store is finished by the
/// next payctl instead of leaving a directory refused as "not a payctl store".
#[test]
fn a_killed_first_use_is_finished_by_the_next_command() {
    for fault in [
        "before-write",
        "after-write:1",
        "after-sync:1",
        "after-rename:1",
        "after-write:2",
        "after-rename:2",
        "before-dir-sync:1",
    ] {
        let env = Env::new();
        let o = run_env(&env, ("PAYCTL_FAULT", fault), &["profile", "list"], None);
        assert!(![0, 1, 2, 3].contains(&o.code), "{fault}: {o:?}");
        let o = env.body(&["profile", "create"], &profile_body("first-0001"));
        assert_eq!(o.code, 0, "{fault}: {o:?}");
        assert_eq!(listed(&env).len(), 1, "{fault}");
        assert!(
            env.run(&["program", "list"])
                .data()
                .iter()
                .any(|p| p["program_name"] == "default_program")
        );
    }
    // `init` too: killed before its commit point, a second init makes the
    // store; killed after it (the journal of the catalog and meta.json is
    // renamed into place), the store is made, and init says so.
    let env = Env::new();
    run_env(&env, ("PAYCTL_FAULT", "after-sync:1"), &["init"], None);
    assert_eq!(env.run(&["init"]).code, 0);
    let env = Env::new();
    run_env(&env, ("PAYCTL_FAULT", "after-rename:1"), &["init"], None);
    env.run(&["init"])
        .refused(1, 10001)
        .mentions("a store already exists");
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

/// Writers running at once: each key is given once, every profile is listed once.
#[test]
fn concurrent_creates_serialize() {
    let env = Env::new();
    ensure_store(&env);
    let run = |key: String| {
        let mut c = env.cmd();
        c.args(["profile", "create", "--body", "-"])
            .write_stdin(profile_body(&key).to_string());
        c
    };
    let handles: Vec<_> = (0..12)
        .map(|i| {
            let mut c = run(if i % 2 == 0 {
                "same-00001".to_string()
            } else {
                format!("diff-{i:05}")
            });
            std::thread::spawn(move || Out::from(c.output().unwrap()))
        })
        .collect();
    let results: Vec<Out> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let same: Vec<&Out> = results.iter().step_by(2).collect();
    assert_eq!(same.iter().filter(|o| o.code == 0).count(), 1, "{same:?}");
    for o in same.iter().filter(|o| o.code != 0) {
        o.refused(1, 21002);
    }
    for o in results.iter().skip(1).step_by(2) {
        assert_eq!(o.code, 0, "{o:?}");
    }
    let all = listed(&env);
    assert_eq!(all.len(), 7, "{all:?}");
    let mut ids: Vec<&str> = all
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 7);
}

/// A store created in a directory the user made beforehand (0755) is made private.
#[test]
fn a_store_in_an_existing_open_directory_is_made_private() {
    let env = Env::new();
    fs::create_dir_all(env.path()).unwrap();
    fs::set_permissions(env.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let o = env.body(&["profile", "create"], &profile_body("open-0001"));
    assert_eq!(o.code, 0, "{o:?}");
    assert_private(&env.path());
    let env = Env::new();
    fs::create_dir_all(env.path()).unwrap();
    fs::set_permissions(env.path(), fs::Permissions::from_mode(0o777)).unwrap();
    assert_eq!(env.run(&["init"]).code, 0);
    assert_private(&env.path());
}

/// A corrupt file is named whole, also when the store's path has long digit runs.
#[test]
fn corrupt_file_message_names_the_whole_path() {
    let env = Env::new();
    let dir = env.dir.path().join("20261121").join("store");
    let run = |args: &[&str]| {
        let mut c = env.cmd();
        c.arg("--data-dir").arg(&dir).args(args);
        Out::from(
            c.write_stdin(profile_body("path-0001").to_string())
                .output()
                .unwrap(),
        )
    };
    let id = run(&["profile", "create", "--body", "-"]).id();
    let file = dir
        .join("customers")
        .join(&id[4..6])
        .join(format!("{id}.json"));
    fs::write(&file, b"{").unwrap();
    let o = run(&["profile", "get", &id]);
    o.refused(3, 30002).mentions(&file.display().to_string());
}

/// The first-level key bucket of `key` (the low byte of its 32-bit FNV-1a
/// hash, as src/store/keys.rs documents).
fn key_bucket(key: &str) -> u8 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_le_bytes()[0]
}

/// `n` keys that all fall in first-level key bucket 0x5a.
pub(crate) fn keys_of_one_bucket(n: usize) -> Vec<String> {
    (0..)
        .map(|i| format!("split-{i:07}"))
        .filter(|k| key_bucket(k) == 0x5a)
        .take(n)
        .collect()
}

fn import_keys(env: &Env, keys: &[String]) -> Vec<String> {
    let mut lines = String::new();
    for k in keys {
        lines.push_str(&serde_json::to_string(&profile_body(k)).unwrap());
        lines.push('\n');
    }
    let o = env.run_with(&["profile", "import", "-"], Some(lines.as_bytes()));
    assert_eq!(o.code, 0, "{o:?}");
    o.data()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

/// The files under `index/keys/5a`, and their largest size.
fn split_files(env: &Env) -> (Vec<PathBuf>, u64) {
    let mut all = Vec::new();
    walk(&env.path().join("index/keys/5a"), &mut all);
    let files: Vec<PathBuf> = all.into_iter().filter(|p| p.is_file()).collect();
    let max = files
        .iter()
        .map(|p| fs::metadata(p).unwrap().len())
        .max()
        .unwrap_or(0);
    (files, max)
}

/// The test knob that makes a key bucket split past 32 KB (about 840 keys)
/// instead of 512 KB, so that the tests below split one with 1,200 keys.
fn small_buckets(env: &mut Env) {
    env.envs
        .push(("PAYCTL_SPLIT_BYTES", (32 * 1024).to_string()));
}

/// A bucket holds up to 512 KB (about 13,000 keys) before it is split
/// (src/store/keys.rs): the 1,200 keys that the tests below split with the
/// knob, and twice as many, stay in one file without it. A lookup streams
/// the bucket through a 16 KB buffer (`safefs::each_lines_piece`): these
/// 2,400 keys fill it six times over, and keys on both sides of its edges
/// are found.
#[test]
fn a_key_bucket_holds_its_keys_in_one_file_up_to_512_kb() {
    let env = Env::new();
    let keys = keys_of_one_bucket(2400);
    import_keys(&env, &keys[..1200]);
    import_keys(&env, &keys[1200..]);
    let bucket = env.path().join("index/keys/5a.log");
    assert_eq!(fs::read_to_string(&bucket).unwrap().lines().count(), 2400);
    assert!(fs::metadata(&bucket).unwrap().len() > 64 * 1024);
    assert!(!env.path().join("index/keys/5a").exists());
    assert_clean(&env, "with 2,400 keys in one bucket");
    // The key whose line the buffer's first fill cuts.
    let text = fs::read_to_string(&bucket).unwrap();
    let cut = text[..16 * 1024].rfind('\n').unwrap() + 1;
    let straddling = text[cut..].split(' ').next().unwrap().to_string();
    assert!(keys.contains(&straddling), "{straddling}");
    for k in [&keys[0], &keys[700], &straddling, &keys[1700], &keys[2399]] {
        env.body(&["profile", "create"], &profile_body(k))
            .refused(1, 21002);
        let found = env.run(&["profile", "list", "--customer-key", k]);
        assert_eq!(found.code, 0, "{found:?}");
        assert_eq!(found.data().len(), 1, "{k}: {found:?}");
        assert_eq!(found.data()[0]["customer_key"], k.as_str());
    }
}

#[test]
fn a_full_key_bucket_is_split_a_level_down_and_keys_stay_unique() {
    let mut env = Env::new();
    small_buckets(&mut env);
    // 1,200 lines of ~40 bytes: more than the 32 KB a bucket may hold.
    let keys = keys_of_one_bucket(1200);
    let ids = import_keys(&env, &keys[..600]);
    assert!(env.path().join("index/keys/5a.log").is_file());
    assert!(!env.path().join("index/keys/5a").exists());
    import_keys(&env, &keys[600..]);
    assert!(
        !env.path().join("index/keys/5a.log").exists(),
        "the full bucket was replaced by the level below"
    );
    let (files, max) = split_files(&env);
    assert!(files.len() > 100, "{files:?}");
    assert!(max <= 32 * 1024, "{max}");
    assert_clean(&env, "after the split");
    // Every key is still found: a create with any of them is refused, and
    // so is an import line (its batch lookup reads the level below too;
    // it once read only the first level and created a second holder).
    for key in [&keys[0], &keys[599], &keys[600], &keys[1199]] {
        env.body(&["profile", "create"], &profile_body(key))
            .refused(1, 21002);
    }
    let line = format!(
        "{}\n",
        serde_json::to_string(&profile_body(&keys[5])).unwrap()
    );
    env.run_with(&["profile", "import", "-"], Some(line.as_bytes()))
        .refused(1, 21002);
    let o = env.run_with(
        &["profile", "import", "--skip-existing", "-"],
        Some(line.as_bytes()),
    );
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.data().is_empty(), "skipped, not created: {o:?}");
    let o = env.run(&["profile", "list", "--customer-key", &keys[5]]);
    assert_eq!(o.data().len(), 1, "one holder of the key: {o:?}");
    let o = env.run(&["profile", "list", "--customer-key", &keys[10]]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["customer_profile_id"], ids[10].as_str());
    // A new key of that bucket goes to its file one level down.
    let more = keys_of_one_bucket(1201);
    let new = &more[1200];
    let csp = env.create_profile(new);
    let holding: Vec<&PathBuf> = files
        .iter()
        .filter(|p| {
            fs::read_to_string(p)
                .unwrap()
                .contains(&format!("{new} {csp}\n"))
        })
        .collect();
    assert_eq!(holding.len(), 1, "{holding:?}");
    // A bucket file left above its split level hides nothing silently.
    fs::write(env.path().join("index/keys/5a.log"), b"").unwrap();
    fs::set_permissions(
        env.path().join("index/keys/5a.log"),
        fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 3, "{o:?}");
    assert!(o.stdout.contains("which readers read instead"), "{o:?}");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_clean(&env, "after the repair");
    env.body(&["profile", "create"], &profile_body(new))
        .refused(1, 21002);
}

#[test]
fn a_format_4_store_with_a_full_key_bucket_is_split_by_the_upgrade() {
    let mut env = Env::new();
    small_buckets(&mut env);
    let keys = keys_of_one_bucket(1200);
    import_keys(&env, &keys);
    // Format 4: one file per first-level bucket, however large.
    let (files, _) = split_files(&env);
    let mut flat = String::new();
    for f in &files {
        flat.push_str(&fs::read_to_string(f).unwrap());
    }
    assert_eq!(flat.lines().count(), 1200);
    fs::remove_dir_all(env.path().join("index/keys/5a")).unwrap();
    let bucket = env.path().join("index/keys/5a.log");
    fs::write(&bucket, &flat).unwrap();
    fs::set_permissions(&bucket, fs::Permissions::from_mode(0o600)).unwrap();
    fs::write(env.path().join("meta.json"), "{\"format_version\":4}\n").unwrap();
    // Killed after the upgrade's commit point: the next command finishes it.
    let o = run_env(
        &env,
        ("PAYCTL_FAULT", "after-journal"),
        &["profile", "list"],
        None,
    );
    assert_ne!(o.code, 0, "{o:?}");
    env.body(&["profile", "create"], &profile_body(&keys[700]))
        .refused(1, 21002);
    let meta: Value =
        serde_json::from_slice(&fs::read(env.path().join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta, json!({"format_version": 14}));
    assert!(!bucket.exists(), "the upgrade split the full bucket");
    let (files, max) = split_files(&env);
    assert!(files.len() > 100 && max <= 32 * 1024, "{max}");
    let lines: usize = files
        .iter()
        .map(|f| fs::read_to_string(f).unwrap().lines().count())
        .sum();
    assert_eq!(lines, 1200);
    assert_clean(&env, "after the upgrade");
}

/// Format 8 added packed customers (src/store/packs.rs): a store of format
/// 7 has none, so its upgrade changes only the version, and every record
/// and index stays byte for byte as it was (`applied.json`, the point
/// commits' pending syncs, is settled by the upgrade's own commit).
#[test]
fn a_format_7_store_is_upgraded_by_its_version_alone() {
    let env = Env::new();
    let ids: Vec<String> = (0..3)
        .map(|i| env.create_profile(&format!("f7-{i:05}")))
        .collect();
    let meta = env.path().join("meta.json");
    fs::write(&meta, "{\"format_version\":7}\n").unwrap();
    // The records, the indexes and the catalog, with their bytes.
    let records = || -> Vec<_> {
        env.snapshot()
            .into_iter()
            .filter(|(p, _)| {
                let p = p.to_string_lossy();
                p.contains("/customers/") || p.contains("/index/") || p.ends_with("catalog.json")
            })
            .collect()
    };
    let before = records();
    let o = env.run(&["profile", "get", &ids[1]]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(
        o.stderr
            .contains("from format 7 to 14: only its format version changes"),
        "{o:?}"
    );
    let v: Value = serde_json::from_slice(&fs::read(&meta).unwrap()).unwrap();
    assert_eq!(v, json!({"format_version": 14}));
    assert_eq!(records(), before);
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
}

/// Issue 31: `payctl key` on the store: names follow their rule and are
/// unique for ever (a revoked key keeps its name), `-o id` is the name,
/// revoking an unknown name is 20001 and revoking twice answers the same;
/// `store check` stays clean.
#[test]
fn key_names_are_checked_and_unique_and_revoke_keeps_the_key() {
    let env = Env::new();
    for bad in [
        "",
        "a b",
        "a/b",
        "token",
        "Token",
        "SYSTEM",
        &"k".repeat(65),
    ] {
        env.run(&["key", "create", bad, "--role", "reader"])
            .refused(1, 10001)
            .mentions("NAME");
    }
    let o = env.run(&["-o", "id", "key", "create", "ci.v2", "--role", "admin"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.stdout.trim(), "ci.v2");
    env.run(&["key", "create", "ci.v2", "--role", "reader"])
        .refused(1, 21006)
        .mentions("ci.v2");
    env.run(&["key", "create", "x", "--role", "owner"])
        .refused(2, 10000);
    env.run(&[
        "key",
        "create",
        "x",
        "--role",
        "reader",
        "--expires-in",
        "0",
    ])
    .refused(2, 10000);
    let o = env.run(&[
        "key",
        "create",
        "x",
        "--role",
        "reader",
        "--expires-in",
        "30",
    ]);
    assert_eq!(o.code, 0, "{o:?}");
    let created = o.data()[0]["created"].as_str().unwrap().to_string();
    let expires = o.data()[0]["expires"].as_str().unwrap().to_string();
    assert!(expires > created, "{o:?}");
    let days = |t: &str| chrono_days(&t[..10]);
    assert_eq!(days(&expires) - days(&created), 30, "{o:?}");
    env.run(&["key", "revoke", "nope"]).refused(1, 20001);
    let first = env.run(&["key", "revoke", "x"]);
    assert_eq!(first.code, 0, "{first:?}");
    let again = env.run(&["key", "revoke", "x"]);
    assert_eq!(again.data(), first.data());
    env.run(&["key", "create", "x", "--role", "reader"])
        .refused(1, 21006);
    let listed = env.run(&["key", "list"]);
    let names: Vec<&str> = listed
        .data()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ci.v2", "x"]);
    assert!(listed.data()[0]["revoked"].is_null());
    assert!(listed.data()[1]["revoked"].is_string());
    assert_clean(&env, "keys");
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (civil calendar).
fn chrono_days(date: &str) -> i64 {
    let p: Vec<i64> = date.split('-').map(|x| x.parse().unwrap()).collect();
    let (y, m, d) = (p[0] - i64::from(p[1] <= 2), p[1], p[2]);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
