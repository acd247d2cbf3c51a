//! Which instruction set the hot loops run with, chosen once per process at run time.
//!
//! `cargo install` and a plain `RUSTFLAGS= cargo build` target the x86-64 baseline of 2003:
//! no `popcnt`, no BMI (`blsi`, `andn`, the flag-free shifts `shlx`/`shrx`), no AVX2. The
//! join counts 256 pattern pairs with 4 popcounts, which the baseline does with a dozen
//! shifts and masks each; the backtracking step lives on `blsi` and variable shifts.
//! Measured on an AMD EPYC (Zen 3), the quadrant engine took 4-33% longer with baseline
//! code than with these twins (README, "Portable builds").
//!
//! So the three leaf loops — [`Joiner::join`](super::quadrant::join::Joiner::join), the half
//! patterns (`Half::patterns_from_table`) and [`count_tasks`](super::lanes::count_tasks) —
//! are compiled twice, and each call picks one:
//!
//! ```text
//! fn join(..)        { if self.isa.runs_v3_twin() { unsafe { join_v3(..) } } else { join_body(..) } }
//! isa::v3_fn! {     // #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
//!   fn join_v3(..)   { join_body(..) }   // the body, compiled again with those features
//! }
//! #[inline(always)]
//! fn join_body(..)   { .. }              // everything hot below it inlined too
//! ```
//!
//! A function compiled with more features may only run on a CPU that has them, so calling
//! `join_v3` is `unsafe`; `runs_v3_twin()` is true only after `is_x86_feature_detected!` said
//! yes to each feature (std caches the answer: a few atomic loads per call; the leaves are
//! called once per set E or per batch, not per pair). Those calls, and the join's calls of
//! its AVX-512 popcount copy below, are the crate's only `unsafe`.
//!
//! One more copy, not an instruction set of its own: on a CPU with AVX-512F, VL and
//! VPOPCNTDQ (Intel Ice Lake servers and later, AMD Zen 4 and later), the join's west loop
//! counts with `vpopcntq` instead of AVX2's nibble tables ([`Isa::runs_avx512_popcount`]):
//! 11-14% faster from n = 20 (Intel Xeon model 167). It is written with intrinsics: compiling
//! the join for AVX-512 made LLVM turn its table lookups into gathers, 40% slower.
//!
//! Why leaves and not one wrapper around a whole unit: only code *inlined* into a
//! `#[target_feature]` function is compiled with its features; a callee left out of line
//! (the half patterns, called from `count_set`) stays baseline code. A first attempt
//! wrapped the whole unit and was no faster than the baseline, most likely for that reason.
//!
//! A build whose own target already has the features (`RUSTFLAGS="-C target-cpu=native"` on
//! a recent CPU) has nothing to choose: [`BUILT_V3`] is true, the branch is removed at
//! compile time and every function is the build's own code. Other architectures (aarch64)
//! compile only the bodies: neither the twins nor `runs_v3_twin()` exist there.
//!
//! The choice is configuration, not process state: [`Config::isa`](super::Config::isa)
//! (default [`Isa::best`], the best this CPU runs) travels with every run down to the
//! leaves, which keep it in their scratch (the joiner, the half searches' buffers) or take
//! it as an argument (the lanes). The engine reads no environment: the command line turns
//! its environment variable for this (see `cli::kernel`) into `Isa::Baseline`, to measure
//! one against the other in one binary; the counts are the same either way.
//!
//! Not dispatched: the quadrant search without a table (`Half::place`, recursive, so it
//! cannot be inlined into a twin; used from n = 26, where no table is built, and at n = 24
//! and 25 where the 5 GB table does not fit or does not pay, as in small shards), and
//! the per-join set-up (`key_bits`, `bucket_sort`: one pass over the lists per set E).

/// The instruction set of the hot loops.
///
/// ```
/// use nqueens::{Counter, Isa};
/// let c = Counter::new(12)?.instruction_set(Isa::Baseline).threads(2).count()?;
/// assert_eq!(c.total, 14_200); // the same counts with every instruction set
/// # Ok::<(), nqueens::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The build's own target, x86-64 baseline for a portable build (and every non-x86 target).
    Baseline,
    /// x86-64-v3's integer part (AVX2, BMI1/2, LZCNT, POPCNT): Intel Haswell (2013), AMD Zen
    /// (2017) and later.
    X86_64V3,
}

/// Whether the build's own target features include those of [`Isa::X86_64V3`]: then the
/// build is v3 code throughout and there is nothing to dispatch.
pub const BUILT_V3: bool = cfg!(all(
    target_arch = "x86_64",
    target_feature = "avx2",
    target_feature = "bmi1",
    target_feature = "bmi2",
    target_feature = "lzcnt",
    target_feature = "popcnt"
));

