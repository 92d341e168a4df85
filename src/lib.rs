//! payctl: administer a payments Facilitator's customers, payment instruments,
//! program attachments and transactions over a local store of JSON files.
//!
//! `cli` parses and renders, `core` holds the spec's rules, `store` alone
//! touches the disk, `output` renders envelopes, tables and ids.

pub mod catalog;
pub mod cli;
pub mod core;
pub mod error;
pub mod model;
pub mod output;
pub mod store;
