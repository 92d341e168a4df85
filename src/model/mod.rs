//! Serde records of the store and the API, identifiers and status values.
//!
//! Field names are the spec's JSON names, including its two spellings of the
//! audit timestamps (`created_datetime` on most records, `created_date_time`
//! on programs and transaction parameters).

pub mod api_key;
pub mod catalog;
pub mod customer;
pub mod id;
pub mod invariants;
pub mod status;
pub mod txn;

pub use customer::*;
