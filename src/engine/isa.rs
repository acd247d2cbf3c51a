//! Which instruction set the hot loops run with, chosen once per process at run time.
//!
//! `cargo install` and a plain `RUSTFLAGS= cargo build` target the x86-64 baseline of 2003:
//! no `popcnt`, no BMI (`blsi`, `andn`, the flag-free shifts `shlx`/`shrx`), no AVX2. The
//! join counts 256 pattern pairs with 4 popcounts, which the baseline does with a dozen
//! shifts and masks each; the backtracking step lives on `blsi` and variable shifts.
//! Measured on an AMD EPYC (Zen 3), the quadrant engine took 4-33% longer with baseline
//! code than with these twins (README, "Portable builds").
//!
//! So the three leaf loops — the join (`Joiner::dispatch` in the join), the half
//! patterns (`Half::patterns_from_table`) and [`count_tasks`](super::backtrack::lanes::count_tasks) —
//! are compiled twice, and each call picks one:
//!
//! ```text
//! fn join(..)        {
//!     isa::dispatch!(self.isa.v3_twin() => self.join_v3(..); else self.join_body(..))
//! }
//! isa::v3_fn! {     // #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
//!   fn join_v3(..)   { join_body(..) }   // the body, compiled again with those features
//! }
//! #[inline(always)]
//! fn join_body(..)   { .. }              // everything hot below it inlined too
//! ```
//!
//! A function compiled with more features may only run on a CPU that has them, so calling
//! `join_v3` from code without them is `unsafe`. [`Isa::v3_twin`] returns a proof
//! ([`V3Twin`]) only after `is_x86_feature_detected!` said yes to each feature (std caches
//! the answer: a few atomic loads per call; the leaves are called once per set E or per
//! batch, not per pair), and [`dispatch!`] calls the twin only with that proof in hand. Its
//! one `unsafe` block, with its SAFETY argument, is the crate's only `unsafe`; every
//! call of code for more than the build's target (the `_v3` twins, the join's
//! AVX2 and AVX-512 popcount copies and its `pext` sort, all below) goes through it, and so does
//! the SSE prefetch hint of the join ([`prefetch`], whose proof [`Isa::sse`] makes on every
//! x86-64 CPU).
//!
//! Two more copies of the join's west loop, not instruction sets of their own. Wherever
//! x86-64-v3 code runs, the loop is written with AVX2 intrinsics ([`Isa::avx2`]): each
//! piece's free bits counted by nibble lookups, the pieces' byte counts summed before one
//! `vpsadbw`. LLVM had compiled the portable loop inside `join_v3` well in some copies and
//! not in others (vectorized across west masks, each table entry loaded as four words);
//! on an AMD EPYC Zen 3 (2026-12-06, paired) the written loop took `count 22 --shard
//! 77/200 -t 1` to 0.62 of the CPU, n = 24 and 26 shards to 0.85, n = 23 to 0.96. And on a
//! CPU with AVX-512F, VL and
//! VPOPCNTDQ (Intel Ice Lake servers and later, AMD Zen 4 and later), the join's west loop
//! counts with `vpopcntq` instead of AVX2's nibble tables ([`Isa::avx512_popcount`]):
//! 11-14% faster from n = 20 (Intel Xeon model 167). It is written with intrinsics: compiling
//! the join for AVX-512 made LLVM turn its table lookups into gathers, 40% slower.
//!
//! And one more, for the join's sort (`sort_pext` in the join's layout): where x86-64-v3
//! runs and the CPU's BMI2 `pext` and `pdep` are fast (every such Intel CPU, AMD's from
//! Zen 3: [`Isa::fast_pext`]), a mask's key, its key bits' move and its spread are a few
//! `pext`/`pdep` each instead of a byte-table lookup per byte; the sorted lists are the
//! same bits. Its test compares it with the shuffles written bit by bit, and the join
//! suites of x86-64-v3 run it wherever the CPU has it.
//!
//! Each implementation (baseline, x86-64-v3, and the AVX-512 loop as one of its own) has
//! the same test suites, run against naive oracles in the default `cargo test` wherever the
//! CPU runs it (`suite_per_implementation!`, used by the join, the half patterns, the
//! lanes and this module's whole counts).
//!
//! Why leaves and not one wrapper around a whole unit: only code *inlined* into a
//! `#[target_feature]` function is compiled with its features; a callee left out of line
//! (the half patterns, called from `count_set`) stays baseline code. A first attempt
//! wrapped the whole unit and was no faster than the baseline, most likely for that reason.
//! The same holds for closures: a closure is a function of its own, and one LLVM does not
//! inline stays baseline code even when it is written inside the twin's body. The join's
//! bucket count was such a closure until 2026-12-03, so without AVX-512 its west loop ran
//! as SSE2 with popcounts by shifts (`Shape` in the join replaced it: with AVX2's popcounts,
//! Zen 4, paired, `count 24 --shard 4114/20000 -t 1` 50.1 -> 23.9 s, `count 18 -t 1` -27% and
//! -29%). Hot code under a twin is therefore written as `#[inline(always)]` functions and
//! methods, and `objdump -d` of the binary shows whether a loop has its ymm registers.
//!
//! A build whose own target already has the features (`RUSTFLAGS="-C target-cpu=native"` on
//! a recent CPU) has nothing to choose: [`BUILT_V3`] is true, the branch is removed at
//! compile time and every function is the build's own code, but for the join's west loop,
//! which runs its AVX2 (or AVX-512) copy there too ([`Isa::avx2`]). (The halves' AVX2 pair
//! and fill loops are reached through their twin, so such a build runs their scalar loops
//! compiled for v3.) Other architectures (aarch64)
//! compile only the bodies: the twins do not exist there, and the proofs are never made.
//!
//! The choice is configuration, not process state: [`Config::isa`](super::Config::isa)
//! (default [`Isa::best`], the best this CPU runs) travels with every run down to the
//! leaves, which keep it in their scratch (the joiner, the half searches' buffers) or take
//! it as an argument (the lanes). The engine reads no environment: the command line turns
//! its environment variable for this (see `cli::kernel`) into `Isa::Baseline`, to measure
//! one against the other in one binary; the counts are the same either way.
//!
//! Not dispatched: the quadrant search without a table (`Half::place`, recursive, so it
//! cannot be inlined into a twin; used from n = 26, where no table is built, at n = 24, which
//! counts faster without its 5 GB table, and at n = 25 where that table does not fit or
//! does not pay, as in small shards), and
//! the per-join choice of the key (`key_bits`, on a sample). The sort is inlined into
//! the join's twins, and has its `pext` copy where that is fast (above).

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
    /// join's west loop counts with them, `Isa::avx512_popcount`, and ", pext in the
    /// sort" where the join's sort runs its `pext` copy, `Isa::fast_pext`), or for a
    /// baseline the caller chose where v3 was possible, "baseline (`how`)" (e.g. the
    /// environment variable the caller read).
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
        let mut described = format!("{} ({how})", isa.name());
        if self.avx512_popcount().is_some() {
            described.push_str(", AVX-512 popcounts in the join");
        }
        if self.fast_pext().is_some() {
            described.push_str(", pext in the sort");
        }
        described
    }

    /// The proof [`prefetch`] needs: Some on every x86-64 CPU (SSE is in its baseline),
    /// None elsewhere.
    #[inline(always)]
    pub(crate) fn sse() -> Option<Sse> {
        #[cfg(target_arch = "x86_64")]
        return Some(Sse(()));
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// Whether a leaf run with `self` should call its `_v3` twin: the twin is not the
    /// build's own code already, v3 was asked for, and this CPU has its features. Only Some
    /// when [`Isa::supported`] said so, whatever value the caller built, which is what makes
    /// the [`dispatch!`] of the twins sound. (The check is a few cached atomic loads; the
    /// leaves call it once per set E or per batch, not per pair.) Always None off x86-64,
    /// where there are no twins.
    #[inline(always)]
    pub(crate) fn v3_twin(self) -> Option<V3Twin> {
        #[cfg(target_arch = "x86_64")]
        if !BUILT_V3 && self == Isa::X86_64V3 && Isa::X86_64V3.supported() {
            return Some(V3Twin(()));
        }
        None
    }

    /// Whether the join's sort may run its `pext`/`pdep` copy ([`FastPext`]): x86-64-v3
    /// code runs with `self` ([`Isa::effective`]) and the CPU's `pext` is fast
    /// ([`pext_is_fast`]). Always None off x86-64.
    #[inline(always)]
    pub(crate) fn fast_pext(self) -> Option<FastPext> {
        #[cfg(target_arch = "x86_64")]
        if self.effective() == Isa::X86_64V3 && pext_is_fast() {
            return Some(FastPext(()));
        }
        None
    }

    /// Whether the join's west loop may run its AVX2 copy (`count_west_avx2` in the join,
    /// a [`v3_fn`]): x86-64-v3 code runs with `self` ([`Isa::effective`]), whether the
    /// build's own target has v3's features or `is_x86_feature_detected!` said yes to each.
    /// Unlike [`Isa::v3_twin`] it is Some in a build for x86-64-v3 too: the copy is not a
    /// twin of the build's code but a loop written with AVX2 intrinsics (see that loop for
    /// why). Always None off x86-64.
    #[inline(always)]
    pub(crate) fn avx2(self) -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if self.effective() == Isa::X86_64V3 {
            return Some(Avx2(()));
        }
        None
    }

    /// Whether the join's west loop may run its AVX-512 copy (`count_west_avx512` in the
    /// join, defined with [`avx512_popcount_fn`]): x86-64-v3 code on a CPU that also has
    /// AVX-512F, AVX-512VL and AVX-512 VPOPCNTDQ (Intel Ice Lake servers and later, AMD Zen
    /// 4 and later). It counts the 256 pairs of a west mask with one `vpopcntq` instead of
    /// the eight-instruction nibble-table popcount of AVX2; the rest of the loop is the same
    /// 256-bit code. Not an [`Isa`] of its own: every count, plan and shard is the same
    /// either way, and only this loop differs. Always None off x86-64.
    #[inline(always)]
    pub(crate) fn avx512_popcount(self) -> Option<Avx512Popcount> {
        #[cfg(target_arch = "x86_64")]
        if self.effective() == Isa::X86_64V3
            && std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512vpopcntdq")
        {
            return Some(Avx512Popcount(()));
        }
        None
    }
}

