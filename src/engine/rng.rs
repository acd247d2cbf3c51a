//! SplitMix64, the seeded generator behind every repeatable random choice of the runners
//! and the command (`merge --recheck`'s sample, `verify --units`'s units, `estimate`'s draw,
//! `solutions --random`): a 64-bit state advanced by the
//! golden-ratio increment and a mixing function (Steele, Lea & Flood, "Fast splittable
//! pseudorandom number generators", OOPSLA 2014; constants from Vigna's reference
//! `splitmix64.c`). Small, fast, good enough to pick a sample, and fully determined by the
//! seed, which is what `--seed` promises.

/// A SplitMix64 generator; the same seed gives the same sequence on every platform.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform float in [0, 1): the top 53 bits of the next output.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer in `0..bound` (`bound > 0`): plain `x % bound` would favour small
    /// values, so the lowest `2^64 mod bound` outputs are drawn again.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0);
        let reject = bound.wrapping_neg() % bound; // 2^64 mod bound
        loop {
            let x = self.next_u64();
            if x >= reject {
                return x % bound;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_sequence() {
        // First outputs of Vigna's splitmix64.c for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut r = SplitMix64::new(42);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[r.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&k| k > 800), "{seen:?}");
        assert_eq!(SplitMix64::new(1).below(1), 0);
    }
}
