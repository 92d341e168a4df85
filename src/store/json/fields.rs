//! Field indexes: which profiles have a given e-mail, first name, last name
//! or tag, so that an exact `profile list` filter reads the few entries of
//! one bucket instead of the whole summary log.
//!
//! For each field, [`BUCKETS`] append-only files
//! `index/by-<field>/<bb>.log`, where `bb` is the low byte, in hex, of the
//! 32-bit FNV-1a hash of the indexed value (as for the key index). Each line
//! is `<position> <customer id> <value as a JSON string>`: the position is
//! the profile's place in creation order (its record in
//! `index/profiles.ids`), so matches come out in creation order without a
//! second lookup. The value is lower-cased (Unicode `to_lowercase`) for the
//! names and the e-mail, which compare without regard to case; a tag is
//! `key=value`, compared exactly.
//!
//! Creating a profile appends one line per field (one per tag), in the same
//! journal commit as the profile. An update that changes a name or the
//! e-mail appends, in the same commit, a line for the new value and a
//! *removal* line for the old one, `-<position> <customer id> <value>` (in
//! the old value's bucket): the lines of a bucket, read in order, leave
//! exactly the profiles that have each value now, so a filter's matches and
//! their count come from the bucket alone, and a page reads only its own
//! records. The files stay append-only; `store check` checks that every
//! current value is there and nothing else, and `--repair` rebuilds them
//! with only the current values (format 7; a store of an earlier format,
//! whose updates left their old values behind, gets them rebuilt).

use std::collections::{BTreeMap, HashMap};

use super::journal::Op;
use super::keys;
pub use crate::store::types::{Field, ProfileSummary, tag_value};

/// The number of bucket files of each field.
pub const BUCKETS: usize = keys::BUCKETS;

/// The store-relative path of the bucket of `field` that holds `value`
/// (normalized).
pub fn bucket_rel(field: Field, value: &str) -> String {
    bucket_path(field, keys::bucket(value))
}

/// The store-relative path of bucket `b` of `field`.
pub fn bucket_path(field: Field, b: u8) -> String {
    format!("{}/{b:02x}.log", field.dir())
}

/// The line that records that the profile at `pos` with id `id` has `value`
/// (normalized).
pub fn line(pos: usize, id: &str, value: &str) -> String {
    let mut l = format!("{pos} {id} ");
    l.push_str(&serde_json::to_string(value).expect("a string serializes"));
    l.push('\n');
    l
}

/// The line that records that the profile at `pos` with id `id` no longer
/// has `value` (normalized).
pub fn removal(pos: usize, id: &str, value: &str) -> String {
    format!("-{}", line(pos, id, value))
}

/// One line: `(position, id, value)` of an entry or (`true`) of a removal,
/// or `None` when it does not parse.
pub fn parse_any(line: &[u8]) -> Option<(bool, usize, &str, String)> {
    match line.strip_prefix(b"-") {
        Some(rest) => parse(rest).map(|(pos, id, v)| (true, pos, id, v)),
        None => parse(line).map(|(pos, id, v)| (false, pos, id, v)),
    }
}

/// One entry line: `(position, id, value)`, or `None` when it does not parse.
pub fn parse(line: &[u8]) -> Option<(usize, &str, String)> {
    let text = std::str::from_utf8(line).ok()?;
    let (pos, rest) = text.split_once(' ')?;
    let (id, value) = rest.split_once(' ')?;
    let pos: usize = pos.parse().ok()?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let value: String = serde_json::from_str(value).ok()?;
    Some((pos, id, value))
}

