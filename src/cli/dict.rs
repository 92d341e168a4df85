//! `payctl dict list [NAME]`: dictionaries.

use clap::Subcommand;

use super::Global;
use super::args::PageArgs;
use crate::api::endpoints::{Endpoint, Op, Request};
use crate::catalog::dictionaries::canonical_name;
use crate::core::dict;
use crate::error::{Error, Result};
use crate::output::{RecordKind, Response};

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum DictCommand {
    /// List a dictionary's values, or without NAME the dictionary names (GET /dictionaries/NAME)
    #[command(
        after_help = "Examples:\n  payctl dict list\n  payctl dict list states --country 1 --page-size 100   # all 56 on one page\n  payctl dict list customer-types"
    )]
    List {
        /// customer-types (or customer_types), address-types, countries, states, payment-instrument-types,
        /// payment-methods, payment-instrument-ach-types, transfer-types, destinations, account-codes,
        /// cardinality, parameter-types, customer-profile-program-statuses, payment-instrument-statuses,
        /// transaction-statuses, transaction-step-statuses
        name: Option<String>,
        /// The country of `states` (GET /dictionaries/countries/{country_id}/states), 1 (the
        /// United States) when not given; a country that is not in `countries` answers 20001.
        /// Only `states` takes it: with another dictionary it is a usage error
        #[arg(long, value_name = "ID")]
        country: Option<u32>,
        #[command(flatten)]
        page: PageArgs,
    },
}

impl DictCommand {
    /// Dictionaries are lists with paging like every list (CLI.md: 50 per
    /// page unless `--page-size` says otherwise); their keys are their ids.
    pub fn exec(self, g: &Global) -> Result<Response> {
        let DictCommand::List {
            name,
            country,
            page,
        } = self;
        let canonical = name
            .as_deref()
            .and_then(crate::catalog::dictionaries::canonical_name);
        if country.is_some() && canonical.is_some_and(|c| c != "states") {
            return Err(Error::usage(
                "--country: only `dict list states` takes a country; the other dictionaries \
                 do not depend on one",
            ));
        }
        if country.is_some() && name.is_none() {
            return Err(Error::usage(
                "--country: only `dict list states` takes a country; give the dictionary name `states`",
            ));
        }
        let req = match name.as_deref().map(|n| (n, canonical_name(n))) {
            None => Request::new(Op::DictNames),
            Some((_, Some("states"))) => {
                Request::new(Op::DictStates).at([country.unwrap_or(1).to_string()])
            }
            Some((n, canonical)) => match canonical.and_then(Endpoint::dictionary) {
                Some(e) => Request::to(e),
                // The name is refused the same way locally and remotely.
                None => {
                    return dict::list(n, country.unwrap_or(1))
                        .map(|_| Response::Records(RecordKind::Summary, Vec::new()));
                }
            },
        };
        g.list(req, &page)
    }
}
