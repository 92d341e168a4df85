//! What `store check`'s scan keeps of each record for the checks across
//! records, in as few bytes as the checks allow: at a million customers and
//! a million transactions every byte kept per record is a megabyte or two of
//! the check's peak memory, whose limit is 256 MB (issue 17).

#[cfg(test)]
use super::h64;

/// What the scan keeps of a customer record: 40 bytes (everything else is
/// checked as the record is read, and dropped).
pub(super) struct CustDigest {
    pub(super) id: PackedId,
    /// Hash of the customer_key (see [`h64`]).
    pub(super) key: u64,
    /// Hash of its summary (what `index/profiles.log` must hold), as
    /// [`h64`] of the profile's `ProfileSummary`.
    pub(super) summary: u64,
    /// The key index hash prefix of its customer_key (to name the bucket
    /// that lacks it).
    pub(super) key_prefix: [u8; 4],
}

/// What the scan keeps of a transaction record: hashes of its id and summary.
pub(super) struct TxnDigest {
    pub(super) id: u64,
    pub(super) summary: u64,
}

/// A customer id in 16 bytes: an id payctl makes (`csp_` and up to 20
/// characters of `[a-z0-9]`) is packed at 6 bits a character; any other
/// (written by hand, or by another tool) is kept whole in its chunk's table
/// of [`Odd`] ids, and this holds its index there. A `Box<str>` or an inline
/// buffer took 32 bytes a customer, a third of the digest.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct PackedId([u64; 2]);

const PREFIX: &str = "csp_";
const PACKED_CHARS: usize = 20;
/// The top bit marks an odd id.
const ODD: u64 = 1 << 63;

/// The ids of a chunk that do not pack.
pub(super) type Odd = Vec<Box<str>>;

fn char_code(b: u8) -> Option<u128> {
    match b {
        b'a'..=b'z' => Some(u128::from(b - b'a') + 1),
        b'0'..=b'9' => Some(u128::from(b - b'0') + 27),
        _ => None,
    }
}

fn code_char(c: u128) -> u8 {
    match c as u8 {
        n @ 1..=26 => b'a' + n - 1,
        n => b'0' + n - 27,
    }
}

impl PackedId {
    /// Pack `id`, keeping it in `odd` when it does not pack.
    pub(super) fn new(id: &str, odd: &mut Odd) -> PackedId {
        if let Some(rest) = id.strip_prefix(PREFIX)
            && (1..=PACKED_CHARS).contains(&rest.len())
        {
            let mut code = 0u128;
            let mut packs = true;
            for (i, b) in rest.bytes().enumerate() {
                match char_code(b) {
                    Some(c) => code |= c << (6 * i),
                    None => {
                        packs = false;
                        break;
                    }
                }
            }
            if packs {
                return PackedId([code as u64, (code >> 64) as u64]);
            }
        }
        odd.push(id.into());
        PackedId([(odd.len() - 1) as u64, ODD])
    }

    /// The id, with `odd` the table of its chunk.
    pub(super) fn get<'a>(&self, odd: &'a Odd) -> Id<'a> {
        if self.0[1] & ODD != 0 {
            return Id::Odd(odd.get(self.0[0] as usize).map_or("", |s| s));
        }
        let mut code = u128::from(self.0[0]) | (u128::from(self.0[1]) << 64);
        let mut buf = [0u8; PREFIX.len() + PACKED_CHARS];
        buf[..PREFIX.len()].copy_from_slice(PREFIX.as_bytes());
        let mut len = PREFIX.len();
        while code != 0 {
            buf[len] = code_char(code & 63);
            len += 1;
            code >>= 6;
        }
        Id::Packed(buf, len as u8)
    }
}

/// A customer id as [`PackedId::get`] gives it back.
pub(super) enum Id<'a> {
    Packed([u8; PREFIX.len() + PACKED_CHARS], u8),
    Odd(&'a str),
}

impl std::ops::Deref for Id<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            // Made of ASCII only: always UTF-8.
            Id::Packed(buf, n) => std::str::from_utf8(&buf[..*n as usize]).unwrap_or(""),
            Id::Odd(s) => s,
        }
    }
}

impl std::fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

