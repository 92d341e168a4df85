//! Snapshots and reset (issue 37): `payctl store snapshot
//! save|list|restore|delete` and `store reset`, `/_payctl/snapshots…` and
//! `POST /_payctl/reset`. What a snapshot holds and keeps, and how each
//! backend makes these atomic: `store::sim`.
//!
//! A restore and a reset are changes of the whole store: [`changed`] is
//! the one place that learns of them once they are committed (the event
//! log of issue 36 records them there).

use super::Ctx;
use super::paging::{Page, PageRequest, paginate};
use crate::error::{Error, Result};
use crate::model::sim_rule::{Reset, Snapshot};
use crate::store::Store;
use crate::store::sim::{MAX_NAME, valid_name};

/// The rule of a snapshot name, as a refusal naming the field.
pub fn check_name(name: &str) -> Result<()> {
    if valid_name(name) {
        return Ok(());
    }
    Err(Error::at(
        crate::error::code::INVALID_VALUE,
        "name",
        format!(
            "`{}` is not a snapshot name: 1-{MAX_NAME} of A-Z, a-z, 0-9, `_`, `.` and `-`, \
             the first a letter or a digit",
            crate::error::shown_id(name)
        ),
    ))
}

/// Save the records of `store` (opened for writing) as the snapshot
/// `name`, replacing one of that name.
pub fn save(store: &Store, ctx: &Ctx, name: &str) -> Result<Snapshot> {
    check_name(name)?;
    store.sim().save_snapshot(name, &ctx.actor, &ctx.now)
}

/// A page of the snapshots, oldest first.
pub fn list(store: &Store, req: &PageRequest) -> Result<Page<Snapshot>> {
    paginate(store.sim().snapshots()?, |s| s.snapshot_name.as_str(), req)
}

/// Replace the records of `store` (opened for writing) with the snapshot
/// `name`'s (20001 when there is none).
pub fn restore(store: &Store, ctx: &Ctx, name: &str) -> Result<Snapshot> {
    check_name(name)?;
    let snap = store
        .sim()
        .restore_snapshot(name)?
        .ok_or_else(|| Error::not_found("snapshot", name))?;
    changed(store, ctx, Change::Restored(&snap))?;
    Ok(snap)
}

/// Remove the snapshot `name` (20001 when there is none): its name.
pub fn delete(store: &Store, name: &str) -> Result<String> {
    check_name(name)?;
    if !store.sim().delete_snapshot(name)? {
        return Err(Error::not_found("snapshot", name));
    }
    Ok(name.to_string())
}

/// Remove every record of `store` (opened for writing).
pub fn reset(store: &Store, ctx: &Ctx) -> Result<Reset> {
    let removed = store.sim().reset()?;
    changed(store, ctx, Change::Reset(&removed))?;
    Ok(removed)
}

/// A change of the whole store (what the event log records of it).
pub enum Change<'a> {
    Restored(&'a Snapshot),
    Reset(&'a Reset),
}

/// The store was restored or reset (committed, the store still held): the
/// event log records it (`store.restored` after the restored log, whose
/// chain goes on; `store.reset` as the first event of the emptied log) in
/// a commit of its own, `record_id` `store`.
pub fn changed(store: &Store, ctx: &Ctx, change: Change) -> Result<()> {
    let (event_type, data) = match change {
        Change::Restored(snap) => ("store.restored", serde_json::to_string(snap)),
        Change::Reset(removed) => ("store.reset", serde_json::to_string(removed)),
    };
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_events(vec![crate::store::events::NewEvent {
        event_type: event_type.to_string(),
        record_id: "store".to_string(),
        customer_profile_id: None,
        actor: ctx.actor.clone(),
        created_datetime: ctx.now.clone(),
        data: data.unwrap_or_else(|_| "null".into()),
    }]);
    tx.commit()
}
