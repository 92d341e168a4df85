//! The built-in catalog of CLI.md and the loading of a user's `--catalog FILE`.
//!
//! A catalog file has the shape of the stored `catalog.json`; identifiers and
//! audit fields may be left out and are then generated. A stored
//! `catalog.json` (or the records of `program list`, `program applications`,
//! `template list` and `template steps` nested the same way) loads as it is:
//! its audit fields are read and replaced (the catalog is the platform's, so
//! they name SYSTEM from the moment of `init`), and the ids of the enclosing
//! records, where given, must be those of the record they sit in.

pub mod dictionaries;
mod dictionary_data;

use std::collections::HashSet;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::error::{ApiError, Error, Errors, Result, code};
use crate::model::catalog::*;
use crate::model::{Audit, id};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogIn {
    #[serde(default)]
    facilitator: Facilitator,
    programs: Vec<ProgramIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProgramIn {
    #[serde(default)]
    program_id: Option<String>,
    program_name: String,
    #[serde(default)]
    program_display_name: Option<String>,
    #[serde(default)]
    program_description: Option<String>,
    applications: Vec<ApplicationIn>,
    #[serde(default, rename = "created_by")]
    _created_by: Option<IgnoredAny>,
    #[serde(default, rename = "created_date_time")]
    _created: Option<IgnoredAny>,
    #[serde(default, rename = "modified_by")]
    _modified_by: Option<IgnoredAny>,
    #[serde(default, rename = "modified_date_time")]
    _modified: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplicationIn {
    #[serde(default)]
    application_id: Option<String>,
    application_name: String,
    #[serde(default)]
    application_display_name: Option<String>,
    #[serde(default)]
    application_description: Option<String>,
    transaction_templates: Vec<TemplateIn>,
    #[serde(default, rename = "created_by")]
    _created_by: Option<IgnoredAny>,
    #[serde(default, rename = "created_datetime")]
    _created: Option<IgnoredAny>,
    #[serde(default, rename = "modified_by")]
    _modified_by: Option<IgnoredAny>,
    #[serde(default, rename = "modified_datetime")]
    _modified: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TemplateIn {
    #[serde(default)]
    transaction_template_id: Option<String>,
    transaction_template_name: String,
    #[serde(default)]
    transaction_template_display_name: Option<String>,
    #[serde(default)]
    transaction_template_description: Option<String>,
    steps: Vec<StepIn>,
    /// The enclosing application's id, where given (a stored catalog has it).
    #[serde(default)]
    application_id: Option<String>,
    #[serde(default, rename = "created_by")]
    _created_by: Option<IgnoredAny>,
    #[serde(default, rename = "created_datetime")]
    _created: Option<IgnoredAny>,
    #[serde(default, rename = "modified_by")]
    _modified_by: Option<IgnoredAny>,
    #[serde(default, rename = "modified_datetime")]
    _modified: Option<IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepIn {
    #[serde(default)]
    transaction_template_step_id: Option<String>,
    transfer_type_id: u32,
    sequence: u32,
    #[serde(default)]
    wait_to_complete: bool,
    #[serde(default)]
    is_optional: bool,
    #[serde(default)]
    source_customer_type_ids: Vec<u32>,
    #[serde(default)]
    target_customer_type_ids: Vec<u32>,
    destination_id: u32,
    account_code_id: u32,
    parameter_mapping: ParameterMapping,
    /// The enclosing template's id, where given (a stored catalog has it).
    #[serde(default)]
    transaction_template_id: Option<String>,
    #[serde(default, rename = "created_by")]
    _created_by: Option<IgnoredAny>,
    #[serde(default, rename = "created_datetime")]
    _created: Option<IgnoredAny>,
    #[serde(default, rename = "modified_by")]
    _modified_by: Option<IgnoredAny>,
    #[serde(default, rename = "modified_datetime")]
    _modified: Option<IgnoredAny>,
}

/// Parameter names a step may map (CLI.md "Transaction parameters").
pub const PARAMETER_NAMES: &[&str] = &[
    "@source_customers",
    "@targets",
    "@facilitator",
    "@target_checks",
];

/// Longest string a catalog may hold (names, display names, descriptions).
pub const MAX_CATALOG_TEXT: usize = 1024;

/// Every string of a catalog follows the rules of user input: no control,
/// bidirectional or other invisible format characters (they would reach the
/// operator's terminal through `program list`), at most
/// [`MAX_CATALOG_TEXT`] characters.
fn check_strings(v: &serde_json::Value, path: &str, errs: &mut Errors) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            let at = if path.is_empty() { "catalog" } else { path };
            if let Err(rule) = crate::text::clean_text(s) {
                errs.invalid(at, rule);
            }
            let n = s.chars().count();
            // Names are what flags and tables refer to records by.
            if n == 0 && path.ends_with("_name") {
                errs.invalid(at, "must not be empty");
            }
            if n > MAX_CATALOG_TEXT {
                errs.invalid(
                    at,
                    format!("must be at most {MAX_CATALOG_TEXT} characters long (is {n})"),
                );
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                check_strings(x, &format!("{path}[{i}]"), errs);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let shown = crate::error::shown_id(k);
                check_strings(x, &crate::text::join(path, &shown), errs);
            }
        }
        _ => {}
    }
}

/// Parse and validate a catalog file; every problem is reported at once.
pub fn load(text: &str, actor: &str, now: &str) -> Result<Catalog> {
    if let Some(dup) = crate::text::duplicate_key(text) {
        return Err(Error::one(code::MALFORMED, format!("catalog: {dup}")));
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let mut errs = Errors::new();
        check_strings(&v, "", &mut errs);
        errs.finish()?;
    }
    let input: CatalogIn = serde_json::from_str(text)
        .map_err(|e| Error::one(code::MALFORMED, format!("catalog: {e}")))?;
    build(input, actor, now)
}

fn text(v: Option<String>, fallback: &str) -> String {
    v.unwrap_or_else(|| fallback.to_string())
}

/// Validate a parsed catalog level by level ([`Builder`]); every problem is
/// reported at once, each message prefixed `catalog: `.
fn build(input: CatalogIn, actor: &str, now: &str) -> Result<Catalog> {
    let mut b = Builder {
        errs: Errors::new(),
        ids: HashSet::new(),
        actor,
        now,
    };
    let f = &input.facilitator;
    if f.min_age > f.max_age {
        b.errs
            .invalid("facilitator.min_age", "must not exceed facilitator.max_age");
    }
    if input.programs.is_empty() {
        b.errs
            .invalid("programs", "a Facilitator has at least one Program");
    }
    let programs = input
        .programs
        .into_iter()
        .enumerate()
        .map(|(pi, p)| b.program(&format!("programs[{pi}]"), p))
        .collect();
    if !b.errs.is_empty() {
        let errors: Vec<ApiError> = b
            .errs
            .into_vec()
            .into_iter()
            .map(|e| ApiError {
                message: format!("catalog: {}", e.message),
                ..e
            })
            .collect();
        return Err(Error::refused(errors));
    }
    Ok(Catalog {
        facilitator: input.facilitator,
        programs,
    })
}

/// What [`build`] carries from level to level: the problems found so far and
/// the ids seen (an id is unique in the whole catalog).
struct Builder<'a> {
    errs: Errors,
    ids: HashSet<String>,
    actor: &'a str,
    now: &'a str,
}

