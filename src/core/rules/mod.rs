//! Field rules shared by the resources (spec section 2 and 8). Lengths are
//! counted in characters, not bytes.
//!
//! This file holds the rules of text fields (lengths, keys and tags'
//! characters, e-mail, phone, ZIP, digits) and the caps on arrays; dates
//! are in [`dates`], tags in [`tags`](mod@tags), amounts in [`amounts`].

mod amounts;
mod dates;
mod tags;

use serde_json::Value;

use crate::error::Errors;

pub use amounts::{AMOUNT_INT_DIGITS, amount};
pub use dates::{DATE_PATTERN, date_of_birth};
pub use tags::{same_tags, tags};

/// The WHATWG HTML "valid e-mail address" rule.
pub const EMAIL_PATTERN: &str = r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
/// A plus sign, a leading digit 1-9, then 1 to 15 digits.
pub const PHONE_PATTERN: &str = r"^\+[1-9][0-9]{1,15}$";
/// Five digits, optionally a hyphen and four more.
pub const ZIP_PATTERN: &str = r"^[0-9]{5}(?:-[0-9]{4})?$";

// The lengths of the text fields, in characters: the validators check them
// and the OpenAPI document states them (`minLength`, `maxLength`), from here.

/// Names: a person's first, middle and last name, an organization's, a city.
pub const NAME_MAX: usize = 50;
/// Longer free text: address lines, an instrument's label and change reason,
/// the reasons and the note of a check.
pub const TEXT_MAX: usize = 256;
/// An e-mail address.
pub const EMAIL_MAX: usize = 256;
/// A tag's key and value: of a profile or an instrument (of [`KEY_CHARS`]).
pub const TAG_LEN: (usize, usize) = (3, TAG_MAX);
/// A tag's key and value: of a transaction (any characters).
pub const TXN_TAG_LEN: (usize, usize) = (1, TAG_MAX);
pub use crate::model::limits::{AMOUNT_PLACES, TAG_MAX};

// The three patterns above are matched by hand below: compiling them (the
// e-mail one's `{0,61}` most) cost a quarter of a millisecond of every
// command that validates a profile, a tenth of a create's CPU. The
// patterns stay the documentation (the OpenAPI document states them), and
// a property test checks that both agree.

/// [`EMAIL_PATTERN`].
fn is_email(s: &str) -> bool {
    const LOCAL: &[u8] = b".!#$%&'*+/=?^_`{|}~-";
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || LOCAL.contains(&b))
        && domain.split('.').all(|label| {
            let b = label.as_bytes();
            (1..=63).contains(&b.len())
                && b[0].is_ascii_alphanumeric()
                && b[b.len() - 1].is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        })
}

/// [`PHONE_PATTERN`].
fn is_phone(s: &str) -> bool {
    let b = s.as_bytes();
    (3..=17).contains(&b.len())
        && b[0] == b'+'
        && (b'1'..=b'9').contains(&b[1])
        && b[2..].iter().all(u8::is_ascii_digit)
}

/// [`ZIP_PATTERN`].
fn is_zip(s: &str) -> bool {
    let b = s.as_bytes();
    let five = |d: &[u8]| d.iter().all(u8::is_ascii_digit);
    match b.len() {
        5 => five(b),
        10 => five(&b[..5]) && b[5] == b'-' && five(&b[6..]),
        _ => false,
    }
}

/// Caps on every array and on every input read whole (issue 12): without
/// them one request could store millions of entries, and every later read,
/// list and update of the record would pay for them. the book's "Rules payctl
/// decides" (docs/src/reference/rules.md) and the commands' `--help` say the same numbers.
pub use crate::limits as caps;
pub use crate::text::{clean_text, forbidden_char};

/// At most `max` entries in the array at `path` (10001 naming the cap).
pub fn at_most(errs: &mut Errors, path: &str, len: usize, max: usize, what: &str) -> bool {
    if len > max {
        errs.invalid(path, format!("may hold at most {max} {what} (has {len})"));
        return false;
    }
    true
}

/// Characters of customer keys and tags: digits, letters, `! @ . - _ #`.
pub fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '!' | '@' | '.' | '-' | '_' | '#')
}

/// [`is_key_char`] as a pattern of a whole key (the OpenAPI document's).
pub const KEY_PATTERN: &str = r"^[A-Za-z0-9!@.\-_#]+$";

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
    if length(errs, path, s, 1, EMAIL_MAX) && !is_email(s) {
        errs.invalid(
            path,
            "is not a valid e-mail address (WHATWG HTML rule: local@domain)",
        );
    }
}

