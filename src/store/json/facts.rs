//! What the upgrade of a store of an earlier format rebuilds the derived
//! indexes from: the few fields of each customer record that an index
//! holds. A record read whole is kilobytes (addresses, instruments); a
//! million of them held at once was gigabytes, so the upgrade reads the
//! records one at a time and keeps only these. (`store check --repair`
//! rebuilds in pieces instead, see rebuild.rs.)

use super::index::ProfileSummary;
use crate::model::Customer;
use crate::model::status::txn as txn_status;
use crate::model::txn::TxnFile;

/// A customer record as the indexes see it.
pub struct CustomerFacts {
    pub created: String,
    pub summary: ProfileSummary,
    pub attachments: Vec<AttachmentFacts>,
}

/// One profile-program record as the attachment index sees it.
pub struct AttachmentFacts {
    pub created: String,
    pub program_id: String,
}

impl CustomerFacts {
    pub fn of(c: &Customer) -> Self {
        CustomerFacts {
            created: c.profile.audit.created_datetime.clone(),
            summary: ProfileSummary::of(&c.profile),
            attachments: c
                .attachments
                .iter()
                .map(|a| AttachmentFacts {
                    created: a.audit.created_datetime.clone(),
                    program_id: a.program_id.clone(),
                })
                .collect(),
        }
    }

    pub fn id(&self) -> &str {
        &self.summary.id
    }

    /// Its profile-program records as [`super::attachments::rebuild`] takes
    /// them: `(created, program id, customer id)`.
    pub fn attachment_rows(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.attachments
            .iter()
            .map(|a| (a.created.as_str(), a.program_id.as_str(), self.id()))
    }
}

/// Whether the worker has yet to process `t` (created or processing): it
/// belongs in the queue.
pub fn is_open(t: &TxnFile) -> bool {
    matches!(
        t.transaction.transaction_status_id,
        txn_status::CREATED | txn_status::PROCESSING
    )
}
