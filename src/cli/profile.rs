//! `payctl profile …`: customer profiles.

use clap::{Args, Subcommand};
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::{BodyArg, DryRunArg, IdempotencyArg, PageArgs, Patch, parse_tag};
use super::change::Fields;
use super::complete;
use super::prompt::{self, Dict, DictParser};
use crate::api::endpoints::{Op, Params, Request};
use crate::error::Result;
use crate::model::Tag;
use crate::output::Response;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ProfileCommand {
    /// Create a customer profile (POST /customer-profiles)
    #[command(
        after_help = "Examples:\n  payctl profile create --body profile.json\n  CSP=$(payctl profile create --customer-type-id 1 --customer-key cust-0001 \\\n      --first-name Ada --last-name Lovelace --email ada@example.com \\\n      --date-of-birth 1990-12-10 --mobile-phone +15551234567 -o id)"
    )]
    Create {
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: ProfileFields,
        #[command(flatten)]
        idem: IdempotencyArg,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// List customer profiles, oldest first (GET /customer-profiles)
    #[command(
        after_help = "Filters are exact and answered from indexes (the key index, and the field indexes\nof e-mail, names and tags), so their cost grows with the matches, not with the store.\n\nExamples:\n  payctl profile list --email ada@example.com\n  payctl profile list --page-size 100 --page-number 2"
    )]
    List {
        /// Only profiles with this first name (any case)
        #[arg(long)]
        first_name: Option<String>,
        /// Only profiles with this last name (any case)
        #[arg(long)]
        last_name: Option<String>,
        /// Only profiles with this e-mail address (any case)
        #[arg(long)]
        email: Option<String>,
        /// Only the profile with this customer_key
        #[arg(long)]
        customer_key: Option<String>,
        /// Only profiles with this tag (repeatable; all must match)
        #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
        tags: Vec<Tag>,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one customer profile (GET /customer-profiles/{id})
    #[command(after_help = "Example:\n  payctl profile get csp_0123456789abcdefghij")]
    Get {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
    },
    /// Change a customer profile; only the fields given change (PUT /customer-profiles/{id})
    #[command(
        after_help = "customer_key and customer_profile_tags cannot be updated (10003 when changed).\nssn cannot be updated and is refused whatever its value, the stored one too (10003),\nso that an update never tells whether a guess is right.\n\nExample:\n  payctl profile update csp_0123456789abcdefghij --email new@example.com"
    )]
    Update {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: ProfileFields,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// Create many customer profiles from JSON Lines: one `profile create` body per line (ours)
    ///
    /// Every line is checked first with the rules of `profile create`; if any
    /// line is refused, nothing is written and the bad lines are reported
    /// (messages start with `line N:`, exit 1): the first 100 in detail, then
    /// a count of the rest. A line holds at most 1 MiB; a longer one stops the
    /// import there (10005, nothing written). The input is read once, as a
    /// stream, in bounded memory; the lines to write wait in a private scratch
    /// file inside the store until they are written. A customer_key repeated in the
    /// file, or already held by a stored profile, is refused too (21002)
    /// unless --skip-existing is given: then lines whose key a stored profile
    /// has are skipped (their number is noted on stderr), so re-running an
    /// import that was interrupted creates exactly the missing profiles.
    ///
    /// The profiles are written in file order, 15,000 per atomic commit (5,000
    /// on a database); an
    /// interruption keeps the commits already made. The store is locked only
    /// for each commit, so other commands get in between two; a key another
    /// command took meanwhile is refused for its line at the commit (21002;
    /// skipped with --skip-existing) and the other lines are created. Blank lines, CRLF line ends and a leading
    /// byte-order mark are accepted. Every profile of one import has the same
    /// created_datetime (the import's start). The answer lists the new
    /// profiles: data: [{"id", "customer_key", "line"}, …] (`-o id`: the new
    /// ids, one per line). A progress bar is drawn on stderr when it is a
    /// terminal.
    ///
    /// The import is an operation of the HTTP API, POST
    /// /_payctl/customer-profiles/import (JSON Lines, `skip_existing`), run in
    /// process here. In remote mode (--base-url) the file is streamed to the
    /// service as that one request, so a remote import is the same: all lines
    /// checked, nothing written if one is refused. A service without that
    /// route (an older payctl serve) refuses it (404): nothing is imported.
    #[command(
        after_help = "Examples:\n  payctl profile import customers.jsonl -o id > new-ids.txt\n  jq -c '.[]' customers.json | payctl profile import - --skip-existing"
    )]
    Import {
        /// The JSON Lines file, or `-` for stdin
        #[arg(value_name = "FILE|-")]
        file: std::path::PathBuf,
        /// Skip lines whose customer_key a stored profile already has (instead of refusing)
        #[arg(long)]
        skip_existing: bool,
    },
}

