//! The answers of the API that are not stored records: the id of a create,
//! an update or a delete, the names of the dictionaries, the health check.
//! Each is served as it serializes, and documented by its `JsonSchema`.

use schemars::JsonSchema;
use serde::Serialize;

/// `data` of a create, an update or a delete: the id of the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(rename = "Id")]
pub struct IdRecord {
    /// The record's id (for an attach, the customer_profile_id).
    pub id: String,
}

/// A dictionary's name: `GET /dictionaries/{name}` lists it (`states`:
/// `GET /dictionaries/countries/{country_id}/states`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct DictionaryName {
    /// The name, in the path's spelling (`customer-types`).
    #[schemars(extend("enum" = crate::model::limits::DICTIONARY_NAMES))]
    pub dictionary_name: &'static str,
}

/// `GET /_payctl/health`: the store can be opened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Health {
    /// Always `ok` (a store that cannot be opened answers an error).
    #[schemars(extend("const" = "ok"))]
    pub status: &'static str,
    /// The journal commits this process made (a group commit makes one for
    /// many writes).
    pub commits: u64,
}
