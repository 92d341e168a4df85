//! The spec's section 4 as data: one entry per endpoint, naming its method,
//! its path, the core operation that serves it, the record kind it answers,
//! its query parameters and its body. The CLI (in process), `payctl serve`
//! and remote mode (`--base-url`) all go through this table and [`call`], so
//! that they cannot disagree; the OpenAPI document is generated from it.

use serde_json::Value;

use crate::core::paging::{PageRequest, paginate};
use crate::core::{self, Ctx};
use crate::error::{Error, ErrorKind, Result, code};
use crate::output::Response;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "DELETE" => Method::Delete,
            _ => return None,
        })
    }
    /// Repeating the request cannot change the outcome (RFC 9110 9.2.2).
    pub fn idempotent(self) -> bool {
        !matches!(self, Method::Post)
    }
}

/// The core operation behind an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    ProfileCreate,
    ProfileList,
    ProfileGet,
    ProfileUpdate,
    AddressCreate,
    AddressList,
    AddressGet,
    AddressUpdate,
    AddressDelete,
    InstrumentCreate,
    InstrumentList,
    InstrumentGet,
    InstrumentUpdate,
    ProgramList,
    ApplicationList,
    Attach,
    AttachmentList,
    AttachmentGet,
    TemplateList,
    TemplateStepList,
    TxnCreate,
    TxnList,
    TxnGet,
    TxnParameters,
    TxnSteps,
    DictNames,
    /// The dictionary named by the last segment of the path.
    Dict,
    DictStates,
    Health,
    Ready,
    Metrics,
    Worker,
    OpenApi,
    EventList,
    EventGet,
    // Issue 37 (see `super::sim`).
    SnapshotSave,
    SnapshotList,
    SnapshotRestore,
    SnapshotDelete,
    Reset,
    RuleAdd,
    RuleList,
    RuleDelete,
    EventResend,
    WebhookCreate,
    WebhookList,
    WebhookGet,
    WebhookDelete,
    WebhookDeliveries,
    /// Many profile creates from JSON Lines, checked whole first (see
    /// [`super::import`]).
    ProfileImport,
}

/// What the records of an answer are: declared per endpoint below, rendered
/// by `-o table` and `-o id` from it.
pub use crate::output::RecordKind as Kind;

/// The query parameters an endpoint takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    None,
    /// `page_size`, `page_number`, `last_evaluated_key`.
    Paging,
    /// Paging and the profile filters.
    Profiles,
    /// Paging and the transaction filters.
    Transactions,
    /// Paging and the event filters (`type`, `record_id`, `since`).
    Events,
    /// `skip_existing` of the import.
    Import,
}

/// The request body an endpoint takes (its schema in the OpenAPI document).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    None,
    ProfileCreate,
    ProfileUpdate,
    AddressCreate,
    AddressUpdate,
    InstrumentCreate,
    InstrumentUpdate,
    Attach,
    TxnCreate,
    RuleCreate,
    WebhookCreate,
    EventResend,
    /// JSON Lines of profile create bodies (`application/x-ndjson`), read
    /// as a stream: never held whole (see [`super::upload`]).
    ProfileLines,
}

#[derive(Debug)]
pub struct Endpoint {
    pub method: Method,
    /// The path with `{name}` for each identifier, relative to `{base_url}`.
    pub path: &'static str,
    pub op: Op,
    pub kind: Kind,
    pub query: Query,
    pub body: Body,
    /// Another spelling of a canonical path (the spec uses both
    /// `payment_instruments` and `payment-instruments`); remote mode sends
    /// the canonical one.
    pub alias: bool,
    pub summary: &'static str,
}

pub use super::table::ENDPOINTS;

