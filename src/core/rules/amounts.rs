//! Amounts: checked on the text of the JSON number itself, at most 2
//! decimal places as written, greater than 0, kept exactly, never rounded.

use rust_decimal::Decimal;

use super::AMOUNT_PLACES;
use crate::error::Errors;

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

#[cfg(test)]
mod tests {
    use super::*;

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
