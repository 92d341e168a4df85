//! What a worker run did, counted by the parts that do the work
//! ([`crate::core::program::process_attachment`], [`crate::core::txn::process`])
//! and summed by the worker. Its own module so that those parts do not import
//! the worker that imports them.

use serde::Serialize;

/// What a worker run did (CLI.md "The worker").
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(rename = "WorkerSummary")]
pub struct Summary {
    /// Attach requests it made Attached or Rejected.
    pub attachments_processed: u64,
    /// Transactions it generated steps for or moved on.
    pub transactions_processed: u64,
    /// Transaction steps it generated.
    pub steps_created: u64,
    /// Steps it completed.
    pub steps_completed: u64,
    /// Steps that failed (the later ones of their transaction cancelled).
    pub steps_failed: u64,
    /// Items left queued because a rule makes them wait (`payctl sim rule
    /// add --after` or `--after-polls`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub items_waiting: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Summary {
    pub fn add(&mut self, o: &Summary) {
        self.attachments_processed += o.attachments_processed;
        self.transactions_processed += o.transactions_processed;
        self.steps_created += o.steps_created;
        self.steps_completed += o.steps_completed;
        self.steps_failed += o.steps_failed;
        self.items_waiting += o.items_waiting;
    }

    /// Nothing was done (items left waiting are not something done).
    pub fn is_empty(&self) -> bool {
        Summary {
            items_waiting: 0,
            ..*self
        } == Summary::default()
    }
}