impl Builder<'_> {
    /// The record's id at `{at}.{field}`: the given one (which must have the
    /// `prefix` form and be new to the catalog) or a generated one.
    fn id(&mut self, at: &str, field: &str, prefix: &str, given: Option<String>) -> String {
        let v = given.unwrap_or_else(|| id::new_id(prefix));
        let path = format!("{at}.{field}");
        if !id::is_valid(prefix, &v) {
            self.errs.invalid(
                &path,
                format!("must be `{prefix}_` followed by letters and digits"),
            );
        } else if !self.ids.insert(v.clone()) {
            self.errs.invalid(&path, "is used twice in the catalog");
        }
        v
    }

    /// A child's copy of its parent's id (`{at}.{field}`), where given, must
    /// be the id of the record it sits in (at `{parent_at}.{field}`).
    fn enclosing(
        &mut self,
        at: &str,
        field: &str,
        given: Option<&String>,
        parent: &str,
        parent_at: &str,
    ) {
        if given.is_some_and(|g| g != parent) {
            let what = if field == "application_id" {
                "application"
            } else {
                "template"
            };
            self.errs.invalid(
                &format!("{at}.{field}"),
                format!("must be the id of the enclosing {what} ({parent_at}.{field})"),
            );
        }
    }

    fn audit(&self) -> Audit {
        Audit::new(self.actor, self.now)
    }

    fn program(&mut self, at: &str, p: ProgramIn) -> Program {
        let program_id = self.id(at, "program_id", id::PROGRAM, p.program_id);
        if p.applications.is_empty() {
            self.errs.invalid(
                &format!("{at}.applications"),
                "a Program has at least one Application",
            );
        }
        let applications = p
            .applications
            .into_iter()
            .enumerate()
            .map(|(ai, a)| self.application(&format!("{at}.applications[{ai}]"), a))
            .collect();
        Program {
            program_id,
            program_display_name: text(p.program_display_name, &p.program_name),
            program_description: text(p.program_description, ""),
            program_name: p.program_name,
            created_by: self.actor.to_string(),
            created_date_time: self.now.to_string(),
            modified_by: self.actor.to_string(),
            modified_date_time: self.now.to_string(),
            applications,
        }
    }

    fn application(&mut self, at: &str, a: ApplicationIn) -> Application {
        let application_id = self.id(at, "application_id", id::APPLICATION, a.application_id);
        let transaction_templates = a
            .transaction_templates
            .into_iter()
            .enumerate()
            .map(|(ti, t)| {
                self.template(
                    &format!("{at}.transaction_templates[{ti}]"),
                    at,
                    &application_id,
                    t,
                )
            })
            .collect();
        Application {
            application_display_name: text(a.application_display_name, &a.application_name),
            application_description: text(a.application_description, ""),
            application_name: a.application_name,
            application_id,
            audit: self.audit(),
            transaction_templates,
        }
    }

    fn template(
        &mut self,
        at: &str,
        app_at: &str,
        application_id: &str,
        t: TemplateIn,
    ) -> Template {
        let template_id = self.id(
            at,
            "transaction_template_id",
            id::TEMPLATE,
            t.transaction_template_id,
        );
        self.enclosing(
            at,
            "application_id",
            t.application_id.as_ref(),
            application_id,
            app_at,
        );
        if t.steps.is_empty() {
            self.errs
                .invalid(&format!("{at}.steps"), "a Template has at least one Step");
        }
        let mut seqs = HashSet::new();
        let mut steps: Vec<TemplateStep> = t
            .steps
            .into_iter()
            .enumerate()
            .map(|(si, s)| self.step(&format!("{at}.steps[{si}]"), at, &template_id, &mut seqs, s))
            .collect();
        steps.sort_by_key(|s| s.sequence);
        Template {
            transaction_template_id: template_id,
            application_id: application_id.to_string(),
            transaction_template_display_name: text(
                t.transaction_template_display_name,
                &t.transaction_template_name,
            ),
            transaction_template_description: text(t.transaction_template_description, ""),
            transaction_template_name: t.transaction_template_name,
            audit: self.audit(),
            steps,
        }
    }

    fn step(
        &mut self,
        at: &str,
        template_at: &str,
        template_id: &str,
        seqs: &mut HashSet<u32>,
        s: StepIn,
    ) -> TemplateStep {
        use dictionaries as d;
        let step_id = self.id(
            at,
            "transaction_template_step_id",
            id::TEMPLATE_STEP,
            s.transaction_template_step_id,
        );
        self.enclosing(
            at,
            "transaction_template_id",
            s.transaction_template_id.as_ref(),
            template_id,
            template_at,
        );
        let errs = &mut self.errs;
        if !seqs.insert(s.sequence) {
            errs.invalid(
                &format!("{at}.sequence"),
                "sequences must be unique within a template",
            );
        }
        if !d::TRANSFER_TYPES
            .iter()
            .any(|tt| tt.entry.id == s.transfer_type_id)
        {
            errs.invalid(
                &format!("{at}.transfer_type_id"),
                "not in the transfer-types dictionary",
            );
        }
        if !d::contains(d::DESTINATIONS, s.destination_id) {
            errs.invalid(
                &format!("{at}.destination_id"),
                "not in the destinations dictionary",
            );
        }
        if !d::contains(d::ACCOUNT_CODES, s.account_code_id) {
            errs.invalid(
                &format!("{at}.account_code_id"),
                "not in the account-codes dictionary",
            );
        }
        for (name, list) in [
            ("source_customer_type_ids", &s.source_customer_type_ids),
            ("target_customer_type_ids", &s.target_customer_type_ids),
        ] {
            if list.iter().any(|t| !d::contains(d::CUSTOMER_TYPES, *t)) {
                errs.invalid(
                    &format!("{at}.{name}"),
                    "not in the customer-types dictionary",
                );
            }
        }
        for (side, v) in [
            ("source", &s.parameter_mapping.source),
            ("target", &s.parameter_mapping.target),
        ] {
            if let Some(v) = v
                && !PARAMETER_NAMES.contains(&v.as_str())
            {
                errs.invalid(
                    &format!("{at}.parameter_mapping.{side}"),
                    format!("must be null or one of {}", PARAMETER_NAMES.join(", ")),
                );
            }
        }
        TemplateStep {
            transaction_template_step_id: step_id,
            transaction_template_id: template_id.to_string(),
            transfer_type_id: s.transfer_type_id,
            sequence: s.sequence,
            wait_to_complete: s.wait_to_complete,
            is_optional: s.is_optional,
            source_customer_type_ids: s.source_customer_type_ids,
            target_customer_type_ids: s.target_customer_type_ids,
            destination_id: s.destination_id,
            account_code_id: s.account_code_id,
            parameter_mapping: s.parameter_mapping,
            audit: self.audit(),
        }
    }
}

