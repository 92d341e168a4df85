//! Addresses of a customer profile (spec 2.2, 4.2): create, list, read,
//! partial update, delete.
//!
//! Addresses live inside the customer aggregate, so every change (including
//! the demotion of the previous default) is one atomic write of that file: a
//! profile never has two default addresses, not even after a crash.
//!
//! Decisions where the spec is silent:
//! - A first address may be created with `is_default` false: a profile may
//!   have no default address.
//! - `is_default` false on the current default address is refused (10001):
//!   the default is replaced only by making another address the default,
//!   which demotes it in the same write.
//! - `address_line2` keeps what was sent: `""` is stored as `""`, `null`
//!   (on an update) clears it.
//! - An update that changes nothing writes nothing and keeps the audit fields.
//! - Changing or deleting an address does not touch the profile's own audit
//!   fields; a demoted default gets its `modified_*` fields set.

use serde_json::Value;

use super::Ctx;
use super::body::{Obj, as_object};
use super::paging::{Page, PageRequest, paginate};
use super::profile::load;
use super::rules;
use crate::catalog::dictionaries as dict;
use crate::error::{ApiError, Error, Errors, Result, code};
use crate::model::{Address, Audit, Customer, id};
use crate::store::Store;

/// The fields of a create or update body.
pub const FIELDS: &[&str] = &[
    "address_type_id",
    "is_default",
    "country_id",
    "state_id",
    "first_name",
    "last_name",
    "address_line1",
    "address_line2",
    "city",
    "zip",
];

/// The fields a create body must hold, in the order they are asked for.
pub const REQUIRED: &[&str] = &[
    "address_type_id",
    "is_default",
    "country_id",
    "state_id",
    "first_name",
    "last_name",
    "address_line1",
    "city",
    "zip",
];

/// `country_id` of the United States, the only supported country (spec 2.2).
pub(crate) const US: u32 = 1;

/// The fields read from a body: `None` when absent, null or invalid (the
/// error is then collected).
#[derive(Debug, Default)]
struct Fields {
    address_type_id: Option<u32>,
    is_default: Option<bool>,
    country_id: Option<u32>,
    state_id: Option<u32>,
    first_name: Option<String>,
    last_name: Option<String>,
    address_line1: Option<String>,
    /// `Some(None)`: sent as null (cleared on an update).
    address_line2: Option<Option<String>>,
    city: Option<String>,
    zip: Option<String>,
}

/// A text field of 1-`max` characters.
fn text(errs: &mut Errors, o: &Obj, name: &str, max: usize) -> Option<String> {
    let s = o.string(name, errs)?;
    rules::length(errs, &o.at(name), s, 1, max).then(|| s.to_string())
}

/// Read every field of `o`, checking each one that is present. `country` is
/// the country the address will have when the body does not name a valid one
/// (the current one on an update).
fn read(errs: &mut Errors, o: &Obj, country: Option<u32>) -> Fields {
    o.known(FIELDS, errs);
    let address_type_id = o.uint("address_type_id", errs).filter(|t| {
        let ok = dict::contains(dict::ADDRESS_TYPES, *t);
        if !ok {
            errs.invalid(
                "address_type_id",
                "must be an address type from `payctl dict list address-types` (1 Mailing, 2 Street, 3 Billing)",
            );
        }
        ok
    });
    let is_default = o.boolean("is_default", errs);
    let country_id = o.uint("country_id", errs).filter(|c| {
        let ok = *c == US;
        if !ok {
            errs.invalid("country_id", "only the United States (1) is supported");
        }
        ok
    });
    let country = country_id.or(country);
    let state_id = o.uint("state_id", errs).filter(|s| {
        let found = dict::state(*s);
        let ok = match (found, country) {
            (Some(st), Some(c)) => st.country_id == c,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !ok {
            let of = country.map_or(String::new(), |c| format!(" of country {c}"));
            errs.invalid(
                "state_id",
                format!(
                    "must be a state{of} from `payctl dict list states --country {}`",
                    country.unwrap_or(US)
                ),
            );
        }
        ok
    });
    let first_name = text(errs, o, "first_name", rules::NAME_MAX);
    let last_name = text(errs, o, "last_name", rules::NAME_MAX);
    let address_line1 = text(errs, o, "address_line1", rules::TEXT_MAX);
    let address_line2 = match o.map.get("address_line2") {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) if s.is_empty() => Some(Some(String::new())),
        Some(_) => text(errs, o, "address_line2", rules::TEXT_MAX).map(Some),
    };
    let city = text(errs, o, "city", rules::NAME_MAX);
    let zip = o.string("zip", errs).and_then(|z| {
        errs.check(|e| rules::zip(e, "zip", z))
            .then(|| z.to_string())
    });
    Fields {
        address_type_id,
        is_default,
        country_id,
        state_id,
        first_name,
        last_name,
        address_line1,
        address_line2,
        city,
        zip,
    }
}

