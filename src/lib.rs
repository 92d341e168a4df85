//! payctl: administer a payments Facilitator's customers, payment instruments,
//! program attachments and transactions over a local store of JSON files (or
//! PostgreSQL).
//!
//! # Architecture: where each kind of code lives, and why
//!
//! The top-level modules form layers, lowest first: `model`, `mask`,
//! `limits`, `error`, `text`, `catalog`, `store`, `core`, `output`,
//! `config`, `api`, `cli`. A module names (through `crate::`) only those
//! below it; tests/it/layers.rs fails on an import that goes upward, so no two
//! layers depend on each other.
//!
//! - `model/`: the records as stored and answered (serde types), and the
//!   spec's invariants over them (`model::invariants`, also reachable as
//!   `core::invariants`): every write is held to them before its commit,
//!   and every backend's `store check` reports through them.
//! - `mask`, `limits`, `text`: leaves that every layer shares: masking of
//!   sensitive values (also `output::mask`), the caps of fields, bodies and
//!   records and `--actor`'s length (also `core::rules::caps`), the text
//!   rules (no control or invisible characters, no JSON key twice).
//! - `error`: the one error type, its codes and exit codes, and the errors
//!   several layers build (`key_in_use`, `name_in_use`).
//! - `catalog/`: the built-in catalog and dictionaries, and the loading of a
//!   user's `--catalog FILE`.
//! - `store/`: the only code that touches the disk or the database. `core`
//!   sees it through one interface at the level of the aggregates
//!   (`store::storage`: `Storage` and its write transaction `StorageTx`,
//!   behind the `Store` facade of `store::backend`; the types every backend
//!   shares in `store::types`) and never keeps an index: each backend
//!   derives its own from the aggregates a transaction puts. The backends:
//!   the JSON directory (`store::json`: layout, open and upgrade, reads,
//!   transactions, journal, group commit, indexes, check and repair),
//!   PostgreSQL (`store::pg`), the tests' in-memory `store::memory`, and
//!   the dry-run overlay `store::dry`. tests/it/conformance.rs holds every
//!   backend to the interface; tests/it/model.rs compares the in-memory backend
//!   with the JSON directory over random sequences of operations.
//! - `core/`: the spec's rules (validation, defaults, state transitions, the
//!   worker). It never prints and never touches the disk itself; the caller
//!   passes a `Ctx` and a `Store`. It knows no backend's internals (a
//!   commit says how it ended: `store::Tx::commit_outcome`; a backend's
//!   limits and names come through the `Store` facade) and never reads the
//!   environment (the tests' knobs are read in `store::fault`, behind the
//!   `fault-injection` feature).
//!   Errors are `error::ApiError`s with the field's path as data.
//! - `output/`: renders envelopes, tables and ids, and masks sensitive values
//!   on the way out.
//! - `config`: the config file of named contexts (`payctl config`,
//!   `--context`): read, checked and edited with its comments kept. The
//!   command line decides what a context means for a command
//!   (`cli::config`).
//! - `api/`: the spec's endpoint table (`endpoints::ENDPOINTS`: method, path,
//!   operation, record kind) and its transports: in process, `payctl serve`
//!   (`server`, with its API keys in `auth`), remote mode (`client`), the
//!   OpenAPI document. The commands go through the table, so the CLI, the
//!   server and the client agree on an endpoint: the worker
//!   (`endpoints::worker_run`), `address delete`'s pre-check (its own dry
//!   run) and the prompts' list of programs included. Two paths still
//!   reach core past it: a local `profile import` (one line reader,
//!   `core::import::Lines`, feeds it and the remote import of
//!   `api::import`), and the prompts' age limits of the Facilitator, which
//!   no endpoint answers. One function opens a store (`store::open`).
//! - `cli/`: parses arguments (clap), asks the prompts, renders through
//!   `output`. Its rules are core's (defaults and limits it shows come from
//!   `core` and `limits`), though it still decides a few of its own (the
//!   prompts' forms, `--actor`'s check).
//!
//! Visibility defaults to `pub(crate)`; `pub` is kept for what the binary and
//! the tests use (`api`, `cli`, `core`, `store`, and the leaves `limits` and
//! `mask` that they re-export).

pub mod api;
pub(crate) mod catalog;
pub mod cli;
pub(crate) mod config;
pub mod core;
pub(crate) mod error;
pub mod limits;
pub mod mask;
pub(crate) mod model;
pub(crate) mod output;
pub mod store;
pub(crate) mod text;