pub fn phone(errs: &mut Errors, path: &str, s: &str) {
    if !is_phone(s) {
        errs.invalid(
            path,
            "must be a plus sign, a digit 1-9, then 1 to 15 digits (e.g. +15551234567)",
        );
    }
}

pub fn zip(errs: &mut Errors, path: &str, s: &str) {
    if !is_zip(s) {
        errs.invalid(path, "must be 5 digits, or 5 digits, a hyphen and 4 digits");
    }
}

/// `min` to `max` ASCII digits; the value is never echoed (it may be sensitive).
pub fn digits(errs: &mut Errors, path: &str, s: &str, allowed: &[usize], what: &str) {
    if !s.bytes().all(|b| b.is_ascii_digit()) || !allowed.contains(&s.len()) {
        errs.invalid(path, format!("must be {what}"));
    }
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
    fn clean_text_keeps_names_and_refuses_invisible_tricks() {
        for ok in [
            "Zoë 李 😀",
            "مهدی\u{200C}زاده",
            "क्\u{200D}ष",
            "e\u{0301}",
            "👍🏽",
        ] {
            assert_eq!(clean_text(ok), Ok(()), "{ok:?}");
        }
        for bad in [
            "a\u{1b}[2J",
            "x\u{202E}y",
            "\u{2066}",
            "\u{2069}",
            "\u{2028}",
            "\u{2029}",
            "\u{200B}",
            "\u{FEFF}",
            "\u{00AD}",
            "\u{FDD0}",
            "\u{FFFF}",
            "\u{10FFFE}",
            "\u{E0041}",
        ] {
            assert!(clean_text(bad).is_err(), "{bad:?}");
        }
        assert!(clean_text("x\u{202E}").unwrap_err().contains("U+202E"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The hand-written matchers say what the documented patterns say.
        #[test]
        fn the_matchers_agree_with_their_patterns(
            s in "[a-zA-Z0-9.@+!#~ _-]{0,12}(@[a-z0-9-]{0,70}(\\.[a-z0-9-]{0,4}){0,2})?",
            n in "[+0-9 -]{0,19}",
        ) {
            use std::sync::LazyLock;
            static RE: LazyLock<[regex::Regex; 3]> = LazyLock::new(|| {
                [EMAIL_PATTERN, PHONE_PATTERN, ZIP_PATTERN].map(|p| regex::Regex::new(p).unwrap())
            });
            proptest::prop_assert_eq!(is_email(&s), RE[0].is_match(&s), "{}", s);
            proptest::prop_assert_eq!(is_phone(&n), RE[1].is_match(&n), "{}", n);
            proptest::prop_assert_eq!(is_zip(&n), RE[2].is_match(&n), "{}", n);
        }
    }

    #[test]
    fn the_key_pattern_is_the_key_rule() {
        let re = regex::Regex::new(KEY_PATTERN).unwrap();
        for c in (0..0x250u32).filter_map(char::from_u32) {
            assert_eq!(is_key_char(c), re.is_match(&c.to_string()), "{c:?}");
        }
        assert!(!re.is_match(""));
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
    fn lengths_count_characters() {
        assert!(ok(|e| {
            length(e, "x", &"é".repeat(50), 1, 50);
        }));
        assert!(!ok(|e| {
            length(e, "x", &"é".repeat(51), 1, 50);
        }));
    }

    #[test]
    fn arrays_are_capped_naming_the_cap() {
        assert!(ok(|e| {
            at_most(e, "t", caps::TAGS, caps::TAGS, "tags");
        }));
        let mut e = Errors::new();
        assert!(!at_most(&mut e, "t", 51, caps::TAGS, "tags"));
        assert_eq!(
            e.iter().next().unwrap().message,
            "t: may hold at most 50 tags (has 51)"
        );
        assert_eq!(
            e.iter().next().unwrap().code,
            crate::error::code::INVALID_VALUE
        );
        // The tag reader stops at the cap without reading the entries.
        let many: Vec<Value> = (0..51).map(|_| Value::from(1)).collect();
        let body = serde_json::json!({ "tags": many });
        let mut e = Errors::new();
        let o = super::super::body::as_object(&body, "", &mut e).unwrap();
        assert!(tags(&mut e, &o, "tags", false).is_none());
        assert_eq!(e.iter().count(), 1, "{e:?}");
    }
}
