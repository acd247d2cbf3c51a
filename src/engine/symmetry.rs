//! The 8 symmetries of the square (the dihedral group D4) acting on cells and on solutions,
//! and canonical forms of solutions.
//!
//! A solution is a permutation `p` with the queen of row `r` in column `p[r]`. Every
//! transform maps a solution to a solution, so the 8 images form its orbit; the orbit's
//! canonical representative is the lexicographically smallest image. Burnside's lemma
//! (in the form `engine::counts` checks) turns counts of fixed solutions into the number of
//! orbits.

/// One of the 8 symmetries of an n×n board.
///
/// ```
/// use nqueens::Transform;
/// // The 4-queens solution [1, 3, 0, 2] (row r has its queen in column perm[r]) turned a
/// // quarter is the other solution, [2, 0, 3, 1].
/// let images: Vec<Vec<usize>> = Transform::ALL
///     .iter()
///     .map(|t| t.apply_to_solution(&[1, 3, 0, 2]))
///     .collect();
/// assert!(images.contains(&vec![2, 0, 3, 1]));
/// assert_eq!(Transform::ALL.len(), 8);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Leaves every cell in place.
    Identity,
    /// Quarter turn clockwise: (r, c) -> (c, n-1-r).
    Rot90,
    /// Half turn: (r, c) -> (n-1-r, n-1-c).
    Rot180,
    /// Quarter turn anticlockwise: (r, c) -> (n-1-c, r).
    Rot270,
    /// Mirror left-right: (r, c) -> (r, n-1-c).
    MirrorColumns,
    /// Mirror top-bottom: (r, c) -> (n-1-r, c).
    MirrorRows,
    /// Reflection in the main diagonal: (r, c) -> (c, r).
    Transpose,
    /// Reflection in the anti-diagonal: (r, c) -> (n-1-c, n-1-r).
    AntiTranspose,
}

impl Transform {
    /// All 8 transforms, identity first.
    pub const ALL: [Transform; 8] = [
        Transform::Identity,
        Transform::Rot90,
        Transform::Rot180,
        Transform::Rot270,
        Transform::MirrorColumns,
        Transform::MirrorRows,
        Transform::Transpose,
        Transform::AntiTranspose,
    ];

    /// Maps the cell `(row, col)` of an `n`×`n` board.
    ///
    /// # Examples
    /// ```
    /// use nqueens::Transform;
    /// assert_eq!(Transform::Rot90.apply(8, (0, 0)), (0, 7));
    /// assert_eq!(Transform::Transpose.apply(8, (1, 5)), (5, 1));
    /// ```
    pub fn apply(self, n: usize, (r, c): (usize, usize)) -> (usize, usize) {
        debug_assert!(r < n && c < n);
        let m = n - 1;
        match self {
            Transform::Identity => (r, c),
            Transform::Rot90 => (c, m - r),
            Transform::Rot180 => (m - r, m - c),
            Transform::Rot270 => (m - c, r),
            Transform::MirrorColumns => (r, m - c),
            Transform::MirrorRows => (m - r, c),
            Transform::Transpose => (c, r),
            Transform::AntiTranspose => (m - c, m - r),
        }
    }

    /// Maps a whole solution (`perm[row] = col`, a permutation of `0..n`) to its image.
    ///
    /// # Panics
    /// If a column is `>= perm.len()` (check untrusted input with
    /// [`is_solution`](crate::is_solution) first).
    pub fn apply_to_solution(self, perm: &[usize]) -> Vec<usize> {
        let n = perm.len();
        let mut image = vec![0; n];
        for (r, &c) in perm.iter().enumerate() {
            let (r2, c2) = self.apply(n, (r, c));
            image[r2] = c2;
        }
        image
    }
}

