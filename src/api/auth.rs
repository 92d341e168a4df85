//! Who a request of `payctl serve` comes from, and what it may do: the
//! store's API keys (`payctl key`) and serve's `--token`.
//!
//! - Once the store holds a key (revoked and expired ones count: revoking
//!   the last key never opens a server), or serve has a token, every request
//!   needs `Authorization: Bearer SECRET` (401, 10007, `WWW-Authenticate`),
//!   except `GET /_payctl/health` (and `/_payctl/ready`), which a load
//!   balancer probes without one. Without either, requests are answered as
//!   before keys existed (`Caller::Open`: loopback, the cross-site rules).
//! - A secret is found by its SHA-256 (a `HashMap` or an indexed row),
//!   never by a comparison with each key; the token is compared in
//!   constant time. Keys are read from the store at each request, or, where
//!   the store tells a cheap change stamp (the JSON directory), kept in
//!   memory until the stamp changes: a key created or revoked by another
//!   process counts from the next request, without a restart.
//! - Roles: reader every GET (and HEAD); writer also every create, update,
//!   delete and attach (and the import, `POST
//!   /_payctl/customer-profiles/import`: many profile creates); admin also
//!   the rest of `/_payctl/*`, `/webhooks` and `POST
//!   /events/{id}/resend` (the token is admin). A
//!   refused role is 403 (10010) naming the role needed.
//! - The actor of a request made with a key is the key's name; an
//!   `X-Payctl-Actor` header is recorded as `NAME:ACTOR` (at most 64
//!   characters in all, else 400 naming the header).
//! - A key's last use is written at most once a minute per key by each
//!   server, in the background, and never fails a request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, header};

use super::Local;
use super::endpoints::{Backend, Endpoint, Method};
use crate::core::api_keys;
use crate::error::{ApiError, Error, Result, code};
use crate::model::api_key::{ApiKey, Role};
use crate::store::Store;
use crate::store::lock::Stamp;

/// How often a server records a key's last use, at most.
pub const USE_EVERY: Duration = Duration::from_secs(60);

/// What any request may GET, with or without a credential: the probes of a
/// load balancer or an orchestrator.
pub const OPEN_PATHS: [&str; 2] = ["/_payctl/health", "/_payctl/ready"];

/// Who sent a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// A server without keys and token: the rules of before keys.
    Open,
    /// A server with keys or a token, an open path, no valid credential.
    Public,
    /// An API key, or serve's token (named `token`, admin).
    Key { name: String, role: Role },
}

impl Caller {
    /// Whether requests to this server carry a credential (the OpenAPI
    /// document then says it is required).
    pub fn secured(&self) -> bool {
        *self != Caller::Open
    }
}

/// The keys of a store as a server keeps them between requests.
struct Cached {
    stamp: String,
    by_hash: HashMap<String, ApiKey>,
}

/// The credentials of one server: its token, the keys it has read, and
/// when it last recorded each key's use.
pub struct Auth {
    /// The SHA-256 of `--token`.
    token: Option<String>,
    cache: Mutex<Option<Cached>>,
    recorded: Mutex<HashMap<String, Instant>>,
}

/// What a request's `Authorization` header holds.
enum Credential {
    None,
    /// Not `Bearer SECRET`.
    Malformed,
    Bearer(Vec<u8>),
}

fn credential(headers: &HeaderMap) -> Credential {
    let Some(v) = headers.get(header::AUTHORIZATION) else {
        return Credential::None;
    };
    let v = v.as_bytes();
    match v
        .get(..7)
        .filter(|p| p.eq_ignore_ascii_case(b"bearer "))
        .and(v.get(7..))
    {
        Some(secret) if !secret.is_empty() => Credential::Bearer(secret.to_vec()),
        _ => Credential::Malformed,
    }
}

/// Equal, in time that depends only on the lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = (a.len() ^ b.len()) as u8 | u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0xff);
        diff |= x ^ y;
    }
    diff == 0
}

fn unauthorized(why: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(code::UNAUTHORIZED, why)])
}

