//! The environment variables the code reads itself, here and only here
//! (clap reads the `env =` fallbacks of the flags): `core/`, `output/` and
//! `api/` are handed what they need, so the inputs of a layer are its
//! arguments. `clippy.toml` denies `std::env::var` and `var_os` elsewhere.

// The one module of cli/ that reads the environment.
#![allow(clippy::disallowed_methods)]

use std::ffi::OsString;

/// `$name` when it is set and UTF-8.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// `$name` when it is set.
pub fn var_os(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}
