//! Dynamic shell completion: ids and names from the store.
//!
//! `COMPLETE=bash payctl` prints a small registration script; once it is
//! sourced, each TAB runs `COMPLETE=bash payctl -- WORDS…` and payctl
//! answers the candidates: subcommands and flags from the clap definitions,
//! and the ids and names of the store (profiles, addresses, instruments,
//! programs, applications, templates, transactions, statuses, contexts)
//! from the completers below, which the definitions attach to their
//! arguments (`add = ArgValueCompleter::new(…)`). This is clap_complete's
//! `unstable-dynamic` (`CompleteEnv`), as jj uses it.
//!
//! A completer reads the store the way the command being typed would:
//! `--data-dir`, `--database-url`, `--base-url` and `--context` typed
//! before the word, else `PAYCTL_DATA_DIR`, `PAYCTL_DATABASE_URL`,
//! `PAYCTL_BASE_URL`, `PAYCTL_CONTEXT`, else the current context, else the
//! default data dir. It only reads: a store that does not exist (or is of
//! an older format, or a database without the schema) is not created or
//! upgraded, and completes nothing. It never prompts, and never says
//! anything: an error of any kind is an empty answer. It is bounded: at
//! most [`MAX_CANDIDATES`] candidates that start with what is typed, found
//! in at most [`MAX_SCANNED`] records of a list, a lock waited for at most
//! [`LOCK_WAIT`], a service given [`HTTP_TIMEOUT`].

use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use clap::CommandFactory;
use clap::builder::StyledStr;
use clap_complete::engine::CompletionCandidate;
use serde_json::Value;

use super::{Cli, ColorWhen, GlobalArgs, config, env};
use crate::api::client::Client;
use crate::api::endpoints::{Backend, Op, Params, Request};
use crate::core::paging::{MAX_PAGE_SIZE, PageRequest};
use crate::error::{Error, Result};
use crate::output::Response;
use crate::store::Store;

/// The variable that asks for completion (clap_complete's default).
pub const VAR: &str = "COMPLETE";
/// At most this many candidates for one word.
pub const MAX_CANDIDATES: usize = 1000;
/// At most this many records of a list (profiles, transactions) are read
/// to find the candidates that start with the typed prefix.
pub const MAX_SCANNED: usize = 5000;
/// How long a completion waits for a writer that holds the store.
pub const LOCK_WAIT: Duration = Duration::from_millis(500);
/// Remote mode: how long each phase of an exchange may take.
pub const HTTP_TIMEOUT: Duration = Duration::from_secs(2);

/// The shell that asked (the value of `COMPLETE`, which clap_complete
/// removes from the environment before the completers run).
static SHELL: OnceLock<String> = OnceLock::new();

/// Answer the shell and exit when `COMPLETE` names one; otherwise return at
/// once, having built nothing (a point operation's start-up pays one
/// environment lookup).
pub fn if_asked() {
    let Some(shell) = env::var_os(VAR) else {
        return;
    };
    if shell.is_empty() || shell == "0" {
        return;
    }
    let _ = SHELL.set(shell.to_string_lossy().into_owned());
    // Nothing may reach the terminal in the middle of a command line.
    std::panic::set_hook(Box::new(|_| {}));
    clap_complete::CompleteEnv::with_factory(Cli::command).complete();
}

/// Whether the shell shows a candidate's help (zsh, fish and PowerShell
/// do; bash and elvish show values only).
fn shows_help() -> bool {
    SHELL.get().is_some_and(|s| {
        let name = std::path::Path::new(s)
            .file_stem()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        matches!(name.as_str(), "zsh" | "fish" | "pwsh" | "powershell")
    })
}

/// The words of the command line being completed (after the `--` the
/// registration script passes), and the index of the word at the cursor.
fn command_line() -> (Vec<String>, usize) {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let words: Vec<String> = match argv.iter().position(|a| a == "--") {
        Some(i) => argv[i + 1..].to_vec(),
        None => Vec::new(),
    };
    // bash, zsh and elvish say where the cursor is; fish and PowerShell
    // pass the words up to it.
    let index = env::var("_CLAP_COMPLETE_INDEX")
        .and_then(|i| i.parse::<usize>().ok())
        .unwrap_or(words.len().saturating_sub(1));
    (words, index)
}

/// The words before the one being completed (not the program's name).
fn before_cursor() -> Vec<String> {
    let (words, index) = command_line();
    words
        .into_iter()
        .take(index)
        .skip(1)
        .collect::<Vec<String>>()
}

