#!/usr/bin/env bash
# The portable build's run-time dispatch (src/engine/isa.rs), which the native build of the
# other tests never runs. Builds for the x86-64 baseline (as `cargo install` does) and runs
# the library's unit tests there (their suites per implementation, from
# `isa::suite_per_implementation!`, run the join, the half patterns and the lanes against
# naive oracles with the baseline code, the x86-64-v3 twins and the join's AVX-512 loop,
# where this CPU has them); then, once with the twins chosen at run time and once with
# NQUEENS_KERNEL=baseline (which the program, not the library, reads):
# every count up to n = 16 (quadrant from 12, backtracking below) and to n = 14 by
# backtracking alone, and that bench names the code that ran. Also checks that `unsafe` is
# still allowed in the one audited place.
# x86-64 only.
set -euo pipefail
cd "$(dirname "$0")/.."

# `unsafe` is allowed (or expected) in exactly one place, and there is exactly one unsafe
# block, both in src/engine/isa.rs: the `dispatch!` macro, through which every call of
# code for more than the build's target goes (the v3 twins, the join's AVX2 and AVX-512
# popcount loops and its pext sort; src/engine/isa.rs explains them).
code_lines() { # matching lines of Rust code, comments left out (grep's "none" is not an error)
    { grep -rnE "$1" src tests benches || true; } | { grep -v '^[^:]*:[0-9]*: *//' || true; }
}
allowed=$(code_lines '(allow|expect)\([^)]*unsafe_code' | wc -l)
blocks=$(code_lines '\bunsafe *\{' | wc -l)
where=$(code_lines '(allow|expect)\([^)]*unsafe_code|\bunsafe *\{' | cut -d: -f1 | sort -u)
if [ "$allowed" -ne 1 ] || [ "$blocks" -ne 1 ] || [ "$where" != src/engine/isa.rs ]; then
    echo "FAILED: expected 1 allow(unsafe_code) and 1 unsafe block, in isa::dispatch!, found:" >&2
    grep -rnE '(allow|expect)\([^)]*unsafe_code|\bunsafe *\{' src tests benches >&2 || true
    exit 1
fi

if [ "$(uname -m)" != x86_64 ]; then
    echo "skipped: the run-time dispatch exists on x86-64 only" >&2
    exit 0
fi
export RUSTFLAGS="-C target-cpu=x86-64"
cargo build --release --target-dir target/portable
bin=target/portable/release/nqueens

v3=yes
for flag in avx2 bmi1 bmi2 abm popcnt; do # abm: how Linux names LZCNT, on Intel and AMD
    grep -qw "$flag" /proc/cpuinfo || v3=no
done
# The join's AVX-512 popcount loop (Isa::avx512_popcount), as Linux names its features.
avx512=yes
for flag in avx512f avx512vl avx512_vpopcntdq; do
    grep -qw "$flag" /proc/cpuinfo || avx512=no
done

# The join's sort by pext (Isa::fast_pext): BMI2, and not AMD's or Hygon's before family
# 25 (0x19, Zen 3), whose pext is microcode. /proc/cpuinfo's "cpu family" is the whole
# family (base + extended), in decimal.
pext=$v3
vendor=$(awk -F': ' '/^vendor_id/ { print $2; exit }' /proc/cpuinfo)
family=$(awk -F': ' '/^cpu family/ { print $2; exit }' /proc/cpuinfo)
if [ "$vendor" = AuthenticAMD ] || [ "$vendor" = HygonGenuine ]; then
    if [ "${family:-0}" -lt 25 ]; then pext=no; fi
fi

# Runs a command quietly, showing its output only if it fails.
quiet() {
    local log
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
        echo "FAILED: $*" >&2
        cat "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

quiet cargo test --release --lib --target-dir target/portable
echo "ok: the library's unit tests in the baseline build (every instruction set this CPU runs)"
for kernel in auto baseline; do
    export NQUEENS_KERNEL=$kernel
    # verify checks each n against the known table and Burnside's identity; exit 1 on any miss.
    quiet "$bin" verify --max 16 --engine auto -t 2
    quiet "$bin" verify --max 14 --engine backtrack -t 2
    report=$("$bin" bench --quick --runs 1 --threads 1 2>&1) || {
        echo "FAILED: bench with NQUEENS_KERNEL=$kernel" >&2
        echo "$report" >&2
        exit 1
    }
    line=$(echo "$report" | grep '^code ' || true)
    if [ $kernel = baseline ]; then
        want="baseline (NQUEENS_KERNEL=baseline)"
    elif [ $v3 = yes ]; then
        want="x86-64-v3 (chosen at run time)"
        if [ $avx512 = yes ]; then want="$want, AVX-512 popcounts in the join"; fi
        if [ $pext = yes ]; then want="$want, pext in the sort"; fi
    else
        want="baseline (chosen at run time)"
    fi
    if [ "$(echo "$line" | sed 's/^code *//')" != "$want" ]; then
        echo "FAILED: NQUEENS_KERNEL=$kernel: bench says '$line', expected 'code      $want'" >&2
        exit 1
    fi
    echo "ok: NQUEENS_KERNEL=$kernel: counts to n = 16 checked; bench: $want"
done