/// The `(position, id)` of every profile that `bucket` says has `value`
/// (normalized) now (its entries less the removals after them), each id
/// once, in creation order. A partial last line (only a damaged store has
/// one) is ignored; `Err(n)` names a line that does not parse.
pub fn matches(bucket: &[u8], value: &str) -> Result<Vec<(usize, String)>, usize> {
    let want = serde_json::to_string(value).expect("a string serializes");
    let bytes = super::index::complete(bucket);
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for (n, l) in bytes.split(|&b| b == b'\n').enumerate() {
        if l.is_empty() {
            continue;
        }
        // Cheap test first: the line ends with the value's JSON text (the
        // JSON of a string is canonical as serde_json writes it, but parse
        // the candidate anyway to be sure of its shape).
        if !l.ends_with(want.as_bytes()) {
            continue;
        }
        let Some((removed, pos, id, v)) = parse_any(l) else {
            return Err(n + 1);
        };
        if v != value {
            continue;
        }
        if removed {
            seen.remove(id);
            continue;
        }
        let slot = seen.entry(id).or_insert(pos);
        *slot = (*slot).min(pos);
    }
    let mut out: Vec<(usize, String)> = seen
        .into_iter()
        .map(|(id, pos)| (pos, id.to_string()))
        .collect();
    out.sort();
    Ok(out)
}

/// What `store check` finds in one bucket of `field`.
#[derive(Debug)]
pub struct Parsed<T> {
    /// `(position, digest)` of every entry that the bucket's lines leave
    /// (its entries less the removals after them), in the order of the
    /// lines; the digest is what the caller made of `(position, id, value)`.
    pub entries: Vec<(usize, T)>,
    /// Problems, each naming the line.
    pub problems: Vec<String>,
}

/// Read every line of bucket `b` of `field` for `store check`, keeping of
/// each live entry only what `digest(position, id, value)` makes of it: a
/// bucket of a common value (a tag half the customers have) holds hundreds
/// of thousands of lines, and keeping their ids and values as strings took
/// over 100 MB at a million customers. Entries are told apart by a 64-bit
/// hash of their id and value (two different ones share it with a chance of
/// about one in 10^19).
pub fn parse_bucket<T>(
    field: Field,
    b: u8,
    bytes: &[u8],
    digest: impl Fn(usize, &str, &str) -> T,
) -> Parsed<T> {
    let slot_of = |id: &str, v: &str| super::h64(&(id, v));
    let mut out = Parsed {
        entries: Vec::new(),
        problems: Vec::new(),
    };
    let (lines, incomplete) = keys::numbered_lines(bytes);
    let mut live: Vec<Option<(usize, T)>> = Vec::new();
    let mut at: super::FastMap<u64, usize> = Default::default();
    for (n, l) in lines {
        match parse_any(l) {
            Some((_, _, _, v)) if keys::bucket(&v) != b || field.normal(&v) != v => out
                .problems
                .push(format!("line {n} is in the wrong bucket for its value")),
            Some((false, pos, id, v)) => {
                let slot = slot_of(id, &v);
                match at.get(&slot) {
                    // The same entry again: harmless.
                    Some(&i) if live[i].as_ref().is_some_and(|e| e.0 == pos) => {}
                    // At another position: kept, for the check to name.
                    Some(_) => live.push(Some((pos, digest(pos, id, &v)))),
                    None => {
                        at.insert(slot, live.len());
                        live.push(Some((pos, digest(pos, id, &v))));
                    }
                }
            }
            Some((true, pos, id, v)) => match at.remove(&slot_of(id, &v)) {
                Some(i) if live[i].as_ref().is_some_and(|e| e.0 == pos) => live[i] = None,
                _ => out.problems.push(format!(
                    "line {n} removes an entry that the lines before it do not hold"
                )),
            },
            None => out.problems.push(format!(
                "line {n} is not `[-]<position> <customer id> <value as a JSON string>`"
            )),
        }
    }
    out.entries = live.into_iter().flatten().collect();
    out.problems.extend(incomplete);
    out
}

/// The bucket of a file name under a field's directory (`3f.log`), if any.
pub fn bucket_of_name(name: &str) -> Option<u8> {
    keys::bucket_of_name(name)
}

