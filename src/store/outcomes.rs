//! What a store's commits did beyond their answer: how many were made, how
//! many were committed but not finished (a full disk), and the warnings
//! that say so. Each open store records into its own [`Outcomes`]; whoever
//! opened it (a CLI process, `payctl serve`) may have it report to one of
//! its own as well ([`super::Store::report_to`]), to read after the store
//! is closed. Nothing of it is the process's: two stores in one process
//! count apart.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// At most this many warnings are kept (see [`Outcomes::warn`]).
pub const MAX_WARNINGS: usize = 100;

#[derive(Debug, Default)]
pub struct Outcomes {
    /// Changes committed (journals renamed into place).
    committed: AtomicUsize,
    /// Commits whose change was committed but not finished.
    unfinished: AtomicUsize,
    /// What went wrong after a commit point, for the caller to show.
    warnings: Mutex<Vec<String>>,
    /// Whom the counts and warnings are reported to as well (the warnings
    /// go there alone): see [`Outcomes::report_to`].
    parent: OnceLock<Arc<Outcomes>>,
}

impl Outcomes {
    /// How many changes were committed: a command whose answer cannot be
    /// delivered says so when this is not 0.
    pub fn committed(&self) -> usize {
        self.committed.load(Ordering::SeqCst)
    }

    /// How many commits were committed but not finished (a full disk): a
    /// loop of commits stops at the first, since its next commit would
    /// first have to finish this one.
    pub fn unfinished(&self) -> usize {
        self.unfinished.load(Ordering::SeqCst)
    }

    /// A commit point passed.
    pub(crate) fn count_committed(&self) {
        self.committed.fetch_add(1, Ordering::SeqCst);
        if let Some(p) = self.parent.get() {
            p.count_committed();
        }
    }

    /// A commit point passed, but what follows it failed.
    pub(crate) fn count_unfinished(&self) {
        self.unfinished.fetch_add(1, Ordering::SeqCst);
        if let Some(p) = self.parent.get() {
            p.count_unfinished();
        }
    }

    /// Keep a warning for the caller to show (see [`Outcomes::take_warnings`]).
    /// At most the latest [`MAX_WARNINGS`] are kept (a long-lived process
    /// that never takes them does not grow).
    pub fn warn(&self, message: String) {
        if let Some(p) = self.parent.get() {
            return p.warn(message);
        }
        let mut w = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if w.len() >= MAX_WARNINGS {
            w.remove(0);
        }
        w.push(message);
    }

    /// The warnings of commits whose change was committed but not finished,
    /// taken: the CLI prints them on stderr, `payctl serve` on its log.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Report to `parent` as well from now on, with what was recorded so
    /// far (its warnings move there). A second call changes nothing.
    pub(crate) fn report_to(&self, parent: &Arc<Outcomes>) {
        if self.parent.set(parent.clone()).is_err() {
            return;
        }
        parent
            .committed
            .fetch_add(self.committed(), Ordering::SeqCst);
        parent
            .unfinished
            .fetch_add(self.unfinished(), Ordering::SeqCst);
        let kept = std::mem::take(&mut *self.warnings.lock().unwrap_or_else(|e| e.into_inner()));
        for w in kept {
            parent.warn(w);
        }
    }
}
