//! What a client team's test suite sets up on a store (issue 37): outcome
//! rules for the background work (`payctl sim rule`, `/_payctl/rules`) and
//! snapshots of the store's records (`payctl store snapshot`,
//! `/_payctl/snapshots`). Stored by every backend, answered as they
//! serialize, documented by their `JsonSchema`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The work a rule applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RuleOn {
    /// A Pending profile-program record (an attach request).
    Attach,
    /// A Pending step of a transaction.
    Step,
}

impl RuleOn {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleOn::Attach => "attach",
            RuleOn::Step => "step",
        }
    }
}

/// What the worker makes of an item a rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// An attachment becomes Rejected (20) with the rule's reason.
    Rejected,
    /// A step becomes Failed (70) with the rule's reason; the later steps
    /// are Cancelled and the transaction Failed, as for any failed step.
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Rejected => "rejected",
            Outcome::Failed => "failed",
        }
    }
}

/// An outcome rule (`rul_…`): the first rule whose `on` and `when` match an
/// item decides what the worker does with it; without a matching rule the
/// worker does what it always does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Rule")]
pub struct Rule {
    /// The rule's id: `rul_` and letters and digits.
    pub rule_id: String,
    /// `attach` or `step`.
    pub on: RuleOn,
    /// `FIELD=VALUE` (equal) or `FIELD~REGEX` (the regular expression finds
    /// a match in the value); null: every item of its kind. Attach: on the
    /// profile (`customer_key`, a `customer_profile_individual` field,
    /// `tag:KEY`). Step: on a value of the step's parameters (`amount`,
    /// `customer_profile_id`, any field of a parameter value) or
    /// `transfer_type_id`.
    pub when: Option<String>,
    /// `rejected` (attach) or `failed` (step); null: the usual outcome.
    pub outcome: Option<Outcome>,
    /// The status reason the outcome writes.
    pub reason: Option<String>,
    /// Seconds the item waits before the worker takes it (an attachment
    /// from its request, a step from when it became the next to run).
    pub after: Option<u64>,
    /// The item is taken only once it has been read this many times (`GET`
    /// of the profile-program record; of the transaction or its steps for
    /// the step next to run).
    pub after_polls: Option<u64>,
    /// Who added it.
    pub created_by: String,
    /// When: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub created_datetime: String,
}

/// A snapshot of the store's records, as `snapshot list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Snapshot")]
pub struct Snapshot {
    /// 1-64 of `A-Z a-z 0-9 _ . -`, starting with a letter or a digit.
    pub snapshot_name: String,
    /// The backend and its format (`json 11`, `postgresql 7`): a snapshot
    /// is restored only into a store of the same one.
    pub store_version: String,
    /// Customer profiles it holds.
    pub customer_profiles: u64,
    /// Transactions it holds.
    pub transactions: u64,
    /// Who saved it.
    pub created_by: String,
    /// When: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub created_datetime: String,
}

/// What `store reset` removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Reset")]
pub struct Reset {
    /// Customer profiles removed (with their addresses, instruments and
    /// profile-program records).
    pub customer_profiles: u64,
    /// Transactions removed (with their parameters and steps).
    pub transactions: u64,
}
