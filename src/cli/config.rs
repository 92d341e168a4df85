//! `payctl config …`: the contexts of the config file, and what a context
//! means for a command (`--context`, `PAYCTL_CONTEXT`, `current-context`).
//!
//! Precedence (CLI.md "Contexts"): flags, then environment variables, then
//! the context, then the defaults. Where the store is (a service, a
//! database or a directory) is one setting: when a flag or a variable names
//! any of `--base-url`, `--database-url`, `--data-dir`, the context's store
//! is not used at all, so a context's `base-url` never turns a command given
//! `--data-dir` into a remote one. A context's `token-env` is read only for
//! the context's own `base-url` (a token is never sent to another service),
//! and `PAYCTL_TOKEN` still wins over it. The config file is read only when
//! a context may be used: a command whose store a flag or variable names,
//! and that names no context, does not depend on the file.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use clap_complete::ArgValueCompleter;
use serde_json::{Value, json};

use super::complete;
use super::{GlobalArgs, env};
use crate::config::{self, Config, Context};
use crate::error::{Error, Result, code, shown_id};
use crate::output::ui::Ui;
use crate::output::{RecordKind, Response};

// Not deferred (as the other command groups are): set-context's options
// must exist before the global options are propagated, to take their place.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Show the contexts of the config file, the current one marked (a database-url's password is masked; tokens are never in the file)
    #[command(
        after_help = "Examples:\n  payctl config view\n  payctl config view -o json | jq -r '.data[] | select(.current) | .name'"
    )]
    View,
    /// Create a context, or change the keys given of one (the other keys are kept)
    ///
    /// A context names where commands go: a service (--base-url, with the
    /// token read from the variable --token-env names), a PostgreSQL database
    /// (--database-url) or a store directory (--data-dir). An empty value
    /// removes the key. The file is written atomically, mode 0600.
    #[command(
        after_help = "Examples:\n  payctl config set-context staging --base-url https://pay.example --token-env STAGING_TOKEN\n  payctl config set-context local --data-dir /srv/payctl\n  payctl config set-context staging --token-env ''   # remove a key"
    )]
    SetContext(SetContextArgs),
    /// Make a context the current one: the context of every command that names no other (--context, PAYCTL_CONTEXT)
    #[command(
        after_help = "Examples:\n  payctl config use-context staging\n  payctl --context local profile list   # another context for one command"
    )]
    UseContext {
        /// The context's name (see `payctl config view`)
        #[arg(add = ArgValueCompleter::new(complete::contexts))]
        name: String,
    },
    /// Delete a context (when it was the current one, no context is current any more)
    #[command(after_help = "Example:\n  payctl config delete-context staging")]
    DeleteContext {
        /// The context's name (see `payctl config view`)
        #[arg(add = ArgValueCompleter::new(complete::contexts))]
        name: String,
    },
}

// The three store options share their ids with the global options of the
// same names, so that these take their place under `set-context` (clap
// propagates a global only to a command without an argument of its id).
// clap still copies a global's value from the environment into them: only
// what the command line says is used (`super::main` clears the rest).
#[derive(Debug, clap::Args)]
pub struct SetContextArgs {
    /// The context's name: 1-64 letters, digits, `.`, `_` or `-`
    pub name: String,
    /// Remote mode: the service this context sends commands to (http:// or https://)
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The store directory of this context (a relative path is made absolute now)
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// A PostgreSQL database as the store of this context (postgresql://…); a password in it
    /// is written to the file (mode 0600) and never shown
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
    /// Remote mode: the NAME of the environment variable the token is read from (the token
    /// itself is never written to the file); PAYCTL_TOKEN, when set, still wins
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
}

