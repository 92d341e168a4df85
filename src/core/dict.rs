//! Dictionaries (spec 4.7 and the status dictionaries of CLI.md).

use serde_json::Value;

use crate::catalog::dictionaries as d;
use crate::error::{Error, Result, code};
use crate::model::reply::DictionaryName;

/// The names `dict list` accepts, as records `{"dictionary_name": …}`.
pub fn names() -> Vec<Value> {
    d::NAMES
        .iter()
        .map(|n| {
            serde_json::to_value(DictionaryName { dictionary_name: n }).expect("records serialize")
        })
        .collect()
}

/// The records of dictionary `name` (`states` of `country`).
pub fn list(name: &str, country: u32) -> Result<Vec<Value>> {
    let canonical = d::canonical_name(name).ok_or_else(|| {
        Error::one(
            code::NOT_FOUND,
            format!(
                "no dictionary named `{}`; the names are: {}",
                crate::error::shown_id(name),
                d::NAMES.join(", ")
            ),
        )
    })?;
    // `states` is GET /dictionaries/countries/{country_id}/states: a country
    // that is not in the dictionary is an identifier in the path that does
    // not exist (20001), as for every other path.
    if canonical == "states" && !d::COUNTRIES.iter().any(|c| c.id == country) {
        return Err(Error::not_found("country", &country.to_string()));
    }
    Ok(d::records(canonical, country).unwrap_or_default())
}
