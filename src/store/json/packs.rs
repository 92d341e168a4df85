//! Packed customer records: what lets `profile import` write a chunk of
//! 20,000 profiles as one file instead of 20,000 (issue 17).
//!
//! Creating a file costs the file system an inode, a directory entry and a
//! block of its own, and on this kind of disk that caps any
//! one-file-per-record import at 6,000-12,000 records a second, whatever the
//! program does. So a large commit that creates many customers (an import
//! chunk, a `store migrate` into a directory: at least [`PACK_MIN`]) writes
//! their records one after the other into a new pack, `packs/<n>.jsonl`
//! (each record exactly the bytes its own file would hold: the document and
//! a newline), and locates each in its shard's `customers/<xx>/packed.log`,
//! one line `<id> <pack> <offset> <length>` per record, appended in the same
//! commit.
//!
//! The creates of `payctl serve`'s group commit (see `store/json/group/`)
//! are packed too, one at a time: each appends its record to the newest
//! pack (a new one once it passes [`GROUP_PACK_BYTES`]) and its line to its
//! shard's log, instead of creating a file (an inode, a directory entry: a
//! third of the server's time on a file system whose inodes were freed
//! recently, and most of a checkpoint's), never to a pack that a snapshot
//! shares (a hard link: a group then starts a new one). A pack is otherwise
//! written once; nothing but such appends changes one. A customer's own file
//! `customers/<xx>/<id>.json` comes first: an update writes it, and from then
//! on it is the record, the packed entry an old version that nothing reads.
//! So a record is read as before, and only when its file does not exist is
//! its shard's log looked up (a few dozen kilobytes at a million customers)
//! and its entry read with one `pread`, its id checked against the one asked
//! for.
//!
//! Packs and logs are records, not derived data: `store check` verifies that
//! every log line is well formed and names an entry of a pack that holds
//! that customer, that no customer is packed twice, and that the entries of
//! each pack cover it exactly; `--repair` never rewrites them.

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;

use super::CUSTOMERS_DIR;
use super::safefs::{self, Root};
use crate::error::{Error, Result};
use crate::limits::RECORD_BYTES;
use crate::model::Customer;
use crate::model::id;

mod plan;
mod window;
pub use self::plan::{Plan, group_pack, next_pack};
pub use self::window::Window;

/// The directory of the packs.
pub const PACKS_DIR: &str = "packs";

/// A shard's log of packed records.
pub const LOG: &str = "packed.log";

/// A commit creating at least this many customers packs them: below it,
/// a file each costs less than the logs a pack appends to.
pub const PACK_MIN: usize = 256;

/// The size past which the creates of a group commit append to a new
/// pack instead of the newest.
pub const GROUP_PACK_BYTES: u64 = 16 << 20;

/// See [`GROUP_PACK_BYTES`] (a test may make it smaller).
pub fn group_pack_bytes() -> u64 {
    crate::store::fault::group_pack_bytes(GROUP_PACK_BYTES)
}

/// The most bytes a shard's log may have: far beyond what ten million
/// customers give it, refused by its size unread beyond (a sparse file
/// planted there must not be read whole by every `profile get`).
pub const LOG_BYTES: u64 = 64 << 20;

/// The store-relative path of pack `n`.
pub fn pack_rel(n: u64) -> String {
    format!("{PACKS_DIR}/{n}.jsonl")
}

/// The pack number of a file name of `packs/` (`<n>.jsonl`, n ≥ 1 without
/// leading zeros).
pub fn pack_of_name(name: &str) -> Option<u64> {
    let n = name.strip_suffix(".jsonl")?;
    if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The store-relative path of the log of the shard that holds `cid`.
pub fn log_rel(cid: &str) -> String {
    format!("{CUSTOMERS_DIR}/{}/{LOG}", id::shard(cid))
}

/// Where a packed record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub pack: u64,
    pub offset: u64,
    /// Its bytes, newline included.
    pub len: u64,
}

/// One line of a log: the id and the place, or `None` when it is not a
/// well-formed line (a valid customer id, three numbers, a length of a
/// record).
pub fn parse_line(line: &str) -> Option<(&str, Place)> {
    let mut it = line.split(' ');
    let (cid, pack, offset, len) = (it.next()?, it.next()?, it.next()?, it.next()?);
    if it.next().is_some() || !id::is_valid(id::CUSTOMER, cid) {
        return None;
    }
    let num = |s: &str| -> Option<u64> {
        if s.is_empty()
            || (s.len() > 1 && s.starts_with('0'))
            || !s.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        s.parse().ok()
    };
    let place = Place {
        pack: num(pack)?,
        offset: num(offset)?,
        len: num(len)?,
    };
    (place.pack >= 1
        && place.pack <= u64::from(u32::MAX)
        && place.len >= 2
        && place.len <= RECORD_BYTES)
        .then_some((cid, place))
}