impl Endpoint {
    /// The canonical endpoint of `op` (the first non-alias entry).
    pub fn of(op: Op) -> &'static Endpoint {
        ENDPOINTS
            .iter()
            .find(|e| e.op == op && !e.alias)
            .expect("every operation has an endpoint (tested)")
    }

    /// The endpoint of dictionary `name` (its canonical name), if any.
    pub fn dictionary(name: &str) -> Option<&'static Endpoint> {
        ENDPOINTS
            .iter()
            .find(|e| e.op == Op::Dict && !e.alias && e.path.rsplit('/').next() == Some(name))
    }

    /// The names of the path's identifiers, in order.
    pub fn path_params(&self) -> Vec<&'static str> {
        self.path
            .split('/')
            .filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect()
    }

    /// A create (or attach) answers 201.
    pub fn creates(&self) -> bool {
        self.method == Method::Post && self.kind == Kind::Id
    }
}

/// What the table says about a method and a path.
pub enum Route {
    Found(&'static Endpoint, Vec<String>),
    /// The path exists with other methods (for `Allow`).
    MethodNotAllowed(Vec<Method>),
    NotFound,
}

/// Match decoded path segments (without the leading empty one) against the table.
pub fn route(method: Option<Method>, segments: &[String]) -> Route {
    let mut allowed = Vec::new();
    for e in ENDPOINTS {
        let pattern: Vec<&str> = e.path.split('/').skip(1).collect();
        if pattern.len() != segments.len() {
            continue;
        }
        let mut params = Vec::new();
        let fits = pattern.iter().zip(segments).all(|(p, s)| {
            if p.starts_with('{') {
                params.push(s.clone());
                !s.is_empty()
            } else {
                p == s
            }
        });
        if !fits {
            continue;
        }
        if Some(e.method) == method {
            return Route::Found(e, params);
        }
        if !allowed.contains(&e.method) {
            allowed.push(e.method);
        }
    }
    if allowed.is_empty() {
        Route::NotFound
    } else {
        Route::MethodNotAllowed(allowed)
    }
}

pub use super::request::{Params, Request, percent_decode, percent_encode, query_names};

/// How a transport gets at the local store.
pub trait Backend: Sync {
    /// The store with a shared lock, for reading.
    fn read(&self) -> Result<Store>;
    /// The store with the exclusive lock, for a read-modify-write.
    fn write(&self) -> Result<Store>;
    /// Run the create `f` on the store opened for writing. A backend may
    /// gather concurrent creates into one commit (`payctl serve`: see
    /// [`crate::store::group`]); the answer then comes once it is durable.
    /// What the commits of the stores it opened did (see
    /// [`crate::store::Outcomes`]), when it keeps that: the CLI for its
    /// process, `payctl serve` for its store.
    fn outcomes(&self) -> Option<&crate::store::Outcomes> {
        None
    }
    fn create_with(
        &self,
        f: &mut dyn FnMut(&Store) -> Result<core::idempotency::Outcome>,
    ) -> Result<core::idempotency::Outcome> {
        f(&self.write()?)
    }
    /// The worker's queue is known to be empty without opening the store
    /// (`payctl serve` while its group commit holds the store): a pass of
    /// the worker then has nothing to do and does not wait for the store.
    fn queue_known_empty(&self) -> bool {
        false
    }
    /// The store opened for a batch of the worker.
    fn worker_write(&self) -> Result<Store> {
        self.write()
    }
}

/// A page of dictionary records of `kind` (their keys are their first field).
fn dict_page(kind: Kind, records: Vec<Value>, req: &PageRequest) -> Result<Response> {
    let keyed: Vec<(String, Value)> = records
        .into_iter()
        .map(|v| {
            let key = match v.as_object().and_then(|m| m.values().next()) {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            (key, v)
        })
        .collect();
    let page = paginate(keyed, |(k, _)| k, req)?;
    Ok(Response::List {
        kind,
        paging: page.paging,
        data: page.items.into_iter().map(|(_, v)| v).collect(),
    })
}

/// The body of a request that needs one (`{}` when none was sent: each
/// operation then names the fields it requires).
pub(crate) fn body_of(req: &Request) -> Value {
    req.body
        .clone()
        .unwrap_or_else(|| Value::Object(Default::default()))
}

/// Serve `req` on the local store: the in-process transport, used by the
/// CLI and by `payctl serve`.
pub fn call(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    call_replayed(b, ctx, req).map(|(resp, _)| resp)
}

/// [`call`], and whether the answer is the replay of an earlier request
/// with the same `Idempotency-Key` (nothing was written then).
///
/// Every create (a POST answering an id) runs under
/// [`core::idempotency::run`] on one store opened for writing, with the
/// fingerprint of its canonical endpoint (`POST /customer-profiles/{id}/addresses`),
/// the path's ids and the body: the same key means the same thing whether
/// it came as `--idempotency-key` or as the header.
///
/// On a database, a request that meets a serialization failure, a deadlock
/// or a lost connection before its commit runs again (see
/// [`crate::store::retrying`]); the worker pass redoes its own batches.
pub fn call_replayed(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<(Response, bool)> {
    let named = with_ids(b, req)?;
    let req = named.as_ref().unwrap_or(req);
    if req.dry_run && super::dry_run::applies(req.endpoint.op) {
        return super::dry_run::call(b, ctx, req).map(|r| (r, false));
    }
    // The worker redoes its own batches; an import commits chunk by chunk
    // from a body that cannot be read twice.
    if matches!(req.endpoint.op, Op::Worker | Op::ProfileImport) {
        return call_once(b, ctx, req);
    }
    crate::store::retrying(|| call_once(b, ctx, req))
}

/// `req` with a catalog name in its path (a program, application or
/// template) or in an instrument's `program_id` replaced by its id; `None`
/// when it names nothing of the catalog (nothing to replace). A path name
/// that is neither an id nor a name is refused (20001, the closest names).
fn with_ids(b: &dyn Backend, req: &Request) -> Result<Option<Request>> {
    type Find = fn(&crate::model::catalog::Catalog, &str) -> Result<String>;
    let path: Option<Find> = match req.endpoint.op {
        Op::Attach | Op::ApplicationList | Op::AttachmentList | Op::AttachmentGet => {
            Some(core::names::program_id)
        }
        Op::TemplateList => Some(core::names::application_id),
        Op::TemplateStepList => Some(core::names::template_id),
        _ => None,
    };
    let in_body = matches!(req.endpoint.op, Op::InstrumentCreate | Op::InstrumentUpdate)
        && req
            .body
            .as_ref()
            .is_some_and(|b| b.get("program_id").is_some_and(Value::is_string));
    if path.is_none() && !in_body {
        return Ok(None);
    }
    let catalog = b.read()?.catalog()?;
    let mut r = req.clone();
    if let (Some(find), Some(first)) = (path, r.params.first_mut()) {
        *first = find(&catalog, first)?;
    }
    if in_body && let Some(body) = r.body.as_mut() {
        core::names::program_in_body(&catalog, body);
    }
    Ok(Some(r))
}

fn call_once(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<(Response, bool)> {
    if !req.endpoint.creates() {
        return serve(b, ctx, req).map(|r| (r, false));
    }
    let fp = fingerprint_of(req);
    let now = chrono::Utc::now().timestamp();
    let out = b.create_with(&mut |store| {
        core::idempotency::run(store, req.idempotency_key.as_deref(), &fp, now, |s| {
            create(s, ctx, req)
        })
    })?;
    let replayed = out.replayed();
    Ok((Response::Id(out.into_id()), replayed))
}

/// The idempotency fingerprint of the create `req` (see
/// [`core::idempotency::fingerprint`]).
pub(crate) fn fingerprint_of(req: &Request) -> String {
    let body = body_of(req);
    let canonical = Endpoint::of(req.endpoint.op);
    let name = canonical
        .path
        .split('/')
        .map(|s| if s.starts_with('{') { "{id}" } else { s })
        .collect::<Vec<_>>()
        .join("/");
    let ids: Vec<&str> = req.params.iter().map(String::as_str).collect();
    core::idempotency::fingerprint(&format!("POST {name}"), &ids, &body)
}

/// The create of `req` on `store`, opened for writing: its new id.
pub(crate) fn create(store: &Store, ctx: &Ctx, req: &Request) -> Result<String> {
    use core::{address, instrument, profile, program, txn};
    let body = body_of(req);
    let p = |i| req.param(i);
    match req.endpoint.op {
        Op::ProfileCreate => profile::create(store, ctx, &body),
        Op::AddressCreate => address::create(store, ctx, p(0), &body),
        Op::InstrumentCreate => instrument::create(store, ctx, p(0), &body),
        Op::Attach => program::attach(store, ctx, p(0), None, &body),
        Op::TxnCreate => txn::create(store, ctx, &body),
        other => Err(Error::store(
            code::STORE_IO,
            format!("{other:?} is not a create"),
        )),
    }
}

fn serve(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    use core::{address, dict, instrument, profile, program, txn};
    let page = &req.query.page;
    let p = |i| req.param(i);
    let q = &req.query;
    // What the endpoint answers, as the table declares it.
    let kind = req.endpoint.kind;
    Ok(match req.endpoint.op {
        Op::ProfileCreate
        | Op::AddressCreate
        | Op::InstrumentCreate
        | Op::Attach
        | Op::TxnCreate => Response::Id(create(&b.write()?, ctx, req)?),
        Op::ProfileList => {
            let filter = profile::Filter {
                first_name: q.first_name.clone(),
                last_name: q.last_name.clone(),
                email: q.email.clone(),
                customer_key: q.customer_key.clone(),
                tags: q.tags.clone(),
            };
            Response::page(kind, profile::list(&b.read()?, &filter, page)?)
        }
        Op::ProfileGet => Response::one(kind, &profile::get(&b.read()?, p(0))?),
        Op::ProfileUpdate => Response::Id(profile::update(&b.write()?, ctx, p(0), &body_of(req))?),
        Op::AddressList => Response::page(kind, address::list(&b.read()?, p(0), page)?),
        Op::AddressGet => Response::one(kind, &address::get(&b.read()?, p(0), p(1))?),
        Op::AddressUpdate => Response::Id(address::update(
            &b.write()?,
            ctx,
            p(0),
            p(1),
            &body_of(req),
        )?),
        Op::AddressDelete => Response::Id(address::delete(&b.write()?, ctx, p(0), p(1))?),
        Op::InstrumentList => Response::page(kind, instrument::list(&b.read()?, p(0), page)?),
        Op::InstrumentGet => Response::one(kind, &instrument::get(&b.read()?, p(0), p(1))?),
        Op::InstrumentUpdate => Response::Id(instrument::update(
            &b.write()?,
            ctx,
            p(0),
            p(1),
            &body_of(req),
        )?),
        Op::ProgramList => Response::page(kind, program::list_programs(&b.read()?, page)?),
        Op::ApplicationList => {
            Response::page(kind, program::list_applications(&b.read()?, p(0), page)?)
        }
        Op::AttachmentList => Response::page(kind, program::list_profiles(&b.read()?, p(0), page)?),
        Op::AttachmentGet => Response::one(
            kind,
            &program::get_profile(&super::sim::polled(b, req)?, p(0), p(1))?,
        ),
        Op::TemplateList => Response::page(kind, program::list_templates(&b.read()?, p(0), page)?),
        Op::TemplateStepList => {
            Response::page(kind, program::list_template_steps(&b.read()?, p(0), page)?)
        }
        Op::TxnList => {
            let filter = txn::Filter {
                status: q.status,
                template: q.template.clone(),
                program: q.program.clone(),
                customer: q.customer.clone(),
            };
            Response::page(kind, txn::list(&b.read()?, &filter, page)?)
        }
        Op::TxnGet => Response::one(kind, &txn::get(&super::sim::polled(b, req)?, p(0))?),
        Op::EventList => {
            let filter = core::events::Filter {
                types: q.event_types.clone(),
                record_id: q.record_id.clone(),
                since: q.since.clone(),
            };
            Response::page(kind, core::events::list(&b.read()?, &filter, page)?)
        }
        Op::EventGet => Response::one(kind, &core::events::get(&b.read()?, p(0))?),
        Op::EventResend
        | Op::WebhookCreate
        | Op::WebhookList
        | Op::WebhookGet
        | Op::WebhookDelete
        | Op::WebhookDeliveries => super::webhooks::serve(b, ctx, req)?,
        Op::TxnParameters => Response::page(kind, txn::parameters_of(&b.read()?, p(0), page)?),
        Op::TxnSteps => Response::page(kind, txn::steps(&super::sim::polled(b, req)?, p(0), page)?),
        Op::DictNames => dict_page(kind, dict::names(), page)?,
        Op::Dict => {
            let name = req.endpoint.path.rsplit('/').next().unwrap_or("");
            dict_page(kind, dict::list(name, 1)?, page)?
        }
        Op::DictStates => {
            // A country id that is not a number names no country (20001).
            let country = p(0)
                .parse::<u32>()
                .map_err(|_| Error::not_found("country", p(0)))?;
            dict_page(kind, dict::list("states", country)?, page)?
        }
        // Alive: the store is not opened (`Ready` opens it). `commits`: the
        // journal commits this process made (a group commit makes one for
        // many writes).
        Op::Health => health(b, kind),
        Op::Ready => {
            b.read()?.queue()?;
            health(b, kind)
        }
        Op::Metrics => {
            return Err(Error::usage(
                "the metrics are those of a running `payctl serve`: GET /_payctl/metrics",
            ));
        }
        Op::Worker => worker_pass(b)?,
        Op::ProfileImport => super::import::serve(b, ctx, req)?,
        Op::OpenApi => Response::Records(kind, vec![super::openapi::document()]),
        Op::SnapshotSave
        | Op::SnapshotList
        | Op::SnapshotRestore
        | Op::SnapshotDelete
        | Op::Reset
        | Op::RuleAdd
        | Op::RuleList
        | Op::RuleDelete => super::sim::serve(b, ctx, req)?,
    })
}

fn health(b: &dyn Backend, kind: Kind) -> Response {
    let health = crate::model::reply::Health {
        status: "ok",
        commits: b.outcomes().map_or(0, |o| o.committed()) as u64,
    };
    Response::one(kind, &health)
}

/// The operation behind `POST /_payctl/worker`: every queued item as far as
/// it can go, until the queue is empty or `stop` is set (between batches),
/// with the actor SYSTEM. Every worker runs through here: this endpoint,
/// `payctl serve`'s background passes and the local `payctl worker` (whose
/// backend opens the store once per batch, and whose `stop` is its Ctrl-C).
pub fn worker_run(
    b: &dyn Backend,
    stop: &std::sync::atomic::AtomicBool,
) -> Result<core::worker::Run> {
    // A pass that would open the store for writing only to find the queue
    // empty waits for the creates that hold it and marks it written, which
    // drops what `payctl serve` keeps (see `api::cache`).
    if b.queue_known_empty() {
        let run = core::worker::Run::default();
        super::metrics::worker_ran(&run.summary);
        return Ok(run);
    }
    let ctx = Ctx::new(crate::model::status::SYSTEM, chrono::Utc::now().naive_utc());
    let run = core::worker::run_once(&|| b.worker_write(), &ctx, stop)?;
    super::metrics::worker_ran(&run.summary);
    Ok(run)
}

/// One pass of the background work (`POST /_payctl/worker`): every queued
/// item as far as it can go, as `payctl worker` does once.
pub fn worker_pass(b: &dyn Backend) -> Result<Response> {
    static NEVER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let run = worker_run(b, &NEVER)?;
    if run.held.is_empty() {
        Ok(Response::one(Kind::WorkerSummary, &run.summary))
    } else {
        Err(Error {
            kind: ErrorKind::Store,
            errors: run.held,
        })
    }
}

#[cfg(test)]
#[path = "endpoints_tests.rs"]
mod tests;
