//! What `store check` reports, whichever the backend: the findings, and
//! the spec's invariants over the records as findings naming the records'
//! files (the JSON directory's names, the same for every backend).

use serde::Serialize;

use super::json::JsonStore as Store;
use crate::model::Customer;
use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The file concerned, relative to the store.
    pub path: String,
    pub problem: String,
    /// Whether `--repair` fixes it (derived data, temp files).
    pub repairable: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub customers: usize,
    pub transactions: usize,
    pub findings: Vec<Finding>,
    /// What `--repair` did.
    pub repaired: Vec<String>,
    /// The highest event sequence the records name, and a record file
    /// that names it (the JSON directory's witness of the log's end: see
    /// `json::events`).
    #[serde(skip)]
    pub events_named: Option<(u64, String)>,
}

/// The spec's invariants over the records themselves (see
/// [`crate::model::invariants`]), as findings naming the records' files.
pub(crate) fn invariants(
    customers: &[Customer],
    txns: &[TxnFile],
    catalog: Option<&Catalog>,
    f: &mut Vec<Finding>,
) {
    f.extend(
        crate::model::invariants::all(customers, txns, catalog)
            .into_iter()
            .map(finding_of),
    );
}

/// A broken invariant as a finding on its record's file.
pub(crate) fn finding_of(v: crate::model::invariants::Violation) -> Finding {
    use crate::model::invariants::Subject;
    Finding {
        path: match &v.subject {
            Subject::Customer(id) => Store::customer_rel(id),
            Subject::Txn(id) => Store::txn_rel(id),
        },
        problem: v.problem,
        repairable: false,
    }
}
