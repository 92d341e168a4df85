//! Field rules shared by the resources (spec section 2 and 8). Lengths are
//! counted in characters, not bytes.

use chrono::{Datelike, NaiveDate};
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

/// The written form of the dates [`parse_date`] reads, as a pattern (the
/// OpenAPI document's): it cannot say which days a month has.
pub const DATE_PATTERN: &str = "^(?:(?:0[1-9]|1[0-2])/(?:0[1-9]|[12][0-9]|3[01])/[0-9]{4}|[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01]))$";

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
    if !at_most(errs, &obj.at(name), arr.len(), caps::TAGS, "tags") {
        return None;
    }
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
            if key_text(errs, &t.at(field), s, TAG_LEN.0, TAG_LEN.1) {
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

/// Most digits of an amount before its decimal point: what a
/// [`Decimal`] keeps exactly (28 significant digits) less the 2 decimal places.
pub const AMOUNT_INT_DIGITS: usize = 26;

/// An amount, checked on the text of the JSON number itself (so nothing is
/// lost before the check): greater than 0, at most 2 decimal places as
/// written (`5.000` is refused like `0.001`), kept exactly (`100.50` stays
/// `100.50`). An exponent form is read exactly (`1.5E1` is `15`, `1e-3` has 3
/// decimal places); a number too large to keep exactly is refused, never
/// rounded. The work is bounded by the text's length whatever the exponent.
pub fn amount(errs: &mut Errors, path: &str, text: &str) -> Option<Decimal> {
    let Some(n) = Amount::parse(text) else {
        errs.invalid(path, "must be a JSON number such as 100.25");
        return None;
    };
    // Decimal places as written, the exponent moving the point.
    let places = i128::from(n.frac.len() as u32) - n.exp;
    if places > i128::from(AMOUNT_PLACES) {
        let has = if places < 1 << 20 {
            format!(" (has {places})")
        } else {
            String::new()
        };
        errs.invalid(path, format!("may have at most 2 decimal places{has}"));
        return None;
    }
    // Significant digits, from the first one that is not 0.
    let significant = match n.int.trim_start_matches('0') {
        "" => n.frac.trim_start_matches('0').len(),
        int => int.len() + n.frac.len(),
    };
    if n.negative || n.int.bytes().chain(n.frac.bytes()).all(|b| b == b'0') {
        errs.invalid(path, "must be greater than 0");
        return None;
    }
    // Digits before the point once the exponent is applied.
    let int_digits = significant as i128 - places;
    if int_digits > AMOUNT_INT_DIGITS as i128 {
        errs.invalid(
            path,
            format!(
                "is too large to keep exactly (at most {AMOUNT_INT_DIGITS} digits before the decimal point)"
            ),
        );
        return None;
    }
    // The plain text: the digits, zeros for a positive exponent, the point.
    let digits = format!("{}{}", n.int, n.frac);
    let places = places.max(0) as usize;
    let zeros = (-(i128::from(n.frac.len() as u32) - n.exp)).max(0) as usize;
    let mut plain = String::with_capacity(digits.len() + zeros + 1);
    plain.push_str(&digits);
    plain.extend(std::iter::repeat_n('0', zeros));
    if places > 0 {
        plain.insert(plain.len() - places, '.');
    }
    match plain.parse::<Decimal>() {
        Ok(d) => Some(d),
        Err(_) => {
            errs.invalid(path, "is too large to keep exactly");
            None
        }
    }
}

/// The parts of a JSON number's text (`-? int (. frac)? (e exp)?`).
struct Amount<'a> {
    negative: bool,
    int: &'a str,
    frac: &'a str,
    /// The exponent, saturated far beyond any amount (its text may be huge).
    exp: i128,
}

