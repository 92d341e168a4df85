//! Dates: the two written forms read (MM/DD/YYYY, YYYY-MM-DD) as real
//! calendar dates, a person's age, and the date-of-birth rule.

use chrono::{Datelike, NaiveDate};

use crate::error::Errors;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
