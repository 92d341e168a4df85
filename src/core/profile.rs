//! Customer profiles (spec 2.1, 4.1): create, read, list with filters, update.

use serde_json::Value;

use super::Ctx;
use super::body::{Obj, as_object};
use super::paging::{Page, PageRequest, from_ids, paginate, window};
use super::rules;
use crate::catalog::dictionaries as dict;
pub use crate::error::key_in_use;
use crate::error::{Error, Errors, Result, code};
use crate::model::catalog::Facilitator;
use crate::model::{Audit, Customer, Individual, Profile, Tag, id};
use crate::store::fields::{Field, tag_value};
use crate::store::{ProfileSummary, Store, Window};

pub const FIELDS: &[&str] = &[
    "customer_type_id",
    "customer_key",
    "customer_profile_tags",
    "customer_profile_individual",
];
pub const INDIVIDUAL_FIELDS: &[&str] = &[
    "first_name",
    "middle_name",
    "last_name",
    "email",
    "date_of_birth",
    "ssn",
    "mobile_phone",
    "home_phone",
    "office_phone",
];
const IND: &str = "customer_profile_individual";

/// The fields a create needs (spec 2.1), by JSON path; the prompts ask for them.
pub(crate) const REQUIRED: &[&str] = &[
    "customer_type_id",
    "customer_key",
    "customer_profile_individual.first_name",
    "customer_profile_individual.last_name",
    "customer_profile_individual.email",
    "customer_profile_individual.date_of_birth",
    "customer_profile_individual.mobile_phone",
];
/// The required fields of `customer_profile_individual`.
const INDIVIDUAL_REQUIRED: &[&str] = REQUIRED.split_at(2).1;
/// `customer_key`: its length, and the rule as prompts and messages say it.
pub(crate) const KEY_LEN: (usize, usize) = (5, 50);
pub(crate) const KEY_RULE: &str = "5-50 of digits, letters, ! @ . - _ #";

/// The customer aggregate `id`, or 20001.
pub fn load(store: &Store, cid: &str) -> Result<Customer> {
    store
        .customer(cid)?
        .ok_or_else(|| Error::not_found("customer profile", cid))
}

fn summary(p: &Profile) -> ProfileSummary {
    ProfileSummary::of(p)
}

fn customer_type(errs: &mut Errors, o: &Obj) -> Option<u32> {
    let t = o.uint("customer_type_id", errs)?;
    if !dict::contains(dict::CUSTOMER_TYPES, t) {
        errs.invalid(
            &o.at("customer_type_id"),
            "must be a customer type from `payctl dict list customer-types` (Individual is 1)",
        );
        return None;
    }
    Some(t)
}

/// A text field of `min`-`max` characters plus an extra rule.
fn text(
    errs: &mut Errors,
    o: &Obj,
    name: &str,
    max: usize,
    extra: fn(&mut Errors, &str, &str),
) -> Option<String> {
    let s = o.string(name, errs)?;
    errs.check(|errs| {
        if max == FORMAT_ONLY || rules::length(errs, &o.at(name), s, 1, max) {
            extra(errs, &o.at(name), s);
        }
    })
    .then(|| s.to_string())
}

/// The answer to any `ssn` in an update, the same whatever the value sent.
pub const SSN_NOT_UPDATABLE: &str = "cannot be updated after creation; leave it out of an update \
     (any value is refused, the stored one too, so that an update never tells whether a guess is right)";

/// The `max` of a field whose format rule fixes its length (a phone: at most
/// 17 characters by its pattern), so that a phone one digit too long is told
/// the phone rule rather than a length.
const FORMAT_ONLY: usize = 0;

fn no_rule(_: &mut Errors, _: &str, _: &str) {}

/// How many digits an `ssn` may have: all 9, or the last 4.
pub(crate) const SSN_DIGITS: &[usize] = &[9, 4];

fn ssn_rule(errs: &mut Errors, path: &str, s: &str) {
    rules::digits(errs, path, s, SSN_DIGITS, "9 digits or 4 digits");
}

/// An optional text field: `Some(None)` when sent empty or null (cleared).
fn optional(
    errs: &mut Errors,
    o: &Obj,
    name: &str,
    max: usize,
    extra: fn(&mut Errors, &str, &str),
) -> Option<Option<String>> {
    match o.map.get(name)? {
        Value::Null => Some(None),
        Value::String(s) if s.is_empty() => Some(Some(String::new())),
        _ => text(errs, o, name, max, extra).map(Some),
    }
}

