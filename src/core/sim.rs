//! Outcome rules and delays for the background work (issue 37, CLI.md
//! "Snapshots, reset, and outcomes on demand"): `payctl sim rule
//! add|list|delete` and `/_payctl/rules`, what the worker makes of a rule
//! ([`Sim`]), and the reads that `--after-polls` counts ([`polled`]).
//!
//! The first rule whose `on` and `when` match an item decides: it may make
//! the item wait (`after` seconds, or until it has been read `after_polls`
//! times) and give it an outcome (an attachment Rejected, a step Failed,
//! with the rule's reason). An item no rule matches is processed as
//! always: a store without rules behaves exactly as before them.

use chrono::NaiveDateTime;
use regex::Regex;
use rust_decimal::Decimal;
use serde_json::Value;

use super::Ctx;
use super::body::as_object;
use super::paging::{Page, PageRequest, paginate};
use crate::error::{Error, Errors, Result, code};
use crate::model::catalog::Template;
use crate::model::sim_rule::{Outcome, Rule, RuleOn};
use crate::model::status::{attachment, step as step_status, txn as txn_status};
use crate::model::txn::TxnFile;
use crate::model::{Attachment, Customer, id};
use crate::store::Store;

/// The fields of `POST /_payctl/rules` (the flags of `sim rule add`).
pub const FIELDS: &[&str] = &["on", "when", "outcome", "reason", "after", "after_polls"];
/// Longest `when`.
pub const MAX_WHEN: usize = 1024;
/// Longest `reason`.
pub const MAX_REASON: usize = 255;
/// Longest `after`: a week, in seconds.
pub const MAX_AFTER: u32 = 7 * 24 * 3600;
/// Most `after_polls`.
pub const MAX_POLLS: u32 = 1000;
/// The compiled size a `FIELD~REGEX` may take.
const REGEX_BYTES: usize = 1 << 20;

/// What `--when` names on a step besides the fields of a parameter value.
pub const STEP_EXTRA: &[&str] = &["transfer_type_id"];

/// The fields `--when` may name on an attachment's profile: `customer_key`,
/// `customer_type_id` and the person's fields (`ssn` aside: a rule would
/// keep the number whole); `tag:KEY` besides.
pub fn attach_fields() -> Vec<&'static str> {
    ["customer_key", "customer_type_id"]
        .into_iter()
        .chain(
            super::profile::INDIVIDUAL_FIELDS
                .iter()
                .copied()
                .filter(|f| *f != "ssn"),
        )
        .collect()
}

/// The fields `--when` may name on a step.
pub fn step_fields() -> Vec<&'static str> {
    super::txn::VALUE_FIELDS
        .iter()
        .chain(STEP_EXTRA)
        .copied()
        .collect()
}

/// How a `when` compares a value.
#[derive(Debug)]
enum Matcher {
    Equals(String),
    Finds(Regex),
}

/// A rule's `when`, parsed.
#[derive(Debug)]
struct When {
    /// The field (`tag:KEY` for a tag).
    field: String,
    matcher: Matcher,
}

impl When {
    /// `FIELD=VALUE` or `FIELD~REGEX` for items of `on`; the rule it breaks.
    fn parse(on: RuleOn, text: &str) -> std::result::Result<When, String> {
        let at = text.find(['=', '~']).ok_or_else(|| {
            "is FIELD=VALUE (equal) or FIELD~REGEX (a regular expression that finds a match)"
                .to_string()
        })?;
        let (field, rest) = text.split_at(at);
        let field = field
            .trim()
            .trim_start_matches("customer_profile_individual.");
        let value = &rest[1..];
        let known = match on {
            RuleOn::Attach => attach_fields(),
            RuleOn::Step => step_fields(),
        };
        let tag = on == RuleOn::Attach && field.strip_prefix("tag:").is_some_and(|k| !k.is_empty());
        if !tag && !known.contains(&field) {
            let also = if on == RuleOn::Attach {
                ", tag:KEY"
            } else {
                ""
            };
            return Err(format!(
                "`{}` is not a field a rule on {} matches; the fields are: {}{also}",
                crate::error::shown_id(field),
                on.as_str(),
                known.join(", ")
            ));
        }
        let matcher = if rest.starts_with('=') {
            Matcher::Equals(value.to_string())
        } else {
            let re = regex::RegexBuilder::new(value)
                .size_limit(REGEX_BYTES)
                .build()
                .map_err(|e| {
                    format!("`{field}~…`: the regular expression does not compile: {e}")
                })?;
            Matcher::Finds(re)
        };
        Ok(When {
            field: field.to_string(),
            matcher,
        })
    }

