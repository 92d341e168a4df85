//! The transaction reads: one transaction, its parameters, its steps, and
//! `txn list` with its filters.

use std::collections::BTreeSet;

use super::load;
use crate::catalog::dictionaries as dict;
use crate::core::paging::{Page, PageRequest, from_ids, paginate, window};
use crate::error::{Errors, Result};
use crate::model::txn::{Parameter, Step, Transaction};
use crate::store::{Store, TxnQuery};

/// GET /transactions/{id}.
pub fn get(store: &Store, tid: &str) -> Result<Transaction> {
    Ok(load(store, tid)?.transaction)
}

/// GET /transactions/{id}/parameters: one record per parameter name.
pub fn parameters_of(store: &Store, tid: &str, req: &PageRequest) -> Result<Page<Parameter>> {
    let keyed: Vec<(String, Parameter)> = load(store, tid)?
        .parameters
        .into_iter()
        .map(|p| (p.transaction_parameter_id.to_string(), p))
        .collect();
    Ok(paginate(keyed, |(k, _)| k, req)?.map(|(_, p)| p))
}

/// GET /transactions/{id}/transaction-steps: in sequence order; empty until
/// the worker has generated them.
pub fn steps(store: &Store, tid: &str, req: &PageRequest) -> Result<Page<Step>> {
    let mut steps = load(store, tid)?.steps;
    steps.sort_by_key(|s| s.sequence);
    paginate(steps, |s| &s.transaction_step_id, req)
}

/// Filters of `txn list`; every given filter must match.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// A transaction status id (10, 20, 60, 70).
    pub status: Option<u32>,
    /// A template id or name (a name matches templates of that name in every application).
    pub template: Option<String>,
    /// A program id or name.
    pub program: Option<String>,
    /// A customer_profile_id named in the parameters.
    pub customer: Option<String>,
}

/// `txn list`: transactions in creation order. The exact filters on the
/// status, the template and the program answer from the store's
/// transaction indexes (the matches' positions, and one page of records
/// read); the customer filter, or no filter, reads the summary log.
pub fn list(store: &Store, filter: &Filter, req: &PageRequest) -> Result<Page<Transaction>> {
    let catalog = store.catalog()?;
    let mut errs = Errors::new();
    if let Some(s) = filter.status
        && !dict::contains(dict::TRANSACTION_STATUSES, s)
    {
        errs.invalid_hinted(
            "status",
            "is not a transaction status",
            "see `payctl dict list transaction-statuses`",
        );
    }
    let templates: Option<BTreeSet<&str>> = filter.template.as_ref().map(|t| {
        catalog
            .programs
            .iter()
            .flat_map(|p| &p.applications)
            .flat_map(|a| &a.transaction_templates)
            .filter(|x| x.transaction_template_id == *t || x.transaction_template_name == *t)
            .map(|x| x.transaction_template_id.as_str())
            .collect()
    });
    if templates.as_ref().is_some_and(|t| t.is_empty()) {
        errs.invalid(
            "template",
            "is not the id or name of a transaction template",
        );
    }
    let programs: Option<BTreeSet<&str>> = filter.program.as_ref().map(|p| {
        catalog
            .programs
            .iter()
            .filter(|x| x.program_id == *p || x.program_name == *p)
            .map(|x| x.program_id.as_str())
            .collect()
    });
    if programs.as_ref().is_some_and(|p| p.is_empty()) {
        errs.invalid("program", "is not the id or name of a program");
    }
    errs.finish()?;
    let owned = |s: &Option<BTreeSet<&str>>| {
        s.as_ref()
            .map(|s| s.iter().map(|x| x.to_string()).collect::<Vec<_>>())
    };
    let q = TxnQuery {
        status: filter.status,
        templates: owned(&templates),
        programs: owned(&programs),
        customer: filter.customer.clone(),
    };
    let got = store.txn_page(&q, &window(req)?)?;
    from_ids(req, got)?.try_map(|id| get(store, &id))
}
