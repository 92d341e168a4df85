//! Placeholder: filled in by the program work.