/// Proof that the join's sort may gather and scatter bits with BMI2's `pext` and `pdep`
/// (`sort_pext` in the join's layout, a [`v3_fn`]): x86-64-v3 code runs (BMI2 is one of
/// its features) and the CPU does them in a few cycles, which AMD's before Zen 3 (family
/// 0x17, and Hygon's Dhyana, 0x18) do not: they run them as microcode, about 18 cycles a
/// set bit of the mask, slower than the byte tables they replace. Not an [`Isa`] of its
/// own: the sorted lists are the same bits either way.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // never made there
pub(crate) struct FastPext(());

/// Proof that this CPU runs the x86-64-v3 twins ([`v3_fn`]) and that the build's own code is
/// not v3 code already: only [`Isa::v3_twin`] makes one (the field is private to this
/// module), after checking every feature of the twins. [`dispatch!`] calls a twin only with
/// one in hand.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // never made there
pub(crate) struct V3Twin(());

/// Proof that x86-64-v3 code may run here, made by [`Isa::avx2`] only: for the join's
/// AVX2 west loop (a [`v3_fn`]), which runs in a build for x86-64-v3 as in a portable one.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // never made there
pub(crate) struct Avx2(());

/// Proof that the CPU runs SSE code, made by [`Isa::sse`] on every x86-64 CPU (SSE and
/// SSE2 are part of the x86-64 baseline): what [`prefetch`] needs.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // never made there
pub(crate) struct Sse(());

