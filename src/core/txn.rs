//! Transactions (spec 2.6, 2.7, 3, 4.6; CLI.md "Transaction parameters",
//! "The worker"): create with full validation of the parameters against the
//! template's steps, the reads, and [`process`], the worker's part that
//! generates and runs the steps.
//!
//! Choices where the spec and CLI.md are silent (also in `payctl txn create --help`):
//! - `program_id`, `application_id` and `transaction_template_id` take an id or
//!   the record's name (`default_program`, `payments`, `ach_funding`); the
//!   application is looked up within the program, the template within the
//!   application. The transaction stores the ids.
//! - `transaction_status_reason` is optional, at most 256 characters. The
//!   worker replaces it with the reason of each status it sets.
//! - `transaction_tags` is optional: `key` and `value` 1-50 characters, any
//!   symbols; a key may occur once.
//! - Value objects may carry every field of the stored parameters (so a
//!   record read back can be sent again): fields that do not apply to the
//!   parameter must be null or absent, `account_id` always.
//! - `@target_checks` values need `country_id` (only 1). `address_line2` and
//!   `check_note` are optional, up to 256 characters, empty allowed.
//! - Amounts are kept as sent (`100.50` stays `100.50`); an exponent form such
//!   as `1e2` is accepted and kept as its plain value (`100`). Decimal places
//!   are counted as written (`5.000` has 3) and checked on the number's text
//!   ([`rules::amount`]), so nothing is rounded before the check.
//! - `transaction_parameter_id` is a random positive integer below 2^53, unique
//!   within the transaction.
//! - The worker: ACH Funding checks the customers of the step's source
//!   parameter for an Active Funding instrument, ACH Withdrawal the customers
//!   of its target parameter for an Active Withdrawal instrument; an Active
//!   instrument of that type counts whatever its program. Internal transfers
//!   and check payments always complete (spec 1: amounts are not verified).

use std::collections::{BTreeSet, HashMap};

use rand::Rng;
use rust_decimal::Decimal;
use serde_json::Value;

use super::body::{Obj, as_object};
use super::paging::{Page, PageRequest, paginate};
use super::rules::caps;
use super::worker::Summary;
use super::{Ctx, rules};
use crate::catalog::dictionaries as dict;
use crate::error::{Error, Errors, Result, code};
use crate::model::catalog::{Application, Catalog, Program, Template, TemplateStep};
use crate::model::status::{self, SYSTEM};
use crate::model::txn::{ParamValue, Parameter, Step, Transaction, TxnFile};
use crate::model::{Audit, Customer, Tag, id};
use crate::store::{QueueItem, Store, Tx, TxnSummary};

pub const FIELDS: &[&str] = &[
    "program_id",
    "application_id",
    "transaction_template_id",
    "transaction_status_reason",
    "transaction_tags",
    "transaction_parameters",
];
pub const PARAMETER_FIELDS: &[&str] =
    &["transaction_parameter_name", "transaction_parameter_values"];
/// The fields of a parameter value: the first three (who and how much) are
/// shared by every kind of value; the rest ([`CHECK_ONLY`]) belong to checks.
pub const VALUE_FIELDS: &[&str] = &[
    "customer_profile_id",
    "amount",
    "account_id",
    "check_note",
    "first_name",
    "last_name",
    "organization_name",
    "country_id",
    "state_id",
    "address_line1",
    "address_line2",
    "city",
    "zip",
];

/// The fields only a check value carries.
const CHECK_ONLY: &[&str] = VALUE_FIELDS.split_at(3).1;

pub const SOURCE_CUSTOMERS: &str = "@source_customers";
pub const TARGETS: &str = "@targets";
pub const FACILITATOR: &str = "@facilitator";
pub const TARGET_CHECKS: &str = "@target_checks";

/// Transfer types the worker checks (built-in dictionary).
const ACH_FUNDING: u32 = 1;
const ACH_WITHDRAWAL: u32 = 2;
/// Payment instrument types.
const FUNDING: u32 = 1;
const WITHDRAWAL: u32 = 2;
/// The only supported country.
const US: u32 = 1;
/// Largest transaction_parameter_id (exclusive): exact in every JSON reader.
const MAX_PARAMETER_ID: u64 = 1 << 53;

