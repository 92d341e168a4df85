//! `payctl serve`: the endpoint table over HTTP/1.1 (axum on tokio, hyper's
//! connection builder for the header limits). Each request is checked at the
//! edge (headers sent once; the API key or token, see [`super::auth`], or
//! without either what a web page could send: a foreign `Origin`, a `Host`
//! that is not loopback), matched against the table, its role checked, then
//! its body type and size and its query, and handed to [`endpoints::call`]
//! on a blocking thread, since the store is synchronous.
//! Answers are the envelopes of `-o json`, with the HTTP statuses of
//! [`super::status_of`], `Cache-Control: no-store`, and never the store's
//! path or the database's address (the server's log has them).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use http_body_util::BodyExt;
use serde_json::Value;

use super::Local;
use super::endpoints::{self, Backend, Method, Op, Params, Request, Route};
use crate::core::Ctx;
use crate::error::{ApiError, Error, Result, code};
use crate::output;

/// How `payctl serve` runs.
#[derive(Debug, Clone)]
pub struct Config {
    pub listen: SocketAddr,
    pub token: Option<String>,
    /// None: no background worker (`--no-worker`).
    pub worker_interval: Option<Duration>,
    pub max_body: usize,
    /// Time allowed to send the headers, and then the body.
    pub request_timeout: Duration,
    pub quiet: bool,
    /// The actor of writes that name none (`X-Payctl-Actor`).
    pub actor: String,
    pub store: Local,
    /// Where the listening line, the access log and the notes go (stderr).
    pub ui: crate::output::ui::Ui,
}

/// A line on stderr, through the [`Ui`](crate::output::ui::Ui).
macro_rules! say {
    ($ui:expr, $($arg:tt)*) => {
        $ui.err_line(format_args!($($arg)*))
    };
}

/// Largest request head (request line and headers): 64 KiB, then 431.
const MAX_HEAD: usize = 64 * 1024;
/// Longest actor name (characters), as `--actor`.
const MAX_ACTOR: usize = crate::limits::MAX_ACTOR;
/// Longest `X-Payctl-Actor` as sent: [`MAX_ACTOR`] characters of 4 UTF-8
/// bytes, each byte percent-encoded (`%F0%9F%98%80`, 12 bytes a character).
pub const MAX_ACTOR_HEADER: usize = 4 * 3 * MAX_ACTOR;
/// Headers whose second copy would be ignored: refused when sent twice
/// (RFC 9112 refuses a second `Host` too). Every `Content-Type` sent must
/// be JSON's (see [`not_json`]).
const ONCE: [&str; 5] = [
    "Authorization",
    "X-Payctl-Actor",
    "Idempotency-Key",
    "Origin",
    "Host",
];
/// Longest `Idempotency-Key`.
const MAX_IDEMPOTENCY_KEY: usize = crate::core::idempotency::MAX_KEY;
/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(30);