/// Whether the store behind `store` holds a key (serve's start: beyond
/// loopback, a key or a token is required).
pub fn store_has_keys(store: &Local) -> Result<bool> {
    store.read()?.has_api_keys()
}

impl Auth {
    pub fn new(token: Option<&str>) -> Auth {
        Auth {
            token: token.map(|t| api_keys::hash(t.as_bytes())),
            cache: Mutex::new(None),
            recorded: Mutex::new(HashMap::new()),
        }
    }

    /// Who sent a request of `method` to `path` with `headers`; 401 when
    /// the server needs a credential and the request has none that holds.
    pub async fn caller(
        self: &Arc<Self>,
        store: &Local,
        stamps: Option<(super::cache::Seen, Option<Stamp>)>,
        method: &axum::http::Method,
        path: &str,
        headers: &HeaderMap,
    ) -> Result<Caller> {
        let open_path = (method == axum::http::Method::GET || method == axum::http::Method::HEAD)
            && OPEN_PATHS.contains(&path);
        // The probes answer without the store's keys: health must not wait
        // for the store at all, and ready bounds its own wait.
        if open_path {
            return Ok(Caller::Public);
        }
        let cred = credential(headers);
        if let (Some(token), Credential::Bearer(secret)) = (&self.token, &cred)
            && constant_time_eq(api_keys::hash(secret).as_bytes(), token.as_bytes())
        {
            return Ok(Caller::Key {
                name: api_keys::TOKEN_NAME.into(),
                role: Role::Admin,
            });
        }
        let hash = match &cred {
            Credential::Bearer(secret) => Some(api_keys::hash(secret)),
            _ => None,
        };
        // Kept while no writer came (see [`super::cache`]); the stamp is
        // read before the store is.
        let memo = store.kept.as_ref().zip(stamps);
        let memo_key = hash.clone().unwrap_or_default();
        let (key, any) = match memo.and_then(|(kept, st)| kept.keys.get(st, &memo_key)) {
            Some(found) => found,
            None => {
                let (me, local) = (self.clone(), store.clone());
                let found = tokio::task::spawn_blocking(move || me.lookup(&local, hash.as_deref()))
                    .await
                    .map_err(|e| {
                        Error::store(
                            code::STORE_IO,
                            format!("the request failed inside the server: {e}"),
                        )
                    })??;
                if let Some((kept, st)) = memo {
                    kept.keys.put(st, memo_key, found.clone());
                }
                found
            }
        };
        let refusal = match key {
            Some(k) => {
                let now = chrono::Utc::now()
                    .naive_utc()
                    .format(crate::core::TIME_FORMAT)
                    .to_string();
                match k.refusal(&now) {
                    None => {
                        self.note_use(store, &k, now);
                        return Ok(Caller::Key {
                            name: k.name,
                            role: k.role,
                        });
                    }
                    Some(why) => why,
                }
            }
            None if self.token.is_none() && !any => return Ok(Caller::Open),
            None => match cred {
                Credential::None => "send `Authorization: Bearer SECRET` with an API key of \
                                     this server (`payctl key create`) or its token"
                    .into(),
                Credential::Malformed => "header Authorization: is not `Bearer SECRET`".into(),
                Credential::Bearer(_) => {
                    "the bearer credential is neither an API key of this server nor its token"
                        .into()
                }
            },
        };
        if open_path {
            return Ok(Caller::Public);
        }
        Err(unauthorized(refusal))
    }

