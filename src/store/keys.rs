//! The key index: which customer holds a `customer_key`.
//!
//! [`BUCKETS`] append-only files `index/keys/<bb>.log`, where `bb` is the low
//! byte, in hex, of the key's 32-bit FNV-1a hash. Each line is
//! `<customer_key> <customer id>`; a key has no space (its characters are
//! digits, letters and `! @ . - _ #`).
//!
//! Creating a profile appends one line to one bucket, so an import of N
//! profiles writes to at most 256 existing files instead of creating N new
//! ones (file creation was half of an import's cost). A lookup reads one
//! bucket: 1/256 of the index, about 17 KB at 100,000 customers.
//!
//! Keys cannot be updated and customers are not deleted, so a line once
//! written stays true; a lookup still confirms that the customer named holds
//! the key, since the aggregates are the truth. Appends go through the
//! journal like every other write, so a line is never half there.

use std::collections::BTreeMap;

use super::KEYS_DIR;
use super::journal::Op;

/// The number of bucket files.
pub const BUCKETS: usize = 256;

/// The bucket of `key`: the low byte of its 32-bit FNV-1a hash.
pub fn bucket(key: &str) -> u8 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_le_bytes()[0]
}

/// The store-relative path of bucket `b`.
pub fn bucket_path(b: u8) -> String {
    format!("{KEYS_DIR}/{b:02x}.log")
}

/// The store-relative path of the bucket that holds `key`.
pub fn bucket_rel(key: &str) -> String {
    bucket_path(bucket(key))
}

/// The bucket a file name under `index/keys` names (`3f.log`), if any.
pub fn bucket_of_name(name: &str) -> Option<u8> {
    let hex = name.strip_suffix(".log")?;
    if hex.len() != 2 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// The line that records `owner` as the holder of `key`.
pub fn line(key: &str, owner: &str) -> String {
    let mut l = String::with_capacity(key.len() + owner.len() + 2);
    l.push_str(key);
    l.push(' ');
    l.push_str(owner);
    l.push('\n');
    l
}

/// One line of a bucket: `(key, owner)`, or `None` when it does not parse.
fn parse(line: &str) -> Option<(&str, &str)> {
    let (key, owner) = line.split_once(' ')?;
    (!key.is_empty() && !owner.is_empty() && !owner.contains(' ')).then_some((key, owner))
}

/// The owners that the complete lines of `bucket` give for `key`, latest
/// first. (A partial last line, which only a damaged store has, is ignored.)
pub fn owners<'a>(bucket: &'a [u8], key: &'a str) -> impl Iterator<Item = &'a str> {
    let end = bucket
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    bucket[..end]
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(|l| std::str::from_utf8(l).ok())
        .filter_map(parse)
        .filter(move |(k, _)| *k == key)
        .map(|(_, owner)| owner)
}

/// What `store check` finds in one bucket.
#[derive(Debug, Default)]
pub struct Parsed {
    /// `(key, owner)` of every line that parses.
    pub entries: Vec<(String, String)>,
    /// Problems, each naming the line.
    pub problems: Vec<String>,
}

/// Read every line of bucket `b` for `store check`.
pub fn parse_bucket(b: u8, bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let mut rest = bytes;
    let mut n = 0;
    while !rest.is_empty() {
        n += 1;
        let Some(i) = rest.iter().position(|&c| c == b'\n') else {
            out.problems
                .push(format!("line {n} is incomplete (no end of line)"));
            break;
        };
        let text = std::str::from_utf8(&rest[..i]).ok();
        rest = &rest[i + 1..];
        match text.and_then(parse) {
            Some((key, _)) if bucket(key) != b => out
                .problems
                .push(format!("line {n} is in the wrong bucket for its key")),
            Some((key, owner)) => out.entries.push((key.to_string(), owner.to_string())),
            None => out
                .problems
                .push(format!("line {n} is not `<customer_key> <customer id>`")),
        }
    }
    out
}

/// The whole key index for `pairs` of `(key, owner)`: one put per bucket
/// that holds a key (the caller removes every other file under `index/keys`).
pub fn rebuild<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vec<Op> {
    let mut buckets: BTreeMap<u8, String> = BTreeMap::new();
    for (key, owner) in pairs {
        buckets
            .entry(bucket(key))
            .or_default()
            .push_str(&line(key, owner));
    }
    buckets
        .into_iter()
        .map(|(b, data)| Op::Put {
            path: bucket_path(b),
            data,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // FNV-1a 32: "" = 0x811c9dc5, "a" = 0xe40c292c, "foobar" = 0xbf9cf968.
        assert_eq!(bucket(""), 0xc5);
        assert_eq!(bucket("a"), 0x2c);
        assert_eq!(bucket("foobar"), 0x68);
    }

    #[test]
    fn keys_spread_over_the_buckets() {
        let mut count = [0usize; BUCKETS];
        for i in 0..100_000 {
            count[usize::from(bucket(&format!("cust-{i:07}")))] += 1;
        }
        let (min, max) = (count.iter().min().unwrap(), count.iter().max().unwrap());
        assert!(*min > 250 && *max < 550, "{min}..{max}");
    }

    #[test]
    fn owners_reads_complete_lines_latest_first() {
        let b = b"abcde csp_1\nother csp_2\nabcde csp_3\nabcde csp_4";
        let got: Vec<&str> = owners(b, "abcde").collect();
        assert_eq!(got, ["csp_3", "csp_1"]);
        assert_eq!(owners(b"", "abcde").count(), 0);
        assert_eq!(owners(b"abcd csp_1\n", "abcde").count(), 0);
    }

    #[test]
    fn parse_bucket_names_each_bad_line() {
        let k = "cust-00001";
        let b = bucket(k);
        let text = format!(
            "{}garbage\n{}",
            line(k, "csp_1"),
            line(k, "csp_1").trim_end()
        );
        let p = parse_bucket(b, text.as_bytes());
        assert_eq!(p.entries, [(k.to_string(), "csp_1".to_string())]);
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert!(p.problems[0].starts_with("line 2 "));
        assert!(p.problems[1].contains("line 3 is incomplete"));
        let wrong = parse_bucket(b.wrapping_add(1), line(k, "csp_1").as_bytes());
        assert!(wrong.problems[0].contains("wrong bucket"));
    }

    #[test]
    fn bucket_names_round_trip() {
        for b in [0u8, 0x3f, 0xff] {
            let path = bucket_path(b);
            let name = path.rsplit('/').next().unwrap();
            assert_eq!(bucket_of_name(name), Some(b));
        }
        for bad in ["k616263", "3F.log", "3.log", "3ff.log", "3f.log.payctl-tmp"] {
            assert_eq!(bucket_of_name(bad), None, "{bad}");
        }
    }
}
