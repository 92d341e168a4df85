//! A throwaway PostgreSQL for the tests that run on the database store:
//! `initdb` + `pg_ctl` of Debian's `postgresql` package (binaries under
//! /usr/lib/postgresql/<version>/bin, or on PATH), one server per test
//! binary on a free port in a temporary directory, one fresh database per
//! test. As root the server runs as `nobody` (PostgreSQL refuses root). A
//! watcher stops the server and removes its directory when the test binary
//! exits.
//!
//! The tests that need it are `#[ignore = "needs PostgreSQL"]`: `cargo
//! test` lists them as ignored, and `cargo test -- --include-ignored` (CI,
//! see .ci/run) runs them, failing when no server can be started.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Server {
    port: u16,
    /// The server's directory (its unix socket, and for TLS its CA).
    dir: PathBuf,
}

static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
static TLS_SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
static NEXT_DB: AtomicUsize = AtomicUsize::new(0);

/// How the tests that need PostgreSQL run: they are `#[ignore = "needs
/// PostgreSQL"]`, so `cargo test` leaves them out and says so, and CI runs
/// them with `--include-ignored`; run so, a missing server fails them.
const RUN_IGNORED: &str = "this test is #[ignore]d and runs with `cargo test -- --include-ignored`";

fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `program args…`, as `nobody` when this process is root.
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "nobody", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// Make `dir` (and what it holds) the server user's when this process is
/// root (PostgreSQL and PgBouncer refuse to run as root).
fn give_to_server_user(dir: &Path) -> Result<(), String> {
    if !is_root() {
        return Ok(());
    }
    let ok = Command::new("chown")
        .args(["-R", "nobody", dir.to_str().unwrap()])
        .status()
        .map_err(|e| e.to_string())?;
    if !ok.success() {
        return Err("chown nobody failed".into());
    }
    Ok(())
}

/// Run the shell `script` once this test binary has exited (it waits for
/// the binary's pid): how the servers are stopped and their files removed.
fn when_tests_end(script: &str) -> Result<(), String> {
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {script}",
        pid = std::process::id()
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    Ok(())
}

