//! Sensitive values (SSN, account and routing numbers) never leave the store
//! whole: every output shows only their last 4 digits.

use serde_json::Value;

/// Fields whose values are shown reduced to their last 4 digits.
pub const SENSITIVE: &[&str] = &["ssn", "account_number", "routing_number"];

/// How many of a sensitive value's characters are shown.
pub const SHOWN: usize = 4;

pub use crate::model::limits::MASKED_PATTERN;

pub fn last4(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars[chars.len().saturating_sub(SHOWN)..].iter().collect()
}

/// The sensitive values this run has been given (on the command line, in a
/// body), so that no message can show one whole even by accident.
static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Remember a sensitive value this run was given. Values of 4 characters or
/// fewer are their own last 4 and need no masking.
pub fn remember(value: &str) {
    if value.chars().count() > 4
        && let Ok(mut seen) = SEEN.lock()
        && !seen.iter().any(|s| s == value)
    {
        seen.push(value.to_string());
    }
}

/// Remember every sensitive field of a body, at any depth.
pub fn remember_in(v: &Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                match val {
                    Value::String(s) if SENSITIVE.contains(&k.as_str()) => remember(s),
                    Value::Number(n) if SENSITIVE.contains(&k.as_str()) => remember(&n.to_string()),
                    _ => remember_in(val),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(remember_in),
        _ => {}
    }
}

/// A message as it may be shown: every remembered sensitive value in it
/// reduced to its last 4. Other numbers (lengths, bounds, line numbers) are
/// left as they are: messages are built without field values.
pub fn message(msg: &str) -> String {
    let Ok(seen) = SEEN.lock() else {
        return mask_text(msg);
    };
    let mut seen: Vec<&String> = seen.iter().filter(|s| msg.contains(s.as_str())).collect();
    if seen.is_empty() {
        return msg.to_string();
    }
    seen.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = msg.to_string();
    for s in seen {
        out = out.replace(s.as_str(), &format!("…{}", last4(s)));
    }
    out
}

/// Mask every sensitive field of a record, at any depth.
pub fn mask(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                if SENSITIVE.contains(&k.as_str()) {
                    if let Value::String(s) = val {
                        *s = last4(s);
                    } else if let Value::Number(n) = val {
                        *val = Value::String(last4(&n.to_string()));
                    }
                } else {
                    mask(val);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(mask),
        _ => {}
    }
}

/// Text that echoes what a user typed or what a file holds (an identifier, a
/// parser's message about a corrupt record): a free-standing run of 5 or more
/// digits (not part of an identifier, a word or a file path)
/// is reduced to its last 4. Paths are left whole so that a message naming a
/// file (`/backups/20261121/store/meta.json`) names the right one; so is the
/// `line N: ` that starts the errors of `profile import`.
pub fn mask_text(msg: &str) -> String {
    let line_no = msg
        .strip_prefix("line ")
        .and_then(|r| r.split_once(": "))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if let Some((n, rest)) = line_no {
        return format!("line {n}: {}", mask_text(rest));
    }
    let chars: Vec<char> = msg.chars().collect();
    let word = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '/');
    let mut out = String::with_capacity(msg.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let run: String = chars[start..i].iter().collect();
            let free =
                !word(start.checked_sub(1).and_then(|j| chars.get(j))) && !word(chars.get(i));
            if free && run.len() >= 5 && !is_code(&chars[..start], &run, chars.get(i)) {
                out.push('…');
                out.push_str(&run[run.len() - 4..]);
            } else {
                out.push_str(&run);
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether a run of 5 digits is a code, not a value: payctl's own
/// `error[30003]` (a message quoting another error) or a database's
/// `SQLSTATE 08000`. Masked, they told nothing (`error[…0003]`).
fn is_code(before: &[char], run: &str, after: Option<&char>) -> bool {
    let ends_with = |s: &str| {
        let s: Vec<char> = s.chars().collect();
        before.ends_with(&s)
    };
    run.len() == 5 && ((ends_with("error[") && after == Some(&']')) || ends_with("SQLSTATE "))
}

/// A URL as it may be shown: the password of its user info
/// (`scheme://user:PASSWORD@host`) and of a `password=` query parameter
/// replaced by `****`. For URLs that could not be parsed as what they name
/// (a database URL that parses is shown as `store::pg::Target::shown`).
pub fn url_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((info, host)) => match info.split_once(':') {
            Some((user, _)) => format!("{user}:****@{host}"),
            None => authority.to_string(),
        },
        None => authority.to_string(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=****"),
                    _ => pair.to_string(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_string(),
    };
    format!("{scheme}://{authority}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_nested() {
        let mut v = serde_json::json!({"a": {"ssn": "123456789"}, "payment_instrument_ach": {"account_number": "12345678", "routing_number": "021000021"}});
        mask(&mut v);
        assert_eq!(v["a"]["ssn"], "6789");
        assert_eq!(v["payment_instrument_ach"]["account_number"], "5678");
        assert_eq!(v["payment_instrument_ach"]["routing_number"], "0021");
    }

    #[test]
    fn import_line_numbers_are_not_masked() {
        assert_eq!(
            mask_text("line 100001: customer_key: x 123456789"),
            "line 100001: customer_key: x …6789"
        );
        assert_eq!(mask_text("line 123456789"), "line …6789");
    }

    #[test]
    fn masks_digit_runs_in_text() {
        assert_eq!(mask_text("code 10001 x 123456789"), "code …0001 x …6789");
        assert_eq!(
            mask_text("csp_ab123456 and a12345"),
            "csp_ab123456 and a12345"
        );
        assert_eq!(mask_text("1-50 characters"), "1-50 characters");
        assert_eq!(
            mask_text("/backups/20261121/store/index/keys/6162636465 is corrupt"),
            "/backups/20261121/store/index/keys/6162636465 is corrupt"
        );
        assert_eq!(mask_text("ssn 123456789: no"), "ssn …6789: no");
    }

    #[test]
    fn codes_are_not_values() {
        assert_eq!(
            mask_text("worker: error[30003]: Store I/O error: x 123456789"),
            "worker: error[30003]: Store I/O error: x …6789"
        );
        assert_eq!(
            mask_text("connection lost (SQLSTATE 08000); account 12345678"),
            "connection lost (SQLSTATE 08000); account …5678"
        );
        // Only a code's own shape: 5 digits, in its own place.
        assert_eq!(mask_text("error[123456789]"), "error[…6789]");
        assert_eq!(mask_text("SQLSTATE 123456789"), "SQLSTATE …6789");
    }

    #[test]
    fn url_passwords_are_never_shown() {
        assert_eq!(
            url_password("postgresql://app:s3cret@db:5432/pay?sslmode=require&password=x"),
            "postgresql://app:****@db:5432/pay?sslmode=require&password=****"
        );
        assert_eq!(url_password("https://u:p@h/x"), "https://u:****@h/x");
        assert_eq!(url_password("http://host:8080"), "http://host:8080");
        assert_eq!(url_password("not a url"), "not a url");
    }
}
