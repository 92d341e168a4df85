//! `payctl dict list [NAME]`: dictionaries.

use clap::Subcommand;

use serde_json::Value;

use super::Global;
use super::args::PageArgs;
use crate::core::dict;
use crate::core::paging::paginate;
use crate::error::{Error, Result};
use crate::output::Response;

#[derive(Debug, Subcommand)]
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
    pub fn exec(self, _g: &Global) -> Result<Response> {
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
        let records = match name {
            None => dict::names(),
            Some(n) => dict::list(&n, country.unwrap_or(1))?,
        };
        let keyed: Vec<(String, Value)> = records
            .into_iter()
            .map(|v| {
                let key = match v.as_object().and_then(|m| m.values().next()) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
                (key, v)
            })
            .collect();
        let page = paginate(keyed, |(k, _)| k, &page.request())?;
        Ok(Response::List {
            paging: page.paging,
            data: page.items.into_iter().map(|(_, v)| v).collect(),
        })
    }
}
