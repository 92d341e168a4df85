//! Sorted 64-bit hashes as the scan of `store check` looks them up: the
//! field index entries the customers' values must find ([`Hashes`]), the
//! creation-order positions of the ids file and the holders of the keys
//! ([`HashIndex`]).
//!
//! A look-up goes where the hash falls: a table of where each value of
//! the top 16 bits begins gives its run (about n/65,536 hashes), and the
//! hashes being uniform, the rest of its bits say where in the run it
//! falls, within a few entries. A binary search of the run or of the whole
//! array made a chain of dependent reads, each a cache miss at a million
//! customers (the field entries are 32 MB), and was a fifth of the check's
//! time. The table costs 256 KB.

use super::h64;

/// Where each run of equal top 16 bits begins in a sorted array, and the
/// look-up in it.
struct Runs(Vec<u32>);

impl Runs {
    const RUNS: usize = 1 << 16;

    fn new(sorted: impl Iterator<Item = u64>) -> Runs {
        let mut starts = vec![0u32; Self::RUNS + 1];
        for h in sorted {
            starts[(h >> 48) as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        Runs(starts)
    }

    /// Where in `sorted` the hash `h` would be looked for first.
    fn guess(&self, h: u64) -> Option<usize> {
        let run = (h >> 48) as usize;
        let (a, b) = (self.0[run] as usize, self.0[run + 1] as usize);
        let low = u128::from(h & ((1 << 48) - 1));
        (a < b).then(|| a + ((low * (b - a) as u128) >> 48) as usize)
    }

    /// The index of the first entry of `sorted` whose hash (`key`) is `h`.
    fn find<T>(&self, sorted: &[T], key: impl Fn(&T) -> u64, h: u64) -> Option<usize> {
        let mut i = self.guess(h)?;
        let run = (h >> 48) as usize;
        let (a, b) = (self.0[run] as usize, self.0[run + 1] as usize);
        if key(&sorted[i]) < h {
            loop {
                i += 1;
                if i == b {
                    return None;
                }
                let k = key(&sorted[i]);
                if k >= h {
                    return (k == h).then_some(i);
                }
            }
        }
        loop {
            let k = key(&sorted[i]);
            if k < h {
                return None;
            }
            if k == h && (i == a || key(&sorted[i - 1]) < h) {
                return Some(i);
            }
            if i == a {
                return None;
            }
            i -= 1;
        }
    }
}

/// A set of 64-bit hashes, sorted, with their [`Runs`].
pub(in super::super) struct Hashes {
    sorted: Vec<u64>,
    runs: Runs,
}

impl Hashes {
    pub(in super::super) fn new(mut hashes: Vec<u64>) -> Hashes {
        hashes.sort_unstable();
        hashes.dedup();
        // Grown by doubling, up to twice its length: kept through the whole
        // scan of the records, the peak of `store check`'s memory.
        hashes.shrink_to_fit();
        let runs = Runs::new(hashes.iter().copied());
        Hashes {
            sorted: hashes,
            runs,
        }
    }

    pub(in super::super) fn len(&self) -> usize {
        self.sorted.len()
    }

    pub(in super::super) fn contains(&self, h: u64) -> bool {
        self.runs.find(&self.sorted, |&x| x, h).is_some()
    }

    /// Read where `h` is looked for first, so that the look-ups of a few
    /// hashes, each a cache miss, wait for memory together rather than one
    /// after the other: `contains` then finds the line in the cache.
    pub(super) fn touch(&self, hashes: &[u64]) {
        let mut sum = 0u64;
        for &h in hashes {
            if let Some(i) = self.runs.guess(h) {
                sum = sum.wrapping_add(self.sorted[i]);
            }
        }
        std::hint::black_box(sum);
    }
}

/// Sorted `(hash, value)` pairs with their [`Runs`]: the creation-order
/// positions of `index/profiles.ids` (`(hash of the id, position)`), the
/// holder of each key (`(hash of the key, customer)`).
pub(in super::super) struct HashIndex {
    sorted: Vec<(u64, u32)>,
    runs: Runs,
}

impl HashIndex {
    pub(in super::super) fn new(mut sorted: Vec<(u64, u32)>) -> HashIndex {
        sorted.sort_unstable();
        let runs = Runs::new(sorted.iter().map(|e| e.0));
        HashIndex { sorted, runs }
    }

    /// The value of the first pair with the hash `h`.
    pub(in super::super) fn get(&self, h: u64) -> Option<u32> {
        self.runs
            .find(&self.sorted, |e| e.0, h)
            .map(|i| self.sorted[i].1)
    }

    /// As positions: the position of `id` (the first listed, when it is
    /// listed twice).
    pub(super) fn position_of(&self, id: &str) -> Option<usize> {
        self.get(h64(id)).map(|p| p as usize)
    }

    pub(in super::super) fn len(&self) -> usize {
        self.sorted.len()
    }

    /// The pairs, sorted.
    pub(in super::super) fn into_sorted(self) -> Vec<(u64, u32)> {
        self.sorted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same answers as `partition_point` (the first entry with the
    /// hash, when there is one), for hashes present, absent, below and
    /// above every entry, on lists of every small length, with repeated
    /// hashes, and on a skewed one.
    #[test]
    fn find_is_the_first_equal_entry() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let check = |v: &[u64], keys: &[u64]| {
            let runs = Runs::new(v.iter().copied());
            for &k in keys {
                let i = v.partition_point(|&h| h < k);
                let want = (i < v.len() && v[i] == k).then_some(i);
                assert_eq!(runs.find(v, |&h| h, k), want, "n {} k {k}", v.len());
            }
        };
        for n in (0..40).chain([1000, 70_000]) {
            let mut v: Vec<u64> = (0..n).map(|_| next()).collect();
            // Some hashes twice or three times.
            let again: Vec<u64> = v.iter().step_by(7).copied().collect();
            v.extend(&again);
            v.extend(again.iter().step_by(3));
            v.sort_unstable();
            let mut keys: Vec<u64> = v.clone();
            keys.extend((0..200).map(|_| next()));
            keys.extend([0, 1, u64::MAX, u64::MAX - 1]);
            keys.extend(v.iter().map(|h| h.wrapping_add(1)));
            keys.extend(v.iter().map(|h| h.wrapping_sub(1)));
            check(&v, &keys);
        }
        // All in one corner of the range: one long run, the guesses off.
        let v: Vec<u64> = (0..5000u64).map(|i| i * 3).collect();
        check(
            &v,
            &[
                0,
                1,
                2,
                3,
                7,
                14_997,
                14_999,
                15_000,
                u64::MAX / 2,
                u64::MAX,
            ],
        );
    }
}
