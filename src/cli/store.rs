//! `payctl store check [--repair]`: integrity of the store; `store migrate`;
//! `store snapshot …` and `store reset` (see `snapshot.rs`).

use clap::Subcommand;

use super::Global;
use crate::error::{ApiError, Error, ErrorKind, Result, code};
use crate::output::Response;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum StoreCommand {
    /// Check that every file parses and has the current format, that the derived
    /// indexes agree with the records, and that the store's invariants hold
    #[command(
        after_help = "Exit 0 when clean; otherwise every finding is listed (errors[], code 30006) and the exit code is 3. What a lost\n\
or damaged index lacks or holds too many of is named for the first 100 of each kind and counted beyond, in one finding.\n\
The records are read once, in parallel on all cores, keeping a few dozen bytes of each (hashes) for the checks\n\
across records, so memory stays bounded (about 100 bytes a record); a progress bar shows on a terminal.\n\
--repair rebuilds what is derived (key index, attachment index, profile ids, summary logs, worker queue), removes stray temp files,\n\
sets files to 0600 and directories to 0700, and removes links, FIFOs and stray files where derived data or the lock belong;\n\
it never deletes or rewrites a customer's or a transaction's own record, and while a record is unreadable it rebuilds nothing\n\
(a rebuild would free its customer_key and drop its pending work).\n\
The rebuild commits in pieces (the records read again, 50,000 per commit), so its memory stays bounded too; a repair\n\
killed midway leaves \"rebuilding\" set in meta.json, and every other command refuses the store (30002) until\n\
store check --repair is run again and finishes it.\n\
An unreadable journal.json or applied.json (30002 on every command) is moved aside by --repair to\n\
<name>.corrupt-<UTC time>, and said so on stderr; the commits it held are not replayed.\n\nExamples:\n  payctl store check\n  payctl store check --repair"
    )]
    Check {
        /// Rebuild derived data and remove stray temp files
        #[arg(long)]
        repair: bool,
    },
    /// Copy this store into an empty one: a directory, or a PostgreSQL database
    #[command(
        after_help = "The current store (--data-dir or --database-url) is copied in batches of 500 records (one commit each; a progress bar on a terminal) into TARGET, which must be empty: a directory that does not exist or is empty, or a database without a payctl schema (else 30018, nothing written). Customers, transactions, profile-program records, the worker's queue, the idempotency keys of the last 24 hours, the API keys (`payctl key`), the outcome rules (`payctl sim rule`), the event log as it is and the webhooks (with their secrets, cursors and delivery attempts) are copied (snapshots are not: save them again on the target); then the counts of every kind are compared (30006 when they differ). The source is only read.

Examples:
  payctl --data-dir ./store store migrate --to postgresql://payctl:PASSWORD@db:5432/payctl
  payctl --database-url \"$URL\" store migrate --to ./store-copy"
    )]
    Migrate {
        /// A directory, or postgresql://user:password@host:port/dbname
        #[arg(long, value_name = "TARGET")]
        to: String,
    },
    /// Snapshots of the store's records: save, list, restore, delete (for test suites)
    #[command(subcommand, after_help = super::snapshot::SNAPSHOT_HELP)]
    Snapshot(super::snapshot::SnapshotCommand),
    /// Remove every record (profiles, transactions, queue, idempotency keys); keep the
    /// catalog, API keys, webhooks and rules
    #[command(
        after_help = "Asks for confirmation; where no one can be asked (--no-input, or stdin not a terminal) only --yes allows it,
otherwise nothing changes and the exit code is 2; declined at the prompt, nothing changes, exit 1. Atomic as a snapshot
restore is (a restore of an empty store): every server on the store sees the empty store from its next request.
Answers data: [{\"customer_profiles\", \"transactions\"}]: what was removed. Over HTTP: POST /_payctl/reset (admin).

Example:
  payctl store reset --yes"
    )]
    Reset,
}

