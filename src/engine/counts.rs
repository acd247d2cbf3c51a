//! Combining unit results into the counts of a board size, with Burnside's lemma and its
//! consistency checks.

use super::plan::{Sum, UnitKind, UnitPlan, UnitResult};
use super::Error;

/// The exact counts for one board size (serialized with these field names, numbers as
/// numbers).
///
/// ```
/// let c = nqueens::count(12)?;
/// assert_eq!((c.total, c.unique), (14_200, 1_787));
/// assert_eq!((c.orbits8, c.orbits4, c.orbits2), (1_765, 18, 4));
/// assert_eq!(c.total, 8 * c.orbits8 + 4 * c.orbits4 + 2 * c.orbits2);
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Board size.
    pub n: u32,
    /// All solutions (OEIS A000170).
    pub total: u128,
    /// Solutions up to rotation and reflection (OEIS A002562).
    pub unique: u128,
    /// Orbits of size 8: solutions with no symmetry, up to symmetry.
    pub orbits8: u128,
    /// Orbits of size 4: solutions fixed by the half turn but not the quarter turn.
    pub orbits4: u128,
    /// Orbits of size 2: solutions fixed by the quarter turn.
    pub orbits2: u128,
    /// Solutions fixed by the half turn (F180 = 4·orbits4 + 2·orbits2).
    pub fixed180: u128,
    /// Solutions fixed by the quarter turn (F90 = 2·orbits2).
    pub fixed90: u128,
    /// Backtracking search nodes (queens placed), all units together: the whole count with
    /// the backtracking engine, only the F180 and F90 searches with the quadrant engine.
    pub nodes: u128,
    /// (east, west) half-board pattern pairs tested by the quadrant engine's join (0 with
    /// the backtracking engine).
    pub pairs_tested: u128,
}

/// Running sums over unit results; feed it every unit of a plan exactly once.
///
/// ```
/// use nqueens::{Tally, UnitPlan};
/// let plan = UnitPlan::new(10);
/// let mut tally = Tally::default();
/// for u in plan.units() {
///     tally.add(&u.kind, &u.run(10)); // anywhere: another thread, another machine
/// }
/// let c = tally.finish(&plan)?; // checks Burnside's identities
/// assert_eq!((c.total, c.unique), (724, 92));
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Weighted sum of the border units' completions.
    pub total: u128,
    /// Sum of the F180 units.
    pub fixed180: u128,
    /// Sum of the F90 unit.
    pub fixed90: u128,
    /// Sum of the backtracking units' nodes.
    pub nodes: u128,
    /// Sum of the quadrant units' pairs tested.
    pub pairs: u128,
    /// How many unit results were added: [`Tally::finish`] wants one per unit of the plan.
    pub units: u64,
}

impl Tally {
    /// Adds one unit's result (sums in u128: Q(29) will not fit in u64).
    pub fn add(&mut self, kind: &UnitKind, r: &UnitResult) {
        let s = u128::from(r.solutions);
        let weighted = u128::from(kind.weight()) * s;
        match kind.feeds() {
            Sum::Total => self.total += weighted,
            Sum::Fixed180 => self.fixed180 += weighted,
            Sum::Fixed90 => self.fixed90 += weighted,
        }
        match kind {
            UnitKind::Quadrant { .. } => self.pairs += u128::from(r.nodes),
            _ => self.nodes += u128::from(r.nodes),
        }
        self.units += 1;
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &Tally) {
        self.total += other.total;
        self.fixed180 += other.fixed180;
        self.fixed90 += other.fixed90;
        self.nodes += other.nodes;
        self.pairs += other.pairs;
        self.units += other.units;
    }