/// What the values of a parameter carry, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `@source_customers`, `@targets`: an attached customer and an amount.
    Customer,
    /// `@facilitator`: an amount only.
    Amount,
    /// `@target_checks`: an amount, a payee and a US address.
    Check,
}

fn kind(name: &str) -> Option<Kind> {
    match name {
        SOURCE_CUSTOMERS | TARGETS => Some(Kind::Customer),
        FACILITATOR => Some(Kind::Amount),
        TARGET_CHECKS => Some(Kind::Check),
        _ => None,
    }
}

/// The transaction aggregate `id`, or 20001.
pub fn load(store: &Store, tid: &str) -> Result<TxnFile> {
    store
        .txn(tid)?
        .ok_or_else(|| Error::not_found("transaction", tid))
}

// ---------------------------------------------------------------- create

/// The program, application and template a create body names, as far as they resolve.
#[derive(Default)]
struct Resolved<'c> {
    program: Option<&'c Program>,
    application: Option<&'c Application>,
    template: Option<&'c Template>,
}

fn resolve<'c>(errs: &mut Errors, o: &Obj, catalog: &'c Catalog) -> Resolved<'c> {
    let mut r = Resolved::default();
    let field = |errs: &mut Errors, name: &str| -> Option<String> {
        match o.string(name, errs) {
            Some(s) => Some(s.to_string()),
            None => {
                if !o.has(name) {
                    errs.required(name);
                }
                None
            }
        }
    };
    let program = field(errs, "program_id");
    let application = field(errs, "application_id");
    let template = field(errs, "transaction_template_id");

    if let Some(p) = &program {
        r.program = catalog
            .programs
            .iter()
            .find(|x| x.program_id == *p || x.program_name == *p);
        if r.program.is_none() {
            errs.invalid(
                "program_id",
                "is not a program of this Facilitator (see `payctl program list`)",
            );
        }
    }
    if let Some(a) = &application {
        let matches = |x: &&Application| x.application_id == *a || x.application_name == *a;
        match r.program {
            Some(p) => {
                r.application = p.applications.iter().find(matches);
                if r.application.is_none() {
                    let elsewhere = catalog
                        .programs
                        .iter()
                        .flat_map(|p| &p.applications)
                        .any(|x| matches(&x));
                    let rule = if elsewhere {
                        format!(
                            "does not belong to the program {} (see `payctl program applications`)",
                            p.program_id
                        )
                    } else {
                        "is not an application of this Facilitator (see `payctl program applications`)".to_string()
                    };
                    errs.invalid("application_id", rule);
                }
            }
            None => {
                r.application = catalog
                    .programs
                    .iter()
                    .flat_map(|p| &p.applications)
                    .find(matches);
                if r.application.is_none() {
                    errs.invalid(
                        "application_id",
                        "is not an application of this Facilitator",
                    );
                }
            }
        }
    }
    if let Some(t) = &template {
        let matches =
            |x: &&Template| x.transaction_template_id == *t || x.transaction_template_name == *t;
        let all = || {
            catalog
                .programs
                .iter()
                .flat_map(|p| &p.applications)
                .flat_map(|a| &a.transaction_templates)
        };
        match r.application {
            Some(a) => {
                r.template = a.transaction_templates.iter().find(matches);
                if r.template.is_none() {
                    let rule = if all().any(|x| matches(&x)) {
                        format!(
                            "does not belong to the application {} (see `payctl template list {}`)",
                            a.application_id, a.application_id
                        )
                    } else {
                        format!(
                            "is not a transaction template (see `payctl template list {}`)",
                            a.application_id
                        )
                    };
                    errs.invalid("transaction_template_id", rule);
                }
            }
            None => {
                r.template = all().find(matches);
                if r.template.is_none() {
                    errs.invalid(
                        "transaction_template_id",
                        "is not a transaction template of this Facilitator",
                    );
                }
            }
        }
    }
    r
}

fn reason(errs: &mut Errors, o: &Obj) -> Option<String> {
    let s = o.string("transaction_status_reason", errs)?;
    rules::length(errs, "transaction_status_reason", s, 0, 256).then(|| s.to_string())
}

