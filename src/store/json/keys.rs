//! The key index: which customer holds a `customer_key`.
//!
//! Append-only bucket files under `index/keys`, chosen by the key's 32-bit
//! FNV-1a hash, whose four bytes (low byte first) name a path of up to four
//! levels: `index/keys/<b0>.log`, or once that bucket was split
//! `index/keys/<b0>/<b1>.log`, then `index/keys/<b0>/<b1>/<b2>.log`, and so
//! on (each `bN` two hex digits). Each line is `<customer_key> <customer id>`;
//! a key has no space (its characters are digits, letters and `! @ . - _ #`).
//!
//! A store starts with the [`BUCKETS`] files of the first level. A commit
//! that would make a bucket larger than [`SPLIT_BYTES`] splits it instead:
//! its lines (and the new ones) go to up to 256 files one level down, and the
//! bucket is removed, in the same journal commit as the change (all or
//! nothing). So a bucket never holds more than 512 KB whatever the size of
//! the store (about 13,000 keys): a lookup reads at most that much at 1,000
//! customers as at 100 million, and creating a profile appends one line to
//! one file. (A million keys sit in the 256 files of the first level, about
//! 3,900 lines each; they are split from about 3 million on.)
//!
//! Why so large a bucket: an import chunk of 20,000 keys appends to every
//! bucket, and each file touched costs an open, a write and a page for
//! `syncfs` to flush. When the buckets were split at 32 KB, a million keys
//! sat in 65,536 files of 15 lines, and a chunk of 10,000 touched 9,300 of
//! them: half of a million-line import's time. At 512 KB a chunk touches
//! 256, and a lookup scans a few thousand short lines (a `--customer-key`
//! lookup at a million took the same time as with 32 KB buckets).
//!
//! The bucket of a key is the first file on its path that exists: a reader
//! tries the levels in order. A writer does the same and, where no file
//! exists, goes down while a directory continues the path. A file and the
//! directory of the same prefix never both hold entries (`store check`
//! reports a file below an existing bucket: readers never see it).
//!
//! Keys cannot be updated and customers are not deleted, so a line once
//! written stays true; a lookup still confirms that the customer named holds
//! the key, since the aggregates are the truth. Appends go through the
//! journal like every other write, so a line is never half there.

use std::collections::{BTreeMap, HashMap};

use super::KEYS_DIR;
use super::journal::Op;
use super::safefs::Root;
use crate::error::Result;

/// The number of bucket files of the first level.
pub const BUCKETS: usize = 256;

/// A commit that would make a bucket larger than this splits it.
pub const SPLIT_BYTES: usize = 512 * 1024;

/// [`SPLIT_BYTES`], or what the test knob `PAYCTL_SPLIT_BYTES` says (so that
/// the tests split buckets of a few hundred keys). Only writers use it: a
/// bucket of any size is read and checked the same way.
pub fn split_bytes() -> usize {
    crate::store::fault::split_bytes(SPLIT_BYTES)
}

/// The deepest level (the hash has four bytes: levels 0 to 3).
pub const MAX_DEPTH: usize = 3;

fn hash(key: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The bytes of `key`'s hash that name its bucket at each level.
pub fn prefix(key: &str) -> [u8; 4] {
    hash(key).to_le_bytes()
}

/// The bucket of `key` at the first level: the low byte of its 32-bit FNV-1a
/// hash. (The field and idempotency indexes use it too.)
pub fn bucket(key: &str) -> u8 {
    prefix(key)[0]
}

fn hex_dirs(p: &[u8]) -> String {
    let mut s = String::from(KEYS_DIR);
    for b in p {
        s.push_str(&format!("/{b:02x}"));
    }
    s
}

/// The store-relative path of the bucket file of hash prefix `p` (one to
/// four bytes).
pub fn prefix_path(p: &[u8]) -> String {
    format!("{}.log", hex_dirs(p))
}

/// The store-relative directory that a split bucket of prefix `p` becomes.
pub fn prefix_dir(p: &[u8]) -> String {
    hex_dirs(p)
}

/// The store-relative path of first-level bucket `b`.
pub fn bucket_path(b: u8) -> String {
    prefix_path(&[b])
}

/// The store-relative path of the first-level bucket of `key`.
pub fn bucket_rel(key: &str) -> String {
    bucket_path(bucket(key))
}

/// The path of `key`'s bucket at `depth` (0 to [`MAX_DEPTH`]).
pub fn path_at(key: &str, depth: usize) -> String {
    prefix_path(&prefix(key)[..=depth])
}

/// The bucket a file name under `index/keys` names (`3f.log`), if any.
pub fn bucket_of_name(name: &str) -> Option<u8> {
    let hex = name.strip_suffix(".log")?;
    hex_byte(hex)
}

fn hex_byte(hex: &str) -> Option<u8> {
    if hex.len() != 2 || !hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return None;
    }
    u8::from_str_radix(hex, 16).ok()
}

