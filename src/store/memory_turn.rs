//! The writer's turn of the in-memory store (see `memory.rs`), in a file of
//! its own.

use std::sync::{Arc, Condvar, Mutex};

/// The writer's turn on an in-memory store: one handle opened for writing
/// at a time, as the JSON directory's exclusive lock and the database's
/// row and key locks give, so that a read-modify-write (an idempotency
/// key's look-up and its create, a worker's claim) is never interleaved
/// with another's.
pub(super) struct Turn(Arc<(Mutex<bool>, Condvar)>);

impl Turn {
    pub(super) fn take(turns: &Arc<(Mutex<bool>, Condvar)>) -> Turn {
        let (taken, freed) = &**turns;
        let mut t = taken.lock().unwrap_or_else(|e| e.into_inner());
        while *t {
            t = freed.wait(t).unwrap_or_else(|e| e.into_inner());
        }
        *t = true;
        Turn(Arc::clone(turns))
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let (taken, freed) = &*self.0;
        *taken.lock().unwrap_or_else(|e| e.into_inner()) = false;
        freed.notify_one();
    }
}