    /// Whether one of `values` matches (`amount`s equal as decimals).
    fn matches(&self, values: &[String]) -> bool {
        values.iter().any(|v| match &self.matcher {
            Matcher::Finds(re) => re.is_match(v),
            Matcher::Equals(want) if self.field == "amount" => {
                match (want.trim().parse::<Decimal>(), v.parse::<Decimal>()) {
                    (Ok(a), Ok(b)) => a == b,
                    _ => want == v,
                }
            }
            Matcher::Equals(want) => want == v,
        })
    }
}

/// A JSON value as `when` reads it: a string as it is, a number or a
/// boolean as its text, null as nothing.
fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Check a rule body (`POST /_payctl/rules`) and add the rule to `store`
/// (opened for writing): the rule as stored.
pub fn add_rule(store: &Store, ctx: &Ctx, body: &Value) -> Result<Rule> {
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let on = match o.string("on", &mut errs) {
        Some("attach") => Some(RuleOn::Attach),
        Some("step") => Some(RuleOn::Step),
        Some(_) => {
            errs.invalid("on", "must be `attach` or `step`");
            None
        }
        None if !o.has("on") => {
            errs.push(code::REQUIRED, "on", "is required: `attach` or `step`");
            None
        }
        None => None,
    };
    let when = o.string("when", &mut errs);
    if let (Some(on), Some(w)) = (on, when) {
        if w.chars().count() > MAX_WHEN {
            errs.invalid("when", format!("is at most {MAX_WHEN} characters"));
        } else if let Err(rule) = When::parse(on, w) {
            errs.invalid("when", rule);
        }
    }
    let outcome = match o.string("outcome", &mut errs) {
        None => None,
        Some("rejected") => Some(Outcome::Rejected),
        Some("failed") => Some(Outcome::Failed),
        Some(_) => {
            errs.invalid("outcome", "must be `rejected` (attach) or `failed` (step)");
            None
        }
    };
    match (on, outcome) {
        (Some(RuleOn::Attach), Some(Outcome::Failed)) => errs.invalid(
            "outcome",
            "an attachment's outcome is `rejected`; `failed` is a step's",
        ),
        (Some(RuleOn::Step), Some(Outcome::Rejected)) => errs.invalid(
            "outcome",
            "a step's outcome is `failed`; `rejected` is an attachment's",
        ),
        _ => {}
    }
    let reason = o.string("reason", &mut errs);
    if let Some(r) = reason {
        let n = r.chars().count();
        if !(1..=MAX_REASON).contains(&n) {
            errs.invalid("reason", format!("is 1-{MAX_REASON} characters"));
        } else if outcome.is_none() && o.get("outcome").is_none() {
            errs.invalid(
                "reason",
                "is the reason of an outcome: give `outcome` (--outcome) with it",
            );
        }
    }
    let after = count(&o, "after", MAX_AFTER, "seconds", &mut errs);
    let polls = count(&o, "after_polls", MAX_POLLS, "reads", &mut errs);
    if ["outcome", "after", "after_polls"]
        .iter()
        .all(|f| o.get(f).is_none())
    {
        errs.add(crate::error::ApiError::new(
            code::REQUIRED,
            "a rule does something: give `outcome`, `after` or `after_polls` \
             (--outcome, --after, --after-polls)",
        ));
    }
    errs.finish()?;
    let Some(on) = on else {
        return Err(Error::at(
            code::REQUIRED,
            "on",
            "is required: `attach` or `step`",
        ));
    };
    let rules = store.sim().rules()?;
    let rule_id = id::new_free_id(id::RULE, |id| {
        Ok::<bool, Error>(rules.iter().any(|r| r.rule_id == id))
    })?;
    let rule = Rule {
        rule_id,
        on,
        when: when.map(str::to_string),
        outcome,
        reason: reason.map(str::to_string),
        after,
        after_polls: polls,
        created_by: ctx.actor.clone(),
        created_datetime: ctx.now.clone(),
    };
    store.sim().add_rule(&rule)?;
    Ok(rule)
}

/// The whole number `name` of `o`, 1 to `max` (`what`: its unit and flag).
fn count(o: &super::body::Obj, name: &str, max: u32, what: &str, errs: &mut Errors) -> Option<u64> {
    let text = o.number_text(name, errs)?;
    match text.parse::<u64>() {
        Ok(n) if (1..=u64::from(max)).contains(&n) => Some(n),
        _ => {
            errs.invalid(name, format!("is a whole number of {what}, 1-{max}"));
            None
        }
    }
}

