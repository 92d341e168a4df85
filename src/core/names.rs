//! Names wherever ids are taken: a Program by `program_name`, an
//! Application by `application_name`, a Template by
//! `transaction_template_name`, a transaction status by its name
//! (`Failed`). An id always wins over a name; a text that is neither is
//! refused with 20001 naming what was looked for and the closest names.

use crate::error::{ApiError, Error, Result, code, shown_id};
use crate::model::catalog::Catalog;
use crate::model::status::txn;

/// The transaction statuses by id and name (CLI.md "Status values").
pub const TXN_STATUSES: [(u32, &str); 4] = [
    (txn::CREATED, "Created"),
    (txn::PROCESSING, "Processing"),
    (txn::COMPLETED, "Completed"),
    (txn::FAILED, "Failed"),
];

/// `what` `text` found in neither the ids nor the names of `known`:
/// 20001, with the closest names.
fn unknown(what: &str, text: &str, names: &[&str]) -> Error {
    let lower = text.to_lowercase();
    let lowered: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let refs: Vec<&str> = lowered.iter().map(String::as_str).collect();
    let close = super::body::suggest(&lower, &refs)
        .and_then(|l| lowered.iter().position(|x| x == l))
        .map(|i| names[i]);
    let hint = match close {
        Some(n) => format!("did you mean `{n}`?"),
        None if names.is_empty() => "there is none".to_string(),
        None => {
            let mut shown: Vec<&str> = names.iter().take(8).copied().collect();
            if names.len() > 8 {
                shown.push("…");
            }
            format!("known: {}", shown.join(", "))
        }
    };
    let mut e = ApiError::new(
        code::NOT_FOUND,
        format!(
            "{what} {} does not exist (no {what} has this id or name); {hint}",
            shown_id(text)
        ),
    );
    e.hint = Some(hint);
    Error::refused(vec![e])
}

/// A transaction status id from its number or its name (any case).
pub fn txn_status(text: &str) -> Result<u32> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u32>() {
        return Ok(n);
    }
    if let Some((id, _)) = TXN_STATUSES.iter().find(|(_, n)| n.eq_ignore_ascii_case(t)) {
        return Ok(*id);
    }
    let names: Vec<&str> = TXN_STATUSES.iter().map(|(_, n)| *n).collect();
    Err(unknown("transaction status", text, &names))
}

/// The id of the program `text` names (its id or its name).
pub fn program_id(catalog: &Catalog, text: &str) -> Result<String> {
    let ps = &catalog.programs;
    if let Some(p) = ps.iter().find(|p| p.program_id == text) {
        return Ok(p.program_id.clone());
    }
    if let Some(p) = ps.iter().find(|p| p.program_name == text) {
        return Ok(p.program_id.clone());
    }
    let names: Vec<&str> = ps.iter().map(|p| p.program_name.as_str()).collect();
    Err(unknown("program", text, &names))
}

/// The id of the application `text` names, in any program.
pub fn application_id(catalog: &Catalog, text: &str) -> Result<String> {
    let apps = || catalog.programs.iter().flat_map(|p| &p.applications);
    if let Some(a) = apps().find(|a| a.application_id == text) {
        return Ok(a.application_id.clone());
    }
    if let Some(a) = apps().find(|a| a.application_name == text) {
        return Ok(a.application_id.clone());
    }
    let names: Vec<&str> = apps().map(|a| a.application_name.as_str()).collect();
    Err(unknown("application", text, &names))
}

/// The id of the transaction template `text` names, in any application.
pub fn template_id(catalog: &Catalog, text: &str) -> Result<String> {
    let ts = || {
        catalog
            .programs
            .iter()
            .flat_map(|p| &p.applications)
            .flat_map(|a| &a.transaction_templates)
    };
    if let Some(t) = ts().find(|t| t.transaction_template_id == text) {
        return Ok(t.transaction_template_id.clone());
    }
    if let Some(t) = ts().find(|t| t.transaction_template_name == text) {
        return Ok(t.transaction_template_id.clone());
    }
    let mut names: Vec<&str> = ts().map(|t| t.transaction_template_name.as_str()).collect();
    names.dedup();
    Err(unknown("transaction template", text, &names))
}

/// A body's `program_id` given as a program's name, replaced by its id (a
/// text that names no program is left for the create's own rules).
pub fn program_in_body(catalog: &Catalog, body: &mut serde_json::Value) {
    if let Some(v) = body.get_mut("program_id")
        && let Some(text) = v.as_str()
        && !catalog.programs.iter().any(|p| p.program_id == text)
        && let Some(p) = catalog.programs.iter().find(|p| p.program_name == text)
    {
        *v = serde_json::Value::String(p.program_id.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_by_number_or_name() {
        assert_eq!(txn_status("70").unwrap(), 70);
        assert_eq!(txn_status("Failed").unwrap(), 70);
        assert_eq!(txn_status("completed").unwrap(), 60);
        let e = txn_status("Fialed").unwrap_err();
        assert!(e.has_code(code::NOT_FOUND));
        assert!(e.errors[0].message.contains("did you mean `Failed`"), "{e}");
    }

    #[test]
    fn names_and_ids_of_the_builtin_catalog() {
        let c = crate::catalog::builtin("SYSTEM", "2026-01-01T00:00:00.000000");
        let p = &c.programs[0];
        assert_eq!(program_id(&c, "default_program").unwrap(), p.program_id);
        assert_eq!(program_id(&c, &p.program_id).unwrap(), p.program_id);
        let e = program_id(&c, "default_progam").unwrap_err();
        assert!(
            e.errors[0]
                .message
                .contains("did you mean `default_program`"),
            "{e}"
        );
        let a = &p.applications[0];
        assert_eq!(application_id(&c, "payments").unwrap(), a.application_id);
        let t = &a.transaction_templates[0];
        assert_eq!(
            template_id(&c, &t.transaction_template_name).unwrap(),
            t.transaction_template_id
        );
        assert!(template_id(&c, "nope").is_err());
    }
}
