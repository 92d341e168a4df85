//! The spec's HTTP API: one endpoint table (`endpoints`) and the transports
//! around it: in process ([`endpoints::call`] on the local store), the HTTP
//! server (`server`, `payctl serve`) and the HTTP client (`client`, remote
//! mode). `openapi` describes the table as an OpenAPI 3.1 document. The
//! server's edge has a module per concern: `tls`, `origin` (what a web page
//! could send), `limit` (`--rate-limit`), `access_log` (and `X-Request-Id`),
//! `metrics` and `probe` (readiness and the metrics route); `body` reads a
//! request's body and `hide` keeps the store's whereabouts out of answers;
//! `sim` serves the snapshot and rule routes of issue 37; `ui` is the
//! read-only web console under `/ui/`, built on the table; `import` serves
//! the import route (`profile import`) and sends it in remote mode, its
//! body streamed both ways by `upload`.

pub(crate) mod access_log;
pub mod auth;
mod background;
pub(crate) mod body;
pub(crate) mod cache;
pub mod client;
mod deliverer;
pub mod dry_run;
pub mod endpoints;
pub(crate) mod headers;
pub(crate) mod hide;
pub mod import;
pub(crate) mod limit;
pub(crate) mod metrics;
pub mod openapi;
mod openapi_ops;
mod operation_names;
pub(crate) mod origin;
mod patterns;
pub(crate) mod probe;
mod query_params;
mod records;
mod reply;
pub mod request;
pub mod server;
mod sim;
mod table;
pub(crate) mod tls;
pub mod ui;
pub mod upload;
mod webhooks;

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, ErrorKind, Result, code};
use crate::store::{Mode, Store};

/// The local store at a directory, or the database of `--database-url`,
/// opened per request.
#[derive(Debug, Clone)]
pub struct Local {
    pub data_dir: PathBuf,
    pub database_url: Option<String>,
    pub lock_timeout: Duration,
    /// What `payctl serve` keeps from one request to the next (the group
    /// commit: a JSON directory only); `None`: every request opens the
    /// store in full and each create commits alone, as a CLI process does.
    pub kept: Option<std::sync::Arc<Kept>>,
}

/// What `payctl serve` keeps between requests: the identity of the store
/// checked last (see [`crate::store::JsonStore::reopen`]), the group
/// commit of its creates (see [`crate::store::group`]), and the answers and
/// API keys read while no writer came (see [`cache`]).
#[derive(Debug)]
pub struct Kept {
    known: std::sync::Mutex<Option<crate::store::Known>>,
    group: crate::store::group::GroupCommit,
    answers: cache::Answers,
    /// The key of each credential, and whether the store has any, while
    /// neither the store's stamp nor `keys.json` changed (see
    /// [`Local::keys_stamp`]).
    pub(crate) keys: cache::Memo<
        (Option<crate::model::api_key::ApiKey>, bool),
        (cache::Seen, Option<crate::store::lock::Stamp>),
    >,
    /// The reads of a database's stamp (see [`cache::DbStamp`]).
    db_stamp: cache::DbStamp,
    /// The database's pool of connections, made by the first request.
    db_pool: std::sync::OnceLock<std::sync::Arc<crate::store::DbPool>>,
    /// What the commits of every request did: the warnings the server
    /// logs after each request, the commits `/_payctl/health` counts.
    pub(crate) outcomes: std::sync::Arc<crate::store::Outcomes>,
}

impl Default for Kept {
    fn default() -> Self {
        Kept {
            known: Default::default(),
            group: Default::default(),
            answers: cache::answers(),
            keys: cache::Memo::new(1024),
            db_stamp: Default::default(),
            db_pool: Default::default(),
            outcomes: Default::default(),
        }
    }
}

impl Kept {
    /// The end of `payctl serve`: what the group commit holds is applied
    /// and the store let go (see [`crate::store::group::GroupCommit::close`]).
    pub fn close(&self) {
        self.group.close();
    }
}