/// The hash prefix of a bucket path relative to `index/keys` (`3f.log`,
/// `3f/a1.log`, …), if it is one.
pub fn prefix_of_rel(rel: &str) -> Option<Vec<u8>> {
    let parts: Vec<&str> = rel.split('/').collect();
    if parts.is_empty() || parts.len() > MAX_DEPTH + 1 {
        return None;
    }
    let (last, dirs) = parts.split_last()?;
    let mut p = Vec::with_capacity(parts.len());
    for d in dirs {
        p.push(hex_byte(d)?);
    }
    p.push(bucket_of_name(last)?);
    Some(p)
}

/// Where a writer puts `key` in the store at `root`: the first bucket file
/// on its path that exists; else the first level where no directory
/// continues the path. `(store-relative path, depth)`.
pub fn place(root: &Root, key: &str) -> Result<(String, usize)> {
    place_with(
        &mut super::safefs::Dirs::new(root),
        key,
        &mut HashMap::new(),
    )
}

/// [`place`], remembering in `seen` what it found on the disk (whether each
/// bucket file it looked at exists, each directory is one), so that the
/// thousands of keys of one commit look at each file once. Only while the
/// files cannot change (the caller holds the exclusive lock).
fn place_with(
    dirs: &mut super::safefs::Dirs<'_>,
    key: &str,
    seen: &mut HashMap<String, bool>,
) -> Result<(String, usize)> {
    let mut ask = |rel: String, dir: bool| -> Result<bool> {
        if let Some(&b) = seen.get(&rel) {
            return Ok(b);
        }
        let b = if dir {
            dirs.is_dir(&rel)?
        } else {
            dirs.lstat(&rel)?.is_some()
        };
        seen.insert(rel, b);
        Ok(b)
    };
    let p = prefix(key);
    for depth in 0..=MAX_DEPTH {
        let rel = prefix_path(&p[..=depth]);
        if depth == MAX_DEPTH || ask(rel.clone(), false)? || !ask(prefix_dir(&p[..=depth]), true)? {
            return Ok((rel, depth));
        }
    }
    unreachable!("the last level returns")
}

/// The key of a line (its text up to the first space).
fn key_of(line: &str) -> Option<&str> {
    line.split_once(' ')
        .map(|(k, _)| k)
        .filter(|k| !k.is_empty())
}

/// The bucket files for `lines` (complete lines) that belong under prefix
/// `p`: one file when they fit in [`SPLIT_BYTES`] (or `p` is at the deepest
/// level), else split by the next byte, recursively. Lines that do not
/// parse are dropped (they name no key).
pub fn layout(p: &[u8], lines: &str) -> Vec<(String, String)> {
    if lines.len() <= split_bytes() || p.len() > MAX_DEPTH {
        return vec![(prefix_path(p), lines.to_string())];
    }
    let groups = by_next_byte(p, lines);
    let mut out = Vec::new();
    for (b, text) in groups {
        let mut sub = p.to_vec();
        sub.push(b);
        out.extend(layout(&sub, &text));
    }
    out
}

/// The operations that append `lines` (complete `<key> <owner>` lines, in
/// order) to the key index of the store at `root`, each to its key's bucket
/// ([`place`]); a bucket that would pass [`SPLIT_BYTES`] is split in the same
/// operations (puts of the level below, a delete of the bucket).
pub fn append_ops(root: &Root, lines: &str) -> Result<Vec<Op>> {
    append_ops_with(root, lines, &mut HashMap::new(), &mut |dirs, rel| {
        super::index::complete_len_in(dirs, rel)
    })
}

