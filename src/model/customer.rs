//! The customer aggregate: a profile with its addresses, payment instruments
//! and program attachments, stored together in one file so that their rules
//! (one default address, one default instrument per type, one attachment per
//! program) are checked and applied in one atomic write.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tag {
    pub key: String,
    pub value: String,
}

/// Audit fields with the common spelling (`created_datetime`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    pub created_by: String,
    pub created_datetime: String,
    pub modified_by: String,
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Individual {
    pub first_name: String,
    pub middle_name: Option<String>,
    pub last_name: String,
    pub email: String,
    pub date_of_birth: String,
    /// Stored whole; every output shows only its last 4 digits.
    pub ssn: Option<String>,
    pub mobile_phone: String,
    pub home_phone: Option<String>,
    pub office_phone: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub customer_profile_id: String,
    pub customer_type_id: u32,
    pub customer_key: String,
    pub customer_profile_tags: Vec<Tag>,
    pub customer_profile_individual: Individual,
    #[serde(flatten)]
    pub audit: Audit,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Address {
    pub address_id: String,
    pub customer_profile_id: String,
    pub address_type_id: u32,
    pub is_default: bool,
    pub country_id: u32,
    pub state_id: u32,
    pub first_name: String,
    pub last_name: String,
    pub address_line1: String,
    pub address_line2: Option<String>,
    pub city: String,
    pub zip: String,
    #[serde(flatten)]
    pub audit: Audit,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ach {
    /// Stored whole (the worker needs it); shown as its last 4 digits.
    pub account_number: String,
    /// Stored whole; shown as its last 4 digits.
    pub routing_number: String,
    pub payment_instrument_ach_type_id: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instrument {
    pub payment_instrument_id: String,
    pub customer_profile_id: String,
    pub program_id: String,
    pub payment_instrument_tags: Vec<Tag>,
    pub payment_instrument_status_id: u32,
    pub payment_instrument_type_id: u32,
    pub payment_method_id: u32,
    pub is_default: bool,
    pub is_locked: bool,
    pub payment_instrument_label: String,
    pub payment_instrument_change_reason: String,
    pub payment_instrument_ach: Ach,
    #[serde(flatten)]
    pub audit: Audit,
}

/// A customer profile in a program (spec 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub customer_profile_id: String,
    pub program_id: String,
    pub customer_profile_program_status_id: u32,
    pub customer_profile_program_status_reason: String,
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
