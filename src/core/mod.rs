//! The spec's rules: validation, defaults, state transitions, the worker.
//! Nothing here prints or reads the environment; the caller passes a [`Ctx`].

pub(crate) mod address;
pub mod api_keys;
pub(crate) mod body;
pub mod deliver;
pub(crate) mod dict;
pub mod events;
pub(crate) mod idempotency;
pub mod import;
pub(crate) mod instrument;
pub use crate::model::invariants;
pub(crate) mod migrate;
pub(crate) mod names;
pub(crate) mod paging;
pub(crate) mod profile;
pub(crate) mod program;
pub(crate) mod rules;
pub(crate) mod sim;
pub(crate) mod snapshot;
pub(crate) mod summary;
pub(crate) mod txn;
pub mod webhooks;
pub(crate) mod worker;

use chrono::NaiveDate;

/// Who acts and when: written to the audit fields.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub actor: String,
    /// ISO 8601 without a zone, with fractional seconds (spec 1).
    pub now: String,
    pub today: NaiveDate,
}

/// How the audit fields write a time, and what it writes as a pattern (see
/// [`crate::model::limits::TIME_FORMAT`]).
pub use crate::model::limits::{TIME_FORMAT, TIME_PATTERN};

impl Ctx {
    pub fn new(actor: &str, now: chrono::NaiveDateTime) -> Self {
        Ctx {
            actor: actor.to_string(),
            now: now.format(TIME_FORMAT).to_string(),
            today: now.date(),
        }
    }
}
