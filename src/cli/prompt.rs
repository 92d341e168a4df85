//! Asking a person: dictionary values named by name (on flags, in completions
//! and in choice lists), and the required fields a create body still lacks.
//!
//! Prompts happen only when [`Ui::interactive`](crate::output::ui::Ui::interactive)
//! (stdin is a terminal and `--no-input` was not given); they go to the Ui's
//! prompt terminal, stderr (dialoguer), so stdout keeps
//! only the requested output. Each answer is checked with the rules of the
//! body before it is taken; the create itself then checks the whole body
//! again, and when it refuses only fields that were asked for in this run
//! (a customer_key already in use, a program the customer is not attached
//! to), those fields are asked again. A field given by `--body` or a flag is
//! never asked again: its error ends the command as without a terminal.

use std::collections::HashSet;
use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use serde_json::{Map, Value};

use super::Global;
use crate::api::endpoints::{Op, Request};
use crate::catalog::dictionaries as dict;
use crate::core::{address, instrument, profile};
use crate::error::{ApiError, Error, ErrorKind, Result};
use crate::output::mask::message;
use crate::output::ui::Ui;

/// A dictionary whose values flags and prompts accept by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dict {
    CustomerType,
    AddressType,
    Country,
    State,
    InstrumentType,
    PaymentMethod,
    AchType,
}

/// One value of a dictionary: its id, the name a flag takes (no spaces) and
/// the name people read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub id: u32,
    pub name: &'static str,
    pub display: &'static str,
}

fn entries(e: &'static [dict::Entry]) -> Vec<Choice> {
    e.iter()
        .map(|e| Choice {
            id: e.id,
            name: e.name,
            display: e.display_name,
        })
        .collect()
}

/// Lower case without spaces, `_` and `-`: `Customers of Program` and
/// `customers_of_program` are the same name.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

impl Dict {
    /// The name of the dictionary for `payctl dict list NAME`.
    pub fn list_name(self) -> &'static str {
        match self {
            Dict::CustomerType => "customer-types",
            Dict::AddressType => "address-types",
            Dict::Country => "countries",
            Dict::State => "states",
            Dict::InstrumentType => "payment-instrument-types",
            Dict::PaymentMethod => "payment-methods",
            Dict::AchType => "payment-instrument-ach-types",
        }
    }

    /// The values, in id order. States go by their USPS code (`CA`), the
    /// United States by `US`.
    pub fn choices(self) -> Vec<Choice> {
        match self {
            Dict::CustomerType => entries(dict::CUSTOMER_TYPES),
            Dict::AddressType => entries(dict::ADDRESS_TYPES),
            Dict::InstrumentType => entries(dict::PAYMENT_INSTRUMENT_TYPES),
            // Instruments take only ACH: Check is never offered (in help,
            // completions or prompts) since it is always refused there.
            Dict::PaymentMethod => entries(dict::PAYMENT_METHODS)
                .into_iter()
                .filter(|c| c.id == crate::core::instrument::ACH_METHOD)
                .collect(),
            Dict::AchType => entries(dict::ACH_TYPES),
            Dict::Country => dict::COUNTRIES
                .iter()
                .map(|c| Choice {
                    id: c.id,
                    name: c.two_letter_code,
                    display: c.display_name,
                })
                .collect(),
            Dict::State => dict::STATES
                .iter()
                .map(|s| Choice {
                    id: s.id,
                    name: s.short_name,
                    display: s.name,
                })
                .collect(),
        }
    }

    /// The id a user's text names: a whole number is taken as it is (the
    /// rules of the body check it later, as before names were accepted);
    /// otherwise a name, display name or (states, countries) code, in any
    /// case, with or without spaces.
    pub fn resolve(self, text: &str) -> Option<u32> {
        if let Ok(n) = text.parse::<u32>() {
            return Some(n);
        }
        let want = norm(text);
        if want.is_empty() {
            return None;
        }
        let extra: Vec<(u32, &str)> = match self {
            Dict::Country => dict::COUNTRIES
                .iter()
                .flat_map(|c| [(c.id, c.name), (c.id, c.three_letter_code)])
                .collect(),
            _ => Vec::new(),
        };
        self.choices()
            .iter()
            .flat_map(|c| [(c.id, c.name), (c.id, c.display)])
            .chain(extra)
            .find(|(_, n)| norm(n) == want)
            .map(|(id, _)| id)
    }
}

/// The value parser of a dictionary-valued flag: an id or a name (see
/// [`Dict::resolve`]); the names are its possible values, so that shell
/// completions offer them.
#[derive(Debug, Clone, Copy)]
pub struct DictParser(pub Dict);