/// `transaction_tags`: `key` and `value` 1-50 characters, unique keys.
fn tags(errs: &mut Errors, o: &Obj) -> Vec<Tag> {
    let Some(arr) = o.array("transaction_tags", errs) else {
        return Vec::new();
    };
    if !rules::at_most(errs, "transaction_tags", arr.len(), caps::TAGS, "tags") {
        return Vec::new();
    }
    let mut out: Vec<Tag> = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let path = format!("transaction_tags[{i}]");
        let Some(t) = as_object(v, &path, errs) else {
            continue;
        };
        t.known(&["key", "value"], errs);
        let mut pair = [None, None];
        for (slot, field) in pair.iter_mut().zip(["key", "value"]) {
            match t.string(field, errs) {
                Some(s) => {
                    *slot = rules::length(errs, &t.at(field), s, 1, 50).then(|| s.to_string())
                }
                None if !t.has(field) => errs.required(&t.at(field)),
                None => {}
            }
        }
        if let [Some(key), Some(value)] = pair {
            if out.iter().any(|x| x.key == key) {
                errs.invalid(&t.at("key"), "tag keys must be unique");
            } else {
                out.push(Tag { key, value });
            }
        }
    }
    out
}

/// Refuse non-null `names` of a value object (10001).
fn forbid(errs: &mut Errors, v: &Obj, names: &[&str], why: &str) {
    for n in names {
        if v.has(n) {
            errs.invalid(&v.at(n), why);
        }
    }
}

/// A required text field of `min`-`max` characters.
fn req_text(errs: &mut Errors, v: &Obj, name: &str, min: usize, max: usize) -> Option<String> {
    match v.string(name, errs) {
        Some(s) => rules::length(errs, &v.at(name), s, min, max).then(|| s.to_string()),
        None => {
            if !v.has(name) {
                errs.required(&v.at(name));
            }
            None
        }
    }
}

/// An optional text field of `min`-`max` characters.
fn opt_text(errs: &mut Errors, v: &Obj, name: &str, min: usize, max: usize) -> Option<String> {
    let s = v.string(name, errs)?;
    rules::length(errs, &v.at(name), s, min, max).then(|| s.to_string())
}

fn req_uint(errs: &mut Errors, v: &Obj, name: &str) -> Option<u32> {
    let n = v.uint(name, errs);
    if n.is_none() && !v.has(name) {
        errs.required(&v.at(name));
    }
    n
}

fn empty_value(amount: Decimal) -> ParamValue {
    ParamValue {
        customer_profile_id: None,
        amount,
        account_id: None,
        check_note: None,
        first_name: None,
        last_name: None,
        organization_name: None,
        country_id: None,
        state_id: None,
        address_line1: None,
        address_line2: None,
        city: None,
        zip: None,
    }
}

/// Looks up customers once each while a body is validated.
struct Customers<'s> {
    store: &'s Store,
    seen: HashMap<String, Option<Customer>>,
}

impl Customers<'_> {
    fn get(&mut self, cid: &str) -> Result<Option<&Customer>> {
        if !self.seen.contains_key(cid) {
            let c = self.store.customer(cid)?;
            self.seen.insert(cid.to_string(), c);
        }
        Ok(self.seen[cid].as_ref())
    }
}

