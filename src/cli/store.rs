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
--repair rebuilds what is derived (key index, attachment index, profile ids, summary logs, worker queue) and removes stray temp files;\n\
it never deletes or rewrites a customer's or a transaction's own record.\n\nExamples:\n  payctl store check\n  payctl store check --repair"
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
        let store = if repair { g.write()? } else { g.read()? };
        let report = store.check(repair)?;
        if !report.findings.is_empty() {
            return Err(Error {
                kind: ErrorKind::Store,
                errors: report
                    .findings
                    .iter()
                    .map(|f| {
                        ApiError::new(code::STORE_FINDINGS, format!("{}: {}", f.path, f.problem))
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
