//! The worker's part of a transaction: generate its steps from the template,
//! run them in sequence, settle the transaction. Apart from create because
//! it runs inside the worker's batch (`Tx`), not a request.

use std::collections::BTreeSet;

use super::{SOURCE_CUSTOMERS, TARGETS};
use crate::core::Ctx;
use crate::core::sim::{Decision, Sim};
use crate::core::summary::Summary;
use crate::error::Result;
use crate::model::catalog::{Catalog, Template, TemplateStep};
use crate::model::status::{self, SYSTEM};
use crate::model::txn::{Step, TxnFile};
use crate::model::{Audit, id};
use crate::store::Tx;

/// Transfer types the worker checks (built-in dictionary).
const ACH_FUNDING: u32 = 1;
const ACH_WITHDRAWAL: u32 = 2;
/// Payment instrument types.
const FUNDING: u32 = 1;
const WITHDRAWAL: u32 = 2;

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
///
/// A rule ([`crate::core::sim`]) may fail a step with its reason (as a
/// missing account does) or make it wait: the steps before it run, and the
/// transaction stays Processing, queued (`false`: not done).
pub fn process(
    tx: &mut Tx,
    ctx: &Ctx,
    catalog: &Catalog,
    sim: &Sim,
    transaction_id: &str,
    summary: &mut Summary,
) -> Result<bool> {
    let Some(mut file) = tx.txn(transaction_id)? else {
        return Ok(true);
    };
    let st = file.transaction.transaction_status_id;
    if st != status::txn::CREATED && st != status::txn::PROCESSING {
        return Ok(true);
    }
    // A rule may make a step wait with nothing changed: then nothing is written.
    let before = file.clone();
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
            tx.put_txn(&file);
            return Ok(true);
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

    let done = run(tx, sim, &mut file, template, now, summary)?;
    if file != before {
        summary.transactions_processed += 1;
        tx.put_txn(&file);
    }
    Ok(done)
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
    let mut ids: Vec<String> = Vec::new();
    tsteps
        .into_iter()
        .filter(|s| !s.is_optional || s.parameter_mapping.names().all(|n| given.contains(n)))
        .map(|s| Step {
            transaction_step_id: {
                let tid = &file.transaction.transaction_id;
                let id = id::new_id_in(id::STEP, tid, |id| ids.iter().any(|i| i == id));
                ids.push(id.clone());
                id
            },
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

/// The customer ids of parameter `name`, each with the `account_id` its
/// value names (`None`: any of the customer's instruments will do).
fn customers_of<'f>(file: &'f TxnFile, name: Option<&str>) -> Vec<(&'f str, Option<&'f str>)> {
    file.parameters
        .iter()
        .filter(|p| Some(p.transaction_parameter_name.as_str()) == name)
        .flat_map(|p| &p.transaction_parameter_values)
        .filter_map(|v| {
            v.customer_profile_id
                .as_deref()
                .map(|c| (c, v.account_id.as_deref()))
        })
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
    let mut named: Vec<(&str, &str)> = Vec::new();
    for (cid, account) in customers_of(file, param) {
        if missing.contains(&cid) || account.is_some_and(|a| named.contains(&(cid, a))) {
            continue;
        }
        let usable = |i: &crate::model::customer::Instrument| {
            i.payment_instrument_type_id == itype
                && i.payment_instrument_status_id == status::instrument::ACTIVE
                && account.is_none_or(|a| a == i.payment_instrument_id)
        };
        let has = tx
            .customer(cid)?
            .is_some_and(|c| c.instruments.iter().any(usable));
        match (has, account) {
            (true, _) => {}
            (false, Some(a)) => named.push((cid, a)),
            (false, None) => missing.push(cid),
        }
    }
    let mut why: Vec<String> = Vec::new();
    match missing.as_slice() {
        [] => {}
        [one] => why.push(format!(
            "Customer Profile {one} has no Active {label} payment instrument."
        )),
        many => why.push(format!(
            "Customer Profiles {} have no Active {label} payment instrument.",
            many.join(", ")
        )),
    }
    for (cid, account) in named {
        why.push(format!(
            "Payment instrument {account} of Customer Profile {cid} (its account_id) is not an Active {label} payment instrument."
        ));
    }
    Ok((!why.is_empty()).then(|| why.join(" ")))
}

/// Run the Pending steps in sequence and settle the transaction; `false`
/// when a rule makes a step wait (the transaction stays Processing).
fn run(
    tx: &Tx,
    sim: &Sim,
    file: &mut TxnFile,
    template: Option<&Template>,
    now: &str,
    summary: &mut Summary,
) -> Result<bool> {
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
            None => {
                let why = match sim.step(file, i, template)? {
                    Decision::Wait => return Ok(false),
                    Decision::Outcome(why) => Some(why),
                    Decision::Proceed => blocker(tx, file, &file.steps[i], template)?,
                };
                match why {
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
                }
            }
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
    Ok(true)
}
