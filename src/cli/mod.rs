//! The command line: global options, dispatch, and the mapping of results to
//! output and exit codes. No business rule and no file I/O on the store here.
//!
//! This file holds the command line's shape (the global options and the
//! commands); [`Global`] is what a command gets from those options, and
//! `help.rs` holds the long texts of `--help`.

pub mod address;
pub mod args;
mod change;
pub mod complete;
pub mod config;
pub mod demo;
pub mod dict;
pub mod docs;
mod env;
pub mod events;
mod flags;
mod global;
mod help;
pub mod instrument;
pub mod key;
mod list;
pub mod profile;
pub mod program;
pub mod prompt;
mod run;
pub mod serve;
pub mod sim;
mod snapshot;
pub mod store;
pub mod template;
pub mod txn;
pub mod usage;
pub mod webhook;
pub mod worker;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use crate::api::client::Client;
use crate::error::{Error, Result, code};
use crate::output::ui::{Settings, Ui};
use crate::output::{self, Format, Response};
use crate::store::Store;

pub use global::Global;
pub use help::{AFTER_HELP, AFTER_LONG_HELP, COMPLETIONS_HELP};

/// Administer a payments Facilitator's customer profiles, addresses, bank-account
/// payment instruments, program attachments and transactions, over a local data
/// directory of JSON files.
#[derive(Debug, Parser)]
#[command(name = "payctl", version, after_help = AFTER_HELP, args_override_self = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
    /// Whether `--data-dir` was given on this command line (not only by
    /// `PAYCTL_DATA_DIR`): `demo` writes into a store only then.
    #[arg(skip)]
    pub data_dir_on_command_line: bool,
    /// Which global options the environment set (contexts come after it).
    #[arg(skip)]
    pub sources: config::Sources,
}

/// Whether `id` was given on the command line at any level of `m` (a
/// global option may follow the subcommand).
fn on_command_line(m: &clap::ArgMatches, id: &str) -> bool {
    if m.try_contains_id(id).unwrap_or(false)
        && m.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    {
        return true;
    }
    m.subcommand()
        .is_some_and(|(_, sub)| on_command_line(sub, id))
}

/// Which global options took their value from the environment.
fn sources(m: &clap::ArgMatches) -> config::Sources {
    let from_env = |id: &str| {
        m.try_contains_id(id).unwrap_or(false)
            && m.value_source(id) == Some(clap::parser::ValueSource::EnvVariable)
    };
    config::Sources {
        store_env: [
            ("base_url", "PAYCTL_BASE_URL"),
            ("database_url", "PAYCTL_DATABASE_URL"),
            ("data_dir", "PAYCTL_DATA_DIR"),
        ]
        .into_iter()
        .filter(|(id, _)| from_env(id))
        .map(|(_, var)| var)
        .collect(),
        context_env: from_env("context"),
    }
}

pub use crate::output::ui::ColorWhen;

#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// The store (default: the platform data dir, ~/.local/share/payctl on Linux)
    #[arg(long, env = "PAYCTL_DATA_DIR", global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// A PostgreSQL database as the store instead of --data-dir:
    /// postgresql://user:password@host:port/dbname[?sslmode=…&sslrootcert=PATH]
    #[arg(
        long,
        env = "PAYCTL_DATABASE_URL",
        hide_env_values = true,
        global = true,
        value_name = "URL"
    )]
    pub database_url: Option<String>,
    /// Output format: table, json, jsonl (one record per line) or id [default: table on a
    /// terminal, else json]
    #[arg(
        short = 'o',
        long,
        env = "PAYCTL_OUTPUT",
        ignore_case = true,
        global = true,
        value_enum,
        hide_possible_values = true,
        value_name = "FORMAT"
    )]
    pub output: Option<Format>,
    /// The context of the config file to use (see `payctl config`) [default: its
    /// current-context]
    #[arg(
        long,
        env = "PAYCTL_CONTEXT",
        global = true,
        value_name = "NAME",
        add = clap_complete::ArgValueCompleter::new(complete::contexts)
    )]
    pub context: Option<String>,
    /// Name written to created_by / modified_by, 1-64 characters [default: the OS user name]
    #[arg(
        long,
        env = "PAYCTL_ACTOR",
        hide_env_values = true,
        global = true,
        value_name = "NAME"
    )]
    pub actor: Option<String>,
    /// Never prompt (prompts happen only when stdin is a terminal)
    #[arg(long, env = "PAYCTL_NO_INPUT", global = true, action = clap::ArgAction::SetTrue,
          value_parser = clap::builder::FalseyValueParser::new())]
    pub no_input: bool,
    /// Tables without their header row and page footer (rows only, for `awk` and `cut`)
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Confirm destructive commands without asking
    #[arg(short = 'y', long, global = true)]
    pub yes: bool,
    /// Seconds to wait for another payctl that holds the store
    #[arg(long, global = true, default_value_t = 30.0, value_name = "SECS", allow_negative_numbers = true, value_parser = args::parse_secs)]
    pub lock_timeout: f64,
    /// Colour: auto, always, never (NO_COLOR is respected)
    #[arg(long, global = true, value_enum, default_value_t = ColorWhen::Auto, value_name = "WHEN", hide_possible_values = true)]
    pub color: ColorWhen,
    /// Remote mode: send each command to the service at URL; PAYCTL_TOKEN is its bearer token
    #[arg(long, env = "PAYCTL_BASE_URL", global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Remote mode: seconds to wait for each phase of an exchange (then 30007 when nothing
    /// was sent, 30020 once the request went out)
    #[arg(long, global = true, default_value_t = 30.0, value_name = "SECS", value_parser = args::parse_secs)]
    pub http_timeout: f64,
    /// Remote mode over https://: trust only the CA certificates of this PEM file
    #[arg(long, env = "PAYCTL_CA_CERT", global = true, value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Customer profiles (/customer-profiles)
    #[command(subcommand)]
    Profile(profile::ProfileCommand),
    /// Addresses of a customer profile (/customer-profiles/{id}/addresses)
    #[command(subcommand)]
    Address(address::AddressCommand),
    /// Bank-account payment instruments of a customer profile (/customer-profiles/{id}/payment-instruments)
    #[command(subcommand)]
    Instrument(instrument::InstrumentCommand),
    /// Programs, their applications, and attaching customers (/programs)
    #[command(subcommand)]
    Program(program::ProgramCommand),
    /// Transaction templates and their steps (/applications/{id}/transaction-templates)
    #[command(subcommand)]
    Template(template::TemplateCommand),
    /// Transactions, their parameters and steps (/transactions)
    #[command(subcommand)]
    Txn(txn::TxnCommand),
    /// Dictionaries: the values other requests refer to by number (/dictionaries)
    #[command(subcommand)]
    Dict(dict::DictCommand),
    /// The event log: what changed, who changed it, when (GET /events; ours)
    #[command(subcommand, after_help = events::EVENTS_HELP)]
    Events(events::EventsCommand),
    /// One record's events, oldest first: who changed it, when, and what it became (ours)
    #[command(
        after_help = "Examples:\n  payctl history csp_…             # a profile, its attachments too\n  payctl history trn_… -o table      # a transaction's statuses"
    )]
    History(events::HistoryArgs),
    /// Webhooks: events POSTed, signed, to your URLs, with retries (/webhooks; ours)
    #[command(subcommand, after_help = webhook::WEBHOOK_HELP)]
    Webhook(webhook::WebhookCommand),
    /// Follow the events and POST each, signed, to a local URL (development; ours)
    #[command(
        after_help = "Prints the signing secret once on stderr, then one line per event forwarded on stdout:
