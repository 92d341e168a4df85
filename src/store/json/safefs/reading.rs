//! Reading a file of the store whole, or streamed in pieces of whole lines,
//! by the rules of [`super`]: reached without links, refused unless
//! regular, and bounded by its size before a byte is read.

use super::*;

/// The complete lines of the regular file `path`, streamed through a
/// buffer of `buffer` bytes: `f` is given the file in pieces of whole lines
/// (each ending with its newline), in order. `None` when the file does not
/// exist; else whether it ends with a partial line (only a damaged file has
/// one), which is not given.
///
/// A key bucket is read so on every create under the store's lock
/// ([`LINES_BUFFER`]): whole, the 150 KB buckets of a million customers
/// cost a fresh allocation (`mmap`), a page fault for each 4 KB of it and
/// an `munmap`: a quarter of the time a create held the lock. `store check`
/// reads its index files so, a MiB at a time.
pub fn each_lines_piece(
    root: &Root,
    path: &Path,
    buffer: usize,
    f: &mut dyn FnMut(&[u8]) -> Result<()>,
) -> Result<Option<bool>> {
    let Some(mut file) = open(root, path, How::READ)? else {
        return Ok(None);
    };
    let mut buf = vec![0u8; buffer.max(1)];
    // Bytes of `buf` filled: the partial line carried over, then new ones.
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // One line longer than the buffer (a damaged file): it grows.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        if n == 0 {
            return Ok(Some(filled > 0));
        }
        let start = filled;
        filled += n;
        if let Some(i) = buf[start..filled].iter().rposition(|&b| b == b'\n') {
            let end = start + i + 1;
            f(&buf[..end])?;
            buf.copy_within(end..filled, 0);
            filled -= end;
        }
    }
}

/// The buffer of [`each_lines_piece`] for a key bucket: small, since each
/// 4 KB of it is a page fault when first written (a 64 KB buffer cost 45 µs
/// of a create's key lookup, this one 17 µs; the few more `read`s cost
/// less).
pub const LINES_BUFFER: usize = 16 * 1024;

/// The whole regular file `path`; `None` when it does not exist. With
/// `limit`, a file larger than that is refused by its size, unread.
pub fn read(root: &Root, path: &Path, limit: Option<u64>) -> Result<Option<Vec<u8>>> {
    let Some((dir, name)) = parent(root, path, false)? else {
        return Ok(None);
    };
    read_at(&dir, &name, path, limit)
}

pub(super) fn read_at(
    dir: &OwnedFd,
    name: &OsStr,
    path: &Path,
    limit: Option<u64>,
) -> Result<Option<Vec<u8>>> {
    let Some((mut f, st)) = open_at(dir, name, path, How::READ)? else {
        return Ok(None);
    };
    let len = st.st_size.max(0) as u64;
    if let Some(limit) = limit
        && len > limit
    {
        return Err(Error::corrupt(
            path,
            format!("{len} bytes, above the limit of {limit} bytes for a record file"),
        ));
    }
    // One byte more than the size: the read that returns 0 then ends it
    // without growing the buffer.
    let mut bytes = Vec::with_capacity(len as usize + 1);
    // Through `take`: a `File`'s own `read_to_end` asks for the size again
    // (`statx`, `lseek`), two system calls for each of the dozen files a
    // point operation reads.
    (&mut f)
        .take(u64::MAX)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    Ok(Some(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`each_lines_piece`] gives of `bytes`, as one text, in how many
    /// pieces, and whether it found a partial last line.
    fn streamed(bytes: &[u8]) -> (Vec<u8>, usize, bool) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bucket.log");
        std::fs::write(&path, bytes).unwrap();
        let (mut text, mut pieces) = (Vec::new(), 0);
        let partial = each_lines_piece(&Root::new(dir.path()), &path, LINES_BUFFER, &mut |p| {
            assert_eq!(p.last(), Some(&b'\n'), "a piece ends with its line");
            text.extend_from_slice(p);
            pieces += 1;
            Ok(())
        })
        .unwrap()
        .expect("the file exists");
        (text, pieces, partial)
    }

    #[test]
    fn lines_are_streamed_whole_across_the_buffer() {
        // Lines of 37 bytes do not divide the buffer: some straddle it.
        let mut bytes = Vec::new();
        for i in 0..10_000 {
            bytes.extend_from_slice(format!("cust-{i:08} csp_{i:020}\n").as_bytes());
        }
        assert!(bytes.len() > 3 * LINES_BUFFER);
        let (text, pieces, partial) = streamed(&bytes);
        assert_eq!(text, bytes);
        assert!(pieces > 3 && !partial, "{pieces}");
        // A partial last line is not one of the file's lines.
        bytes.extend_from_slice(b"torn-key csp_");
        assert_eq!(streamed(&bytes).0, text);
        assert!(streamed(&bytes).2);
        // A line longer than the buffer comes whole.
        let long = [vec![b'x'; 3 * LINES_BUFFER], b"\nnext csp_1\n".to_vec()].concat();
        assert_eq!(streamed(&long).0, long);
        assert_eq!(streamed(b""), (Vec::new(), 0, false));
    }

    #[test]
    fn a_missing_file_is_no_lines() {
        let dir = tempfile::tempdir().unwrap();
        let mut called = false;
        let root = Root::new(dir.path());
        let found = each_lines_piece(&root, &root.join("none.log"), LINES_BUFFER, &mut |_| {
            called = true;
            Ok(())
        });
        assert!(found.unwrap().is_none() && !called);
    }
}
