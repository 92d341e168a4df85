//! Idempotency keys, as payment APIs have them: a client that retries a
//! create with the same key gets the first answer instead of a second record.
//!
//! The CLI's `--idempotency-key` and the HTTP API's `Idempotency-Key` header
//! both go through [`run`]:
//!
//! ```text
//! let fp = idempotency::fingerprint("POST /transactions", &[], &body);
//! let out = idempotency::run(&store, Some(key), &fp, now_unix, |s| txn::create(s, &ctx, &body))?;
//! // out.into_id(): the new id, or the first request's; out.replayed(): which.
//! ```
//!
//! - No key: `create` runs as it would without this module.
//! - A key this store does not remember (never used, or used more than
//!   [`TTL_SECS`](crate::store::idempotency::TTL_SECS) ago): `create` runs, and the key's record (fingerprint and
//!   answer) is written in the same journal commit as the change
//!   (`Tx::commit_created`), so a change and its record exist together or
//!   not at all. A refused create records nothing: a retry runs again.
//! - A key remembered with the same fingerprint: the first answer, nothing
//!   written ([`Outcome::Replayed`]).
//! - A key remembered with another fingerprint: refused with 21005.
//!
//! The caller holds the store's exclusive lock (a store opened for writing)
//! across [`run`], so two requests with one key are never both executed.

use serde_json::Value;

use crate::error::{Error, Result, code};
use crate::store::Store;

/// Longest key accepted.
pub const MAX_KEY: usize = 255;

/// What [`run`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The create ran: the new id.
    Created(String),
    /// The key was used before for the same request: that request's id.
    Replayed(String),
}

impl Outcome {
    pub fn into_id(self) -> String {
        match self {
            Outcome::Created(id) | Outcome::Replayed(id) => id,
        }
    }
    pub fn replayed(&self) -> bool {
        matches!(self, Outcome::Replayed(_))
    }
}

/// Check a key: 1 to [`MAX_KEY`] ASCII letters, digits or `- _ . : ~ + / =`
/// (a UUID, a ULID, base64 fit). `field` names it in the refusal
/// (`--idempotency-key`, `Idempotency-Key`).
pub fn validate_key(field: &str, key: &str) -> Result<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || "-_.:~+/=".contains(c);
    if key.is_empty() || key.len() > MAX_KEY || !key.chars().all(ok_char) {
        return Err(Error::at(
            code::INVALID_VALUE,
            field,
            format!(
                "must be 1 to {MAX_KEY} characters, each an ASCII letter, a digit or one of - _ . : ~ + / ="
            ),
        ));
    }
    Ok(())
}

/// The fingerprint of a request: the endpoint (`"POST /transactions"`), the
/// ids of its path, and its body as it is executed (after flags are
/// applied), with object members in sorted order so that the order a client
/// sends them in does not matter. A 128-bit FNV-1a hash in hex: the store
/// keeps no copy of the body, which may hold an SSN or an account number.
pub fn fingerprint(endpoint: &str, path_ids: &[&str], body: &Value) -> String {
    let mut text = String::new();
    text.push_str(endpoint);
    for id in path_ids {
        text.push('\n');
        text.push_str(id);
    }
    text.push('\n');
    canonical(body, &mut text);
    format!("{:032x}", fnv1a_128(text.as_bytes()))
}

/// `v` as JSON with the members of every object sorted by name.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

fn fnv1a_128(bytes: &[u8]) -> u128 {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut h = OFFSET;
    for &b in bytes {
        h ^= u128::from(b);
        h = h.wrapping_mul(PRIME);
    }
    h
}

/// The refusal of a key used before for another request.
pub fn conflict(key: &str) -> Error {
    Error::one(
        code::IDEMPOTENCY_CONFLICT,
        format!(
            "idempotency key {} was used within the last 24 hours for a different request \
             (another command, path or body); nothing was changed: use a new key for a new request",
            crate::error::shown_id(key)
        ),
    )
}

/// Run the create `create` under the idempotency key `key` (see the module
/// doc). `fp` is the request's [`fingerprint`], `now` the time in Unix
/// seconds. `store` must be open for writing. `create` must end its change
/// with `Tx::commit_created` (every create of `core` does).
pub fn run(
    store: &Store,
    key: Option<&str>,
    fp: &str,
    now: i64,
    create: impl FnOnce(&Store) -> Result<String>,
) -> Result<Outcome> {
    let Some(key) = key else {
        return create(store).map(Outcome::Created);
    };
    validate_key("idempotency key", key)?;
    if let Some(rec) = store.idempotency_record(key, now)? {
        if rec.fp != fp {
            return Err(conflict(key));
        }
        return match rec.result {
            Value::String(id) => Ok(Outcome::Replayed(id)),
            other => Err(Error::corrupt(
                &crate::store::idempotency::place(std::path::Path::new(&store.describe()), key),
                format!(
                    "the result of key {} is not an id: {other}",
                    crate::error::shown_id(key)
                ),
            )),
        };
    }
    store.arm_idempotency(key, fp, now);
    let result = create(store);
    let still_armed = store.disarm_idempotency();
    debug_assert!(
        result.is_err() || !still_armed,
        "a create under an idempotency key did not commit with Tx::commit_created"
    );
    result.map(Outcome::Created)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_fingerprint_ignores_member_order_and_sees_every_difference() {
        let a = json!({"a": 1, "b": {"x": "1.50", "y": [1, 2]}});
        let b = json!({"b": {"y": [1, 2], "x": "1.50"}, "a": 1});
        assert_eq!(
            fingerprint("POST /x", &[], &a),
            fingerprint("POST /x", &[], &b)
        );
        let c = json!({"a": 1, "b": {"x": "1.5", "y": [1, 2]}});
        assert_ne!(
            fingerprint("POST /x", &[], &a),
            fingerprint("POST /x", &[], &c)
        );
        assert_ne!(
            fingerprint("POST /x", &[], &a),
            fingerprint("POST /y", &[], &a)
        );
        assert_ne!(
            fingerprint("POST /x", &["csp_1"], &a),
            fingerprint("POST /x", &["csp_2"], &a)
        );
        assert_eq!(fingerprint("POST /x", &[], &a).len(), 32);
    }

    #[test]
    fn keys_are_checked() {
        for ok in ["a", "3f1c-uuid_x.y:z~+/=", &"k".repeat(MAX_KEY)] {
            assert!(validate_key("k", ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "a\"b", "é", "a\nb", &"k".repeat(MAX_KEY + 1)] {
            assert!(validate_key("k", bad).is_err(), "{bad:?}");
        }
    }
}
