//! Files read line by line by `store check`, streamed, nothing kept but
//! counts and hashes: a million records' index files are hundreds of MB.

use crate::store::json::FastMap;
use std::path::Path;

use super::h64;
use crate::error::{Error, Result};
use crate::store::json::safefs::{self, Root};
/// The lines of a file as `store check` compares them without holding
/// them: how many non-empty lines, and the sum of their 64-bit hashes
/// (order does not matter). Two different sets of lines agree with a chance
/// of about one in 10^19, as the other hash comparisons here.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct LineSum {
    pub(super) n: usize,
    pub(super) sum: u64,
}

impl LineSum {
    pub(super) fn add(&mut self, text: &[u8]) {
        for l in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            self.n += 1;
            self.sum = self.sum.wrapping_add(h64(l));
        }
    }
}

/// The [`LineSum`] of the complete lines of the file at `path`, and
/// whether it ends with a partial line; `None` when it does not exist. Read
/// through a buffer: a value index of a million transactions (one template,
/// one program) is 60 MB, which `store check` held whole on top of its
/// digests.
pub(super) fn sum_lines(root: &Root, path: &Path) -> Result<Option<(LineSum, bool)>> {
    let mut sum = LineSum::default();
    let partial = each_complete_line(root, path, &mut |line| {
        sum.add(line);
        Ok(())
    })?;
    Ok(partial.map(|p| (sum, p)))
}

/// Each complete line of the file at `path`, without its newline, in
/// order, to `f`: a stream, nothing kept. `None` when the file does not
/// exist; else whether it ends with a partial line (not one of its lines,
/// as [`index::complete`] reads a file).
pub(super) fn each_complete_line(
    root: &Root,
    path: &Path,
    f: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Option<bool>> {
    safefs::each_lines_piece(root, path, 1 << 20, &mut |piece| {
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', piece) {
            f(&piece[start..end])?;
            start = end + 1;
        }
        Ok(())
    })
}

/// Each complete line of the log at `path` (none when it does not exist),
/// parsed, with its number (from 1), to `f`: a stream, nothing kept. A torn
/// last line is not part of the log (as [`index::read_log`] reads it).
pub(in crate::store) fn each_log_line<T: serde::de::DeserializeOwned>(
    root: &Root,
    path: &Path,
    f: &mut dyn FnMut(usize, T),
) -> Result<()> {
    let mut n = 0usize;
    each_complete_line(root, path, &mut |text| {
        n += 1;
        if text.is_empty() {
            return Ok(());
        }
        let rec: T = serde_json::from_slice(text)
            .map_err(|e| Error::corrupt(path, format!("line {n}: {e}")))?;
        f(n, rec);
        Ok(())
    })?;
    Ok(())
}

/// Stream a summary log (complete lines only, as readers read it): the
/// hash of the latest summary of each id, by hash of the id, and the ids'
/// hashes in the order of their first line. A summary is hashed as it is
/// parsed (its fields), as the scan hashes a record's: serializing each
/// again to hash its text was a tenth of the check's time at a million. The error is the one readers
/// give for the log.
#[allow(clippy::type_complexity)]
pub(super) fn stream_log<T>(
    root: &Root,
    path: &Path,
    expected: usize,
    id_of: impl Fn(&T) -> &String,
) -> std::result::Result<(FastMap<u64, u64>, Vec<u64>), String>
where
    T: serde::de::DeserializeOwned + std::hash::Hash,
{
    // Sized for the records up front: grown by doubling, a million entries
    // would need both tables at once while they move.
    let mut latest: FastMap<u64, u64> =
        FastMap::with_capacity_and_hasher(expected, Default::default());
    let mut order = Vec::with_capacity(expected);
    each_log_line(root, path, &mut |_, rec: T| {
        let id = h64(id_of(&rec).as_str());
        let sum = h64(&rec);
        if latest.insert(id, sum).is_none() {
            order.push(id);
        }
    })
    .map_err(|e| e.errors[0].message.clone())?;
    Ok((latest, order))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read through a buffer, a file sums as it does read whole: lines
    /// across the reads' boundaries, a partial last line, none at all.
    #[test]
    fn a_file_sums_by_chunks_as_it_does_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path());
        let path = root.join("by-program.log");
        let mut text = Vec::new();
        let mut i = 0u64;
        while text.len() < 3 * (1 << 20) + 777 {
            text.extend_from_slice(format!("{i} trn_{i:020} prm_{}\n", i % 7).as_bytes());
            i += 1;
        }
        for tail in [&b""[..], b"123 trn_partial"] {
            let mut bytes = text.clone();
            bytes.extend_from_slice(tail);
            std::fs::write(&path, &bytes).unwrap();
            let mut whole = LineSum::default();
            whole.add(crate::store::json::index::complete(&bytes));
            let (sum, partial) = sum_lines(&root, &path).unwrap().expect("exists");
            assert!(sum == whole && sum.n == i as usize);
            assert_eq!(partial, !tail.is_empty());
        }
        std::fs::write(&path, b"").unwrap();
        let (sum, partial) = sum_lines(&root, &path).unwrap().expect("exists");
        assert!(sum == LineSum::default() && !partial);
        assert!(sum_lines(&root, &root.join("none.log")).unwrap().is_none());
    }
}