/// The line of `cid` at `place`.
pub fn line(cid: &str, place: Place) -> String {
    format!("{cid} {} {} {}\n", place.pack, place.offset, place.len)
}

/// The log of packed records of the shard directory `d`, whole; `None`
/// when it has none. Refused by its size, unread, past [`LOG_BYTES`].
pub fn read_log(d: &safefs::Dir) -> Result<Option<Vec<u8>>> {
    d.read(std::ffi::OsStr::new(LOG), Some(LOG_BYTES))
}

/// The index of the first newline of `s`, eight bytes at a time: a log
/// holds about 800 lines at a million customers, and a page of a list
/// looks fifty customers up in their logs.
fn newline(s: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = ONES * b'\n' as u64;
    let mut i = 0;
    while let Some(word) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ NEWLINES;
        // A byte of `w` is zero where `s` has a newline: the lowest byte
        // flagged here is the first such (a borrow flags only bytes above
        // a zero one).
        let zero = w.wrapping_sub(ONES) & !w & HIGH;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

/// The place of `cid` in the log `bytes`: its last well-formed line.
pub fn find(bytes: &[u8], cid: &str) -> Option<Place> {
    let mut found = None;
    let mut rest = bytes;
    while !rest.is_empty() {
        let end = newline(rest);
        let (l, next) = match end {
            Some(e) => (&rest[..e], &rest[e + 1..]),
            // A line without its newline was never committed.
            None => break,
        };
        if l.len() > cid.len()
            && l.starts_with(cid.as_bytes())
            && l[cid.len()] == b' '
            && let Some((_, p)) = std::str::from_utf8(l).ok().and_then(parse_line)
        {
            found = Some(p);
        }
        rest = next;
    }
    found
}

/// The bytes of the entry at `place` of the open pack `f` (`path` names
/// it), its newline left out.
pub fn read_entry(f: &File, path: &Path, place: Place) -> Result<Vec<u8>> {
    use std::os::unix::fs::FileExt;
    let mut buf = vec![0u8; place.len as usize];
    f.read_exact_at(&mut buf, place.offset).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            short(path, place)
        } else {
            Error::io(path, e)
        }
    })?;
    entry_end(path, place, &buf)?;
    buf.pop();
    Ok(buf)
}

/// The entry at `place` of the pack `bytes` (as a pending journal leaves
/// it), its newline left out.
pub fn entry_in<'a>(bytes: &'a [u8], path: &Path, place: Place) -> Result<&'a [u8]> {
    let b = usize::try_from(place.offset)
        .ok()
        .and_then(|o| bytes.get(o..o.checked_add(place.len as usize)?))
        .ok_or_else(|| short(path, place))?;
    entry_end(path, place, b)?;
    Ok(&b[..b.len() - 1])
}

/// The entry at `place` of the pack `path`, from `bytes` read at its
/// offset (fewer when the pack ends before), its newline left out.
pub fn entry_at<'a>(bytes: &'a [u8], path: &Path, place: Place) -> Result<&'a [u8]> {
    if bytes.len() as u64 != place.len {
        return Err(short(path, place));
    }
    entry_end(path, place, bytes)?;
    Ok(&bytes[..bytes.len() - 1])
}

fn short(path: &Path, place: Place) -> Error {
    Error::corrupt(
        path,
        format!(
            "ends before the entry of {} bytes at offset {} that a log of packed records names",
            place.len, place.offset
        ),
    )
}

fn entry_end(path: &Path, place: Place, b: &[u8]) -> Result<()> {
    if b.last() == Some(&b'\n') {
        return Ok(());
    }
    Err(Error::corrupt(
        path,
        format!(
            "the entry at offset {} does not end where a log of packed records says",
            place.offset
        ),
    ))
}

/// The packed record `cid` (the entry `bytes` at `place` of the pack
/// `path`), parsed and checked to be that customer.
pub fn customer_of(bytes: &[u8], path: &Path, place: Place, cid: &str) -> Result<Customer> {
    let c = parse_customer(bytes, path, place)?;
    if c.id() != cid {
        return Err(another_customer(path, place));
    }
    Ok(c)
}

