//! Programs, Applications and Transaction Templates (spec 2.4, 2.6, 4.4, 4.5):
//! read-only views of the store's catalog; and attaching customer profiles to
//! a Program (spec 2.5, 4.4), which the worker finishes in the background.
//!
//! Catalog records are shown without their nested children: a program has no
//! `applications` member, an application no `transaction_templates`, a
//! template no `steps` (each has its own command).

use serde::Serialize;
use serde_json::Value;

use super::Ctx;
use super::body::as_object;
use super::paging::{Page, PageRequest, paginate};
use super::rules;
use super::sim::Decision;
use super::summary::Summary;
use crate::error::{ApiError, Error, Errors, Result, code};
use crate::model::catalog::{Catalog, TemplateStep};
use crate::model::status::attachment::{ATTACHED, PENDING, REJECTED};
use crate::model::{Attachment, Audit, Customer};
use crate::store::{QueueItem, Store, Tx};

/// Fields of the attach request body (spec 4.4).
pub const ATTACH_FIELDS: &[&str] = &[
    "customer_profile_id",
    "customer_profile_program_status_reason",
];
/// Longest `customer_profile_program_status_reason` accepted (the spec gives
/// no limit; 256 like the other free-text reasons).
pub const MAX_REASON: usize = rules::TEXT_MAX;
/// The reason the worker writes when it refuses an attachment.
pub const REJECTED_NO_PROGRAM: &str = "The Program no longer exists in the catalog.";

/// `v` as a JSON object without its member `child`.
fn without<T: Serialize>(v: &T, child: &str) -> Value {
    let mut v = serde_json::to_value(v).expect("records serialize");
    if let Value::Object(m) = &mut v {
        m.shift_remove(child);
    }
    v
}

fn record_key(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_default().to_string()
}

fn page_of(records: Vec<Value>, key: &str, req: &PageRequest) -> Result<Page<Value>> {
    let keyed: Vec<(String, Value)> = records
        .into_iter()
        .map(|v| (record_key(&v, key), v))
        .collect();
    Ok(paginate(keyed, |(k, _)| k, req)?.map(|(_, v)| v))
}

fn program_of<'c>(catalog: &'c Catalog, prm: &str) -> Result<&'c crate::model::catalog::Program> {
    catalog
        .program(prm)
        .ok_or_else(|| Error::not_found("program", prm))
}

/// GET /programs: the Facilitator's Programs in catalog order.
pub fn list_programs(store: &Store, req: &PageRequest) -> Result<Page<Value>> {
    let catalog = store.catalog()?;
    let records = catalog
        .programs
        .iter()
        .map(|p| without(p, "applications"))
        .collect();
    page_of(records, "program_id", req)
}

/// GET /programs/{id}/applications; 20001 for an unknown program.
pub fn list_applications(store: &Store, prm: &str, req: &PageRequest) -> Result<Page<Value>> {
    let catalog = store.catalog()?;
    let program = program_of(&catalog, prm)?;
    let records = program
        .applications
        .iter()
        .map(|a| without(a, "transaction_templates"))
        .collect();
    page_of(records, "application_id", req)
}

/// GET /applications/{id}/transaction-templates; 20001 for an unknown application.
pub fn list_templates(store: &Store, app: &str, req: &PageRequest) -> Result<Page<Value>> {
    let catalog = store.catalog()?;
    let (_, application) = catalog
        .application(app)
        .ok_or_else(|| Error::not_found("application", app))?;
    let records = application
        .transaction_templates
        .iter()
        .map(|t| without(t, "steps"))
        .collect();
    page_of(records, "transaction_template_id", req)
}

/// GET /transaction-templates/{id}/transaction-template-steps, in sequence
/// order; 20001 for an unknown template.
pub fn list_template_steps(
    store: &Store,
    trt: &str,
    req: &PageRequest,
) -> Result<Page<TemplateStep>> {
    let catalog = store.catalog()?;
    let (_, template) = catalog
        .template(trt)
        .ok_or_else(|| Error::not_found("transaction template", trt))?;
    let mut steps = template.steps.clone();
    steps.sort_by_key(|s| s.sequence);
    paginate(steps, |s| &s.transaction_template_step_id, req)
}

