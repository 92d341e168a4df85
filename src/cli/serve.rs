//! `payctl serve`: the options of the HTTP server; the server itself is
//! `api::server`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Global;
use crate::api::access_log::LogFormat;
use crate::api::{Local, server};
use crate::error::{Error, Result};
use crate::output::Response;

pub const SERVE_HELP: &str = "\
Every endpoint of the HTTP API (docs/src/reference/http-api.md), relative to http://ADDR:PORT
(both payment_instruments and payment-instruments), with the bodies, envelopes, error codes
and masking of `-o json`. Lists take page_size, page_number, last_evaluated_key; GET
/customer-profiles also first_name, last_name, email, customer_key, tag=KEY:VALUE.
Statuses: 200, 201 created, 400 invalid, 401 no valid key or token, 403 a key's role does not
allow it (10010) or cross-site (10011), 404 not found (record or path), 405, 409 conflict, 413
body too large, 415 body not sent as JSON, 429 over --rate-limit (Retry-After), 431 headers too
large, 500 store unusable, 503 store busy or database unreachable (Retry-After). Every answer
has `Cache-Control: no-store` and `X-Request-Id` (the client's when it sent 1-128 visible ASCII
characters, else a new one); none names the store's directory or the database's address (the
log on stderr does). Administration: GET /_payctl/health (alive; the store is not opened), GET
/_payctl/ready (the store answers within 2 s, else 503 with Retry-After), GET /_payctl/metrics
(Prometheus text: requests by route template and status, latency histogram, commits, worker
queue depth and items processed), POST /_payctl/worker (one pass of the background work,
answering its summary); for test suites, /_payctl/snapshots, /_payctl/reset and /_payctl/rules
(`payctl store snapshot --help`, `payctl sim --help`); GET /openapi.json describes it all.
PAYCTL_ID_SEED=N (a testing aid): ids come from a generator seeded with N, so the same
requests in the same order get the same ids; serve warns at start when it is set.

