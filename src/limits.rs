//! The limits every layer shares: the caps of the spec's fields and
//! arrays, of request bodies and record files, and of `--actor`. A leaf
//! (it names no other module of the crate), so that the command line, the
//! server, the OpenAPI document, core and the store read the same numbers.

/// Tags of one record: `customer_profile_tags`, `payment_instrument_tags`,
/// `transaction_tags`.
pub const TAGS: usize = 50;
/// `transaction_parameters` of one transaction.
pub const PARAMETERS: usize = 100;
/// `transaction_parameter_values` of one parameter.
pub const VALUES: usize = 1000;
/// Addresses of one customer profile.
pub const ADDRESSES: usize = 50;
/// Payment instruments of one customer profile.
pub const INSTRUMENTS: usize = 50;
/// Bytes of a request body (`--body FILE`, `--body -`).
pub const BODY_BYTES: u64 = 1 << 20;
/// Bytes of one line of `profile import` (its end not counted).
pub const LINE_BYTES: usize = 1 << 20;
/// Bytes of an `init --catalog` file.
pub const CATALOG_BYTES: u64 = 16 << 20;
/// Bytes of one record file of the store (a customer, a transaction,
/// the catalog, the metadata): a larger one is refused by its size
/// without being read, and payctl never writes one (issue 13).
pub const RECORD_BYTES: u64 = 64 << 20;

/// Longest `--actor` accepted: it is written into every record it touches.
pub const MAX_ACTOR: usize = 64;
