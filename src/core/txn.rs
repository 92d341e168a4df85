//! Placeholder: filled in by the txn work.