API keys (`payctl key create NAME --role reader|writer|admin`, see `payctl key --help`): once
the store holds one, every request needs `Authorization: Bearer SECRET` (401, 10007), except
GET /_payctl/health and /_payctl/ready (open, for load balancers). reader: every GET and HEAD
(GET /openapi.json included); writer: and every create, update, delete and attach; admin: and
/_payctl/* (the worker, metrics). A role that does not allow the request is 403 (10010),
naming the role needed. Keys created or revoked by `payctl key` in another process, or through
another server on the same database, count from the next request, without a restart. The
token (--token-file FILE, PAYCTL_SERVE_TOKEN or --token: 16 or more printable ASCII characters,
no space, at least 4 distinct) is one more admin credential, named `token`; alone it requires
a credential on every request as keys do.

The edge: a body needs `Content-Type: application/json`. Without keys or token (the default,
on loopback only) the server refuses what a web page could send (403, 10011): an `Origin`
other than its own (http:// or https:// and the Host it was reached on) and a `Host` that is
not localhost, *.localhost, 127.0.0.0/8 or [::1]; curl and remote mode send no Origin and are
served. Authorization, Idempotency-Key, X-Payctl-Actor, Origin and Host sent twice are refused
(400).

TLS: --tls-cert FILE --tls-key FILE serve HTTPS (PEM; the key not readable by other users);
a file that cannot serve is refused at start (exit 2). Remote mode trusts a private CA with
--ca-cert FILE (PAYCTL_CA_CERT). To terminate TLS in a reverse proxy (nginx) instead, keep
serve on loopback with a token or keys and forward to it. --rate-limit N: N requests a second
per credential (per client address without one), bursts of N, then 429 with Retry-After
(10012) before anything runs; remote mode waits and sends again. Health and ready are not
limited.

The console: read-only HTML pages under /ui/ (profiles searched with the filters of `profile
list`, a profile with its addresses, masked instruments, programs and transactions, a
transaction with its parameters and its steps as a timeline), built on the same endpoints and
masked as the API masks; no JavaScript, nothing loaded from elsewhere, a strict
Content-Security-Policy. With keys or a token, a browser signs in at /ui/sign-in with a key
(reader or above) and gets a session cookie (HttpOnly, SameSite=Strict, Secure under TLS) that
lasts --ui-session seconds and ends with sign-out or the key's revocation; without either, the
loopback and Origin rules above apply. --no-ui turns it off (404).

Writes made with a key are audited with the key's name (`token` for the token), or
`NAME:ACTOR` with an `X-Payctl-Actor` header (at most 64 characters in all, else 400); without
keys and token, with the header's actor when given (1-64 characters once percent-decoded),
else with serve's own --actor. SYSTEM, the worker's, is never taken (400); remote mode sends
its --actor as the header. Once listening it prints `listening on http://ADDR:PORT` (or
https://) on stderr, then one access-log line per request unless --quiet: `TIME METHOD PATH
STATUS 1.2ms` (UTC; long digit runs of the path masked), or with --log-format json one object
per line with ts, method, path, status, ms, key (the credential's name, or null) and
request_id. A request whose client went away is finished and logged. SIGTERM or Ctrl-C stops
accepting, finishes the requests and the worker batch in hand, and exits 0.

Examples:
  payctl serve
  payctl serve --listen 127.0.0.1:0 --no-worker     # a free port; drive the worker by POST /_payctl/worker
  payctl serve                                      # then open http://127.0.0.1:8080/ui/
  payctl key create dashboards --role reader        # prints its secret once
  payctl key create ci --role admin --expires-in 90
  payctl serve --listen 0.0.0.0:8080                # keys in the store: every request needs one
  PAYCTL_TOKEN=pk_… PAYCTL_BASE_URL=http://payctl.internal:8080 payctl profile list
  openssl rand -hex 16 > token && chmod 600 token
  payctl serve --listen 0.0.0.0:8080 --token-file token
  PAYCTL_BASE_URL=http://127.0.0.1:8080 payctl profile list
  payctl serve --listen 0.0.0.0:8443 --token-file token --tls-cert cert.pem --tls-key key.pem \\
      --rate-limit 50 --log-format json
  PAYCTL_CA_CERT=ca.pem payctl --base-url https://payctl.internal:8443 profile list
  curl -fsS --cacert ca.pem https://payctl.internal:8443/_payctl/ready   # a readiness probe";

// The arguments of `payctl serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: a free one). Beyond loopback, API keys in the
    /// store (`payctl key create`) or a token (--token-file, PAYCTL_SERVE_TOKEN or --token) are
    /// required
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
    /// An admin credential named `token` (`Authorization: Bearer TOKEN`, compared in constant
    /// time), beside the store's API keys; with it every request needs a credential. 16 or more
    /// printable ASCII characters, no space, at least 4 distinct ones (`openssl rand -hex 16`).
    /// Every local user can read it in the process list: prefer --token-file or
    /// PAYCTL_SERVE_TOKEN
    #[arg(
        long,
        env = "PAYCTL_SERVE_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true,
        conflicts_with = "token_file"
    )]
    pub token: Option<String>,
    /// Read the token (as --token) from FILE: its first line, the line break after it
    /// dropped. The file must not be readable by other users (chmod 600 or 640)
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<std::path::PathBuf>,
    /// Run no background worker: leave it to `payctl worker` or to POST /_payctl/worker
    #[arg(long)]
    pub no_worker: bool,
    /// Seconds between passes of the background worker (0.01-86400)
    #[arg(long, default_value_t = 2.0, value_name = "SECS", conflicts_with = "no_worker", value_parser = super::worker::parse_interval)]
    pub worker_interval: f64,
    /// Deliver no webhooks: leave it to `payctl webhook deliver`
    #[arg(long)]
    pub no_webhooks: bool,
    /// Largest request body in bytes (larger: 413); the import's JSON Lines (POST
    /// /_payctl/customer-profiles/import) are streamed instead, up to 4 GiB
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=(64 << 20)))]
    pub max_body: u64,
    /// Seconds a client has to send its headers, and then its body (then the connection is closed, or
    /// 400); for the import's streamed body, each part of it
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = super::args::parse_secs)]
    pub request_timeout: f64,
    /// No access log on stderr
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The access log's format: text (`TIME METHOD PATH STATUS 1.2ms`) or json (one object
    /// per line: ts, method, path, status, ms, key, request_id)
    #[arg(long, value_enum, default_value_t = LogFormat::Text, value_name = "FORMAT")]
    pub log_format: LogFormat,
    /// Serve HTTPS with this certificate: a PEM file with the server's certificate, then any
    /// intermediate ones (needs --tls-key)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert: a PEM file (PKCS#8, PKCS#1 or SEC1) that other users
    /// cannot read (chmod 600)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// At most N requests a second per credential (token or key; without one, per client
    /// address), in bursts of up to N; more: 429 with Retry-After (10012). Health and
    /// readiness are never limited
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub rate_limit: Option<u32>,
    /// Serve no console: /ui/ answers 404 like any path without an endpoint
    #[arg(long)]
    pub no_ui: bool,
    /// Seconds a console sign-in lasts (its session cookie's Max-Age), on a server with API
    /// keys or a token: 1-604800 (a week), default 8 hours
    #[arg(long, default_value_t = 28800, value_name = "SECS", conflicts_with = "no_ui", value_parser = clap::value_parser!(u64).range(1..=604_800))]
    pub ui_session: u64,
}

impl ServeArgs {
    pub fn exec(self, g: &Global) -> Result<Response> {
        // Open once before listening: creates or upgrades the store (with
        // its notes) and fails early on a store that cannot be used.
        let token = match &self.token_file {
            Some(file) => Some(token_from_file(file)?),
            None => self.token.filter(|t| !t.is_empty()),
        };
        let flag = if self.token_file.is_some() {
            "--token-file"
        } else {
            "--token (PAYCTL_SERVE_TOKEN)"
        };
        if let Some(t) = &token {
            crate::output::mask::remember(t);
            check_token(flag, t)?;
        }
        // The worker writes as SYSTEM; no request may (`X-Payctl-Actor` neither).
        if g.actor.eq_ignore_ascii_case(crate::model::status::SYSTEM) {
            return Err(Error::usage(format!(
                "--actor {}: SYSTEM is the background worker's actor; serve's default actor \
                 must be another name",
                g.actor
            )));
        }
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(crate::api::tls::server_config(
                &format!("--tls-cert {}", cert.display()),
                &read_pem("--tls-cert", cert, false)?,
                &format!("--tls-key {}", key.display()),
                &read_pem("--tls-key", key, true)?,
            )?),
            _ => None,
        };
        if crate::model::id::seeded() {
            g.ui.err_line(
                "warning: PAYCTL_ID_SEED is set: ids come from a deterministic generator, the same \
                 on every run (a testing aid: never serve real data so)",
            );
        }
        drop(g.write()?);
        server::serve(server::Config {
            listen: self.listen,
            token,
            worker_interval: (!self.no_worker)
                .then(|| Duration::from_secs_f64(self.worker_interval)),
            max_body: self.max_body as usize,
            request_timeout: Duration::from_secs_f64(self.request_timeout.max(0.1)),
            quiet: self.quiet,
            actor: g.actor.clone(),
            store: Local {
                data_dir: g.data_dir.clone(),
                database_url: g.database_url.clone(),
                lock_timeout: g.lock_timeout,
                kept: Some(Default::default()),
            },
            ui: g.ui,
            tls,
            rate_limit: self.rate_limit.and_then(std::num::NonZeroU32::new),
            log_format: self.log_format,
            webhooks: (!self.no_webhooks).then(super::webhook::deliver_options),
            console: (!self.no_ui).then(|| crate::api::ui::Options {
                session: Duration::from_secs(self.ui_session),
            }),
        })?;
        Ok(Response::Raw(String::new()))
    }
}

/// Shortest token (characters).
pub const MIN_TOKEN: usize = 16;
/// Fewest distinct characters of a token: `aaaa…` and `abab…` are not secrets.
pub const MIN_TOKEN_DISTINCT: usize = 4;
/// Largest token file read (bytes): a token is a line, not a document.
const MAX_TOKEN_FILE: u64 = 4096;

/// The rule of a token: printable ASCII without space, at least
/// [`MIN_TOKEN`] characters of which [`MIN_TOKEN_DISTINCT`] distinct. Each
/// refusal says what is wrong, never the token.
pub fn check_token(flag: &str, token: &str) -> Result<()> {
    let rule = "a token is 16 or more printable ASCII characters, no space, at least 4 distinct \
                (e.g. `openssl rand -hex 16`)";
    let bad = |what: String| Err(Error::usage(format!("{flag}: {what}; {rule}")));
    if let Some(i) = token.find(['\n', '\r']) {
        return bad(format!(
            "the token holds a line break (after character {}); an HTTP header cannot carry it",
            token[..i].chars().count()
        ));
    }
    if let Some((i, _)) = token.char_indices().find(|(_, c)| !c.is_ascii()) {
        return bad(format!(
            "the token holds a non-ASCII character (character {}); an HTTP header carries ASCII only",
            token[..i].chars().count() + 1
        ));
    }
    if token.bytes().any(|b| b == b' ' || b == b'\t') {
        return bad("the token holds a space or a tab".into());
    }
    if token.bytes().any(|b| b.is_ascii_control()) {
        return bad("the token holds a control character".into());
    }
    let n = token.len();
    if n < MIN_TOKEN {
        return bad(format!("the token has {n} characters"));
    }
    let mut seen: Vec<u8> = token.bytes().collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.len() < MIN_TOKEN_DISTINCT {
        return bad(format!(
            "the token has only {} distinct character(s)",
            seen.len()
        ));
    }
    Ok(())
}

/// The token of `--token-file FILE`: its first line. Refused: a file that is
/// missing or unreadable, not a regular file, readable by other users,
/// larger than 4 KiB, not UTF-8, or empty.
fn token_from_file(file: &std::path::Path) -> Result<String> {
    let shown = file.display();
    let bad = |what: String| Error::usage(format!("--token-file {shown}: {what}"));
    let meta = std::fs::metadata(file).map_err(|e| bad(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(bad("is not a regular file".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o004 != 0 {
            return Err(bad(format!(
                "is readable by every user (mode {mode:03o}); `chmod 600` it (or 640 for a group)"
            )));
        }
    }
    if meta.len() > MAX_TOKEN_FILE {
        return Err(bad(format!(
            "is {} bytes; a token file holds one line (at most {MAX_TOKEN_FILE} bytes)",
            meta.len()
        )));
    }
    let bytes = std::fs::read(file).map_err(|e| bad(format!("cannot be read: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| bad("is not text (not UTF-8); a token is ASCII".into()))?;
    let token = match text.strip_suffix('\n') {
        Some(t) => t.strip_suffix('\r').unwrap_or(t),
        None => &text,
    };
    if token.is_empty() {
        return Err(bad("is empty; write the token on its first line".into()));
    }
    Ok(token.to_string())
}

/// Largest PEM file read (a certificate chain or a key): 1 MiB.
const MAX_PEM: u64 = 1 << 20;

/// The bytes of the PEM file of `flag`. Refused (usage, exit 2): a file
/// that is missing, unreadable, not a regular file or larger than 1 MiB,
/// and a `private` one (a key) that every user can read.
pub fn read_pem(flag: &str, file: &Path, private: bool) -> Result<Vec<u8>> {
    let shown = file.display();
    let bad = |what: String| Error::usage(format!("{flag} {shown}: {what}"));
    let meta = std::fs::metadata(file).map_err(|e| bad(format!("cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(bad("is not a regular file".into()));
    }
    #[cfg(unix)]
    if private {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o004 != 0 {
            return Err(bad(format!(
                "is readable by every user (mode {mode:03o}); `chmod 600` it (or 640 for a group)"
            )));
        }
    }
    if meta.len() > MAX_PEM {
        return Err(bad(format!(
            "is {} bytes; a PEM file of certificates or a key is far smaller (at most {MAX_PEM})",
            meta.len()
        )));
    }
    std::fs::read(file).map_err(|e| bad(format!("cannot be read: {e}")))
}
