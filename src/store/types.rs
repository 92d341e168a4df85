//! The types every backend shares: the summaries the lists filter on, the
//! worker's queue items, the indexed profile fields and the transaction
//! filter. They belong to the storage interface ([`super::storage`]), not
//! to one backend.

use serde::{Deserialize, Serialize};

use crate::model::Tag;

/// What `profile list` filters on, kept beside the id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSummary {
    pub id: String,
    pub customer_key: String,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub tags: Vec<Tag>,
}

/// What `txn list` filters on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnSummary {
    pub id: String,
    pub template_id: String,
    pub program_id: String,
    pub status_id: u32,
    pub customers: Vec<String>,
}

impl ProfileSummary {
    /// The summary of a profile, as the log keeps it.
    pub fn of(p: &crate::model::Profile) -> Self {
        let ind = &p.customer_profile_individual;
        ProfileSummary {
            id: p.customer_profile_id.clone(),
            customer_key: p.customer_key.clone(),
            first_name: ind.first_name.clone(),
            last_name: ind.last_name.clone(),
            email: ind.email.clone(),
            tags: p.customer_profile_tags.clone(),
        }
    }
}

impl TxnSummary {
    /// The summary of a transaction, as the log keeps it: the customers are
    /// every `customer_profile_id` of its parameters, in order, once each.
    pub fn of(t: &crate::model::txn::TxnFile) -> Self {
        let mut customers: Vec<String> = Vec::new();
        for v in t
            .parameters
            .iter()
            .flat_map(|p| &p.transaction_parameter_values)
        {
            if let Some(c) = &v.customer_profile_id
                && !customers.contains(c)
            {
                customers.push(c.clone());
            }
        }
        let tr = &t.transaction;
        TxnSummary {
            id: tr.transaction_id.clone(),
            template_id: tr.transaction_template_id.clone(),
            program_id: tr.program_id.clone(),
            status_id: tr.transaction_status_id,
            customers,
        }
    }
}

/// An item of the worker's queue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueItem {
    Attach {
        seq: String,
        customer_id: String,
        program_id: String,
    },
    Txn {
        seq: String,
        transaction_id: String,
    },
}

/// A sortable sequence for a new queue item: creation time in nanoseconds.
pub fn new_seq() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{nanos:020}")
}

impl QueueItem {
    /// The item's name in `store check`'s findings: `att.<customer>.<program>`
    /// or `trn.<transaction>`, the same for every backend.
    pub fn key(&self) -> String {
        match self {
            QueueItem::Attach {
                customer_id,
                program_id,
                ..
            } => format!("att.{customer_id}.{program_id}"),
            QueueItem::Txn { transaction_id, .. } => format!("trn.{transaction_id}"),
        }
    }

    /// A new item for the pending work named `key` (as [`QueueItem::key`]
    /// names it); `None` for a name that is not one.
    pub fn from_key(key: &str) -> Option<Self> {
        match key.split('.').collect::<Vec<_>>().as_slice() {
            ["att", c, p] => Some(QueueItem::attach(c, p)),
            ["trn", t] => Some(QueueItem::txn(t)),
            _ => None,
        }
    }

    pub fn attach(customer_id: &str, program_id: &str) -> Self {
        QueueItem::Attach {
            seq: new_seq(),
            customer_id: customer_id.to_string(),
            program_id: program_id.to_string(),
        }
    }
    pub fn txn(transaction_id: &str) -> Self {
        QueueItem::Txn {
            seq: new_seq(),
            transaction_id: transaction_id.to_string(),
        }
    }
    pub fn file_name(&self) -> String {
        match self {
            QueueItem::Attach {
                seq,
                customer_id,
                program_id,
            } => format!("{seq}.att.{customer_id}.{program_id}"),
            QueueItem::Txn {
                seq,
                transaction_id,
            } => format!("{seq}.trn.{transaction_id}"),
        }
    }
    pub fn parse(name: &str) -> Option<Self> {
        let parts: Vec<&str> = name.split('.').collect();
        let valid = |p: &str, s: &str| crate::model::id::is_valid(p, s);
        match parts.as_slice() {
            [seq, "att", c, p] if valid("csp", c) && valid("prm", p) => Some(QueueItem::Attach {
                seq: seq.to_string(),
                customer_id: c.to_string(),
                program_id: p.to_string(),
            }),
            [seq, "trn", t] if valid("trn", t) => Some(QueueItem::Txn {
                seq: seq.to_string(),
                transaction_id: t.to_string(),
            }),
            _ => None,
        }
    }
}

/// A field with an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Email,
    FirstName,
    LastName,
    Tag,
}

impl Field {
    pub const ALL: [Field; 4] = [Field::Email, Field::FirstName, Field::LastName, Field::Tag];

    /// The directory of the field's buckets, store-relative.
    pub fn dir(self) -> &'static str {
        match self {
            Field::Email => "index/by-email",
            Field::FirstName => "index/by-first-name",
            Field::LastName => "index/by-last-name",
            Field::Tag => "index/by-tag",
        }
    }

    /// The indexed form of a value of this field.
    pub fn normal(self, value: &str) -> String {
        match self {
            Field::Tag => value.to_string(),
            _ => value.to_lowercase(),
        }
    }

    /// The indexed values of `p` for this field (normalized).
    pub fn values(self, p: &ProfileSummary) -> Vec<String> {
        match self {
            Field::Email => vec![self.normal(&p.email)],
            Field::FirstName => vec![self.normal(&p.first_name)],
            Field::LastName => vec![self.normal(&p.last_name)],
            Field::Tag => p.tags.iter().map(|t| tag_value(&t.key, &t.value)).collect(),
        }
    }
}

/// The indexed value of a tag.
pub fn tag_value(key: &str, value: &str) -> String {
    format!("{key}={value}")
}

/// An exact filter of `txn list`: every given part must match.
#[derive(Debug, Default, Clone)]
pub struct TxnQuery {
    pub status: Option<u32>,
    /// Template ids: one of them.
    pub templates: Option<Vec<String>>,
    /// Program ids: one of them.
    pub programs: Option<Vec<String>>,
}

/// What [`Store::txns_matching`] answers.
pub enum TxnMatches {
    /// The JSON directory: creation-order positions, sorted (the ids are
    /// read for one page only, see [`Store::txn_ids_at`]).
    Positions(Vec<usize>),
    /// A database: the ids in creation order.
    Ids(Vec<String>),
}
