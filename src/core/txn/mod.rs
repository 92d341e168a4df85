//! Transactions (spec 2.6, 2.7, 3, 4.6; CLI.md "Transaction parameters",
//! "The worker"): create with full validation of the parameters against the
//! template's steps, the reads, and [`process`], the worker's part that
//! generates and runs the steps.
//!
//! Choices where the spec and CLI.md are silent (also in `payctl txn create --help`):
//! - `program_id`, `application_id` and `transaction_template_id` take an id or
//!   the record's name (`default_program`, `payments`, `ach_funding`); the
//!   application is looked up within the program, the template within the
//!   application. The transaction stores the ids.
//! - `transaction_status_reason` is optional, at most 256 characters. The
//!   worker replaces it with the reason of each status it sets.
//! - `transaction_tags` is optional: `key` and `value` 1-50 characters, any
//!   symbols; a key may occur once.
//! - Value objects may carry every field of the stored parameters (so a
//!   record read back can be sent again): fields that do not apply to the
//!   parameter must be null or absent. `account_id` of a customer value is
//!   null or one of that customer's instruments (`pin_`); the worker then
//!   needs that very instrument Active and of the step's type.
//! - `@target_checks` values need `country_id` (only 1). `address_line2` and
//!   `check_note` are optional, up to 256 characters, empty allowed.
//! - Amounts are kept as sent (`100.50` stays `100.50`); an exponent form such
//!   as `1e2` is accepted and kept as its plain value (`100`). Decimal places
//!   are counted as written (`5.000` has 3) and checked on the number's text
//!   ([`rules::amount`]), so nothing is rounded before the check.
//! - `transaction_parameter_id` is a random positive integer below 2^53, unique
//!   within the transaction.
//! - The worker: ACH Funding checks the customers of the step's source
//!   parameter for an Active Funding instrument, ACH Withdrawal the customers
//!   of its target parameter for an Active Withdrawal instrument; an Active
//!   instrument of that type counts whatever its program. Internal transfers
//!   and check payments always complete (spec 1: amounts are not verified).
//!
//! The module by concern: [`resolve`] finds the program, application and
//! template a body names, [`value`] and [`parameters`] validate the
//! parameters against them, [`create`] writes the new transaction, [`read`]
//! answers the reads and [`process`] is the worker's part.

mod create;
mod parameters;
mod process;
mod read;
mod resolve;
mod value;

pub use create::create;
pub use process::process;
pub use read::{Filter, get, list, parameters_of, steps};

/// `country_id` of a `@target_checks` value: the only supported country,
/// and so the default the CLI fills in.
pub(crate) const CHECK_COUNTRY: u32 = crate::core::address::US;

use crate::error::{Error, Result};
use crate::model::txn::TxnFile;
use crate::store::Store;

pub const FIELDS: &[&str] = &[
    "program_id",
    "application_id",
    "transaction_template_id",
    "transaction_status_reason",
    "transaction_tags",
    "transaction_parameters",
];
pub const PARAMETER_FIELDS: &[&str] =
    &["transaction_parameter_name", "transaction_parameter_values"];
/// The fields of a parameter value: the first three (who and how much) are
/// shared by every kind of value; the rest ([`CHECK_ONLY`]) belong to checks.
pub const VALUE_FIELDS: &[&str] = &[
    "customer_profile_id",
    "amount",
    "account_id",
    "check_note",
    "first_name",
    "last_name",
    "organization_name",
    "country_id",
    "state_id",
    "address_line1",
    "address_line2",
    "city",
    "zip",
];

pub use crate::model::limits::MAX_PARAMETER_ID;

pub const SOURCE_CUSTOMERS: &str = "@source_customers";
pub const TARGETS: &str = "@targets";
pub const FACILITATOR: &str = "@facilitator";
pub const TARGET_CHECKS: &str = "@target_checks";

/// What the values of a parameter carry, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `@source_customers`, `@targets`: an attached customer and an amount.
    Customer,
    /// `@facilitator`: an amount only.
    Amount,
    /// `@target_checks`: an amount, a payee and a US address.
    Check,
}

pub(crate) fn kind(name: &str) -> Option<Kind> {
    match name {
        SOURCE_CUSTOMERS | TARGETS => Some(Kind::Customer),
        FACILITATOR => Some(Kind::Amount),
        TARGET_CHECKS => Some(Kind::Check),
        _ => None,
    }
}

/// The transaction aggregate `id`, or 20001.
pub fn load(store: &Store, tid: &str) -> Result<TxnFile> {
    store
        .txn(tid)?
        .ok_or_else(|| Error::not_found("transaction", tid))
}