impl TypedValueParser for DictParser {
    type Value = u32;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> std::result::Result<u32, clap::Error> {
        let text = value.to_str().unwrap_or("");
        if let Some(id) = self.0.resolve(text) {
            return Ok(id);
        }
        let flag = arg.map_or_else(|| "the value".to_string(), |a| format!("'{a}'"));
        let some: Vec<String> = self
            .0
            .choices()
            .iter()
            .take(4)
            .map(|c| format!("{} {}", c.id, c.name))
            .collect();
        let more = if self.0.choices().len() > 4 {
            ", …"
        } else {
            ""
        };
        // The value itself is not repeated (house rule: messages never echo values).
        let msg = format!(
            "invalid value for {flag}: expected an id or a name from `payctl dict list {}` ({}{more})",
            self.0.list_name(),
            some.join(", ")
        );
        let mut cmd = cmd.clone();
        Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).format(&mut cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.choices().into_iter().map(|c| {
            PossibleValue::new(c.name).help(format!("{} (id {})", c.display, c.id))
        })))
    }
}

/// How a field is asked for.
pub enum Ask {
    /// Free text.
    Text,
    /// A sensitive value (an account or routing number): typed without echo,
    /// then shown as its last 4 digits only.
    Secret,
    /// Yes or no.
    Bool,
    /// A choice list of a dictionary's values, by name; the answer is the id.
    Dict(Dict),
    /// A choice list of (value, label), e.g. the catalog's programs.
    OneOf(Vec<(Value, String)>),
    /// `KEY=VALUE` pairs separated by commas, as a tags array.
    Tags,
}

/// A required field of a create body.
pub struct Field {
    /// The field's JSON path (dot-separated), as error messages name it.
    pub path: &'static str,
    /// What the prompt says (a rule it states comes from core).
    pub prompt: String,
    pub ask: Ask,
}

/// The messages of the errors of field `path` in a body.
pub type Check<'a> = Box<dyn Fn(&Value, &str) -> Vec<String> + 'a>;

/// The required fields of a create, and how an answer is checked.
pub struct Form<'a> {
    pub fields: Vec<Field>,
    pub check: Check<'a>,
}

fn get<'v>(body: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(body, |v, k| v.get(k))
        .filter(|v| !v.is_null())
}

fn set(body: &mut Value, path: &str, value: Value) {
    let mut cur = body;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, k) in parts.iter().enumerate() {
        let Some(map) = cur.as_object_mut() else {
            return;
        };
        if i + 1 == parts.len() {
            map.insert(k.to_string(), value);
            return;
        }
        let slot = map
            .entry(k.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        cur = slot;
    }
}

fn remove(body: &mut Value, path: &str) {
    let (parent, last) = match path.rsplit_once('.') {
        Some((p, l)) => (p.split('.').try_fold(&mut *body, |v, k| v.get_mut(k)), l),
        None => (Some(body), path),
    };
    if let Some(Value::Object(m)) = parent {
        m.remove(last);
    }
}

/// `KEY=VALUE, KEY=VALUE` as a tags array.
fn parse_tags(text: &str) -> std::result::Result<Value, String> {
    let mut tags = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| "expected KEY=VALUE pairs separated by commas".to_string())?;
        tags.push(serde_json::json!({"key": k.trim(), "value": v.trim()}));
    }
    Ok(Value::Array(tags))
}

fn unreadable(path: &str, e: dialoguer::Error) -> Error {
    Error::usage(format!("{path}: no answer could be read ({e})"))
}