/// Every field's index for the profiles `ordered` (in creation order):
/// one put per bucket that holds a value. The caller removes the other
/// files of the fields' directories.
pub fn rebuild<'a>(ordered: impl IntoIterator<Item = &'a ProfileSummary>) -> Vec<Op> {
    let mut buckets: BTreeMap<(Field, u8), String> = BTreeMap::new();
    for (pos, p) in ordered.into_iter().enumerate() {
        for field in Field::ALL {
            for v in field.values(p) {
                buckets
                    .entry((field, keys::bucket(&v)))
                    .or_default()
                    .push_str(&line(pos, &p.id, &v));
            }
        }
    }
    buckets
        .into_iter()
        .map(|((field, b), data)| Op::Put {
            path: bucket_path(field, b),
            data,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_whatever_the_value() {
        for v in ["smith", "o'brien d\"x", "a b\nc", "ünïcödé", ""] {
            let l = line(42, "csp_abc", v);
            assert!(l.ends_with('\n') && l.matches('\n').count() == 1);
            let (pos, id, got) = parse(l.trim_end_matches('\n').as_bytes()).unwrap();
            assert_eq!((pos, id, got.as_str()), (42, "csp_abc", v));
        }
        assert!(parse(b"x csp_a \"v\"").is_none());
        assert!(parse(b"1 csp/a \"v\"").is_none());
        assert!(parse(b"1 csp_a v").is_none());
    }

    #[test]
    fn matches_are_distinct_in_creation_order() {
        let b = format!(
            "{}{}{}{}{}",
            line(7, "csp_b", "smith"),
            line(3, "csp_a", "smith"),
            line(5, "csp_c", "jones"),
            line(7, "csp_b", "smith"),
            line(9, "csp_d", "smith").trim_end()
        );
        let got = matches(b.as_bytes(), "smith").unwrap();
        assert_eq!(got, [(3, "csp_a".into()), (7, "csp_b".into())]);
        assert_eq!(matches(b.as_bytes(), "nobody").unwrap(), []);
        assert_eq!(matches(b"garbage \"smith\"\n", "smith"), Err(1));
    }

    #[test]
    fn a_removal_takes_its_entry_out_until_it_is_added_again() {
        let b = format!(
            "{}{}{}{}{}",
            line(3, "csp_a", "smith"),
            line(5, "csp_c", "smith"),
            removal(3, "csp_a", "smith"),
            removal(5, "csp_c", "smith"),
            line(5, "csp_c", "smith"),
        );
        assert_eq!(
            matches(b.as_bytes(), "smith").unwrap(),
            [(5, "csp_c".into())]
        );
        let whole = |pos: usize, id: &str, v: &str| (pos, id.to_string(), v.to_string());
        let p = parse_bucket(Field::LastName, keys::bucket("smith"), b.as_bytes(), whole);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(
            p.entries,
            [(5, (5, "csp_c".to_string(), "smith".to_string()))]
        );
        // A removal of nothing is damage.
        let p = parse_bucket(
            Field::LastName,
            keys::bucket("smith"),
            removal(3, "csp_a", "smith").as_bytes(),
            whole,
        );
        assert_eq!(p.problems.len(), 1, "{:?}", p.problems);
    }

    #[test]
    fn parse_bucket_names_each_bad_line() {
        let v = "smith";
        let b = keys::bucket(v);
        let text = format!(
            "{}garbage\n{}",
            line(0, "csp_1", v),
            line(1, "csp_2", "Smith")
        );
        let whole = |_: usize, id: &str, v: &str| (id.to_string(), v.to_string());
        let p = parse_bucket(
            Field::LastName,
            keys::bucket("Smith"),
            text.as_bytes(),
            whole,
        );
        assert_eq!(p.problems.len(), 3, "{:?}", p.problems);
        let p = parse_bucket(Field::LastName, b, line(0, "csp_1", v).as_bytes(), whole);
        assert_eq!(p.entries, [(0, ("csp_1".to_string(), v.to_string()))]);
        assert!(p.problems.is_empty());
    }
}