/// The value of `--long` among `words` (the last one given wins, as clap
/// takes it): `--long VALUE`, `--long=VALUE`, or bash's `--long = VALUE`
/// (bash breaks words at `=`).
fn option_value(words: &[String], long: &str) -> Option<String> {
    let mut found = None;
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if w == "--" {
            break;
        }
        if let Some(v) = w.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
            found = Some(v.to_string());
        } else if w == long {
            let mut next = i + 1;
            if words.get(next).is_some_and(|n| n == "=") {
                next += 1;
            }
            if let Some(v) = words.get(next) {
                found = Some(v.clone());
                i = next;
            }
        }
        i += 1;
    }
    found.map(|v| unquote(&v)).filter(|v| !v.is_empty())
}

/// A word as the shell will hand it to payctl: quotes removed and a
/// leading `~/` expanded (the shell has not done either yet).
fn unquote(word: &str) -> String {
    let w = if word.len() >= 2
        && ((word.starts_with('\'') && word.ends_with('\''))
            || (word.starts_with('"') && word.ends_with('"')))
    {
        &word[1..word.len() - 1]
    } else {
        word
    };
    match (w.strip_prefix("~/"), env::var("HOME")) {
        (Some(rest), Some(home)) => format!("{home}/{rest}"),
        _ => w.to_string(),
    }
}

/// Where the store of the command line being completed is.
enum Source {
    Local(Existing),
    Remote(Client),
}

/// A local store (a directory or a database) that is only ever read, and
/// only when it exists: see [`Store::open_existing`].
struct Existing {
    data_dir: PathBuf,
    database_url: Option<String>,
}

impl Backend for Existing {
    fn read(&self) -> Result<Store> {
        let found = match &self.database_url {
            Some(url) => Store::open_existing_database(url)?,
            None => Store::open_existing(&self.data_dir, LOCK_WAIT)?,
        };
        found.ok_or_else(|| Error::usage("no store to complete from"))
    }
    fn write(&self) -> Result<Store> {
        Err(Error::usage("completion never writes"))
    }
}

impl Source {
    /// The store the typed command would use: its flags, the environment,
    /// the context, the default data dir (see [`config::resolve`]).
    fn of_command_line() -> Option<Source> {
        let words = before_cursor();
        let given = |long: &str, var: &str| option_value(&words, long).or_else(|| env::var(var));
        let g = GlobalArgs {
            data_dir: given("--data-dir", "PAYCTL_DATA_DIR").map(PathBuf::from),
            database_url: given("--database-url", "PAYCTL_DATABASE_URL"),
            output: None,
            context: given("--context", "PAYCTL_CONTEXT"),
            actor: None,
            no_input: true,
            no_headers: false,
            yes: false,
            lock_timeout: LOCK_WAIT.as_secs_f64(),
            color: ColorWhen::Never,
            base_url: given("--base-url", "PAYCTL_BASE_URL"),
            http_timeout: HTTP_TIMEOUT.as_secs_f64(),
            ca_cert: given("--ca-cert", "PAYCTL_CA_CERT").map(PathBuf::from),
        };
        let resolved = config::resolve(&g, &config::Sources::default(), &config::path()).ok()?;
        match &resolved.base_url {
            Some(url) => Client::new(url, resolved.token.clone(), &super::os_user(), HTTP_TIMEOUT)
                .ok()
                .map(Source::Remote),
            None => Some(Source::Local(Existing {
                data_dir: resolved.data_dir.unwrap_or_else(super::default_data_dir),
                database_url: resolved.database_url,
            })),
        }
    }

    fn call(&self, req: &Request) -> Result<Response> {
        match self {
            Source::Remote(client) => client.call(req),
            Source::Local(store) => {
                let ctx = crate::core::Ctx::new("completion", chrono::Utc::now().naive_utc());
                crate::api::endpoints::call(store, &ctx, req)
            }
        }
    }

