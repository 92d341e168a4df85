//! payctl: administer a payments Facilitator's customers, payment instruments,
//! program attachments and transactions over a local store of JSON files (or
//! PostgreSQL).
//!
//! # Architecture: where each kind of code lives, and why
//!
//! - `api/`: the spec's endpoint table (`endpoints::ENDPOINTS`: method, path,
//!   operation, record kind) and its transports: in process, `payctl serve`
//!   (`server`), remote mode (`client`), the OpenAPI document. One table, so
//!   the CLI, the server and the client cannot disagree on an endpoint.
//! - `cli/`: parses arguments (clap), asks the prompts, renders through
//!   `output`. No rule lives here: a default or a limit a command shows comes
//!   from `core`.
//! - `core/`: the spec's rules (validation, defaults, state transitions, the
//!   worker). It never prints, reads the environment or touches the disk; the
//!   caller passes a `Ctx` and a `Store`. Errors are `error::ApiError`s with
//!   the field's path as data.
//! - `store/`: the only code that touches the disk or the database (atomic
//!   writes, journal, locks, indexes, PostgreSQL), so durability and
//!   permissions are decided in one place. `core` sees it through one
//!   interface at the level of the aggregates (`store::storage`: `Storage`
//!   and its write transaction `StorageTx`, behind the `Store` facade) and
//!   never keeps an index: each backend (the JSON directory, PostgreSQL, the
//!   tests' in-memory `store::memory`) derives its own from the aggregates a
//!   transaction puts. tests/conformance.rs holds every backend to the
//!   interface; tests/model.rs compares the in-memory backend with the JSON
//!   directory over random sequences of operations.
//! - `core/invariants`: the spec's invariants over the aggregates, written
//!   once: every write is held to them before its commit, and every
//!   backend's `store check` reports through them.
//! - `output/`: renders envelopes, tables and ids, and masks sensitive values
//!   on the way out.
//! - `model/`: the records as stored and answered (serde types), shared by
//!   all of the above.
//! - `catalog/`: the built-in catalog and dictionaries, and the loading of a
//!   user's `--catalog FILE`.
//! - `config`: the config file of named contexts (`payctl config`,
//!   `--context`): read, checked and edited with its comments kept. The
//!   command line decides what a context means for a command
//!   (`cli::config`).
//! - `error`: the one error type, its codes and exit codes.
//!
//! Visibility defaults to `pub(crate)`; `pub` is kept for what the binary and
//! the tests use (`cli`, `api::endpoints`, `core::import`, `core::invariants`,
//! `api::call_envelope`) and for `store`.

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
