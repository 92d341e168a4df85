//! The command line: global options, dispatch, and the mapping of results to
//! output and exit codes. No business rule and no file I/O on the store here.

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
use crate::api::endpoints::{Backend, Request};
use crate::core::Ctx;
use crate::error::{Error, Result, code};
use crate::output::ui::{Settings, Ui};
use crate::output::{self, Format, Response};
use crate::store::{Mode, Opened, Store};

pub const AFTER_HELP: &str = "\
Exit codes: 0 success; 1 refused (validation, not found, conflict: see errors[].code);
2 usage error; 3 the store could not be used (lock timeout, corrupt file, I/O, newer format),
or the answer could not be written (stderr then says whether a change was committed, and its id);
4 the change was committed but --wait gave up (stdout has the answer, stderr what is pending).

Environment: PAYCTL_DATA_DIR, PAYCTL_DATABASE_URL, PAYCTL_OUTPUT, PAYCTL_ACTOR, PAYCTL_NO_INPUT,
PAYCTL_BASE_URL, PAYCTL_TOKEN, PAYCTL_CONTEXT, PAYCTL_CONFIG, PAYCTL_ID_SEED (tests), NO_COLOR.
Precedence: flags, then environment variables, then the context (`payctl config`), then defaults.

Examples:
  payctl demo
  CSP=$(payctl profile create --body profile.json -o id)
  payctl profile list --all -o jsonl | jq -r '.customer_key'";

/// The long help, also the EXTRA section of the man page.
pub const AFTER_LONG_HELP: &str = "\
EXIT CODES
  0  success
  1  the request was refused: validation, not found, conflict (see errors[].code)
  2  usage error (unknown command or flag; a destructive command without --yes where no one can be asked;
     an unknown --context, a config file that is not valid: the message names its file and line)
  3  the store could not be used: lock timeout, unreadable or corrupt file, I/O error, newer store format;
     or the answer could not be written to stdout: when a change was committed, stderr says
     \"the change was committed\" and names its id (a retry with the same --idempotency-key answers it)
  4  the change was committed, but what was asked beyond it did not finish: --wait gave up. stdout
     carries the answer (the id with -o id), stderr says what is still pending (30005): poll it,
     never create it again

ERROR CODES (errors[].code)
  10000 Invalid Usage              10001 Invalid Value              10002 Required Value Missing
  10003 Value Cannot Be Updated    10004 Unknown Field              10005 Malformed Body
  10006 Confirmation Required      10007 Unauthorized (HTTP 401)    10008 Method Not Allowed (HTTP 405)
  10009 Body Too Large (HTTP 413)  20001 Record Not Found           20002 Route Not Found (HTTP 404)
  21001 Customer Profile already attached to the program            21002 Customer key already in use
  21003 Default address cannot be deleted                           21004 Customer Profile not attached to the program
  21005 Idempotency key reused with another request                  21006 API key name already in use
  30001 Store busy                 30002 Store unreadable           30003 Store I/O error
  30004 Store format not supported 30005 Timed out (--wait gave up; exit 4)
  30006 Store check found problems 30009 Store owned by another user
  30010 Write would break an invariant (a bug in payctl: nothing written)
  30007 Service unreachable (remote mode: nothing was sent)
  30008 Unexpected response (remote mode: the answer is not the envelope)
  30020 Outcome Unknown (remote mode: sent, no answer; it may have been applied)
  30016 Database unreachable       30017 Database error             30018 Migration target not empty
  30019 Database serialization retries exhausted