    /// The records of the list `req`, page by page, until `keep` has
    /// kept [`MAX_CANDIDATES`] of them or [`MAX_SCANNED`] were read.
    fn records(&self, req: Request, keep: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut out = Vec::new();
        let mut after: Option<String> = None;
        let mut scanned = 0;
        while scanned < MAX_SCANNED && out.len() < MAX_CANDIDATES {
            let page = PageRequest {
                size: MAX_PAGE_SIZE,
                number: None,
                after: after.clone(),
            };
            let Ok(resp) = self.call(&req.clone().page(page)) else {
                break;
            };
            let (data, next) = match resp {
                Response::List { data, paging, .. } => (data, paging.last_evaluated_key),
                Response::Records(_, data) => (data, None),
                Response::Id(_) | Response::Raw(_) | Response::Spooled(_) => break,
            };
            scanned += data.len().max(1);
            out.extend(data.into_iter().filter(|r| keep(r)));
            match next {
                Some(key) if Some(&key) != after.as_ref() => after = Some(key),
                _ => break,
            }
        }
        out.truncate(MAX_CANDIDATES);
        out
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// What was typed, when it is text.
fn typed(current: &OsStr) -> Option<&str> {
    current.to_str()
}

/// A candidate with its help, shown by the shells that show help.
fn candidate(value: &str, help: impl FnOnce() -> String) -> CompletionCandidate {
    let c = CompletionCandidate::new(value);
    if shows_help() {
        let h = help();
        if !h.is_empty() {
            return c.help(Some(StyledStr::from(h)));
        }
    }
    c
}

/// Values (and their help) that start with `prefix`, each once, at most
/// [`MAX_CANDIDATES`].
fn matching(
    prefix: &str,
    pairs: impl IntoIterator<Item = (String, String)>,
) -> Vec<CompletionCandidate> {
    let mut seen = std::collections::HashSet::new();
    pairs
        .into_iter()
        .filter(|(v, _)| !v.is_empty() && v.starts_with(prefix) && seen.insert(v.clone()))
        .take(MAX_CANDIDATES)
        .map(|(v, h)| candidate(&v, || h))
        .collect()
}

/// A customer profile's help: its customer_key and name.
fn profile_help(r: &Value) -> String {
    let ind = &r["customer_profile_individual"];
    let name = [text(ind, "first_name"), text(ind, "last_name")]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    [text(r, "customer_key"), name.as_str()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Customer profile ids (`csp_…`), with their customer_key and name.
pub fn profiles(current: &OsStr) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    let records = src.records(Request::new(Op::ProfileList), |r| {
        text(r, "customer_profile_id").starts_with(prefix)
    });
    matching(
        prefix,
        records
            .iter()
            .map(|r| (text(r, "customer_profile_id").to_string(), profile_help(r))),
    )
}

/// The customer profile id typed before the word being completed (the
/// CSP argument of `address get CSP CPA`): the last word that is one.
fn typed_profile() -> Option<String> {
    before_cursor()
        .into_iter()
        .rev()
        .map(|w| unquote(&w))
        .find(|w| w.starts_with("csp_"))
}

/// The ids of a record kind of the profile typed before (addresses,
/// instruments): nothing when no `csp_…` word comes before.
fn of_profile(
    current: &OsStr,
    op: Op,
    id: &str,
    help: fn(&Value) -> String,
) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(csp)) = (typed(current), typed_profile()) else {
        return Vec::new();
    };
    let Some(src) = Source::of_command_line() else {
        return Vec::new();
    };
    let records = src.records(Request::new(op).at([csp]), |r| {
        text(r, id).starts_with(prefix)
    });
    matching(
        prefix,
        records.iter().map(|r| (text(r, id).to_string(), help(r))),
    )
}

/// Address ids (`cpa_…`) of the profile typed before (`address get CSP CPA`).
pub fn addresses(current: &OsStr) -> Vec<CompletionCandidate> {
    of_profile(current, Op::AddressList, "address_id", |r| {
        let default = if r["is_default"] == Value::Bool(true) {
            " (default)"
        } else {
            ""
        };
        format!("{}, {}{default}", text(r, "address_line1"), text(r, "city"))
    })
}

/// Payment instrument ids (`pin_…`) of the profile typed before.
pub fn instruments(current: &OsStr) -> Vec<CompletionCandidate> {
    of_profile(current, Op::InstrumentList, "payment_instrument_id", |r| {
        text(r, "payment_instrument_label").to_string()
    })
}

/// The programs of the catalog: (id, name).
fn catalog_programs(src: &Source) -> Vec<(String, String)> {
    src.records(Request::new(Op::ProgramList), |_| true)
        .iter()
        .map(|r| {
            (
                text(r, "program_id").to_string(),
                text(r, "program_name").to_string(),
            )
        })
        .collect()
}

/// The applications of every program: (id, name).
fn catalog_applications(src: &Source) -> Vec<(String, String)> {
    catalog_programs(src)
        .into_iter()
        .flat_map(|(prm, _)| src.records(Request::new(Op::ApplicationList).at([prm]), |_| true))
        .map(|r| {
            (
                text(&r, "application_id").to_string(),
                text(&r, "application_name").to_string(),
            )
        })
        .collect()
}

/// Ids and names, each with the other as its help.
fn ids_and_names(prefix: &str, pairs: Vec<(String, String)>) -> Vec<CompletionCandidate> {
    let names = pairs.iter().map(|(id, name)| (name.clone(), id.clone()));
    let ids = pairs.iter().map(|(id, name)| (id.clone(), name.clone()));
    matching(prefix, names.chain(ids).collect::<Vec<_>>())
}

/// Program ids (`prm_…`) and program names.
pub fn programs(current: &OsStr) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    ids_and_names(prefix, catalog_programs(&src))
}

/// Application ids (`app_…`) and application names, of every program.
pub fn applications(current: &OsStr) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    ids_and_names(prefix, catalog_applications(&src))
}

