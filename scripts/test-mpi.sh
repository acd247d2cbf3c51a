#!/usr/bin/env bash
# Checks `count --mpi` under mpirun on this machine (a few seconds):
# - 3 ranks (rank 0 schedules, 2 compute) count n = 13 exactly, also on 2 threads per rank,
#   and resume from a checkpoint cut to half its records;
# - one plan for every rank: MPMD runs whose ranks were given another --engine, --max-memory
#   or N each end exact (exit 0 and the known total) or refused (exit 2, one line from the
#   refusing rank and one from rank 0 naming it), as the rules of `count --help` say; never
#   exit 0 with another count, never a panic, never a hang;
# - the ranks of a node split its free memory: the limit rank 0 names is a third of a
#   local count's;
# - no rank panics or hangs on a message that breaks the protocol: scripts/mpi-rogue.c
#   (built with mpicc, skipped without it) plays a hostile computing rank or rank 0.
# Usage: scripts/test-mpi.sh PATH/TO/nqueens (built with --features mpi)
set -euo pipefail
bin=$(realpath "${1:-target/release/nqueens}")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpi() { timeout 60 mpirun --allow-run-as-root --oversubscribe "$@"; }
run() { mpi -np 3 "$bin" "$@"; }
fail() {
    echo "test-mpi: $*" >&2
    sed 's/^/  stderr: /' "$work/err" >&2
    exit 1
}

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

# job MPIRUN-ARGS...: runs the job (output in $work/out and $work/err, exit code in rc) and
# fails on a panic or a hang.
job() {
    rc=0
    mpi "$@" >"$work/out" 2>"$work/err" || rc=$?
    ! grep -q panicked "$work/err" || fail "a rank panicked: $*"
    test "$rc" -ne 124 || fail "hung: $*"
}
# outcome EXPECT MPIRUN-ARGS...: the job must end exact or refused, never with another
# count; EXPECT is "exact" (n = 14's total) or a text rank 0's one-line refusal must hold.
outcome() {
    local expect=$1
    shift
    job "$@"
    if [ "$rc" -eq 0 ]; then
        grep -q '"total":365596,' "$work/out" || fail "exit 0 without the known total: $*"
        test "$expect" = exact || fail "counted, but should refuse ($expect): $*"
        return
    fi
    ! grep -q '"total"' "$work/out" || fail "exit $rc, yet a count was printed: $*"
    test "$expect" != exact || fail "refused (exit $rc), but should count: $*"
    # Rank 0's line and the refusing rank's: each whole on one line (it ends as it should).
    grep -q "^nqueens: rank [0-9]* refused rank 0's plan (n = 14, .*$expect.*(see 'nqueens count --help')\$" "$work/err" ||
        fail "no one-line refusal from rank 0 holding '$expect': $*"
    grep -q "^nqueens: rank [0-9]* refuses rank 0's plan .*(see 'nqueens count --help')\$" "$work/err" ||
        fail "no one-line refusal from the refusing rank: $*"
}
c14=(count 14 --mpi -q --json)
# A computing rank given another engine than the one rank 0 chose refuses, naming both.
outcome "given --engine backtrack, but rank 0 counts with --engine quadrant" \
    -np 2 "$bin" "${c14[@]}" : -np 1 "$bin" "${c14[@]}" --engine backtrack
# Rank 0 given an engine: the others (auto) take it. (Before: index out of bounds, abort.)
outcome exact -np 1 "$bin" "${c14[@]}" --engine backtrack : -np 2 "$bin" "${c14[@]}"
# --max-memory is the rank's own: 1100K holds n = 14's plan, lists and table; 300K holds
# the plan and lists (the rank says it leaves its table out); 64K not the plan.
outcome exact -np 2 "$bin" "${c14[@]}" : -np 1 "$bin" "${c14[@]}" --max-memory 1100K
outcome exact -np 2 "$bin" "${c14[@]}" : -np 1 "$bin" "${c14[@]}" --max-memory 300K
grep -q "^nqueens: warning: rank 2: the quadrant table of n = 14 .* searches each set's quadrants instead" "$work/err"
outcome "its unit plan passed" -np 2 "$bin" "${c14[@]}" : -np 1 "$bin" "${c14[@]}" --max-memory 64K
# Another N on a computing rank, either side of rank 0's.
outcome "given n = 15, but rank 0 counts n = 14" -np 2 "$bin" "${c14[@]}" : -np 1 "$bin" count 15 --mpi -q
outcome "given n = 13, but rank 0 counts n = 14" -np 1 "$bin" "${c14[@]}" : -np 2 "$bin" count 13 --mpi -q
echo "mpi: ranks given another --engine, --max-memory or N count exactly or refuse in one line: ok"

