//! Identifiers: a fixed prefix, an underscore and a random alphanumeric part.
//!
//! `PAYCTL_ID_SEED=N` (a testing aid, set once per process by the CLI with
//! [`seed`]): the part after the prefix comes from a deterministic
//! generator instead, the SHA-256 of the seed, the prefix, a scope and a
//! counter, so that the same requests in the same order give the same ids.
//! A record of its own (a customer, a transaction, a rule) counts per
//! prefix in this process and skips an id the store already holds
//! ([`new_free_id`]: each new process starts the sequence again); a record
//! inside another (an address, an instrument, a step) counts inside its
//! parent's id ([`new_id_in`]), so it is unique wherever it is made.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rand::Rng;
use sha2::{Digest, Sha256};

pub const CUSTOMER: &str = "csp";
pub const ADDRESS: &str = "cpa";
pub const INSTRUMENT: &str = "pin";
pub const PROGRAM: &str = "prm";
pub const APPLICATION: &str = "app";
pub const TEMPLATE: &str = "trt";
pub const TEMPLATE_STEP: &str = "tts";
pub const TRANSACTION: &str = "trn";
pub const STEP: &str = "trs";
pub const RULE: &str = "rul";

const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const RANDOM_LEN: usize = 20;
/// Longest random part accepted from a user (ours are 20).
const MAX_RANDOM_LEN: usize = 64;

/// The seed of `PAYCTL_ID_SEED`, once set.
static SEED: OnceLock<u64> = OnceLock::new();
/// With a seed: the next counter of each prefix ([`new_id`]).
static NEXT: Mutex<Option<HashMap<String, u64>>> = Mutex::new(None);

/// Make every id of this process come from the generator seeded with `n`
/// (see the module doc); `false` when another seed was set before.
pub fn seed(n: u64) -> bool {
    *SEED.get_or_init(|| n) == n
}

/// Whether ids come from a seeded generator.
pub fn seeded() -> bool {
    SEED.get().is_some()
}

/// The random part of the seeded id number `k` of `prefix` in `scope`.
fn derived(seed: u64, prefix: &str, scope: &str, k: u64) -> String {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    for part in [prefix.as_bytes(), scope.as_bytes()] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.update(k.to_le_bytes());
    let d = h.finalize();
    let mut s = String::with_capacity(prefix.len() + 1 + RANDOM_LEN);
    s.push_str(prefix);
    s.push('_');
    for b in d.iter().take(RANDOM_LEN) {
        s.push(ALPHABET[*b as usize % ALPHABET.len()] as char);
    }
    s
}

/// A number of the seeded generator in `1..below` (`below` > 1), the
/// `k`-th of `scope`; `None` without a seed.
pub fn seeded_number(scope: &str, k: u64, below: u64) -> Option<u64> {
    let seed = *SEED.get()?;
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(scope.as_bytes());
    h.update(k.to_le_bytes());
    let d = h.finalize();
    let mut n = [0u8; 8];
    n.copy_from_slice(&d[..8]);
    Some(1 + u64::from_le_bytes(n) % (below.max(2) - 1))
}

/// A new identifier with `prefix`: random, or with a seed the next of the
/// prefix's sequence in this process.
pub fn new_id(prefix: &str) -> String {
    if let Some(&seed) = SEED.get() {
        let k = {
            let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
            let slot = next
                .get_or_insert_with(HashMap::new)
                .entry(prefix.to_string())
                .or_insert(0);
            *slot += 1;
            *slot - 1
        };
        return derived(seed, prefix, "", k);
    }
    random_id(prefix)
}

/// A new id for a record of its own that the store may already hold
/// (`taken` says whether it does): with a seed, the next of the sequence
/// that is free (a process starts the sequence again, and meets the ids
/// of the processes before it); without one, [`new_id`] (a random id is
/// not asked about).
pub fn new_free_id<E>(
    prefix: &str,
    mut taken: impl FnMut(&str) -> Result<bool, E>,
) -> Result<String, E> {
    loop {
        let id = new_id(prefix);
        if !seeded() || !taken(&id)? {
            return Ok(id);
        }
    }
}

/// A new id for a record inside the record `scope` (an address of a
/// customer, a step of a transaction): with a seed, the first of the
/// scope's own sequence that `taken` (the ids already inside) does not
/// hold; without one, random.
pub fn new_id_in(prefix: &str, scope: &str, taken: impl Fn(&str) -> bool) -> String {
    match SEED.get() {
        Some(&seed) => (0u64..)
            .map(|k| derived(seed, prefix, scope, k))
            .find(|id| !taken(id))
            .expect("an endless sequence has a free id"),
        None => random_id(prefix),
    }
}

fn random_id(prefix: &str) -> String {
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
        "rule_id" => RULE,
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
    fn seeded_ids_are_valid_distinct_and_repeatable() {
        let a = derived(42, CUSTOMER, "", 0);
        assert!(is_valid(CUSTOMER, &a), "{a}");
        assert_eq!(a, derived(42, CUSTOMER, "", 0));
        assert_ne!(a, derived(42, CUSTOMER, "", 1));
        assert_ne!(a, derived(43, CUSTOMER, "", 0));
        // The scope is part of it: the first address of two customers differ.
        assert_ne!(
            derived(42, ADDRESS, "csp_a", 0),
            derived(42, ADDRESS, "csp_b", 0)
        );
        // Prefix and scope cannot run into each other.
        assert_ne!(derived(1, "ab", "c", 0)[3..], derived(1, "a", "bc", 0)[2..]);
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
