//! `payctl txn …`: transactions, their parameters and steps.

use std::str::FromStr;

use clap::{Args, Subcommand};
use clap_complete::ArgValueCompleter;
use serde_json::{Map, Number, Value};

use super::Global;
use super::args::{BodyArg, PageArgs, Patch, parse_tag};
use super::complete;
use crate::api::endpoints::{Op, Params, Request};
use crate::catalog::dictionaries as dict;
use crate::core::txn;
use crate::error::Result;
use crate::model::Tag;
use crate::model::status::txn::{COMPLETED, FAILED};
use crate::output::Response;

const CREATE_HELP: &str = "\
Parameters (docs/src/reference/parameters.md): every parameter must be mapped by a step of
the template; every step that is not optional needs its parameters.
  --param @source_customers=CSP:AMOUNT[:PIN]  a source customer, Attached to the program
  --param @targets=CSP:AMOUNT[:PIN]           a target customer, Attached to the program
                                              (PIN, optional: account_id, the instrument to use)
  --param @facilitator=AMOUNT                 the Facilitator's portion: an amount only
  --check 'AMOUNT;KEY=VALUE;…'                a @target_checks value (a check to mail)
Check keys: first_name and last_name, or organization_name (the payee); address_line1,
address_line2 (optional), city, state_id (a number or a USPS code such as IL), zip,
country_id (default 1), check_note (optional). Values cannot contain `;`.
Repeat --param or --check for more values; the `@` may be left out. A parameter given by
flags replaces the parameter of the same name in --body. AMOUNT is a number greater than 0
with at most 2 decimal places as written (100.25; 5.000 and 0.001 are refused), kept exactly
as written (100.50 stays 100.50), never rounded; an exponent form is read exactly (1.5e1 is
15). At most 26 digits before the decimal point.

Program, application and template take an id or a name (default_program, payments,
ach_funding); the application must belong to the program, the template to the
application. Tags: key and value 1-50 characters, keys unique, at most 50 tags. At most
100 parameters, and 1000 values per parameter. Reason: up to 256 characters. The transaction starts Created (10) without steps; `payctl worker`
generates and runs them (see `payctl txn steps`).

With --wait, payctl polls until the worker (`payctl worker --watch`, running elsewhere) has
finished the transaction, Completed (60) or Failed (70), and answers as without --wait (exit 0;
`payctl txn get` tells which). After --timeout (default 60 s) it answers as without --wait
(stdout: the new id), says on stderr what is still pending (30005) and exits 4: the
transaction exists, so poll it; never create it again.

Examples:
  payctl txn create --body txn.json
  payctl txn create --body txn.json --wait --timeout 30
  TRN=$(payctl txn create --program default_program --application payments \\
      --template ach_funding --param @source_customers=csp_0123456789abcdefghij:100.25 \\
      --reason 'March top-up' -o id)
  CHECK='250.00;organization_name=Acme Inc;address_line1=1 Main St;city=Springfield'
  payctl txn create --program default_program --application payments \\
      --template check_payout --check \"$CHECK;state_id=IL;zip=62701\"";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum TxnCommand {
    /// Create a transaction (POST /transactions)
    #[command(after_help = CREATE_HELP)]
    Create {
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: TxnFields,
        #[command(flatten)]
        wait: super::program::WaitArgs,
        #[command(flatten)]
        idem: super::args::IdempotencyArg,
        #[command(flatten)]
        dry: super::args::DryRunArg,
    },
    /// Show one transaction (GET /transactions/{id})
    #[command(after_help = "Example:\n  payctl txn get trn_0123456789abcdefghij")]
    Get {
        /// The transaction_id (trn_…)
        #[arg(add = ArgValueCompleter::new(complete::transactions))]
        trn: String,
    },
    /// List transactions, oldest first (ours)
    #[command(
        after_help = "Statuses: 10 Created, 20 Processing, 60 Completed, 70 Failed.\n\nExamples:\n  payctl txn list --status Failed\n  payctl txn list --template ach_funding --customer csp_0123456789abcdefghij"
    )]
    List {
        /// Only transactions with this transaction_status_id, or its name (Failed)
        #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::statuses))]
        status: Option<String>,
        /// Only transactions of this template (id, or name in any application)
        #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::templates))]
        template: Option<String>,
        /// Only transactions of this program (id or name)
        #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::programs))]
        program: Option<String>,
        /// Only transactions whose parameters name this customer profile
        #[arg(long, value_name = "CSP", add = ArgValueCompleter::new(complete::profiles))]
        customer: Option<String>,
        #[command(flatten)]
        page: PageArgs,
    },
    /// The stored parameters of a transaction, one record per name (GET /transactions/{id}/parameters)
    #[command(after_help = "Example:\n  payctl txn parameters trn_0123456789abcdefghij")]
    Parameters {
        /// The transaction_id (trn_…)
        #[arg(add = ArgValueCompleter::new(complete::transactions))]
        trn: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// The steps of a transaction, in sequence order; empty until `payctl worker` has run
    /// (GET /transactions/{id}/transaction-steps)
    #[command(
        after_help = "Step statuses: 10 Pending, 60 Completed, 70 Failed, 80 Cancelled.\nAn ACH Funding step needs an Active Funding instrument of every source customer, an ACH\nWithdrawal step an Active Withdrawal instrument of every target customer (of any program);\nwhen a step fails, the later steps are Cancelled and the transaction Failed (70).\n\nExample:\n  payctl worker && payctl txn steps trn_0123456789abcdefghij"
    )]
    Steps {
        /// The transaction_id (trn_…)
        #[arg(add = ArgValueCompleter::new(complete::transactions))]
        trn: String,
        #[command(flatten)]
        page: PageArgs,
    },
}

