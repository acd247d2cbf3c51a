//! The reference solver: the classic teaching program, slow on purpose, used as the oracle.
//!
//! It builds every permutation of 1..n by inserting n into each position of each permutation
//! of 1..n-1, keeps those with no two queens on a diagonal (`|p[i] - p[j]| != j - i`), and
//! finds the unique solutions through canonical forms under the 8 symmetries. No bit tricks,
//! no pruning, no shared code with the fast engine beyond the transform table.

use super::symmetry::{canonical, orbit_size};

/// What the reference solver found.
#[derive(Clone, Debug, PartialEq, Eq)]
///
/// ```
/// let r = nqueens::reference::count(6);
/// assert_eq!((r.total, r.unique, r.orbits), (4, 1, [0, 1, 0, 0])); // fixed by the half turn
/// ```
pub struct ReferenceCounts {
    /// All solutions.
    pub total: u64,
    /// Solutions that are the canonical form of their orbit.
    pub unique: u64,
    /// Orbits of size 8, 4, 2 and 1.
    pub orbits: [u64; 4],
}

/// Calls `visit` with every permutation of `0..n` (0-based columns): each permutation of
/// `0..k` is extended by inserting `k` into each of its `k + 1` positions. Depth-first, so
/// memory is O(n) rather than n! permutations.
pub(crate) fn for_each_permutation(n: usize, visit: &mut dyn FnMut(&[usize])) {
    fn extend(k: usize, n: usize, perm: &mut Vec<usize>, visit: &mut dyn FnMut(&[usize])) {
        if k == n {
            visit(perm);
            return;
        }
        for pos in 0..=perm.len() {
            perm.insert(pos, k);
            extend(k + 1, n, perm, visit);
            perm.remove(pos);
        }
    }
    extend(0, n, &mut Vec::with_capacity(n), visit);
}

/// True if no two queens of the permutation share a diagonal.
pub(crate) fn no_diagonal_attacks(p: &[usize]) -> bool {
    (0..p.len()).all(|i| (i + 1..p.len()).all(|j| p[i].abs_diff(p[j]) != j - i))
}

/// Counts with the reference method. Practical up to n = 10 (3.6 million permutations).
///
/// # Examples
/// ```
/// let r = nqueens::reference::count(6);
/// assert_eq!((r.total, r.unique), (4, 1));
/// ```
pub fn count(n: usize) -> ReferenceCounts {
    let mut r = ReferenceCounts {
        total: 0,
        unique: 0,
        orbits: [0; 4],
    };
    for_each_permutation(n, &mut |p| {
        if !no_diagonal_attacks(p) {
            return;
        }
        r.total += 1;
        if canonical(p) == p {
            r.unique += 1;
            let slot = match orbit_size(p) {
                8 => 0,
                4 => 1,
                2 => 2,
                _ => 3,
            };
            r.orbits[slot] += 1;
        }
    });
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insertion_builds_all_permutations_once() {
        let mut p = Vec::new();
        for_each_permutation(5, &mut |q| p.push(q.to_vec()));
        assert_eq!(p.len(), 120);
        p.sort();
        p.dedup();
        assert_eq!(p.len(), 120);
    }

    #[test]
    fn eight_queens() {
        let r = count(8);
        assert_eq!((r.total, r.unique, r.orbits), (92, 12, [11, 1, 0, 0]));
    }
}
