//! API keys of `payctl serve`: a name, a role, and the SHA-256 of a secret
//! that is shown once (`payctl key create`) and never stored.

use serde::{Deserialize, Serialize};

/// What a key may do, each role everything the one before it may.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Every GET (and HEAD) of the API, the OpenAPI document included.
    Reader,
    /// And every create, update, delete and attach.
    Writer,
    /// And the administration routes under `/_payctl/`.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Reader, Role::Writer, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Reader => "reader",
            Role::Writer => "writer",
            Role::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One API key as the store keeps it. Times are UTC, as the audit fields
/// write them (`2026-11-27T10:00:00.123456`: their order is their text's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiKey {
    /// 1-64 of `A-Z a-z 0-9 _ . -`, unique in the store for ever (a revoked
    /// key keeps its name: audit fields name it).
    pub name: String,
    pub role: Role,
    /// The SHA-256 of the secret, in lower-case hex: what a request's
    /// secret is looked up by.
    pub hash: String,
    pub created: String,
    /// When it stops being accepted; `None`: never.
    #[serde(default)]
    pub expires: Option<String>,
    /// When it was revoked; `None`: it was not.
    #[serde(default)]
    pub revoked: Option<String>,
    /// When a server last accepted it (recorded at most about once a minute
    /// per key and server); kept apart from the key itself by the stores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_used: Option<String>,
}

impl ApiKey {
    /// Why the key is refused at `now`, if it is: revoked or expired.
    pub fn refusal(&self, now: &str) -> Option<String> {
        if let Some(at) = &self.revoked {
            return Some(format!(
                "the API key `{}` was revoked at {at} UTC",
                self.name
            ));
        }
        match &self.expires {
            Some(at) if at.as_str() <= now => Some(format!(
                "the API key `{}` expired at {at} UTC; create another with `payctl key create`",
                self.name
            )),
            _ => None,
        }
    }

    /// The key as `key list` shows it: never its hash.
    pub fn shown(&self) -> serde_json::Value {
        serde_json::json!({
            "name": self.name,
            "role": self.role,
            "created": self.created,
            "expires": self.expires,
            "last_used": self.last_used,
            "revoked": self.revoked,
        })
    }
}
