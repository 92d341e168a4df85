//! A real `payctl serve` on a free port of the test's store, and a real HTTP
//! client (ureq) to talk to it.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use serde_json::Value;

use super::Env;

pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`, or `https://…` when serve said so
    /// (`--tls-cert`; see [`Server::trust`]).
    pub base: String,
    pub addr: String,
    /// Everything serve wrote to stderr so far.
    pub log: Arc<Mutex<String>>,
    agent: ureq::Agent,
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub json: Value,
    pub text: String,
    pub headers: Vec<(String, String)>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn codes(&self) -> Vec<u64> {
        self.json["errors"]
            .as_array()
            .map(|a| a.iter().filter_map(|e| e["code"].as_u64()).collect())
            .unwrap_or_default()
    }
    /// Assert an error envelope with `status` and `code`.
    pub fn refused(&self, status: u16, code: u64) -> &Self {
        assert_eq!(self.status, status, "{self:?}");
        assert!(self.codes().contains(&code), "expected {code}: {self:?}");
        assert!(self.json["data"].is_null(), "{self:?}");
        assert!(self.json["paging"].is_null(), "{self:?}");
        self
    }
    pub fn id(&self) -> String {
        assert!(self.status == 200 || self.status == 201, "{self:?}");
        self.json["data"][0]["id"].as_str().expect("id").to_string()
    }
}

impl Server {
    /// `payctl serve --listen 127.0.0.1:0 --no-worker` on `env`'s store, plus `extra`.
    pub fn start(env: &Env, extra: &[&str]) -> Server {
        Self::try_start(env, &["--no-worker"], extra).expect("serve started")
    }

    /// Start with `flags` and `extra`; Err with the stderr when it exits first.
    pub fn try_start(env: &Env, flags: &[&str], extra: &[&str]) -> Result<Server, String> {
        Self::try_start_with(env, flags, extra, &[])
    }

    /// [`Server::try_start`] with environment variables (`PAYCTL_FAULT`).
    pub fn try_start_with(
        env: &Env,
        flags: &[&str],
        extra: &[&str],
        vars: &[(&str, &str)],
    ) -> Result<Server, String> {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("payctl"));
        cmd.envs(vars.iter().copied());
        match &env.db {
            Some(url) => cmd.arg("--database-url").arg(url),
            None => cmd.arg("--data-dir").arg(env.path()),
        };
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("PAYCTL_DATABASE_URL")
            .args(flags)
            .args(extra)
            .env_remove("PAYCTL_BASE_URL")
            .env_remove("PAYCTL_SERVE_TOKEN")
            .env("PAYCTL_ACTOR", "tester")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn serve");
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let sink = log.clone();
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let listening = line
                    .strip_prefix("listening on http://")
                    .map(|a| ("http", a))
                    .or_else(|| {
                        line.strip_prefix("listening on https://")
                            .map(|a| ("https", a))
                    });
                if let Some((scheme, addr)) = listening
                    && let Some(tx) = tx.take()
                {
                    let _ = tx.send((scheme, addr.to_string()));
                }
                let mut l = sink.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok((scheme, addr)) => Ok(Server {
                child,
                base: format!("{scheme}://{addr}"),
                addr,
                log,
                agent: agent(ureq::tls::RootCerts::WebPki),
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                std::thread::sleep(Duration::from_millis(100));
                Err(log.lock().unwrap().clone())
            }
        }
    }

    /// Trust the CA of `ca_pem` (a server started with `--tls-cert`), and
    /// reach the server by the name `host` (`localhost`, or `127.0.0.1`).
    pub fn trust(&mut self, ca_pem: &str, host: &str) {
        let ca = ureq::tls::Certificate::from_pem(ca_pem.as_bytes()).expect("a CA in PEM");
        self.agent = agent(ureq::tls::RootCerts::new_with_certs(&[ca]));
        let port = self.addr.rsplit(':').next().unwrap();
        self.base = format!("https://{host}:{port}");
    }

    /// A request with a JSON body (or none) and extra headers; a body of
    /// another type when `headers` name its `Content-Type`.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let url = format!("{}{}", self.base, path);
        let req = ureq::http::Request::builder().method(method).uri(&url);
        let typed = headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"));
        let req = headers.iter().fold(req, |r, (k, v)| r.header(*k, *v));
        let resp = match body {
            Some(b) if typed => self.agent.run(req.body(b.to_string()).unwrap()),
            Some(b) => self.agent.run(
                req.header("Content-Type", "application/json")
                    .body(b.to_string())
                    .unwrap(),
            ),
            None => self.agent.run(req.body(()).unwrap()),
        };
        let mut resp = resp.expect("HTTP exchange");
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        Reply {
            status,
            json: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            headers,
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, None, &[])
    }

    pub fn post(&self, path: &str, body: &Value) -> Reply {
        self.send("POST", path, Some(&body.to_string()), &[])
    }

    /// A POST whose exchange may fail (the server killed): `None` then.
    pub fn try_post(&self, path: &str, body: &Value) -> Option<Reply> {
        let url = format!("{}{}", self.base, path);
        let req = ureq::http::Request::builder()
            .method("POST")
            .uri(&url)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .unwrap();
        let mut resp = self.agent.run(req).ok()?;
        let status = resp.status().as_u16();
        let text = resp.body_mut().read_to_string().ok()?;
        Some(Reply {
            status,
            json: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            headers: Vec::new(),
        })
    }

    /// SIGKILL (a crash), without waiting.
    pub fn kill9(&self) {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-KILL", &pid])
            .status()
            .expect("kill -KILL");
    }

    /// Bytes written as they are on a new connection; the answer's text.
    pub fn raw(&self, request: &[u8]) -> String {
        let mut s = std::net::TcpStream::connect(&self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(request).expect("write");
        let mut out = Vec::new();
        let _ = s.read_to_end(&mut out);
        String::from_utf8_lossy(&out).into_owned()
    }

    /// Send SIGTERM, without waiting.
    pub fn sigterm(&self) {
        let pid = self.child.id().to_string();
        Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
    }

    /// SIGTERM, then wait for the exit; its code and the whole log.
    pub fn terminate(self) -> (Option<i32>, String) {
        self.sigterm();
        self.wait()
    }

    /// Wait for the exit; its code and the whole log.
    pub fn wait(mut self) -> (Option<i32>, String) {
        let status = self.child.wait().expect("wait");
        std::thread::sleep(Duration::from_millis(200));
        let log = self.log.lock().unwrap().clone();
        (status.code(), log)
    }

    /// Run payctl in remote mode against this server.
    pub fn cli(&self, env: &Env, args: &[&str]) -> super::Out {
        self.cli_with(env, args, b"")
    }

    /// Remote mode with `stdin`.
    pub fn cli_with(&self, env: &Env, args: &[&str], stdin: &[u8]) -> super::Out {
        let mut c = env.cmd();
        c.env("PAYCTL_BASE_URL", &self.base).args(args);
        c.write_stdin(stdin.to_vec());
        super::Out::from(c.output().expect("run payctl"))
    }
}