    /// Who the secret whose SHA-256 is `hash` stands for now: the console
    /// (see [`super::ui`]) keeps the hash of the key a session signed in
    /// with, never the key, and asks again at each request, so that a key
    /// revoked or expired since ends its sessions at once (401).
    pub async fn by_hash(self: &Arc<Self>, store: &Local, hash: &str) -> Result<Caller> {
        if let Some(token) = &self.token
            && constant_time_eq(hash.as_bytes(), token.as_bytes())
        {
            return Ok(Caller::Key {
                name: api_keys::TOKEN_NAME.into(),
                role: Role::Admin,
            });
        }
        let (me, local, h) = (self.clone(), store.clone(), hash.to_string());
        let (key, _) = tokio::task::spawn_blocking(move || me.lookup(&local, Some(&h)))
            .await
            .map_err(|e| {
                Error::store(
                    code::STORE_IO,
                    format!("the request failed inside the server: {e}"),
                )
            })??;
        let now = chrono::Utc::now()
            .naive_utc()
            .format(crate::core::TIME_FORMAT)
            .to_string();
        let Some(k) = key else {
            return Err(unauthorized("the key is no longer one of this server's"));
        };
        if let Some(why) = k.refusal(&now) {
            return Err(unauthorized(why));
        }
        self.note_use(store, &k, now);
        Ok(Caller::Key {
            name: k.name,
            role: k.role,
        })
    }

    /// The key of `hash` (revoked and expired ones included), and whether
    /// the store has any key: from the keys kept since the store's stamp
    /// last changed, else from the store itself.
    fn lookup(&self, store: &Local, hash: Option<&str>) -> Result<(Option<ApiKey>, bool)> {
        // While the server's creates hold the store, its keys are read
        // through it (a create changes none): opening the store would wait
        // for them to let it go, and knock, which makes them stop and let
        // it go (a request that missed the keys kept was a create's p99).
        if let Some(found) = store
            .kept
            .as_ref()
            .and_then(|k| k.group.held(|s| self.lookup_in(s, hash)))
        {
            return found;
        }
        self.lookup_in(&store.read()?, hash)
    }

