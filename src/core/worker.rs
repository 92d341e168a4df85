//! The worker: the service's background work (CLI.md "The worker").
//!
//! Placeholder for the programs/worker work. The intended shape:
//! `run_once(open, ctx, stop) -> Summary` takes the exclusive lock for one
//! batch of queue items at a time (so readers are not starved), processes each
//! item through `core::program::process_attachment` or `core::txn::process`
//! inside one store transaction (`Tx::customer`/`Tx::txn` read back what the
//! batch already changed), dequeues the items in the same commit, and repeats
//! until the queue is empty.