/// Read one value object of a parameter of `kind` (`None` when the kind is
/// unknown: only the amount and the field names are checked then).
fn value(
    errs: &mut Errors,
    v: &Obj,
    name: &str,
    kind: Option<Kind>,
    program: Option<&Program>,
    customers: &mut Customers,
) -> Result<Option<ParamValue>> {
    let start = errs.0.len();
    v.known(VALUE_FIELDS, errs);
    let amount = match v.number_text("amount", errs) {
        Some(text) => rules::amount(errs, &v.at("amount"), text),
        None => {
            if !v.has("amount") {
                errs.required(&v.at("amount"));
            }
            None
        }
    };
    forbid(
        errs,
        v,
        &["account_id"],
        "is not accepted in a request (it is always null)",
    );
    let mut out = amount.map(empty_value);
    match kind {
        None => {}
        Some(Kind::Amount) => {
            let why = format!("is not used by {name} values: they carry an amount only");
            forbid(errs, v, &["customer_profile_id"], &why);
            forbid(errs, v, CHECK_ONLY, &why);
        }
        Some(Kind::Customer) => {
            let why = format!(
                "is not used by {name} values: they carry a customer_profile_id and an amount"
            );
            forbid(errs, v, CHECK_ONLY, &why);
            let path = v.at("customer_profile_id");
            match v.string("customer_profile_id", errs) {
                Some(cid) => match customers.get(cid)? {
                    None => errs.invalid(
                        &path,
                        "is not a customer profile (see `payctl profile list`)",
                    ),
                    Some(c) => {
                        if let Some(p) = program
                            && !c.is_attached(&p.program_id)
                        {
                            let state = match c.attachment(&p.program_id) {
                                Some(a)
                                    if a.customer_profile_program_status_id
                                        == status::attachment::PENDING =>
                                {
                                    "the attachment is still Pending: run `payctl worker`"
                                        .to_string()
                                }
                                Some(a) => format!(
                                    "its attachment has status {}",
                                    a.customer_profile_program_status_id
                                ),
                                None => format!(
                                    "attach it with `payctl program attach {} CSP`",
                                    p.program_id
                                ),
                            };
                            errs.push(
                                code::NOT_ATTACHED,
                                &path,
                                format!("{} ({state})", crate::error::title(code::NOT_ATTACHED)),
                            );
                        }
                        if let Some(o) = out.as_mut() {
                            o.customer_profile_id = Some(cid.to_string());
                        }
                    }
                },
                None => {
                    if !v.has("customer_profile_id") {
                        errs.required(&path);
                    }
                }
            }
        }
        Some(Kind::Check) => {
            let why = format!(
                "is not used by {name} values: they carry an amount, a payee and a US address"
            );
            forbid(errs, v, &["customer_profile_id"], &why);
            let first_name = opt_text(errs, v, "first_name", 1, 50);
            let last_name = opt_text(errs, v, "last_name", 1, 50);
            let organization_name = opt_text(errs, v, "organization_name", 1, 50);
            let (has_first, has_last) = (v.has("first_name"), v.has("last_name"));
            if has_first && !has_last {
                errs.push(
                    code::REQUIRED,
                    &v.at("last_name"),
                    "is required with first_name",
                );
            } else if has_last && !has_first {
                errs.push(
                    code::REQUIRED,
                    &v.at("first_name"),
                    "is required with last_name",
                );
            } else if !has_first && !v.has("organization_name") {
                errs.push(
                    code::REQUIRED,
                    &v.at("first_name"),
                    "a check needs a payee: first_name and last_name, or organization_name",
                );
            }
            let address_line1 = req_text(errs, v, "address_line1", 1, 256);
            let address_line2 = opt_text(errs, v, "address_line2", 0, 256);
            let city = req_text(errs, v, "city", 1, 50);
            let zip = match v.string("zip", errs) {
                Some(z) => {
                    let before = errs.0.len();
                    rules::zip(errs, &v.at("zip"), z);
                    (errs.0.len() == before).then(|| z.to_string())
                }
                None => {
                    if !v.has("zip") {
                        errs.required(&v.at("zip"));
                    }
                    None
                }
            };
            let country_id = req_uint(errs, v, "country_id");
            if let Some(c) = country_id
                && c != US
            {
                errs.invalid(
                    &v.at("country_id"),
                    "only 1 (the United States) is supported",
                );
            }
            let state_id = req_uint(errs, v, "state_id");
            if let Some(s) = state_id
                && dict::state(s).is_none_or(|st| st.country_id != US)
            {
                errs.invalid(
                    &v.at("state_id"),
                    "is not a state of country 1 (see `payctl dict list states --country 1`)",
                );
            }
            let check_note = opt_text(errs, v, "check_note", 0, 256);
            if let Some(o) = out.as_mut() {
                o.first_name = first_name;
                o.last_name = last_name;
                o.organization_name = organization_name;
                o.address_line1 = address_line1;
                o.address_line2 = address_line2;
                o.city = city;
                o.zip = zip;
                o.country_id = country_id;
                o.state_id = state_id;
                o.check_note = check_note;
            }
        }
    }
    Ok(out.filter(|_| errs.0.len() == start))
}

/// One parameter as read from the body.
struct ParamIn {
    name: String,
    values: Vec<ParamValue>,
}

