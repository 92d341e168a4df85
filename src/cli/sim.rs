//! `payctl sim rule add|list|delete`: outcome rules for the background
//! work (the routes `/_payctl/rules…`), locally or in remote mode (an admin
//! key on a server with keys). The rules themselves are `core::sim`'s.

use clap::{Args, Subcommand, ValueEnum};
use clap_complete::ArgValueCompleter;
use serde_json::{Map, Value, json};

use super::Global;
use super::args::PageArgs;
use super::complete;
use crate::api::endpoints::{Op, Request};
use crate::error::Result;
use crate::output::Response;

pub const SIM_HELP: &str = "\
What a client team's tests need of a stand-in service: failure paths on demand and the service's
delays. Without rules the worker behaves as always. A rule applies to attachments (--on attach)
or to transaction steps (--on step); the first rule whose --when matches an item decides:

  payctl sim rule add --on attach --when 'customer_key~^reject-' --outcome rejected --reason 'KYC failed'
  payctl sim rule add --on step --when amount=55.01 --outcome failed --reason 'R01 Insufficient funds'
  payctl sim rule add --on attach --after 120      # attachments wait 2 minutes, as the real service's do
  payctl sim rule add --on step --after-polls 3    # a step is taken after the third GET of it
  payctl sim rule list
  payctl sim rule delete rul_0123456789abcdefghij

Rules are stored in the store (every backend) and kept by `store reset` and `store snapshot
restore`. Over HTTP: GET and POST /_payctl/rules, DELETE /_payctl/rules/{id} (admin).
Deterministic ids for tests: PAYCTL_ID_SEED=N (see `payctl serve --help`).";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum SimCommand {
    /// Outcome rules of the background work: add, list, delete
    #[command(subcommand)]
    Rule(RuleCommand),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OnArg {
    /// A Pending profile-program record (`program attach`)
    Attach,
    /// A Pending step of a transaction
    Step,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OutcomeArg {
    /// The attachment becomes Rejected (20) with --reason (--on attach)
    Rejected,
    /// The step becomes Failed (70) with --reason, the later steps Cancelled and the
    /// transaction Failed (--on step)
    Failed,
}

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The work the rule applies to
    #[arg(long, value_enum)]
    pub on: OnArg,
    /// FIELD=VALUE (equal) or FIELD~REGEX (the regular expression finds a match) [default:
    /// every item]. Attach: customer_key, customer_type_id, a customer_profile_individual field
    /// (first_name, email, …; not ssn) or tag:KEY. Step: a field of the step's parameter values
    /// (amount, equal as a decimal; customer_profile_id; organization_name, …) or
    /// transfer_type_id
    #[arg(long, value_name = "FIELD=VALUE|FIELD~REGEX")]
    pub when: Option<String>,
    /// What the worker makes of a matching item: rejected (attach) or failed (step) [default:
    /// the usual outcome]
    #[arg(long, value_enum)]
    pub outcome: Option<OutcomeArg>,
    /// The status reason of the outcome, 1-255 characters (an ACH return: "R01 Insufficient
    /// funds") [default: "Rejected/Failed by the payctl sim rule RUL."]
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// The item waits this many seconds (1-604800) before the worker takes it: an attachment
    /// from its request, a step from when it became the next to run
    #[arg(long, value_name = "SECS")]
    pub after: Option<u64>,
    /// The item is taken only after it has been read N times (1-1000): GET of the
    /// profile-program record; GET of the transaction or its steps for the step next to run
    #[arg(long, value_name = "N")]
    pub after_polls: Option<u64>,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum RuleCommand {
    /// Add an outcome rule (after the others: the first that matches an item decides)
    #[command(
        after_help = "A rule needs --outcome, --after or --after-polls (what it does); --reason only with --outcome; rejected is an\n\
attachment's outcome, failed a step's. Each is refused (10001, 10002) naming its flag, and nothing is stored.\n\
Answers the rule: data: [{\"rule_id\", \"on\", \"when\", \"outcome\", \"reason\", \"after\", \"after_polls\", \"created_by\",\n\
\"created_datetime\"}] (-o id: its rule_id).\n\nExamples:\n  payctl sim rule add --on attach --when 'tag:segment=risky' --outcome rejected --reason 'KYC failed'\n  payctl sim rule add --on step --when amount=55.01 --outcome failed --reason 'R01 Insufficient funds'\n  payctl sim rule add --on step --after 300 --after-polls 2"
    )]
    Add(RuleArgs),
    /// List the outcome rules, in the order they apply
    #[command(after_help = "Example:\n  payctl sim rule list -o jsonl")]
    List {
        #[command(flatten)]
        page: PageArgs,
    },
    /// Delete an outcome rule
    #[command(
        after_help = "Answers data: [{\"id\": RULE_ID}].\n\nExample:\n  payctl sim rule delete rul_0123456789abcdefghij"
    )]
    Delete {
        /// The rule's id (rul_…)
        #[arg(add = ArgValueCompleter::new(complete::rules))]
        rule_id: String,
    },
}

impl RuleArgs {
    /// The body of `POST /_payctl/rules`.
    fn body(&self) -> Value {
        let mut b = Map::new();
        b.insert(
            "on".into(),
            json!(match self.on {
                OnArg::Attach => "attach",
                OnArg::Step => "step",
            }),
        );
        if let Some(w) = &self.when {
            b.insert("when".into(), json!(w));
        }
        if let Some(o) = self.outcome {
            let o = match o {
                OutcomeArg::Rejected => "rejected",
                OutcomeArg::Failed => "failed",
            };
            b.insert("outcome".into(), json!(o));
        }
        if let Some(r) = &self.reason {
            b.insert("reason".into(), json!(r));
        }
        if let Some(a) = self.after {
            b.insert("after".into(), json!(a));
        }
        if let Some(n) = self.after_polls {
            b.insert("after_polls".into(), json!(n));
        }
        Value::Object(b)
    }
}

impl SimCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        let SimCommand::Rule(c) = self;
        match c {
            RuleCommand::Add(a) => g.call(Request::new(Op::RuleAdd).body(a.body())),
            RuleCommand::List { page } => g.list(Request::new(Op::RuleList), &page),
            RuleCommand::Delete { rule_id } => g.call(Request::new(Op::RuleDelete).at([rule_id])),
        }
    }
}