/// Read `customer_profile_individual` over `base` (the current values on an
/// update; `None` on a create, where the required fields must be present).
fn individual(
    errs: &mut Errors,
    o: &Obj,
    base: Option<&Individual>,
    ctx: &Ctx,
    fac: &Facilitator,
) -> Option<Individual> {
    o.known(INDIVIDUAL_FIELDS, errs);
    let start = errs.mark();
    let dob_rule = |errs: &mut Errors, path: &str, s: &str| {
        rules::date_of_birth(errs, path, s, ctx.today, fac.min_age, fac.max_age)
    };
    let req = |errs: &mut Errors,
               name: &str,
               max: usize,
               extra: fn(&mut Errors, &str, &str),
               cur: Option<&String>| {
        match text(errs, o, name, max, extra) {
            Some(v) => Some(v),
            None => {
                if !o.has(name) && cur.is_none() {
                    errs.required(&o.at(name));
                }
                cur.cloned()
            }
        }
    };
    let first_name = req(
        errs,
        "first_name",
        rules::NAME_MAX,
        no_rule,
        base.map(|b| &b.first_name),
    );
    let last_name = req(
        errs,
        "last_name",
        rules::NAME_MAX,
        no_rule,
        base.map(|b| &b.last_name),
    );
    let email = req(
        errs,
        "email",
        rules::EMAIL_MAX,
        rules::email,
        base.map(|b| &b.email),
    );
    let mobile_phone = req(
        errs,
        "mobile_phone",
        FORMAT_ONLY,
        rules::phone,
        base.map(|b| &b.mobile_phone),
    );
    // date_of_birth needs the context for the age rule.
    let date_of_birth = match o.string("date_of_birth", errs) {
        Some(s) => errs
            .check(|errs| dob_rule(errs, &o.at("date_of_birth"), s))
            .then(|| s.to_string()),
        None => {
            if !o.has("date_of_birth") && base.is_none() {
                errs.required(&o.at("date_of_birth"));
            }
            base.map(|b| b.date_of_birth.clone())
        }
    };
    let keep = |v: Option<Option<String>>, cur: Option<&Option<String>>| match v {
        Some(v) => v,
        None => cur.cloned().flatten(),
    };
    let middle_name = keep(
        optional(errs, o, "middle_name", rules::NAME_MAX, no_rule),
        base.map(|b| &b.middle_name),
    );
    let home_phone = keep(
        optional(errs, o, "home_phone", FORMAT_ONLY, rules::phone),
        base.map(|b| &b.home_phone),
    );
    let office_phone = keep(
        optional(errs, o, "office_phone", FORMAT_ONLY, rules::phone),
        base.map(|b| &b.office_phone),
    );
    let ssn = match base {
        None => optional(errs, o, "ssn", 9, ssn_rule)
            .flatten()
            .filter(|s| !s.is_empty()),
        Some(b) => {
            match o.map.get("ssn") {
                // A wrong JSON type is a malformed body (10005), not a change.
                Some(v) if !v.is_string() && !v.is_null() => {
                    o.string("ssn", errs);
                }
                // Refused whatever its value, even the stored one: an answer
                // that depended on it would let anyone find the SSN by trying.
                Some(Value::String(_)) => {
                    errs.push(code::NOT_UPDATABLE, &o.at("ssn"), SSN_NOT_UPDATABLE)
                }
                _ => {}
            }
            b.ssn.clone()
        }
    };
    if !errs.clean_since(start) {
        return None;
    }
    Some(Individual {
        first_name: first_name?,
        middle_name,
        last_name: last_name?,
        email: email?,
        date_of_birth: date_of_birth?,
        ssn,
        mobile_phone: mobile_phone?,
        home_phone,
        office_phone,
    })
}

/// A profile create body that passed every field rule: what `create` and
/// `import` write (the key's uniqueness is checked by the caller, against the
/// store and, for an import, the rest of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewProfile {
    pub customer_type_id: u32,
    pub customer_key: String,
    pub tags: Vec<Tag>,
    pub individual: Individual,
}

impl NewProfile {
    /// The new customer aggregate, with a fresh `csp_` id.
    pub fn into_customer(self, ctx: &Ctx) -> Customer {
        Customer {
            profile: Profile {
                customer_profile_id: id::new_id(id::CUSTOMER),
                customer_type_id: self.customer_type_id,
                customer_key: self.customer_key,
                customer_profile_tags: self.tags,
                customer_profile_individual: self.individual,
                audit: Audit::new(&ctx.actor, &ctx.now),
            },
            addresses: Vec::new(),
            instruments: Vec::new(),
            attachments: Vec::new(),
            last_event: 0,
        }
    }
}