impl Isa {
    /// Short name, as in JSON reports: "baseline" or "x86-64-v3".
    pub fn name(self) -> &'static str {
        match self {
            Isa::Baseline => "baseline",
            Isa::X86_64V3 => "x86-64-v3",
        }
    }

    /// Whether this CPU can run code compiled for `self`.
    pub fn supported(self) -> bool {
        match self {
            Isa::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Isa::X86_64V3 => {
                std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
                    && std::is_x86_feature_detected!("lzcnt")
                    && std::is_x86_feature_detected!("popcnt")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Isa::X86_64V3 => false,
        }
    }
}

impl Isa {
    /// The best instruction set this CPU runs with this build: x86-64-v3 where the CPU has
    /// its features (or the build's own target has them), else the baseline. The default of
    /// [`Counter::instruction_set`](crate::Counter::instruction_set).
    pub fn best() -> Isa {
        if BUILT_V3 || Isa::X86_64V3.supported() {
            Isa::X86_64V3
        } else {
            Isa::Baseline
        }
    }

    /// The instruction set the hot loops really run with when `self` is asked for: a build
    /// for x86-64-v3 (`-C target-cpu=x86-64-v3` or newer) has no baseline code (so always v3), and a CPU without the v3
    /// features runs the baseline whatever was asked.
    pub fn effective(self) -> Isa {
        if BUILT_V3 || (self == Isa::X86_64V3 && Isa::X86_64V3.supported()) {
            Isa::X86_64V3
        } else {
            Isa::Baseline
        }
    }

    /// What the hot loops run with when `self` is asked for, and how that came about:
    /// "x86-64-v3 (chosen at run time)" (and ", AVX-512 popcounts in the join" where the
    /// join's west loop counts with them, `Isa::runs_avx512_popcount`), or for a baseline
    /// the caller chose where v3 was possible, "baseline (`how`)" (e.g. the environment
    /// variable the caller read).
    pub fn describe(self, how: &str) -> String {
        let isa = self.effective();
        let how = if BUILT_V3 {
            "the build's target"
        } else if !cfg!(target_arch = "x86_64") {
            "no other on this architecture"
        } else if isa == Isa::Baseline && Isa::X86_64V3.supported() {
            how
        } else {
            "chosen at run time"
        };
        #[cfg(target_arch = "x86_64")]
        if self.runs_avx512_popcount() {
            return format!("{} ({how}), AVX-512 popcounts in the join", isa.name());
        }
        format!("{} ({how})", isa.name())
    }

    /// Whether a leaf run with `self` should call its `_v3` twin: the twin is not the
    /// build's own code already, v3 was asked for, and this CPU has its features. Only true
    /// when [`Isa::supported`] said so, whatever value the caller built, which is what makes
    /// the `unsafe` calls at the leaves sound. (The check is a few cached atomic loads; the
    /// leaves call it once per set E or per batch, not per pair.)
    ///
    /// x86-64 only, like the twins and the leaves' calls of it: elsewhere it would be dead
    /// code (the "function is never used" warning of `cargo check --target aarch64-...`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn runs_v3_twin(self) -> bool {
        !BUILT_V3 && self == Isa::X86_64V3 && Isa::X86_64V3.supported()
    }

    /// Whether the join's west loop may run its AVX-512 copy (`count_west_avx512` in the
    /// join, defined with [`avx512_popcount_fn`]): x86-64-v3 code on a CPU that also has
    /// AVX-512F, AVX-512VL and AVX-512 VPOPCNTDQ (Intel Ice Lake servers and later, AMD Zen
    /// 4 and later). It counts the 256 pairs of a west mask with one `vpopcntq` instead of
    /// the eight-instruction nibble-table popcount of AVX2; the rest of the loop is the same
    /// 256-bit code. Not an [`Isa`] of its own: every count, plan and shard is the same
    /// either way, and only this loop differs.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn runs_avx512_popcount(self) -> bool {
        self.effective() == Isa::X86_64V3
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vpopcntdq")
    }
}

impl Default for Isa {
    /// [`Isa::best`].
    fn default() -> Isa {
        Isa::best()
    }
}

/// Defines a leaf's `_v3` twin: the item given, compiled (on x86-64 only) with the
/// x86-64-v3 features. The one place that feature list is written for code generation; it
/// must stay the list [`Isa::supported`] checks, a few lines above, or the `unsafe` calls of
/// the twins would run instructions nobody checked for.
macro_rules! v3_fn {
    ($($item:tt)*) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
        $($item)*
    };
}
pub(crate) use v3_fn;

