//! `payctl instrument …`: bank-account payment instruments of a customer profile.

use clap::{Args, Subcommand};
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::{BodyArg, DryRunArg, IdempotencyArg, PageArgs, Patch, parse_bool, parse_tag};
use super::change::Fields;
use super::complete;
use super::prompt::{self, Dict, DictParser};
use crate::api::endpoints::{Op, Request};
use crate::error::Result;
use crate::model::Tag;
use crate::output::Response;

const CREATE_HELP: &str = "\
The customer must be Attached to --program first (program attach, then the worker).
Account and routing numbers are stored whole and shown only as their last 4 digits.
At most 50 tags per instrument and 50 instruments per profile (10001 past that).

Example:
  payctl instrument create csp_… --program prm_… --type-id 1 --payment-method-id 1 \\
      --default true --label \"Main checking\" --change-reason \"Initial setup\" \\
      --account-number 000123456789 --routing-number 021000021 --ach-type-id 2 --tag source=onboarding";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum InstrumentCommand {
    /// Add a bank account (POST /customer-profiles/{id}/payment_instruments)
    #[command(after_help = CREATE_HELP)]
    Create {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: InstrumentFields,
        #[command(flatten)]
        idem: IdempotencyArg,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// List a profile's payment instruments, oldest first
    #[command(after_help = "Example:\n  payctl instrument list csp_… -o table")]
    List {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one payment instrument
    #[command(after_help = "Example:\n  payctl instrument get csp_… pin_…")]
    Get {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        /// The payment_instrument_id (pin_…)
        #[arg(add = ArgValueCompleter::new(complete::instruments))]
        pin: String,
    },
    /// Change the label, the change reason or is_default (nothing else can change: 10003)
    #[command(
        after_help = "Other fields may be sent with their current value, except account_number and\nrouting_number: any value of those is refused (10003), the stored one too, so that an\nupdate never tells whether a guess is right.\n\nExample:\n  payctl instrument update csp_… pin_… --default true --change-reason \"Primary account\""
    )]
    Update {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        /// The payment_instrument_id (pin_…)
        #[arg(add = ArgValueCompleter::new(complete::instruments))]
        pin: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: InstrumentFields,
        #[command(flatten)]
        dry: DryRunArg,
    },
}

// Per-field flags of an instrument body.
#[derive(Debug, Args)]
pub struct InstrumentFields {
    /// payment_instrument_type_id: an id or a name: 1 Funding, 2 Withdrawal
    #[arg(long = "type-id", value_name = "ID|NAME", value_parser = DictParser(Dict::InstrumentType), hide_possible_values = true)]
    pub type_id: Option<u32>,
    /// payment_method_id: an id or a name: 1 ACH (the only one supported)
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::PaymentMethod), hide_possible_values = true)]
    pub payment_method_id: Option<u32>,
    /// is_default: one default per profile and instrument type
    #[arg(long = "default", value_name = "BOOL", value_parser = parse_bool)]
    pub is_default: Option<bool>,
    /// payment_instrument_label (1-256 characters)
    #[arg(long)]
    pub label: Option<String>,
    /// payment_instrument_change_reason (1-256 characters)
    #[arg(long)]
    pub change_reason: Option<String>,
    /// program_id the customer is Attached to (prm_…)
    #[arg(long = "program", value_name = "PRM", add = ArgValueCompleter::new(complete::programs))]
    pub program_id: Option<String>,
    // The rules' text is core's, as the prompts and the errors state it.
    #[arg(long, value_name = "DIGITS", help = crate::core::instrument::ACCOUNT_RULE)]
    pub account_number: Option<String>,
    #[arg(long, value_name = "DIGITS", help = crate::core::instrument::ROUTING_RULE)]
    pub routing_number: Option<String>,
    /// payment_instrument_ach_type_id: an id or a name: 1 Savings, 2 Checking
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::AchType), hide_possible_values = true)]
    pub ach_type_id: Option<u32>,
    /// A payment_instrument_tags entry (repeatable, at most 50; keys unique)
    #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
    pub tags: Vec<Tag>,
}

impl Fields for InstrumentFields {
    fn over(&self, body: serde_json::Value) -> serde_json::Value {
        let mut p = Patch::new();
        p.num("payment_instrument_type_id", self.type_id)
            .num("payment_method_id", self.payment_method_id)
            .bool("is_default", self.is_default)
            .str("payment_instrument_label", &self.label)
            .str("payment_instrument_change_reason", &self.change_reason)
            .str("program_id", &self.program_id)
            .str(
                "payment_instrument_ach.account_number",
                &self.account_number,
            )
            .str(
                "payment_instrument_ach.routing_number",
                &self.routing_number,
            )
            .num(
                "payment_instrument_ach.payment_instrument_ach_type_id",
                self.ach_type_id,
            )
            .tags("payment_instrument_tags", &self.tags);
        p.over(body)
    }
}

impl InstrumentCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            InstrumentCommand::Create {
                csp,
                body,
                fields,
                idem,
                dry,
            } => g.create(
                Request::new(Op::InstrumentCreate).at([csp.as_str()]),
                &body,
                &fields,
                &idem,
                &dry,
                || prompt::instrument_form(g),
            ),
            InstrumentCommand::List { csp, page } => {
                g.list(Request::new(Op::InstrumentList).at([csp]), &page)
            }
            InstrumentCommand::Get { csp, pin } => {
                g.call(Request::new(Op::InstrumentGet).at([csp, pin]))
            }
            InstrumentCommand::Update {
                csp,
                pin,
                body,
                fields,
                dry,
            } => g.update(
                Request::new(Op::InstrumentUpdate).at([csp.as_str(), pin.as_str()]),
                &body,
                &fields,
                &dry,
                |id| Request::new(Op::InstrumentGet).at([csp.as_str(), id]),
            ),
        }
    }
}
