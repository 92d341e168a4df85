//! Shared helpers of the integration tests: run the real binary on a
//! temporary data directory and parse its JSON envelope.
#![allow(dead_code)]

pub mod serve;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use assert_cmd::Command;
use serde_json::{Value, json};
use tempfile::TempDir;

pub mod pg;

pub struct Env {
    pub dir: TempDir,
    /// The database of `--database-url` when the store is one (see pg.rs).
    pub db: Option<String>,
    /// Environment variables set for every run (test knobs such as
    /// `PAYCTL_PACK_MIN`).
    pub envs: Vec<(&'static str, String)>,
}

/// What one run of payctl gave.
#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Out {
    /// A finished payctl: its exit code, its stdout parsed as the JSON
    /// envelope (null when it is not JSON), both streams as text.
    fn from(o: std::process::Output) -> Out {
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        Out {
            code: o.status.code().unwrap_or(-1),
            json: serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
            stdout,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

impl Out {
    /// The codes of `errors`.
    pub fn codes(&self) -> Vec<u64> {
        self.json["errors"]
            .as_array()
            .map(|a| a.iter().filter_map(|e| e["code"].as_u64()).collect())
            .unwrap_or_default()
    }
    pub fn messages(&self) -> Vec<String> {
        self.json["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e["message"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }
    /// The `id` of a create or update answer.
    pub fn id(&self) -> String {
        assert_eq!(self.code, 0, "expected success: {self:?}");
        self.json["data"][0]["id"]
            .as_str()
            .expect("data[0].id")
            .to_string()
    }
    pub fn data(&self) -> &Vec<Value> {
        self.json["data"]
            .as_array()
            .unwrap_or_else(|| panic!("data is not an array: {self:?}"))
    }
    /// Assert a refusal with exit `code` whose errors include `api`.
    pub fn refused(&self, exit: i32, api: u64) -> &Self {
        assert_eq!(self.code, exit, "exit code: {self:?}");
        assert!(
            self.codes().contains(&api),
            "expected error {api}: {self:?}"
        );
        assert!(
            self.json["data"].is_null(),
            "data must be null on error: {self:?}"
        );
        self
    }
    /// Assert that some error message mentions `text`.
    pub fn mentions(&self, text: &str) -> &Self {
        assert!(
            self.messages().iter().any(|m| m.contains(text)),
            "no message mentions {text:?}: {self:?}"
        );
        self
    }
}

impl Env {
    pub fn new() -> Self {
        Env {
            dir: TempDir::new().expect("tempdir"),
            db: None,
            envs: Vec::new(),
        }
    }
    /// An environment whose store is a fresh PostgreSQL database; `None`
    /// when PostgreSQL is not available (outside CI; see pg.rs).
    pub fn database(test: &str) -> Option<Self> {
        let db = pg::fresh_database(test)?;
        Some(Env {
            dir: TempDir::new().expect("tempdir"),
            db: Some(db),
            envs: Vec::new(),
        })
    }
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("store")
    }
    /// The file of customer `csp` (the store layout of src/store/mod.rs).
    pub fn customer_file(&self, csp: &str) -> PathBuf {
        self.path()
            .join("customers")
            .join(&csp["csp_".len().."csp_".len() + 2])
            .join(format!("{csp}.json"))
    }
    pub fn cmd(&self) -> Command {
        let mut c = Command::cargo_bin("payctl").expect("binary");
        match &self.db {
            Some(url) => c.arg("--database-url").arg(url),
            None => c.arg("--data-dir").arg(self.path()),
        };
        c.arg("-o").arg("json");
        c.env_remove("PAYCTL_DATABASE_URL");
        c.env_remove("PAYCTL_OUTPUT")
            .env_remove("PAYCTL_DATA_DIR")
            .env("PAYCTL_ACTOR", "tester");
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        c
    }
    /// Run with `args`, no stdin.
    pub fn run(&self, args: &[&str]) -> Out {
        self.run_with(args, None)
    }
    /// Run with `args` and `stdin`.
    pub fn run_with(&self, args: &[&str], stdin: Option<&[u8]>) -> Out {
        let mut c = self.cmd();
        c.args(args);
        c.write_stdin(stdin.unwrap_or(b"").to_vec());
        Out::from(c.output().expect("run payctl"))
    }
    /// Run with a JSON body on stdin (`--body -`).
    pub fn body(&self, args: &[&str], body: &Value) -> Out {
        let mut a = args.to_vec();
        a.extend(["--body", "-"]);
        self.run_with(&a, Some(body.to_string().as_bytes()))
    }
    /// Every file of the store with its bytes, to check that a refusal changed nothing.
    pub fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        walk(&self.path(), &mut out);
        out.sort();
        out
    }
    pub fn create_profile(&self, key: &str) -> String {
        self.body(&["profile", "create"], &profile_body(key)).id()
    }
    /// A new profile with key `key`, attached to the built-in program and
    /// the worker run: `(program id, profile id)`.
    #[allow(dead_code)]
    pub fn attached_profile(&self, key: &str) -> (String, String) {
        let prm = self.program_id();
        let csp = self.create_profile(key);
        ok(self.run(&["program", "attach", &prm, &csp]));
        ok(self.run(&["worker"]));
        (prm, csp)
    }
    /// The id of the built-in `default_program`.
    pub fn program_id(&self) -> String {
        let o = self.run(&["program", "list"]);
        o.data()
            .iter()
            .find(|p| p["program_name"] == "default_program")
            .and_then(|p| p["program_id"].as_str())
            .expect("default_program")
            .to_string()
    }
}

/// The payctl binary as a child process: its store and `-o format`, no
/// PAYCTL_* variable of the caller's environment (PAYCTL_ACTOR is
/// `tester`), the three streams piped. Add the arguments, then `feed` it.
pub fn payctl(env: &Env, format: &str) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_payctl"));
    configure(&mut c, env, format);
    c
}

/// What `payctl` sets, on a command that runs payctl some other way (through
/// `sh -c`, for one).
pub fn configure(c: &mut std::process::Command, env: &Env, format: &str) {
    match &env.db {
        Some(url) => c.arg("--database-url").arg(url),
        None => c.arg("--data-dir").arg(env.path()),
    };
    c.args(["-o", format])
        .env_remove("PAYCTL_OUTPUT")
        .env_remove("PAYCTL_DATA_DIR")
        .env_remove("PAYCTL_DATABASE_URL")
        .env_remove("PAYCTL_FAULT")
        .env_remove("PAYCTL_ALLOW_OTHER_OWNER")
        .env("PAYCTL_ACTOR", "tester")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &env.envs {
        c.env(k, v);
    }
}

/// Start `c` with `stdin` written to it and closed.
pub fn feed(mut c: std::process::Command, stdin: Option<&[u8]>) -> Child {
    let mut child = c.spawn().expect("spawn payctl");
    let mut pipe = child.stdin.take().expect("stdin");
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).expect("write stdin");
    }
    drop(pipe);
    child
}

