//! One value object of a transaction parameter: its amount, and what its
//! kind of parameter needs (an attached customer, or a payee and a US address
//! for a check). The largest single rule of a create, so it has a file.

use std::collections::HashMap;

use rust_decimal::Decimal;

use super::{Kind, VALUE_FIELDS};
use crate::catalog::dictionaries as dict;
use crate::core::body::Obj;
use crate::core::rules;
use crate::error::{Errors, Result, code};
use crate::model::Customer;
use crate::model::catalog::Program;
use crate::model::status;
use crate::model::txn::ParamValue;
use crate::store::Store;

/// The fields only a check value carries.
const CHECK_ONLY: &[&str] = VALUE_FIELDS.split_at(3).1;
use crate::core::address::US;

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

/// `account_id` of a customer value: null, or the id of one of that
/// customer's payment instruments (the worker then checks that very
/// instrument, see [`super::process`]).
fn account_of(errs: &mut Errors, v: &Obj, c: &Customer) -> Option<String> {
    let id = v.string("account_id", errs)?;
    if c.instruments.iter().any(|i| i.payment_instrument_id == id) {
        Some(id.to_string())
    } else {
        errs.invalid_hinted(
            &v.at("account_id"),
            format!(
                "is not a payment instrument of customer profile {}: it must be null or the id of one of its payment instruments",
                c.id()
            ),
            &format!("see `payctl instrument list {}`", c.id()),
        );
        None
    }
}

/// Looks up customers once each while a body is validated.
pub(super) struct Customers<'s> {
    pub(super) store: &'s Store,
    pub(super) seen: HashMap<String, Option<Customer>>,
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
pub(super) fn value(
    errs: &mut Errors,
    v: &Obj,
    name: &str,
    kind: Option<Kind>,
    program: Option<&Program>,
    customers: &mut Customers,
) -> Result<Option<ParamValue>> {
    let start = errs.mark();
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
    let mut out = amount.map(empty_value);
    match kind {
        None => {}
        Some(Kind::Amount) => {
            let why = format!("is not used by {name} values: they carry an amount only");
            forbid(errs, v, &["customer_profile_id", "account_id"], &why);
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
                    None => errs.invalid_hinted(
                        &path,
                        "is not a customer profile",
                        "see `payctl profile list`",
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
                        let account = account_of(errs, v, c);
                        if let Some(o) = out.as_mut() {
                            o.customer_profile_id = Some(cid.to_string());
                            o.account_id = account;
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
            forbid(errs, v, &["customer_profile_id", "account_id"], &why);
            let first_name = opt_text(errs, v, "first_name", 1, rules::NAME_MAX);
            let last_name = opt_text(errs, v, "last_name", 1, rules::NAME_MAX);
            let organization_name = opt_text(errs, v, "organization_name", 1, rules::NAME_MAX);
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
            let address_line1 = req_text(errs, v, "address_line1", 1, rules::TEXT_MAX);
            let address_line2 = opt_text(errs, v, "address_line2", 0, rules::TEXT_MAX);
            let city = req_text(errs, v, "city", 1, rules::NAME_MAX);
            let zip = match v.string("zip", errs) {
                Some(z) => errs
                    .check(|e| rules::zip(e, &v.at("zip"), z))
                    .then(|| z.to_string()),
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
                errs.invalid_hinted(
                    &v.at("state_id"),
                    "is not a state of country 1",
                    "see `payctl dict list states --country 1`",
                );
            }
            let check_note = opt_text(errs, v, "check_note", 0, rules::TEXT_MAX);
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
    Ok(out.filter(|_| errs.clean_since(start)))
}
