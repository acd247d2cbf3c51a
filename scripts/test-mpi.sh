#!/usr/bin/env bash
# Checks `count --mpi` under mpirun on this machine: 3 ranks (rank 0 schedules, 2 compute),
# the known count of n = 13, the same on 2 threads per rank, and a resume from a checkpoint cut
# to half its records.
# Usage: scripts/test-mpi.sh PATH/TO/nqueens (built with --features mpi)
set -euo pipefail
bin=$(realpath "${1:-target/release/nqueens}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() { mpirun --allow-run-as-root --oversubscribe -np 3 "$bin" "$@"; }

out=$(run count 13 --mpi --json)
echo "$out"
grep -q '"total":73712,' <<<"$out"
grep -q '"unique":9233,' <<<"$out"
grep -q '"known":"match"' <<<"$out"
# The quadrant engine's table of n = 13 (h = 6), as a local count reports it.
local_table=$("$bin" count 13 --json | grep -o '"table_bytes":[0-9]*')
test "$local_table" != '"table_bytes":0'
grep -q "$local_table," <<<"$out"

# --threads 2: each of the 2 computing ranks runs 2 units at once.
out=$(run count 13 --mpi --threads 2 --json)
grep -q '"total":73712,' <<<"$out"
grep -q '"threads":4,' <<<"$out"

run count 13 --mpi --checkpoint "$work/ck" >/dev/null
lines=$(wc -l <"$work/ck")
head -n $((lines / 2)) "$work/ck" >"$work/half"
mv "$work/half" "$work/ck"
out=$(run count 13 --mpi --json --checkpoint "$work/ck")
grep -q '"total":73712,' <<<"$out"
test "$(wc -l <"$work/ck")" -eq "$lines"
echo "mpi: 3 ranks count n = 13 = 73,712 (also on 2 threads per rank), resumed from half a checkpoint: ok"