    /// [`Auth::lookup`] in the store `s`.
    fn lookup_in(&self, s: &Store, hash: Option<&str>) -> Result<(Option<ApiKey>, bool)> {
        let Some(stamp) = s.api_keys_stamp()? else {
            let key = match hash {
                Some(h) => s.api_key(h)?,
                None => None,
            };
            let any = key.is_some() || s.has_api_keys()?;
            return Ok((key, any));
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let cached = match cache.take() {
            Some(c) if c.stamp == stamp => c,
            _ => Cached {
                stamp,
                by_hash: s
                    .api_keys()?
                    .into_iter()
                    .map(|k| (k.hash.clone(), k))
                    .collect(),
            },
        };
        let found = (
            hash.and_then(|h| cached.by_hash.get(h).cloned()),
            !cached.by_hash.is_empty(),
        );
        *cache = Some(cached);
        Ok(found)
    }

    /// Record the use of `key` at `now` in the background, unless this
    /// server did within [`USE_EVERY`]; a failure only leaves it for later.
    fn note_use(&self, store: &Local, key: &ApiKey, now: String) {
        {
            let mut recorded = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
            if recorded
                .get(&key.hash)
                .is_some_and(|t| t.elapsed() < USE_EVERY)
            {
                return;
            }
            recorded.insert(key.hash.clone(), Instant::now());
        }
        let (store, hash) = (store.clone(), key.hash.clone());
        tokio::task::spawn_blocking(move || {
            let _ = store
                .write()
                .and_then(|s| api_keys::record_use(&s, &[(hash, now)]));
        });
    }
}

/// The role a request to `e` needs; `None`: any caller (an open path).
pub fn needed(e: &Endpoint) -> Option<Role> {
    // Many profile creates: what one create needs.
    if e.op == super::endpoints::Op::ProfileImport {
        return Some(Role::Writer);
    }
    if e.path.starts_with("/_payctl/") {
        if e.method == Method::Get && OPEN_PATHS.contains(&e.path) {
            return None;
        }
        return Some(Role::Admin);
    }
    // Webhooks hold signing secrets and send the store's events anywhere.
    if e.path.starts_with("/webhooks") || e.path.ends_with("/resend") {
        return Some(Role::Admin);
    }
    Some(if e.method == Method::Get {
        Role::Reader
    } else {
        Role::Writer
    })
}

/// 403 (10010) when `caller`'s role does not reach what `e` needs
/// (`method` and `path` as the request sent them, for the message).
pub fn allow(caller: &Caller, e: &Endpoint, method: &str, path: &str) -> Result<()> {
    let Some(need) = needed(e) else {
        return Ok(());
    };
    match caller {
        Caller::Open => Ok(()),
        Caller::Public => Err(unauthorized(
            "send `Authorization: Bearer SECRET` with an API key of this server or its token",
        )),
        Caller::Key { role, .. } if *role >= need => Ok(()),
        Caller::Key { name, role } => {
            let roles: Vec<&str> = Role::ALL
                .iter()
                .filter(|r| **r >= need)
                .map(|r| r.as_str())
                .collect();
            let article = if need == Role::Admin { "an" } else { "a" };
            Err(Error::refused(vec![ApiError::new(
                code::FORBIDDEN,
                format!(
                    "the API key `{name}` has the role {role}; {} {} needs {article} {} key",
                    super::access_log::shown(method, 16),
                    super::access_log::shown(path, 100),
                    roles.join(" or ")
                ),
            )]))
        }
    }
}

/// The audit actor of a request: a key's name, with the `X-Payctl-Actor`
/// it claims as `NAME:ACTOR` (at most [`crate::limits::MAX_ACTOR`] characters
/// in all: 400 otherwise); without a key, the header's actor or serve's.
pub fn actor(caller: &Caller, claimed: Option<String>, default: &str) -> Result<String> {
    let max = crate::limits::MAX_ACTOR;
    match (caller, claimed) {
        (Caller::Key { name, .. }, None) => Ok(name.clone()),
        (Caller::Key { name, .. }, Some(a)) => {
            let full = format!("{name}:{a}");
            let n = full.chars().count();
            if n > max {
                return Err(Error::one(
                    code::INVALID_VALUE,
                    format!(
                        "header X-Payctl-Actor: is recorded as `{name}:ACTOR`, {n} characters \
                         here; an actor is at most {max}: send at most {} characters with the \
                         key `{name}`",
                        max.saturating_sub(name.chars().count() + 1)
                    ),
                ));
            }
            Ok(full)
        }
        (_, Some(a)) => Ok(a),
        (_, None) => Ok(default.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secret", b"secreT"));
        assert!(!constant_time_eq(b"secret", b"secret2"));
        assert!(!constant_time_eq(b"", b"x"));
        let mut h = HeaderMap::new();
        h.insert(
            header::AUTHORIZATION,
            axum::http::HeaderValue::from_static("Bearer tok"),
        );
        assert!(matches!(credential(&h), Credential::Bearer(s) if s == b"tok"));
        h.insert(
            header::AUTHORIZATION,
            axum::http::HeaderValue::from_static("Basic tok"),
        );
        assert!(matches!(credential(&h), Credential::Malformed));
    }

    #[test]
    fn roles_follow_the_routes() {
        let role_of = |m: Method, p: &str| {
            let e = super::super::endpoints::ENDPOINTS
                .iter()
                .find(|e| e.method == m && e.path == p)
                .unwrap_or_else(|| panic!("{p}"));
            needed(e)
        };
        assert_eq!(
            role_of(Method::Get, "/customer-profiles"),
            Some(Role::Reader)
        );
        assert_eq!(role_of(Method::Get, "/openapi.json"), Some(Role::Reader));
        assert_eq!(
            role_of(Method::Post, "/customer-profiles"),
            Some(Role::Writer)
        );
        assert_eq!(role_of(Method::Post, "/_payctl/worker"), Some(Role::Admin));
        assert_eq!(role_of(Method::Get, "/_payctl/health"), None);
    }

    #[test]
    fn a_keys_actor_carries_its_name() {
        let k = Caller::Key {
            name: "ci".into(),
            role: Role::Writer,
        };
        assert_eq!(actor(&k, None, "srv").unwrap(), "ci");
        assert_eq!(actor(&k, Some("alice".into()), "srv").unwrap(), "ci:alice");
        assert!(actor(&k, Some("a".repeat(62)), "srv").is_err());
        assert_eq!(actor(&k, Some("a".repeat(61)), "srv").unwrap().len(), 64);
        assert_eq!(actor(&Caller::Open, None, "srv").unwrap(), "srv");
    }
}