    /// Derives unique and the orbit breakdown, checking Burnside's identities.
    ///
    /// With orbits of size 8 (`a`), 4 (`p`) and 2 (`r`): `F90 = 2r`, `F180 = 4p + 2r`,
    /// `total = 8a + 4p + 2r`, so F90 must be even, `F180 - F90` divisible by 4 and
    /// `total - F180` by 8; then `unique = a + p + r = (total + 2·F90 + F180) / 8`.
    ///
    /// # Errors
    /// [`Error::IncompleteTally`] unless exactly one result per unit of `plan` was added
    /// (a tally with units missing is no count, even when its sums pass the identities:
    /// an empty one gives total 0); [`Error::Inconsistent`] if an identity fails (a bug or
    /// corrupted unit results).
    ///
    /// ```
    /// use nqueens::{Error, Tally, UnitPlan};
    /// let plan = UnitPlan::new(8);
    /// assert_eq!(
    ///     Tally::default().finish(&plan),
    ///     Err(Error::IncompleteTally { n: 8, added: 0, units: plan.len() as u64 })
    /// );
    /// ```
    pub fn finish(&self, plan: &UnitPlan) -> Result<Counts, Error> {
        let n = plan.n();
        if self.units != plan.len() as u64 {
            return Err(Error::IncompleteTally {
                n,
                added: self.units,
                units: plan.len() as u64,
            });
        }
        let (total, f180, f90) = (self.total, self.fixed180, self.fixed90);
        if n == 1 {
            // The lone queen is fixed by all 8 symmetries, reflections included: one orbit
            // of size 1, outside the (n > 1) identities below.
            if (total, f180, f90) != (1, 1, 1) {
                return Err(Error::Inconsistent {
                    n,
                    detail: format!("n = 1 gave total {total}, F180 {f180}, F90 {f90}"),
                });
            }
            return Ok(Counts {
                n,
                total,
                unique: 1,
                orbits8: 0,
                orbits4: 0,
                orbits2: 0,
                fixed180: 1,
                fixed90: 1,
                nodes: self.nodes,
                pairs_tested: self.pairs,
            });
        }
        let bad = |what: String| Err(Error::Inconsistent { n, detail: what });
        if f90 % 2 != 0 {
            return bad(format!("F90 = {f90} is odd"));
        }
        if f180 < f90 || (f180 - f90) % 4 != 0 {
            return bad(format!(
                "F180 - F90 = {f180} - {f90} is not a non-negative multiple of 4"
            ));
        }
        if total < f180 || (total - f180) % 8 != 0 {
            return bad(format!(
                "total - F180 = {total} - {f180} is not a non-negative multiple of 8"
            ));
        }
        let (orbits8, orbits4, orbits2) = ((total - f180) / 8, (f180 - f90) / 4, f90 / 2);
        let unique = orbits8 + orbits4 + orbits2;
        debug_assert_eq!(8 * unique, total + 2 * f90 + f180);
        Ok(Counts {
            n,
            total,
            unique,
            orbits8,
            orbits4,
            orbits2,
            fixed180: f180,
            fixed90: f90,
            nodes: self.nodes,
            pairs_tested: self.pairs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_identity_is_reported() {
        let plan = UnitPlan::new(8);
        let t = Tally {
            total: 93,
            fixed180: 4,
            fixed90: 0,
            nodes: 0,
            pairs: 0,
            units: plan.len() as u64,
        };
        assert!(matches!(
            t.finish(&plan),
            Err(Error::Inconsistent { n: 8, .. })
        ));
        let good = Tally {
            total: 92,
            fixed180: 4,
            fixed90: 0,
            nodes: 0,
            pairs: 0,
            units: plan.len() as u64,
        }
        .finish(&plan)
        .unwrap();
        assert_eq!((good.unique, good.orbits8, good.orbits4), (12, 11, 1));
    }

    #[test]
    fn a_tally_missing_units_or_holding_extra_ones_is_no_count() {
        let plan = UnitPlan::new(8);
        // Empty: before, Ok with total 0.
        assert_eq!(
            Tally::default().finish(&plan),
            Err(Error::IncompleteTally {
                n: 8,
                added: 0,
                units: plan.len() as u64
            })
        );
        let mut t = Tally::default();
        for u in plan.units() {
            t.add(&u.kind, &u.run(8));
        }
        assert_eq!(t.finish(&plan).unwrap().total, 92);
        let u = &plan.units()[0];
        t.add(&u.kind, &u.run(8));
        assert!(matches!(
            t.finish(&plan),
            Err(Error::IncompleteTally { added, .. }) if added == plan.len() as u64 + 1
        ));
    }
}