/// Read `transaction_parameters`; `None` when it is absent or not an array.
fn parameters(
    errs: &mut Errors,
    o: &Obj,
    r: &Resolved,
    customers: &mut Customers,
) -> Result<Option<Vec<ParamIn>>> {
    let Some(arr) = o.array("transaction_parameters", errs) else {
        if !o.has("transaction_parameters") {
            errs.required("transaction_parameters");
        }
        return Ok(None);
    };
    if !rules::at_most(
        errs,
        "transaction_parameters",
        arr.len(),
        caps::PARAMETERS,
        "parameters",
    ) {
        return Ok(None);
    }
    let mapped: BTreeSet<&str> = r
        .template
        .map(|t| {
            t.steps
                .iter()
                .flat_map(|s| s.parameter_mapping.names())
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut first_at: HashMap<String, usize> = HashMap::new();
    for (i, pv) in arr.iter().enumerate() {
        let path = format!("transaction_parameters[{i}]");
        let Some(p) = as_object(pv, &path, errs) else {
            continue;
        };
        p.known(PARAMETER_FIELDS, errs);
        let name = p.string("transaction_parameter_name", errs);
        let name_path = p.at("transaction_parameter_name");
        match name {
            Some(n) => {
                if let Some(t) = r.template
                    && !mapped.contains(n)
                {
                    let names: Vec<&str> = mapped.iter().copied().collect();
                    errs.invalid(
                        &name_path,
                        format!(
                            "is not a parameter of the template {} (its parameters: {})",
                            t.transaction_template_name,
                            names.join(", ")
                        ),
                    );
                } else if r.template.is_none() && kind(n).is_none() {
                    errs.invalid(
                        &name_path,
                        format!(
                            "is not a parameter name ({})",
                            crate::catalog::PARAMETER_NAMES.join(", ")
                        ),
                    );
                }
                if let Some(first) = first_at.get(n) {
                    errs.invalid(
                        &name_path,
                        format!("is given twice (first in transaction_parameters[{first}]); put every value in one parameter"),
                    );
                } else {
                    first_at.insert(n.to_string(), i);
                }
            }
            None => {
                if !p.has("transaction_parameter_name") {
                    errs.required(&name_path);
                }
            }
        }
        let k = name.and_then(kind);
        let vals_path = p.at("transaction_parameter_values");
        let mut values = Vec::new();
        match p.array("transaction_parameter_values", errs) {
            Some(vals) if vals.is_empty() => {
                errs.push(code::REQUIRED, &vals_path, "must hold at least one value");
            }
            Some(vals) if vals.len() > caps::VALUES => {
                rules::at_most(errs, &vals_path, vals.len(), caps::VALUES, "values");
            }
            Some(vals) => {
                for (j, vv) in vals.iter().enumerate() {
                    let vpath = format!("{vals_path}[{j}]");
                    if let Some(v) = as_object(vv, &vpath, errs)
                        && let Some(pv) = value(
                            errs,
                            &v,
                            name.unwrap_or("this parameter's"),
                            k,
                            r.program,
                            customers,
                        )?
                    {
                        values.push(pv);
                    }
                }
            }
            None => {
                if !p.has("transaction_parameter_values") {
                    errs.required(&vals_path);
                }
            }
        }
        if let Some(n) = name {
            out.push(ParamIn {
                name: n.to_string(),
                values,
            });
        }
    }
    // Every step that is not optional needs its parameters.
    if let Some(t) = r.template {
        let given: BTreeSet<&str> = arr
            .iter()
            .filter_map(|p| p.get("transaction_parameter_name").and_then(Value::as_str))
            .collect();
        let mut reported = BTreeSet::new();
        for s in t.steps.iter().filter(|s| !s.is_optional) {
            for n in s.parameter_mapping.names() {
                if !given.contains(n) && reported.insert(n) {
                    errs.push(
                        code::REQUIRED,
                        "transaction_parameters",
                        format!(
                            "must include the parameter {n} (step {} of the template {} needs it)",
                            s.sequence, t.transaction_template_name
                        ),
                    );
                }
            }
        }
    }
    Ok(Some(out))
}

/// POST /transactions: the new `trn_` id. The transaction starts Created (10)
/// without steps and is queued for the worker.
pub fn create(store: &Store, ctx: &Ctx, body: &Value) -> Result<String> {
    let catalog = store.catalog()?;
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(Error::refused(errs.0));
    };
    o.known(FIELDS, &mut errs);
    let r = resolve(&mut errs, &o, &catalog);
    let reason = reason(&mut errs, &o);
    let tags = tags(&mut errs, &o);
    let mut customers = Customers {
        store,
        seen: HashMap::new(),
    };
    let params = parameters(&mut errs, &o, &r, &mut customers)?;
    errs.finish()?;
    let (Some(program), Some(application), Some(template), Some(params)) =
        (r.program, r.application, r.template, params)
    else {
        unreachable!("validation passed");
    };

    let transaction_id = id::new_id(id::TRANSACTION);
    let mut rng = rand::rng();
    let mut used = BTreeSet::new();
    let parameters = params
        .into_iter()
        .map(|p| {
            let mut pid = rng.random_range(1..MAX_PARAMETER_ID);
            while !used.insert(pid) {
                pid = rng.random_range(1..MAX_PARAMETER_ID);
            }
            Parameter {
                transaction_parameter_id: pid,
                transaction_parameter_name: p.name,
                transaction_parameter_values: p.values,
                created_by: ctx.actor.clone(),
                created_date_time: ctx.now.clone(),
                modified_by: ctx.actor.clone(),
                modified_date_time: ctx.now.clone(),
            }
        })
        .collect();
    let file = TxnFile {
        transaction: Transaction {
            transaction_id: transaction_id.clone(),
            program_id: program.program_id.clone(),
            application_id: application.application_id.clone(),
            transaction_template_id: template.transaction_template_id.clone(),
            transaction_status_id: status::txn::CREATED,
            transaction_status_reason: reason,
            transaction_tags: tags,
            audit: Audit::new(&ctx.actor, &ctx.now),
        },
        parameters,
        steps: Vec::new(),
    };
    let mut tx = store.begin();
    tx.append_txn(&TxnSummary::of(&file))?;
    tx.enqueue(&QueueItem::txn(&transaction_id));
    tx.put_txn(&file);
    tx.commit_created(&transaction_id)?;
    Ok(transaction_id)
}

// ---------------------------------------------------------------- reads

/// GET /transactions/{id}.
pub fn get(store: &Store, tid: &str) -> Result<Transaction> {
    Ok(load(store, tid)?.transaction)
}

/// GET /transactions/{id}/parameters: one record per parameter name.
pub fn parameters_of(store: &Store, tid: &str, req: &PageRequest) -> Result<Page<Parameter>> {
    let keyed: Vec<(String, Parameter)> = load(store, tid)?
        .parameters
        .into_iter()
        .map(|p| (p.transaction_parameter_id.to_string(), p))
        .collect();
    Ok(paginate(keyed, |(k, _)| k, req)?.map(|(_, p)| p))
}

/// GET /transactions/{id}/transaction-steps: in sequence order; empty until
/// the worker has generated them.
pub fn steps(store: &Store, tid: &str, req: &PageRequest) -> Result<Page<Step>> {
    let mut steps = load(store, tid)?.steps;
    steps.sort_by_key(|s| s.sequence);
    paginate(steps, |s| &s.transaction_step_id, req)
}

/// Filters of `txn list`; every given filter must match.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// A transaction status id (10, 20, 60, 70).
    pub status: Option<u32>,
    /// A template id or name (a name matches templates of that name in every application).
    pub template: Option<String>,
    /// A program id or name.
    pub program: Option<String>,
    /// A customer_profile_id named in the parameters.
    pub customer: Option<String>,
}