/// A page of the rules, in the order they were added (the first that
/// matches wins).
pub fn list_rules(store: &Store, req: &PageRequest) -> Result<Page<Rule>> {
    paginate(store.sim().rules()?, |r| r.rule_id.as_str(), req)
}

/// Remove the rule `id` (20001 when there is none): its id.
pub fn delete_rule(store: &Store, rule_id: &str) -> Result<String> {
    if !store.sim().delete_rule(rule_id)? {
        return Err(Error::not_found("rule", rule_id));
    }
    Ok(rule_id.to_string())
}

/// What the worker does with an item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// As always.
    Proceed,
    /// Not yet: it stays queued.
    Wait,
    /// Rejected (an attachment) or Failed (a step), with this reason.
    Outcome(String),
}

/// The rules as one worker batch applies them.
pub struct Sim<'s> {
    rules: Vec<(Rule, Option<When>)>,
    store: &'s Store,
    now: Option<NaiveDateTime>,
}

fn parse_time(t: &str) -> Option<NaiveDateTime> {
    NaiveDateTime::parse_from_str(t, super::TIME_FORMAT).ok()
}

impl<'s> Sim<'s> {
    /// The rules of `store`, read once for a batch run at `now`.
    pub fn load(store: &'s Store, now: &str) -> Result<Sim<'s>> {
        let mut rules = Vec::new();
        for r in store.sim().rules()? {
            let when = match &r.when {
                Some(w) => Some(When::parse(r.on, w).map_err(|why| {
                    Error::store(
                        code::STORE_UNREADABLE,
                        format!(
                            "rule {}: when: {why}; delete it (payctl sim rule delete)",
                            r.rule_id
                        ),
                    )
                })?),
                None => None,
            };
            rules.push((r, when));
        }
        Ok(Sim {
            rules,
            store,
            now: parse_time(now),
        })
    }

    /// The first rule on `on` whose `when` matches `values_of(field)`.
    fn first(&self, on: RuleOn, values_of: impl Fn(&str) -> Vec<String>) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|(r, w)| r.on == on && w.as_ref().is_none_or(|w| w.matches(&values_of(&w.field))))
            .map(|(r, _)| r)
    }

    /// What `rule` makes of an item waiting since `since`, read under
    /// `key`; `outcome` says it with the rule's reason or `default`.
    fn decide(&self, rule: &Rule, since: &str, key: &str, default: &str) -> Result<Decision> {
        if let Some(secs) = rule.after {
            let due = parse_time(since)
                .map(|t| t + chrono::Duration::seconds(i64::try_from(secs).unwrap_or(i64::MAX)));
            if let (Some(due), Some(now)) = (due, self.now)
                && now < due
            {
                return Ok(Decision::Wait);
            }
        }
        if let Some(n) = rule.after_polls
            && self.store.sim().polls(key)? < n
        {
            return Ok(Decision::Wait);
        }
        Ok(match rule.outcome {
            Some(_) => {
                Decision::Outcome(rule.reason.clone().unwrap_or_else(|| {
                    format!("{default} by the payctl sim rule {}.", rule.rule_id)
                }))
            }
            None => Decision::Proceed,
        })
    }

    /// What becomes of the Pending attachment `a` of `c`.
    pub fn attach(&self, c: &Customer, a: &Attachment) -> Result<Decision> {
        if self.rules.is_empty() {
            return Ok(Decision::Proceed);
        }
        let individual = serde_json::to_value(&c.profile.customer_profile_individual).ok();
        let rule = self.first(RuleOn::Attach, |field| match field {
            "customer_key" => vec![c.profile.customer_key.clone()],
            "customer_type_id" => vec![c.profile.customer_type_id.to_string()],
            f => match f.strip_prefix("tag:") {
                Some(k) => c
                    .profile
                    .customer_profile_tags
                    .iter()
                    .filter(|t| t.key == k)
                    .map(|t| t.value.clone())
                    .collect(),
                None => text_of(individual.as_ref().and_then(|i| i.get(f)))
                    .into_iter()
                    .collect(),
            },
        });
        let Some(rule) = rule else {
            return Ok(Decision::Proceed);
        };
        let key = attach_key(c.id(), &a.program_id);
        self.decide(rule, &a.audit.created_datetime, &key, "Rejected")
    }

    /// What becomes of the Pending step `i` of `file` (steps in sequence
    /// order), whose template is `template`.
    pub fn step(&self, file: &TxnFile, i: usize, template: Option<&Template>) -> Result<Decision> {
        if self.rules.is_empty() {
            return Ok(Decision::Proceed);
        }
        let step = &file.steps[i];
        let names: Option<Vec<&str>> = template
            .and_then(|t| {
                t.steps
                    .iter()
                    .find(|s| s.transaction_template_step_id == step.transaction_template_step_id)
            })
            .map(|s| s.parameter_mapping.names().collect());
        let values: Vec<Value> = file
            .parameters
            .iter()
            .filter(|p| {
                names
                    .as_ref()
                    .is_none_or(|n| n.contains(&p.transaction_parameter_name.as_str()))
            })
            .flat_map(|p| &p.transaction_parameter_values)
            .filter_map(|v| serde_json::to_value(v).ok())
            .collect();
        let rule = self.first(RuleOn::Step, |field| match field {
            "transfer_type_id" => vec![step.transfer_type_id.to_string()],
            f => values.iter().filter_map(|v| text_of(v.get(f))).collect(),
        });
        let Some(rule) = rule else {
            return Ok(Decision::Proceed);
        };
        // Waiting since it became the next to run: the later of its
        // creation and the previous step's last change.
        let mut since = step.audit.created_datetime.as_str();
        if let Some(prev) = i.checked_sub(1).map(|p| &file.steps[p])
            && prev.audit.modified_datetime.as_str() > since
        {
            since = prev.audit.modified_datetime.as_str();
        }
        self.decide(rule, since, &step.transaction_step_id, "Failed")
    }
}

