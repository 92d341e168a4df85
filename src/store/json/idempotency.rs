//! Idempotency records: which create a client's idempotency key already made.
//!
//! `idempotency/<bb>.log`, [`BUCKETS`] append-only files (`bb`: the low byte,
//! in hex, of the key's 32-bit FNV-1a hash, as for the key index). Each line
//! is one JSON record `{"key", "fp", "at", "result"}`: the key, the request's
//! fingerprint, when it was made (Unix seconds) and the answer it got. A
//! record is written in the same journal commit as the change it answers
//! (see `Tx::commit_created`), so a change and its record exist together or
//! not at all.
//!
//! This is not derived data: nothing else holds which key made which change,
//! so `store check --repair` never rebuilds or removes it (`store check`
//! reports a line that does not parse). A record is valid for [`TTL_SECS`]; an
//! expired one is ignored by lookups and dropped when its bucket is next
//! written (the oldest line is first: one look at it tells whether a
//! rewrite is due), so a bucket holds about a day of keys whatever the size
//! of the store. A lookup reads one bucket.

pub use crate::store::idempotency::{Armed, ArmedSlot, Record, TTL_SECS};

/// The directory of the buckets.
pub const DIR: &str = "idempotency";
/// The number of bucket files.
pub const BUCKETS: usize = 256;

/// The bucket of `key`: the low byte of its 32-bit FNV-1a hash.
pub fn bucket(key: &str) -> u8 {
    super::keys::bucket(key)
}

/// The store-relative path of bucket `b`.
pub fn bucket_path(b: u8) -> String {
    format!("{DIR}/{b:02x}.log")
}

/// The store-relative path of the bucket that holds `key`.
pub fn bucket_rel(key: &str) -> String {
    bucket_path(bucket(key))
}

/// The bucket a file name under [`DIR`] names (`3f.log`), if any.
pub fn bucket_of_name(name: &str) -> Option<u8> {
    super::keys::bucket_of_name(name)
}

/// The records of a bucket's complete lines, in order; `Err(n)` names the
/// first line (1-based) that does not parse. A torn last line (only a
/// damaged store has one: appends go through the journal) is not part of it.
pub fn parse(bucket: &[u8]) -> Result<Vec<Record>, usize> {
    let end = bucket
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let mut out = Vec::new();
    for (n, line) in bucket[..end].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        out.push(serde_json::from_slice(line).map_err(|_| n + 1)?);
    }
    Ok(out)
}

/// The live record of `key` in `records` (the latest one, unless expired).
pub fn find<'a>(records: &'a [Record], key: &str, now: i64) -> Option<&'a Record> {
    records
        .iter()
        .rev()
        .find(|r| r.key == key)
        .filter(|r| !r.expired(now))
}

/// What writing `new` into a bucket whose records are `records` takes:
/// `Ok(line)` to append, or `Err(content)` to rewrite the whole bucket
/// because its oldest record has expired (every expired record is dropped).
pub fn write(records: &[Record], new: &Record, now: i64) -> Result<String, String> {
    if !records.first().is_some_and(|r| r.expired(now)) {
        return Ok(new.line());
    }
    let mut content = String::new();
    for r in records.iter().filter(|r| !r.expired(now)) {
        content.push_str(&r.line());
    }
    content.push_str(&new.line());
    Err(content)
}

/// What `store check` says of `idempotency/`: every file is a bucket and
/// every complete line a record. Nothing here is repairable: the records
/// cannot be rebuilt from anything else, and repair never removes them.
pub fn findings(
    root: &super::safefs::Root,
    f: &mut Vec<super::check::Finding>,
) -> crate::error::Result<()> {
    let dir = root.join(DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(crate::error::Error::io(&dir, e)),
    };
    let mut names: Vec<std::path::PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for p in names {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let rel = format!("{DIR}/{name}");
        if super::atomic::is_temp(&p) {
            continue; // reported (and removed by --repair) with every temp file
        }
        let problem = if bucket_of_name(name).is_none() || !p.is_file() {
            Some("is not a bucket of the idempotency records (`<bb>.log`)".to_string())
        } else {
            match super::atomic::read_opt(root, &p).map(Option::unwrap_or_default) {
                Err(e) => Some(format!("cannot be read: {}", e.errors[0].message)),
                Ok(bytes) => parse(&bytes).err().map(|n| {
                    format!("line {n} is not an idempotency record (kept: repair never removes idempotency records)")
                }),
            }
        };
        if let Some(problem) = problem {
            f.push(super::check::Finding {
                path: rel,
                problem,
                repairable: false,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: &str, at: i64) -> Record {
        Record {
            key: key.into(),
            fp: "f".into(),
            at,
            result: serde_json::json!("csp_1"),
        }
    }

    #[test]
    fn an_expired_record_is_not_found_and_is_dropped_on_write() {
        let now = 10 * TTL_SECS;
        let old = rec("k1", now - TTL_SECS);
        let live = rec("k2", now - 10);
        let records = vec![old.clone(), live.clone()];
        assert!(find(&records, "k1", now).is_none());
        assert_eq!(find(&records, "k2", now), Some(&live));
        let new = rec("k3", now);
        let content = write(&records, &new, now).unwrap_err();
        assert_eq!(
            parse(content.as_bytes()).unwrap(),
            vec![live.clone(), new.clone()]
        );
        // Nothing expired: an append.
        assert_eq!(write(&[live], &new, now).unwrap(), new.line());
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_a_bad_line_named() {
        let mut b = rec("k1", 5).line().into_bytes();
        b.extend_from_slice(b"{\"key\":");
        assert_eq!(parse(&b).unwrap().len(), 1);
        assert_eq!(parse(b"{}\n"), Err(1));
    }
}