impl Local {
    /// The stamp of the store's writers (see [`crate::store::lock::stamp`]),
    /// read now: for what `payctl serve` keeps (a JSON directory only).
    pub(crate) fn stamp(&self) -> Option<crate::store::lock::Stamp> {
        match (&self.kept, &self.database_url) {
            (Some(_), None) => crate::store::lock::stamp(&self.data_dir),
            _ => None,
        }
    }

    /// The stamp of the store for what `payctl serve` keeps (see
    /// [`cache`]), read now: a JSON directory's ([`Local::stamp`]), with
    /// that of the API keys' file for a request that carries a credential
    /// (`keys`: a key file edited by hand, an expiry, holds at the next
    /// request that sends a key); a database's two, its customers' and its
    /// keys' (see [`cache::DbStamp`]).
    pub(crate) async fn stamps(&self, keys: bool) -> Option<cache::Stamps> {
        let kept = self.kept.as_ref()?;
        if self.database_url.is_some() {
            let (customers, keys) = kept.db_stamp.read(self).await?;
            return Some(cache::Stamps {
                answers: cache::Seen::Db(customers),
                keys: (cache::Seen::Db(keys), None),
            });
        }
        let stamp = cache::Seen::Dir(self.stamp()?);
        let file = match keys {
            true => {
                let keys = self.data_dir.join(crate::store::json::api_keys::KEYS_FILE);
                crate::store::lock::file_stamp(&keys)
            }
            false => None,
        };
        Some(cache::Stamps {
            answers: stamp,
            keys: (stamp, file),
        })
    }

    /// A database's stamps (see [`cache::DbStamp`]); `None` for a directory.
    fn read_stamp(&self) -> Result<Option<(i64, i64)>> {
        match self.db_pool()? {
            Some(pool) => Store::database_stamps(pool),
            None => Ok(None),
        }
    }

    /// The server's pool of connections to its database (made once);
    /// `None` for a directory, or without anything kept.
    fn db_pool(&self) -> Result<Option<&std::sync::Arc<crate::store::DbPool>>> {
        let (Some(kept), Some(url)) = (&self.kept, &self.database_url) else {
            return Ok(None);
        };
        if let Some(p) = kept.db_pool.get() {
            return Ok(Some(p));
        }
        let made = crate::store::DbPool::new(url)?;
        Ok(Some(kept.db_pool.get_or_init(|| made)))
    }

    /// The store, through the one opener ([`crate::store::open()`]).
    fn open(&self, mode: Mode) -> Result<Store> {
        let place = crate::store::Place {
            data_dir: &self.data_dir,
            database_url: self.database_url.as_deref(),
        };
        let by = crate::store::By::Server {
            known: self.kept.as_ref().map(|k| &k.known),
            pool: self.db_pool()?,
        };
        let store = crate::store::open(place, mode, self.lock_timeout.into(), by, |_| {})
            .map(|(s, _)| s)?;
        if let Some(kept) = &self.kept {
            store.report_to(&kept.outcomes);
        }
        Ok(store)
    }
}

impl endpoints::Backend for Local {
    fn read(&self) -> Result<Store> {
        self.open(Mode::Shared)
    }
    fn write(&self) -> Result<Store> {
        self.open(Mode::Exclusive)
    }
    fn outcomes(&self) -> Option<&crate::store::Outcomes> {
        self.kept.as_ref().map(|k| &*k.outcomes)
    }
    fn queue_known_empty(&self) -> bool {
        self.kept
            .as_ref()
            .and_then(|k| k.group.held_queue_is_empty())
            == Some(true)
    }
    fn create_with(
        &self,
        f: &mut dyn FnMut(&Store) -> Result<crate::core::idempotency::Outcome>,
    ) -> Result<crate::core::idempotency::Outcome> {
        match &self.kept {
            // The group's writes are creates, which change no API key.
            Some(kept) if self.database_url.is_none() => {
                kept.group.write(|| self.write_keeping_keys(), |s| f(s))
            }
            _ => f(&self.write()?),
        }
    }
    fn worker_write(&self) -> Result<Store> {
        // The worker's batches change records and the queue, no API key.
        self.write_keeping_keys()
    }
}

