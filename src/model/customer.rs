//! The customer aggregate: a profile with its addresses, payment instruments
//! and program attachments, stored together in one file so that their rules
//! (one default address, one default instrument per type, one attachment per
//! program) are checked and applied in one atomic write.

//!
//! The same types are the records of the API: `payctl serve` answers them
//! as they serialize (sensitive values masked, see `output::mask`), and the
//! OpenAPI document derives their schemas from them (`JsonSchema`, with the
//! field rules of the core added by `api::records`), so that a field added
//! here is documented without another edit.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::limits::MASKED_PATTERN;

/// A tag of a record: a key and its value. A profile's or an instrument's
/// tags are 3-50 of digits, letters and `! @ . - _ #`; a transaction's 1-50
/// characters of any kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "StoredTag")]
pub struct Tag {
    /// What the tag says (unique among a record's tags).
    #[schemars(length(min = 1, max = crate::model::limits::TAG_MAX))]
    pub key: String,
    /// Its value.
    #[schemars(length(min = 1, max = crate::model::limits::TAG_MAX))]
    pub value: String,
}

/// Audit fields with the common spelling (`created_datetime`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Audit {
    /// Who created the record: the request's actor (`X-Payctl-Actor`, else
    /// the server's `--actor`), `SYSTEM` for the worker.
    pub created_by: String,
    /// When it was created: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub created_datetime: String,
    /// Who changed it last (the creator until a change).
    pub modified_by: String,
    /// When it was changed last: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub modified_datetime: String,
}

impl Audit {
    pub fn new(actor: &str, now: &str) -> Self {
        Audit {
            created_by: actor.to_string(),
            created_datetime: now.to_string(),
            modified_by: actor.to_string(),
            modified_datetime: now.to_string(),
        }
    }
    pub fn touch(&mut self, actor: &str, now: &str) {
        self.modified_by = actor.to_string();
        self.modified_datetime = now.to_string();
    }
}

/// The person of a customer profile (spec 2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "StoredIndividual")]
pub struct Individual {
    /// The person's first name.
    pub first_name: String,
    /// Null or empty when none was given.
    pub middle_name: Option<String>,
    /// The person's last name.
    pub last_name: String,
    /// The person's e-mail address.
    pub email: String,
    /// As it was sent: MM/DD/YYYY or YYYY-MM-DD.
    pub date_of_birth: String,
    /// Stored whole; every answer shows only its last 4 digits.
    #[schemars(regex(pattern = MASKED_PATTERN))]
    pub ssn: Option<String>,
    /// E.164: `+`, then up to 15 digits.
    pub mobile_phone: String,
    /// E.164; null or empty when none was given.
    pub home_phone: Option<String>,
    /// E.164; null or empty when none was given.
    pub office_phone: Option<String>,
}

/// A customer profile (spec 2.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Profile {
    /// The profile's id: `csp_` and letters and digits.
    pub customer_profile_id: String,
    /// A customer type (`GET /dictionaries/customer-types`).
    pub customer_type_id: u32,
    /// The Facilitator's own key of the customer, unique in the store.
    pub customer_key: String,
    /// The Facilitator's tags of the profile.
    pub customer_profile_tags: Vec<Tag>,
    /// The person the profile is of.
    pub customer_profile_individual: Individual,
    #[serde(flatten)]
    pub audit: Audit,
}

/// An address of a customer profile (spec 2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Address {
    /// The address's id: `cpa_` and letters and digits.
    pub address_id: String,
    /// The profile it belongs to.
    pub customer_profile_id: String,
    /// An address type (`GET /dictionaries/address-types`).
    pub address_type_id: u32,
    /// The profile's default address; a profile has at most one.
    pub is_default: bool,
    /// A country (`GET /dictionaries/countries`): only the United States.
    pub country_id: u32,
    /// A state of the country (`GET /dictionaries/countries/1/states`).
    pub state_id: u32,
    /// The first name of the addressee.
    pub first_name: String,
    /// The last name of the addressee.
    pub last_name: String,
    /// The street address.
    pub address_line1: String,
    /// Null when none was given; kept as sent (an empty string stays one).
    pub address_line2: Option<String>,
    /// The city.
    pub city: String,
    /// A US ZIP code: 5 digits, or ZIP+4.
    pub zip: String,
    #[serde(flatten)]
    pub audit: Audit,
}

