//! `transaction_parameters` of a create body: names checked against the
//! resolved template, each value through [`super::value`], and the
//! parameters every mandatory step needs.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use super::PARAMETER_FIELDS;
use super::kind;
use super::resolve::Resolved;
use super::value::{Customers, value};
use crate::core::body::{Obj, as_object};
use crate::core::rules::{self, caps};
use crate::error::{Errors, Result, code};
use crate::model::txn::ParamValue;

/// One parameter as read from the body.
pub(super) struct ParamIn {
    pub(super) name: String,
    pub(super) values: Vec<ParamValue>,
}

/// Read `transaction_parameters`; `None` when it is absent or not an array.
pub(super) fn parameters(
    errs: &mut Errors,
    o: &Obj,
    r: &Resolved,
    customers: &mut Customers,
) -> Result<Option<Vec<ParamIn>>> {
    let Some(arr) = o.array("transaction_parameters", errs) else {
        if !o.has("transaction_parameters") {
            errs.required("transaction_parameters");
        }
        return Ok(None);
    };
    if !rules::at_most(
        errs,
        "transaction_parameters",
        arr.len(),
        caps::PARAMETERS,
        "parameters",
    ) {
        return Ok(None);
    }
    let mapped: BTreeSet<&str> = r
        .template
        .map(|t| {
            t.steps
                .iter()
                .flat_map(|s| s.parameter_mapping.names())
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut first_at: HashMap<String, usize> = HashMap::new();
    for (i, pv) in arr.iter().enumerate() {
        let path = format!("transaction_parameters[{i}]");
        let Some(p) = as_object(pv, &path, errs) else {
            continue;
        };
        p.known(PARAMETER_FIELDS, errs);
        let name = p.string("transaction_parameter_name", errs);
        let name_path = p.at("transaction_parameter_name");
        match name {
            Some(n) => {
                if let Some(t) = r.template
                    && !mapped.contains(n)
                {
                    let names: Vec<&str> = mapped.iter().copied().collect();
                    errs.invalid(
                        &name_path,
                        format!(
                            "is not a parameter of the template {} (its parameters: {})",
                            t.transaction_template_name,
                            names.join(", ")
                        ),
                    );
                } else if r.template.is_none() && kind(n).is_none() {
                    errs.invalid(
                        &name_path,
                        format!(
                            "is not a parameter name ({})",
                            crate::catalog::PARAMETER_NAMES.join(", ")
                        ),
                    );
                }
                if let Some(first) = first_at.get(n) {
                    errs.invalid(
                        &name_path,
                        format!("is given twice (first in transaction_parameters[{first}]); put every value in one parameter"),
                    );
                } else {
                    first_at.insert(n.to_string(), i);
                }
            }
            None => {
                if !p.has("transaction_parameter_name") {
                    errs.required(&name_path);
                }
            }
        }
        let k = name.and_then(kind);
        let vals_path = p.at("transaction_parameter_values");
        let mut values = Vec::new();
        match p.array("transaction_parameter_values", errs) {
            Some(vals) if vals.is_empty() => {
                errs.push(code::REQUIRED, &vals_path, "must hold at least one value");
            }
            Some(vals) if vals.len() > caps::VALUES => {
                rules::at_most(errs, &vals_path, vals.len(), caps::VALUES, "values");
            }
            Some(vals) => {
                for (j, vv) in vals.iter().enumerate() {
                    let vpath = format!("{vals_path}[{j}]");
                    if let Some(v) = as_object(vv, &vpath, errs)
                        && let Some(pv) = value(
                            errs,
                            &v,
                            name.unwrap_or("this parameter's"),
                            k,
                            r.program,
                            customers,
                        )?
                    {
                        values.push(pv);
                    }
                }
            }
            None => {
                if !p.has("transaction_parameter_values") {
                    errs.required(&vals_path);
                }
            }
        }
        if let Some(n) = name {
            out.push(ParamIn {
                name: n.to_string(),
                values,
            });
        }
    }
    // Every step that is not optional needs its parameters.
    if let Some(t) = r.template {
        let given: BTreeSet<&str> = arr
            .iter()
            .filter_map(|p| p.get("transaction_parameter_name").and_then(Value::as_str))
            .collect();
        let mut reported = BTreeSet::new();
        for s in t.steps.iter().filter(|s| !s.is_optional) {
            for n in s.parameter_mapping.names() {
                if !given.contains(n) && reported.insert(n) {
                    errs.push(
                        code::REQUIRED,
                        "transaction_parameters",
                        format!(
                            "must include the parameter {n} (step {} of the template {} needs it)",
                            s.sequence, t.transaction_template_name
                        ),
                    );
                }
            }
        }
    }
    Ok(Some(out))
}
