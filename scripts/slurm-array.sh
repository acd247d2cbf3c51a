#!/usr/bin/env bash
# Counts N-Queens for N on a Slurm cluster: a job array of M shards plus a merge job that
# runs once every shard has succeeded.
#
#   scripts/slurm-array.sh N M [DIR]          # e.g. scripts/slurm-array.sh 20 64 runs/n20
#   scripts/slurm-array.sh --resubmit N M DIR  # after failures: only the missing shards
#
# Shard K (0-based, K = $SLURM_ARRAY_TASK_ID with --array=0-(M-1)) runs
#   nqueens count N --shard K/M --out DIR/shard-K.json --checkpoint DIR/shard-K.ckpt
# so a preempted or requeued task resumes where it stopped. The merge job writes
# DIR/result.txt and DIR/result.json and fails (exit 2) unless the shards cover the plan
# exactly once.
#
# With --resubmit, `nqueens merge --status DIR/shard-*.json` lists the shards that have no
# valid file (never written, cut short, corrupted, or of another campaign) and only those
# are submitted again, as `--array=K,K,K-K`, with a new merge job after them; a task's
# checkpoint lets it resume what it had done. Watch a campaign with the same command:
#   nqueens merge --status DIR/shard-*.json    # exit 0 complete, 3 shards missing
#
# Environment: NQUEENS (the binary, default: nqueens on PATH), SBATCH_OPTS (extra sbatch
# options for every job, e.g. "--partition=long --time=2-00:00:00"), CPUS (threads per
# shard, default 1), SBATCH (the sbatch command; scripts/test-slurm-array.sh uses a stand-in).
set -euo pipefail

resubmit=0
if [[ ${1:-} == --resubmit ]]; then
    resubmit=1
    shift
fi
if [[ $# -lt 2 || $# -gt 3 || ($resubmit == 1 && $# -ne 3) ]]; then
    echo "usage: $0 N M [DIR]  or  $0 --resubmit N M DIR" >&2
    exit 2
fi
n=$1
m=$2
dir=${3:-nqueens-n$n-m$m}
bin=${NQUEENS:-nqueens}
cpus=${CPUS:-1}
sbatch=${SBATCH:-sbatch}
# shellcheck disable=SC2206
opts=(${SBATCH_OPTS:-})

tasks="0-$((m - 1))"
# The split rule: the count's own choice (auto) for a new campaign, the files' for a
# resubmitted one.
split=""
if [[ $resubmit == 1 ]]; then
    shopt -s nullglob
    files=("$dir"/shard-*.json)
    shopt -u nullglob
    if [[ ${#files[@]} -gt 0 ]]; then
        rc=0
        status=$("$bin" merge --status "${files[@]}") || rc=$?
        if [[ $rc -eq 0 ]]; then
            echo "nothing to resubmit: all $m shards of n = $n in $dir are there"
            exit 0
        fi
        # The files must be this campaign's: n and M as given. A campaign split by
        # bundles says so on that line, and its missing shards are split the same way.
        if [[ $rc -ne 3 ]] || ! grep -Eq "^n = $n: .* in $m shards(, split by bundles)?$" <<<"$status"; then
            echo "$status" >&2
            echo "$0: the shard files in $dir are not those of n = $n in $m shards (merge --status exit $rc)" >&2
            exit 2
        fi
        tasks=$(sed -n 's/^missing //p' <<<"$status")
        if grep -q "^n = $n: .* split by bundles$" <<<"$status"; then
            split="--split bundles"
        else
            split="--split units"
        fi
    fi
    echo "resubmitting shards $tasks of n = $n in $m shards"
else
    mkdir -p "$dir"
    # Fail here, not on the cluster, if the plan or shard spec is wrong.
    "$bin" plan "$n" --stats >"$dir/plan-stats.txt"
fi

array=$("$sbatch" --parsable "${opts[@]}" \
    --job-name="nqueens-$n" --array="$tasks" --cpus-per-task="$cpus" \
    --output="$dir/shard-%a.log" \
    --wrap="'$bin' count $n --shard \$SLURM_ARRAY_TASK_ID/$m $split --threads $cpus --quiet --out '$dir'/shard-\$SLURM_ARRAY_TASK_ID.json --checkpoint '$dir'/shard-\$SLURM_ARRAY_TASK_ID.ckpt")
array=${array%%;*}

merge=$("$sbatch" --parsable "${opts[@]}" \
    --job-name="nqueens-$n-merge" --dependency="afterok:$array" \
    --output="$dir/merge.log" \
    --wrap="'$bin' merge '$dir'/shard-*.json >'$dir'/result.txt && '$bin' merge --json '$dir'/shard-*.json >'$dir'/result.json")
merge=${merge%%;*}

echo "submitted shards as job array $array ($tasks) and the merge as job $merge; results in $dir/result.txt"