impl<'a> Amount<'a> {
    fn parse(text: &'a str) -> Option<Self> {
        let (negative, rest) = match text.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, text),
        };
        let (mantissa, exp) = match rest.find(['e', 'E']) {
            Some(i) => (&rest[..i], Some(&rest[i + 1..])),
            None => (rest, None),
        };
        let (int, frac) = match mantissa.split_once('.') {
            Some((i, f)) => (i, Some(f)),
            None => (mantissa, None),
        };
        let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !all_digits(int) || (int.len() > 1 && int.starts_with('0')) {
            return None;
        }
        if frac.is_some_and(|f| !all_digits(f)) {
            return None;
        }
        let exp = match exp {
            None => 0,
            Some(e) => {
                let (sign, digits) = match e.as_bytes().first() {
                    Some(b'-') => (-1, &e[1..]),
                    Some(b'+') => (1, &e[1..]),
                    _ => (1, e),
                };
                if !all_digits(digits) {
                    return None;
                }
                // Past 2^64 every amount is refused anyway; keep the sum exact.
                let magnitude = digits
                    .trim_start_matches('0')
                    .parse::<u64>()
                    .map_or(i128::from(u64::MAX), i128::from);
                sign * magnitude
            }
        };
        Some(Amount {
            negative,
            int,
            frac: frac.unwrap_or(""),
            exp,
        })
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
    fn every_date_read_has_the_date_pattern() {
        let re = regex::Regex::new(DATE_PATTERN).unwrap();
        let mut day = NaiveDate::from_ymd_opt(1999, 12, 25).unwrap();
        for _ in 0..800 {
            for s in [day.format("%m/%d/%Y"), day.format("%Y-%m-%d")] {
                let s = s.to_string();
                assert!(parse_date(&s).is_some() && re.is_match(&s), "{s}");
            }
            day = day.succ_opt().unwrap();
        }
        for bad in [
            "2000-13-01",
            "00/10/2000",
            "2000/01/01",
            "1-1-2000",
            "20000-01-01",
        ] {
            assert!(parse_date(bad).is_none() && !re.is_match(bad), "{bad}");
        }
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

    fn amt(text: &str) -> std::result::Result<String, String> {
        let mut e = Errors::new();
        match amount(&mut e, "a", text) {
            Some(d) => Ok(d.to_string()),
            None => Err(e.iter().next().unwrap().message.clone()),
        }
    }

    #[test]
    fn amounts_are_kept_exactly_as_written() {
        for (text, kept) in [
            ("0.01", "0.01"),
            ("10.50", "10.50"),
            ("100.5", "100.5"),
            ("7", "7"),
            ("1e2", "100"),
            ("1E+2", "100"),
            ("1.5E1", "15"),
            ("1.50e1", "15.0"),
            ("12345e-2", "123.45"),
            ("0.001e1", "0.01"),
            ("0.1e-1", "0.01"),
            (
                "12345678901234567890123456.12",
                "12345678901234567890123456.12",
            ),
            ("1e25", "10000000000000000000000000"),
        ] {
            assert_eq!(amt(text).as_deref(), Ok(kept), "{text}");
        }
    }

    #[test]
    fn amounts_with_more_than_two_places_are_refused_never_rounded() {
        for text in [
            "0.001",
            "5.000",
            "1.000000000000000000000000000001",
            "0.000000000000000000000000000001",
            "1e-3",
            "0.5e-2",
            "1e-999999999",
            "1e-99999999999999999999999999999",
            "-0.001",
        ] {
            let msg = amt(text).unwrap_err();
            assert!(msg.contains("at most 2 decimal places"), "{text}: {msg}");
        }
    }

    #[test]
    fn amounts_must_be_greater_than_zero() {
        for text in [
            "0",
            "-0",
            "-0.00",
            "0.00",
            "-1",
            "-0e5",
            "0e-2",
            "0e999999999",
        ] {
            let msg = amt(text).unwrap_err();
            assert!(msg.contains("greater than 0"), "{text}: {msg}");
        }
    }

    #[test]
    fn huge_amounts_are_refused_quickly() {
        for text in [
            "1e999999999",
            "1e99999999999999999999999999999999",
            "1e26",
            "123456789012345678901234567",
            "99999999999999999999999999999.99",
        ] {
            let msg = amt(text).unwrap_err();
            assert!(msg.contains("too large"), "{text}: {msg}");
        }
    }

    #[test]
    fn amounts_that_are_not_json_numbers_are_refused() {
        for text in [
            "+1", "01", "1.", ".5", "1e", "1e+", "", "-", "1.2.3", "NaN", " 1",
        ] {
            let msg = amt(text).unwrap_err();
            assert!(msg.contains("JSON number"), "{text}: {msg}");
        }
    }
}
