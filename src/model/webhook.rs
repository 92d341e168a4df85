//! Webhooks: where the events go (a URL, the event types it wants), the
//! secret their deliveries are signed with, the outbox cursor of each, and
//! the record of every delivery attempt (CLI.md "Events … webhooks").
//!
//! The secret (`whsec_…`, 32 random bytes in hex) is stored, since every
//! signature needs it, and shown whole once, in the answer of the create:
//! everywhere else a webhook shows `whsec_…` and its last 4 characters.

use hmac::{KeyInit, Mac};
use rand::Rng;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The prefix of a webhook's id.
pub const PREFIX: &str = "whk";
/// The prefix of a signing secret.
pub const SECRET_PREFIX: &str = "whsec_";
/// Random bytes of a secret (hex: twice as many characters).
pub const SECRET_BYTES: usize = 32;
/// Longest URL accepted.
pub const MAX_URL: usize = 2048;
/// Longest description (characters).
pub const MAX_DESCRIPTION: usize = 500;
/// Most event globs of one webhook.
pub const MAX_GLOBS: usize = 50;

/// A webhook as the store keeps it (its secret included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Webhook {
    pub webhook_id: String,
    pub url: String,
    /// Event type globs; an event goes out when any matches.
    pub events: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
    pub secret: String,
    pub created_datetime: String,
    pub created_by: String,
}

/// A webhook as every answer but its create shows it: the URL without its
/// password, the secret reduced to its last 4 characters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Webhook")]
pub struct WebhookShown {
    /// `whk_…`.
    pub webhook_id: String,
    /// Where the events are POSTed (a password in it shown as `****`).
    pub url: String,
    /// Event type globs (`*`: every event).
    pub events: Vec<String>,
    pub description: Option<String>,
    /// `whsec_…` and the last 4 characters of the signing secret; the whole
    /// secret only in the answer of the create.
    pub secret: String,
    /// UTC, ISO 8601 without a zone.
    pub created_datetime: String,
    pub created_by: String,
}

impl Webhook {
    /// Whether an event of `event_type` goes to it.
    pub fn wants(&self, event_type: &str) -> bool {
        self.events
            .iter()
            .any(|g| crate::model::event::type_matches(g, event_type))
    }
}

/// `whsec_…` and the secret's last 4 characters.
pub fn masked_secret(secret: &str) -> String {
    let chars: Vec<char> = secret.chars().collect();
    let last4: String = chars[chars.len().saturating_sub(4)..].iter().collect();
    format!("{SECRET_PREFIX}…{last4}")
}

/// A new signing secret: `whsec_` and 32 random bytes in hex.
pub fn new_secret() -> String {
    let mut rng = rand::rng();
    let mut s = String::from(SECRET_PREFIX);
    for _ in 0..SECRET_BYTES {
        s.push_str(&format!("{:02x}", rng.random::<u8>()));
    }
    s
}

/// The `Payctl-Signature` header of `body` sent at `t` (Unix seconds):
/// `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
pub fn signature(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let v1: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("t={t},v1={v1}")
}

/// Where a webhook's deliveries stand: the outbox cursor (the last
/// sequence done: delivered, or failed for good), the event in flight with
/// its attempts, and the events queued again by `events resend`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outbox {
    /// The sequence of the last event done for this webhook.
    pub cursor: u64,
    /// The event after the cursor that failed at least once, if any.
    #[serde(default)]
    pub retry: Option<Retry>,
    /// Event ids to deliver once more, out of order (`events resend`).
    #[serde(default)]
    pub resend: Vec<String>,
}

/// An event whose delivery failed and is tried again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retry {
    pub sequence: u64,
    /// Attempts made so far.
    pub attempts: u32,
    /// Unix seconds of the first attempt (24 h after it: failed).
    pub first_at: i64,
    /// Unix seconds of the next attempt.
    pub next_at: i64,
}

/// One delivery attempt, as `webhook deliveries` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "WebhookDelivery")]
pub struct Delivery {
    /// `whd_…`.
    pub delivery_id: String,
    pub webhook_id: String,
    pub event_id: String,
    pub event_type: String,
    /// 1 for the first attempt of an event, then 2, 3…
    pub attempt: u32,
    /// When the attempt started: UTC, ISO 8601 without a zone.
    pub created_datetime: String,
    /// The receiver's status code; null when none came (see `error`).
    pub status_code: Option<u16>,
    /// Why the attempt failed, when it did without a 2xx.
    pub error: Option<String>,
    pub duration_ms: u64,
    /// `delivered`, `retrying` (see `next_retry`), `failed` (given up after
    /// 24 h, or a resend that failed).
    pub outcome: String,
    /// When the next attempt is due (UTC), for `retrying`.
    pub next_retry: Option<String>,
    /// Whether `events resend` asked for it.
    pub resend: bool,
}

/// The prefix of a delivery attempt's id.
pub const DELIVERY_PREFIX: &str = "whd";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_hmac_sha256_of_t_dot_body() {
        // The example of docs/src/guide/events.md, computed with
        // `printf '%s.%s' "$t" "$body" | openssl dgst -sha256 -hmac "$secret"`.
        let s = signature(
            "whsec_test",
            1_700_000_000,
            br#"{"event_id":"evt_test","sequence":1}"#,
        );
        assert_eq!(
            s,
            "t=1700000000,v1=51aae84dd3b01c18e050c856f6c93b184c23a1368afd7d25f7b02b5884a603f3"
        );
    }

    #[test]
    fn secrets_are_long_and_masked() {
        let s = new_secret();
        assert_eq!(s.len(), SECRET_PREFIX.len() + 2 * SECRET_BYTES);
        let m = masked_secret(&s);
        assert!(m.ends_with(&s[s.len() - 4..]) && !m.contains(&s[6..20]));
    }
}