/// The entry `bytes` at `place` of the pack `path` parsed as a customer
/// record (whose id the caller compares with its log's).
pub fn parse_customer(bytes: &[u8], path: &Path, place: Place) -> Result<Customer> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::corrupt(
            path,
            format!(
                "the entry at offset {} is not a customer record: {e}",
                place.offset
            ),
        )
    })
}

/// An entry at `place` of the pack `path` that holds another customer than
/// the log naming it says.
pub fn another_customer(path: &Path, place: Place) -> Error {
    Error::corrupt(
        path,
        format!(
            "the entry at offset {} holds another customer than its log says",
            place.offset
        ),
    )
}

/// Open the pack `n` of the store `root` for reading (never through a
/// link); `None` when it does not exist.
pub fn open(root: &Root, n: u64) -> Result<Option<File>> {
    safefs::open(root, &root.join(pack_rel(n)), safefs::How::READ)
}

/// Packs opened for reading many entries (`store check`, a rebuild): at most
/// [`Opened::MAX`] at a time, so that ten million customers (a thousand
/// packs) never run out of file descriptors. Each is opened from the
/// `packs` directory, opened once (a walk from the store's root for each
/// pack was 5% of `store check` at a million), and one is let go when
/// another must be opened, not all.
#[derive(Default)]
pub struct Opened {
    dir: Option<std::result::Result<safefs::Dir, String>>,
    files: HashMap<u64, std::result::Result<File, String>>,
}

impl Opened {
    const MAX: usize = 64;

    /// Pack `n` of the store `root`, opened at its first use; `Err` (the
    /// reason) when it cannot be.
    pub fn get(&mut self, root: &Root, n: u64) -> &std::result::Result<File, String> {
        if !self.files.contains_key(&n)
            && self.files.len() >= Self::MAX
            && let Some(&any) = self.files.keys().next()
        {
            self.files.remove(&any);
        }
        let dir = self.dir.get_or_insert_with(|| {
            match safefs::Dir::open(root, &root.join(PACKS_DIR), false) {
                Ok(Some(d)) => Ok(d),
                Ok(None) => Err("does not exist".to_string()),
                Err(e) => Err(e.errors[0].message.clone()),
            }
        });
        self.files.entry(n).or_insert_with(|| {
            let dir = dir.as_ref().map_err(Clone::clone)?;
            match dir.file(
                std::ffi::OsStr::new(&format!("{n}.jsonl")),
                safefs::How::READ,
            ) {
                Ok(Some(f)) => Ok(f),
                Ok(None) => Err("does not exist".to_string()),
                Err(e) => Err(e.errors[0].message.clone()),
            }
        })
    }

    /// The bytes of the entry at `place`, read through the packs opened so
    /// far; `Err` says why not, naming the pack.
    pub fn read(&mut self, root: &Root, place: Place) -> std::result::Result<Vec<u8>, String> {
        let rel = pack_rel(place.pack);
        match self.get(root, place.pack) {
            Ok(f) => {
                read_entry(f, &root.join(&rel), place).map_err(|e| e.errors[0].message.clone())
            }
            Err(e) => Err(format!("{rel}: {e}")),
        }
    }
}

