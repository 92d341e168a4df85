//! `payctl dict list [NAME]`: dictionaries.

use clap::Subcommand;

use super::Global;
use crate::core::dict;
use crate::error::Result;
use crate::output::Response;

#[derive(Debug, Subcommand)]
pub enum DictCommand {
    /// List a dictionary's values, or without NAME the dictionary names (GET /dictionaries/NAME)
    #[command(
        after_help = "Examples:\n  payctl dict list\n  payctl dict list states --country 1\n  payctl dict list customer-types"
    )]
    List {
        /// customer-types (or customer_types), address-types, countries, states, payment-instrument-types,
        /// payment-methods, payment-instrument-ach-types, transfer-types, destinations, account-codes,
        /// cardinality, parameter-types, customer-profile-program-statuses, payment-instrument-statuses,
        /// transaction-statuses, transaction-step-statuses
        name: Option<String>,
        /// The country of `states`
        #[arg(long, default_value_t = 1, value_name = "ID")]
        country: u32,
    },
}

impl DictCommand {
    pub fn exec(self, _g: &Global) -> Result<Response> {
        match self {
            DictCommand::List { name: None, .. } => Ok(Response::Unpaged(dict::names())),
            DictCommand::List {
                name: Some(n),
                country,
            } => Ok(Response::Unpaged(dict::list(&n, country)?)),
        }
    }
}
