//! Derived indexes: append-only summary logs and the worker's queue.
//!
//! A summary log holds one JSON line per version of a record; the first line
//! of an id fixes its place in creation order, the last one its content. So a
//! create or an update is one small append, and a list reads one file instead
//! of every aggregate.

use std::collections::HashMap;

use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::de::DeserializeOwned;

use super::safefs::Root;
use crate::error::{Error, Result};
pub use crate::store::types::{ProfileSummary, QueueItem, TxnSummary, new_seq};

/// Read a summary log: creation order, latest version of each id. A torn last
/// line (a writer killed mid-append, before its journal was removed) is not
/// part of the log.
pub fn read_log<T, F>(root: &Root, path: &Path, id_of: F) -> Result<Vec<T>>
where
    T: DeserializeOwned,
    F: Fn(&T) -> &String,
{
    read_log_bytes(path, &complete_lines(root, path)?, id_of)
}

/// [`read_log`] of the content `bytes` of `path` (named in errors).
pub fn read_log_bytes<T, F>(path: &Path, bytes: &[u8], id_of: F) -> Result<Vec<T>>
where
    T: DeserializeOwned,
    F: Fn(&T) -> &String,
{
    let bytes = complete(bytes);
    let mut out: Vec<T> = Vec::new();
    let mut pos: HashMap<String, usize> = HashMap::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let rec: T = serde_json::from_slice(line)
            .map_err(|e| Error::corrupt(path, format!("line {}: {e}", n + 1)))?;
        let id = id_of(&rec).clone();
        match pos.get(&id) {
            Some(&i) => out[i] = rec,
            None => {
                pos.insert(id, out.len());
                out.push(rec);
            }
        }
    }
    Ok(out)
}

/// The complete lines of a log (empty when it does not exist). A torn last
/// line (a writer killed mid-append, before its journal was removed) is not
/// part of the log.
pub(crate) fn complete_lines(root: &Root, path: &Path) -> Result<Vec<u8>> {
    let Some(mut bytes) = super::safefs::read(root, path, None)? else {
        return Ok(Vec::new());
    };
    let complete = complete(&bytes).len();
    bytes.truncate(complete);
    Ok(bytes)
}

/// `bytes` up to and including their last newline.
pub(crate) fn complete(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    &bytes[..end]
}

/// A record of `index/profiles.ids`: every valid id fits (prefix, `_`, at
/// most 64 characters: 68), padded with spaces, then a newline. Fixed width,
/// so the count is the file's length divided by it and a page is one read at
/// a computed offset.
pub const ID_RECORD: usize = 69;

/// The record of `id` in an ids file.
pub fn id_record(id: &str) -> String {
    debug_assert!(id.len() < ID_RECORD);
    format!("{id:<width$}\n", width = ID_RECORD - 1)
}

/// Number of complete records of an ids file (0 when missing).
pub fn ids_count(root: &Root, path: &Path) -> Result<usize> {
    match super::safefs::open_len(root, path, super::safefs::How::READ)? {
        Some((_, len)) => Ok(len as usize / ID_RECORD),
        None => Ok(0),
    }
}

