//! Payment instruments (spec 2.3, 4.3): bank accounts used through ACH.
//!
//! Account and routing numbers are stored whole (the worker needs them) and
//! shown only as their last 4 digits (output/mask.rs). One default per profile
//! and instrument type: a new default demotes the previous one in the same write.

use serde_json::Value;

use super::Ctx;
use super::body::{Obj, as_object};
use super::paging::{Page, PageRequest, paginate};
use super::profile::load;
use super::rules;
use crate::catalog::dictionaries as dict;
use crate::error::{Error, Errors, Result, code};
use crate::model::catalog::Catalog;
use crate::model::status::instrument::ACTIVE;
use crate::model::{Ach, Audit, Customer, Instrument, id};
use crate::store::Store;

pub const FIELDS: &[&str] = &[
    "payment_instrument_tags",
    "payment_instrument_type_id",
    "payment_method_id",
    "is_default",
    "payment_instrument_label",
    "payment_instrument_change_reason",
    "program_id",
    "payment_instrument_ach",
];
pub const ACH_FIELDS: &[&str] = &[
    "account_number",
    "routing_number",
    "payment_instrument_ach_type_id",
];
const ACH: &str = "payment_instrument_ach";
/// The only payment method instruments support (spec 8).
pub const ACH_METHOD: u32 = 1;

/// The fields a create needs (spec 2.3), by JSON path; the prompts ask for them.
pub(crate) const REQUIRED: &[&str] = &[
    "program_id",
    "payment_instrument_type_id",
    "payment_method_id",
    "payment_instrument_ach.payment_instrument_ach_type_id",
    "payment_instrument_ach.account_number",
    "payment_instrument_ach.routing_number",
    "is_default",
    "payment_instrument_label",
    "payment_instrument_change_reason",
    "payment_instrument_tags",
];
/// The rules of the bank account numbers: how many digits, and as prompts
/// and messages say it.
pub(crate) const ACCOUNT_DIGITS: (usize, usize) = (4, 17);
pub(crate) const ACCOUNT_RULE: &str = "4-17 digits";
pub(crate) const ROUTING_DIGITS: usize = 9;
pub(crate) const ROUTING_RULE: &str = "exactly 9 digits";

fn from_dict(
    errs: &mut Errors,
    o: &Obj,
    name: &str,
    entries: &[dict::Entry],
    dict_name: &str,
) -> Option<u32> {
    let v = o.uint(name, errs)?;
    if !dict::contains(entries, v) {
        errs.invalid(
            &o.at(name),
            format!("must be a value of `payctl dict list {dict_name}`"),
        );
        return None;
    }
    Some(v)
}

fn required<T>(errs: &mut Errors, o: &Obj, name: &str, v: Option<T>) -> Option<T> {
    if v.is_none() && !o.has(name) {
        errs.required(&o.at(name));
    }
    v
}

fn text(errs: &mut Errors, o: &Obj, name: &str) -> Option<String> {
    let s = o.string(name, errs)?;
    rules::length(errs, &o.at(name), s, 1, rules::TEXT_MAX).then(|| s.to_string())
}

fn ach(errs: &mut Errors, o: &Obj) -> Option<Ach> {
    o.known(ACH_FIELDS, errs);
    let account = o.string("account_number", errs);
    if let Some(a) = account {
        rules::digits(
            errs,
            &o.at("account_number"),
            a,
            &(ACCOUNT_DIGITS.0..=ACCOUNT_DIGITS.1).collect::<Vec<_>>(),
            ACCOUNT_RULE,
        );
    }
    let routing = o.string("routing_number", errs);
    if let Some(r) = routing {
        rules::digits(
            errs,
            &o.at("routing_number"),
            r,
            &[ROUTING_DIGITS],
            ROUTING_RULE,
        );
    }
    let ach_type = from_dict(
        errs,
        o,
        "payment_instrument_ach_type_id",
        dict::ACH_TYPES,
        "payment-instrument-ach-types",
    );
    let account = required(errs, o, "account_number", account);
    let routing = required(errs, o, "routing_number", routing);
    let ach_type = required(errs, o, "payment_instrument_ach_type_id", ach_type);
    Some(Ach {
        account_number: account?.to_string(),
        routing_number: routing?.to_string(),
        payment_instrument_ach_type_id: ach_type?,
    })
}

/// A create body that passed every rule.
pub struct NewInstrument {
    tags: Vec<crate::model::Tag>,
    type_id: u32,
    method: u32,
    is_default: bool,
    label: String,
    reason: String,
    program: String,
    ach: Ach,
}