`TIME TYPE EVT -> POST URL STATUS (N ms)`. From now on, until Ctrl-C; no retries. Works on the
local store or through --base-url (GET /events).

Example:
  payctl listen --forward-to http://localhost:3000/hooks --events 'transaction.*'"
    )]
    Listen(webhook::ListenArgs),
    /// Do the background work: attachments, transaction steps
    ///
    /// Bring every queued item as far as it can go: Pending attachments become
    /// Attached; Created transactions get their steps, which then run.
    ///
    /// Prints `data: [{"attachments_processed", "transactions_processed",
    /// "steps_created", "steps_completed", "steps_failed"}]` when done (`-o id`
    /// prints nothing: the summary is not a record and has no id). Records are
    /// written with the actor SYSTEM (--actor is ignored).
    ///
    /// The queue is worked in batches of up to 200 items; each batch is one atomic
    /// commit under the store's exclusive lock, which is released between batches
    /// so that other commands can run. Several workers may run at once: no item is
    /// processed twice. An item whose record cannot be read (a corrupt file) is
    /// left queued and the others go on; the run then exits 3 with one error per
    /// such item (`payctl store check` names the file), the summary of what was
    /// done on stderr. Ctrl-C or SIGTERM lets the batch in hand finish and be
    /// committed, then the worker stops and prints what it did (exit 0); a second
    /// Ctrl-C, or a kill, stops it at once, and the store still holds either the
    /// whole batch or none of it (the next payctl completes a committed batch).
    Worker(worker::WorkerArgs),
    /// Create a store, with the built-in catalog or your own
    #[command(
        after_help = "Examples:\n  payctl init\n  payctl --data-dir ./store init --catalog catalog.json   # the shape of the built-in catalog"
    )]
    Init(InitArgs),
    /// The store: integrity, migration, snapshots and reset
    #[command(subcommand)]
    Store(store::StoreCommand),
    /// Outcomes on demand for test suites: rules for the background work (ours)
    #[command(subcommand, after_help = sim::SIM_HELP)]
    Sim(sim::SimCommand),
    /// Contexts: named stores and services in a config file, picked with --context
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Print a static completion script; --help says how to install the dynamic one, which completes ids and names too
    #[command(after_help = COMPLETIONS_HELP)]
    Completions {
        /// bash, zsh, fish, powershell or elvish
        shell: clap_complete::Shell,
    },
    /// Serve the HTTP API over the store (ours)
    #[command(after_help = serve::SERVE_HELP)]
    Serve(serve::ServeArgs),
    /// API keys of `payctl serve`: create (the secret shown once), list, revoke (ours)
    #[command(subcommand, after_help = key::KEY_HELP)]
    Key(key::KeyCommand),
    /// Print the OpenAPI 3.1 document of the API that `payctl serve` serves (ours)
    #[command(
        after_help = "Example:\n  payctl openapi > openapi.json   # the same as GET /openapi.json of `payctl serve`"
    )]
    Openapi,
    /// Tour the whole lifecycle on a scratch store (a temporary directory unless --data-dir is given on this command line; PAYCTL_DATA_DIR and PAYCTL_DATABASE_URL are never written)
    Demo(demo::DemoArgs),
    /// Write completions/ and man/ into DIR (for maintainers)
    #[command(hide = true)]
    GenerateDocs {
        /// The repository root
        dir: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// A catalog of Programs, Applications and Templates as JSON (the shape of the built-in one; at most 16 MiB)
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
}

use run::{default_data_dir, os_user};
pub use run::{main, run};
