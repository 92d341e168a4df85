//! Placeholder: filled in by the worker work.