/// One `--param` value: the parameter name and a value object.
#[derive(Debug, Clone)]
pub struct ParamArg {
    pub name: String,
    pub value: Value,
}

// Per-field flags of a transaction body.
#[derive(Debug, Args)]
pub struct TxnFields {
    /// program_id: a prm_ id or a program name
    #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::programs))]
    pub program: Option<String>,
    /// application_id: an app_ id or an application name of the program
    #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::applications))]
    pub application: Option<String>,
    /// transaction_template_id: a trt_ id or a template name of the application
    #[arg(long, value_name = "ID|NAME", add = ArgValueCompleter::new(complete::templates))]
    pub template: Option<String>,
    /// transaction_status_reason
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// A transaction_tags entry (repeatable, at most 50; replaces the tags of --body)
    #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
    pub tags: Vec<Tag>,
    /// A parameter value: NAME=CSP:AMOUNT[:PIN] (@source_customers, @targets; PIN the account_id) or NAME=AMOUNT (@facilitator); repeatable
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<ParamArg>,
    /// A @target_checks value: 'AMOUNT;key=value;…' (see below); repeatable
    #[arg(long = "check", value_name = "SPEC", value_parser = parse_check)]
    pub checks: Vec<Value>,
}

/// An amount as a JSON number holding exactly the text written.
fn amount(text: &str) -> std::result::Result<Value, String> {
    let text = text.trim();
    Number::from_str(text).map(Value::Number).map_err(|_| {
        "the amount is not a number: write it like 100.25 (digits, at most one `.`)".to_string()
    })
}

fn param_name(name: &str) -> String {
    let name = name.trim();
    if name.starts_with('@') {
        name.to_string()
    } else {
        format!("@{name}")
    }
}

/// `NAME=CSP:AMOUNT` or `NAME=AMOUNT`.
fn parse_param(s: &str) -> std::result::Result<ParamArg, String> {
    let (name, rest) = s
        .split_once('=')
        .ok_or("expected NAME=CSP:AMOUNT or NAME=AMOUNT, e.g. @source_customers=csp_…:100.25")?;
    let mut value = Map::new();
    match rest.split_once(':') {
        Some((csp, tail)) => {
            value.insert(
                "customer_profile_id".into(),
                Value::String(csp.trim().to_string()),
            );
            // `CSP:AMOUNT:PIN` names the instrument (account_id) to use.
            let (amt, account) = match tail.split_once(':') {
                Some((amt, pin)) => (amt, Some(pin.trim())),
                None => (tail, None),
            };
            value.insert("amount".into(), amount(amt)?);
            if let Some(pin) = account {
                value.insert("account_id".into(), Value::String(pin.to_string()));
            }
        }
        None => {
            // A customer id without `:AMOUNT`: the amount is missing, not malformed.
            let t = rest.trim();
            if t.contains('_') && t.chars().any(|c| c.is_ascii_alphabetic()) {
                return Err(format!(
                    "the amount is missing: write {}={t}:AMOUNT, e.g. {}={t}:100.25",
                    name.trim(),
                    name.trim()
                ));
            }
            value.insert("amount".into(), amount(rest)?);
        }
    }
    Ok(ParamArg {
        name: param_name(name),
        value: Value::Object(value),
    })
}

