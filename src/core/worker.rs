//! The worker: the service's background work (CLI.md "The worker").
//!
//! [`run_once`] lists the queue, then takes the exclusive lock for one batch
//! of the listed items at a time (so that readers and other writers are not
//! starved), processes each item through [`crate::core::program::process_attachment`] or
//! [`crate::core::txn::process`] inside one store transaction
//! (`Tx::customer`/`Tx::txn` read back what the batch already changed),
//! dequeues the items in the same commit, releases the lock, and repeats
//! until the queue is empty.
//!
//! Guarantees:
//! - Several workers at once never process an item twice: under the
//!   exclusive lock each listed item is checked to be still queued and its
//!   records are re-read, and a processed item leaves the queue in the commit
//!   that records its effect.
//! - A worker killed at any point leaves nothing half-done: a batch is one
//!   journal commit, so the store holds either the whole batch or none of it
//!   (the next payctl replays a committed journal), and an item not committed
//!   stays queued for the next run.
//! - One bad record does not stop the others: an item whose record cannot be
//!   read (a corrupt customer or transaction file, 30002) is left queued and
//!   reported, the batch it was in is redone without it, and the run goes on.
//!   Any other error (the catalog, the disk, the lock) ends the run.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Ctx;
pub use super::summary::Summary;
use crate::error::{ApiError, Result, code};
use crate::model::catalog::Catalog;
use crate::store::{QueueItem, Store, Tx};

/// Queue items processed under one lock and committed together.
pub const BATCH: usize = 200;

/// What a run did, and the items it left queued because their record
/// could not be read (one error each, naming the item and the file).
#[derive(Debug, Default)]
pub struct Run {
    pub summary: Summary,
    pub held: Vec<ApiError>,
}

/// Process the queue until it is empty or `stop` is set (checked between
/// batches: the batch in hand is always finished and committed).
///
/// `open` opens the store with the exclusive lock; it is called once per
/// batch and the store is dropped (the lock released) after each commit.
/// An item whose record is unreadable is held (see the module doc); any
/// other error aborts the batch in hand (nothing of it is written) and the run.
///
/// A batch committed but not finished (a full disk: see `journal::commit`)
/// ends the run: what it did is answered, the rest stays queued. An error
/// after some batches were committed says what they did, so that a failed
/// answer never hides a change that was made.
pub fn run_once(open: &dyn Fn() -> Result<Store>, ctx: &Ctx, stop: &AtomicBool) -> Result<Run> {
    let mut run = Run::default();
    match batches(open, ctx, stop, &mut run) {
        Ok(()) => Ok(run),
        Err(mut e) if !run.summary.is_empty() => {
            let s = &run.summary;
            let done = format!(
                "(earlier batches of this run were committed: {} attachment(s) and {} \
                 transaction(s) processed, {} step(s) created)",
                s.attachments_processed, s.transactions_processed, s.steps_created
            );
            for a in &mut e.errors {
                a.message = format!("{} {done}", a.message);
            }
            Err(e)
        }
        Err(e) => Err(e),
    }
}

/// How many batches of a run the database may roll back for a conflict
/// before the run gives up (30019).
const MAX_CONFLICTS: usize = 3;

fn batches(
    open: &dyn Fn() -> Result<Store>,
    ctx: &Ctx,
    stop: &AtomicBool,
    run: &mut Run,
) -> Result<()> {
    let mut held: HashSet<String> = HashSet::new();
    // The queue as last listed, oldest first: listed again only when used up,
    // so a long queue is not read whole for every batch.
    let mut listed: VecDeque<QueueItem> = VecDeque::new();
    // Batches rolled back by the database for a deadlock or a
    // serialization failure (another worker locked the same records in
    // another order): redone, a bounded number of times.
    let mut conflicts = 0;
    while !stop.load(Ordering::SeqCst) {
        let store = open()?;
        // Read once per batch, before any item: a catalog that cannot be read
        // is no item's fault.
        let catalog = store.catalog()?;
        let sim = super::sim::Sim::load(&store, &ctx.now)?;
        if listed.is_empty() {
            listed = store
                .queue()?
                .into_iter()
                .filter(|q| !held.contains(&q.file_name()))
                .collect();
            if listed.is_empty() {
                break;
            }
        }
        // The next items still queued (another worker may have taken some
        // since they were listed); checked under this batch's lock.
        let mut queue = Vec::with_capacity(BATCH);
        while queue.len() < BATCH
            && let Some(item) = listed.pop_front()
        {
            if store.is_queued(&item) {
                queue.push(item);
            }
        }
        if queue.is_empty() {
            continue;
        }
        let mut batch = Summary::default();
        let mut tx = store.begin_by(&ctx.actor, &ctx.now);
        let mut failed = None;
        for (i, item) in queue.iter().enumerate() {
            match process(&mut tx, ctx, &catalog, &sim, item, &mut batch) {
                Ok(true) => tx.dequeue(item),
                // A rule makes it wait: queued still, not listed again
                // in this run.
                Ok(false) => {
                    batch.items_waiting += 1;
                    held.insert(item.file_name());
                }
                Err(e) if e.has_code(code::STORE_UNREADABLE) => {
                    failed = Some((i, e));
                    break;
                }
                Err(e) if e.has_code(code::DB_RETRIES) && conflicts < MAX_CONFLICTS => {
                    conflicts += 1;
                    for item in queue.drain(..).rev() {
                        listed.push_front(item);
                    }
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if let Some((i, e)) = failed {
            // Nothing of this batch is written; it is redone without the item.
            let item = queue.remove(i);
            held.insert(item.file_name());
            run.held.extend(e.errors.into_iter().map(|e| ApiError {
                message: format!("queue item {} left queued: {}", item.file_name(), e.message),
                ..e
            }));
            for item in queue.into_iter().rev() {
                listed.push_front(item);
            }
            continue;
        }
        if queue.is_empty() {
            // Rolled back for a conflict (above): the batch is redone.
            continue;
        }
        let committed = match tx.commit_outcome() {
            Ok(c) => c,
            Err(e) if e.has_code(code::DB_RETRIES) && conflicts < MAX_CONFLICTS => {
                conflicts += 1;
                drop(store);
                for item in queue.into_iter().rev() {
                    listed.push_front(item);
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        drop(store);
        run.summary.add(&batch);
        if committed.unfinished {
            break;
        }
    }
    Ok(())
}

/// Process `item`; whether it is done (`false`: a rule makes it wait, see
/// [`super::sim`]).
fn process(
    tx: &mut Tx,
    ctx: &Ctx,
    catalog: &Catalog,
    sim: &super::sim::Sim,
    item: &QueueItem,
    batch: &mut Summary,
) -> Result<bool> {
    match item {
        QueueItem::Attach {
            customer_id,
            program_id,
            ..
        } => super::program::process_attachment(
            tx,
            ctx,
            catalog,
            sim,
            (customer_id, program_id),
            batch,
        ),
        QueueItem::Txn { transaction_id, .. } => {
            super::txn::process(tx, ctx, catalog, sim, transaction_id, batch)
        }
    }
}
