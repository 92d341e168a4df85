//! `payctl store snapshot save|list|restore|delete NAME` and `payctl store
//! reset`: the routes `/_payctl/snapshots…` and `POST /_payctl/reset`,
//! locally or in remote mode (an admin key on a server with keys).

use clap::Subcommand;
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::PageArgs;
use super::complete;
use crate::api::endpoints::{Op, Request};
use crate::error::Result;
use crate::output::Response;

pub const SNAPSHOT_HELP: &str = "\
A snapshot holds the store's records: customer profiles with their addresses, instruments and
profile-program records, transactions with their parameters and steps, the worker's queue,
idempotency keys and the reads counted for `sim rule add --after-polls`. The catalog, the API
keys, the webhooks and the outcome rules (`payctl sim rule`) are the store's configuration: a
restore and a reset keep them as they are.

Each command is atomic under the store's lock: a directory's exclusive lock, one transaction on
PostgreSQL. A restore killed at any point leaves the records as they were or as the snapshot has
them, never a mix (a directory's next command finishes a restore that passed its commit point),
and every server on the store sees the new records from its next request. A snapshot saved by
another store format (or database schema) version is refused: save it again.

Over HTTP these are admin routes: POST /_payctl/snapshots/{name}, GET /_payctl/snapshots,
POST /_payctl/snapshots/{name}/restore, DELETE /_payctl/snapshots/{name}.

A test suite's loop:
  payctl store snapshot save baseline      # once, after the fixtures are created
  payctl store snapshot restore baseline --yes   # before each test
  payctl store snapshot list
  payctl store snapshot delete baseline --yes";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum SnapshotCommand {
    /// Save the store's records as a snapshot NAME, replacing one of that name
    #[command(
        after_help = "Answers the snapshot: data: [{\"snapshot_name\", \"store_version\", \"customer_profiles\", \"transactions\",\n\"created_by\", \"created_datetime\"}] (-o id: its name).\n\nExample:\n  payctl store snapshot save baseline"
    )]
    Save {
        /// The snapshot's name: 1-64 of A-Z a-z 0-9 _ . -, the first a letter or a digit
        name: String,
    },
    /// List the snapshots, oldest first
    #[command(after_help = "Example:\n  payctl store snapshot list -o id")]
    List {
        #[command(flatten)]
        page: PageArgs,
    },
    /// Replace every record of the store with the snapshot's, at once
    #[command(
        after_help = "Asks for confirmation; where no one can be asked (--no-input, or stdin not a terminal) only\n--yes allows it, otherwise nothing changes and the exit code is 2. Declined at the prompt: nothing\nchanges, exit 1. Answers the snapshot restored.\n\nExample:\n  payctl store snapshot restore baseline --yes"
    )]
    Restore {
        /// The snapshot's name
        #[arg(add = ArgValueCompleter::new(complete::snapshots))]
        name: String,
    },
    /// Delete a snapshot
    #[command(
        after_help = "Asks for confirmation as `restore` does. Answers data: [{\"id\": NAME}].\n\nExample:\n  payctl store snapshot delete baseline --yes"
    )]
    Delete {
        /// The snapshot's name
        #[arg(add = ArgValueCompleter::new(complete::snapshots))]
        name: String,
    },
}

impl SnapshotCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            SnapshotCommand::Save { name } => g.call(Request::new(Op::SnapshotSave).at([name])),
            SnapshotCommand::List { page } => g.list(Request::new(Op::SnapshotList), &page),
            SnapshotCommand::Restore { name } => {
                known(g, &name)?;
                g.confirm(&format!(
                    "restore the snapshot `{name}`: every record of the store is replaced by its records"
                ))?;
                g.call(Request::new(Op::SnapshotRestore).at([name]))
            }
            SnapshotCommand::Delete { name } => {
                known(g, &name)?;
                g.confirm(&format!("delete the snapshot `{name}`"))?;
                g.call(Request::new(Op::SnapshotDelete).at([name]))
            }
        }
    }
}

/// Before a prompt, check that the snapshot `name` exists (so nobody is
/// asked about a restore or a delete that would be refused); without a
/// prompt nothing is read before the confirmation.
fn known(g: &Global, name: &str) -> Result<()> {
    if !g.ui.interactive() || g.yes {
        return Ok(());
    }
    crate::core::snapshot::check_name(name)?;
    let mut page = crate::api::endpoints::Params::default();
    page.page.size = crate::core::paging::MAX_PAGE_SIZE;
    let listed = g.call(Request::new(Op::SnapshotList).query(page))?;
    let found = match &listed {
        Response::List { data, .. } => data.iter().any(|s| s["snapshot_name"] == name),
        _ => false,
    };
    if found {
        Ok(())
    } else {
        Err(crate::error::Error::not_found("snapshot", name))
    }
}

/// `payctl store reset`: confirmed, then `POST /_payctl/reset`.
pub fn reset(g: &Global) -> Result<Response> {
    g.confirm(
        "reset the store: every customer profile, transaction, queued item and idempotency key is removed \
         (the catalog, API keys, webhooks and rules are kept)",
    )?;
    g.call(Request::new(Op::Reset))
}