impl Form<'_> {
    /// Ask for every field of the form the body lacks; remember which.
    fn ask_missing(
        &self,
        ui: &Ui,
        body: &mut Value,
        asked: &mut HashSet<&'static str>,
    ) -> Result<()> {
        if !body.is_object() {
            return Ok(());
        }
        for f in &self.fields {
            if get(body, f.path).is_some() {
                continue;
            }
            let value = self.ask(ui, body, f)?;
            set(body, f.path, value);
            asked.insert(f.path);
        }
        Ok(())
    }

    /// The errors of `f` if `body` had `value` there, joined for the prompt.
    fn errors_with(
        &self,
        body: &Value,
        f: &Field,
        value: Value,
    ) -> std::result::Result<(), String> {
        let mut trial = body.clone();
        set(&mut trial, f.path, value);
        let errs = (self.check)(&trial, f.path);
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    fn ask(&self, ui: &Ui, body: &Value, f: &Field) -> Result<Value> {
        let term = ui.prompt_term();
        let choose = |labels: &[String]| -> Result<usize> {
            dialoguer::Select::new()
                .with_prompt(&f.prompt)
                .items(labels)
                .default(0)
                .max_length(12)
                .interact_on(&term)
                .map_err(|e| unreadable(f.path, e))
        };
        loop {
            let value = match &f.ask {
                Ask::Text => {
                    let text: String = dialoguer::Input::new()
                        .with_prompt(&f.prompt)
                        .allow_empty(true)
                        .validate_with(|s: &String| {
                            self.errors_with(body, f, Value::String(s.clone()))
                        })
                        .interact_text_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    Value::String(text)
                }
                Ask::Secret => {
                    let text: String = dialoguer::Password::new()
                        .with_prompt(&f.prompt)
                        .allow_empty_password(true)
                        .report(false)
                        .validate_with(|s: &String| {
                            self.errors_with(body, f, Value::String(s.clone()))
                        })
                        .interact_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    crate::output::mask::remember(&text);
                    ui.err_line(format_args!(
                        "{}: …{} (hidden; last 4 shown)",
                        f.prompt,
                        crate::output::mask::last4(&text)
                    ));
                    Value::String(text)
                }
                Ask::Tags => {
                    let text: String = dialoguer::Input::new()
                        .with_prompt(&f.prompt)
                        .allow_empty(true)
                        .validate_with(|s: &String| self.errors_with(body, f, parse_tags(s)?))
                        .interact_text_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    parse_tags(&text).unwrap_or(Value::Null)
                }
                Ask::Bool => Value::Bool(
                    dialoguer::Confirm::new()
                        .with_prompt(&f.prompt)
                        .default(false)
                        .interact_on(&term)
                        .map_err(|e| unreadable(f.path, e))?,
                ),
                Ask::Dict(d) => {
                    let choices = d.choices();
                    let labels: Vec<String> = choices
                        .iter()
                        .map(|c| match d {
                            Dict::State | Dict::Country => format!("{:<3} {}", c.name, c.display),
                            _ => c.display.to_string(),
                        })
                        .collect();
                    Value::from(choices[choose(&labels)?].id)
                }
                Ask::OneOf(options) => {
                    let labels: Vec<String> = options.iter().map(|(_, l)| l.clone()).collect();
                    options[choose(&labels)?].0.clone()
                }
            };
            // Text answers were checked as they were typed; a choice is checked here.
            match self.errors_with(body, f, value.clone()) {
                Ok(()) => return Ok(value),
                Err(why) => ui.err_line(message(&why)),
            }
        }
    }

    /// The field of `self` that error `e` is about.
    fn named(&self, e: &ApiError) -> Option<&'static str> {
        self.fields
            .iter()
            .map(|f| f.path)
            .find(|p| e.path.as_deref() == Some(*p))
    }
}

/// Run `create` with `body`; on a terminal, first ask for the required fields
/// the body lacks (the [`Form`] is built only then), and when the create
/// refuses only fields asked in this run, show why and ask them again.
pub fn create_asking<'g, T>(
    g: &'g Global,
    mut body: Value,
    form: impl FnOnce() -> Result<Form<'g>>,
    mut create: impl FnMut(&Value) -> Result<T>,
) -> Result<T> {
    if !g.ui.interactive() || !body.is_object() {
        return create(&body);
    }
    let form = form()?;
    let mut asked = HashSet::new();
    form.ask_missing(&g.ui, &mut body, &mut asked)?;
    loop {
        let err = match create(&body) {
            Err(e) if e.kind == ErrorKind::Refused => e,
            other => return other,
        };
        let named: Vec<Option<&'static str>> = err.errors.iter().map(|e| form.named(e)).collect();
        if named.iter().any(|n| n.is_none_or(|p| !asked.contains(p))) {
            return Err(err);
        }
        for e in &err.errors {
            g.ui.err_line(format_args!("error[{}]: {}", e.code, message(&e.message)));
        }
        for p in named.into_iter().flatten() {
            remove(&mut body, p);
        }
        form.ask_missing(&g.ui, &mut body, &mut asked)?;
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_ids() {
        assert_eq!(Dict::State.resolve("CA"), Some(6));
        assert_eq!(Dict::State.resolve("california"), Some(6));
        assert_eq!(Dict::State.resolve("district of columbia"), Some(10));
        assert_eq!(Dict::State.resolve("6"), Some(6));
        assert_eq!(Dict::State.resolve("99"), Some(99));
        assert_eq!(Dict::State.resolve("Atlantis"), None);
        assert_eq!(Dict::State.resolve(""), None);
        assert_eq!(Dict::AddressType.resolve("Mailing"), Some(1));
        assert_eq!(Dict::InstrumentType.resolve("funding"), Some(1));
        assert_eq!(Dict::AchType.resolve("Checking"), Some(2));
        assert_eq!(Dict::CustomerType.resolve("customers of program"), Some(4));
        assert_eq!(Dict::Country.resolve("USA"), Some(1));
        assert_eq!(Dict::Country.resolve("United States"), Some(1));
    }

    #[test]
    fn paths() {
        let mut v = serde_json::json!({"a": {"b": 1}});
        set(&mut v, "a.c", Value::from(2));
        set(&mut v, "d.e", Value::from(3));
        assert_eq!(get(&v, "a.c"), Some(&Value::from(2)));
        assert_eq!(get(&v, "d.e"), Some(&Value::from(3)));
        remove(&mut v, "a.b");
        assert_eq!(get(&v, "a.b"), None);
        assert_eq!(
            parse_tags("k=v, x = y").unwrap(),
            serde_json::json!([{"key": "k", "value": "v"}, {"key": "x", "value": "y"}])
        );
        assert!(parse_tags("kv").is_err());
    }
}