/// The canonical form of a solution: the lexicographically smallest of its 8 images.
///
/// # Examples
/// ```
/// // The two solutions of n = 4 are mirror images; the smaller is canonical.
/// assert_eq!(nqueens::canonical(&[2, 0, 3, 1]), vec![1, 3, 0, 2]);
/// ```
///
/// # Panics
/// If a column is `>= perm.len()`, as [`Transform::apply_to_solution`].
pub fn canonical(perm: &[usize]) -> Vec<usize> {
    Transform::ALL
        .iter()
        .map(|t| t.apply_to_solution(perm))
        .min()
        .expect("the group has 8 elements")
}

/// The size of a solution's orbit under the 8 symmetries: 8, 4 (fixed by the half turn
/// only), 2 (fixed by the quarter turn) or 1 (n = 1).
///
/// ```
/// assert_eq!(nqueens::orbit_size(&[1, 3, 0, 2]), 2); // n = 4: fixed by the quarter turn
/// assert_eq!(nqueens::orbit_size(&[0, 4, 7, 5, 2, 6, 1, 3]), 8); // n = 8: no symmetry
/// ```
///
/// # Panics
/// If a column is `>= perm.len()`, as [`Transform::apply_to_solution`].
pub fn orbit_size(perm: &[usize]) -> usize {
    let stabilizer = Transform::ALL
        .iter()
        .filter(|t| t.apply_to_solution(perm) == perm)
        .count();
    8 / stabilizer
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 5;

    #[test]
    fn each_transform_maps_corner_and_a_generic_cell_as_stated() {
        let cases = [
            (Transform::Identity, (1, 3)),
            (Transform::Rot90, (3, 3)),
            (Transform::Rot180, (3, 1)),
            (Transform::Rot270, (1, 1)),
            (Transform::MirrorColumns, (1, 1)),
            (Transform::MirrorRows, (3, 3)),
            (Transform::Transpose, (3, 1)),
            (Transform::AntiTranspose, (1, 3)),
        ];
        for (t, want) in cases {
            assert_eq!(t.apply(N, (1, 3)), want, "{t:?}");
        }
    }

    #[test]
    fn transforms_form_a_group_of_eight_distinct_permutations() {
        let cells: Vec<(usize, usize)> = (0..N).flat_map(|r| (0..N).map(move |c| (r, c))).collect();
        let images: Vec<Vec<(usize, usize)>> = Transform::ALL
            .iter()
            .map(|t| cells.iter().map(|&x| t.apply(N, x)).collect())
            .collect();
        for (i, a) in images.iter().enumerate() {
            for b in &images[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Closure: every composition is again one of the 8.
        for s in Transform::ALL {
            for t in Transform::ALL {
                let composed: Vec<_> = cells.iter().map(|&x| t.apply(N, s.apply(N, x))).collect();
                assert!(images.contains(&composed), "{s:?} then {t:?}");
            }
        }
    }

    #[test]
    fn rotation_by_90_four_times_is_identity() {
        let mut x = (0, 1);
        for _ in 0..4 {
            x = Transform::Rot90.apply(N, x);
        }
        assert_eq!(x, (0, 1));
    }

    #[test]
    fn canonical_form_is_shared_by_the_whole_orbit() {
        let sol = [0, 4, 7, 5, 2, 6, 1, 3];
        let c = canonical(&sol);
        for t in Transform::ALL {
            assert_eq!(canonical(&t.apply_to_solution(&sol)), c);
        }
        assert!(c <= sol.to_vec());
    }

    #[test]
    #[should_panic]
    fn a_column_off_the_board_panics_as_documented() {
        canonical(&[0, 5]);
    }

    #[test]
    fn orbit_sizes_of_known_symmetric_solutions() {
        assert_eq!(orbit_size(&[1, 3, 0, 2]), 2); // n = 4: fixed by the quarter turn
        assert_eq!(orbit_size(&[1, 3, 5, 0, 2, 4]), 4); // n = 6: half turn only
        assert_eq!(orbit_size(&[0, 4, 7, 5, 2, 6, 1, 3]), 8);
        assert_eq!(orbit_size(&[0]), 1);
    }
}
