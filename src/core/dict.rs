//! Dictionaries (spec 4.7 and the status dictionaries of CLI.md).

use serde_json::Value;

use crate::catalog::dictionaries as d;
use crate::error::{Error, Result, code};

/// The names `dict list` accepts, as records `{"dictionary_name": …}`.
pub fn names() -> Vec<Value> {
    d::NAMES
        .iter()
        .map(|n| serde_json::json!({ "dictionary_name": n }))
        .collect()
}

/// The records of dictionary `name` (`states` of `country`).
pub fn list(name: &str, country: u32) -> Result<Vec<Value>> {
    let canonical = d::canonical_name(name).ok_or_else(|| {
        Error::one(
            code::NOT_FOUND,
            format!(
                "no dictionary named `{}`; the names are: {}",
                name.escape_debug(),
                d::NAMES.join(", ")
            ),
        )
    })?;
    Ok(d::records(canonical, country).unwrap_or_default())
}
