//! The transaction aggregate: a transaction with its stored parameters and the
//! steps the worker generates, stored together in one file.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{Audit, Tag};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transaction {
    pub transaction_id: String,
    pub program_id: String,
    pub application_id: String,
    pub transaction_template_id: String,
    pub transaction_status_id: u32,
    pub transaction_status_reason: Option<String>,
    pub transaction_tags: Vec<Tag>,
    #[serde(flatten)]
    pub audit: Audit,
}

/// A stored parameter (spec 2.7): note the `created_date_time` spelling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parameter {
    pub transaction_parameter_id: u64,
    pub transaction_parameter_name: String,
    pub transaction_parameter_values: Vec<ParamValue>,
    pub created_by: String,
    pub created_date_time: String,
    pub modified_by: String,
    pub modified_date_time: String,
}

/// A value object with every field of spec 2.7; unused ones are null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamValue {
    pub customer_profile_id: Option<String>,
    #[serde(with = "rust_decimal::serde::arbitrary_precision")]
    pub amount: Decimal,
    pub account_id: Option<String>,
    pub check_note: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub organization_name: Option<String>,
    pub country_id: Option<u32>,
    pub state_id: Option<u32>,
    pub address_line1: Option<String>,
    pub address_line2: Option<String>,
    pub city: Option<String>,
    pub zip: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub transaction_step_id: String,
    pub transaction_id: String,
    pub transaction_template_step_id: String,
    pub transaction_step_status_id: u32,
    pub transaction_step_status_reason: String,
    pub transfer_type_id: u32,
    pub sequence: u32,
    pub wait_to_complete: bool,
    #[serde(flatten)]
    pub audit: Audit,
}

/// One transaction file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnFile {
    pub transaction: Transaction,
    pub parameters: Vec<Parameter>,
    #[serde(default)]
    pub steps: Vec<Step>,
}
