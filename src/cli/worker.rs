//! Placeholder: `payctl worker` is filled in by its own work.

use super::Global;
use crate::error::{Error, Result};
use crate::output::Response;

#[derive(Debug, clap::Args)]
pub struct WorkerArgs {}

impl WorkerArgs {
    pub fn exec(self, _g: &Global) -> Result<Response> {
        Err(Error::usage("not implemented yet"))
    }
}