/// The config file: `PAYCTL_CONFIG`, else `config.toml` in the platform's
/// config dir (`$XDG_CONFIG_HOME/payctl`, `~/.config/payctl` on Linux).
pub fn path() -> PathBuf {
    if let Some(p) = env::var_os("PAYCTL_CONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    directories::ProjectDirs::from("", "", "payctl")
        .map(|d| d.config_dir().join("config.toml"))
        .unwrap_or_else(|| PathBuf::from(".payctl").join("config.toml"))
}

/// A context as `config view` shows it: a database URL as every message
/// shows one (without its password), a password in a service URL masked.
fn record(c: &Context, current: bool) -> Value {
    let database_url = c.database_url.as_deref().map(|u| {
        crate::store::pg::Target::parse(u)
            .map(|t| t.shown_with_tls())
            .unwrap_or_else(|_| crate::output::mask::url_password(u))
    });
    json!({
        "name": c.name,
        "current": current,
        "base_url": c.base_url.as_deref().map(crate::output::mask::url_password),
        "data_dir": c.data_dir.as_ref().map(|d| d.display().to_string()),
        "database_url": database_url,
        "token_env": c.token_env,
    })
}

/// "did you mean" and the known names, for a name that is no context.
fn known(config: &Config, name: &str) -> String {
    let names = config.names();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let close = crate::core::body::suggest(name, &refs)
        .map(|n| format!("did you mean `{n}`? "))
        .unwrap_or_default();
    if names.is_empty() {
        let how = "`payctl config set-context NAME …` makes one";
        if config.exists() {
            format!(
                "the config file {} has no contexts; {how}",
                config.path().display()
            )
        } else {
            format!(
                "there is no config file at {} yet; {how}",
                config.path().display()
            )
        }
    } else {
        format!(
            "{close}the contexts of {} are: {}",
            config.path().display(),
            names.join(", ")
        )
    }
}

/// `use-context` or `delete-context` of a name that is no context: 20001.
fn not_found(config: &Config, name: &str) -> Error {
    Error::one(
        code::NOT_FOUND,
        format!(
            "context {} does not exist; {}",
            shown_id(name),
            known(config, name)
        ),
    )
}

/// A set-context value: None to leave the key, Some(None) to remove it.
type Change = (&'static str, Option<String>);

impl SetContextArgs {
    /// The changes the flags ask for, each value checked as the command
    /// that will use it checks it.
    fn changes(&self) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        if let Some(u) = &self.base_url {
            if u.is_empty() {
                out.push((config::BASE_URL, None));
            } else {
                let base = crate::api::client::check_base_url(u).map_err(|rule| {
                    Error::usage(format!(
                        "--base-url {}: {rule}",
                        shown_id(&crate::output::mask::url_password(u))
                    ))
                })?;
                out.push((config::BASE_URL, Some(base)));
            }
        }
        if let Some(d) = &self.data_dir {
            if d.as_os_str().is_empty() {
                out.push((config::DATA_DIR, None));
            } else {
                let abs = std::path::absolute(d)
                    .map_err(|e| Error::usage(format!("--data-dir {}: {e}", d.display())))?;
                let text = abs.to_str().ok_or_else(|| {
                    Error::usage(format!(
                        "--data-dir {}: the config file holds UTF-8 text only",
                        abs.display()
                    ))
                })?;
                out.push((config::DATA_DIR, Some(text.to_string())));
            }
        }
        if let Some(u) = &self.database_url {
            if u.is_empty() {
                out.push((config::DATABASE_URL, None));
            } else {
                crate::store::pg::Target::parse(u)?;
                out.push((config::DATABASE_URL, Some(u.clone())));
            }
        }
        if let Some(v) = &self.token_env {
            if v.is_empty() {
                out.push((config::TOKEN_ENV, None));
            } else {
                config::check_env_name(v)
                    .map_err(|rule| Error::usage(format!("--token-env: {rule}")))?;
                out.push((config::TOKEN_ENV, Some(v.clone())));
            }
        }
        Ok(out)
    }
}

impl ConfigCommand {
    /// Run on the config file at `path`; no store is opened.
    pub fn exec(self, path: &Path, ui: Ui) -> Result<Response> {
        match self {
            ConfigCommand::View => {
                let config = Config::load(path)?;
                if !config.exists() {
                    ui.err_line(format_args!(
                        "note: there is no config file at {} yet; `payctl config set-context NAME …` creates it",
                        path.display()
                    ));
                }
                let current = config.current();
                let contexts = config.contexts();
                if let Some(cur) = &current
                    && !contexts.iter().any(|c| &c.name == cur)
                {
                    ui.err_line(format_args!(
                        "note: current-context {} names no context of {}",
                        shown_id(cur),
                        path.display()
                    ));
                }
                Ok(Response::Records(
                    RecordKind::Context,
                    contexts
                        .iter()
                        .map(|c| record(c, current.as_deref() == Some(c.name.as_str())))
                        .collect(),
                ))
            }
            ConfigCommand::SetContext(a) => {
                config::check_name(&a.name).map_err(Error::usage)?;
                let changes = a.changes()?;
                let (created, rec, current) = config::edit(path, |c| {
                    let created = c.set(&a.name, &changes);
                    let ctx = c.get(&a.name).expect("the context just set");
                    let current = c.current().as_deref() == Some(a.name.as_str());
                    Ok((created, record(&ctx, current), current))
                })?;
                let verb = if created { "created" } else { "changed" };
                ui.err_line(format_args!(
                    "note: {verb} the context `{}` in {}",
                    a.name,
                    path.display()
                ));
                if !current {
                    ui.err_line(format_args!(
                        "note: `payctl config use-context {0}` makes it the current context; \
                         `--context {0}` uses it for one command",
                        a.name
                    ));
                }
                Ok(Response::Records(RecordKind::Context, vec![rec]))
            }
            ConfigCommand::UseContext { name } => {
                let config = Config::load(path)?;
                if config.get(&name).is_none() {
                    return Err(not_found(&config, &name));
                }
                let rec = config::edit(path, |c| {
                    if !c.use_context(&name) {
                        return Err(not_found(c, &name));
                    }
                    Ok(record(&c.get(&name).expect("the context used"), true))
                })?;
                Ok(Response::Records(RecordKind::Context, vec![rec]))
            }
            ConfigCommand::DeleteContext { name } => {
                let config = Config::load(path)?;
                if config.get(&name).is_none() {
                    return Err(not_found(&config, &name));
                }
                let was_current =
                    config::edit(path, |c| c.delete(&name).ok_or_else(|| not_found(c, &name)))?;
                if was_current {
                    ui.err_line(format_args!(
                        "note: `{name}` was the current context: no context is current now \
                         (`payctl config use-context NAME` picks one)"
                    ));
                }
                Ok(Response::Id(name))
            }
        }
    }
}

/// The global options a flag or an environment variable set, and which
/// environment variables named the store (for the note of [`resolve`]).
#[derive(Debug, Default, Clone)]
pub struct Sources {
    /// The variables among PAYCTL_BASE_URL, PAYCTL_DATABASE_URL and
    /// PAYCTL_DATA_DIR that gave their option its value.
    pub store_env: Vec<&'static str>,
    /// Whether `--context` came from PAYCTL_CONTEXT.
    pub context_env: bool,
}

/// The context a command uses, for its messages.
#[derive(Debug, Clone)]
pub struct Used {
    pub name: String,
    pub file: PathBuf,
}

/// Where a command's store is, once the context is applied.
#[derive(Debug, Default)]
pub struct Resolved {
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    pub base_url: Option<String>,
    /// The bearer token of remote mode.
    pub token: Option<String>,
    /// The context whose store the command uses.
    pub context: Option<Used>,
    /// What stderr should say about how the store was chosen.
    pub note: Option<String>,
}

impl Resolved {
    /// The store as the flags and the environment name it, no context.
    pub fn given(g: &GlobalArgs) -> Resolved {
        Resolved {
            data_dir: g.data_dir.clone(),
            database_url: g.database_url.clone().filter(|u| !u.is_empty()),
            base_url: g.base_url.clone(),
            token: env::var("PAYCTL_TOKEN").filter(|t| !t.is_empty()),
            context: None,
            note: None,
        }
    }
}

/// `what` of the context `c` of `file` is refused: exit 2, naming the
/// file, the line and the context.
fn context_error(c: &Context, file: &Path, detail: impl std::fmt::Display) -> Error {
    let at = c.line.map(|l| format!(", line {l}")).unwrap_or_default();
    Error::usage(format!(
        "context `{}` of the config file {}{at}: {detail}",
        c.name,
        file.display()
    ))
}

/// The store, the service and the token of a command: the flags and the
/// environment, else the context (`--context`, `PAYCTL_CONTEXT`, else the
/// file's `current-context`), else the defaults. An unknown context is a
/// usage error (exit 2) naming the file and the known contexts.
pub fn resolve(g: &GlobalArgs, sources: &Sources, file: &Path) -> Result<Resolved> {
    let given = Resolved::given(g);
    let store_named =
        given.base_url.is_some() || given.database_url.is_some() || given.data_dir.is_some();
    let asked = g.context.clone().filter(|c| !c.is_empty());
    if asked.is_none() && store_named {
        return Ok(given);
    }
    let config = Config::load(file)?;
    let ctx = match &asked {
        Some(name) => match config.get(name) {
            Some(c) => c,
            None => {
                let flag = if sources.context_env {
                    format!("PAYCTL_CONTEXT={}", shown_id(name))
                } else {
                    format!("--context {}", shown_id(name))
                };
                return Err(Error::usage(format!(
                    "{flag}: no such context; {}",
                    known(&config, name)
                )));
            }
        },
        None => match config.current() {
            None => return Ok(given),
            Some(name) => config.get(&name).ok_or_else(|| {
                Error::usage(format!(
                    "the current context {} (current-context of {}) does not exist; {}; \
                     `payctl config use-context NAME` picks another",
                    shown_id(&name),
                    file.display(),
                    known(&config, &name)
                ))
            })?,
        },
    };
    if store_named {
        // Flags and variables win over the context: say so when the
        // context was asked for and a variable (not a flag typed with it)
        // takes its place.
        let note = match (sources.store_env.first(), ctx.names_a_store()) {
            (Some(var), true) => Some(format!(
                "note: {var} names the store: the store of the context `{}` is not used",
                ctx.name
            )),
            _ => None,
        };
        return Ok(Resolved { note, ..given });
    }
    if let Some(u) = &ctx.database_url {
        crate::store::pg::Target::parse(u).map_err(|e| {
            let msg = e.first_message();
            let rule = msg
                .split_once("--database-url: ")
                .map_or(msg.as_str(), |(_, r)| r)
                .to_string();
            context_error(&ctx, file, format!("database-url: {rule}"))
        })?;
    }
    if let Some(u) = &ctx.base_url {
        crate::api::client::check_base_url(u).map_err(|rule| {
            context_error(
                &ctx,
                file,
                format!(
                    "base-url {}: {rule}",
                    shown_id(&crate::output::mask::url_password(u))
                ),
            )
        })?;
    }
    let token = match (&ctx.base_url, given.token) {
        (None, _) => None,
        (Some(_), Some(t)) => Some(t),
        (Some(_), None) => match &ctx.token_env {
            None => None,
            Some(var) => {
                config::check_env_name(var).map_err(|rule| context_error(&ctx, file, rule))?;
                Some(env::var(var).filter(|t| !t.is_empty()).ok_or_else(|| {
                    context_error(
                        &ctx,
                        file,
                        format!(
                            "its token is read from ${var} (token-env), which is not set; \
                             export it, or set PAYCTL_TOKEN"
                        ),
                    )
                })?)
            }
        },
    };
    Ok(Resolved {
        data_dir: ctx.data_dir.clone(),
        database_url: ctx.database_url.clone(),
        base_url: ctx.base_url.clone(),
        token,
        context: Some(Used {
            name: ctx.name.clone(),
            file: file.to_path_buf(),
        }),
        note: None,
    })
}