/// The read count's key of a profile-program record.
fn attach_key(customer_id: &str, program_id: &str) -> String {
    format!("att.{customer_id}.{program_id}")
}

/// A read that `--after-polls` counts.
pub enum Polled<'a> {
    /// `GET /programs/{program_id}/customer-profiles/{customer_profile_id}`.
    Attachment {
        program_id: &'a str,
        customer_id: &'a str,
    },
    /// `GET /transactions/{id}` or its steps: the step next to run.
    Transaction(&'a str),
}

/// Count a read of a pending item when a rule waits for reads of its kind
/// (nothing is written otherwise): the attachment if it is Pending, a
/// transaction's first Pending step.
pub fn polled(store: &Store, what: Polled) -> Result<()> {
    let on = match what {
        Polled::Attachment { .. } => RuleOn::Attach,
        Polled::Transaction(_) => RuleOn::Step,
    };
    let rules = store.sim().rules()?;
    if !rules.iter().any(|r| r.on == on && r.after_polls.is_some()) {
        return Ok(());
    }
    let key = match what {
        Polled::Attachment {
            program_id,
            customer_id,
        } => {
            let pending = store.customer(customer_id)?.is_some_and(|c| {
                c.attachments.iter().any(|a| {
                    a.program_id == program_id
                        && a.customer_profile_program_status_id == attachment::PENDING
                })
            });
            if !pending {
                return Ok(());
            }
            attach_key(customer_id, program_id)
        }
        Polled::Transaction(tid) => {
            let Some(mut file) = store.txn(tid)? else {
                return Ok(());
            };
            if file.transaction.transaction_status_id != txn_status::PROCESSING {
                return Ok(());
            }
            file.steps.sort_by_key(|s| s.sequence);
            let Some(next) = file
                .steps
                .iter()
                .find(|s| s.transaction_step_status_id == step_status::PENDING)
            else {
                return Ok(());
            };
            next.transaction_step_id.clone()
        }
    };
    store.sim().poll(&key)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whens_parse_and_match() {
        let w = When::parse(RuleOn::Attach, "customer_key~^reject-").unwrap();
        assert!(w.matches(&["reject-1".into()]));
        assert!(!w.matches(&["ok-1".into()]));
        let w = When::parse(RuleOn::Step, "amount=55.01").unwrap();
        assert!(w.matches(&["55.010".into()]) && !w.matches(&["55.02".into()]));
        let w = When::parse(RuleOn::Attach, "customer_profile_individual.email=a=b@x").unwrap();
        assert_eq!(w.field, "email");
        assert!(w.matches(&["a=b@x".into()]));
        assert!(When::parse(RuleOn::Attach, "tag:segment=vip").is_ok());
        for bad in [
            "customer_key",
            "nope=1",
            "ssn=123",
            "tag:=x",
            "customer_key~(",
        ] {
            assert!(When::parse(RuleOn::Attach, bad).is_err(), "{bad}");
        }
        assert!(When::parse(RuleOn::Step, "customer_key=x").is_err());
        assert!(When::parse(RuleOn::Step, "transfer_type_id=1").is_ok());
    }
}