/// Wait for a child started by `feed`.
pub fn finish(child: Child) -> Out {
    Out::from(child.wait_with_output().expect("wait payctl"))
}

impl Env {
    /// A payctl child on this store, JSON output, `stdin` fed and closed.
    pub fn spawn(&self, args: &[&str], stdin: Option<&[u8]>) -> Child {
        let mut c = payctl(self, "json");
        c.args(args);
        feed(c, stdin)
    }
}

impl Env {
    /// `p` (a path inside the store) relative to the store, as `store check`
    /// names it.
    pub fn rel(&self, p: &Path) -> String {
        p.strip_prefix(self.path()).unwrap().display().to_string()
    }

    /// `store check`, with `--repair` when asked.
    pub fn store_check(&self, repair: bool) -> Out {
        let mut args = vec!["store", "check"];
        if repair {
            args.push("--repair");
        }
        self.run(&args)
    }

    /// Every profile of the store (up to 1000), the list asserted to succeed.
    pub fn all_profiles(&self) -> Vec<Value> {
        let o = self.run(&["profile", "list", "--page-size", "1000"]);
        assert_eq!(o.code, 0, "expected success: {o:?}");
        assert!(!o.stderr.contains("panicked"), "{o:?}");
        o.data().clone()
    }
}

/// The findings of a `store check` that found problems (exit 3, only
/// 30006, no data), as "path: problem" strings.
pub fn findings(o: &Out) -> Vec<String> {
    assert_eq!(o.code, 3, "{o:?}");
    assert!(o.json["data"].is_null(), "{o:?}");
    assert!(o.codes().iter().all(|c| *c == 30006), "{o:?}");
    o.messages()
}

/// `n` profile create bodies as JSON Lines, keys `prefix-000000` …
pub fn profile_lines(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{}\n", profile_body(&format!("{prefix}-{i:06}"))))
        .collect()
}

/// Every fault point of the write path: payctl's own list, so that a
/// point added there is tested here.
pub const FAULT_POINTS: &[&str] = payctl::store::fault::WRITE_PATH;

/// Every file below `dir`.
pub fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The temp files of a write left in `env`'s store.
pub fn temp_files(env: &Env) -> Vec<PathBuf> {
    let mut all = Vec::new();
    files(&env.path(), &mut all);
    all.retain(|p| p.to_string_lossy().ends_with(".payctl-tmp"));
    all
}