fn agent(roots: ureq::tls::RootCerts) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
        .build()
        .into()
}

/// Where a test's commands go: the local store, or `payctl serve` over it
/// (remote mode), so that one test body runs in both modes.
pub struct Side {
    pub env: Env,
    pub server: Option<Server>,
}

impl Side {
    pub fn local() -> Side {
        Side {
            env: Env::new(),
            server: None,
        }
    }
    pub fn remote() -> Side {
        let env = Env::new();
        let server = Server::start(&env, &["--quiet"]);
        Side {
            env,
            server: Some(server),
        }
    }
    /// The local CLI on a fresh PostgreSQL database (`None`: no PostgreSQL
    /// here, see pg.rs).
    pub fn database(test: &str) -> Option<Side> {
        Some(Side {
            env: Env::database(test)?,
            server: None,
        })
    }
    /// Remote mode against `payctl serve` on a fresh PostgreSQL database.
    pub fn database_remote(test: &str) -> Option<Side> {
        let env = Env::database(test)?;
        let server = Server::start(&env, &["--quiet"]);
        Some(Side {
            env,
            server: Some(server),
        })
    }
    /// Both sides, local first.
    pub fn both() -> [Side; 2] {
        [Side::local(), Side::remote()]
    }
    pub fn name(&self) -> &'static str {
        if self.server.is_some() {
            "remote"
        } else {
            "local"
        }
    }
    pub fn run(&self, args: &[&str]) -> super::Out {
        self.run_with(args, b"")
    }
    pub fn run_with(&self, args: &[&str], stdin: &[u8]) -> super::Out {
        match &self.server {
            Some(s) => s.cli_with(&self.env, args, stdin),
            None => self.env.run_with(args, Some(stdin)),
        }
    }
    /// Run with a JSON body on stdin (`--body -`).
    pub fn body(&self, args: &[&str], body: &Value) -> super::Out {
        let mut a = args.to_vec();
        a.extend(["--body", "-"]);
        self.run_with(&a, body.to_string().as_bytes())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
