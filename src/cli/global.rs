//! What a command gets from the global options ([`Global`]): the store it
//! opens (local, or the service in remote mode), how it waits for the lock,
//! how it calls an endpoint, and how it asks the operator to confirm.

use std::path::PathBuf;
use std::time::Duration;

use super::{config, worker};
use crate::api::client::Client;
use crate::api::endpoints::{Backend, Request};
use crate::core::Ctx;
use crate::error::{Error, Result, code};
use crate::output::Response;
use crate::output::ui::Ui;
use crate::store::{Mode, Opened, Store};

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
    pub(super) unfinished: std::sync::Mutex<Option<Error>>,
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
