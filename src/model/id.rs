//! Identifiers: a fixed prefix, an underscore and a random alphanumeric part.

use rand::Rng;

pub const CUSTOMER: &str = "csp";
pub const ADDRESS: &str = "cpa";
pub const INSTRUMENT: &str = "pin";
pub const PROGRAM: &str = "prm";
pub const APPLICATION: &str = "app";
pub const TEMPLATE: &str = "trt";
pub const TEMPLATE_STEP: &str = "tts";
pub const TRANSACTION: &str = "trn";
pub const STEP: &str = "trs";

const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const RANDOM_LEN: usize = 20;
/// Longest random part accepted from a user (ours are 20).
const MAX_RANDOM_LEN: usize = 64;

/// A new identifier with `prefix`.
pub fn new_id(prefix: &str) -> String {
    let mut rng = rand::rng();
    let mut s = String::with_capacity(prefix.len() + 1 + RANDOM_LEN);
    s.push_str(prefix);
    s.push('_');
    for _ in 0..RANDOM_LEN {
        s.push(ALPHABET[rng.random_range(0..ALPHABET.len())] as char);
    }
    s
}

/// Whether `id` is a well-formed identifier with `prefix`: only such ids are
/// ever turned into paths, so `../`, NUL or separators never reach the disk.
pub fn is_valid(prefix: &str, id: &str) -> bool {
    let Some(rest) = id.strip_prefix(prefix).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    !rest.is_empty()
        && rest.len() <= MAX_RANDOM_LEN
        && rest.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// [`is_valid`] as a regex: what every id with `prefix` looks like (the
/// OpenAPI document's pattern of the record's id field).
pub fn pattern(prefix: &str) -> String {
    format!("^{prefix}_[A-Za-z0-9]{{1,{MAX_RANDOM_LEN}}}$")
}

/// The prefix of the ids of the records whose id field is `field`.
pub fn prefix_of(field: &str) -> Option<&'static str> {
    Some(match field {
        "customer_profile_id" => CUSTOMER,
        "address_id" => ADDRESS,
        "payment_instrument_id" => INSTRUMENT,
        "program_id" => PROGRAM,
        "application_id" => APPLICATION,
        "transaction_template_id" => TEMPLATE,
        "transaction_template_step_id" => TEMPLATE_STEP,
        "transaction_id" => TRANSACTION,
        "transaction_step_id" => STEP,
        _ => return None,
    })
}

/// Shard directory of an id: the first two characters of its random part.
pub fn shard(id: &str) -> &str {
    let rest = id.split_once('_').map(|(_, r)| r).unwrap_or(id);
    let end = rest
        .char_indices()
        .nth(2)
        .map(|(i, _)| i)
        .unwrap_or(rest.len());
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_valid_and_distinct() {
        let a = new_id(CUSTOMER);
        let b = new_id(CUSTOMER);
        assert!(is_valid(CUSTOMER, &a), "{a}");
        assert_ne!(a, b);
        assert!(!is_valid(ADDRESS, &a));
    }

    #[test]
    fn hostile_ids_are_invalid() {
        for id in [
            "csp_",
            "csp_../x",
            "csp_a/b",
            "csp_a\0b",
            "../csp_a",
            "cspabc",
            "csp_ab.json",
        ] {
            assert!(!is_valid(CUSTOMER, id), "{id:?}");
        }
        assert!(!is_valid(CUSTOMER, &format!("csp_{}", "a".repeat(65))));
    }

    #[test]
    fn the_pattern_is_the_rule() {
        let p = regex::Regex::new(&pattern(CUSTOMER)).unwrap();
        let longest = format!("csp_{}", "a".repeat(64));
        for id in [new_id(CUSTOMER).as_str(), "csp_A1", &longest] {
            assert!(is_valid(CUSTOMER, id) && p.is_match(id), "{id}");
        }
        let too_long = format!("csp_{}", "a".repeat(65));
        for id in ["csp_", "csp_a-b", "cpa_a", "csp_a\n", &too_long] {
            assert!(!is_valid(CUSTOMER, id) && !p.is_match(id), "{id}");
        }
    }

    #[test]
    fn shard_is_two_chars() {
        assert_eq!(shard("csp_ab12"), "ab");
        assert_eq!(shard("csp_a"), "a");
    }
}