struct App {
    cfg: Config,
    /// The token and the store's API keys (see [`super::auth`]).
    auth: Arc<super::auth::Auth>,
    /// Set on SIGTERM / Ctrl-C: the worker stops after the batch in hand.
    stop: AtomicBool,
    /// What an answer never shows, longest first, with the words it says
    /// instead: the store's directory, the database's address.
    hidden: Vec<(String, &'static str)>,
    /// Requests being answered, their connections gone or not (see
    /// [`handle`]): shutdown waits for them before it closes the store.
    in_flight: std::sync::atomic::AtomicUsize,
}

/// One request counted in [`App::in_flight`] while it lives.
struct InFlight(Arc<App>);

impl InFlight {
    fn new(app: &Arc<App>) -> Self {
        app.in_flight.fetch_add(1, Ordering::SeqCst);
        InFlight(app.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Run the server until SIGTERM or Ctrl-C; Ok once everything in flight is done.
pub fn serve(cfg: Config) -> Result<()> {
    if !cfg.listen.ip().is_loopback()
        && cfg.token.is_none()
        && !super::auth::store_has_keys(&cfg.store)?
    {
        return Err(Error::usage(format!(
            "--listen {}: serving beyond loopback needs API keys in the store (`payctl key \
             create NAME --role ROLE`) or a token (--token-file FILE, PAYCTL_SERVE_TOKEN or \
             --token); every request must then carry `Authorization: Bearer SECRET`",
            cfg.listen
        )));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::store(code::STORE_IO, format!("cannot start the runtime: {e}")))?;
    rt.block_on(run(cfg))
}

async fn run(cfg: Config) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| Error::usage(format!("--listen {}: cannot listen: {e}", cfg.listen)))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::usage(format!("--listen {}: {e}", cfg.listen)))?;
    let hidden = hidden_texts(&cfg.store);
    let app = Arc::new(App {
        auth: Arc::new(super::auth::Auth::new(cfg.token.as_deref())),
        cfg,
        stop: AtomicBool::new(false),
        hidden,
        in_flight: Default::default(),
    });
    let router = axum::Router::new().fallback(handle).with_state(app.clone());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let worker = app
        .cfg
        .worker_interval
        .map(|every| tokio::spawn(worker_loop(app.clone(), every, stop_rx)));
    say!(app.cfg.ui, "listening on http://{addr}");

    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let signal = shutdown_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        // Out of descriptors and the like: note it, keep serving.
                        say!(app.cfg.ui, "note: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let svc = hyper_util::service::TowerToHyperService::new(router.clone());
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(app.cfg.request_timeout)
                    .max_buf_size(MAX_HEAD)
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc);
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
            _ = &mut signal => break,
        }
    }
    drop(listener);
    if !app.cfg.quiet {
        say!(
            app.cfg.ui,
            "note: stopping: finishing the requests in flight"
        );
    }
    app.stop.store(true, Ordering::SeqCst);
    let _ = stop_tx.send(true);
    if let Some(w) = worker {
        let _ = w.await;
    }
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        say!(
            app.cfg.ui,
            "note: requests still open after {} s were dropped",
            DRAIN.as_secs()
        );
    }
    // A request whose client went away is not one of graceful's
    // connections any more: its work is finished before the store closes.
    let deadline = Instant::now() + DRAIN;
    while app.in_flight.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The creates' last journal applied: the store is left as a CLI
    // write leaves it.
    if let Some(kept) = app.cfg.store.kept.clone() {
        let _ = tokio::task::spawn_blocking(move || kept.close()).await;
    }
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// The background work every `every`, until shutdown; the batch in hand is
/// finished and committed first.
async fn worker_loop(app: Arc<App>, every: Duration, mut stop: tokio::sync::watch::Receiver<bool>) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
        let a = app.clone();
        let pass = tokio::task::spawn_blocking(move || {
            let ctx = Ctx::new(crate::model::status::SYSTEM, chrono::Utc::now().naive_utc());
            crate::core::worker::run_once(&|| a.cfg.store.write(), &ctx, &a.stop)
        })
        .await;
        match pass {
            Ok(Ok(run)) => {
                if !run.summary.is_empty() && !app.cfg.quiet {
                    say!(
                        app.cfg.ui,
                        "worker: {}",
                        serde_json::to_string(&run.summary).unwrap_or_default()
                    );
                }
                for e in &run.held {
                    say!(
                        app.cfg.ui,
                        "note: worker: {}",
                        output::mask::mask_text(&e.message)
                    );
                }
            }
            Ok(Err(e)) => say!(
                app.cfg.ui,
                "note: worker: {}; retrying in {} s",
                output::mask::mask_text(&e.to_string()),
                every.as_secs_f64()
            ),
            Err(e) => say!(app.cfg.ui, "note: worker: {e}"),
        }
        if app.stop.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// Every request: answer, then one access-log line. Both run in a task of
/// their own: a client that goes away drops this handler, never the work
/// (a create it sent is committed, and logged, all the same).
async fn handle(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
) -> axum::response::Response {
    let counted = InFlight::new(&app);
    match tokio::spawn(answer_and_log(app, req, counted)).await {
        Ok(resp) => resp,
        Err(e) => error_reply(&Error::store(
            code::STORE_IO,
            format!("the request failed inside the server: {e}"),
        )),
    }
}

