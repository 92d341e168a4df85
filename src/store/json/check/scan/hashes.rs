//! The set of hashes the scan looks the customers' field index entries up
//! in: sorted, with a table of where each run of their top bits begins.

/// A set of 64-bit hashes: sorted, with a table of where each value of
/// their top 16 bits begins, so that a lookup binary searches one short run
/// (about n/65,536 hashes, a cache line or two) instead of the whole array,
/// whose every step would miss the cache (at a million customers the field
/// entries are 40 MB). The table costs 256 KB.
pub(in super::super) struct Hashes {
    sorted: Vec<u64>,
    starts: Vec<u32>,
}

impl Hashes {
    const RUNS: usize = 1 << 16;

    pub(super) fn new(mut hashes: Vec<u64>) -> Hashes {
        hashes.sort_unstable();
        hashes.dedup();
        // Grown by doubling, up to twice its length: kept through the whole
        // scan of the records, the peak of `store check`'s memory.
        hashes.shrink_to_fit();
        let mut starts = vec![0u32; Self::RUNS + 1];
        for h in &hashes {
            starts[(h >> 48) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Hashes {
            sorted: hashes,
            starts,
        }
    }

    pub(in super::super) fn len(&self) -> usize {
        self.sorted.len()
    }

    pub(super) fn contains(&self, h: u64) -> bool {
        let run = (h >> 48) as usize;
        let (a, b) = (self.starts[run] as usize, self.starts[run + 1] as usize);
        self.sorted[a..b].binary_search(&h).is_ok()
    }
}
