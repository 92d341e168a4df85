//! The spec's invariants over the aggregates, written once: one default
//! address per profile, one default instrument per instrument type, a
//! customer_key held by one profile, one profile-program record per program
//! in a profile, a transaction's steps generated once (and the ids and
//! catalog references these rest on).
//!
//! Pure functions over aggregates returning what is broken ([`Violation`]).
//! `core`'s rules keep them (an address made default clears the others, a
//! second attach is refused, …) and every write transaction is checked
//! against them before its commit ([`crate::store::Tx::commit`] refuses one
//! that would break them: a bug, never a user's error); every backend's
//! `store check` reports through them, naming its own files or rows.

use std::collections::{BTreeSet, HashMap};
use std::hash::Hash;

use crate::model::catalog::Catalog;
use crate::model::txn::TxnFile;
use crate::model::{Customer, id};

/// The aggregate an invariant is broken in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// A customer, by id.
    Customer(String),
    /// A transaction, by id.
    Txn(String),
}

/// One broken invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub subject: Subject,
    /// What is wrong, for people (`store check` shows it).
    pub problem: String,
}

/// The invariants within one customer: one default address, one default
/// instrument per type, one record per program (and, with the catalog,
/// only programs it knows), ids used once, a well-formed id.
pub fn customer(c: &Customer, catalog: Option<&Catalog>) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut bad = |problem: String| {
        out.push(Violation {
            subject: Subject::Customer(c.id().to_string()),
            problem,
        })
    };
    if c.addresses.iter().filter(|a| a.is_default).count() > 1 {
        bad("more than one default address".into());
    }
    for t in [1, 2] {
        if c.instruments
            .iter()
            .filter(|i| i.is_default && i.payment_instrument_type_id == t)
            .count()
            > 1
        {
            bad(format!("more than one default instrument of type {t}"));
        }
    }
    let mut programs = BTreeSet::new();
    for a in &c.attachments {
        if !programs.insert(&a.program_id) {
            bad(format!("attached twice to {}", a.program_id));
        }
        if catalog.is_some_and(|cat| cat.program(&a.program_id).is_none()) {
            bad(format!("attached to unknown program {}", a.program_id));
        }
    }
    let ids: Vec<&str> = c
        .addresses
        .iter()
        .map(|a| a.address_id.as_str())
        .chain(
            c.instruments
                .iter()
                .map(|i| i.payment_instrument_id.as_str()),
        )
        .collect();
    if ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
        bad("an address or instrument id is used twice".into());
    }
    if !id::is_valid(id::CUSTOMER, c.id()) {
        bad("malformed customer id".into());
    }
    out
}

/// The invariants within one transaction: its steps generated once (each
/// sequence number once) and, with the catalog, a template it knows.
pub fn txn(t: &TxnFile, catalog: Option<&Catalog>) -> Vec<Violation> {
    let subject = || Subject::Txn(t.transaction.transaction_id.clone());
    let mut out = Vec::new();
    let mut seqs = BTreeSet::new();
    for s in &t.steps {
        if !seqs.insert(s.sequence) {
            out.push(Violation {
                subject: subject(),
                problem: format!(
                    "step sequence {} appears twice (steps generated twice)",
                    s.sequence
                ),
            });
        }
    }
    if catalog.is_some_and(|cat| {
        cat.template(&t.transaction.transaction_template_id)
            .is_none()
    }) {
        out.push(Violation {
            subject: subject(),
            problem: "refers to an unknown transaction template".into(),
        });
    }
    out
}

/// The customer `id` holds the customer_key that `other` holds too.
pub fn key_held_twice(id: &str, other: &str) -> Violation {
    Violation {
        subject: Subject::Customer(id.to_string()),
        problem: format!("customer_key is also held by {other}"),
    }
}

/// A customer_key held once: `holders` are `(key, customer id)`, in the
/// order the backend lists them; each holder of a key already held is a
/// violation naming the first. The key may be anything that stands for it
/// (the JSON directory's check keeps only a hash of each).
pub fn keys_held_once<'a, K: Hash + Eq>(
    holders: impl IntoIterator<Item = (K, &'a str)>,
) -> Vec<Violation> {
    let mut first: HashMap<K, &str> = HashMap::new();
    let mut out = Vec::new();
    for (key, id) in holders {
        if let Some(other) = first.insert(key, id) {
            out.push(key_held_twice(id, other));
        }
    }
    out
}

/// Every invariant over a set of aggregates (the records of a store, or
/// those a write transaction puts).
/// Each customer's are listed together, a key held twice first.
pub fn all(customers: &[Customer], txns: &[TxnFile], catalog: Option<&Catalog>) -> Vec<Violation> {
    let mut twice: HashMap<String, Vec<Violation>> = HashMap::new();
    for v in keys_held_once(
        customers
            .iter()
            .map(|c| (c.profile.customer_key.as_str(), c.id())),
    ) {
        if let Subject::Customer(id) = &v.subject {
            twice.entry(id.clone()).or_default().push(v);
        }
    }
    let mut out = Vec::new();
    for c in customers {
        out.extend(twice.remove(c.id()).unwrap_or_default());
        out.extend(customer(c, catalog));
    }
    for t in txns {
        out.extend(txn(t, catalog));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_held_twice_names_the_first_holder() {
        let v = keys_held_once([("k1", "csp_a"), ("k2", "csp_b"), ("k1", "csp_c")]);
        assert_eq!(
            v,
            vec![Violation {
                subject: Subject::Customer("csp_c".into()),
                problem: "customer_key is also held by csp_a".into(),
            }]
        );
        assert!(keys_held_once([("k1", "csp_a"), ("k2", "csp_b")]).is_empty());
    }
}