/// Defines the join's AVX-512 popcount copy (x86-64 only): the x86-64-v3 features and the
/// three [`Isa::runs_avx512_popcount`] checks, which must stay the same list.
macro_rules! avx512_popcount_fn {
    ($($item:tt)*) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512vpopcntdq")]
        $($item)*
    };
}
pub(crate) use avx512_popcount_fn;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Config;

    #[test]
    fn the_best_isa_is_supported_and_baseline_always_is() {
        assert!(Isa::best().supported());
        assert!(Isa::Baseline.supported());
        assert_eq!(Isa::default(), Isa::best());
        assert_eq!(Config::default().isa, Isa::best());
        if BUILT_V3 {
            assert!(Isa::X86_64V3.supported(), "a v3 build runs on a v3 CPU");
            assert_eq!(
                Isa::Baseline.effective(),
                Isa::X86_64V3,
                "a v3 build has no baseline code"
            );
            #[cfg(target_arch = "x86_64")]
            assert!(
                !Isa::X86_64V3.runs_v3_twin(),
                "nothing to dispatch in a v3 build"
            );
        } else {
            assert_eq!(Isa::Baseline.effective(), Isa::Baseline);
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert!(!Isa::X86_64V3.supported());
        assert!(Isa::best().describe("X").starts_with(Isa::best().name()));
        // Asked for v3 where the CPU cannot: the baseline runs, and the twins are not called.
        if !Isa::X86_64V3.supported() {
            assert_eq!(Isa::X86_64V3.effective(), Isa::Baseline);
        }
    }

    /// The three leaves against their oracles, once per instruction set this CPU runs (in
    /// the default `cargo test`, not only in a portable build's script): the join against
    /// the pair loop, the half patterns from the table against the quadrant search, and the
    /// backtracking lanes against the known totals. Each run gets its instruction set
    /// explicitly, so tests running alongside are not affected.
    #[test]
    fn every_instruction_set_agrees_with_the_oracles() {
        use crate::engine::counts::Tally;
        use crate::engine::plan::{Engine, UnitPlan};
        use crate::engine::quadrant::{self, join, table::QuadrantTable};
        use crate::engine::{exec, NEVER};
        let isas: Vec<Isa> = [Isa::Baseline, Isa::X86_64V3]
            .into_iter()
            .filter(|&i| i.supported() && !(BUILT_V3 && i == Isa::Baseline))
            .collect();
        assert!(isas.contains(&Isa::best()));
        // Sparse pseudo-random masks (xorshift, ANDed to a density of about 1/8).
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut lists = Vec::new();
        for (east, west, bits) in [(40, 30, 20), (700, 300, 30), (5000, 2000, 38)] {
            let mask = u64::MAX >> (64 - bits);
            let mut sparse = || next() & next() & next() & mask;
            let e: Vec<u64> = (0..east).map(|_| sparse()).collect();
            let w: Vec<(u64, u32)> = (0..west).map(|i| (sparse(), 1 + i % 3)).collect();
            lists.push((e, w, bits));
        }
        let tables: Vec<QuadrantTable> = (4..=6).map(QuadrantTable::build).collect();
        for &isa in &isas {
            assert_eq!(isa.effective(), isa);
            // The leaves call their twin exactly when the choice is v3 and the build is not.
            #[cfg(target_arch = "x86_64")]
            assert_eq!(isa.runs_v3_twin(), isa == Isa::X86_64V3 && !BUILT_V3);
            if isa == Isa::Baseline && Isa::X86_64V3.supported() {
                assert_eq!(isa.describe("X"), "baseline (X)");
            }
            for (e, w, bits) in &lists {
                let got = join::Joiner::new(isa).join(e, w, *bits).pairs;
                assert_eq!(got, join::join_naive(e, w), "{}: join", isa.name());
            }
            let config = Config {
                isa,
                ..Config::default()
            };
            for n in 8..=13u32 {
                let t = &tables[(n / 2 - 4) as usize];
                let want = crate::engine::known::lookup(n).unwrap().total;
                assert_eq!(
                    quadrant::count_total(n, Some(t), isa),
                    want,
                    "{}: n = {n}",
                    isa.name()
                );
                let plan = UnitPlan::with_engine(n, Engine::Backtrack);
                let results = exec::run_batch_with(n as usize, plan.units(), &config, &NEVER)
                    .expect("never stopped");
                let mut tally = Tally::default();
                for (u, r) in plan.units().iter().zip(&results) {
                    tally.add(&u.kind, r);
                }
                let lanes = tally.finish(&plan).unwrap().total;
                assert_eq!(lanes, want, "{}: backtracking n = {n}", isa.name());
            }
        }
    }
}