ENVIRONMENT
  PAYCTL_DATA_DIR   the store (like --data-dir)
  PAYCTL_DATABASE_URL  a PostgreSQL database as the store (like --database-url)
  PAYCTL_OUTPUT     table, json, jsonl or id (like -o)
  PAYCTL_ACTOR      the name written to created_by / modified_by (like --actor)
  PAYCTL_NO_INPUT   never prompt (like --no-input)
  PAYCTL_ALLOW_OTHER_OWNER=1  write a store whose directory another user owns (refused otherwise: 30009)
  PAYCTL_BASE_URL   remote mode: the service to send commands to (like --base-url)
  PAYCTL_TOKEN      remote mode: sent as `Authorization: Bearer` (wins over a context's token-env)
  PAYCTL_CONTEXT    the context of the config file to use (like --context)
  PAYCTL_CONFIG     the config file (default: $XDG_CONFIG_HOME/payctl/config.toml)
  PAYCTL_SERVE_TOKEN  serve: the token every request must carry (like serve --token)
  PAYCTL_ID_SEED    a testing aid: ids from a deterministic generator seeded with this whole number,
                    the same for the same requests in the same order (serve warns when it is set)
  NO_COLOR          no colour on a terminal

FILES
  ~/.config/payctl/config.toml  the contexts (`payctl config`; $XDG_CONFIG_HOME, or PAYCTL_CONFIG)
  ~/.local/share/payctl   the default store (the platform data dir)
  <store>/payctl.lock     the writers' turn (a writer waits here; readers pass through); the
                          store's directory is the lock readers share and a writer holds
  <store>/meta.json       the format version
  <store>/catalog.json    programs, applications, templates, the Facilitator's settings
  <store>/customers/      one file per customer (profile, addresses, instruments, attachments)
  <store>/transactions/   one file per transaction (parameters, steps)
  <store>/index/, queue/  derived indexes and the worker's queue (rebuilt by `store check --repair`)
  <store>/idempotency/    the --idempotency-key records of the last 24 hours (never rebuilt or removed by repair)
  <store>/keys.json       the API keys of `payctl serve` (the SHA-256 of each secret, never the secret);
                          keys-used.json their last use (`payctl key`)
  <store>/rules.json      the outcome rules of `payctl sim rule`; sim/ the reads they count
  <store>/snapshots/      the snapshots of `payctl store snapshot` (restore.json while one is restored)

EXAMPLES
  payctl demo
  CSP=$(payctl profile create --body profile.json -o id)
  payctl program attach \"$(payctl program list -o id)\" \"$CSP\" && payctl worker
  payctl profile list --all -o jsonl | jq -r '.customer_key'";

/// `payctl completions --help`: the dynamic completion's install lines,
/// and what the static scripts are for (see `complete`).
pub const COMPLETIONS_HELP: &str = "\
Dynamic completion (recommended): payctl answers each TAB itself, so it completes subcommands
and flags, and also the ids and names of the store: profiles, addresses, instruments, programs,
applications, templates, transactions, statuses and contexts. Add your shell's line to its
start-up file, then open a new shell:
  bash        echo 'source <(COMPLETE=bash payctl)' >> ~/.bashrc
  zsh         echo 'source <(COMPLETE=zsh payctl)' >> ~/.zshrc        # after compinit
  fish        echo 'COMPLETE=fish payctl | source' > ~/.config/fish/completions/payctl.fish
  PowerShell  add these two lines to $PROFILE:
                $env:COMPLETE = \"powershell\"; payctl | Out-String | Invoke-Expression
                Remove-Item Env:\\COMPLETE
  elvish      echo 'eval (E:COMPLETE=elvish payctl | slurp)' >> ~/.config/elvish/rc.elv
The script is generated at each start of the shell, so it always matches the payctl installed.
Ids are read from the store the command line names: --data-dir, --database-url, --base-url or
--context typed before the word, else PAYCTL_DATA_DIR, PAYCTL_DATABASE_URL, PAYCTL_BASE_URL,
PAYCTL_CONTEXT, else the current context, else the default store. Completing only reads: a
store that does not exist is not created (nothing is completed), nothing is prompted or printed,
and at most 1000 candidates that start with what is typed are offered (profiles and transactions:
found among the first 5000). An address or instrument id is completed after the customer
profile id typed before it.

Static scripts (this command): subcommands, flags and fixed values (formats, dictionary names)
only, no ids, and the global options right after `payctl` only; they do not run payctl. For a
package that installs completion files, or a system where payctl is not on PATH when the shell
starts. Regenerate them after an upgrade.

Examples:
  source <(COMPLETE=bash payctl)
  payctl completions bash > ~/.local/share/bash-completion/completions/payctl
  payctl completions zsh > ~/.zfunc/_payctl   # with fpath+=(~/.zfunc) before compinit";

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

/// Everything a command needs from the global options.
pub struct Global {
    pub data_dir: PathBuf,
    /// --database-url: the store is this database, not `data_dir`.
    pub database_url: Option<String>,
    /// Whether --data-dir on the command line named the store
    /// (PAYCTL_DATA_DIR alone does not: `demo` never writes into it).
    pub data_dir_explicit: bool,
    pub actor: String,
    pub yes: bool,
    /// A `--all` list closed its open JSON envelope with its error: the
    /// error is printed already.
    pub stream_closed: std::sync::atomic::AtomicBool,
    pub lock_timeout: Duration,
    /// The streams: output format, colour, whether prompts are possible.
    pub ui: Ui,
    /// Remote mode: the service every command with an endpoint goes to.
    pub remote: Option<Client>,
    /// What a command that committed its change could not finish (`--wait`
    /// gave up): its answer still goes to stdout, this to stderr, exit 4.
    unfinished: std::sync::Mutex<Option<Error>>,
    /// The context of the config file whose store this command uses.
    pub context: Option<config::Used>,
    /// What the commits of the stores this command opened did (see
    /// [`crate::store::Outcomes`]): the warnings printed at its end, and
    /// whether a lost answer was a change's.
    pub outcomes: std::sync::Arc<crate::store::Outcomes>,
}

impl Global {
    pub fn ctx(&self) -> Ctx {
        Ctx::new(&self.actor, chrono::Utc::now().naive_utc())
    }

    /// How a command waits for the store's lock: up to --lock-timeout,
    /// saying on stderr what it waits for, and stopping on the worker's
    /// SIGINT/SIGTERM.
    pub fn wait(&self) -> crate::store::lock::Wait {
        let ui = self.ui;
        crate::store::lock::Wait {
            timeout: self.lock_timeout,
            on_wait: Some(std::sync::Arc::new(move |what: &str| {
                ui.err_line(format_args!("waiting for {what}"))
            })),
            stop: Some(worker::interrupt::flag()),
        }
    }

    /// Where the store is: --data-dir, or --database-url.
    pub fn place(&self) -> crate::store::Place<'_> {
        crate::store::Place {
            data_dir: &self.data_dir,
            database_url: self.database_url.as_deref(),
        }
    }

    fn open(&self, mode: Mode) -> Result<Store> {
        self.open_as(mode, crate::store::By::Command)
    }

    /// The store for `store check` (`mode`: shared, or exclusive for
    /// `--repair`): the one command that opens a store whose rebuild was
    /// interrupted, to report it and to finish it.
    pub fn open_to_check(&self, mode: Mode) -> Result<Store> {
        self.open_as(mode, crate::store::By::Check)
    }

    /// The store, through the one opener ([`crate::store::open()`]); a
    /// store created or upgraded now is noted on stderr.
    fn open_as(&self, mode: Mode, by: crate::store::By<'_>) -> Result<Store> {
        let upgrading = |from| {
            // (From 7, only the version changes, and from 10 the event
            // log's record index: see `JsonStore::upgrade`.)
            let what = if from >= 10 {
                "its event log's record index is brought to this format from its own lines (one atomic commit)"
            } else if from >= 7 {
                "only its format version changes (one atomic commit)"
            } else {
                "its indexes are rebuilt from every record, once (one atomic commit)"
            };
            self.ui.err_line(format_args!(
                "note: upgrading the store at {} from format {from} to {}: {what}",
                self.data_dir.display(),
                crate::store::FORMAT_VERSION
            ))
        };
        let (store, opened) = crate::store::open(self.place(), mode, self.wait(), by, upgrading)?;
        if opened == Opened::Created {
            match &self.database_url {
                Some(_) => self.ui.err_line(format_args!(
                    "note: created a new store with the built-in catalog in the database {}",
                    store.describe()
                )),
                None => self.ui.err_line(format_args!(
                    "note: created a new store with the built-in catalog at {}",
                    self.data_dir.display()
                )),
            }
        }
        store.report_to(&self.outcomes);
        Ok(store)
    }

    /// Send a request of the endpoint table: to the service in remote mode,
    /// else to the local store in process.
    pub fn call(&self, req: Request) -> Result<Response> {
        use crate::api::client::Note;
        let (resp, note) = match &self.remote {
            Some(client) => client.call_noted(&req)?,
            None => crate::api::endpoints::call_replayed(self, &self.ctx(), &req)
                .map(|(r, replayed)| (r, replayed.then_some(Note::Replayed)))?,
        };
        match note {
            Some(Note::Replayed) => self.ui.err_line(
                "note: --idempotency-key was used before for this same request: answering its id, nothing was changed",
            ),
            Some(Note::DeletedBefore) => self.ui.err_line(
                "note: the first answer to this delete was lost and the record was gone when it was sent again: the first one deleted it",
            ),
            None => {}
        }
        Ok(resp)
    }

    /// The change is committed but what was asked beyond it did not finish
    /// (`--wait` gave up): the command answers its change as usual, then
    /// `err` goes to stderr and the exit code is 4 (CLI.md "Exit codes").
    pub fn unfinished(&self, err: Error) {
        let mut slot = self.unfinished.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_mut() {
            Some(first) => first.errors.extend(err.errors),
            None => *slot = Some(err),
        }
    }

    /// Refuse a command that has no endpoint in remote mode (exit 2).
    pub fn local_only(&self, what: &str) -> Result<()> {
        if self.remote.is_some() {
            let how = match &self.context {
                Some(c) => format!(
                    "the context `{}` ({}) names a service: give --data-dir, or --context \
                     with a context of a local store",
                    c.name,
                    c.file.display()
                ),
                None => "unset --base-url / PAYCTL_BASE_URL and use --data-dir".to_string(),
            };
            return Err(Error::usage(format!(
                "`payctl {what}` works on a local store only (it has no endpoint); {how}"
            )));
        }
        Ok(())
    }

    /// The store with a shared lock, for reading.
    pub fn read(&self) -> Result<Store> {
        self.open(Mode::Shared)
    }

    /// The store with the exclusive lock, for a read-modify-write.
    pub fn write(&self) -> Result<Store> {
        self.open(Mode::Exclusive)
    }

    /// The catalog that the prompts offer and check answers against: the
    /// programs through the endpoint table (`GET /programs`), so that in
    /// remote mode they are the service's (never the local store's, which
    /// may not exist and is not where the create goes). The Facilitator's
    /// age limits are not part of the API: the local store's are checked at
    /// the prompt; in remote mode the prompts accept any plausible date of
    /// birth and the service decides.
    pub fn prompt_catalog(&self) -> Result<crate::model::catalog::Catalog> {
        use crate::model::catalog::{Catalog, Facilitator, Program};
        let mut programs = Vec::new();
        let mut after = None;
        loop {
            let page = crate::core::paging::PageRequest {
                size: crate::core::paging::MAX_PAGE_SIZE,
                number: None,
                after: after.clone(),
            };
            let req = Request::new(crate::api::endpoints::Op::ProgramList).page(page);
            let (records, next) = match self.call(req)? {
                Response::List { data, paging, .. } => (data, paging.last_evaluated_key),
                Response::Records(_, data) => (data, None),
                Response::Id(_) | Response::Raw(_) | Response::Spooled(_) => (Vec::new(), None),
            };
            let text =
                |v: &serde_json::Value, k: &str| v[k].as_str().unwrap_or_default().to_string();
            programs.extend(records.iter().map(|p| Program {
                program_id: text(p, "program_id"),
                program_name: text(p, "program_name"),
                program_description: text(p, "program_description"),
                program_display_name: text(p, "program_display_name"),
                created_by: text(p, "created_by"),
                created_date_time: text(p, "created_date_time"),
                modified_by: text(p, "modified_by"),
                modified_date_time: text(p, "modified_date_time"),
                applications: Vec::new(),
            }));
            // (A key that does not move on would never end: the last page.)
            match next {
                Some(key) if after.as_ref() != Some(&key) => after = Some(key),
                _ => break,
            }
        }
        // The age limits are checked by a dry run of the create through the
        // table (see `prompt::profile_form`), the store's or the service's:
        // here only the form of a date.
        let facilitator = Facilitator {
            min_age: 0,
            max_age: 150,
        };
        Ok(Catalog {
            facilitator,
            programs,
        })
    }

    /// Ask before a destructive change. Without a terminal to ask on, only
    /// `--yes` allows it (exit 2 otherwise, nothing changed).
    pub fn confirm(&self, what: &str) -> Result<()> {
        if self.yes {
            return Ok(());
        }
        if !self.ui.interactive() {
            return Err(Error {
                kind: crate::error::ErrorKind::Usage,
                errors: vec![crate::error::ApiError::new(
                    code::CONFIRMATION_REQUIRED,
                    format!("{what}: nothing was changed; pass --yes to confirm without a prompt"),
                )],
            });
        }
        let ok = dialoguer::Confirm::new()
            .with_prompt(format!("{what}?"))
            .default(false)
            .interact_on(&self.ui.prompt_term())
            .unwrap_or(false);
        if ok {
            Ok(())
        } else {
            // Declining is an answer, not a usage error: refused (exit 1).
            Err(Error::refused(vec![crate::error::ApiError::new(
                code::CONFIRMATION_REQUIRED,
                format!("{what}: declined at the prompt, not confirmed: nothing was changed"),
            )]))
        }
    }
}

impl Backend for Global {
    fn read(&self) -> Result<Store> {
        Global::read(self)
    }
    fn write(&self) -> Result<Store> {
        Global::write(self)
    }
    fn outcomes(&self) -> Option<&crate::store::Outcomes> {
        Some(&self.outcomes)
    }
}

use run::{default_data_dir, os_user};
pub use run::{main, run};
