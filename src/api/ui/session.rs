//! The console's sign-in sessions, on a server with API keys or a token.
//!
//! A session is a random token (32 bytes from the thread's CSPRNG, as hex)
//! that only the browser's cookie and this server's memory hold; the server
//! keeps with it the SHA-256 of the key it was opened with (never the key)
//! and asks [`Auth::by_hash`](crate::api::auth::Auth::by_hash) again at each
//! request, so a key revoked or expired since ends its sessions at once. A
//! session ends at its expiry (`serve --ui-session`), when signed out, or
//! when the server stops (sessions are not written anywhere).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::Rng;

/// The cookie's name.
pub const COOKIE: &str = "payctl_session";
/// Most sessions kept at once: past it, the oldest is ended (a key holder
/// signing in in a loop cannot grow the server's memory without bound).
const MAX_SESSIONS: usize = 10_000;

#[derive(Debug, Clone)]
struct Session {
    /// The SHA-256 of the key (or token) signed in with.
    key_hash: String,
    started: Instant,
    expires: Instant,
}

/// The sessions of one server.
#[derive(Debug, Default)]
pub struct Sessions {
    by_token: Mutex<HashMap<String, Session>>,
}

impl Sessions {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.by_token.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new session for the key of `key_hash`, lasting `ttl`: its token.
    pub fn open(&self, key_hash: String, ttl: Duration) -> String {
        let mut rng = rand::rng();
        let bytes: [u8; 32] = rng.random();
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut map = self.map();
        map.retain(|_, s| s.expires > now);
        if map.len() >= MAX_SESSIONS
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.started)
                .map(|(t, _)| t.clone())
        {
            map.remove(&oldest);
        }
        map.insert(
            token.clone(),
            Session {
                key_hash,
                started: now,
                expires: now + ttl,
            },
        );
        token
    }

    /// The key hash of the live session `token`; an expired one is ended.
    pub fn key_hash(&self, token: &str) -> Option<String> {
        let mut map = self.map();
        let s = map.get(token)?;
        if s.expires <= Instant::now() {
            map.remove(token);
            return None;
        }
        Some(s.key_hash.clone())
    }

    /// End the session `token` (sign-out, or its key refused).
    pub fn end(&self, token: &str) {
        self.map().remove(token);
    }
}

/// The session token a request's `Cookie` headers carry, if any: only the
/// shape a token has (64 hex digits), so nothing else is looked up.
pub fn token_of(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, value)| {
            *name == COOKIE && value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit())
        })
        .map(|(_, value)| value.to_string())
}

/// The `Set-Cookie` of a new session: not readable by scripts, never sent
/// on a request another site starts, only to the console's paths, only
/// over HTTPS when the server serves it, and gone after `ttl`.
pub fn set_cookie(token: &str, ttl: Duration, secure: bool) -> String {
    format!(
        "{COOKIE}={token}; Path=/ui; HttpOnly; SameSite=Strict; Max-Age={}{}",
        ttl.as_secs().max(1),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` that removes the session's cookie.
pub fn clear_cookie(secure: bool) -> String {
    format!(
        "{COOKIE}=; Path=/ui; HttpOnly; SameSite=Strict; Max-Age=0{}",
        if secure { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_expire_and_end() {
        let s = Sessions::default();
        let t = s.open("h".into(), Duration::from_secs(60));
        assert_eq!(t.len(), 64);
        assert_eq!(s.key_hash(&t).as_deref(), Some("h"));
        s.end(&t);
        assert_eq!(s.key_hash(&t), None);
        let t = s.open("h".into(), Duration::ZERO);
        assert_eq!(s.key_hash(&t), None);
        let other = s.open("h".into(), Duration::from_secs(60));
        assert_ne!(t, other);
    }

    #[test]
    fn only_a_token_shaped_cookie_is_read() {
        let mut h = axum::http::HeaderMap::new();
        let tok = "a".repeat(64);
        h.insert(
            axum::http::header::COOKIE,
            format!("x=1; {COOKIE}={tok}").parse().unwrap(),
        );
        assert_eq!(token_of(&h), Some(tok));
        h.insert(
            axum::http::header::COOKIE,
            format!("{COOKIE}=zz").parse().unwrap(),
        );
        assert_eq!(token_of(&h), None);
        let c = set_cookie("t", Duration::from_secs(28800), true);
        assert!(c.contains("HttpOnly; SameSite=Strict; Max-Age=28800; Secure"));
        assert!(!set_cookie("t", Duration::from_secs(1), false).contains("Secure"));
    }
}
