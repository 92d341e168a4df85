//! A record's values as a table shows them: text for a JSON value, a
//! dictionary id with its name ("60 Completed"), a record flattened to
//! field/value rows.

use serde_json::Value;

use crate::catalog::dictionaries as dict;

pub(super) fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a)
            if a.iter()
                .all(|x| x.get("key").is_some() && x.get("value").is_some()) =>
        {
            a.iter()
                .map(|t| {
                    format!(
                        "{}={}",
                        t["key"].as_str().unwrap_or(""),
                        t["value"].as_str().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        other => other.to_string(),
    }
}

/// The dictionary a field's value comes from, by field name.
pub(super) fn dictionary_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "customer_type_id" => "customer-types",
        "address_type_id" => "address-types",
        "country_id" => "countries",
        "state_id" => "states",
        "payment_instrument_type_id" => "payment-instrument-types",
        "payment_method_id" => "payment-methods",
        "payment_instrument_ach_type_id" => "payment-instrument-ach-types",
        "payment_instrument_status_id" => "payment-instrument-statuses",
        "customer_profile_program_status_id" => "customer-profile-program-statuses",
        "transaction_status_id" => "transaction-statuses",
        "transaction_step_status_id" => "transaction-step-statuses",
        "transfer_type_id" => "transfer-types",
        "destination_id" => "destinations",
        "account_code_id" => "account-codes",
        "cardinality_id" => "cardinality",
        "parameter_type_id" => "parameter-types",
        _ => return None,
    })
}

/// `60 Completed` for a dictionary id (the id alone if it has no name).
pub(super) fn named(dictionary: &str, v: &Value) -> String {
    match v.as_u64().and_then(|id| u32::try_from(id).ok()) {
        Some(id) => match dict::display_name(dictionary, id) {
            Some(name) => format!("{id} {name}"),
            None => id.to_string(),
        },
        None => text(v),
    }
}

pub(super) fn flatten(prefix: &str, v: &Value, rows: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                if val.is_object() {
                    flatten(&path, val, rows);
                } else if let Some(d) = dictionary_of(k) {
                    rows.push((path, named(d, val)));
                } else {
                    rows.push((path, text(val)));
                }
            }
        }
        other => rows.push((prefix.to_string(), text(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_ids_stay_numbers() {
        assert_eq!(named("transaction-statuses", &json!(99)), "99");
        assert_eq!(named("transaction-statuses", &json!(70)), "70 Failed");
    }
}