async fn answer_and_log(
    app: Arc<App>,
    req: axum::extract::Request,
    _counted: InFlight,
) -> axum::response::Response {
    let start = Instant::now();
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let resp = answer(&app, req).await;
    // A change committed but not finished (a full disk): its answer was the
    // change's; this says what is left for the next opening of the store.
    for w in crate::store::journal::take_warnings() {
        say!(app.cfg.ui, "warning: {}", output::mask::mask_text(&w));
    }
    if !app.cfg.quiet {
        say!(
            app.cfg.ui,
            "{} {} {} {:.1}ms",
            shown(&method, 16),
            shown(&masked_path(&path), 200),
            resp.status().as_u16(),
            start.elapsed().as_secs_f64() * 1000.0
        );
    }
    resp
}

/// Text of a client's, shortened and escaped for a log line.
fn shown(s: &str, max: usize) -> String {
    let mut t: String = s
        .chars()
        .take(max)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if s.chars().count() > max {
        t.push('…');
    }
    t
}

/// A requested path as the access log shows it: each segment as sent,
/// unless, once decoded, it has a run of digits that the messages mask (see
/// [`crate::error::shown_id`]): then that segment as they show it.
fn masked_path(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let decoded = endpoints::percent_decode(seg, false).unwrap_or_else(|| seg.to_string());
            let masked = output::mask::mask_text(&decoded);
            if masked == decoded {
                seg.to_string()
            } else {
                masked
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every answer is an envelope; none may be kept by a cache (they carry
/// records, or say what happened to a request).
fn json_reply(status: u16, body: &Value) -> axum::response::Response {
    let text = serde_json::to_string(body).unwrap_or_default();
    let mut r = axum::response::Response::new(Body::from(text));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn error_reply(err: &Error) -> axum::response::Response {
    let status = super::status_of(err);
    let mut r = json_reply(status, &output::error_envelope(err));
    if status == 503 {
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    if status == 401 {
        r.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"payctl\""),
        );
    }
    r
}

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}

/// The actor of `X-Payctl-Actor` (None: not sent): visible ASCII,
/// percent-encoded UTF-8 (remote mode encodes it so that any `--actor`
/// travels), 1-64 characters once decoded with the rules of `--actor`, and
/// never the worker's SYSTEM.
fn actor_of(headers: &HeaderMap) -> Result<Option<String>> {
    const NAME: &str = "X-Payctl-Actor";
    let bad = |why: String| refused(code::INVALID_VALUE, format!("header {NAME}: {why}"));
    let Some(v) = headers.get(NAME) else {
        return Ok(None);
    };
    let rule = format!(
        "an actor is 1-{MAX_ACTOR} characters, sent as visible ASCII with any other character \
         percent-encoded as UTF-8 (`%C3%A9` for é), so at most {MAX_ACTOR_HEADER} bytes as sent"
    );
    let raw = v
        .to_str()
        .ok()
        .filter(|t| t.chars().all(|c| !c.is_control()))
        .ok_or_else(|| bad(format!("holds a byte that is not visible ASCII; {rule}")))?;
    let raw = raw.trim();
    if raw.len() > MAX_ACTOR_HEADER {
        return Err(bad(format!("is {} bytes as sent; {rule}", raw.len())));
    }
    let actor = endpoints::percent_decode(raw, false)
        .ok_or_else(|| bad(format!("is not percent-encoded UTF-8; {rule}")))?;
    let n = actor.chars().count();
    if n == 0 || n > MAX_ACTOR {
        return Err(bad(format!(
            "must be 1-{MAX_ACTOR} characters once percent-decoded (is {n})"
        )));
    }
    crate::core::rules::clean_text(&actor).map_err(bad)?;
    if actor.eq_ignore_ascii_case(crate::model::status::SYSTEM) {
        return Err(bad(format!(
            "`{actor}` is the background worker's actor; no request may write as it"
        )));
    }
    Ok(Some(actor))
}

/// A header that counts sent twice (a second `Authorization` or
/// `Idempotency-Key` would be ignored silently): 400 naming it.
fn sent_once(headers: &HeaderMap) -> Result<()> {
    for name in ONCE {
        if headers.get_all(name).iter().nth(1).is_some() {
            return Err(refused(
                code::INVALID_VALUE,
                format!("header {name}: sent more than once; send it once"),
            ));
        }
    }
    Ok(())
}

/// A `Host` (or an origin's host) as `(name or address, port)`, lower case,
/// without a trailing dot; None when it is not one.
fn host_port(text: &str) -> Option<(String, Option<u16>)> {
    let text = text.trim().to_ascii_lowercase();
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (h, after) = rest.split_once(']')?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (format!("[{h}]"), port)
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (text.clone(), None),
        }
    };
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    let host = host.strip_suffix('.').unwrap_or(&host).to_string();
    (!host.is_empty()).then_some((host, port))
}

