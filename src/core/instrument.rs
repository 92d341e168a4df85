//! Placeholder: filled in by the instrument work.
