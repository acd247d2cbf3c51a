//! 64-bit FNV-1a: the stable, dependency-free digest of unit plans (the plan id), checkpoint
//! records and shard files. It detects accidents (a flipped byte, a torn or hand-edited
//! record), not forgery: anyone can recompute it.
//!
//! Source: Fowler, Noll, Vo, "FNV hash" (offset basis 0xcbf29ce484222325, prime 2^40 + 0x1b3).

/// The FNV-1a offset basis: the digest of no bytes.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_more(FNV_OFFSET, bytes)
}

/// Continues a FNV-1a digest `h` over more `bytes` (digesting in pieces gives the same value
/// as digesting the concatenation).
pub(crate) fn fnv1a64_more(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_digest_like_the_whole() {
        assert_eq!(fnv1a64_more(fnv1a64(b"nq"), b"ueens"), fnv1a64(b"nqueens"));
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}

/// The examples that were this module's doc tests (doc tests cannot reach `pub(crate)`
/// items).
#[cfg(test)]
mod examples {
    #[test]
    fn fnv1a64_example() {
        assert_eq!(crate::engine::digest::fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
    }
}