/// The built-in catalog of CLI.md.
pub fn builtin(actor: &str, now: &str) -> Catalog {
    build(
        serde_json::from_str(BUILTIN).expect("built-in catalog parses"),
        actor,
        now,
    )
    .expect("built-in catalog is valid")
}

/// The built-in catalog in the `--catalog FILE` shape (also a template for users).
pub const BUILTIN: &str = r#"{
  "facilitator": {"min_age": 18, "max_age": 120},
  "programs": [{
    "program_name": "default_program",
    "program_display_name": "Default Program",
    "program_description": "The Facilitator's default program.",
    "applications": [{
      "application_name": "payments",
      "application_display_name": "Payments",
      "application_description": "Funding, withdrawals, transfers and check payouts.",
      "transaction_templates": [
        {"transaction_template_name": "ach_funding",
         "transaction_template_display_name": "ACH Funding",
         "transaction_template_description": "Fund member accounts from the source customers' bank accounts.",
         "steps": [
          {"sequence": 1, "transfer_type_id": 1, "wait_to_complete": true, "is_optional": false,
           "source_customer_type_ids": [1], "target_customer_type_ids": [],
           "destination_id": 1, "account_code_id": 1,
           "parameter_mapping": {"source": "@source_customers", "target": null}}]},
        {"transaction_template_name": "ach_withdrawal",
         "transaction_template_display_name": "ACH Withdrawal",
         "transaction_template_description": "Withdraw from member accounts to the targets' bank accounts.",
         "steps": [
          {"sequence": 1, "transfer_type_id": 2, "wait_to_complete": true, "is_optional": false,
           "source_customer_type_ids": [], "target_customer_type_ids": [1],
           "destination_id": 2, "account_code_id": 1,
           "parameter_mapping": {"source": null, "target": "@targets"}}]},
        {"transaction_template_name": "internal_transfer",
         "transaction_template_display_name": "Internal Transfer",
         "transaction_template_description": "Move funds between customers, with an optional portion to the Facilitator.",
         "steps": [
          {"sequence": 1, "transfer_type_id": 3, "wait_to_complete": false, "is_optional": false,
           "source_customer_type_ids": [1], "target_customer_type_ids": [1],
           "destination_id": 3, "account_code_id": 1,
           "parameter_mapping": {"source": "@source_customers", "target": "@targets"}},
          {"sequence": 2, "transfer_type_id": 3, "wait_to_complete": false, "is_optional": true,
           "source_customer_type_ids": [1], "target_customer_type_ids": [3],
           "destination_id": 4, "account_code_id": 2,
           "parameter_mapping": {"source": "@source_customers", "target": "@facilitator"}}]},
        {"transaction_template_name": "funding_and_payout",
         "transaction_template_display_name": "Funding and Payout",
         "transaction_template_description": "Fund from the source customers' banks, pay the targets, optionally a Facilitator portion.",
         "steps": [
          {"sequence": 1, "transfer_type_id": 1, "wait_to_complete": true, "is_optional": false,
           "source_customer_type_ids": [1], "target_customer_type_ids": [],
           "destination_id": 1, "account_code_id": 1,
           "parameter_mapping": {"source": "@source_customers", "target": null}},
          {"sequence": 2, "transfer_type_id": 3, "wait_to_complete": false, "is_optional": false,
           "source_customer_type_ids": [1], "target_customer_type_ids": [1],
           "destination_id": 3, "account_code_id": 1,
           "parameter_mapping": {"source": "@source_customers", "target": "@targets"}},
          {"sequence": 3, "transfer_type_id": 3, "wait_to_complete": false, "is_optional": true,
           "source_customer_type_ids": [1], "target_customer_type_ids": [3],
           "destination_id": 4, "account_code_id": 2,
           "parameter_mapping": {"source": "@source_customers", "target": "@facilitator"}}]},
        {"transaction_template_name": "check_payout",
         "transaction_template_display_name": "Check Payout",
         "transaction_template_description": "Pay check recipients from the member account.",
         "steps": [
          {"sequence": 1, "transfer_type_id": 4, "wait_to_complete": true, "is_optional": false,
           "source_customer_type_ids": [], "target_customer_type_ids": [],
           "destination_id": 5, "account_code_id": 1,
           "parameter_mapping": {"source": null, "target": "@target_checks"}}]}
      ]
    }]
  }]
}"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_the_five_templates() {
        let c = builtin("test", "2026-01-01T00:00:00.000000");
        let app = &c.programs[0].applications[0];
        let names: Vec<_> = app
            .transaction_templates
            .iter()
            .map(|t| t.transaction_template_name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "ach_funding",
                "ach_withdrawal",
                "internal_transfer",
                "funding_and_payout",
                "check_payout"
            ]
        );
    }

    #[test]
    fn duplicate_sequences_are_refused() {
        let text = BUILTIN.replace("\"sequence\": 2", "\"sequence\": 1");
        let err = load(&text, "t", "now").unwrap_err();
        assert!(
            err.errors
                .iter()
                .any(|e| e.message.contains("sequences must be unique"))
        );
    }
}
