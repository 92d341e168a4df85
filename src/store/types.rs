//! The types every backend shares: the summaries the lists filter on, the
//! worker's queue items, the indexed profile fields and the transaction
//! filter. They belong to the storage interface ([`super::storage`]), not
//! to one backend.

use serde::{Deserialize, Serialize};

use crate::model::Tag;

/// What `profile list` filters on, kept beside the id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ProfileSummary {
    pub id: String,
    pub customer_key: String,
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub tags: Vec<Tag>,
}

/// What `txn list` filters on.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

    /// The fields of [`ProfileSummary::of`]`(p)`, borrowed from the profile,
    /// in the summary's order: they hash as the summary does (a struct
    /// hashes its fields one after the other, a `String` as its `str`, a
    /// `Vec` as its slice), without copying them. `store check` hashes a
    /// million.
    pub fn fields_of(p: &crate::model::Profile) -> SummaryFields<'_> {
        let ind = &p.customer_profile_individual;
        (
            &p.customer_profile_id,
            &p.customer_key,
            &ind.first_name,
            &ind.last_name,
            &ind.email,
            &p.customer_profile_tags,
        )
    }
}

/// What [`ProfileSummary::fields_of`] borrows.
pub type SummaryFields<'a> = (&'a str, &'a str, &'a str, &'a str, &'a str, &'a [Tag]);

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

    /// Each of [`Field::values`] of the profile's summary, given to `f`
    /// without a copy of what normalizing leaves as it is (an ASCII value
    /// without capitals): `store check` reads a million profiles' values.
    pub fn each_value(self, p: &crate::model::Profile, mut f: impl FnMut(&str)) {
        fn lower(v: &str) -> std::borrow::Cow<'_, str> {
            if !v.is_ascii() {
                std::borrow::Cow::Owned(v.to_lowercase())
            } else if v.bytes().any(|b| b.is_ascii_uppercase()) {
                std::borrow::Cow::Owned(v.to_ascii_lowercase())
            } else {
                std::borrow::Cow::Borrowed(v)
            }
        }
        let ind = &p.customer_profile_individual;
        match self {
            Field::Email => f(&lower(&ind.email)),
            Field::FirstName => f(&lower(&ind.first_name)),
            Field::LastName => f(&lower(&ind.last_name)),
            Field::Tag => {
                for t in &p.customer_profile_tags {
                    f(&tag_value(&t.key, &t.value));
                }
            }
        }
    }
}

/// The indexed value of a tag.
pub fn tag_value(key: &str, value: &str) -> String {
    format!("{key}={value}")
}

/// A filter of `txn list`: every given part must match. The status, the
/// templates and the programs are exact filters that a backend answers
/// from its indexes; the customer is looked for in the summaries.
#[derive(Debug, Default, Clone)]
pub struct TxnQuery {
    pub status: Option<u32>,
    /// Template ids: one of them.
    pub templates: Option<Vec<String>>,
    /// Program ids: one of them.
    pub programs: Option<Vec<String>>,
    /// A customer named in the parameters.
    pub customer: Option<String>,
}

impl TxnQuery {
    /// Whether a backend answers it from its indexes alone: an exact
    /// filter is given, and no customer.
    pub fn is_indexed(&self) -> bool {
        self.customer.is_none()
            && (self.status.is_some() || self.templates.is_some() || self.programs.is_some())
    }

    /// Whether the transaction of summary `s` matches.
    pub fn matches(&self, s: &TxnSummary) -> bool {
        let one_of = |list: &Option<Vec<String>>, v: &str| {
            list.as_ref().is_none_or(|l| l.iter().any(|x| x == v))
        };
        self.status.is_none_or(|st| st == s.status_id)
            && one_of(&self.templates, &s.template_id)
            && one_of(&self.programs, &s.program_id)
            && self
                .customer
                .as_ref()
                .is_none_or(|c| s.customers.contains(c))
    }
}

/// Which records of a list a caller wants (a page): at most `size`, from
/// the one after the record `after` when it is given, else from position
/// `start` of the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Window {
    pub after: Option<String>,
    pub start: usize,
    pub size: usize,
}

impl Window {
    /// The `size` records from position `start`.
    pub fn at(start: usize, size: usize) -> Window {
        Window {
            after: None,
            start,
            size,
        }
    }