/// `txn list`: transactions in creation order, filtered on the summary log.
pub fn list(store: &Store, filter: &Filter, req: &PageRequest) -> Result<Page<Transaction>> {
    let catalog = store.catalog()?;
    let mut errs = Errors::new();
    if let Some(s) = filter.status
        && !dict::contains(dict::TRANSACTION_STATUSES, s)
    {
        errs.invalid(
            "status",
            "is not a transaction status (see `payctl dict list transaction-statuses`)",
        );
    }
    let templates: Option<BTreeSet<&str>> = filter.template.as_ref().map(|t| {
        catalog
            .programs
            .iter()
            .flat_map(|p| &p.applications)
            .flat_map(|a| &a.transaction_templates)
            .filter(|x| x.transaction_template_id == *t || x.transaction_template_name == *t)
            .map(|x| x.transaction_template_id.as_str())
            .collect()
    });
    if templates.as_ref().is_some_and(|t| t.is_empty()) {
        errs.invalid(
            "template",
            "is not the id or name of a transaction template",
        );
    }
    let programs: Option<BTreeSet<&str>> = filter.program.as_ref().map(|p| {
        catalog
            .programs
            .iter()
            .filter(|x| x.program_id == *p || x.program_name == *p)
            .map(|x| x.program_id.as_str())
            .collect()
    });
    if programs.as_ref().is_some_and(|p| p.is_empty()) {
        errs.invalid("program", "is not the id or name of a program");
    }
    errs.finish()?;
    let matching: Vec<TxnSummary> = store
        .txns()?
        .into_iter()
        .filter(|s| {
            filter.status.is_none_or(|x| s.status_id == x)
                && templates
                    .as_ref()
                    .is_none_or(|t| t.contains(s.template_id.as_str()))
                && programs
                    .as_ref()
                    .is_none_or(|p| p.contains(s.program_id.as_str()))
                && filter
                    .customer
                    .as_ref()
                    .is_none_or(|c| s.customers.contains(c))
        })
        .collect();
    paginate(matching, |s| &s.id, req)?.try_map(|s| get(store, &s.id))
}