/// `localhost`, `*.localhost`, 127.0.0.0/8 or `[::1]`.
fn is_loopback_host(host: &str) -> bool {
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        return v6.parse::<std::net::Ipv6Addr>().is_ok_and(|a| {
            a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        });
    }
    host.parse::<std::net::Ipv4Addr>()
        .is_ok_and(|a| a.is_loopback())
}

/// A server without a token refuses what a web page could send (403,
/// 10011): a `Host` that is not loopback (a DNS rebinding: a name of the
/// page's that now resolves to 127.0.0.1) and an `Origin` other than the
/// server's own, `http://` + the `Host` it was reached on (`null`
/// included). Requests without `Origin` (curl, remote mode) pass.
fn cross_site(headers: &HeaderMap) -> Result<()> {
    let deny = |what: String| refused(code::CROSS_SITE, what);
    let why = "a server without --token answers only what no web page can send; \
               give the server a --token-file to be reached otherwise";
    let host = match headers.get(header::HOST) {
        None => None,
        Some(v) => {
            let text = v.to_str().unwrap_or("");
            match host_port(text) {
                Some((h, p)) if is_loopback_host(&h) => Some((h, p)),
                _ => {
                    return Err(deny(format!(
                        "header Host: `{}` is not a loopback name or address (localhost, \
                         *.localhost, 127.0.0.0/8, [::1]); {why}",
                        shown(text, 100)
                    )));
                }
            }
        }
    };
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let text = origin.to_str().unwrap_or("");
    let own = |h: &(String, Option<u16>)| {
        let o = text
            .strip_prefix("http://")
            .or_else(|| text.strip_prefix("HTTP://"))
            .filter(|rest| !rest.contains('/'))
            .and_then(host_port);
        o.is_some_and(|(oh, op)| oh == h.0 && op.unwrap_or(80) == h.1.unwrap_or(80))
    };
    if host.as_ref().is_some_and(own) {
        return Ok(());
    }
    Err(deny(format!(
        "header Origin: `{}` is not this server's own origin ({}); {why}",
        shown(text, 100),
        match headers.get(header::HOST).and_then(|v| v.to_str().ok()) {
            Some(h) => format!("http://{}", shown(h, 100)),
            None => "the request has no Host".into(),
        }
    )))
}

/// What the store's directory and the database's address are called in an
/// answer (see [`App::public`]).
fn hidden_texts(store: &super::Local) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let dir = &store.data_dir;
    for d in [std::path::absolute(dir).ok(), dir.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        let d = d.display().to_string();
        let d = d.trim_end_matches('/');
        if d.len() > 1 {
            out.push((format!("{d}/"), "the store's "));
            out.push((d.to_string(), "the store"));
        }
    }
    if let Some(url) = &store.database_url
        && let Ok(t) = crate::store::pg::Target::parse(url)
    {
        out.push((t.shown.clone(), "the database"));
        // postgresql://[user@]host:port/db
        if let Some(authority) = t
            .shown
            .strip_prefix("postgresql://")
            .and_then(|r| r.split_once('/'))
            .map(|(a, _)| a)
        {
            let (user, host_port) = match authority.rsplit_once('@') {
                Some((u, hp)) => (Some(u), hp),
                None => (None, authority),
            };
            out.push((host_port.to_string(), "the database's host"));
            if let Some((host, _)) = host_port.rsplit_once(':')
                && host.len() > 1
            {
                out.push((host.to_string(), "the database's host"));
            }
            if let Some(u) = user.filter(|u| !u.is_empty()) {
                out.push((format!("{u}@"), ""));
                out.push((format!("user \"{u}\""), "the user"));
            }
        }
    }
    out.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
    out.dedup();
    out
}