    /// Every record of the list.
    pub fn all() -> Window {
        Window::at(0, usize::MAX)
    }

    /// The positions `start..end` of this window in a list of `total`
    /// records, `position` finding the record `after`; `None` when `after`
    /// is not one of the list's. (Past the end: an empty range.)
    pub fn range(
        &self,
        total: usize,
        position: impl FnOnce(&str) -> crate::error::Result<Option<usize>>,
    ) -> crate::error::Result<Option<std::ops::Range<usize>>> {
        let start = match &self.after {
            Some(after) => match position(after)? {
                Some(i) => i + 1,
                None => return Ok(None),
            },
            None => self.start,
        };
        Ok(Some(
            start..start.saturating_add(self.size).min(total).max(start),
        ))
    }
}

/// A backend's answer to a [`Window`] of a list: how many records the list
/// has, where the window is in it (`None`: its `after` is not one of
/// them), and the ids in the window, in creation order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdPage {
    pub total: usize,
    pub range: Option<std::ops::Range<usize>>,
    pub ids: Vec<String>,
}

impl IdPage {
    /// The window `w` of a list of `total` ids kept in an index rather
    /// than in memory: `position` finds the record `after`, `ids(start,
    /// end)` reads that range (only when it is not empty).
    pub fn cut(
        total: usize,
        w: &Window,
        position: impl FnOnce(&str) -> crate::error::Result<Option<usize>>,
        ids: impl FnOnce(usize, usize) -> crate::error::Result<Vec<String>>,
    ) -> crate::error::Result<IdPage> {
        let range = w.range(total, position)?;
        let ids = match &range {
            Some(r) if r.start < r.end => ids(r.start, r.end)?,
            _ => Vec::new(),
        };
        Ok(IdPage { total, range, ids })
    }

    /// The window `w` of the list `all`, in memory.
    pub fn of(all: Vec<String>, w: &Window) -> IdPage {
        let range = w
            .range(all.len(), |after| Ok(all.iter().position(|id| id == after)))
            .unwrap_or_default();
        let total = all.len();
        let ids = match &range {
            Some(r) => all.into_iter().skip(r.start).take(r.len()).collect(),
            None => Vec::new(),
        };
        IdPage { total, range, ids }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash<T: std::hash::Hash + ?Sized>(v: &T) -> u64 {
        use std::hash::BuildHasher;
        std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default().hash_one(v)
    }

    /// The borrowed summary hashes as the summary, and each value is the
    /// one `values` makes: capitals, non-ASCII capitals (`Ä`, the Kelvin
    /// sign), none, and tags.
    #[test]
    fn the_borrowed_summary_and_values_are_the_summarys() {
        for (first, last, email, tags) in [
            ("Ada", "Lovelace", "ADA@Example.COM", vec![]),
            (
                "ÄDA",
                "\u{212A}elvin",
                "ada@example.com",
                vec![("k1", "v1")],
            ),
            (
                "ada",
                "lovelace",
                "a@b.co",
                vec![("seg", "Retail"), ("x", "y")],
            ),
        ] {
            let p: crate::model::Profile = serde_json::from_value(serde_json::json!({
                "customer_profile_id": "csp_a", "customer_type_id": 1, "customer_key": "k-1",
                "customer_profile_tags": tags.iter().map(|(k, v)| serde_json::json!({"key": k, "value": v})).collect::<Vec<_>>(),
                "customer_profile_individual": {"first_name": first, "middle_name": null,
                    "last_name": last, "email": email, "date_of_birth": "1990-01-01",
                    "ssn": null, "mobile_phone": "+15551234567", "home_phone": null, "office_phone": null},
                "created_by": "a", "created_datetime": "2026-11-27T00:00:00.000000",
                "modified_by": "a", "modified_datetime": "2026-11-27T00:00:00.000000"
            }))
            .unwrap();
            let s = ProfileSummary::of(&p);
            assert_eq!(hash(&ProfileSummary::fields_of(&p)), hash(&s));
            for field in Field::ALL {
                let mut each = Vec::new();
                field.each_value(&p, |v| each.push(v.to_string()));
                assert_eq!(each, field.values(&s), "{field:?}");
            }
        }
    }
}
