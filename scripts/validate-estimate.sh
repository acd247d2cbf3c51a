#!/usr/bin/env bash
# Checks `nqueens estimate` against whole counts: for each N, the estimate (--threads 1,
# three seeds) and the user CPU time of `count N -t 1` (median of RUNS), and whether the
# 95% interval holds the measured time. Usage: scripts/validate-estimate.sh BIN A B [RUNS]
set -euo pipefail
bin=${1:?binary}; a=${2:?first n}; b=${3:?last n}; runs=${4:-3}
printf '%-3s %-12s %-26s %-10s %s\n' n estimate interval measured held
for n in $(seq "$a" "$b"); do
    for seed in 1 2 3; do
        "$bin" estimate "$n" -t 1 --seed "$seed" --json
    done > /tmp/validate-est.$$
    times=()
    for _ in $(seq "$runs"); do
        t=$( { /usr/bin/time -f '%U' "$bin" count "$n" -t 1 -q >/dev/null; } 2>&1 | tail -1)
        times+=("$t")
    done
    measured=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    python3 - "$n" "$measured" /tmp/validate-est.$$ <<'PY'
import json, sys
n, measured, path = sys.argv[1], float(sys.argv[2]), sys.argv[3]
for line in open(path):
    r = json.loads(line)
    held = r["cpu_seconds_low"] <= measured <= r["cpu_seconds_high"]
    err = (r["cpu_seconds"] - measured) / measured * 100
    print(f'{n:<3} {r["cpu_seconds"]:<12.3f} {r["cpu_seconds_low"]:.3f} .. {r["cpu_seconds_high"]:<14.3f} {measured:<10.3f} {"yes" if held else "NO"} ({err:+.0f}%, seed {r["seed"]})')
PY
    rm -f /tmp/validate-est.$$
done