/// `AMOUNT;key=value;…` of `--check` (`amount=…` is also accepted as a key).
fn parse_check(s: &str) -> std::result::Result<Value, String> {
    let mut value = Map::new();
    for (i, part) in s.split(';').enumerate() {
        if part.trim().is_empty() {
            continue;
        }
        let (key, v) = match part.split_once('=') {
            Some((k, v)) => (k.trim(), v),
            None if i == 0 => ("amount", part),
            None => return Err(format!("part {} is not key=value", i + 1)),
        };
        let v = match key {
            "amount" => amount(v)?,
            "country_id" => Value::from(v.trim().parse::<u32>().map_err(|_| {
                "country_id must be a number (1 for the United States)".to_string()
            })?),
            "state_id" | "state" => {
                let v = v.trim();
                let id = match v.parse::<u32>() {
                    Ok(n) => n,
                    Err(_) => dict::STATES
                        .iter()
                        .find(|st| st.short_name.eq_ignore_ascii_case(v))
                        .map(|st| st.id)
                        .ok_or_else(|| {
                            format!("state_id `{v}` is neither a number nor a USPS state code")
                        })?,
                };
                value.insert("state_id".into(), Value::from(id));
                continue;
            }
            _ => Value::String(v.to_string()),
        };
        value.insert(key.to_string(), v);
    }
    if !value.contains_key("amount") {
        return Err("a check needs an amount first: 'AMOUNT;first_name=…;…'".into());
    }
    value
        .entry("country_id")
        .or_insert(Value::from(txn::CHECK_COUNTRY));
    Ok(Value::Object(value))
}

impl TxnFields {
    fn over(self, body: Value) -> Value {
        let mut p = Patch::new();
        p.str("program_id", &self.program)
            .str("application_id", &self.application)
            .str("transaction_template_id", &self.template)
            .str("transaction_status_reason", &self.reason)
            .tags("transaction_tags", &self.tags);
        let mut body = p.over(body);
        // Group the flag values by parameter name, in the order first given.
        let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
        let checks = self
            .checks
            .into_iter()
            .map(|v| (txn::TARGET_CHECKS.to_string(), v));
        for (name, v) in self
            .params
            .into_iter()
            .map(|p| (p.name, p.value))
            .chain(checks)
        {
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, vals)) => vals.push(v),
                None => groups.push((name, vec![v])),
            }
        }
        if groups.is_empty() {
            return body;
        }
        let Some(obj) = body.as_object_mut() else {
            return body;
        };
        let params = obj
            .entry("transaction_parameters")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !params.is_array() {
            *params = Value::Array(Vec::new());
        }
        let arr = params.as_array_mut().expect("array");
        for (name, values) in groups {
            let new = serde_json::json!({
                "transaction_parameter_name": name,
                "transaction_parameter_values": values,
            });
            match arr.iter_mut().find(|p| {
                p.get("transaction_parameter_name").and_then(Value::as_str) == Some(name.as_str())
            }) {
                Some(slot) => *slot = new,
                None => arr.push(new),
            }
        }
        body
    }
}