/// The bank account of a payment instrument (spec 2.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "StoredAch")]
pub struct Ach {
    /// Stored whole (the worker needs it); every answer shows only its last
    /// 4 digits.
    #[schemars(regex(pattern = MASKED_PATTERN))]
    pub account_number: String,
    /// Stored whole; every answer shows only its last 4 digits.
    #[schemars(regex(pattern = MASKED_PATTERN))]
    pub routing_number: String,
    /// An ACH account type (`GET /dictionaries/payment-instrument-ach-types`).
    pub payment_instrument_ach_type_id: u32,
}

/// A payment instrument: a bank account used through ACH (spec 2.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Instrument {
    /// The instrument's id: `pin_` and letters and digits.
    pub payment_instrument_id: String,
    /// The profile it belongs to.
    pub customer_profile_id: String,
    /// The program it is used in (the profile is attached to it).
    pub program_id: String,
    /// The Facilitator's tags of the instrument (at least one).
    pub payment_instrument_tags: Vec<Tag>,
    /// A payment instrument status (`GET /dictionaries/payment-instrument-statuses`).
    pub payment_instrument_status_id: u32,
    /// A payment instrument type (`GET /dictionaries/payment-instrument-types`).
    pub payment_instrument_type_id: u32,
    /// A payment method (`GET /dictionaries/payment-methods`): ACH only.
    pub payment_method_id: u32,
    /// The profile's default instrument of its type; at most one per type.
    pub is_default: bool,
    /// Whether it is locked (never set through the API yet).
    pub is_locked: bool,
    /// The instrument's name, as people read it.
    pub payment_instrument_label: String,
    /// Why it was added or last changed.
    pub payment_instrument_change_reason: String,
    /// The bank account.
    pub payment_instrument_ach: Ach,
    #[serde(flatten)]
    pub audit: Audit,
}

/// A customer profile in a program (spec 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attachment {
    /// The profile attached.
    pub customer_profile_id: String,
    /// The program it is attached to.
    pub program_id: String,
    /// Pending (1) until the worker makes it Attached (10) or Rejected (20)
    /// (`GET /dictionaries/customer-profile-program-statuses`).
    pub customer_profile_program_status_id: u32,
    /// The reason sent with the attach request; the worker's reason once it
    /// rejects it.
    pub customer_profile_program_status_reason: String,
    /// Whether it is locked (never set through the API yet).
    pub is_locked: bool,
    #[serde(flatten)]
    pub audit: Audit,
}

/// One customer file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Customer {
    pub profile: Profile,
    #[serde(default)]
    pub addresses: Vec<Address>,
    #[serde(default)]
    pub instruments: Vec<Instrument>,
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    /// The sequence of the last event a commit recorded with this file (0:
    /// none, or a backend that keeps no such witness): the JSON directory's
    /// evidence of events cut from the log's end (see
    /// `store::json::events`). Never shown.
    #[serde(default, skip_serializing_if = "super::is_zero")]
    pub last_event: u64,
}

impl Customer {
    pub fn id(&self) -> &str {
        &self.profile.customer_profile_id
    }
    pub fn attachment(&self, program_id: &str) -> Option<&Attachment> {
        self.attachments.iter().find(|a| a.program_id == program_id)
    }
    pub fn is_attached(&self, program_id: &str) -> bool {
        self.attachment(program_id).is_some_and(|a| {
            a.customer_profile_program_status_id == crate::model::status::attachment::ATTACHED
        })
    }
}