/// POST /programs/{id}/customer-profiles: request that the profile be attached
/// to the program. The record starts Pending (1) and the worker makes it
/// Attached (10); the answer is the customer_profile_id.
///
/// `csp` is the CSP argument; the body (spec 4.4) may carry
/// `customer_profile_id` too, which must then be the same. Attaching a profile
/// that is Pending or Attached is refused with 21001; a Rejected one may be
/// attached again (it returns to Pending, keeping its creation audit).
pub fn attach(
    store: &Store,
    ctx: &Ctx,
    prm: &str,
    csp: Option<&str>,
    body: &Value,
) -> Result<String> {
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(ATTACH_FIELDS, &mut errs);
    let sent = o.string("customer_profile_id", &mut errs);
    let csp = match (csp, sent) {
        (Some(arg), Some(sent)) if arg != sent => {
            errs.invalid(
                "customer_profile_id",
                "differs from the CSP argument; give it once, or the same in both",
            );
            None
        }
        (Some(arg), _) => Some(arg),
        (None, Some(sent)) => Some(sent),
        (None, None) => {
            if !o.has("customer_profile_id") {
                errs.required("customer_profile_id");
            }
            None
        }
    };
    const REASON: &str = "customer_profile_program_status_reason";
    let reason = match o.string(REASON, &mut errs) {
        Some(r) => rules::length(&mut errs, REASON, r, 0, MAX_REASON).then(|| r.to_string()),
        None => Some(String::new()),
    };
    let (csp, reason) = errs.into_result(|| Some((csp?, reason?)))?;
    let catalog = store.catalog()?;
    program_of(&catalog, prm)?;
    let mut customer = super::profile::load(store, csp)?;
    match customer
        .attachments
        .iter_mut()
        .find(|a| a.program_id == prm)
    {
        Some(a) if a.customer_profile_program_status_id == REJECTED => {
            a.customer_profile_program_status_id = PENDING;
            a.customer_profile_program_status_reason = reason;
            a.is_locked = false;
            a.audit.touch(&ctx.actor, &ctx.now);
        }
        Some(_) => return Err(Error::refused(vec![ApiError::bare(code::ALREADY_ATTACHED)])),
        None => {
            customer.attachments.push(Attachment {
                customer_profile_id: csp.to_string(),
                program_id: prm.to_string(),
                customer_profile_program_status_id: PENDING,
                customer_profile_program_status_reason: reason,
                is_locked: false,
                audit: Audit::new(&ctx.actor, &ctx.now),
            });
        }
    }
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_customer(&customer);
    tx.enqueue(&QueueItem::attach(csp, prm));
    tx.commit_created(csp)?;
    Ok(csp.to_string())
}

/// GET /programs/{id}/customer-profiles: every profile-program record of the
/// program (Pending, Attached and Rejected), oldest attach request first.
pub fn list_profiles(store: &Store, prm: &str, req: &PageRequest) -> Result<Page<Attachment>> {
    let catalog = store.catalog()?;
    program_of(&catalog, prm)?;
    // The attachment index lists the program's customers in the order their
    // records were created; only the customers of the page are read.
    let ids = store.program_customers(prm)?;
    paginate(ids, |id| id, req)?.try_map(|csp| {
        store
            .customer(&csp)?
            .and_then(|c| c.attachment(prm).cloned())
            .ok_or_else(|| {
                Error::store(
                    code::STORE_UNREADABLE,
                    format!(
                        "index/attachments.log lists {csp} in {prm}, which has no such record: \
                         run `payctl store check --repair`"
                    ),
                )
            })
    })
}

/// GET /programs/{id}/customer-profiles/{csp}: the profile-program record in
/// any status (a Pending one too, so that scripts can poll it). A profile
/// with no record for the program, or no such profile, is refused with 10001
/// as the spec says; an unknown program with 20001.
pub fn get_profile(store: &Store, prm: &str, csp: &str) -> Result<Attachment> {
    let catalog = store.catalog()?;
    program_of(&catalog, prm)?;
    let record = store
        .customer(csp)?
        .and_then(|c: Customer| c.attachment(prm).cloned());
    // The spec's message, exactly (clients match it): `Invalid Value`.
    record.ok_or_else(|| Error::refused(vec![ApiError::bare(code::INVALID_VALUE)]))
}

/// The worker's step for one queued attach: a Pending record becomes Attached
/// (10), written by `ctx.actor` (SYSTEM). A record that is no longer Pending,
/// or a customer that is gone, is left as it is (an item is never processed
/// twice). A program missing from the catalog makes the record Rejected (20)
/// with a reason; so does a rule with that outcome ([`super::sim`]), and a
/// rule that makes it wait leaves it Pending: `false` (not done).
pub fn process_attachment(
    tx: &mut Tx,
    ctx: &Ctx,
    catalog: &Catalog,
    sim: &super::sim::Sim,
    (csp, prm): (&str, &str),
    summary: &mut Summary,
) -> Result<bool> {
    let Some(mut customer) = tx.customer(csp)? else {
        return Ok(true);
    };
    let Some(i) = customer
        .attachments
        .iter()
        .position(|a| a.program_id == prm && a.customer_profile_program_status_id == PENDING)
    else {
        return Ok(true);
    };
    let decision = if catalog.program(prm).is_some() {
        sim.attach(&customer, &customer.attachments[i])?
    } else {
        Decision::Outcome(REJECTED_NO_PROGRAM.to_string())
    };
    let a = &mut customer.attachments[i];
    match decision {
        Decision::Wait => return Ok(false),
        Decision::Proceed => a.customer_profile_program_status_id = ATTACHED,
        Decision::Outcome(reason) => {
            a.customer_profile_program_status_id = REJECTED;
            a.customer_profile_program_status_reason = reason;
        }
    }
    a.audit.touch(&ctx.actor, &ctx.now);
    tx.put_customer(&customer);
    summary.attachments_processed += 1;
    Ok(true)
}
