//! The worker: the service's background work (CLI.md "The worker").
//!
//! [`run_once`] takes the exclusive lock for one batch of queue items at a
//! time (so that readers and other writers are not starved), processes each
//! item through [`crate::core::program::process_attachment`] or
//! [`crate::core::txn::process`] inside one store transaction
//! (`Tx::customer`/`Tx::txn` read back what the batch already changed),
//! dequeues the items in the same commit, releases the lock, and repeats
//! until the queue is empty.
//!
//! Guarantees:
//! - Several workers at once never process an item twice: the queue and the
//!   records are re-read under the exclusive lock, and a processed item leaves
//!   the queue in the commit that records its effect.
//! - A worker killed at any point leaves nothing half-done: a batch is one
//!   journal commit, so the store holds either the whole batch or none of it
//!   (the next payctl replays a committed journal), and an item not committed
//!   stays queued for the next run.

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Serialize;

use super::Ctx;
use crate::error::Result;
use crate::store::{QueueItem, Store};

/// Queue items processed under one lock and committed together.
pub const BATCH: usize = 200;

/// What a worker run did (CLI.md "The worker").
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub attachments_processed: u64,
    pub transactions_processed: u64,
    pub steps_created: u64,
    pub steps_completed: u64,
    pub steps_failed: u64,
}

impl Summary {
    pub fn add(&mut self, o: &Summary) {
        self.attachments_processed += o.attachments_processed;
        self.transactions_processed += o.transactions_processed;
        self.steps_created += o.steps_created;
        self.steps_completed += o.steps_completed;
        self.steps_failed += o.steps_failed;
    }

    /// Nothing was done.
    pub fn is_empty(&self) -> bool {
        *self == Summary::default()
    }
}

/// Process the queue until it is empty or `stop` is set (checked between
/// batches: the batch in hand is always finished and committed).
///
/// `open` opens the store with the exclusive lock; it is called once per
/// batch and the store is dropped (the lock released) after each commit.
/// An error aborts the batch in hand (nothing of it is written) and the run.
pub fn run_once(open: &dyn Fn() -> Result<Store>, ctx: &Ctx, stop: &AtomicBool) -> Result<Summary> {
    let mut total = Summary::default();
    while !stop.load(Ordering::SeqCst) {
        let store = open()?;
        let queue = store.queue()?;
        if queue.is_empty() {
            break;
        }
        let mut batch = Summary::default();
        let mut tx = store.begin();
        for item in queue.iter().take(BATCH) {
            match item {
                QueueItem::Attach {
                    customer_id,
                    program_id,
                    ..
                } => super::program::process_attachment(
                    &mut tx,
                    ctx,
                    customer_id,
                    program_id,
                    &mut batch,
                )?,
                QueueItem::Txn { transaction_id, .. } => {
                    super::txn::process(&mut tx, ctx, transaction_id, &mut batch)?
                }
            }
            tx.dequeue(item);
        }
        tx.commit()?;
        drop(store);
        total.add(&batch);
    }
    Ok(total)
}