/// The errors of field `name` in `body` (every other field ignored), for
/// checking an answer to a prompt with the same rules as the body.
pub fn field_errors(body: &Value, name: &str) -> Vec<ApiError> {
    let mut errs = Errors::new();
    if let Some(o) = as_object(body, "", &mut errs) {
        read(&mut errs, &o, None);
    }
    errs.into_vec()
        .into_iter()
        .filter(|e| e.path.as_deref() == Some(name))
        .collect()
}

/// The index of address `aid` in `c`, or 20001. A malformed id is simply not found.
fn position(c: &Customer, aid: &str) -> Result<usize> {
    let found = id::is_valid(id::ADDRESS, aid)
        .then(|| c.addresses.iter().position(|a| a.address_id == aid))
        .flatten();
    found.ok_or_else(|| {
        if id::is_valid(id::ADDRESS, aid) {
            Error::one(
                code::NOT_FOUND,
                format!(
                    "address {aid} does not exist in customer profile {}",
                    c.id()
                ),
            )
        } else {
            Error::at(
                code::NOT_FOUND,
                "address_id",
                "is not an address identifier (cpa_…)",
            )
        }
    })
}

/// Make `keep` the only default address of `c`, touching every demoted one.
fn demote_others(c: &mut Customer, keep: &str, ctx: &Ctx) {
    for a in c
        .addresses
        .iter_mut()
        .filter(|a| a.is_default && a.address_id != keep)
    {
        a.is_default = false;
        a.audit.touch(&ctx.actor, &ctx.now);
    }
}

fn write(store: &Store, ctx: &Ctx, c: &Customer) -> Result<()> {
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_customer(c);
    tx.commit()
}

/// POST /customer-profiles/{id}/addresses: the new `cpa_` id. With
/// `is_default` true the previous default is demoted in the same write.
pub fn create(store: &Store, ctx: &Ctx, cid: &str, body: &Value) -> Result<String> {
    let mut customer = load(store, cid)?;
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    let f = read(&mut errs, &o, None);
    for name in REQUIRED {
        if !o.has(name) {
            errs.required(name);
        }
    }
    if customer.addresses.len() >= rules::caps::ADDRESSES {
        errs.invalid(
            "customer_profile_id",
            format!(
                "already has {} addresses, the most a customer profile may have (delete one first)",
                rules::caps::ADDRESSES
            ),
        );
    }
    let (
        address_type_id,
        is_default,
        country_id,
        state_id,
        first_name,
        last_name,
        address_line1,
        city,
        zip,
    ) = errs.into_result(|| {
        Some((
            f.address_type_id?,
            f.is_default?,
            f.country_id?,
            f.state_id?,
            f.first_name?,
            f.last_name?,
            f.address_line1?,
            f.city?,
            f.zip?,
        ))
    })?;
    let address = Address {
        address_id: id::new_id_in(id::ADDRESS, customer.id(), |id| {
            customer.addresses.iter().any(|a| a.address_id == id)
        }),
        customer_profile_id: customer.id().to_string(),
        address_type_id,
        is_default,
        country_id,
        state_id,
        first_name,
        last_name,
        address_line1,
        address_line2: f.address_line2.flatten(),
        city,
        zip,
        audit: Audit::new(&ctx.actor, &ctx.now),
    };
    let aid = address.address_id.clone();
    if is_default {
        demote_others(&mut customer, &aid, ctx);
    }
    customer.addresses.push(address);
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_customer(&customer);
    tx.commit_created(&aid)?;
    Ok(aid)
}

