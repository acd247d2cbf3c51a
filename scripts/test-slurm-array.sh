#!/usr/bin/env bash
# Runs scripts/slurm-array.sh against a stand-in for sbatch that executes each job on this
# machine (array tasks one after the other, then the dependent merge), and checks the merged
# count against the known value. Usage: scripts/test-slurm-array.sh PATH/TO/nqueens
set -euo pipefail
bin=$(realpath "${1:-target/release/nqueens}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/sbatch" <<'FAKE'
#!/usr/bin/env bash
# Stand-in for sbatch: understands --array=A-B and --wrap=CMD, runs the job now.
array="" wrap=""
for a in "$@"; do
    case $a in
        --array=*) array=${a#--array=} ;;
        --wrap=*) wrap=${a#--wrap=} ;;
    esac
done
if [[ -n $array ]]; then
    for ((k = ${array%-*}; k <= ${array#*-}; k++)); do
        SLURM_ARRAY_TASK_ID=$k bash -c "$wrap" >&2
    done
else
    bash -c "$wrap" >&2
fi
echo "$RANDOM"
FAKE
chmod +x "$work/sbatch"

SBATCH="$work/sbatch" NQUEENS="$bin" "$here/slurm-array.sh" 12 5 "$work/run"
grep -q "^total    14,200$" "$work/run/result.txt"
grep -q '"unique":1787' "$work/run/result.json"
test "$(ls "$work"/run/shard-*.json | wc -l)" -eq 5
echo "slurm-array: 5 shards of n = 12 merged to 14,200: ok"
