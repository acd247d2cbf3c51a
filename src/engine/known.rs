//! The known values of the N-Queens sequences for n = 1..27 (OEIS A000170, A002562 and the
//! orbit breakdown), the single source of truth for `verify`, the tests and the benches.
//!
//! Source: OEIS A000170 (total), A002562 (unique), A032522 (90° symmetric, as orbits of 2),
//! A032521/A071607 for the 180° classes; table transcribed from the team's design notes
//! (kept outside this repository); the tests count the smaller sizes with both engines
//! against it.
//! Q(27) is the Preußer–Engelhardt FPGA result (2016). Q(28) is unknown.

/// One row of the known table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
///
/// ```
/// let k = nqueens::known::lookup(10).unwrap();
/// assert_eq!((k.total, k.unique), (724, 92));
/// // Burnside: total = 8·orbits8 + 4·orbits4 + 2·orbits2
/// assert_eq!(k.total, 8 * k.orbits8 + 4 * k.orbits4 + 2 * k.orbits2);
/// ```
pub struct Known {
    /// Board size.
    pub n: u32,
    /// All solutions (A000170).
    pub total: u128,
    /// Solutions up to the 8 symmetries of the square (A002562).
    pub unique: u128,
    /// Orbits of size 8 (no symmetry).
    pub orbits8: u128,
    /// Orbits of size 4 (invariant under 180° rotation only).
    pub orbits4: u128,
    /// Orbits of size 2 (invariant under 90° rotation).
    pub orbits2: u128,
}

const fn row(n: u32, total: u128, unique: u128, o8: u128, o4: u128, o2: u128) -> Known {
    Known {
        n,
        total,
        unique,
        orbits8: o8,
        orbits4: o4,
        orbits2: o2,
    }
}

/// The table, indexed by `n - 1`. n = 1 has one solution that every symmetry fixes (an orbit
/// of size 1), so its orbit columns are all zero.
///
/// ```
/// use nqueens::known::TABLE;
/// assert_eq!(TABLE.len(), 27); // n = 1..=27, the values known today
/// assert_eq!(TABLE[7].total, 92);
/// assert_eq!(TABLE[26].total, 234_907_967_154_122_528);
/// ```
pub const TABLE: [Known; 27] = [
    row(1, 1, 1, 0, 0, 0),
    row(2, 0, 0, 0, 0, 0),
    row(3, 0, 0, 0, 0, 0),
    row(4, 2, 1, 0, 0, 1),
    row(5, 10, 2, 1, 0, 1),
    row(6, 4, 1, 0, 1, 0),
    row(7, 40, 6, 4, 2, 0),
    row(8, 92, 12, 11, 1, 0),
    row(9, 352, 46, 42, 4, 0),
    row(10, 724, 92, 89, 3, 0),
    row(11, 2680, 341, 329, 12, 0),
    row(12, 14200, 1787, 1765, 18, 4),
    row(13, 73712, 9233, 9197, 32, 4),
    row(14, 365596, 45752, 45647, 105, 0),
    row(15, 2279184, 285053, 284743, 310, 0),
    row(16, 14772512, 1846955, 1846189, 734, 32),
    row(17, 95815104, 11977939, 11975869, 2006, 64),
    row(18, 666090624, 83263591, 83259065, 4526, 0),
    row(19, 4968057848, 621012754, 621001708, 11046, 0),
    row(20, 39029188884, 4878666808, 4878630533, 36035, 240),
    row(21, 314666222712, 39333324973, 39333230881, 93740, 352),
    row(22, 2691008701644, 336376244042, 336375931369, 312673, 0),
    row(23, 24233937684440, 3029242658210, 3029241762900, 895310, 0),
    row(
        24,
        227514171973736,
        28439272956934,
        28439270037332,
        2917938,
        1664,
    ),
    row(
        25,
        2207893435808352,
        275986683743434,
        275986675209470,
        8532332,
        1632,
    ),
    row(
        26,
        22317699616364044,
        2789712466510289,
        2789712437580722,
        28929567,
        0,
    ),
    row(
        27,
        234907967154122528,
        29363495934315694,
        29363495854214938,
        80100756,
        0,
    ),
];

/// The known row for `n`, if the table has it (1 <= n <= 27).
///
/// # Examples
/// ```
/// assert_eq!(nqueens::known::lookup(8).unwrap().total, 92);
/// assert!(nqueens::known::lookup(28).is_none());
/// ```
pub fn lookup(n: u32) -> Option<&'static Known> {
    TABLE.get((n as usize).checked_sub(1)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_consistent_with_orbit_sizes() {
        for k in &TABLE[1..] {
            assert_eq!(
                k.total,
                8 * k.orbits8 + 4 * k.orbits4 + 2 * k.orbits2,
                "n = {}",
                k.n
            );
            assert_eq!(k.unique, k.orbits8 + k.orbits4 + k.orbits2, "n = {}", k.n);
        }
    }

    #[test]
    fn table_is_indexed_by_n() {
        for (i, k) in TABLE.iter().enumerate() {
            assert_eq!(k.n as usize, i + 1);
        }
    }
}