impl App {
    /// An error as an answer shows it: the store's directory and the
    /// database's address in generic words. A store's failure is logged
    /// whole (masked) first: the operator sees what the client does not.
    fn public(&self, e: &Error) -> Error {
        if e.kind == crate::error::ErrorKind::Store {
            say!(
                self.cfg.ui,
                "note: {}",
                output::mask::mask_text(&e.to_string())
            );
        }
        let mut e = e.clone();
        for a in &mut e.errors {
            for (text, words) in &self.hidden {
                if a.message.contains(text.as_str()) {
                    a.message = a.message.replace(text.as_str(), words);
                }
            }
        }
        e
    }
}

/// The sensitive values of a request body (as `output::mask` knows them),
/// longer than their last 4: the last guard on this request's messages.
fn sensitive_values(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let text = match val {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                match text {
                    Some(t) if output::mask::SENSITIVE.contains(&k.as_str()) => {
                        if t.chars().count() > 4 {
                            out.push(t);
                        }
                    }
                    _ => sensitive_values(val, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| sensitive_values(x, out)),
        _ => {}
    }
}

/// Reduce every one of `secrets` in the envelope's messages to its last 4.
fn mask_messages(envelope: &mut Value, secrets: &[String]) {
    let mut secrets: Vec<&String> = secrets.iter().collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    if let Some(errors) = envelope["errors"].as_array_mut() {
        for e in errors {
            if let Some(m) = e["message"].as_str() {
                let mut m = m.to_string();
                for s in &secrets {
                    m = m.replace(s.as_str(), &format!("…{}", output::mask::last4(s)));
                }
                e["message"] = Value::String(m);
            }
        }
    }
}

/// A header as text: None when absent, 400 when not visible ASCII or too long.
fn header_text(headers: &HeaderMap, name: &str, max: usize) -> Result<Option<String>> {
    let Some(v) = headers.get(name) else {
        return Ok(None);
    };
    let text = v
        .to_str()
        .ok()
        .filter(|t| !t.is_empty() && t.len() <= max && t.chars().all(|c| !c.is_control()))
        .ok_or_else(|| {
            refused(
                code::INVALID_VALUE,
                format!("header {name}: must be 1-{max} visible ASCII characters"),
            )
        })?;
    Ok(Some(text.trim().to_string()))
}

async fn answer(app: &Arc<App>, req: axum::extract::Request) -> axum::response::Response {
    // A refusal before the body was read leaves it unread on the connection:
    // say that the connection closes, so that no client reuses it.
    let h = req.headers();
    let has_body = h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    match prepare(app, req).await {
        Ok(Prepared::Call(request, ctx)) => {
            let mut secrets = Vec::new();
            if let Some(b) = &request.body {
                sensitive_values(b, &mut secrets);
            }
            let backend = app.cfg.store.clone();
            // A dry run creates nothing: 200 with the record as it would be.
            let creates = request.endpoint.creates() && !request.dry_run;
            let r = tokio::task::spawn_blocking(move || {
                endpoints::call_replayed(&backend, &ctx, &request)
            })
            .await;
            match r {
                Ok(Ok((resp, replayed))) => {
                    let mut r = json_reply(
                        if creates { 201 } else { 200 },
                        &output::success_envelope(&resp),
                    );
                    if replayed {
                        r.headers_mut()
                            .insert("idempotent-replayed", HeaderValue::from_static("true"));
                    }
                    r
                }
                Ok(Err(e)) => {
                    let e = app.public(&e);
                    let mut r = error_reply(&e);
                    if !secrets.is_empty() {
                        let mut env = output::error_envelope(&e);
                        mask_messages(&mut env, &secrets);
                        *r.body_mut() = Body::from(serde_json::to_string(&env).unwrap_or_default());
                        r.headers_mut().remove(header::CONTENT_LENGTH);
                    }
                    r
                }
                Err(e) => error_reply(&app.public(&Error::store(
                    code::STORE_IO,
                    format!("the request failed inside the server: {e}"),
                ))),
            }
        }
        Ok(Prepared::Document(secured)) => {
            let doc = if secured {
                super::openapi::document_with_token()
            } else {
                super::openapi::document()
            };
            json_reply(200, &doc)
        }
        Err(mut reply) => {
            if has_body {
                reply
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            reply
        }
    }
}

enum Prepared {
    Call(Box<Request>, Ctx),
    /// The OpenAPI document; whether the server requires a credential.
    Document(bool),
}

/// Everything before the store: credential, route, role, query, headers, body.
async fn prepare(
    app: &Arc<App>,
    req: axum::extract::Request,
) -> std::result::Result<Prepared, axum::response::Response> {
    let fail = |e: Error| error_reply(&e);
    sent_once(req.headers()).map_err(fail)?;
    let caller = app
        .auth
        .caller(
            &app.cfg.store,
            req.method(),
            req.uri().path(),
            req.headers(),
        )
        .await
        .map_err(|e| fail(app.public(&e)))?;
    if caller == super::auth::Caller::Open {
        cross_site(req.headers()).map_err(fail)?;
    }
    let (parts, body) = req.into_parts();
    let raw_path = parts.uri.path();
    let mut segments = Vec::new();
    for s in raw_path.split('/').skip(1) {
        match endpoints::percent_decode(s, false) {
            Some(d) if !d.contains('\0') => segments.push(d),
            _ => {
                return Err(fail(refused(
                    code::INVALID_VALUE,
                    "path: a segment is not valid UTF-8 once decoded, or holds NUL",
                )));
            }
        }
    }
    // HEAD is GET without the body (RFC 9110 9.3.2); hyper leaves the body out.
    let method = if parts.method == axum::http::Method::HEAD {
        Some(Method::Get)
    } else {
        Method::parse(parts.method.as_str())
    };
    let (endpoint, params) = match endpoints::route(method, &segments) {
        Route::Found(e, p) => (e, p),
        Route::NotFound => {
            return Err(fail(refused(
                code::ROUTE_NOT_FOUND,
                format!(
                    "no endpoint has the path {}; see GET /openapi.json",
                    shown(raw_path, 100)
                ),
            )));
        }
        Route::MethodNotAllowed(allowed) => {
            let mut allow: Vec<&str> = allowed.iter().map(|m| m.as_str()).collect();
            // HEAD is served wherever GET is (see above).
            if allow.contains(&"GET") {
                allow.push("HEAD");
            }
            let mut r = fail(refused(
                code::METHOD_NOT_ALLOWED,
                format!(
                    "{} is not served at {}; allowed: {}",
                    shown(parts.method.as_str(), 16),
                    shown(raw_path, 100),
                    allow.join(", ")
                ),
            ));
            if let Ok(v) = HeaderValue::from_str(&allow.join(", ")) {
                r.headers_mut().insert(header::ALLOW, v);
            }
            return Err(r);
        }
    };
    super::auth::allow(
        &caller,
        endpoint,
        &shown(parts.method.as_str(), 16),
        &shown(raw_path, 100),
    )
    .map_err(fail)?;
    if endpoint.op == Op::OpenApi {
        return Ok(Prepared::Document(caller.secured()));
    }
    let mut pairs = Vec::new();
    for pair in parts
        .uri
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match (
            endpoints::percent_decode(k, true),
            endpoints::percent_decode(v, true),
        ) {
            (Some(k), Some(v)) => pairs.push((k, v)),
            _ => {
                return Err(fail(refused(
                    code::INVALID_VALUE,
                    "query: not valid UTF-8 once decoded",
                )));
            }
        }
    }
    let query = Params::from_pairs(&pairs, endpoint.query).map_err(fail)?;
    let actor = super::auth::actor(
        &caller,
        actor_of(&parts.headers).map_err(fail)?,
        &app.cfg.actor,
    )
    .map_err(fail)?;
    let idempotency_key =
        header_text(&parts.headers, "Idempotency-Key", MAX_IDEMPOTENCY_KEY).map_err(fail)?;
    if let Some(k) = &idempotency_key {
        crate::core::idempotency::validate_key("header Idempotency-Key", k).map_err(fail)?;
    }
    let body = if endpoint.body == endpoints::Body::None {
        None
    } else {
        if let Some(refusal) = not_json(&parts.headers) {
            return Err(refusal);
        }
        let bytes = read_body(app, &parts.headers, body).await.map_err(fail)?;
        Some(crate::core::body::parse_body_only(&bytes).map_err(fail)?)
    };
    let ctx = Ctx::new(&actor, chrono::Utc::now().naive_utc());
    let dry_run =
        match header_text(&parts.headers, super::client::DRY_RUN_HEADER, 5).map_err(fail)? {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(_) => {
                return Err(fail(refused(
                    code::INVALID_VALUE,
                    "header Payctl-Dry-Run: must be `true` or `false`",
                )));
            }
        };
    let mut request = Request::to(endpoint)
        .query(query)
        .idempotency_key(idempotency_key)
        .dry_run(dry_run);
    request.params = params;
    request.body = body;
    Ok(Prepared::Call(Box::new(request), ctx))
}

/// The 415 (10005) of a body sent as anything but JSON: only
/// `application/json` or `application/*+json` (any parameters) is read. An
/// absent `Content-Type` is refused too: a web page can send a body without
/// one to any address (`fetch` with `mode: "no-cors"`), never with JSON's.
fn not_json(headers: &HeaderMap) -> Option<axum::response::Response> {
    if !headers.contains_key(header::CONTENT_TYPE) {
        let err = refused(
            code::MALFORMED,
            "header Content-Type: missing; send the body with `Content-Type: application/json`",
        );
        return Some(json_reply(415, &output::error_envelope(&err)));
    }
    headers
        .get_all(header::CONTENT_TYPE)
        .iter()
        .find_map(not_json_type)
}

fn not_json_type(v: &HeaderValue) -> Option<axum::response::Response> {
    let media = v
        .to_str()
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let json = media == "application/json"
        || (media.starts_with("application/") && media.ends_with("+json"));
    if json {
        return None;
    }
    let err = refused(
        code::MALFORMED,
        format!(
            "header Content-Type: `{}` is not JSON; send the body as `Content-Type: application/json`",
            shown(v.to_str().unwrap_or("(not visible ASCII)"), 100)
        ),
    );
    Some(json_reply(415, &output::error_envelope(&err)))
}

/// The body, at most `--max-body` bytes (413), within the request timeout.
async fn read_body(app: &Arc<App>, headers: &HeaderMap, body: Body) -> Result<Vec<u8>> {
    let max = app.cfg.max_body;
    let too_large = || {
        refused(
            code::BODY_TOO_LARGE,
            format!("the request body is larger than the server's --max-body of {max} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max as u64) {
        return Err(too_large());
    }
    let read = async {
        let mut body = body;
        let mut buf = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame
                .map_err(|e| refused(code::MALFORMED, format!("body: could not be read ({e})")))?;
            if let Ok(data) = frame.into_data() {
                if buf.len() + data.len() > max {
                    return Err(too_large());
                }
                buf.extend_from_slice(&data);
            }
        }
        Ok(buf)
    };
    match tokio::time::timeout(app.cfg.request_timeout, read).await {
        Ok(r) => r,
        Err(_) => Err(refused(
            code::MALFORMED,
            format!(
                "body: not received within {} s",
                app.cfg.request_timeout.as_secs_f64()
            ),
        )),
    }
}