/// GET …/addresses: every address of the profile, in creation order.
pub fn list(store: &Store, cid: &str, req: &PageRequest) -> Result<Page<Address>> {
    let customer = load(store, cid)?;
    paginate(customer.addresses, |a| &a.address_id, req)
}

/// GET …/addresses/{address_id}.
pub fn get(store: &Store, cid: &str, aid: &str) -> Result<Address> {
    let mut customer = load(store, cid)?;
    let i = position(&customer, aid)?;
    Ok(customer.addresses.swap_remove(i))
}

/// PUT …/addresses/{address_id}: partial. `address_type_id` may be sent
/// unchanged (a different value: 10003). `is_default` true demotes the
/// previous default in the same write; false on the default is refused.
pub fn update(store: &Store, ctx: &Ctx, cid: &str, aid: &str, body: &Value) -> Result<String> {
    let mut customer = load(store, cid)?;
    let i = position(&customer, aid)?;
    let cur = customer.addresses[i].clone();
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    let f = read(&mut errs, &o, Some(cur.country_id));
    if f.address_type_id.is_some_and(|t| t != cur.address_type_id) {
        errs.push(
            code::NOT_UPDATABLE,
            "address_type_id",
            "cannot be updated after creation",
        );
    }
    if cur.is_default && f.is_default == Some(false) {
        errs.invalid(
            "is_default",
            "the default address stays the default until another address is made the default \
             (update or create that one with is_default true)",
        );
    }
    errs.finish()?;
    let mut next = cur.clone();
    next.is_default = f.is_default.unwrap_or(cur.is_default);
    next.country_id = f.country_id.unwrap_or(cur.country_id);
    next.state_id = f.state_id.unwrap_or(cur.state_id);
    next.first_name = f.first_name.unwrap_or(cur.first_name.clone());
    next.last_name = f.last_name.unwrap_or(cur.last_name.clone());
    next.address_line1 = f.address_line1.unwrap_or(cur.address_line1.clone());
    next.address_line2 = f.address_line2.unwrap_or(cur.address_line2.clone());
    next.city = f.city.unwrap_or(cur.city.clone());
    next.zip = f.zip.unwrap_or(cur.zip.clone());
    if next == cur {
        return Ok(cur.address_id);
    }
    next.audit.touch(&ctx.actor, &ctx.now);
    if next.is_default {
        demote_others(&mut customer, aid, ctx);
    }
    customer.addresses[i] = next;
    write(store, ctx, &customer)?;
    Ok(cur.address_id)
}

/// Refuse to delete the default address (21003).
fn deletable(c: &Customer, i: usize) -> Result<()> {
    let a = &c.addresses[i];
    if a.is_default {
        return Err(Error::one(
            code::DEFAULT_ADDRESS,
            format!(
                "address {} is the default of customer profile {}; make another address the default first \
                 (`payctl address update {} OTHER_CPA --default true`, or create one with --default true)",
                a.address_id,
                c.id(),
                c.id()
            ),
        ));
    }
    Ok(())
}

/// DELETE …/addresses/{address_id}: the default address cannot be deleted (21003).
pub fn delete(store: &Store, ctx: &Ctx, cid: &str, aid: &str) -> Result<String> {
    let mut customer = load(store, cid)?;
    let i = position(&customer, aid)?;
    deletable(&customer, i)?;
    let removed = customer.addresses.remove(i);
    write(store, ctx, &customer)?;
    Ok(removed.address_id)
}
