#!/usr/bin/env bash
# The portable build's run-time dispatch (src/engine/isa.rs), which the native build of the
# tests never runs: builds for the x86-64 baseline (as `cargo install` does), then checks
# every count up to n = 16 (quadrant from 12, backtracking below) and to n = 14 with
# backtracking alone, twice, once with the x86-64-v3 code chosen at
# run time (where this CPU has it) and once with NQUEENS_KERNEL=baseline, and checks that
# bench names the code that ran. x86-64 only.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(uname -m)" != x86_64 ]; then
    echo "skipped: the run-time dispatch exists on x86-64 only" >&2
    exit 0
fi
RUSTFLAGS="-C target-cpu=x86-64" cargo build --release --target-dir target/portable
bin=target/portable/release/nqueens

v3=no
grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo && grep -qw popcnt /proc/cpuinfo \
    && grep -qw abm /proc/cpuinfo && v3=yes

for kernel in default baseline; do
    if [ $kernel = baseline ]; then export NQUEENS_KERNEL=baseline; else unset NQUEENS_KERNEL; fi
    # verify checks each n against the known table and Burnside's identity; exit 1 on any miss.
    "$bin" verify --max 16 --engine auto -t 2 >/dev/null
    "$bin" verify --max 14 --engine backtrack -t 2 >/dev/null
    code=$("$bin" bench --quick --runs 1 --threads 1 --json 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["instruction_set"])')
    if [ $kernel = baseline ]; then
        want="baseline ("
    elif [ $v3 = yes ]; then
        want="x86-64-v3 (chosen at run time)"
    else
        want="baseline (chosen at run time)"
    fi
    case "$code" in
    "$want"*) echo "ok: NQUEENS_KERNEL=$kernel: counts checked to n = 16; bench says $code" ;;
    *)
        echo "FAILED: NQUEENS_KERNEL=$kernel: bench says '$code', expected '$want...'" >&2
        exit 1
        ;;
    esac
done