fn record_id(path: &Path, rec: &[u8]) -> Result<String> {
    let id = rec
        .strip_suffix(b"\n")
        .map(|r| r.trim_ascii_end())
        .filter(|id| !id.is_empty() && id.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_'));
    match id {
        Some(id) => Ok(String::from_utf8_lossy(id).into_owned()),
        None => Err(Error::corrupt(path, "a record is not an id")),
    }
}

/// The ids at positions `start..end` of an ids file (fewer past its end).
pub fn ids_range(root: &Root, path: &Path, start: usize, end: usize) -> Result<Vec<String>> {
    let end = end.min(ids_count(root, path)?);
    if start >= end {
        return Ok(Vec::new());
    }
    let Some(f) = super::safefs::open(root, path, super::safefs::How::READ)? else {
        return Ok(Vec::new());
    };
    let mut buf = vec![0u8; (end - start) * ID_RECORD];
    f.read_exact_at(&mut buf, (start * ID_RECORD) as u64)
        .map_err(|e| Error::io(path, e))?;
    buf.chunks(ID_RECORD).map(|r| record_id(path, r)).collect()
}

/// [`ids_range`] of the content `bytes` of an ids file `path`.
pub fn ids_range_bytes(path: &Path, bytes: &[u8], start: usize, end: usize) -> Result<Vec<String>> {
    let end = end.min(bytes.len() / ID_RECORD);
    if start >= end {
        return Ok(Vec::new());
    }
    bytes[start * ID_RECORD..end * ID_RECORD]
        .chunks(ID_RECORD)
        .map(|r| record_id(path, r))
        .collect()
}

/// Each id of an ids file, in order, to `f`, read as a stream (a million
/// records are 69 MB: `store check` must not hold them); a partial last
/// record is left out, as [`ids_count`] does.
pub fn ids_each(root: &Root, path: &Path, mut f: impl FnMut(&str)) -> Result<()> {
    use std::io::Read;
    let Some(file) = super::safefs::open(root, path, super::safefs::How::READ)? else {
        return Ok(());
    };
    let mut reader = std::io::BufReader::with_capacity(ID_RECORD * 4096, file);
    let mut rec = [0u8; ID_RECORD];
    loop {
        match reader.read_exact(&mut rec) {
            Ok(()) => f(&record_id(path, &rec)?),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(Error::io(path, e)),
        }
    }
}

/// Every id of an ids file, in order.
pub fn ids_all(root: &Root, path: &Path) -> Result<Vec<String>> {
    ids_range(root, path, 0, usize::MAX)
}

/// The position of `id` in an ids file.
pub fn ids_position(root: &Root, path: &Path, id: &str) -> Result<Option<usize>> {
    let Some(bytes) = super::safefs::read(root, path, None)? else {
        return Ok(None);
    };
    Ok(ids_position_bytes(&bytes, id))
}

/// [`ids_position`] in the content `bytes` of an ids file.
pub fn ids_position_bytes(bytes: &[u8], id: &str) -> Option<usize> {
    // A key longer than any id (a hostile --after) is no record's.
    if id.len() >= ID_RECORD {
        return None;
    }
    let want = id_record(id);
    bytes
        .chunks_exact(ID_RECORD)
        .position(|r| r == want.as_bytes())
}

/// Length of `path` up to and including its last newline (0 when missing).
pub fn complete_len(root: &Root, path: &Path) -> Result<u64> {
    match super::safefs::open_len(root, path, super::safefs::How::READ)? {
        Some((f, len)) => complete_len_of(f, len, path),
        None => Ok(0),
    }
}

/// [`complete_len`] of the store-relative `rel`, reached through `dirs`
/// (a commit takes the lengths of thousands of files in a few directories).
pub fn complete_len_in(dirs: &mut super::safefs::Dirs, rel: &str) -> Result<u64> {
    match dirs.open_file(rel)? {
        Some((f, len)) => complete_len_of(f, len, &dirs.path_of(rel)),
        None => Ok(0),
    }
}

/// `len`: the file's length when it was opened.
pub(crate) fn complete_len_of(mut f: std::fs::File, len: u64, path: &Path) -> Result<u64> {
    use std::os::unix::fs::FileExt;
    // What every commit leaves: the file ends with its newline.
    let mut last = [0u8];
    if len > 0 && f.read_exact_at(&mut last, len - 1).is_ok() && last[0] == b'\n' {
        return Ok(len);
    }
    let mut end = len;
    let mut buf = vec![0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))
            .map_err(|e| Error::io(path, e))?;
        f.read_exact(&mut buf[..n])
            .map_err(|e| Error::io(path, e))?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The queue, oldest first. Names that are not queue items (temp files)
/// are skipped, and so is anything but a regular file (`store check`
/// reports it).
pub fn read_queue(root: &Root, dir: &Path) -> Result<Vec<QueueItem>> {
    let Some(entries) = super::safefs::list(root, dir)? else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = entries
        .into_iter()
        .filter(|(_, t)| *t == rustix::fs::FileType::RegularFile)
        .filter_map(|(n, _)| n.into_string().ok())
        .collect();
    names.sort();
    Ok(names.iter().filter_map(|n| QueueItem::parse(n)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_work_names_become_queue_items() {
        assert!(matches!(
            QueueItem::from_key("att.csp_1.prm_2"),
            Some(QueueItem::Attach { customer_id, program_id, .. })
                if customer_id == "csp_1" && program_id == "prm_2"
        ));
        assert!(matches!(
            QueueItem::from_key("trn.trn_9"),
            Some(QueueItem::Txn { transaction_id, .. }) if transaction_id == "trn_9"
        ));
        assert!(QueueItem::from_key("what").is_none());
        let q = QueueItem::attach("csp_1", "prm_2");
        assert_eq!(
            QueueItem::from_key(&q.key()).map(|r| r.key()),
            Some(q.key())
        );
    }
}
