//! `--dry-run` on every create, update, delete and attach: the request runs
//! through the same rules as for real, on a store that keeps its changes
//! in memory ([`crate::store::dry::DryStore`]) over the real one opened for
//! reading, and answers the record as a get would show it afterwards (a
//! new record's id reads `(new)`; a delete shows the record it would
//! remove). A request that would be refused is refused the same way;
//! nothing is ever written, not even an idempotency record.

use serde_json::Value;

use super::endpoints::{Backend, Endpoint, Op, Request};
use crate::core::{self, Ctx};
use crate::error::Result;
use crate::output::{Response, to_json};
use crate::store::Store;
use crate::store::dry::DryStore;

/// The id a dry run shows for a record it would create.
pub const NEW_ID: &str = "(new)";

/// Whether `op` changes the store (and so has a dry run).
pub fn applies(op: Op) -> bool {
    matches!(
        op,
        Op::ProfileCreate
            | Op::ProfileUpdate
            | Op::AddressCreate
            | Op::AddressUpdate
            | Op::AddressDelete
            | Op::InstrumentCreate
            | Op::InstrumentUpdate
            | Op::Attach
            | Op::TxnCreate
    )
}

/// The get whose record a dry run of `op` shows.
pub fn shown_as(op: Op) -> Op {
    match op {
        Op::ProfileCreate | Op::ProfileUpdate => Op::ProfileGet,
        Op::AddressCreate | Op::AddressUpdate | Op::AddressDelete => Op::AddressGet,
        Op::InstrumentCreate | Op::InstrumentUpdate => Op::InstrumentGet,
        Op::Attach => Op::AttachmentGet,
        _ => Op::TxnGet,
    }
}

/// Run `req` without writing: the record as it would be.
pub fn call(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    use core::{address, instrument, profile, program, txn};
    let store = Store::Dry(DryStore::over(b.read()?));
    let p = |i: usize| req.params.get(i).map(String::as_str).unwrap_or("");
    let body = super::endpoints::body_of(req);
    let op = req.endpoint.op;
    let (get, record, id) = match op {
        Op::ProfileUpdate => {
            profile::update(&store, ctx, p(0), &body)?;
            (Op::ProfileGet, to_json(&profile::get(&store, p(0))?), None)
        }
        Op::AddressUpdate => {
            address::update(&store, ctx, p(0), p(1), &body)?;
            let a = address::get(&store, p(0), p(1))?;
            (Op::AddressGet, to_json(&a), None)
        }
        Op::AddressDelete => {
            let a = address::get(&store, p(0), p(1))?;
            address::delete(&store, ctx, p(0), p(1))?;
            (Op::AddressGet, to_json(&a), None)
        }
        Op::InstrumentUpdate => {
            instrument::update(&store, ctx, p(0), p(1), &body)?;
            let i = instrument::get(&store, p(0), p(1))?;
            (Op::InstrumentGet, to_json(&i), None)
        }
        _ => {
            let fp = super::endpoints::fingerprint_of(req);
            let now = chrono::Utc::now().timestamp();
            let out =
                core::idempotency::run(&store, req.idempotency_key.as_deref(), &fp, now, |s| {
                    super::endpoints::create(s, ctx, req)
                })?;
            let replayed = out.replayed();
            let id = out.into_id();
            let (get, record) = match op {
                Op::ProfileCreate => (Op::ProfileGet, to_json(&profile::get(&store, &id)?)),
                Op::AddressCreate => (Op::AddressGet, to_json(&address::get(&store, p(0), &id)?)),
                Op::InstrumentCreate => (
                    Op::InstrumentGet,
                    to_json(&instrument::get(&store, p(0), &id)?),
                ),
                Op::Attach => (
                    Op::AttachmentGet,
                    to_json(&program::get_profile(&store, p(0), &id)?),
                ),
                _ => (Op::TxnGet, to_json(&txn::get(&store, &id)?)),
            };
            // A replayed key shows the record it made, under its real id.
            (get, record, (!replayed && op != Op::Attach).then_some(id))
        }
    };
    debug_assert_eq!(get, shown_as(op));
    let kind = Endpoint::of(get).kind;
    let mut record = record;
    if let (Some(field), Some(_)) = (kind.id_field(), id)
        && let Some(v) = record.get_mut(field.as_ref())
    {
        *v = Value::String(NEW_ID.to_string());
    }
    Ok(Response::Records(kind, vec![record]))
}
