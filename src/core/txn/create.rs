//! POST /transactions: the body validated whole (fields, reason, tags,
//! program/application/template, parameters), then the new transaction
//! written and queued for the worker in one commit.

use std::collections::{BTreeSet, HashMap};

use rand::Rng;
use serde_json::Value;

use super::FIELDS;
use super::MAX_PARAMETER_ID;
use super::parameters::parameters;
use super::resolve::resolve;
use super::value::Customers;
use crate::core::Ctx;
use crate::core::body::{Obj, as_object};
use crate::core::rules::{self, caps};
use crate::error::{Errors, Result};
use crate::model::status;
use crate::model::txn::{Parameter, Transaction, TxnFile};
use crate::model::{Audit, Tag, id};
use crate::store::{QueueItem, Store};

/// POST /transactions: the new `trn_` id. The transaction starts Created (10)
/// without steps and is queued for the worker.
pub fn create(store: &Store, ctx: &Ctx, body: &Value) -> Result<String> {
    let catalog = store.catalog()?;
    let mut errs = Errors::new();
    let Some(o) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    o.known(FIELDS, &mut errs);
    let r = resolve(&mut errs, &o, &catalog);
    let reason = reason(&mut errs, &o);
    let tags = tags(&mut errs, &o);
    let mut customers = Customers {
        store,
        seen: HashMap::new(),
    };
    let params = parameters(&mut errs, &o, &r, &mut customers)?;
    let (program, application, template, params) =
        errs.into_result(|| Some((r.program?, r.application?, r.template?, params?)))?;

    let transaction_id = id::new_free_id(id::TRANSACTION, |id| store.txn(id).map(|t| t.is_some()))?;
    let mut rng = rand::rng();
    let mut used = BTreeSet::new();
    // PAYCTL_ID_SEED: the parameters' ids come from the seeded generator too.
    let mut drawn = 0;
    let mut draw = || {
        drawn += 1;
        id::seeded_number(&transaction_id, drawn - 1, MAX_PARAMETER_ID)
            .unwrap_or_else(|| rng.random_range(1..MAX_PARAMETER_ID))
    };
    let parameters = params
        .into_iter()
        .map(|p| {
            let mut pid = draw();
            while !used.insert(pid) {
                pid = draw();
            }
            Parameter {
                transaction_parameter_id: pid,
                transaction_parameter_name: p.name,
                transaction_parameter_values: p.values,
                created_by: ctx.actor.clone(),
                created_date_time: ctx.now.clone(),
                modified_by: ctx.actor.clone(),
                modified_date_time: ctx.now.clone(),
            }
        })
        .collect();
    let file = TxnFile {
        transaction: Transaction {
            transaction_id: transaction_id.clone(),
            program_id: program.program_id.clone(),
            application_id: application.application_id.clone(),
            transaction_template_id: template.transaction_template_id.clone(),
            transaction_status_id: status::txn::CREATED,
            transaction_status_reason: reason,
            transaction_tags: tags,
            audit: Audit::new(&ctx.actor, &ctx.now),
        },
        parameters,
        steps: Vec::new(),
        last_event: 0,
    };
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.enqueue(&QueueItem::txn(&transaction_id));
    tx.put_txn(&file);
    tx.commit_created(&transaction_id)?;
    Ok(transaction_id)
}

fn reason(errs: &mut Errors, o: &Obj) -> Option<String> {
    let s = o.string("transaction_status_reason", errs)?;
    rules::length(errs, "transaction_status_reason", s, 0, rules::TEXT_MAX).then(|| s.to_string())
}

/// `transaction_tags`: `key` and `value` 1-50 characters, unique keys.
fn tags(errs: &mut Errors, o: &Obj) -> Vec<Tag> {
    let Some(arr) = o.array("transaction_tags", errs) else {
        return Vec::new();
    };
    if !rules::at_most(errs, "transaction_tags", arr.len(), caps::TAGS, "tags") {
        return Vec::new();
    }
    let mut out: Vec<Tag> = Vec::new();
    for (i, v) in arr.iter().enumerate() {
        let path = format!("transaction_tags[{i}]");
        let Some(t) = as_object(v, &path, errs) else {
            continue;
        };
        t.known(&["key", "value"], errs);
        let mut pair = [None, None];
        for (slot, field) in pair.iter_mut().zip(["key", "value"]) {
            match t.string(field, errs) {
                Some(s) => {
                    *slot = rules::length(
                        errs,
                        &t.at(field),
                        s,
                        rules::TXN_TAG_LEN.0,
                        rules::TXN_TAG_LEN.1,
                    )
                    .then(|| s.to_string())
                }
                None if !t.has(field) => errs.required(&t.at(field)),
                None => {}
            }
        }
        if let [Some(key), Some(value)] = pair {
            if out.iter().any(|x| x.key == key) {
                errs.invalid(&t.at("key"), "tag keys must be unique");
            } else {
                out.push(Tag { key, value });
            }
        }
    }
    out
}