impl StoreCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        let repair = match self {
            StoreCommand::Check { repair } => repair,
            StoreCommand::Migrate { to } => {
                g.local_only("store migrate")?;
                return migrate(g, &to);
            }
            StoreCommand::Snapshot(c) => return c.exec(g),
            StoreCommand::Reset => return super::snapshot::reset(g),
        };
        g.local_only("store check")?;
        let mut set_aside = Vec::new();
        if repair && g.database_url.is_none() {
            for aside in crate::store::JsonStore::set_aside_corrupt_journal(&g.data_dir, g.wait())?
            {
                let file = aside.file_name().unwrap_or_default().to_string_lossy();
                let name = file
                    .split(".corrupt-")
                    .next()
                    .unwrap_or_default()
                    .to_string();
                set_aside.push(format!("{name} (unreadable) moved aside to {file}"));
                g.ui.err_line(format_args!(
                    "note: {name} could not be read; it was moved aside to {} and not replayed: \
                     the commits it held may be partly applied (the records they named may hold \
                     their state before or after them; check them)",
                    aside.display()
                ));
            }
        }
        // The one command that opens a store whose rebuild was interrupted:
        // to report it, and to finish it with --repair.
        let store = g.open_to_check(if repair {
            crate::store::Mode::Exclusive
        } else {
            crate::store::Mode::Shared
        })?;
        // A progress bar over the record shards, on a terminal only.
        let bar = g.ui.progress_bar();
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "checking records [{bar:40}] {pos}/{len} shards and packs ({eta} left)",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        let progress = |done: usize, total: usize| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        };
        let report = store.check_with(repair, &progress);
        bar.finish_and_clear();
        let mut report = report?;
        report.repaired.splice(0..0, set_aside);
        if !report.findings.is_empty() {
            return Err(Error {
                kind: ErrorKind::Store,
                errors: report
                    .findings
                    .iter()
                    .map(|f| {
                        // A finding may quote a file's content (a parser's
                        // message): its long digit runs are masked.
                        ApiError::new(
                            code::STORE_FINDINGS,
                            format!("{}: {}", f.path, crate::output::mask::mask_text(&f.problem)),
                        )
                    })
                    .collect(),
            });
        }
        Ok(Response::Records(
            crate::output::RecordKind::Summary,
            vec![serde_json::json!({
                "status": "clean",
                "customers": report.customers,
                "transactions": report.transactions,
                "repaired": report.repaired,
            })],
        ))
    }
}

fn migrate(g: &Global, to: &str) -> Result<Response> {
    let source = g.read()?;
    let catalog = source.catalog()?;
    let not_empty = |what: String| {
        Error::one(
            code::TARGET_NOT_EMPTY,
            format!(
                "--to: {what} is not empty: nothing was written (store migrate copies into an empty target only)"
            ),
        )
    };
    let target = if to.starts_with("postgresql://") || to.starts_with("postgres://") {
        crate::store::Store::init_database(to, &catalog).map_err(|e| {
            if e.errors
                .iter()
                .any(|a| a.message.contains("a store already exists"))
            {
                not_empty(format!(
                    "the database {}",
                    crate::store::pg::Target::parse(to).map_or_else(|_| "?".into(), |t| t.shown)
                ))
            } else {
                e
            }
        })?
    } else {
        let dir = std::path::Path::new(to);
        if std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some()) || dir.is_file() {
            return Err(not_empty(crate::output::mask::mask_text(
                &dir.display().to_string(),
            )));
        }
        let store = crate::store::Store::init(dir, g.wait(), &catalog)?;
        store.report_to(&g.outcomes);
        store
    };
    let bar = g.ui.progress_bar();
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{msg:12} [{bar:40}] {human_pos}/{human_len} ({eta} left)",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    let mut progress = |kind: &str, done: usize, total: usize| {
        if bar.message() != kind {
            bar.reset();
            bar.set_message(kind.to_string());
            bar.set_length(total as u64);
        }
        bar.set_position(done as u64);
    };
    let now = chrono::Utc::now().timestamp();
    let counts = crate::core::migrate::migrate(&source, &target, now, &mut progress)?;
    bar.finish_and_clear();
    g.ui.err_line(format_args!(
        "note: copied the store into {} ({} customers, {} transactions); the source is unchanged",
        target.describe(),
        counts.customers,
        counts.transactions
    ));
    Ok(Response::Records(
        crate::output::RecordKind::Summary,
        vec![serde_json::json!({
            "target": target.describe(),
            "customers": counts.customers,
            "transactions": counts.transactions,
            "attachments": counts.attachments,
            "queued": counts.queued,
            "idempotency_keys": counts.idempotency_keys,
            "api_keys": counts.api_keys,
            "events": counts.events,
            "rules": counts.rules,
            "webhooks": counts.webhooks,
        })],
    ))
}
