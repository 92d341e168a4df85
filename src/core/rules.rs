//! Field rules shared by the resources (spec section 2 and 8). Lengths are
//! counted in characters, not bytes.

use std::sync::LazyLock;

use chrono::{Datelike, NaiveDate};
use regex::Regex;
use rust_decimal::Decimal;
use serde_json::Value;

use super::body::Obj;
use crate::error::Errors;
use crate::model::Tag;

/// The WHATWG HTML "valid e-mail address" rule.
pub const EMAIL_PATTERN: &str = r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
/// A plus sign, a leading digit 1-9, then 1 to 15 digits.
pub const PHONE_PATTERN: &str = r"^\+[1-9][0-9]{1,15}$";
/// Five digits, optionally a hyphen and four more.
pub const ZIP_PATTERN: &str = r"^[0-9]{5}(?:-[0-9]{4})?$";

static EMAIL: LazyLock<Regex> = LazyLock::new(|| Regex::new(EMAIL_PATTERN).expect("email regex"));
static PHONE: LazyLock<Regex> = LazyLock::new(|| Regex::new(PHONE_PATTERN).expect("phone regex"));
static ZIP: LazyLock<Regex> = LazyLock::new(|| Regex::new(ZIP_PATTERN).expect("zip regex"));

/// Characters of customer keys and tags: digits, letters, `! @ . - _ #`.
pub fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '!' | '@' | '.' | '-' | '_' | '#')
}

pub const KEY_CHARS: &str = "digits, letters and ! @ . - _ #";

pub fn char_len(s: &str) -> usize {
    s.chars().count()
}

/// Length between `min` and `max` characters.
pub fn length(errs: &mut Errors, path: &str, s: &str, min: usize, max: usize) -> bool {
    let n = char_len(s);
    if n < min || n > max {
        errs.invalid(
            path,
            format!("must be {min}-{max} characters long (is {n})"),
        );
        return false;
    }
    true
}

/// `min`-`max` characters of [`KEY_CHARS`].
pub fn key_text(errs: &mut Errors, path: &str, s: &str, min: usize, max: usize) -> bool {
    let ok = length(errs, path, s, min, max);
    if !s.chars().all(is_key_char) {
        errs.invalid(path, format!("may hold only {KEY_CHARS}"));
        return false;
    }
    ok
}

pub fn email(errs: &mut Errors, path: &str, s: &str) {
    if length(errs, path, s, 1, 256) && !EMAIL.is_match(s) {
        errs.invalid(
            path,
            "is not a valid e-mail address (WHATWG HTML rule: local@domain)",
        );
    }
}

pub fn phone(errs: &mut Errors, path: &str, s: &str) {
    if !PHONE.is_match(s) {
        errs.invalid(
            path,
            "must be a plus sign, a digit 1-9, then 1 to 15 digits (e.g. +15551234567)",
        );
    }
}

pub fn zip(errs: &mut Errors, path: &str, s: &str) {
    if !ZIP.is_match(s) {
        errs.invalid(path, "must be 5 digits, or 5 digits, a hyphen and 4 digits");
    }
}

/// `min` to `max` ASCII digits; the value is never echoed (it may be sensitive).
pub fn digits(errs: &mut Errors, path: &str, s: &str, allowed: &[usize], what: &str) {
    if !s.bytes().all(|b| b.is_ascii_digit()) || !allowed.contains(&s.len()) {
        errs.invalid(path, format!("must be {what}"));
    }
}

/// Parse MM/DD/YYYY or YYYY-MM-DD as a real calendar date.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = match b.len() {
        10 if b[2] == b'/' && b[5] == b'/' => (num(6..10)?, num(0..2)?, num(3..5)?),
        10 if b[4] == b'-' && b[7] == b'-' => (num(0..4)?, num(5..7)?, num(8..10)?),
        _ => return None,
    };
    NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
}

/// Whole years from `born` to `today`.
pub fn age(born: NaiveDate, today: NaiveDate) -> i32 {
    let mut years = today.year() - born.year();
    if (today.month(), today.day()) < (born.month(), born.day()) {
        years -= 1;
    }
    years
}

pub fn date_of_birth(
    errs: &mut Errors,
    path: &str,
    s: &str,
    today: NaiveDate,
    min_age: u32,
    max_age: u32,
) {
    let Some(born) = parse_date(s) else {
        errs.invalid(path, "must be a real date written MM/DD/YYYY or YYYY-MM-DD");
        return;
    };
    let a = age(born, today);
    if a < min_age as i32 || a > max_age as i32 {
        errs.invalid(
            path,
            format!(
                "the customer's age must be {min_age} to {max_age} years (the Facilitator's limits)"
            ),
        );
    }
}