/// `store check` is clean: no journal, no temp file, indexes agree, rules hold.
pub fn assert_clean(env: &Env, what: &str) {
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{what}: store check: {o:?}");
    assert!(!env.path().join("journal.json").exists(), "{what}");
    assert!(temp_files(env).is_empty(), "{what}: {:?}", temp_files(env));
}

/// A fresh store holding a copy of `fixture`'s.
pub fn clone_env(fixture: &Env) -> Env {
    let mut env = Env::new();
    env.envs = fixture.envs.clone();
    copy_dir(&fixture.path(), &env.path());
    env
}

/// An ACH instrument create body for program `prm`.
pub fn ach_instrument_body(prm: &str, label: &str, is_default: bool, tags: Value) -> Value {
    json!({
        "payment_instrument_tags": tags,
        "payment_instrument_type_id": 1,
        "payment_method_id": 1,
        "is_default": is_default,
        "payment_instrument_label": label,
        "payment_instrument_change_reason": "Initial setup",
        "program_id": prm,
        "payment_instrument_ach": {
            "account_number": "000123456789",
            "routing_number": "021000021",
            "payment_instrument_ach_type_id": 2
        }
    })
}

fn walk(dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.file_name().is_some_and(|n| n != "payctl.lock") {
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
}

/// A valid profile create body (the spec's example shape).
/// The arguments of `payctl txn create` for `template` of the built-in
/// `payments` application in program `prm`, one `--param` per `params`.
pub fn txn_create_args<'a>(prm: &'a str, template: &'a str, params: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "txn",
        "create",
        "--program",
        prm,
        "--application",
        "payments",
        "--template",
        template,
    ];
    for p in params {
        args.extend(["--param", p]);
    }
    args
}

pub fn profile_body(key: &str) -> Value {
    json!({
        "customer_type_id": 1,
        "customer_key": key,
        "customer_profile_tags": [{"key": "segment", "value": "retail"}],
        "customer_profile_individual": {
            "first_name": "Ada",
            "middle_name": "",
            "last_name": "Lovelace",
            "email": "ada@example.com",
            "date_of_birth": "1990-12-10",
            "ssn": "123456789",
            "mobile_phone": "+15551234567",
            "home_phone": "+15557654321"
        }
    })
}

/// A valid address create body.
pub fn address_body(is_default: bool) -> Value {
    json!({
        "address_type_id": 1,
        "is_default": is_default,
        "country_id": 1,
        "state_id": 5,
        "first_name": "Ada",
        "last_name": "Lovelace",
        "address_line1": "1 Main St",
        "address_line2": "",
        "city": "Springfield",
        "zip": "12345"
    })
}

/// Copy the directory tree `from` to `to` (a store, to run a scenario on
/// the same starting point twice).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    // The modes too (store check reports a directory that is not 0700).
    std::fs::set_permissions(to, std::fs::metadata(from).unwrap().permissions()).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// `o`, asserted to have succeeded without a panic.
#[allow(dead_code)]
pub fn ok(o: Out) -> Out {
    assert_eq!(o.code, 0, "expected success: {o:?}");
    assert!(!o.stderr.contains("panicked"), "{o:?}");
    o
}

// Helpers that several test files share (each was written in two or more
// of them before).

/// `store check` answers exit 0 (what faults.rs and concurrency.rs ask
/// after each step; [`assert_clean`] asks more).
pub fn assert_check_passes(env: &Env) {
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "store check: {o:?}");
}

/// `o`, asserted to have succeeded with no error in its envelope.
#[allow(dead_code)]
pub fn succeeded(o: &Out) -> &Out {
    assert_eq!(o.code, 0, "expected success: {o:?}");
    assert!(o.json["errors"].is_null(), "{o:?}");
    o
}

/// The program profile record of `csp` in `prm`.
#[allow(dead_code)]
pub fn program_record(env: &Env, prm: &str, csp: &str) -> Value {
    let o = env.run(&["program", "profile", prm, csp]);
    succeeded(&o).data()[0].clone()
}

/// A profile Attached to the default program, and the program id.
#[allow(dead_code)]
pub fn attached(env: &Env, key: &str) -> (String, String) {
    let (prm, csp) = env.attached_profile(key);
    (csp, prm)
}

/// The payctl binary the tests run.
#[allow(dead_code)]
pub fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("payctl")
}

/// A tmpfs with `options` mounted at `dir` (needs root), unmounted when
/// the answer is dropped; `None` when mounting is not possible here.
#[allow(dead_code)]
pub fn mount_tmpfs(dir: &Path, options: &str) -> Option<Unmount> {
    std::fs::create_dir_all(dir).unwrap();
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", options, "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Unmount(dir.to_path_buf()))
}

/// A mount, unmounted when dropped (see [`mount_tmpfs`]).
pub struct Unmount(PathBuf);
impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}
