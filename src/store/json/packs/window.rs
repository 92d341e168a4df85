//! A pack read in the order of its entries (`store check`): see [`Window`].

use std::fs::File;
use std::path::Path;

use super::{Place, entry_end, short};
use crate::error::{Error, Result};

/// A pack read in the order of its entries (`store check`): an entry is
/// served from a buffer read ahead from where the first entry outside it
/// begins, so that a pack of fifteen thousand entries takes a few reads,
/// not one each (a million `pread`s were a tenth of the check's CPU).
#[derive(Default)]
pub struct Window {
    start: u64,
    buf: Vec<u8>,
}

impl Window {
    /// Bytes read at a time (at least one entry's).
    const SIZE: usize = 1 << 20;

    /// The entry at `place` of the pack `f` (`path` names it), its newline
    /// left out. Read fastest when the places come in increasing offsets.
    pub fn entry(&mut self, f: &File, path: &Path, place: Place) -> Result<&[u8]> {
        use std::os::unix::fs::FileExt;
        let end = place.offset.saturating_add(place.len);
        if place.offset < self.start || end > self.start + self.buf.len() as u64 {
            self.buf.clear();
            self.buf.resize((place.len as usize).max(Self::SIZE), 0);
            self.start = place.offset;
            let mut n = 0;
            while n < self.buf.len() {
                match f.read_at(&mut self.buf[n..], place.offset + n as u64) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.buf.clear();
                        return Err(Error::io(path, e));
                    }
                }
            }
            self.buf.truncate(n);
            if (n as u64) < place.len {
                return Err(short(path, place));
            }
        }
        let from = (place.offset - self.start) as usize;
        let b = &self.buf[from..from + place.len as usize];
        entry_end(path, place, b)?;
        Ok(&b[..b.len() - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::super::read_entry;
    use super::*;

    /// A pack read through a window gives each entry as a read of its own
    /// does: in order across the window's edges, out of order, an entry
    /// longer than the window; and a cut pack or an entry not ending with
    /// a newline is refused as `read_entry` refuses it.
    #[test]
    fn a_window_reads_each_entry_as_a_read_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.jsonl");
        let mut bytes = Vec::new();
        let mut places = Vec::new();
        let mut i = 0u64;
        while bytes.len() < 3 * Window::SIZE + 1000 {
            // Lengths from 2 bytes to past the window's.
            let len = match i % 97 {
                0 => Window::SIZE + 17,
                k => 2 + (k * 37) as usize,
            };
            let mut e = vec![b'a' + (i % 26) as u8; len - 1];
            e.push(b'\n');
            places.push(Place {
                pack: 1,
                offset: bytes.len() as u64,
                len: len as u64,
            });
            bytes.extend(e);
            i += 1;
        }
        std::fs::write(&path, &bytes).unwrap();
        let f = File::open(&path).unwrap();
        let read = |w: &mut Window, p: Place| w.entry(&f, &path, p).map(<[u8]>::to_vec);
        let mut w = Window::default();
        for &p in &places {
            assert_eq!(read(&mut w, p).unwrap(), read_entry(&f, &path, p).unwrap());
        }
        for &p in places.iter().rev().step_by(3) {
            assert_eq!(read(&mut w, p).unwrap(), read_entry(&f, &path, p).unwrap());
        }
        // Past the end, and an entry that ends one byte early.
        let last = *places.last().unwrap();
        let past = Place {
            offset: last.offset + 1,
            ..last
        };
        let msg = |r: Result<Vec<u8>>| r.unwrap_err().errors[0].message.clone();
        assert_eq!(
            msg(read(&mut Window::default(), past)),
            msg(read_entry(&f, &path, past))
        );
        let early = Place {
            len: places[5].len - 1,
            ..places[5]
        };
        let m = msg(read(&mut w, early));
        assert!(m.contains("does not end where"), "{m}");
        assert_eq!(m, msg(read_entry(&f, &path, early)));
    }
}
