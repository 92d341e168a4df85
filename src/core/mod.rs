//! The spec's rules: validation, defaults, state transitions, the worker.
//! Nothing here prints or reads the environment; the caller passes a [`Ctx`].

pub mod address;
pub mod body;
pub mod dict;
pub mod idempotency;
pub mod import;
pub mod instrument;
pub mod migrate;
pub mod paging;
pub mod profile;
pub mod program;
pub mod rules;
pub mod summary;
pub mod txn;
pub mod worker;

use chrono::NaiveDate;

/// Who acts and when: written to the audit fields.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub actor: String,
    /// ISO 8601 without a zone, with fractional seconds (spec 1).
    pub now: String,
    pub today: NaiveDate,
}

impl Ctx {
    pub fn new(actor: &str, now: chrono::NaiveDateTime) -> Self {
        Ctx {
            actor: actor.to_string(),
            now: now.format("%Y-%m-%dT%H:%M:%S%.6f").to_string(),
            today: now.date(),
        }
    }
}
