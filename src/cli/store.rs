//! `payctl store check [--repair]`: integrity of the store.

use clap::Subcommand;

use super::Global;
use crate::error::{ApiError, Error, ErrorKind, Result, code};
use crate::output::Response;

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Check that every file parses and has the current format, that the derived
    /// indexes agree with the records, and that the spec's invariants hold
    #[command(
        after_help = "Exit 0 when clean; otherwise every finding is listed (errors[], code 30006) and the exit code is 3.\n\
--repair rebuilds what is derived (key index, attachment index, profile ids, summary logs, worker queue), removes stray temp files,\n\
sets files to 0600 and directories to 0700, and removes links, FIFOs and stray files where derived data or the lock belong;\n\
it never deletes or rewrites a customer's or a transaction's own record, and while a record is unreadable it rebuilds nothing\n\
(a rebuild would free its customer_key and drop its pending work).\n\
An unreadable journal.json (30002 on every command) is moved aside by --repair to\n\
journal.json.corrupt-<UTC time>, and said so on stderr; the one commit it held is not replayed.\n\nExamples:\n  payctl store check\n  payctl store check --repair"
    )]
    Check {
        /// Rebuild derived data and remove stray temp files
        #[arg(long)]
        repair: bool,
    },
}

impl StoreCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        let StoreCommand::Check { repair } = self;
        let mut set_aside = None;
        if repair
            && let Some(aside) =
                crate::store::Store::set_aside_corrupt_journal(&g.data_dir, g.wait())?
        {
            set_aside = Some(format!(
                "journal.json (unreadable) moved aside to {}",
                aside.file_name().unwrap_or_default().to_string_lossy()
            ));
            eprintln!(
                "note: journal.json could not be read; it was moved aside to {} and not replayed: \
                 the one commit it held may be partly applied (the records it named may hold \
                 their state before or after it; check them)",
                aside.display()
            );
        }
        let store = if repair { g.write()? } else { g.read()? };
        let mut report = store.check(repair)?;
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
        Ok(Response::Records(vec![serde_json::json!({
            "status": "clean",
            "customers": report.customers,
            "transactions": report.transactions,
            "repaired": report.repaired,
        })]))
    }
}