/// Proof that this CPU runs the join's AVX-512 popcount copy ([`avx512_popcount_fn`]): only
/// [`Isa::avx512_popcount`] makes one, after checking every feature of that copy.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))] // never made there
pub(crate) struct Avx512Popcount(());

/// Whether this CPU runs `pext` and `pdep` in hardware at a few cycles' latency: every
/// x86-64 CPU with BMI2 but AMD's (and Hygon's) before family 0x19 (Zen 3), read from
/// `cpuid` once per process. Worked values: an AMD EPYC 7B13 (Zen 3) is family 0x0F + 0x0A
/// = 0x19, fast; a Ryzen 3700X (Zen 2) 0x0F + 0x08 = 0x17, slow; every Intel CPU with BMI2
/// (Haswell, 2013, and later), fast.
#[cfg(target_arch = "x86_64")]
fn pext_is_fast() -> bool {
    use std::arch::x86_64::__cpuid;
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        let vendor = __cpuid(0);
        // The vendor string is in EBX, EDX, ECX, four bytes each, little-endian.
        let name = [vendor.ebx, vendor.edx, vendor.ecx]
            .map(u32::to_le_bytes)
            .concat();
        let amd = name == *b"AuthenticAMD" || name == *b"HygonGenuine";
        // Family: bits 8..12 of EAX, plus the extended family (bits 20..28) where those
        // read 0xF, as they do on every AMD CPU since the Athlon 64.
        let eax = __cpuid(1).eax;
        let base = eax >> 8 & 0xF;
        let family = if base == 0xF {
            base + (eax >> 20 & 0xFF)
        } else {
            base
        };
        !amd || family >= 0x19
    })
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

