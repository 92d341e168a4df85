//! Request headers `payctl serve` reads itself: the actor of
//! `X-Payctl-Actor`, and the headers that count once.

use axum::http::HeaderMap;

use super::endpoints;
use crate::error::{ApiError, Error, Result, code};

/// Longest actor name (characters), as `--actor`.
const MAX_ACTOR: usize = crate::limits::MAX_ACTOR;
/// Longest `X-Payctl-Actor` as sent: [`MAX_ACTOR`] characters of 4 UTF-8
/// bytes, each byte percent-encoded (`%F0%9F%98%80`, 12 bytes a character).
pub const MAX_ACTOR_HEADER: usize = 4 * 3 * MAX_ACTOR;
/// Headers whose second copy would be ignored: refused when sent twice
/// (RFC 9112 refuses a second `Host` too). Every `Content-Type` sent must
/// be JSON's (see [`super::body::not_json`]).
pub(crate) const ONCE: [&str; 5] = [
    "Authorization",
    "X-Payctl-Actor",
    "Idempotency-Key",
    "Origin",
    "Host",
];
/// The actor of `X-Payctl-Actor` (None: not sent): visible ASCII,
/// percent-encoded UTF-8 (remote mode encodes it so that any `--actor`
/// travels), 1-64 characters once decoded with the rules of `--actor`, and
/// never the worker's SYSTEM.
pub(crate) fn actor_of(headers: &HeaderMap) -> Result<Option<String>> {
    const NAME: &str = "X-Payctl-Actor";
    let bad = |why: String| refused(code::INVALID_VALUE, format!("header {NAME}: {why}"));
    let Some(v) = headers.get(NAME) else {
        return Ok(None);
    };
    let rule = format!(
        "an actor is 1-{MAX_ACTOR} characters, sent as visible ASCII with any other character \
         percent-encoded as UTF-8 (`%C3%A9` for é), so at most {MAX_ACTOR_HEADER} bytes as sent"
    );
    let raw = v
        .to_str()
        .ok()
        .filter(|t| t.chars().all(|c| !c.is_control()))
        .ok_or_else(|| bad(format!("holds a byte that is not visible ASCII; {rule}")))?;
    let raw = raw.trim();
    if raw.len() > MAX_ACTOR_HEADER {
        return Err(bad(format!("is {} bytes as sent; {rule}", raw.len())));
    }
    let actor = endpoints::percent_decode(raw, false)
        .ok_or_else(|| bad(format!("is not percent-encoded UTF-8; {rule}")))?;
    let n = actor.chars().count();
    if n == 0 || n > MAX_ACTOR {
        return Err(bad(format!(
            "must be 1-{MAX_ACTOR} characters once percent-decoded (is {n})"
        )));
    }
    crate::core::rules::clean_text(&actor).map_err(bad)?;
    if actor.eq_ignore_ascii_case(crate::model::status::SYSTEM) {
        return Err(bad(format!(
            "`{actor}` is the background worker's actor; no request may write as it"
        )));
    }
    Ok(Some(actor))
}

/// A header that counts sent twice (a second `Authorization` or
/// `Idempotency-Key` would be ignored silently): 400 naming it.
pub(crate) fn sent_once(headers: &HeaderMap) -> Result<()> {
    for name in ONCE {
        if headers.get_all(name).iter().nth(1).is_some() {
            return Err(refused(
                code::INVALID_VALUE,
                format!("header {name}: sent more than once; send it once"),
            ));
        }
    }
    Ok(())
}

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}
