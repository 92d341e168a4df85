//! payctl: administer a payments Facilitator's customers, payment instruments,
//! program attachments and transactions over a local store of JSON files.
//!
//! `api` is the spec's endpoint table with its transports (in process,
//! `payctl serve`, remote mode), `cli` parses and renders, `core` holds the spec's rules, `store` alone
//! touches the disk, `output` renders envelopes, tables and ids.

pub mod api;
pub(crate) mod catalog;
pub mod cli;
pub mod core;
pub(crate) mod error;
pub(crate) mod model;
pub(crate) mod output;
pub mod store;