v3_fn! {
    /// Four words as one AVX2 register, word i in lane i (the compiler makes it one load).
    /// For the hand-written AVX2 loops, called from functions compiled with at least v3's
    /// features (where it is inlined and needs no `unsafe`).
    #[inline]
    pub(crate) fn ymm(words: &[u64; 4]) -> std::arch::x86_64::__m256i {
        let [a, b, c, d] = words.map(|w| w as i64);
        std::arch::x86_64::_mm256_set_epi64x(d, c, b, a)
    }
}

v3_fn! {
    /// The four words of an AVX2 register, lane i as word i ([`ymm`]'s inverse: one store
    /// where the words are kept).
    #[inline]
    pub(crate) fn words(x: std::arch::x86_64::__m256i) -> [u64; 4] {
        use std::arch::x86_64::_mm256_extract_epi64;
        [
            _mm256_extract_epi64::<0>(x),
            _mm256_extract_epi64::<1>(x),
            _mm256_extract_epi64::<2>(x),
            _mm256_extract_epi64::<3>(x),
        ]
        .map(|w| w as u64)
    }
}

/// Defines the join's AVX-512 popcount copy (x86-64 only): the x86-64-v3 features and the
/// three [`Isa::avx512_popcount`] checks, which must stay the same list.
macro_rules! avx512_popcount_fn {
    ($($item:tt)*) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl,avx512vpopcntdq")]
        $($item)*
    };
}
pub(crate) use avx512_popcount_fn;