// Per-field flags of a profile body.
#[derive(Debug, Args)]
pub struct ProfileFields {
    /// customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::CustomerType), hide_possible_values = true)]
    pub customer_type_id: Option<u32>,
    // The rule's text is core's, as the prompt and the error state it.
    #[arg(long, value_name = "KEY",
          help = format!("customer_key: {} (unique)", crate::core::profile::KEY_RULE))]
    pub customer_key: Option<String>,
    /// A customer_profile_tags entry (repeatable, at most 50)
    #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
    pub tags: Vec<Tag>,
    /// first_name: 1-50 characters (required by a create)
    #[arg(long)]
    pub first_name: Option<String>,
    /// middle_name: 0-50 characters (optional)
    #[arg(long)]
    pub middle_name: Option<String>,
    /// last_name: 1-50 characters (required by a create)
    #[arg(long)]
    pub last_name: Option<String>,
    /// email: an e-mail address, at most 256 characters (required by a create)
    #[arg(long)]
    pub email: Option<String>,
    /// date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator's age limits (required by a create)
    #[arg(long, value_name = "DATE")]
    pub date_of_birth: Option<String>,
    /// ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)
    #[arg(long)]
    pub ssn: Option<String>,
    /// mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)
    #[arg(long, value_name = "PHONE")]
    pub mobile_phone: Option<String>,
    /// home_phone: +, a digit 1-9, then 1 to 15 digits (optional)
    #[arg(long, value_name = "PHONE")]
    pub home_phone: Option<String>,
    /// office_phone: +, a digit 1-9, then 1 to 15 digits (optional)
    #[arg(long, value_name = "PHONE")]
    pub office_phone: Option<String>,
}

impl Fields for ProfileFields {
    fn over(&self, body: serde_json::Value) -> serde_json::Value {
        let mut p = Patch::new();
        let ind = "customer_profile_individual";
        p.num("customer_type_id", self.customer_type_id)
            .str("customer_key", &self.customer_key)
            .tags("customer_profile_tags", &self.tags)
            .str(&format!("{ind}.first_name"), &self.first_name)
            .str(&format!("{ind}.middle_name"), &self.middle_name)
            .str(&format!("{ind}.last_name"), &self.last_name)
            .str(&format!("{ind}.email"), &self.email)
            .str(&format!("{ind}.date_of_birth"), &self.date_of_birth)
            .str(&format!("{ind}.ssn"), &self.ssn)
            .str(&format!("{ind}.mobile_phone"), &self.mobile_phone)
            .str(&format!("{ind}.home_phone"), &self.home_phone)
            .str(&format!("{ind}.office_phone"), &self.office_phone);
        p.over(body)
    }
}

impl ProfileCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            ProfileCommand::Create {
                body,
                fields,
                idem,
                dry,
            } => g.create(
                Request::new(Op::ProfileCreate),
                &body,
                &fields,
                &idem,
                &dry,
                || prompt::profile_form(g),
            ),
            ProfileCommand::List {
                first_name,
                last_name,
                email,
                customer_key,
                tags,
                page,
            } => {
                let query = Params {
                    page: page.request(),
                    first_name,
                    last_name,
                    email,
                    customer_key,
                    tags,
                    ..Params::default()
                };
                g.list(Request::new(Op::ProfileList).query(query), &page)
            }
            ProfileCommand::Get { csp } => g.call(Request::new(Op::ProfileGet).at([csp])),
            ProfileCommand::Import {
                file,
                skip_existing,
            } => import::exec(g, &file, skip_existing),
            ProfileCommand::Update {
                csp,
                body,
                fields,
                dry,
            } => g.update(
                Request::new(Op::ProfileUpdate).at([csp.as_str()]),
                &body,
                &fields,
                &dry,
                |id| Request::new(Op::ProfileGet).at([id]),
            ),
        }
    }
}

/// `profile import`: read the lines, show progress, answer the new ids.
mod import;