/// Transaction template ids (`trt_…`) and template names, of every
/// application.
pub fn templates(current: &OsStr) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    let pairs = catalog_applications(&src)
        .into_iter()
        .flat_map(|(app, _)| src.records(Request::new(Op::TemplateList).at([app]), |_| true))
        .map(|r| {
            (
                text(&r, "transaction_template_id").to_string(),
                text(&r, "transaction_template_name").to_string(),
            )
        })
        .collect();
    ids_and_names(prefix, pairs)
}

/// The name of a transaction status id.
fn status_name(id: u64) -> &'static str {
    crate::core::names::TXN_STATUSES
        .iter()
        .find(|(n, _)| u64::from(*n) == id)
        .map_or("", |(_, name)| name)
}

/// Transaction ids (`trn_…`), with their status and creation time.
pub fn transactions(current: &OsStr) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    let query = Params::default();
    let records = src.records(Request::new(Op::TxnList).query(query), |r| {
        text(r, "transaction_id").starts_with(prefix)
    });
    matching(
        prefix,
        records.iter().map(|r| {
            let status = r["transaction_status_id"].as_u64().map_or("", status_name);
            (
                text(r, "transaction_id").to_string(),
                format!("{status} {}", text(r, "created_datetime"))
                    .trim()
                    .to_string(),
            )
        }),
    )
}

/// Transaction status names (`txn list --status Failed`), any case typed.
pub fn statuses(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(prefix) = typed(current) else {
        return Vec::new();
    };
    let lower = prefix.to_ascii_lowercase();
    crate::core::names::TXN_STATUSES
        .iter()
        .filter(|(_, name)| name.to_ascii_lowercase().starts_with(&lower))
        .map(|(id, name)| candidate(name, || id.to_string()))
        .collect()
}

/// The records of the admin list `op` whose `field` starts with what is
/// typed, with `help` (snapshots, rules).
fn admin_records(
    current: &OsStr,
    op: Op,
    field: &str,
    help: fn(&Value) -> String,
) -> Vec<CompletionCandidate> {
    let (Some(prefix), Some(src)) = (typed(current), Source::of_command_line()) else {
        return Vec::new();
    };
    let records = src.records(Request::new(op), |r| text(r, field).starts_with(prefix));
    matching(
        prefix,
        records
            .iter()
            .map(|r| (text(r, field).to_string(), help(r))),
    )
}

/// Snapshot names, with when each was saved.
pub fn snapshots(current: &OsStr) -> Vec<CompletionCandidate> {
    admin_records(current, Op::SnapshotList, "snapshot_name", |r| {
        text(r, "created_datetime").to_string()
    })
}

/// Outcome rule ids (`rul_…`), with what each matches.
pub fn rules(current: &OsStr) -> Vec<CompletionCandidate> {
    admin_records(current, Op::RuleList, "rule_id", |r| {
        format!("{} {}", text(r, "on"), text(r, "when"))
    })
}

/// The contexts of the config file (`PAYCTL_CONFIG`, else the default).
pub fn contexts(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(prefix) = typed(current) else {
        return Vec::new();
    };
    let Ok(file) = crate::config::Config::load(&config::path()) else {
        return Vec::new();
    };
    let pairs = file.contexts().into_iter().map(|c| {
        let help = match (&c.base_url, &c.database_url, &c.data_dir) {
            (Some(u), _, _) => crate::output::mask::url_password(u),
            (None, Some(_), _) => "a PostgreSQL database".to_string(),
            (None, None, Some(d)) => d.display().to_string(),
            (None, None, None) => String::new(),
        };
        (c.name, help)
    });
    matching(prefix, pairs.collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn an_option_value_in_its_three_spellings_the_last_one_wins() {
        let w = words("--data-dir /a profile get");
        assert_eq!(option_value(&w, "--data-dir").as_deref(), Some("/a"));
        let w = words("--data-dir=/b profile --data-dir = /c get");
        assert_eq!(option_value(&w, "--data-dir").as_deref(), Some("/c"));
        let w = words("--data-dir-x /a profile");
        assert_eq!(option_value(&w, "--data-dir"), None);
        let w = words("profile -- --data-dir /a");
        assert_eq!(option_value(&w, "--data-dir"), None);
    }

    #[test]
    fn the_help_states_the_bounds_the_code_keeps() {
        let help = super::super::COMPLETIONS_HELP;
        assert!(help.contains(&format!("at most {MAX_CANDIDATES} candidates")));
        assert!(help.contains(&format!("among the first {MAX_SCANNED}")));
        for line in help.lines() {
            assert!(line.chars().count() <= 100, "{line}");
        }
    }

    #[test]
    fn a_quoted_word_is_unquoted() {
        assert_eq!(unquote("'/a b'"), "/a b");
        assert_eq!(unquote("\"/a\""), "/a");
        assert_eq!(unquote("/a"), "/a");
    }
}