/// Check a create body (POST /customer-profiles) against every field rule,
/// collecting every error; `fac` gives the age limits of `date_of_birth`.
pub fn validate_create(body: &Value, ctx: &Ctx, fac: &Facilitator) -> Result<NewProfile> {
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let customer_type_id = customer_type(&mut errs, &o);
    if !o.has("customer_type_id") {
        errs.required("customer_type_id");
    }
    let key = o.string("customer_key", &mut errs);
    match key {
        Some(k) => {
            rules::key_text(&mut errs, "customer_key", k, KEY_LEN.0, KEY_LEN.1);
        }
        None if !o.has("customer_key") => errs.required("customer_key"),
        None => {}
    }
    let tags = if o.has("customer_profile_tags") {
        rules::tags(&mut errs, &o, "customer_profile_tags", false)
    } else {
        Some(Vec::new())
    };
    let individual = match o.object(IND, IND, &mut errs) {
        Some(io) => individual(&mut errs, &io, None, ctx, fac),
        None => {
            if !o.has(IND) {
                errs.required(IND);
                for path in INDIVIDUAL_REQUIRED {
                    errs.required(path);
                }
            }
            None
        }
    };
    let (customer_type_id, key, tags, individual) =
        errs.into_result(|| Some((customer_type_id?, key?, tags?, individual?)))?;
    Ok(NewProfile {
        customer_type_id,
        customer_key: key.to_string(),
        tags,
        individual,
    })
}

/// `PAYCTL_ID_SEED`: a new customer whose id the store holds already
/// (`taken`: each process starts the sequence again) gets the next free
/// one; whether it changed. Without a seed, nothing is asked.
pub(crate) fn free_id(c: &mut Customer, taken: impl Fn(&str) -> Result<bool>) -> Result<bool> {
    if !id::seeded() || !taken(c.id())? {
        return Ok(false);
    }
    c.profile.customer_profile_id = id::new_free_id(id::CUSTOMER, taken)?;
    Ok(true)
}

/// POST /customer-profiles: the new `csp_` id.
pub fn create(store: &Store, ctx: &Ctx, body: &Value) -> Result<String> {
    let catalog = store.catalog()?;
    let new = validate_create(body, ctx, &catalog.facilitator)?;
    if store.key_owner(&new.customer_key)?.is_some() {
        return Err(key_in_use());
    }
    let mut customer = new.into_customer(ctx);
    free_id(&mut customer, |id| store.customer(id).map(|c| c.is_some()))?;
    let id = customer.profile.customer_profile_id.clone();
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.new_customer(customer)?;
    tx.commit_created(&id)?;
    Ok(id)
}

pub fn get(store: &Store, cid: &str) -> Result<Profile> {
    Ok(load(store, cid)?.profile)
}

/// Filters of `profile list`; every given filter must match. Names and e-mail
/// compare without regard to case, the key exactly.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub customer_key: Option<String>,
    pub tags: Vec<Tag>,
}

impl Filter {
    fn is_empty(&self) -> bool {
        self.first_name.is_none()
            && self.last_name.is_none()
            && self.email.is_none()
            && self.customer_key.is_none()
            && self.tags.is_empty()
    }

    /// Whether this is one filter whose index answers it exactly: the
    /// e-mail, a name, or one tag whose key has no `=` (the tag index holds
    /// `key=value`, which such a key makes ambiguous). The key's filter
    /// reads its one candidate anyway.
    fn is_one_indexed(&self) -> bool {
        let given = usize::from(self.first_name.is_some())
            + usize::from(self.last_name.is_some())
            + usize::from(self.email.is_some())
            + usize::from(self.customer_key.is_some())
            + self.tags.len();
        given == 1 && self.customer_key.is_none() && self.tags.iter().all(|t| !t.key.contains('='))
    }

    fn matches(&self, s: &ProfileSummary) -> bool {
        let eq = |want: &Option<String>, have: &str| {
            want.as_ref()
                .is_none_or(|w| w.to_lowercase() == have.to_lowercase())
        };
        eq(&self.first_name, &s.first_name)
            && eq(&self.last_name, &s.last_name)
            && eq(&self.email, &s.email)
            && self
                .customer_key
                .as_ref()
                .is_none_or(|k| *k == s.customer_key)
            && self.tags.iter().all(|t| s.tags.contains(t))
    }
}