/// Digests in the order of the scan: each shard's own vector, moved, never
/// copied into one (at a million records that copy doubled the vector for a
/// moment, the peak of `store check`'s memory).
pub(super) struct Chunks<T> {
    chunks: Vec<Vec<T>>,
    /// The index of each chunk's first item.
    starts: Vec<usize>,
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Chunks {
            chunks: Vec::new(),
            starts: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunks<T> {
    /// Add a chunk; false (and nothing added) when it is empty.
    pub(super) fn push_chunk(&mut self, chunk: Vec<T>) -> bool {
        if chunk.is_empty() {
            return false;
        }
        self.starts.push(self.len);
        self.len += chunk.len();
        self.chunks.push(chunk);
        true
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// Item `i` and the index of its chunk.
    fn at(&self, i: usize) -> (&T, usize) {
        let c = self.starts.partition_point(|&s| s <= i) - 1;
        (&self.chunks[c][i - self.starts[c]], c)
    }
}

/// The customers' digests in the order of the scan, each chunk with its
/// table of odd ids.
#[derive(Default)]
pub(super) struct Digests {
    items: Chunks<CustDigest>,
    odd: Vec<Odd>,
}

impl Digests {
    pub(super) fn push_chunk(&mut self, chunk: Vec<CustDigest>, odd: Odd) {
        if self.items.push_chunk(chunk) {
            self.odd.push(odd);
        }
    }

    pub(super) fn len(&self) -> usize {
        self.items.len()
    }

    /// Each digest with its id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (Id<'_>, &CustDigest)> {
        self.items
            .chunks
            .iter()
            .zip(&self.odd)
            .flat_map(|(c, odd)| c.iter().map(move |d| (d.id.get(odd), d)))
    }

    /// Digest `i` with its id.
    pub(super) fn get(&self, i: usize) -> (Id<'_>, &CustDigest) {
        let (d, c) = self.items.at(i);
        (d.id.get(&self.odd[c]), d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(id: &str, odd: &mut Odd) -> CustDigest {
        CustDigest {
            id: PackedId::new(id, odd),
            key: h64(id),
            key_prefix: [0; 4],
            summary: 0,
        }
    }

    #[test]
    fn a_digest_is_40_bytes() {
        assert_eq!(std::mem::size_of::<CustDigest>(), 40);
        assert_eq!(std::mem::size_of::<PackedId>(), 16);
    }

    #[test]
    fn every_id_comes_back_as_it_was_packed_or_kept() {
        let mut odd = Odd::new();
        let made = crate::model::id::new_id(crate::model::id::CUSTOMER);
        let cases = [
            (made.as_str(), true),
            ("csp_a", true),
            ("csp_z9", true),
            ("csp_0123456789abcdefghij", true),
            ("csp_99999999999999999999", true),
            ("csp_", false),
            ("csp_0123456789abcdefghijk", false),
            ("csp_ABC", false),
            ("csp_a-b", false),
            ("cpa_abc", false),
            ("", false),
            ("csp_é", false),
        ];
        let packed: Vec<PackedId> = cases
            .iter()
            .map(|(id, _)| PackedId::new(id, &mut odd))
            .collect();
        assert_eq!(odd.len(), cases.iter().filter(|(_, p)| !p).count());
        for ((id, packs), p) in cases.iter().zip(&packed) {
            let back = p.get(&odd);
            assert_eq!(&*back, *id);
            assert_eq!(back.to_string(), *id);
            assert_eq!(matches!(back, Id::Packed(..)), *packs, "{id}");
        }
        // Distinct ids pack distinctly.
        for (i, a) in packed.iter().enumerate() {
            for b in &packed[i + 1..] {
                assert!(a != b);
            }
        }
    }

    #[test]
    fn digests_index_across_the_chunks_of_the_scan() {
        let mut d = Digests::default();
        let mut chunk = |ids: &[&str]| {
            let mut odd = Odd::new();
            let v = ids.iter().map(|id| digest(id, &mut odd)).collect();
            d.push_chunk(v, odd);
        };
        chunk(&["csp_a", "B"]);
        chunk(&[]);
        chunk(&["csp_c"]);
        chunk(&["D", "csp_e", "F"]);
        let ids: Vec<String> = d.iter().map(|(id, _)| id.to_string()).collect();
        assert_eq!(ids, ["csp_a", "B", "csp_c", "D", "csp_e", "F"]);
        assert_eq!(d.len(), 6);
        for (i, id) in ids.iter().enumerate() {
            let (got, digest) = d.get(i);
            assert_eq!(&*got, id);
            assert_eq!(digest.key, h64(id.as_str()));
        }
    }
}
