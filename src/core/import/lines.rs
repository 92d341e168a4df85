//! Reading the input of `profile import`: its lines, one at a time and
//! each capped, gathered in batches that are checked or parsed on every
//! core.

use super::*;

/// Lines checked per batch (split among the cores), and the most bytes a
/// batch holds before it is checked: memory for a batch stays a few
/// megabytes however long the file.
const BATCH_LINES: usize = 4096;
const BATCH_BYTES: usize = 8 << 20;

/// Where the input was when it stopped being readable line by line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// A line (its bytes are in the caller's buffer, without the line end).
    Line,
    /// A line longer than the cap: its bytes are not held. The local import
    /// stops there; a caller that reads on gets the line after it.
    TooLong,
    End,
}

/// The line source of `profile import`, local and remote alike: the
/// input's lines, numbered from 1, at most [`caps::LINE_BYTES`] each, never
/// holding more than one line: a trailing `\r` (CRLF files) and a
/// byte-order mark at the very start are dropped.
pub struct Lines<'a> {
    input: Box<dyn BufRead + 'a>,
    /// The number of the line last read (1-based).
    pub n: usize,
    /// Bytes read so far.
    pub bytes: u64,
    /// The line last answered [`Next::TooLong`] was left unread past the
    /// cap: the next read skips the rest of it first.
    rest: bool,
}

/// Why the input could not be read, once it was open.
pub fn unreadable(e: std::io::Error) -> Error {
    Error::one(code::MALFORMED, format!("FILE: cannot be read ({e})"))
}

impl<'a> Lines<'a> {
    pub fn new(input: impl BufRead + 'a) -> Self {
        Lines {
            input: Box::new(input),
            n: 0,
            bytes: 0,
            rest: false,
        }
    }

    /// Read past the end of a line left unread, without holding it.
    fn skip_rest(&mut self) -> std::io::Result<()> {
        while self.rest {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                self.rest = false;
                break;
            }
            let (used, ends) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (avail.len(), false),
            };
            self.input.consume(used);
            self.bytes += used as u64;
            self.rest = !ends;
        }
        Ok(())
    }

    /// Append the next line to `buf` (which it clears first).
    pub fn next(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Next> {
        buf.clear();
        self.skip_rest()?;
        let mut any = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !any {
                    return Ok(Next::End);
                }
                break;
            }
            any = true;
            let (part, used, ends) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (&avail[..i], i + 1, true),
                None => (avail, avail.len(), false),
            };
            // One byte of slack for the `\r` of a CRLF line end.
            if buf.len() + part.len() > caps::LINE_BYTES + 1 {
                self.n += 1;
                self.rest = true;
                buf.clear();
                return Ok(Next::TooLong);
            }
            buf.extend_from_slice(part);
            self.input.consume(used);
            self.bytes += used as u64;
            if ends {
                break;
            }
        }
        self.n += 1;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.len() > caps::LINE_BYTES {
            return Ok(Next::TooLong);
        }
        if self.n == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
        }
        Ok(Next::Line)
    }
}

/// A batch of lines read, checked together.
#[derive(Default)]
pub(super) struct Batch {
    bytes: Vec<u8>,
    /// (line number, range in `bytes`).
    pub(super) lines: Vec<(usize, std::ops::Range<usize>)>,
}

impl Batch {
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
    pub(super) fn push(&mut self, n: usize, line: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(line);
        self.lines.push((n, start..self.bytes.len()));
    }
    pub(super) fn full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.bytes.len() >= BATCH_BYTES
    }
    fn line(&self, i: usize) -> (usize, &[u8]) {
        let (n, r) = &self.lines[i];
        (*n, &self.bytes[r.clone()])
    }
}

/// The threads that check lines (one with `PAYCTL_ID_SEED`: the ids are
/// drawn in line order).
fn threads() -> usize {
    if crate::model::id::seeded() {
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
}

/// Run `f` on every line of `batch`, split among the cores; the results in
/// line order.
pub(super) fn each_line<T: Send>(
    batch: &Batch,
    f: &(dyn Fn(usize, &[u8]) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    let total = batch.lines.len();
    let threads = threads().min(total.div_ceil(256)).max(1);
    if threads == 1 {
        return (0..total)
            .map(|i| {
                let (n, l) = batch.line(i);
                f(n, l)
            })
            .collect();
    }
    let per = total.div_ceil(threads);
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t * per..((t + 1) * per).min(total))
                        .map(|i| {
                            let (n, l) = batch.line(i);
                            f(n, l)
                        })
                        .collect::<Result<Vec<T>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("checking thread"))
            .collect()
    });
    let mut out = Vec::with_capacity(total);
    for p in parts {
        out.extend(p?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<std::result::Result<(usize, Vec<u8>), usize>> {
        let mut l = Lines::new(BufReader::with_capacity(16, input));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match l.next(&mut buf).unwrap() {
                Next::Line => out.push(Ok((l.n, buf.clone()))),
                Next::TooLong => {
                    out.push(Err(l.n));
                    break;
                }
                Next::End => break,
            }
        }
        out
    }

    #[test]
    fn lines_drop_crlf_and_a_leading_bom() {
        let got = all(b"\xEF\xBB\xBF{}\r\n\n[1]\nlast");
        let want: Vec<std::result::Result<(usize, Vec<u8>), usize>> = vec![
            Ok((1, b"{}".to_vec())),
            Ok((2, b"".to_vec())),
            Ok((3, b"[1]".to_vec())),
            Ok((4, b"last".to_vec())),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_line_past_the_cap_stops_reading_without_holding_it() {
        let mut input = b"{}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', caps::LINE_BYTES));
        input.extend(b"\n");
        input.extend(std::iter::repeat_n(b'y', caps::LINE_BYTES + 2));
        input.extend(b"\n{}\n");
        let got = all(&input);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[1].as_ref().map(|(n, l)| (*n, l.len())),
            Ok((2, caps::LINE_BYTES))
        );
        assert_eq!(got[2], Err(3));
        // A caller that reads on (remote mode) gets the line after it.
        let mut l = Lines::new(BufReader::with_capacity(16, &input[..]));
        let mut buf = Vec::new();
        let mut got = Vec::new();
        loop {
            match l.next(&mut buf).unwrap() {
                Next::End => break,
                n => got.push((l.n, n, buf.len())),
            }
        }
        assert_eq!(
            got,
            [
                (1, Next::Line, 2),
                (2, Next::Line, caps::LINE_BYTES),
                (3, Next::TooLong, 0),
                (4, Next::Line, 2)
            ]
        );
        assert_eq!(l.bytes, input.len() as u64);
        // An endless line (/dev/zero) ends the same way.
        let mut l = Lines::new(BufReader::new(std::io::repeat(0)));
        let mut buf = Vec::new();
        assert!(matches!(l.next(&mut buf).unwrap(), Next::TooLong));
        assert!(buf.capacity() <= 2 * caps::LINE_BYTES + (256 << 10));
    }
}