/// Check a create body against every rule of spec 2.3, all errors at once.
/// `attached(program_id)` tells whether the customer is Attached to it (21004
/// otherwise); the prompts, which ask before any customer is known, pass `|_| true`.
pub fn validate_create(
    body: &Value,
    catalog: &Catalog,
    cid: &str,
    attached: impl Fn(&str) -> bool,
) -> Result<NewInstrument> {
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let tags = rules::tags(&mut errs, &o, "payment_instrument_tags", true);
    if tags.as_ref().is_some_and(|t| t.is_empty()) {
        errs.push(
            code::REQUIRED,
            "payment_instrument_tags",
            "at least one tag is required",
        );
    }
    let tags = required(&mut errs, &o, "payment_instrument_tags", tags);
    let type_id = from_dict(
        &mut errs,
        &o,
        "payment_instrument_type_id",
        dict::PAYMENT_INSTRUMENT_TYPES,
        "payment-instrument-types",
    );
    let type_id = required(&mut errs, &o, "payment_instrument_type_id", type_id);
    let method = o.uint("payment_method_id", &mut errs);
    if method.is_some_and(|m| m != ACH_METHOD) {
        errs.invalid(
            "payment_method_id",
            "only ACH (1) is supported for payment instruments",
        );
    }
    let method = required(&mut errs, &o, "payment_method_id", method);
    let is_default = o.boolean("is_default", &mut errs);
    let is_default = required(&mut errs, &o, "is_default", is_default);
    let label = text(&mut errs, &o, "payment_instrument_label");
    let label = required(&mut errs, &o, "payment_instrument_label", label);
    let reason = text(&mut errs, &o, "payment_instrument_change_reason");
    let reason = required(&mut errs, &o, "payment_instrument_change_reason", reason);
    let program = o.string("program_id", &mut errs);
    let program = required(&mut errs, &o, "program_id", program);
    let mut not_attached = false;
    if let Some(p) = program {
        if catalog.program(p).is_none() {
            errs.invalid_hinted(
                "program_id",
                "is not a program of this Facilitator",
                "see `payctl program list`",
            );
        } else if !attached(p) {
            not_attached = true;
        }
    }
    let ach = match o.object(ACH, ACH, &mut errs) {
        Some(a) => ach(&mut errs, &a),
        None => {
            if !o.has(ACH) {
                errs.required(ACH);
            }
            None
        }
    };
    if not_attached {
        errs.add(
            crate::error::ApiError::new(
                code::NOT_ATTACHED,
                format!("program_id: customer profile {cid} is not Attached to this program (attach it and run the worker first)"),
            )
            .with_path("program_id")
            .hinted("attach it and run the worker first"),
        );
    }
    let (tags, type_id, method, is_default, label, reason, program, ach) =
        errs.into_result(|| {
            Some((
                tags?,
                type_id?,
                method?,
                is_default?,
                label?,
                reason?,
                program?,
                ach?,
            ))
        })?;
    Ok(NewInstrument {
        tags,
        type_id,
        method,
        is_default,
        label,
        reason,
        program: program.to_string(),
        ach,
    })
}

/// POST …/payment_instruments: the new `pin_` id.
pub fn create(store: &Store, ctx: &Ctx, cid: &str, body: &Value) -> Result<String> {
    let mut customer = load(store, cid)?;
    let catalog = store.catalog()?;
    let n = validate_create(body, &catalog, cid, |p| customer.is_attached(p))?;
    if customer.instruments.len() >= rules::caps::INSTRUMENTS {
        return Err(Error::at(
            code::INVALID_VALUE,
            "customer_profile_id",
            format!(
                "already has {} payment instruments, the most a customer profile may have",
                rules::caps::INSTRUMENTS
            ),
        ));
    }
    let instrument = Instrument {
        payment_instrument_id: id::new_id_in(id::INSTRUMENT, cid, |id| {
            customer
                .instruments
                .iter()
                .any(|i| i.payment_instrument_id == id)
        }),
        customer_profile_id: cid.to_string(),
        program_id: n.program,
        payment_instrument_tags: n.tags,
        payment_instrument_status_id: ACTIVE,
        payment_instrument_type_id: n.type_id,
        payment_method_id: n.method,
        is_default: n.is_default,
        is_locked: false,
        payment_instrument_label: n.label,
        payment_instrument_change_reason: n.reason,
        payment_instrument_ach: n.ach,
        audit: Audit::new(&ctx.actor, &ctx.now),
    };
    if n.is_default {
        demote(&mut customer, n.type_id, ctx);
    }
    let new_id = instrument.payment_instrument_id.clone();
    customer.instruments.push(instrument);
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_customer(&customer);
    tx.commit_created(&new_id)?;
    Ok(new_id)
}

/// Make every default instrument of `type_id` non-default.
fn demote(c: &mut Customer, type_id: u32, ctx: &Ctx) {
    for i in &mut c.instruments {
        if i.is_default && i.payment_instrument_type_id == type_id {
            i.is_default = false;
            i.audit.touch(&ctx.actor, &ctx.now);
        }
    }
}

fn find<'c>(c: &'c Customer, pid: &str) -> Result<&'c Instrument> {
    c.instruments
        .iter()
        .find(|i| i.payment_instrument_id == pid)
        .ok_or_else(|| Error::not_found("payment instrument", pid))
}

pub fn get(store: &Store, cid: &str, pid: &str) -> Result<Instrument> {
    let c = load(store, cid)?;
    find(&c, pid).cloned()
}