impl TxnCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            TxnCommand::Create {
                body,
                fields,
                wait,
                idem,
                dry,
            } => {
                idem.check()?;
                let body = fields.over(body.read()?);
                let created = g.call(
                    Request::new(Op::TxnCreate)
                        .body(body)
                        .idempotency_key(idem.idempotency_key)
                        .dry_run(dry.dry_run),
                )?;
                // --wait: until the worker finished it, Completed or Failed
                // (exit 0 either way: read the status with `txn get`).
                if let (Some(limit), Response::Id(id)) = (wait.limit(), &created) {
                    super::program::wait_until(
                        g,
                        limit,
                        &format!("transaction {id}"),
                        &format!("payctl txn get {id}"),
                        || {
                            let got = g.call(Request::new(Op::TxnGet).at([id.as_str()]))?;
                            let status = super::program::first_u64(&got, "transaction_status_id");
                            Ok(status == Some(COMPLETED.into()) || status == Some(FAILED.into()))
                        },
                    );
                    return g.shown(created, |id| Request::new(Op::TxnGet).at([id]));
                }
                Ok(created)
            }
            TxnCommand::Get { trn } => g.call(Request::new(Op::TxnGet).at([trn])),
            TxnCommand::List {
                status,
                template,
                program,
                customer,
                page,
            } => {
                let query = Params {
                    page: page.request(),
                    status: status
                        .as_deref()
                        .map(crate::core::names::txn_status)
                        .transpose()?,
                    template,
                    program,
                    customer,
                    ..Params::default()
                };
                let listed = g.list(Request::new(Op::TxnList).query(query), &page)?;
                if g.ui.format() == crate::output::Format::Table {
                    return for_people(g, listed);
                }
                Ok(listed)
            }
            TxnCommand::Parameters { trn, page } => {
                g.list(Request::new(Op::TxnParameters).at([trn]), &page)
            }
            TxnCommand::Steps { trn, page } => g.list(Request::new(Op::TxnSteps).at([trn]), &page),
        }
    }
}

/// A page of transactions for a table: each with its template's name and
/// its amount (see [`amount_of`]), read through the endpoint table (so
/// remote mode shows them too), kept out of every other format.
fn for_people(g: &Global, listed: Response) -> Result<Response> {
    use crate::output::table::{TEMPLATE_NAME, TOTAL};
    let Response::List {
        kind,
        paging,
        mut data,
    } = listed
    else {
        return Ok(listed);
    };
    let records = |resp: Response| match resp {
        Response::List { data, .. } | Response::Records(_, data) => data,
        _ => Vec::new(),
    };
    let mut names = std::collections::HashMap::new();
    let mut all = crate::api::endpoints::Params::default();
    all.page.size = crate::core::paging::MAX_PAGE_SIZE;
    if !data.is_empty() {
        for p in records(g.call(Request::new(Op::ProgramList).query(all.clone()))?) {
            let prm = p["program_id"].as_str().unwrap_or_default().to_string();
            let apps = g.call(
                Request::new(Op::ApplicationList)
                    .at([prm])
                    .query(all.clone()),
            )?;
            for a in records(apps) {
                let app = a["application_id"].as_str().unwrap_or_default().to_string();
                let ts = g.call(Request::new(Op::TemplateList).at([app]).query(all.clone()))?;
                for t in records(ts) {
                    if let (Some(id), Some(name)) = (
                        t["transaction_template_id"].as_str(),
                        t["transaction_template_name"].as_str(),
                    ) {
                        names.insert(id.to_string(), name.to_string());
                    }
                }
            }
        }
    }
    for t in &mut data {
        let id = t["transaction_id"].as_str().unwrap_or_default().to_string();
        if let Some(name) = t["transaction_template_id"]
            .as_str()
            .and_then(|i| names.get(i))
        {
            t[TEMPLATE_NAME] = Value::String(name.clone());
        }
        let params = g.call(Request::new(Op::TxnParameters).at([id]).query(all.clone()))?;
        if let Some(a) = amount_of(&records(params)) {
            t[TOTAL] = Value::String(a);
        }
    }
    Ok(Response::List { kind, paging, data })
}

/// What a transaction moves, for people: the sum of the amounts of its
/// `@source_customers`, else of its `@targets`, else of its
/// `@target_checks`, else of `@facilitator` (exact decimals).
fn amount_of(params: &[Value]) -> Option<String> {
    use rust_decimal::Decimal;
    for name in [
        "@source_customers",
        "@targets",
        "@target_checks",
        "@facilitator",
    ] {
        let Some(p) = params
            .iter()
            .find(|p| p["transaction_parameter_name"] == name)
        else {
            continue;
        };
        let mut sum = Decimal::ZERO;
        for v in p["transaction_parameter_values"].as_array()? {
            let text = v["amount"].to_string();
            sum += Decimal::from_str(text.trim_matches('"')).ok()?;
        }
        return Some(sum.to_string());
    }
    None
}