// ---------------------------------------------------------------- worker

/// The worker's part (CLI.md "The worker"): a Created transaction gets one
/// step per template step, in sequence order (an optional step whose
/// parameters were not all given is left out) and becomes Processing; then
/// the steps run in sequence. A step fails when a customer lacks the Active
/// bank account it needs; later steps are then Cancelled and the transaction
/// Failed, else everything ends Completed.
///
/// Everything happens in `tx` (the worker's batch); a transaction that is not
/// Created or Processing, or that does not exist, is left alone, so an item is
/// never processed twice.
pub fn process(
    tx: &mut Tx,
    ctx: &Ctx,
    catalog: &Catalog,
    transaction_id: &str,
    summary: &mut Summary,
) -> Result<()> {
    let Some(mut file) = tx.txn(transaction_id)? else {
        return Ok(());
    };
    let st = file.transaction.transaction_status_id;
    if st != status::txn::CREATED && st != status::txn::PROCESSING {
        return Ok(());
    }
    let template = catalog
        .template(&file.transaction.transaction_template_id)
        .map(|(_, t)| t);
    let now = ctx.now.as_str();

    if file.steps.is_empty() {
        let Some(template) = template else {
            let reason = format!(
                "Failed: the template {} is not in the catalog.",
                file.transaction.transaction_template_id
            );
            finish(&mut file, status::txn::FAILED, reason, now);
            summary.transactions_processed += 1;
            tx.append_txn(&TxnSummary::of(&file))?;
            tx.put_txn(&file);
            return Ok(());
        };
        file.steps = generate(&file, template, now);
        summary.steps_created += file.steps.len() as u64;
        finish(
            &mut file,
            status::txn::PROCESSING,
            "Processing: steps created.".to_string(),
            now,
        );
    }

    run(tx, &mut file, template, now, summary)?;
    summary.transactions_processed += 1;
    tx.append_txn(&TxnSummary::of(&file))?;
    tx.put_txn(&file);
    Ok(())
}

fn finish(file: &mut TxnFile, status_id: u32, reason: String, now: &str) {
    let t = &mut file.transaction;
    t.transaction_status_id = status_id;
    t.transaction_status_reason = Some(reason);
    t.audit.touch(SYSTEM, now);
}

/// The steps of a new transaction, in sequence order.
fn generate(file: &TxnFile, template: &Template, now: &str) -> Vec<Step> {
    let given: BTreeSet<&str> = file
        .parameters
        .iter()
        .filter(|p| !p.transaction_parameter_values.is_empty())
        .map(|p| p.transaction_parameter_name.as_str())
        .collect();
    let mut tsteps: Vec<&TemplateStep> = template.steps.iter().collect();
    tsteps.sort_by_key(|s| s.sequence);
    tsteps
        .into_iter()
        .filter(|s| !s.is_optional || s.parameter_mapping.names().all(|n| given.contains(n)))
        .map(|s| Step {
            transaction_step_id: id::new_id(id::STEP),
            transaction_id: file.transaction.transaction_id.clone(),
            transaction_template_step_id: s.transaction_template_step_id.clone(),
            transaction_step_status_id: status::step::PENDING,
            transaction_step_status_reason: String::new(),
            transfer_type_id: s.transfer_type_id,
            sequence: s.sequence,
            wait_to_complete: s.wait_to_complete,
            audit: Audit::new(SYSTEM, now),
        })
        .collect()
}