# The 3 ranks of this node split its free memory: the limit in rank 0's refusal is a third
# of the one a local count names (free memory moves a little between the two reads).
limit() { grep -o 'more than the [0-9.]* GiB' | grep -o '[0-9.]*'; }
alone=$("$bin" count 22 --engine quadrant -t 4096 -q 2>&1 | limit || true)
run count 22 --mpi --engine quadrant -t 4096 -q 2>"$work/err" >/dev/null && fail "n = 22 on 4096 threads a rank was not refused"
grep -q "split between the 3 MPI ranks of this node" "$work/err" || fail "no node share named"
shared=$(limit <"$work/err")
awk -v a="$alone" -v s="$shared" 'BEGIN { r = 3 * s / a; exit !(r > 0.8 && r < 1.2) }' ||
    fail "a third of the node's memory: $shared GiB against $alone GiB alone"
echo "mpi: 3 ranks on this node each take a third of its memory ($shared of $alone GiB): ok"

if ! command -v mpicc >/dev/null; then
    echo "mpi: no mpicc, the hostile-rank checks are skipped"
    exit 0
fi
mpicc -O1 -o "$work/rogue" "$here/mpi-rogue.c"
# hostile EXPECT MPIRUN-ARGS...: the job must end non-zero, without a panic or a hang, with
# a one-line message from an nqueens rank holding EXPECT.
hostile() {
    local expect=$1
    shift
    job "$@"
    test "$rc" -ne 0 || fail "exit 0 facing a hostile rank: $*"
    ! grep -q '"total"' "$work/out" || fail "a count was printed: $*"
    grep -q "^nqueens: .*$expect" "$work/err" || fail "no message holding '$expect': $*"
}
c12=(count 12 --mpi -q --json)
for mode in "old:not an nqueens MPI message.*ending the MPI job\$" \
    "empty:a message of 0 bytes.*ending the MPI job\$" \
    "huge:a message of 4096 bytes.*ending the MPI job\$" \
    "protocol:speaks MPI protocol 99, rank 0 speaks 2.*ending the MPI job\$" \
    "threads0:accepted with 0 threads.*ending the MPI job\$" \
    "stray:returned unit 492, which rank 0 had not handed to it.*ending the MPI job\$" \
    "twice:which rank 0 had not handed to it or already had back.*ending the MPI job\$" \
    "refuse:refused rank 0's plan (n = 12, .*): evil\\\\n\\\\u{1b}\\[2Jreason (see 'nqueens count --help')\$"; do
    hostile "${mode#*:}" -np 2 "$bin" "${c12[@]}" : -np 1 "$work/rogue" "${mode%%:*}"
done
# The rogue as rank 0, with the real plan of n = 12 where it needs one.
set -- $("$bin" plan 12 | head -1 | sed -E 's/.*plan ([0-9a-f]+) \(version ([0-9]+).*, ([0-9,]+) units.*/\1 \2 \3/')
plan=("$1" "$2" "${3//,/}")
program=$("$bin" --version | awk '{print $2}')
for mode in "r0-short:rank [12]: rank 0 sent a message of kind 2 with 16 bytes" \
    "r0-unit:rank [12]: rank 0 sent unit $((plan[2] + 5)), outside the plan's ${plan[2]} units" \
    "r0-nogo:rank [12]: rank 0 answered this rank's accept with a unit message"; do
    hostile "${mode#*:}.*ending the MPI job\$" -np 1 "$work/rogue" "${mode%%:*}" 12 "${plan[1]}" "${plan[0]}" "${plan[2]}" "$program" \
        : -np 2 "$bin" "${c12[@]}"
done
echo "mpi: a hostile rank (10 ways, either side) ends the job with one line, no panic, no hang: ok"
