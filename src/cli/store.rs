//! Placeholder: `payctl store …` is filled in by its own work.

use clap::Subcommand;

use super::Global;
use crate::error::{Error, Result};
use crate::output::Response;

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Not implemented yet
    Todo,
}

impl StoreCommand {
    pub fn exec(self, _g: &Global) -> Result<Response> {
        Err(Error::usage("not implemented yet"))
    }
}