/// The customer ids of parameter `name`.
fn customers_of<'f>(file: &'f TxnFile, name: Option<&str>) -> Vec<&'f str> {
    file.parameters
        .iter()
        .filter(|p| Some(p.transaction_parameter_name.as_str()) == name)
        .flat_map(|p| &p.transaction_parameter_values)
        .filter_map(|v| v.customer_profile_id.as_deref())
        .collect()
}

/// Why the step cannot run, or `None` when it can.
fn blocker(
    tx: &Tx,
    file: &TxnFile,
    step: &Step,
    template: Option<&Template>,
) -> Result<Option<String>> {
    let mapping = template
        .and_then(|t| {
            t.steps
                .iter()
                .find(|s| s.transaction_template_step_id == step.transaction_template_step_id)
        })
        .map(|s| &s.parameter_mapping);
    let (param, itype, label) = match step.transfer_type_id {
        ACH_FUNDING => (
            mapping.map_or(Some(SOURCE_CUSTOMERS), |m| m.source.as_deref()),
            FUNDING,
            "Funding",
        ),
        ACH_WITHDRAWAL => (
            mapping.map_or(Some(TARGETS), |m| m.target.as_deref()),
            WITHDRAWAL,
            "Withdrawal",
        ),
        _ => return Ok(None),
    };
    let mut missing: Vec<&str> = Vec::new();
    for cid in customers_of(file, param) {
        if missing.contains(&cid) {
            continue;
        }
        let has = tx.customer(cid)?.is_some_and(|c| {
            c.instruments.iter().any(|i| {
                i.payment_instrument_type_id == itype
                    && i.payment_instrument_status_id == status::instrument::ACTIVE
            })
        });
        if !has {
            missing.push(cid);
        }
    }
    Ok(match missing.as_slice() {
        [] => None,
        [one] => Some(format!(
            "Customer Profile {one} has no Active {label} payment instrument."
        )),
        many => Some(format!(
            "Customer Profiles {} have no Active {label} payment instrument.",
            many.join(", ")
        )),
    })
}

/// Run the Pending steps in sequence and settle the transaction.
fn run(
    tx: &Tx,
    file: &mut TxnFile,
    template: Option<&Template>,
    now: &str,
    summary: &mut Summary,
) -> Result<()> {
    file.steps.sort_by_key(|s| s.sequence);
    let mut failed: Option<(u32, String)> = file
        .steps
        .iter()
        .find(|s| s.transaction_step_status_id == status::step::FAILED)
        .map(|s| (s.sequence, s.transaction_step_status_reason.clone()));
    for i in 0..file.steps.len() {
        if file.steps[i].transaction_step_status_id != status::step::PENDING {
            continue;
        }
        let (st, reason) = match &failed {
            Some((seq, _)) => (
                status::step::CANCELLED,
                format!("Cancelled: step {seq} failed."),
            ),
            None => match blocker(tx, file, &file.steps[i], template)? {
                Some(why) => {
                    summary.steps_failed += 1;
                    failed = Some((file.steps[i].sequence, why.clone()));
                    (status::step::FAILED, why)
                }
                None => {
                    summary.steps_completed += 1;
                    (
                        status::step::COMPLETED,
                        status::step::COMPLETED_REASON.to_string(),
                    )
                }
            },
        };
        let s = &mut file.steps[i];
        s.transaction_step_status_id = st;
        s.transaction_step_status_reason = reason;
        s.audit.touch(SYSTEM, now);
    }
    match failed {
        Some((seq, why)) => finish(
            file,
            status::txn::FAILED,
            format!("Failed: step {seq} failed: {why}"),
            now,
        ),
        None => finish(
            file,
            status::txn::COMPLETED,
            status::step::COMPLETED_REASON.to_string(),
            now,
        ),
    }
    Ok(())
}
