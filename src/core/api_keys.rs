//! API keys of `payctl serve` (`payctl key create|list|revoke`): their
//! names, their secrets and how a secret finds its key.
//!
//! A secret is `pk_` and 32 random base62 characters (about 190 bits) from
//! the operating system's generator, shown once by `key create`. The store
//! keeps its SHA-256 only: a secret that strong needs no slow password
//! hash, and a request's key is then found by the hash of what it sends (an
//! index), never by comparing it with each stored key. Keys are never
//! removed: a revoked key stays (listed with the time it was revoked), so
//! that its name, which the audit fields of its writes carry, names one key
//! for ever, and so that revoking the last key never leaves a server open.

use rand::Rng;

pub use crate::error::name_in_use;
use crate::error::{Error, Result, code};
pub use crate::model::api_key::{ApiKey, Role};
use crate::store::Store;

/// What every secret starts with (so that one is recognised in a file, a
/// log or a scanner's report).
pub const SECRET_PREFIX: &str = "pk_";
/// Random characters after the prefix.
pub const SECRET_CHARS: usize = 32;
/// Longest key name.
pub const MAX_NAME: usize = 64;
/// The name of `payctl serve --token`'s credential: no key may take it.
pub const TOKEN_NAME: &str = "token";
/// Longest `--expires-in`, in days (ten years).
pub const MAX_DAYS: u32 = 3650;

/// The SHA-256 of `secret`, in lower-case hex.
pub fn hash(secret: &[u8]) -> String {
    crate::model::digest::sha256_hex(secret)
}

/// A new secret: [`SECRET_PREFIX`] and [`SECRET_CHARS`] characters of
/// `A-Z a-z 0-9` from the thread's generator (ChaCha, seeded from the
/// operating system; never a seeded test generator).
pub fn new_secret() -> String {
    let mut rng = rand::rng();
    let tail: String = (0..SECRET_CHARS)
        .map(|_| char::from(rng.sample(rand::distr::Alphanumeric)))
        .collect();
    format!("{SECRET_PREFIX}{tail}")
}

/// The rule of a key name: 1-64 of `A-Z a-z 0-9 _ . -`, and neither
/// `token` (serve's `--token`) nor `SYSTEM` (the worker), in any case.
pub fn check_name(name: &str) -> Result<()> {
    let bad = |why: String| Error::at(code::INVALID_VALUE, "NAME", why);
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME {
        return Err(bad(format!(
            "a key name is 1-{MAX_NAME} characters (is {n})"
        )));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        return Err(bad(format!(
            "`{}` is not allowed: a key name is made of A-Z, a-z, 0-9, `_`, `.` and `-`",
            c.escape_debug()
        )));
    }
    for reserved in [TOKEN_NAME, crate::model::status::SYSTEM] {
        if name.eq_ignore_ascii_case(reserved) {
            return Err(bad(format!(
                "`{name}` is reserved ({}); choose another name",
                if reserved == TOKEN_NAME {
                    "the name of `payctl serve --token`'s credential"
                } else {
                    "the background worker's actor"
                }
            )));
        }
    }
    Ok(())
}

/// A key just created, with its secret (shown once, never stored).
pub struct Created {
    pub key: ApiKey,
    pub secret: String,
}

/// `key create`: a new key named `name` with `role`, expiring `days` days
/// after `now` when given, committed on `store` (opened for writing).
pub fn create(
    store: &Store,
    now: chrono::NaiveDateTime,
    name: &str,
    role: Role,
    days: Option<u32>,
) -> Result<Created> {
    check_name(name)?;
    if let Some(d) = days
        && !(1..=MAX_DAYS).contains(&d)
    {
        return Err(Error::at(
            code::INVALID_VALUE,
            "--expires-in",
            format!("is {d} days; a key expires 1-{MAX_DAYS} days after its creation"),
        ));
    }
    if store.api_keys()?.iter().any(|k| k.name == name) {
        return Err(name_in_use(name));
    }
    let secret = new_secret();
    let key = ApiKey {
        name: name.to_string(),
        role,
        hash: hash(secret.as_bytes()),
        created: now.format(super::TIME_FORMAT).to_string(),
        expires: days.map(|d| {
            (now + chrono::Duration::days(i64::from(d)))
                .format(super::TIME_FORMAT)
                .to_string()
        }),
        revoked: None,
        last_used: None,
    };
    let mut tx = store.begin_without_events();
    tx.put_api_key(&key)?;
    tx.commit()?;
    Ok(Created { key, secret })
}

/// `key revoke`: `name` revoked at `now` (a key revoked already stays as
/// it was: the answer is the same).
pub fn revoke(store: &Store, now: &str, name: &str) -> Result<ApiKey> {
    let mut key = store
        .api_keys()?
        .into_iter()
        .find(|k| k.name == name)
        .ok_or_else(|| Error::not_found("API key", name))?;
    if key.revoked.is_none() {
        key.revoked = Some(now.to_string());
        let mut tx = store.begin_without_events();
        tx.put_api_key(&key)?;
        tx.commit()?;
    }
    Ok(key)
}

/// Record that the keys of `used` (`(hash, time)`) were accepted, on
/// `store` (opened for writing).
pub fn record_use(store: &Store, used: &[(String, String)]) -> Result<()> {
    let mut tx = store.begin_without_events();
    tx.api_keys_used(used)?;
    if tx.is_empty() {
        return Ok(());
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_random_base62_and_hashed_as_sha256() {
        let a = new_secret();
        let b = new_secret();
        assert_ne!(a, b);
        assert_eq!(a.len(), SECRET_PREFIX.len() + SECRET_CHARS);
        assert!(a[3..].chars().all(|c| c.is_ascii_alphanumeric()), "{a}");
        // The SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        assert_eq!(
            hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn names_follow_their_rule() {
        for ok in ["ci", "dash-board.v2", "A_1", &"x".repeat(64)] {
            check_name(ok).unwrap();
        }
        for bad in [
            "",
            "a b",
            "é",
            "a/b",
            "token",
            "TOKEN",
            "system",
            &"x".repeat(65),
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_key_is_refused_once_revoked_or_expired() {
        let mut k = ApiKey {
            name: "ci".into(),
            role: Role::Admin,
            hash: hash(b"x"),
            created: "2026-01-01T00:00:00.000000".into(),
            expires: Some("2026-02-01T00:00:00.000000".into()),
            revoked: None,
            last_used: None,
        };
        assert!(k.refusal("2026-01-31T23:59:59.999999").is_none());
        assert!(
            k.refusal("2026-02-01T00:00:00.000000")
                .unwrap()
                .contains("expired")
        );
        k.revoked = Some("2026-01-15T00:00:00.000000".into());
        assert!(
            k.refusal("2026-01-20T00:00:00.000000")
                .unwrap()
                .contains("revoked")
        );
    }
}
