#!/usr/bin/env bash
# Runs scripts/slurm-array.sh against a stand-in for sbatch that executes each job on this
# machine (array tasks one after the other, then the dependent merge), and checks the merged
# count against the known value; then a campaign whose tasks 1 and 3 fail: `merge --status`
# names them missing (exit 3), `slurm-array.sh --resubmit` submits exactly those, and the
# merge that follows gives the known value. Usage: scripts/test-slurm-array.sh PATH/TO/nqueens
set -euo pipefail
bin=$(realpath "${1:-target/release/nqueens}")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/sbatch" <<'FAKE'
#!/usr/bin/env bash
# Stand-in for sbatch: understands --array=LIST (A-B ranges and single indices, comma
# separated), --dependency and --wrap=CMD, and runs the job now. Tasks named in
# $FAIL_TASKS fail without running (as a lost node would); a job with a dependency then
# does not run (afterok). Every --array is logged to $SBATCH_LOG.
array="" wrap="" dependency=""
for a in "$@"; do
    case $a in
        --array=*) array=${a#--array=} ;;
        --wrap=*) wrap=${a#--wrap=} ;;
        --dependency=*) dependency=${a#--dependency=} ;;
    esac
done
failed="$SBATCH_LOG.failed"
if [[ -n $array ]]; then
    echo "--array=$array" >>"$SBATCH_LOG"
    IFS=, read -ra parts <<<"$array"
    for part in "${parts[@]}"; do
        for ((k = ${part%-*}; k <= ${part#*-}; k++)); do
            if [[ " ${FAIL_TASKS:-} " == *" $k "* ]]; then
                echo "$k" >>"$failed"
                continue
            fi
            SLURM_ARRAY_TASK_ID=$k bash -c "$wrap" >&2
        done
    done
elif [[ -n $dependency && -s $failed ]]; then
    : # afterok: a task failed, the merge does not run
else
    bash -c "$wrap" >&2
fi
echo "$RANDOM"
FAKE
chmod +x "$work/sbatch"
export SBATCH="$work/sbatch" NQUEENS="$bin" SBATCH_LOG="$work/sbatch.log"

"$here/slurm-array.sh" 12 5 "$work/run"
grep -q "^total    14,200$" "$work/run/result.txt"
grep -q '"unique":1787' "$work/run/result.json"
test "$(ls "$work"/run/shard-*.json | wc -l)" -eq 5
echo "slurm-array: 5 shards of n = 12 merged to 14,200: ok"

# Tasks 1 and 3 fail: no merge, and the status names them.
FAIL_TASKS="1 3" "$here/slurm-array.sh" 12 5 "$work/lost"
test ! -e "$work/lost/result.txt"
rc=0
"$bin" merge --status "$work"/lost/shard-*.json >"$work/status.txt" || rc=$?
test "$rc" -eq 3
grep -qx "missing 1,3" "$work/status.txt"
# Exactly the missing ones are submitted again, and the campaign completes.
rm -f "$SBATCH_LOG" "$SBATCH_LOG.failed"
"$here/slurm-array.sh" --resubmit 12 5 "$work/lost"
grep -qx -- "--array=1,3" "$SBATCH_LOG"
grep -q "^total    14,200$" "$work/lost/result.txt"
"$bin" merge --status "$work"/lost/shard-*.json >/dev/null
"$here/slurm-array.sh" --resubmit 12 5 "$work/lost" | grep -q "nothing to resubmit"
echo "slurm-array: tasks 1 and 3 lost, resubmitted as --array=1,3, merged to 14,200: ok"