/// [`append_ops`], with `seen` what is known of which bucket files and
/// directories are on the disk (kept by a group commit until the disk
/// changes), and `len` the length of a bucket's complete lines.
pub fn append_ops_with(
    root: &Root,
    lines: &str,
    seen: &mut HashMap<String, bool>,
    len: &mut dyn FnMut(&mut super::safefs::Dirs<'_>, &str) -> Result<u64>,
) -> Result<Vec<Op>> {
    let mut groups: BTreeMap<String, (usize, Vec<u8>, String)> = BTreeMap::new();
    // Each bucket's directory opened once (thousands of buckets in 256
    // directories at a million customers).
    let mut dirs = super::safefs::Dirs::new(root);
    for line in lines.split_inclusive('\n') {
        let Some(key) = key_of(line) else { continue };
        let (rel, depth) = place_with(&mut dirs, key, seen)?;
        groups
            .entry(rel)
            .or_insert_with(|| (depth, prefix(key)[..=depth].to_vec(), String::new()))
            .2
            .push_str(line);
    }
    let mut ops = Vec::new();
    let limit = split_bytes();
    for (rel, (depth, p, data)) in groups {
        // The length alone decides (a bucket is read whole only to split).
        let base_len = len(&mut dirs, &rel)?;
        if base_len as usize + data.len() <= limit || depth == MAX_DEPTH {
            ops.push(Op::Append {
                path: rel,
                base_len,
                data,
            });
            continue;
        }
        let old = dirs.read(&rel, None)?.unwrap_or_default();
        let mut all =
            String::from_utf8_lossy(&old[..(base_len as usize).min(old.len())]).into_owned();
        all.push_str(&data);
        ops.extend(split(&p, &all));
    }
    Ok(ops)
}

/// The `lines` under prefix `p`, grouped by the next byte of their key's
/// hash (the bucket one level down); lines that name no key are dropped.
fn by_next_byte(p: &[u8], lines: &str) -> BTreeMap<u8, String> {
    let mut groups: BTreeMap<u8, String> = BTreeMap::new();
    for line in lines.split_inclusive('\n') {
        if let Some(key) = key_of(line) {
            groups
                .entry(prefix(key)[p.len()])
                .or_default()
                .push_str(line);
        }
    }
    groups
}

/// The operations that split the bucket of prefix `p` holding `lines`: puts
/// of the level below ([`layout`]), then the delete of the bucket.
pub fn split(p: &[u8], lines: &str) -> Vec<Op> {
    let mut ops: Vec<Op> = Vec::new();
    let groups = by_next_byte(p, lines);
    for (b, text) in groups {
        let mut sub = p.to_vec();
        sub.push(b);
        ops.extend(
            layout(&sub, &text)
                .into_iter()
                .map(|(path, data)| Op::Put { path, data }),
        );
    }
    ops.push(Op::Delete {
        path: prefix_path(p),
    });
    ops
}

/// Every bucket file of the key index of the store at `root`, at any level:
/// `(store-relative path, hash prefix)`. Files and directories whose names
/// are not a bucket's are left out (`store check` names them).
pub fn files(root: &Root) -> Result<Vec<(String, Vec<u8>)>> {
    fn walk(root: &Root, p: &mut Vec<u8>, out: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
        use rustix::fs::FileType;
        let dir = if p.is_empty() {
            KEYS_DIR.to_string()
        } else {
            prefix_dir(p)
        };
        let Some(list) = super::safefs::list(root, &root.join(&dir))? else {
            return Ok(());
        };
        for (name, t) in list {
            let Some(name) = name.to_str() else { continue };
            match t {
                FileType::RegularFile => {
                    if let Some(b) = bucket_of_name(name) {
                        let mut q = p.clone();
                        q.push(b);
                        out.push((prefix_path(&q), q));
                    }
                }
                FileType::Directory if p.len() < MAX_DEPTH => {
                    if let Some(b) = hex_byte(name) {
                        p.push(b);
                        walk(root, p, out)?;
                        p.pop();
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, &mut Vec::new(), &mut out)?;
    out.sort();
    Ok(out)
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
    let end = memchr::memrchr(b'\n', bucket).map_or(0, |i| i + 1);
    let text = &bucket[..end];
    let k = key.as_bytes();
    // Only a line that begins with the key and a space is read as text: a
    // bucket holds thousands of keys at a million customers, and the key is
    // looked for with a vectorized search, not line by line. (A key has no
    // newline, so a match never spans two lines and none hides the start of
    // a line from the search.)
    let lines: Vec<&[u8]> = if k.is_empty() {
        Vec::new()
    } else {
        memchr::memmem::find_iter(text, k)
            .filter(|&i| (i == 0 || text[i - 1] == b'\n') && text.get(i + k.len()) == Some(&b' '))
            .map(|i| {
                let rest = &text[i..];
                &rest[..memchr::memchr(b'\n', rest).unwrap_or(rest.len())]
            })
            .collect()
    };
    lines
        .into_iter()
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

/// The complete lines of an index bucket file (without their end of line),
/// numbered from 1, for `store check`, and the problem of an incomplete last
/// line if there is one (to be reported after those of the lines).
pub fn numbered_lines(bytes: &[u8]) -> (Vec<(usize, &[u8])>, Option<String>) {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let n = out.len() + 1;
        let Some(i) = rest.iter().position(|&c| c == b'\n') else {
            return (
                out,
                Some(format!("line {n} is incomplete (no end of line)")),
            );
        };
        out.push((n, &rest[..i]));
        rest = &rest[i + 1..];
    }
    (out, None)
}

/// Read every line of the bucket of hash prefix `p` for `store check`.
pub fn parse_bucket(p: &[u8], bytes: &[u8]) -> Parsed {
    let mut out = Parsed::default();
    let (lines, incomplete) = numbered_lines(bytes);
    for (n, l) in lines {
        match std::str::from_utf8(l).ok().and_then(parse) {
            Some((key, _)) if !prefix(key).starts_with(p) => out
                .problems
                .push(format!("line {n} is in the wrong bucket for its key")),
            Some((key, owner)) => out.entries.push((key.to_string(), owner.to_string())),
            None => out
                .problems
                .push(format!("line {n} is not `<customer_key> <customer id>`")),
        }
    }
    out.problems.extend(incomplete);
    out
}

/// The whole key index for `pairs` of `(key, owner)`: one put per bucket
/// that holds a key, buckets larger than [`SPLIT_BYTES`] split (the caller
/// removes every other bucket file).
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
        .flat_map(|(b, data)| layout(&[b], &data))
        .map(|(path, data)| Op::Put { path, data })
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
        assert_eq!(prefix("foobar"), 0xbf9c_f968u32.to_le_bytes());
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
        assert_eq!(owners(b"abcde csp_1\n", "abcd").count(), 0);
        // Found at the start of a line only, not inside another.
        assert_eq!(owners(b"xabcde csp_1\nabcde csp_2\n", "abcde").count(), 1);
        // A damaged line that is not UTF-8 hides no other.
        let damaged = b"abcde csp_1\n\xff\xfe csp_9\nabcde csp_2\n";
        let got: Vec<&str> = owners(damaged, "abcde").collect();
        assert_eq!(got, ["csp_2", "csp_1"]);
        // A key found inside a line, or without its space, is not a line's.
        let b = b"xx abcde\nabcdef csp_1\nabcde csp_2\nabcdeabcde csp_3\nabcde csp_4\n";
        assert_eq!(owners(b, "abcde").collect::<Vec<_>>(), ["csp_4", "csp_2"]);
        assert_eq!(owners(b"abcde csp_1\n", "").count(), 0);
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
        let p = parse_bucket(&[b], text.as_bytes());
        assert_eq!(p.entries, [(k.to_string(), "csp_1".to_string())]);
        assert_eq!(p.problems.len(), 2, "{:?}", p.problems);
        assert!(p.problems[0].starts_with("line 2 "));
        assert!(p.problems[1].contains("line 3 is incomplete"));
        let wrong = parse_bucket(&[b.wrapping_add(1)], line(k, "csp_1").as_bytes());
        assert!(wrong.problems[0].contains("wrong bucket"));
        let deep = prefix(k);
        assert!(
            parse_bucket(&deep[..2], line(k, "c").as_bytes())
                .problems
                .is_empty()
        );
        let other = [deep[0], deep[1].wrapping_add(1)];
        assert!(parse_bucket(&other, line(k, "c").as_bytes()).problems[0].contains("wrong bucket"));
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
        let deep = prefix_path(&[0x3f, 0xa1, 0x00]);
        assert_eq!(deep, format!("{KEYS_DIR}/3f/a1/00.log"));
        let under = deep.strip_prefix(&format!("{KEYS_DIR}/")).unwrap();
        assert_eq!(prefix_of_rel(under), Some(vec![0x3f, 0xa1, 0x00]));
        for bad in ["sub/00.log", "3f/a1/00/11/22.log", "3f/", "3F/00.log"] {
            assert_eq!(prefix_of_rel(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_large_bucket_is_laid_out_one_level_down() {
        // Keys of one first-level bucket, more than SPLIT_BYTES of lines.
        // (Long owners, so that a few thousand lines pass the size.)
        let owner = format!("csp_{}", "x".repeat(250));
        let keys: Vec<String> = (0..800_000)
            .map(|i| format!("k-{i}"))
            .filter(|k| bucket(k) == 7)
            .collect();
        let text: String = keys.iter().map(|k| line(k, &owner)).collect();
        assert!(text.len() > SPLIT_BYTES);
        let files = layout(&[7], &text);
        assert!(files.len() > 100, "{}", files.len());
        let mut n = 0;
        for (path, data) in &files {
            let p = prefix_of_rel(path.strip_prefix(&format!("{KEYS_DIR}/")).unwrap()).unwrap();
            assert_eq!(p.len(), 2, "{path}");
            assert!(data.len() <= SPLIT_BYTES);
            let parsed = parse_bucket(&p, data.as_bytes());
            assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
            n += parsed.entries.len();
        }
        assert_eq!(n, keys.len());
        // A small one stays where it is.
        assert_eq!(layout(&[7], &line(&keys[0], "c")).len(), 1);
    }
}