/// GET /customer-profiles. Without a filter a page costs the same at any
/// size of the store (the ids come from the creation-order index). With
/// filters, one of them gives the candidates from an index (the key index
/// for `customer_key`, else the field index of the e-mail, a tag, the last
/// or the first name: one bucket read). The index is exact (see
/// `store::fields`), so with that one filter alone the candidates are the
/// matches, and only the page's records are read; with several, each
/// candidate's record is read to apply the others: the cost grows with the
/// matches, not with the store.
pub fn list(store: &Store, filter: &Filter, req: &PageRequest) -> Result<Page<Profile>> {
    if filter.is_empty() {
        let got = store.profile_page(None, &window(req)?)?;
        return from_ids(req, got)?.try_map(|id| get(store, &id));
    }
    let candidates: Vec<String> = if let Some(k) = &filter.customer_key {
        store.key_owner(k)?.into_iter().collect()
    } else {
        let (field, value) = if let Some(e) = &filter.email {
            (Field::Email, Field::Email.normal(e))
        } else if let Some(t) = filter.tags.first() {
            (Field::Tag, tag_value(&t.key, &t.value))
        } else if let Some(n) = &filter.last_name {
            (Field::LastName, Field::LastName.normal(n))
        } else {
            // Not empty, and none of the others: the first name is given.
            let n = filter.first_name.as_deref().unwrap_or_default();
            (Field::FirstName, Field::FirstName.normal(n))
        };
        if filter.is_one_indexed() {
            let got = store.profile_page(Some((field, &value)), &window(req)?)?;
            return from_ids(req, got)?.try_map(|id| get(store, &id));
        }
        store
            .profile_page(Some((field, &value)), &Window::all())?
            .ids
    };
    let mut matching: Vec<Profile> = Vec::new();
    for id in candidates {
        if let Some(c) = store.customer(&id)?
            && filter.matches(&summary(&c.profile))
        {
            matching.push(c.profile);
        }
    }
    paginate(matching, |p| &p.customer_profile_id, req)
}

/// PUT /customer-profiles/{id}: partial; `customer_key`, `ssn` and the tags
/// may be sent unchanged, a different value is refused with 10003.
pub fn update(store: &Store, ctx: &Ctx, cid: &str, body: &Value) -> Result<String> {
    let mut customer = load(store, cid)?;
    let catalog = store.catalog()?;
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let p = &customer.profile;
    let customer_type_id = customer_type(&mut errs, &o).unwrap_or(p.customer_type_id);
    match o.map.get("customer_key") {
        // A wrong JSON type is a malformed body (10005), not a change.
        Some(v) if !v.is_string() && !v.is_null() => {
            o.string("customer_key", &mut errs);
        }
        Some(v) if !rules::is_str(Some(v), &p.customer_key) => errs.push(
            code::NOT_UPDATABLE,
            "customer_key",
            "cannot be updated after creation",
        ),
        _ => {}
    }
    if o.map
        .get("customer_profile_tags")
        .is_some_and(|v| !v.is_array() && !v.is_null())
    {
        o.array("customer_profile_tags", &mut errs);
    } else if let Some(v) = o.map.get("customer_profile_tags") {
        let mut scratch = Errors::new();
        let sent = if v.is_null() {
            Some(Vec::new())
        } else {
            rules::tags(&mut scratch, &o, "customer_profile_tags", false)
        };
        if sent.is_none_or(|t| !rules::same_tags(&t, &p.customer_profile_tags)) {
            errs.push(
                code::NOT_UPDATABLE,
                "customer_profile_tags",
                "cannot be updated after creation",
            );
        }
    }
    let individual = match o.object(IND, IND, &mut errs) {
        Some(io) => individual(
            &mut errs,
            &io,
            Some(&p.customer_profile_individual),
            ctx,
            &catalog.facilitator,
        ),
        None => Some(p.customer_profile_individual.clone()),
    };
    errs.finish()?;
    let individual = individual.expect("validation passed");
    let changed = customer_type_id != customer.profile.customer_type_id
        || individual != customer.profile.customer_profile_individual;
    if changed {
        let p = &mut customer.profile;
        p.customer_type_id = customer_type_id;
        p.customer_profile_individual = individual;
        p.audit.touch(&ctx.actor, &ctx.now);
        let mut tx = store.begin_by(&ctx.actor, &ctx.now);
        tx.put_customer(&customer);
        tx.commit()?;
    }
    Ok(cid.to_string())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The prompts ask for [`REQUIRED`]: it must be what validation requires.
    #[test]
    fn required_is_what_validation_requires() {
        let ctx = Ctx::new(
            "t",
            chrono::NaiveDate::from_ymd_opt(2026, 1, 1)
                .unwrap()
                .and_hms_opt(0, 0, 0)
                .unwrap(),
        );
        let fac = Facilitator::default();
        let e = validate_create(&serde_json::json!({}), &ctx, &fac).unwrap_err();
        let required: BTreeSet<&str> = e
            .errors
            .iter()
            .filter(|e| e.code == code::REQUIRED && e.path.as_deref() != Some(IND))
            .filter_map(|e| e.path.as_deref())
            .collect();
        assert_eq!(required, REQUIRED.iter().copied().collect());
    }
}