/// Calls a leaf's copy compiled for more than the build's target where the CPU check
/// allows it, else the build's own code: the crate's one `unsafe` block.
///
/// ```text
/// isa::dispatch!(
///     self.isa.v3_twin() => self.join_v3(work, sample, stop);
///     else self.join_body(work, sample, stop)
/// )
/// isa::dispatch!(
///     popcounts.avx2 => count_west_avx2_any(chunks, spread, tables, valid, buckets, classes);
///     else pick_west_loop!(count_west_plain, chunks, spread, (tables, valid, buckets, classes))
/// )
/// ```
///
/// The proof is an `Option` of [`V3Twin`], [`Avx2`], [`FastPext`], [`Avx512Popcount`] or
/// [`Sse`]; the copy is one call of a function (or method) defined by [`v3_fn`] for the
/// first three, by [`avx512_popcount_fn`] for an `Avx512Popcount` (`v3_twin()` pairs with
/// a `_v3` twin, `avx2()` with an `avx2` copy, `fast_pext()` with `sort_pext`,
/// `avx512_popcount()` with an `avx512` copy, by name at each use). Off x86-64 the copy is not even compiled (nor are
/// the functions it names): the build's own code runs.
macro_rules! dispatch {
    ($proof:expr => $recv:ident.$twin:ident($($arg:expr),* $(,)?); else $own:expr) => {
        $crate::engine::isa::dispatch!(@ $proof, $recv.$twin($($arg),*), $own)
    };
    ($proof:expr => $twin:ident($($arg:expr),* $(,)?); else $own:expr) => {
        $crate::engine::isa::dispatch!(@ $proof, $twin($($arg),*), $own)
    };
    (@ $proof:expr, $call:expr, $own:expr) => {
        match $proof {
            // SAFETY: a target-feature function may only run on a CPU with its features.
            // This arm runs only with a proof in hand, a V3Twin or an Avx512Popcount, which
            // only Isa::v3_twin and Isa::avx512_popcount make (their field is private to
            // this module), each after is_x86_feature_detected! said yes to every feature
            // that v3_fn! or avx512_popcount_fn! (next to them, above) compiles its
            // functions with; or a FastPext or an Avx2, which only Isa::fast_pext and
            // Isa::avx2 make, after Isa::effective said x86-64-v3 (the build's own target
            // has v3's features, or is_x86_feature_detected! said yes to each), for the
            // join's `sort_pext` and the `avx2` copies (v3_fn!: the join's
            // `count_west_avx2_any`, and in a test the halves' `fill_avx2`); or an Sse, which
            // only Isa::sse makes, for `prefetch_sse` (below), compiled with SSE alone,
            // which every x86-64 CPU has. The block holds only the call of such a function,
            // made by the two rules above from a name and its arguments (plain values at
            // every use; the `@` rule is this macro's own), and each use pairs a V3Twin
            // with a `_v3` twin (v3_fn!), a FastPext with `sort_pext` (v3_fn!), an Avx2
            // with an `avx2` copy (v3_fn!) and an Avx512Popcount with the join's
            // `avx512` copy (avx512_popcount_fn!, whose features include v3's). std caches
            // the detection, so the answer cannot change between the check and the call.
            #[cfg(target_arch = "x86_64")]
            #[allow(unsafe_code)]
            Some(_) => unsafe { $call },
            _ => $own,
        }
    };
}
pub(crate) use dispatch;

/// Asks the CPU to start loading the cache line that holds `x` (`prefetcht0`; nothing off
/// x86-64). A hint: it reads no memory the program can see and changes no result.
///
/// The join calls it for the first west mask of the next bucket a piece visits while the
/// current one is counted (`Joiner::run`): buckets are visited in the order of the submasks
/// of the piece's free key bits, scattered over a west list of up to 2.8 GB at n = 28, and
/// the hardware prefetcher, which follows streams, cannot guess where the next one starts.
/// Measured (AMD EPYC Zen 4, one thread, 2026-12-03): the same sets' sampled joins,
/// alternating with and without in one process, -19% join time at n = 26, -17% at n = 24,
/// -8% to -13% at n = 28, -2% at n = 22 (few long sets); `count 24 --shard 7411/20000
/// -t 1` run at the same time as the build without it, on the other core, -9% CPU (4
/// rounds, cores swapped each round).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
    dispatch!(Isa::sse() => prefetch_sse(x); else ())
}

/// [`prefetch`] on x86-64.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse")]
#[inline]
fn prefetch_sse<T>(x: &T) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
}

/// An implementation of the hot loops, for the tests that run each one against the naive
/// oracles ([`suite_per_implementation!`]): the two instruction sets, and the join's
/// AVX-512 popcount loop as one of its own (the half patterns and the lanes have no AVX-512
/// copy, so their suites run the first two).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Implementation {
    /// [`Isa::Baseline`]: the build's own code (x86-64 of 2003 in a default build).
    Baseline,
    /// [`Isa::X86_64V3`]: the `_v3` twins, the join's west loop with AVX2's popcounts (also
    /// on a CPU with AVX-512: the joiner is told so).
    X86_64V3,
    /// [`Isa::X86_64V3`] with the join's AVX-512 popcount loop.
    Avx512Popcount,
}

