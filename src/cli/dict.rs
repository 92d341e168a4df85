//! `payctl dict list [NAME]`: dictionaries.

use clap::Subcommand;

use serde_json::Value;

use super::Global;
use crate::core::dict;
use crate::core::paging::{MAX_PAGE_SIZE, PageRequest, paginate};
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
        /// The country of `states` (GET /dictionaries/countries/{country_id}/states); a country that
        /// is not in `countries` answers 20001
        #[arg(long, default_value_t = 1, value_name = "ID")]
        country: u32,
        /// Records per page (1-1000) [default: the whole dictionary on one page]
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_PAGE_SIZE as i64), value_name = "N")]
        page_size: Option<u32>,
        /// Page to show, from 1
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..), value_name = "N", conflicts_with = "after")]
        page_number: Option<u32>,
        /// Continue after this last_evaluated_key (an id) of the previous page
        #[arg(long, value_name = "KEY")]
        after: Option<String>,
    },
}

impl DictCommand {
    /// Dictionaries are lists with paging like every list; as reference data
    /// they come whole on one page unless `--page-size` is given, so that
    /// `dict list states` shows every state.
    pub fn exec(self, _g: &Global) -> Result<Response> {
        let DictCommand::List {
            name,
            country,
            page_size,
            page_number,
            after,
        } = self;
        let records = match name {
            None => dict::names(),
            Some(n) => dict::list(&n, country)?,
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
        let req = PageRequest {
            size: page_size.unwrap_or_else(|| (keyed.len() as u32).clamp(1, MAX_PAGE_SIZE)),
            number: page_number,
            after,
        };
        let page = paginate(keyed, |(k, _)| k, &req)?;
        Ok(Response::List {
            paging: page.paging,
            data: page.items.into_iter().map(|(_, v)| v).collect(),
        })
    }
}