impl Local {
    /// The store opened for a write that changes no API key (a create, a
    /// worker's batch): the keys read before this writer came in (and no
    /// other writer came between) still hold, and the server's requests
    /// need not wait for the store to be let go to know who sent them.
    fn write_keeping_keys(&self) -> Result<Store> {
        let store = self.open(Mode::Exclusive)?;
        if let (Some(kept), Store::Json(js)) = (&self.kept, &store)
            && let Some((before, after)) = js.writer_stamps()
        {
            kept.keys.advance(|(lock, keys)| {
                (*lock == cache::Seen::Dir(before)).then_some((cache::Seen::Dir(after), *keys))
            });
        }
        Ok(store)
    }
}

/// The HTTP status of a failure (the book's HTTP API page, "Statuses", after
/// Google AIP-193 / Zalando): 400 invalid, 401, 404, 405, 409 conflict with
/// the state of a record, 413, 503 store busy or database unreachable (a
/// retry may work; nothing was written), 500 store unusable.
pub fn status_of(err: &Error) -> u16 {
    match err.kind {
        ErrorKind::Store
            if err.has_code(code::STORE_BUSY)
                || err.has_code(code::DB_CONNECT)
                || err.has_code(code::DB_RETRIES) =>
        {
            503
        }
        ErrorKind::Store => 500,
        ErrorKind::Usage => 400,
        ErrorKind::Refused => {
            let has = |c| err.has_code(c);
            if has(code::UNAUTHORIZED) {
                401
            } else if has(code::FORBIDDEN) || has(code::CROSS_SITE) {
                403
            } else if has(code::TOO_MANY_REQUESTS) {
                429
            } else if has(code::NOT_FOUND) || has(code::ROUTE_NOT_FOUND) {
                404
            } else if has(code::METHOD_NOT_ALLOWED) {
                405
            } else if has(code::BODY_TOO_LARGE) {
                413
            } else if err.errors.iter().any(|e| (21000..22000).contains(&e.code)) {
                409
            } else {
                400
            }
        }
    }
}

/// The kind of failure (and so the exit code) an error envelope received
/// over HTTP stands for: what the local command would have exited with.
pub fn kind_of(status: u16, codes: &[u32]) -> ErrorKind {
    if status >= 500 || codes.iter().any(|c| (30000..40000).contains(c)) {
        ErrorKind::Store
    } else if codes
        .iter()
        .any(|c| *c == code::USAGE || *c == code::CONFIRMATION_REQUIRED)
    {
        ErrorKind::Usage
    } else {
        ErrorKind::Refused
    }
}

/// [`endpoints::call`] answered as the envelope `-o json` prints (a
/// success's or a failure's): for the tests that drive `core` through the
/// endpoint table on a backend of their own (tests/it/model.rs).
#[doc(hidden)]
pub fn call_envelope(
    b: &dyn endpoints::Backend,
    ctx: &crate::core::Ctx,
    req: &endpoints::Request,
) -> serde_json::Value {
    match endpoints::call(b, ctx, req) {
        Ok(resp) => crate::output::success_envelope(&resp),
        Err(e) => crate::output::error_envelope(&e),
    }
}

/// The in-memory backend of the tests behind the endpoint table: every
/// open is another handle on the same data; one handle opened for writing
/// at a time.
impl endpoints::Backend for crate::store::memory::MemoryStore {
    fn read(&self) -> Result<Store> {
        Ok(Store::Memory(self.reopen()))
    }
    fn write(&self) -> Result<Store> {
        Ok(Store::Memory(self.reopen_for_writing()))
    }
}
