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
use axum::http::{HeaderValue, header};

use super::Local;
use super::access_log::{self, LogFormat, shown};
use super::endpoints::{self, Method, Op, Params, Request, Route};
use super::reply::{bytes_reply, error_reply, json_reply};
use crate::core::Ctx;
use crate::error::{ApiError, Error, Result, code};
use crate::output::{self, Response};

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
    /// HTTPS with this (`--tls-cert`, `--tls-key`); None: plain HTTP.
    pub tls: Option<Arc<rustls::ServerConfig>>,
    /// `--rate-limit`: requests a second per credential (see [`super::limit`]).
    pub rate_limit: Option<std::num::NonZeroU32>,
    pub log_format: LogFormat,
    /// None: no webhook delivery (`--no-webhooks`).
    pub webhooks: Option<crate::core::deliver::Options>,
    /// The console under `/ui/` (None: `--no-ui`; see [`super::ui`]).
    pub console: Option<super::ui::Options>,
}

/// A line on stderr, through the [`Ui`](crate::output::ui::Ui).
macro_rules! say {
    ($ui:expr, $($arg:tt)*) => {
        $ui.err_line(format_args!($($arg)*))
    };
}

/// Largest request head (request line and headers): 64 KiB, then 431.
const MAX_HEAD: usize = 64 * 1024;
pub use super::headers::MAX_ACTOR_HEADER;
use super::headers::{actor_of, sent_once};
/// Longest `Idempotency-Key`.
const MAX_IDEMPOTENCY_KEY: usize = crate::core::idempotency::MAX_KEY;
/// How long shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(30);