/// Read and check an array of tags (`key`, `value`: 3-50 of [`KEY_CHARS`]).
pub fn tags(errs: &mut Errors, obj: &Obj, name: &str, unique_keys: bool) -> Option<Vec<Tag>> {
    let arr = obj.array(name, errs)?;
    let mut out = Vec::new();
    let mut ok = true;
    for (i, v) in arr.iter().enumerate() {
        let path = format!("{}[{i}]", obj.at(name));
        let Some(t) = super::body::as_object(v, &path, errs) else {
            ok = false;
            continue;
        };
        t.known(&["key", "value"], errs);
        let mut pair = [None, None];
        for (slot, field) in pair.iter_mut().zip(["key", "value"]) {
            let Some(s) = t.string(field, errs) else {
                if !t.has(field) {
                    errs.required(&t.at(field));
                }
                continue;
            };
            if key_text(errs, &t.at(field), s, 3, 50) {
                *slot = Some(s.to_string());
            }
        }
        match pair {
            [Some(key), Some(value)] => {
                if unique_keys && out.iter().any(|x: &Tag| x.key == key) {
                    errs.invalid(&t.at("key"), "tag keys must be unique");
                    ok = false;
                }
                out.push(Tag { key, value })
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// Tags as an order-free set, for comparing a non-updatable field.
pub fn same_tags(a: &[Tag], b: &[Tag]) -> bool {
    let mut a: Vec<_> = a.iter().map(|t| (&t.key, &t.value)).collect();
    let mut b: Vec<_> = b.iter().map(|t| (&t.key, &t.value)).collect();
    a.sort();
    b.sort();
    a == b
}

/// An amount: greater than 0 with at most 2 decimal places.
pub fn amount(errs: &mut Errors, path: &str, d: Decimal) -> bool {
    if d <= Decimal::ZERO {
        errs.invalid(path, "must be greater than 0");
        return false;
    }
    if d.normalize().scale() > 2 {
        errs.invalid(path, "may have at most 2 decimal places");
        return false;
    }
    true
}

/// The string of an optional field, where an empty string means "not given".
pub fn non_empty(v: Option<&str>) -> Option<&str> {
    v.filter(|s| !s.is_empty())
}

/// Whether a JSON value is a string equal to `s`.
pub fn is_str(v: Option<&Value>, s: &str) -> bool {
    v.and_then(Value::as_str) == Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(f: impl FnOnce(&mut Errors)) -> bool {
        let mut e = Errors::new();
        f(&mut e);
        e.is_empty()
    }

    #[test]
    fn emails() {
        assert!(ok(|e| email(e, "x", "a.b+c@example.com")));
        assert!(ok(|e| email(e, "x", "a@localhost")));
        for bad in ["", "a", "a@", "@b.c", "a@b..c", "a b@c.d", "a@-b.c"] {
            assert!(!ok(|e| email(e, "x", bad)), "{bad}");
        }
    }

    #[test]
    fn phones() {
        assert!(ok(|e| phone(e, "x", "+12")));
        assert!(ok(|e| phone(e, "x", "+1234567890123456")));
        for bad in ["+1", "+0123", "12345", "+12345678901234567", "+1 234"] {
            assert!(!ok(|e| phone(e, "x", bad)), "{bad}");
        }
    }

    #[test]
    fn dates() {
        assert_eq!(
            parse_date("02/29/2000"),
            NaiveDate::from_ymd_opt(2000, 2, 29)
        );
        assert_eq!(
            parse_date("2000-02-29"),
            NaiveDate::from_ymd_opt(2000, 2, 29)
        );
        assert_eq!(parse_date("02/29/2001"), None);
        assert_eq!(parse_date("2001-13-01"), None);
        assert_eq!(parse_date("1/2/2000"), None);
        let today = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        assert_eq!(
            age(NaiveDate::from_ymd_opt(2008, 11, 21).unwrap(), today),
            18
        );
        assert_eq!(
            age(NaiveDate::from_ymd_opt(2008, 11, 22).unwrap(), today),
            17
        );
    }

    #[test]
    fn lengths_count_characters() {
        assert!(ok(|e| {
            length(e, "x", &"é".repeat(50), 1, 50);
        }));
        assert!(!ok(|e| {
            length(e, "x", &"é".repeat(51), 1, 50);
        }));
    }

    #[test]
    fn amounts() {
        assert!(ok(|e| {
            amount(e, "a", "0.01".parse().unwrap());
        }));
        assert!(ok(|e| {
            amount(e, "a", "10.50".parse().unwrap());
        }));
        assert!(!ok(|e| {
            amount(e, "a", "0".parse().unwrap());
        }));
        assert!(!ok(|e| {
            amount(e, "a", "1.001".parse().unwrap());
        }));
    }
}