fn start(tls: bool) -> Result<Server, String> {
    let bin = bin_dir().ok_or("no PostgreSQL server binaries under /usr/lib/postgresql")?;
    let dir = std::env::temp_dir().join(format!(
        "payctl-pg-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    give_to_server_user(&dir)?;
    let data = dir.join("data");
    let out = as_server_user(&bin.join("initdb"))
        .args([
            "-D",
            data.to_str().unwrap(),
            "-U",
            "postgres",
            "--auth=trust",
        ])
        .args(["--no-sync", "-E", "UTF8", "--locale=C"])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if tls {
        tls_files(&dir, &data)?;
    }
    let port = free_port();
    let ssl = if tls {
        " -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key"
    } else {
        ""
    };
    let opts = format!(
        "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
         -c synchronous_commit=off -c full_page_writes=off -c max_connections=200{ssl}",
        dir.display()
    );
    let out = as_server_user(&bin.join("pg_ctl"))
        .args(["-D", data.to_str().unwrap(), "-o", &opts, "-w", "-t", "60"])
        .args(["-l", dir.join("log").to_str().unwrap(), "start"])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
        return Err(format!(
            "pg_ctl start failed: {}{log}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // Stop the server and remove its directory once this test binary exits.
    when_tests_end(&format!(
        "{run} {pg_ctl} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
        run = if is_root() {
            "runuser -u nobody --"
        } else {
            ""
        },
        pg_ctl = bin.join("pg_ctl").display(),
        data = data.display(),
        dir = dir.display(),
    ))?;
    Ok(Server { port, dir })
}

/// A CA, a server certificate it signs for localhost and 127.0.0.1, in the
/// data directory (owned by the server's user, the key 0600), and a
/// pg_hba.conf that accepts TCP connections only over TLS (`hostssl`).
fn tls_files(dir: &Path, data: &Path) -> Result<(), String> {
    let sh = format!(
        "set -e; cd {dir}; \
         openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=payctl-test-ca \
           -keyout ca.key -out ca.crt 2>/dev/null; \
         openssl req -newkey rsa:2048 -nodes -subj /CN=localhost \
           -keyout {data}/server.key -out server.csr 2>/dev/null; \
         printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\nbasicConstraints=CA:FALSE\\n' > ext; \
         openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
           -days 2 -extfile ext -out {data}/server.crt 2>/dev/null; \
         chmod 600 {data}/server.key; \
         printf 'local all all trust\\nhostssl all all 127.0.0.1/32 trust\\n' > {data}/pg_hba.conf",
        dir = dir.display(),
        data = data.display()
    );
    let out = Command::new("sh")
        .args(["-c", &sh])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "openssl failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if is_root() {
        let d = data.display();
        Command::new("chown")
            .args([
                "nobody",
                &format!("{d}/server.key"),
                &format!("{d}/server.crt"),
            ])
            .args([format!("{d}/pg_hba.conf")])
            .status()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A fresh database on a second throwaway server that accepts TCP
/// connections only over TLS, with a certificate for localhost/127.0.0.1
/// signed by a test CA: `(url without sslmode, path of the CA's PEM)`.
pub fn fresh_tls_database(test: &str) -> Option<(String, PathBuf)> {
    let server = match TLS_SERVER.get_or_init(|| start(true)) {
        Ok(s) => s,
        Err(why) => panic!("{test}: needs PostgreSQL and openssl ({why}); {RUN_IGNORED}"),
    };
    let n = NEXT_DB.fetch_add(1, Ordering::SeqCst);
    let name = format!("s{}_{n}", std::process::id());
    // Through the unix socket (pg_hba: `local … trust`): no TLS needed.
    let admin = format!(
        "host={} port={} user=postgres dbname=postgres",
        server.dir.display(),
        server.port
    );
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).expect("connect to tls server");
    c.batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create database");
    Some((
        format!("postgresql://postgres@127.0.0.1:{}/{name}", server.port),
        server.dir.join("ca.crt"),
    ))
}

fn rand_suffix() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// The URL of a fresh, empty database. A test that needs one is
/// `#[ignore = "needs PostgreSQL"]`; run, it fails when no PostgreSQL can be
/// started (never passes by skipping). (An `Option` for its callers' `let …
/// else`, always `Some`.)
pub fn fresh_database(test: &str) -> Option<String> {
    let server = SERVER.get_or_init(|| start(false));
    let server = match server {
        Ok(s) => s,
        Err(why) => panic!(
            "{test}: needs PostgreSQL ({why}): install the `postgresql` package \
             (apt-get install postgresql); {RUN_IGNORED}"
        ),
    };
    let n = NEXT_DB.fetch_add(1, Ordering::SeqCst);
    let name = format!("t{}_{n}", std::process::id());
    let admin = format!("postgresql://postgres@127.0.0.1:{}/postgres", server.port);
    let mut c = postgres::Client::connect(&admin, postgres::NoTls).expect("connect to test server");
    c.batch_execute(&format!("CREATE DATABASE {name}"))
        .expect("create database");
    Some(format!(
        "postgresql://postgres:secret-pw@127.0.0.1:{}/{name}",
        server.port
    ))
}

static BOUNCER: OnceLock<Result<u16, String>> = OnceLock::new();

fn pgbouncer() -> Option<PathBuf> {
    ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// PgBouncer in session mode in front of the test server, on a free port:
/// its port. Stopped when the test binary exits (like the server).
fn start_bouncer(server: &Server) -> Result<u16, String> {
    let bin = pgbouncer().ok_or("no pgbouncer (apt-get install pgbouncer)")?;
    let dir = server.dir.join(format!("pgbouncer-{}", rand_suffix()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let port = free_port();
    std::fs::write(dir.join("users.txt"), "\"postgres\" \"\"\n").map_err(|e| e.to_string())?;
    let ini = dir.join("pgbouncer.ini");
    std::fs::write(
        &ini,
        format!(
            "[databases]\n* = host=127.0.0.1 port={server_port}\n[pgbouncer]\n\
             listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
             auth_type = trust\nauth_file = {dir}/users.txt\npool_mode = session\n\
             max_client_conn = 200\ndefault_pool_size = 20\n\
             logfile = {dir}/pgbouncer.log\npidfile = {dir}/pgbouncer.pid\n",
            server_port = server.port,
            dir = dir.display()
        ),
    )
    .map_err(|e| e.to_string())?;
    give_to_server_user(&dir)?;
    let out = as_server_user(&bin)
        .arg("-d")
        .arg(&ini)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "pgbouncer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if std::time::Instant::now() > deadline {
            let log = std::fs::read_to_string(dir.join("pgbouncer.log")).unwrap_or_default();
            return Err(format!("pgbouncer did not listen: {log}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Its pid read now: the server's own clean-up may remove the directory
    // (and the pid file in it) first, which left PgBouncer running.
    // (Written by the daemon itself: waited for, as its port was.)
    let pid: u32 = loop {
        let read = std::fs::read_to_string(dir.join("pgbouncer.pid"));
        match read.as_deref().map(str::trim).map(str::parse) {
            Ok(Ok(pid)) => break pid,
            _ if std::time::Instant::now() > deadline => {
                return Err(format!("pgbouncer.pid: not written ({read:?})"));
            }
            _ => std::thread::sleep(std::time::Duration::from_millis(50)),
        }
    };
    when_tests_end(&format!("kill {pid}"))?;
    Ok(port)
}

/// A fresh database as `(direct URL, URL through PgBouncer in session
/// mode)`; like [`fresh_database`], it fails the test when PostgreSQL or
/// PgBouncer is missing (.ci/run installs both).
pub fn pooled_database(test: &str) -> Option<(String, String)> {
    let direct = fresh_database(test)?;
    let server = SERVER.get().and_then(|s| s.as_ref().ok())?;
    let port = match BOUNCER.get_or_init(|| start_bouncer(server)) {
        Ok(port) => *port,
        Err(why) => panic!(
            "{test}: needs PgBouncer ({why}): install the `pgbouncer` package \
             (apt-get install pgbouncer); {RUN_IGNORED}"
        ),
    };
    let name = direct.rsplit('/').next().expect("database name").to_owned();
    Some((
        direct,
        format!("postgresql://postgres@127.0.0.1:{port}/{name}"),
    ))
}
