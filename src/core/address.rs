//! Placeholder: filled in by the address work.