struct App {
    cfg: Config,
    /// The token and the store's API keys (see [`super::auth`]).
    auth: Arc<super::auth::Auth>,
    /// Set on SIGTERM / Ctrl-C: the worker stops after the batch in hand.
    stop: Arc<AtomicBool>,
    /// What an answer never shows, longest first, with the words it says
    /// instead: the store's directory, the database's address.
    hidden: Vec<(String, &'static str)>,
    /// Requests being answered, their connections gone or not (see
    /// [`handle`]): shutdown waits for them before it closes the store.
    in_flight: std::sync::atomic::AtomicUsize,
    limiter: Option<super::limit::Limiter>,
    console: Option<super::ui::Console>,
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
    super::metrics::install()?;
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
    let hidden = super::hide::hidden_texts(&cfg.store);
    let cfg_limit = cfg.rate_limit;
    let auth = Arc::new(super::auth::Auth::new(cfg.token.as_deref()));
    let console = super::ui::Console::of(&cfg, &auth);
    let app = Arc::new(App {
        auth,
        console,
        cfg,
        stop: Arc::new(AtomicBool::new(false)),
        hidden,
        in_flight: Default::default(),
        limiter: cfg_limit.map(super::limit::Limiter::new),
    });
    let router = axum::Router::new().fallback(handle).with_state(app.clone());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let stopping = stop_rx.clone();
    let worker = app.cfg.worker_interval.map(|every| {
        tokio::spawn(super::background::worker_loop(
            app.cfg.store.clone(),
            app.stop.clone(),
            (app.cfg.quiet, app.cfg.ui),
            every,
            stop_rx,
        ))
    });
    let hooks = super::deliverer::start(&app.cfg, &app.stop);
    tokio::spawn(super::metrics::upkeep());
    say!(app.cfg.ui, "listening on {}://{addr}", app.scheme());

    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let signal = super::background::shutdown_signal();
    tokio::pin!(signal);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        // Out of descriptors and the like: note it, keep serving.
                        say!(app.cfg.ui, "note: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let mut http = hyper::server::conn::http1::Builder::new();
                http.timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(app.cfg.request_timeout)
                    .max_buf_size(MAX_HEAD);
                let conn = super::tls::serve_connection(
                    stream,
                    app.cfg.tls.clone(),
                    http,
                    super::tls::service(&router, peer),
                    (graceful.watcher(), stopping.clone()),
                    app.cfg.request_timeout,
                );
                let app = app.clone();
                tokio::spawn(async move {
                    if let Err(why) = conn.await && !app.cfg.quiet {
                        say!(app.cfg.ui, "note: {peer}: TLS handshake failed: {why}");
                    }
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
    super::deliverer::finish(hooks).await;
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
    mut req: axum::extract::Request,
    _counted: InFlight,
) -> axum::response::Response {
    let seen = access_log::Seen::begin(&mut req);
    let mut resp = match app.limiter.as_ref().and_then(|l| l.check(&req)) {
        Some(over) => error_reply(&over),
        None => match &app.console {
            Some(console) if super::ui::owns(req.uri().path()) => console.answer(req).await,
            _ => answer(&app, req).await,
        },
    };
    // A change committed but not finished (a full disk): its answer was the
    // change's; this says what is left for the next opening of the store.
    let warnings = app
        .cfg
        .store
        .kept
        .as_ref()
        .map(|k| k.outcomes.take_warnings());
    for w in warnings.unwrap_or_default() {
        say!(app.cfg.ui, "warning: {}", output::mask::mask_text(&w));
    }
    super::metrics::request(&seen.method, &seen.path, &resp, seen.elapsed());
    seen.end(&mut resp, app.cfg.log_format, app.cfg.quiet, &app.cfg.ui);
    resp
}

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}

impl App {
    /// `https` with `--tls-cert`, else `http`.
    fn scheme(&self) -> &'static str {
        if self.cfg.tls.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// An error as an answer shows it (see [`super::hide::public`]).
    fn public(&self, e: &Error) -> Error {
        super::hide::public(&self.hidden, &self.cfg.ui, e)
    }
}

async fn answer(app: &Arc<App>, req: axum::extract::Request) -> axum::response::Response {
    // A refusal before the body was read leaves it unread on the connection:
    // say that the connection closes, so that no client reuses it.
    let h = req.headers();
    let has_body = h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    match prepare(app, req).await {
        Ok(Prepared::Kept(body)) => bytes_reply(200, body),
        Ok(Prepared::Call(request, ctx, ticket)) => {
            let mut secrets = Vec::new();
            if let Some(b) = &request.body {
                super::hide::sensitive_values(b, &mut secrets);
            }
            let backend = app.cfg.store.clone();
            let upload = request.upload.clone();
            // A dry run creates nothing: 200 with the record as it would be.
            let creates = request.endpoint.creates() && !request.dry_run;
            let r = tokio::task::spawn_blocking(move || {
                endpoints::call_replayed(&backend, &ctx, &request)
            })
            .await;
            match r {
                Ok(Ok((Response::Spooled(spool), _))) => {
                    super::upload::reply(spool, |e| error_reply(&app.public(e)))
                }
                Ok(Ok((resp, replayed))) => {
                    let body: axum::body::Bytes =
                        serde_json::to_vec(&output::success_envelope(&resp))
                            .unwrap_or_default()
                            .into();
                    if let Some(t) = ticket {
                        t.keep(&app.cfg.store, body.clone());
                    }
                    let mut r = bytes_reply(if creates { 201 } else { 200 }, body);
                    if replayed {
                        r.headers_mut()
                            .insert("idempotent-replayed", HeaderValue::from_static("true"));
                    }
                    r
                }
                Ok(Err(e)) => {
                    // A body the server stopped receiving: that is the error.
                    let e = upload.and_then(|u| u.failure()).unwrap_or(e);
                    let e = app.public(&e);
                    let mut r = error_reply(&e);
                    if !secrets.is_empty() {
                        let mut env = output::error_envelope(&e);
                        super::hide::mask_messages(&mut env, &secrets);
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
        Ok(Prepared::Probe(Op::Metrics)) => super::probe::metrics(&app.cfg.store).await,
        Ok(Prepared::Probe(_)) => match super::probe::ready(&app.cfg.store, &app.cfg.actor).await {
            Ok(resp) => json_reply(200, &output::success_envelope(&resp)),
            Err(e) => error_reply(&app.public(&e)),
        },
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
    /// With the ticket to keep its answer (see [`super::cache`]).
    Call(Box<Request>, Ctx, Option<super::cache::Ticket>),
    /// The answer kept (see [`super::cache`]).
    Kept(axum::body::Bytes),
    /// The OpenAPI document; whether the server requires a credential.
    Document(bool),
    /// `/_payctl/ready` or `/_payctl/metrics` (see [`super::probe`]).
    Probe(Op),
}

/// Everything before the store: credential, route, role, query, headers, body.
async fn prepare(
    app: &Arc<App>,
    req: axum::extract::Request,
) -> std::result::Result<Prepared, axum::response::Response> {
    // Read before the store is (see `cache`): once for the key and the
    // answer; not for the probes, which must not wait for the store.
    let probe = (req.method() == axum::http::Method::GET
        || req.method() == axum::http::Method::HEAD)
        && super::auth::OPEN_PATHS.contains(&req.uri().path());
    let stamps = match probe {
        true => None,
        false => {
            let keys = req.headers().contains_key(header::AUTHORIZATION);
            app.cfg.store.stamps(keys).await
        }
    };
    let fail = |e: Error| error_reply(&e);
    sent_once(req.headers()).map_err(fail)?;
    let caller = app
        .auth
        .caller(
            &app.cfg.store,
            stamps.map(|s| s.keys),
            req.method(),
            req.uri().path(),
            req.headers(),
        )
        .await
        .map_err(|e| fail(app.public(&e)))?;
    if let super::auth::Caller::Key { name, .. } = &caller {
        access_log::Caller::name(req.extensions(), name);
    }
    if caller == super::auth::Caller::Open {
        super::origin::cross_site(req.headers(), app.scheme()).map_err(fail)?;
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
    super::auth::allow(&caller, endpoint, parts.method.as_str(), raw_path).map_err(fail)?;
    match endpoint.op {
        Op::OpenApi => return Ok(Prepared::Document(caller.secured())),
        Op::Ready | Op::Metrics => return Ok(Prepared::Probe(endpoint.op)),
        _ => {}
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
        super::body::header_text(&parts.headers, "Idempotency-Key", MAX_IDEMPOTENCY_KEY)
            .map_err(fail)?;
    if let Some(k) = &idempotency_key {
        crate::core::idempotency::validate_key("header Idempotency-Key", k).map_err(fail)?;
    }
    let mut upload = None;
    let body = if endpoint.body == endpoints::Body::None {
        None
    } else if endpoint.body == endpoints::Body::ProfileLines {
        // Streamed to the import as it reads it (see `upload`).
        if let Some(e) = super::upload::not_json_lines(&parts.headers) {
            return Err(json_reply(415, &output::error_envelope(&e)));
        }
        let idle = app.cfg.request_timeout;
        upload = Some(super::upload::receive(&parts.headers, body, idle).map_err(fail)?);
        None
    } else {
        if let Some(e) = super::body::not_json(&parts.headers) {
            return Err(json_reply(415, &output::error_envelope(&e)));
        }
        let bytes = super::body::read(
            app.cfg.max_body,
            app.cfg.request_timeout,
            &parts.headers,
            body,
        )
        .await
        .map_err(fail)?;
        Some(crate::core::body::parse_body_only(&bytes).map_err(fail)?)
    };
    let dry_run = match super::body::header_text(&parts.headers, super::client::DRY_RUN_HEADER, 5)
        .map_err(fail)?
    {
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
    request.upload = upload;
    // A profile's answer kept since no writer came (see `cache`).
    let ticket = match super::cache::lookup(&app.cfg.store, &request, stamps.map(|s| s.answers)) {
        (Some(body), _) => return Ok(Prepared::Kept(body)),
        (None, ticket) => ticket,
    };
    let ctx = Ctx::new(&actor, chrono::Utc::now().naive_utc());
    Ok(Prepared::Call(Box::new(request), ctx, ticket))
}