pub fn list(store: &Store, cid: &str, req: &PageRequest) -> Result<Page<Instrument>> {
    let c = load(store, cid)?;
    paginate(c.instruments, |i| &i.payment_instrument_id, req)
}

/// The answer to an account or routing number in an update, the same
/// whatever the value sent.
pub const SECRET_NOT_UPDATABLE: &str = "cannot be updated; leave it out of an update (any value \
     is refused, the stored one too, so that an update never tells whether a guess is right)";

/// Whether the body's `name` is absent or equal to `current`.
fn unchanged_u32(errs: &mut Errors, o: &Obj, name: &str, current: u32) {
    if let Some(v) = o.map.get(name)
        && v.as_u64() != Some(u64::from(current))
    {
        errs.push(
            code::NOT_UPDATABLE,
            &o.at(name),
            "cannot be updated (only the label, the change reason and is_default can)",
        );
    }
}

fn unchanged_str(errs: &mut Errors, o: &Obj, name: &str, current: &str) {
    if o.map.contains_key(name) && !rules::is_str(o.map.get(name), current) {
        errs.push(
            code::NOT_UPDATABLE,
            &o.at(name),
            "cannot be updated (only the label, the change reason and is_default can)",
        );
    }
}

/// PUT …/payment-instruments/{id}: only the label, the change reason and
/// `is_default` change; any other field sent must equal its current value (10003).
pub fn update(store: &Store, ctx: &Ctx, cid: &str, pid: &str, body: &Value) -> Result<String> {
    let mut customer = load(store, cid)?;
    let cur = find(&customer, pid)?.clone();
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let label = text(&mut errs, &o, "payment_instrument_label");
    let reason = text(&mut errs, &o, "payment_instrument_change_reason");
    let is_default = o.boolean("is_default", &mut errs);
    unchanged_u32(
        &mut errs,
        &o,
        "payment_instrument_type_id",
        cur.payment_instrument_type_id,
    );
    unchanged_u32(&mut errs, &o, "payment_method_id", cur.payment_method_id);
    unchanged_str(&mut errs, &o, "program_id", &cur.program_id);
    if let Some(v) = o.map.get("payment_instrument_tags") {
        let mut scratch = Errors::new();
        let sent = if v.is_null() {
            None
        } else {
            rules::tags(&mut scratch, &o, "payment_instrument_tags", true)
        };
        if sent.is_none_or(|t| !rules::same_tags(&t, &cur.payment_instrument_tags)) {
            errs.push(
                code::NOT_UPDATABLE,
                "payment_instrument_tags",
                "cannot be updated (only the label, the change reason and is_default can)",
            );
        }
    }
    if let Some(v) = o.map.get(ACH) {
        match v {
            Value::Object(map) => {
                let a = Obj { path: ACH, map };
                a.known(ACH_FIELDS, &mut errs);
                let cur_ach = &cur.payment_instrument_ach;
                // Refused whatever their value, even the stored one: an
                // answer that depended on it would confirm a guess.
                for name in ["account_number", "routing_number"] {
                    if a.has(name) {
                        errs.push(code::NOT_UPDATABLE, &a.at(name), SECRET_NOT_UPDATABLE);
                    }
                }
                unchanged_u32(
                    &mut errs,
                    &a,
                    "payment_instrument_ach_type_id",
                    cur_ach.payment_instrument_ach_type_id,
                );
            }
            _ => errs.push(
                code::NOT_UPDATABLE,
                ACH,
                "cannot be updated (only the label, the change reason and is_default can)",
            ),
        }
    }
    errs.finish()?;
    let mut next = cur.clone();
    if let Some(l) = label {
        next.payment_instrument_label = l;
    }
    if let Some(r) = reason {
        next.payment_instrument_change_reason = r;
    }
    if let Some(d) = is_default {
        next.is_default = d;
    }
    if next != cur {
        if next.is_default && !cur.is_default {
            demote(&mut customer, cur.payment_instrument_type_id, ctx);
        }
        next.audit.touch(&ctx.actor, &ctx.now);
        let slot = customer
            .instruments
            .iter_mut()
            .find(|i| i.payment_instrument_id == pid)
            .expect("found above");
        *slot = next;
        let mut tx = store.begin_by(&ctx.actor, &ctx.now);
        tx.put_customer(&customer);
        tx.commit()?;
    }
    Ok(pid.to_string())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The prompts ask for [`REQUIRED`]: it must be what validation requires.
    #[test]
    fn required_is_what_validation_requires() {
        let catalog = crate::catalog::builtin("t", "2026-01-01T00:00:00");
        let body = serde_json::json!({ "payment_instrument_ach": {} });
        let Err(e) = validate_create(&body, &catalog, "", |_| true) else {
            panic!("an empty body was accepted");
        };
        let required: BTreeSet<&str> = e
            .errors
            .iter()
            .filter(|e| e.code == code::REQUIRED)
            .filter_map(|e| e.path.as_deref())
            .collect();
        assert_eq!(required, REQUIRED.iter().copied().collect());
    }
}