/// The complete lines of a shard's log of packed records, numbered from 1,
/// each with its customer and place, or `None` when it is not a line
/// [`parse_line`] reads. (A last line without its newline is not one of
/// them: it was never committed.)
pub fn log_lines(log: &[u8]) -> impl Iterator<Item = (usize, Option<(&str, Place)>)> {
    crate::store::json::index::complete(log)
        .strip_suffix(b"\n")
        .into_iter()
        .flat_map(|body| body.split(|&b| b == b'\n'))
        .enumerate()
        .map(|(i, l)| (i + 1, std::str::from_utf8(l).ok().and_then(parse_line)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newline_finds_the_first_one_wherever_it_is() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for len in 0..70 {
            for _ in 0..200 {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        // Newlines, bytes next to them, and high bytes.
                        [b'\n', b'\x0b', b'\x09', 0, 0x8a, b'7', b' '][(rng % 7) as usize]
                    })
                    .collect();
                assert_eq!(newline(&s), s.iter().position(|&b| b == b'\n'), "{s:?}");
            }
        }
    }

    /// A walk over many packs keeps at most `Opened::MAX` of them open, and
    /// every pack still reads, again after it was let go.
    #[test]
    fn at_most_max_packs_are_open_at_once_and_each_still_reads() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(PACKS_DIR)).unwrap();
        let n_packs = Opened::MAX as u64 * 2 + 3;
        for n in 1..=n_packs {
            std::fs::write(dir.path().join(pack_rel(n)), format!("pack {n}\n")).unwrap();
        }
        let root = Root::new(dir.path());
        let mut opened = Opened::default();
        for _ in 0..2 {
            for n in 1..=n_packs {
                let f = opened.get(&root, n).as_ref().expect("opens");
                let mut buf = vec![0; 32];
                let got = f.read_at(&mut buf, 0).unwrap();
                assert_eq!(&buf[..got], format!("pack {n}\n").as_bytes());
                assert!(
                    opened.files.len() <= Opened::MAX,
                    "{} open",
                    opened.files.len()
                );
            }
        }
        let missing = opened.get(&root, n_packs + 1);
        assert_eq!(
            missing.as_ref().err().map(String::as_str),
            Some("does not exist")
        );
    }

    /// The `packs` directory is reached as every directory of the store
    /// is: a link in its place is refused, never followed.
    #[test]
    fn a_link_in_place_of_the_packs_directory_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::fs::write(elsewhere.join("1.jsonl"), "pack 1\n").unwrap();
        let store = dir.path().join("store");
        std::fs::create_dir(&store).unwrap();
        std::os::unix::fs::symlink(&elsewhere, store.join(PACKS_DIR)).unwrap();
        let root = Root::new(&store);
        let mut opened = Opened::default();
        let got = opened.get(&root, 1).as_ref().map(|_| ()).unwrap_err();
        assert!(got.contains("symbolic link"), "{got}");
    }

    #[test]
    fn a_line_reads_back_and_malformed_ones_do_not() {
        let cid = "csp_abcdefghij0123456789";
        let p = Place {
            pack: 3,
            offset: 1024,
            len: 900,
        };
        let l = line(cid, p);
        assert_eq!(parse_line(l.trim_end()), Some((cid, p)));
        for bad in [
            "csp_a 1 0",
            "csp_a 0 0 10",
            "csp_a 1 0 1",
            "csp_a 1 01 10",
            "csp_a 1 0 10 x",
            "csp_a/b 1 0 10",
            "csp_a 1 -1 10",
            "csp_a 1 0 99999999999",
            "csp_a 4294967296 0 10",
        ] {
            assert_eq!(parse_line(bad), None, "{bad}");
        }
    }

    #[test]
    fn find_takes_the_last_whole_line_of_the_id() {
        let a = "csp_aa1";
        let log = format!(
            "{}{}{}csp_aa1 9 0 5",
            line(
                a,
                Place {
                    pack: 1,
                    offset: 0,
                    len: 5
                }
            ),
            line(
                "csp_aa12",
                Place {
                    pack: 2,
                    offset: 0,
                    len: 5
                }
            ),
            line(
                a,
                Place {
                    pack: 3,
                    offset: 7,
                    len: 5
                }
            ),
        );
        assert_eq!(
            find(log.as_bytes(), a),
            Some(Place {
                pack: 3,
                offset: 7,
                len: 5
            })
        );
        assert_eq!(find(log.as_bytes(), "csp_aa"), None);
    }

    #[test]
    fn pack_names() {
        assert_eq!(pack_of_name("12.jsonl"), Some(12));
        for bad in ["0.jsonl", "012.jsonl", "x.jsonl", ".jsonl", "12.json", "12"] {
            assert_eq!(pack_of_name(bad), None, "{bad}");
        }
    }

    /// A log's lines are numbered from 1 as they stand; a line that does
    /// not parse is `None` in its place, and a last line without its
    /// newline is not one of them.
    #[test]
    fn log_lines_number_every_complete_line() {
        let a = Place {
            pack: 1,
            offset: 0,
            len: 600,
        };
        let b = Place {
            pack: 2,
            offset: 600,
            len: 700,
        };
        let log = format!(
            "{}not a line\n{}csp_partial 1 2",
            line("csp_aaaa", a),
            line("csp_bbbb", b)
        );
        let got: Vec<(usize, Option<(&str, u64)>)> = log_lines(log.as_bytes())
            .map(|(n, e)| (n, e.map(|(cid, p)| (cid, p.pack))))
            .collect();
        assert_eq!(
            got,
            [
                (1, Some(("csp_aaaa", 1))),
                (2, None),
                (3, Some(("csp_bbbb", 2)))
            ]
        );
        assert_eq!(log_lines(b"").count(), 0);
        assert_eq!(log_lines(b"csp_x 1 0 9").count(), 0);
    }
}
