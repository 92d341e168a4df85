//! `payctl address …`: the addresses of a customer profile.

use clap::{Args, Subcommand};
use clap_complete::ArgValueCompleter;
use serde_json::Value;

use super::Global;
use super::args::{BodyArg, DryRunArg, IdempotencyArg, PageArgs, Patch, parse_bool};
use super::change::Fields;
use super::complete;
use super::prompt::{self, Dict, DictParser};
use crate::api::endpoints::{Op, Request};
use crate::error::Result;
use crate::output::Response;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum AddressCommand {
    /// Add an address to a customer profile (POST /customer-profiles/{id}/addresses)
    ///
    /// Required: address_type_id, is_default, country_id (only 1, the United
    /// States), state_id, first_name, last_name, address_line1, city, zip.
    /// A profile has at most one default address: creating one with
    /// is_default true makes the previous default a plain address in the same
    /// write. A first address may be created with is_default false. A
    /// profile holds at most 50 addresses (10001 past that). On a terminal,
    /// missing required fields are asked for.
    #[command(
        after_help = "Examples:\n  payctl address create csp_0123456789abcdefghij --body address.json\n  CPA=$(payctl address create $CSP --address-type-id 1 --default true --country-id 1 \\\n      --state-id 6 --first-name Ada --last-name Lovelace --address-line1 '1 Main St' \\\n      --city Springfield --zip 12345 -o id)"
    )]
    Create {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: AddressFields,
        #[command(flatten)]
        idem: IdempotencyArg,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// List the addresses of a customer profile, oldest first (GET …/addresses)
    #[command(
        after_help = "Examples:\n  payctl address list csp_0123456789abcdefghij\n  payctl address list $CSP --page-size 10 --page-number 2"
    )]
    List {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one address (GET …/addresses/{address_id})
    #[command(
        after_help = "Example:\n  payctl address get csp_0123456789abcdefghij cpa_0123456789abcdefghij"
    )]
    Get {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        /// The address_id (cpa_…)
        #[arg(add = ArgValueCompleter::new(complete::addresses))]
        cpa: String,
    },
    /// Change an address; only the fields given change (PUT …/addresses/{address_id})
    ///
    /// address_type_id cannot be changed (10003 when a different value is
    /// sent; the same value is accepted). is_default true makes this address
    /// the default and the previous default a plain address, in one write.
    /// is_default false on the default address is refused (10001): the
    /// default is replaced only by making another address the default.
    /// address_line2 null clears it. Answers data: [{"id": CPA}].
    #[command(
        after_help = "Examples:\n  payctl address update $CSP $CPA --city Shelbyville --zip 54321-1234\n  payctl address update $CSP $OTHER --default true   # $OTHER becomes the default"
    )]
    Update {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        /// The address_id (cpa_…)
        #[arg(add = ArgValueCompleter::new(complete::addresses))]
        cpa: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: AddressFields,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// Delete an address (DELETE …/addresses/{address_id})
    ///
    /// The default address cannot be deleted (21003): make another address
    /// the default first. Asks for confirmation; where no one can be asked
    /// (--no-input, or stdin not a terminal) only --yes allows it, otherwise
    /// nothing changes and the exit code is 2. Answers data: [{"id": CPA}].
    #[command(
        after_help = "Example:\n  payctl address delete csp_0123456789abcdefghij cpa_0123456789abcdefghij --yes"
    )]
    Delete {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        /// The address_id (cpa_…)
        #[arg(add = ArgValueCompleter::new(complete::addresses))]
        cpa: String,
        #[command(flatten)]
        dry: DryRunArg,
    },
}

// Per-field flags of an address body (they override the fields of --body).
#[derive(Debug, Args)]
pub struct AddressFields {
    /// address_type_id: an id or a name: 1 Mailing, 2 Street, 3 Billing (cannot be updated)
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::AddressType), hide_possible_values = true)]
    pub address_type_id: Option<u32>,
    /// is_default: make this the profile's one default address
    #[arg(long = "default", value_name = "BOOL", value_parser = parse_bool)]
    pub is_default: Option<bool>,
    /// country_id: only 1 (US, the United States) is supported
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::Country), hide_possible_values = true)]
    pub country_id: Option<u32>,
    /// state_id: an id, a USPS code (CA) or a name (California); see `payctl dict list states`
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::State), hide_possible_values = true)]
    pub state_id: Option<u32>,
    /// 1-50 characters
    #[arg(long)]
    pub first_name: Option<String>,
    /// 1-50 characters
    #[arg(long)]
    pub last_name: Option<String>,
    /// 1-256 characters
    #[arg(long, value_name = "TEXT")]
    pub address_line1: Option<String>,
    /// 1-256 characters (an empty string is accepted)
    #[arg(long, value_name = "TEXT")]
    pub address_line2: Option<String>,
    /// 1-50 characters
    #[arg(long)]
    pub city: Option<String>,
    /// xxxxx or xxxxx-xxxx
    #[arg(long)]
    pub zip: Option<String>,
}

impl Fields for AddressFields {
    fn over(&self, body: Value) -> Value {
        let mut p = Patch::new();
        p.num("address_type_id", self.address_type_id)
            .bool("is_default", self.is_default)
            .num("country_id", self.country_id)
            .num("state_id", self.state_id)
            .str("first_name", &self.first_name)
            .str("last_name", &self.last_name)
            .str("address_line1", &self.address_line1)
            .str("address_line2", &self.address_line2)
            .str("city", &self.city)
            .str("zip", &self.zip);
        p.over(body)
    }
}

impl AddressCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            AddressCommand::Create {
                csp,
                body,
                fields,
                idem,
                dry,
            } => g.create(
                Request::new(Op::AddressCreate).at([csp.as_str()]),
                &body,
                &fields,
                &idem,
                &dry,
                || Ok(prompt::address_form()),
            ),
            AddressCommand::List { csp, page } => {
                g.list(Request::new(Op::AddressList).at([csp]), &page)
            }
            AddressCommand::Get { csp, cpa } => g.call(Request::new(Op::AddressGet).at([csp, cpa])),
            AddressCommand::Update {
                csp,
                cpa,
                body,
                fields,
                dry,
            } => g.update(
                Request::new(Op::AddressUpdate).at([csp.as_str(), cpa.as_str()]),
                &body,
                &fields,
                &dry,
                |id| Request::new(Op::AddressGet).at([csp.as_str(), id]),
            ),
            AddressCommand::Delete { csp, cpa, dry } => {
                if dry.dry_run {
                    // Nothing is deleted: nobody needs to confirm it.
                    return g.call(Request::new(Op::AddressDelete).at([csp, cpa]).dry_run(true));
                }
                // Before a prompt, check (read-only) that the address exists and
                // may go, so nobody is asked about a delete that would be refused:
                // the delete's own dry run, in process. A service is asked only
                // whether the address exists: one that does not know dry runs
                // would delete it before the confirmation. Without a prompt,
                // nothing is opened before the confirmation.
                if g.ui.interactive() && !g.yes {
                    let check = match g.remote {
                        Some(_) => Request::new(Op::AddressGet),
                        None => Request::new(Op::AddressDelete).dry_run(true),
                    };
                    g.call(check.at([csp.as_str(), cpa.as_str()]))?;
                }
                let shown = crate::error::shown_id(&cpa);
                g.confirm(&format!("delete address {shown}"))?;
                g.call(Request::new(Op::AddressDelete).at([csp, cpa]))
            }
        }
    }
}