#[cfg(test)]
impl Implementation {
    /// The instruction set it runs with.
    pub(crate) fn isa(self) -> Isa {
        match self {
            Implementation::Baseline => Isa::Baseline,
            Implementation::X86_64V3 | Implementation::Avx512Popcount => Isa::X86_64V3,
        }
    }

    /// Whether the join's west loop runs its AVX-512 copy.
    pub(crate) fn avx512_popcount(self) -> bool {
        self == Implementation::Avx512Popcount
    }

    /// None where this build runs it on this CPU, else why not (the suite then skips it).
    /// Where it runs, the choice really reaches the code it names (asserted here, so that a
    /// suite cannot pass by testing another implementation).
    pub(crate) fn missing(self) -> Option<&'static str> {
        let missing = match self {
            Implementation::Baseline if BUILT_V3 => {
                Some("this build targets x86-64-v3, so it has no baseline code")
            }
            Implementation::Baseline => None,
            Implementation::X86_64V3 => (!Isa::X86_64V3.supported())
                .then_some("this CPU lacks x86-64-v3 (AVX2, BMI1, BMI2, LZCNT, POPCNT)"),
            Implementation::Avx512Popcount => Isa::X86_64V3
                .avx512_popcount()
                .is_none()
                .then_some("this CPU lacks AVX-512F, AVX-512VL or AVX-512 VPOPCNTDQ"),
        };
        if missing.is_none() {
            assert_eq!(self.isa().effective(), self.isa(), "{self:?}");
            // The leaves call their twin exactly when the choice is v3 and the build is not.
            let twin = self.isa() == Isa::X86_64V3 && !BUILT_V3;
            assert_eq!(self.isa().v3_twin().is_some(), twin, "{self:?}");
        }
        missing
    }
}

