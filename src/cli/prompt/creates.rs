//! The forms of the create commands (`profile`, `address`, `instrument
//! create`): their required fields, each answer checked by core's own
//! validation of the body.

use serde_json::Value;

use super::Dict;
use super::form::{Ask, Check, Field, Form};
use crate::api::endpoints::{Op, Request};
use crate::cli::Global;
use crate::core::{address, instrument, profile};
use crate::error::{Error, Result};

/// The messages of a validation that concern the field at `path` (itself or
/// anything inside it, such as `payment_instrument_tags[0].key`).
fn only_field(e: Error, path: &str) -> Vec<String> {
    e.errors
        .into_iter()
        .filter(|e| e.is_at(path))
        .map(|e| e.message)
        .collect()
}

/// `profile create`: the required fields (spec 2.1), each answer checked by
/// core::profile's own validation; the date of birth, whose limits are the
/// Facilitator's, by a dry run of the create through the endpoint table
/// (the store's or the service's limits, whichever `g` speaks to).
pub fn profile_form(g: &Global) -> Result<Form<'_>> {
    let fac = g.prompt_catalog()?.facilitator;
    let ctx = g.ctx();
    let local = checked_by(move |body| profile::validate_create(body, &ctx, &fac).map(drop));
    let fields = fields(profile::REQUIRED, |name| match name {
        "customer_type_id" => ("customer type".into(), Ask::Dict(Dict::CustomerType)),
        "customer_key" => (format!("customer_key ({})", profile::KEY_RULE), Ask::Text),
        "first_name" => ("first name".into(), Ask::Text),
        "last_name" => ("last name".into(), Ask::Text),
        "date_of_birth" => ("date of birth (YYYY-MM-DD or MM/DD/YYYY)".into(), Ask::Text),
        "mobile_phone" => (
            "mobile phone (+ and digits, e.g. +15551234567)".into(),
            Ask::Text,
        ),
        other => (other.into(), Ask::Text),
    });
    Ok(Form {
        fields,
        check: Box::new(move |body, path| {
            let errors = local(body, path);
            if !errors.is_empty() || path != "customer_profile_individual.date_of_birth" {
                return errors;
            }
            let dry = Request::new(Op::ProfileCreate)
                .body(body.clone())
                .dry_run(true);
            match g.call(dry) {
                Ok(_) => Vec::new(),
                // (Another field's error, or a service that cannot be
                // reached: the create itself answers it.)
                Err(e) => only_field(e, path),
            }
        }),
    })
}

/// `address create`: the required fields of core::address, checked by its
/// own field rules.
pub fn address_form() -> Form<'static> {
    let fields = fields(address::REQUIRED, |name| match name {
        "address_type_id" => ("address type".into(), Ask::Dict(Dict::AddressType)),
        "is_default" => ("the profile's default address?".into(), Ask::Bool),
        "country_id" => ("country".into(), Ask::Dict(Dict::Country)),
        "state_id" => ("state".into(), Ask::Dict(Dict::State)),
        "first_name" => ("first name".into(), Ask::Text),
        "last_name" => ("last name".into(), Ask::Text),
        "address_line1" => ("address line 1".into(), Ask::Text),
        "city" => ("city".into(), Ask::Text),
        "zip" => ("zip (xxxxx or xxxxx-xxxx)".into(), Ask::Text),
        other => (other.into(), Ask::Text),
    });
    Form {
        fields,
        check: Box::new(|body, path| {
            address::field_errors(body, path)
                .into_iter()
                .map(|e| e.message)
                .collect()
        }),
    }
}

/// `instrument create`: the required fields (spec 2.3), each answer checked
/// by core::instrument's own validation (the create then checks whether the
/// customer is Attached to the program chosen).
pub fn instrument_form(g: &Global) -> Result<Form<'static>> {
    let catalog = g.prompt_catalog()?;
    let programs: Vec<(Value, String)> = catalog
        .programs
        .iter()
        .map(|p| {
            (
                Value::String(p.program_id.clone()),
                format!("{} ({})", p.program_display_name, p.program_id),
            )
        })
        .collect();
    let mut programs = Some(programs);
    let fields = fields(instrument::REQUIRED, |name| match name {
        "program_id" => (
            "program (the customer must be Attached to it)".into(),
            Ask::OneOf(programs.take().unwrap_or_default()),
        ),
        "payment_instrument_type_id" => ("instrument type".into(), Ask::Dict(Dict::InstrumentType)),
        "payment_method_id" => ("payment method".into(), Ask::Dict(Dict::PaymentMethod)),
        "payment_instrument_ach_type_id" => ("bank account type".into(), Ask::Dict(Dict::AchType)),
        "account_number" => (
            format!("account number ({})", instrument::ACCOUNT_RULE),
            Ask::Secret,
        ),
        "routing_number" => (
            format!("routing number ({})", instrument::ROUTING_RULE),
            Ask::Secret,
        ),
        "is_default" => ("the default instrument of its type?".into(), Ask::Bool),
        "payment_instrument_label" => ("label".into(), Ask::Text),
        "payment_instrument_change_reason" => ("change reason".into(), Ask::Text),
        "payment_instrument_tags" => (
            "tags (KEY=VALUE, comma-separated, at least one)".into(),
            Ask::Tags,
        ),
        other => (other.into(), Ask::Text),
    });
    Ok(Form {
        fields,
        check: checked_by(move |body| {
            instrument::validate_create(body, &catalog, "", |_| true).map(drop)
        }),
    })
}

/// The fields of a form: each required field (a JSON path), asked as `how`
/// says from its last segment (`first_name` of
/// `customer_profile_individual.first_name`).
fn fields(required: &[&'static str], mut how: impl FnMut(&str) -> (String, Ask)) -> Vec<Field> {
    required
        .iter()
        .map(|path| {
            let (prompt, ask) = how(path.rsplit('.').next().unwrap_or(path));
            Field { path, prompt, ask }
        })
        .collect()
}

/// Answers checked by the create's own validation of the whole body; only
/// the errors of the field asked count.
fn checked_by(validate: impl Fn(&Value) -> Result<()> + 'static) -> Check<'static> {
    Box::new(move |body, path| match validate(body) {
        Ok(()) => Vec::new(),
        Err(e) => only_field(e, path),
    })
}