/// Defines, for each implementation named ([`Implementation`]'s variants), a module of the
/// same tests, as memchr's `tests/memchr/prop.rs` does for its implementations: each test
/// takes the implementation as its argument and checks it against naive oracles (never
/// only against another implementation). Where this build or CPU lacks the implementation,
/// its tests pass after printing why they were skipped. The modules are `baseline`,
/// `x86_64_v3` and `avx512_popcount`, so `cargo test avx512_popcount::` runs every suite of
/// one implementation.
///
/// ```text
/// isa::suite_per_implementation! {
///     [Baseline, X86_64V3, Avx512Popcount]
///     /// The join agrees with the pair loop.
///     fn join_agrees_with_the_pair_loop(imp: Implementation) { .. }
/// }
/// ```
#[cfg(test)]
macro_rules! suite_per_implementation {
    ([] $($tests:tt)*) => {};
    ([$imp:ident $(, $rest:ident)* $(,)?] $($tests:tt)*) => {
        $crate::engine::isa::suite_per_implementation!(@imp $imp { $($tests)* });
        $crate::engine::isa::suite_per_implementation!([$($rest),*] $($tests)*);
    };
    (@imp Baseline $tests:tt) => {
        $crate::engine::isa::suite_per_implementation!(@mod baseline Baseline $tests);
    };
    (@imp X86_64V3 $tests:tt) => {
        $crate::engine::isa::suite_per_implementation!(@mod x86_64_v3 X86_64V3 $tests);
    };
    (@imp Avx512Popcount $tests:tt) => {
        $crate::engine::isa::suite_per_implementation!(@mod avx512_popcount Avx512Popcount $tests);
    };
    (@mod $module:ident $variant:ident {
        $($(#[$attr:meta])* fn $name:ident($arg:ident: Implementation) $body:block)*
    }) => {
        mod $module {
            #[allow(unused_imports)]
            use super::*;
            $(
                $(#[$attr])*
                #[test]
                fn $name() {
                    let $arg = $crate::engine::isa::Implementation::$variant;
                    if let Some(why) = $arg.missing() {
                        eprintln!("skipped: {} with {:?}: {why}", stringify!($name), $arg);
                        return;
                    }
                    $body
                }
            )*
        }
    };
}
#[cfg(test)]
pub(crate) use suite_per_implementation;

/// Runs a property test of `imp` (in a [`suite_per_implementation!`]): `cases` random
/// values of `strategy`, shrunk to a minimal failing one, which the panic shows. Failures
/// are kept, and tried first on later runs, in `proptest-regressions/` beside `file` (the
/// caller's `file!()`), as the `proptest!` macro keeps them.
#[cfg(test)]
pub(crate) fn check_property<S: proptest::strategy::Strategy>(
    imp: Implementation,
    file: &'static str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> proptest::test_runner::TestCaseResult,
) {
    let config = proptest::test_runner::Config {
        source_file: Some(file),
        ..proptest::test_runner::Config::with_cases(cases)
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{imp:?}: {e}");
    }
}

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
            assert!(
                Isa::X86_64V3.v3_twin().is_none(),
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
            assert!(Isa::X86_64V3.v3_twin().is_none());
        }
        // The baseline never runs a twin nor the AVX-512 loop.
        assert!(Isa::Baseline.v3_twin().is_none() || BUILT_V3);
        assert!(Isa::Baseline.avx512_popcount().is_none() || BUILT_V3);
        assert!(Isa::Baseline.avx2().is_none() || BUILT_V3);
        // The AVX2 west loop runs wherever v3 code does, in a v3 build too.
        assert_eq!(
            Isa::X86_64V3.avx2().is_some(),
            Isa::X86_64V3.effective() == Isa::X86_64V3
        );
        if Isa::X86_64V3.supported() && !BUILT_V3 {
            assert_eq!(Isa::Baseline.describe("X"), "baseline (X)");
        }
    }

    #[test]
    fn the_best_implementation_runs_here() {
        // Whatever the CPU, the suites test the code a default count runs: the best
        // instruction set, and the AVX-512 loop where the CPU has it.
        let best = if Isa::X86_64V3.avx512_popcount().is_some() {
            Implementation::Avx512Popcount
        } else if Isa::best() == Isa::X86_64V3 {
            Implementation::X86_64V3
        } else {
            Implementation::Baseline
        };
        assert_eq!(best.missing(), None, "{best:?}");
        assert_eq!(best.isa(), Isa::best());
    }

    // Whole counts with each instruction set, side by side in one process: the quadrant
    // engine (half patterns from the table, then the join) and the backtracking lanes
    // against the known totals. Each run gets its instruction set explicitly, so tests
    // running alongside are not affected. (The quadrant count's join takes the AVX-512 loop
    // wherever the CPU has it, so there is no AVX-512 implementation of these.)
    suite_per_implementation! {
        [Baseline, X86_64V3]
        /// The quadrant engine and the backtracking lanes count n = 8..=13 as the table of
        /// known totals says.
        fn counts_the_known_totals(imp: Implementation) {
            use crate::engine::counts::Tally;
            use crate::engine::plan::{Engine, UnitPlan};
            use crate::engine::quadrant::{self, table::QuadrantTable};
            use crate::engine::{exec, NEVER};
            let isa = imp.isa();
            let config = Config {
                isa,
                ..Config::default()
            };
            let tables: Vec<QuadrantTable> = (4..=6).map(QuadrantTable::build).collect();
            for n in 8..=13u32 {
                let t = &tables[(n / 2 - 4) as usize];
                let want = crate::engine::known::lookup(n).unwrap().total;
                assert_eq!(quadrant::count_total(n, Some(t), isa), want, "n = {n}");
                let plan = UnitPlan::with_engine(n, Engine::Backtrack);
                let results = exec::run_batch_with(n as usize, plan.units(), &config, &NEVER)
                    .expect("never stopped");
                let mut tally = Tally::default();
                for (u, r) in plan.units().iter().zip(&results) {
                    tally.add(&u.kind, r);
                }
                let lanes = tally.finish(&plan).unwrap().total;
                assert_eq!(lanes, want, "backtracking n = {n}");
            }
        }
    }
}
