#!/usr/bin/env bash
# Counts N-Queens for N on a Slurm cluster: a job array of M shards plus a merge job that
# runs once every shard has succeeded.
#
#   scripts/slurm-array.sh N M [DIR]          # e.g. scripts/slurm-array.sh 20 64 runs/n20
#
# Shard K (0-based, K = $SLURM_ARRAY_TASK_ID with --array=0-(M-1)) runs
#   nqueens count N --shard K/M --out DIR/shard-K.json --checkpoint DIR/shard-K.ckpt
# so a preempted or requeued task resumes where it stopped. The merge job writes
# DIR/result.txt and DIR/result.json and fails (exit 2) unless the shards cover the plan
# exactly once.
#
# Environment: NQUEENS (the binary, default: nqueens on PATH), SBATCH_OPTS (extra sbatch
# options for every job, e.g. "--partition=long --time=2-00:00:00"), CPUS (threads per
# shard, default 1), SBATCH (the sbatch command; scripts/test-slurm-array.sh uses a stand-in).
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 N M [DIR]" >&2
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

mkdir -p "$dir"
# Fail here, not on the cluster, if the plan or shard spec is wrong.
"$bin" plan "$n" --stats >"$dir/plan-stats.txt"

array=$("$sbatch" --parsable "${opts[@]}" \
    --job-name="nqueens-$n" --array="0-$((m - 1))" --cpus-per-task="$cpus" \
    --output="$dir/shard-%a.log" \
    --wrap="'$bin' count $n --shard \$SLURM_ARRAY_TASK_ID/$m --threads $cpus --quiet --out '$dir'/shard-\$SLURM_ARRAY_TASK_ID.json --checkpoint '$dir'/shard-\$SLURM_ARRAY_TASK_ID.ckpt")
array=${array%%;*}

merge=$("$sbatch" --parsable "${opts[@]}" \
    --job-name="nqueens-$n-merge" --dependency="afterok:$array" \
    --output="$dir/merge.log" \
    --wrap="'$bin' merge '$dir'/shard-*.json >'$dir'/result.txt && '$bin' merge --json '$dir'/shard-*.json >'$dir'/result.json")
merge=${merge%%;*}

echo "submitted shards as job array $array (0..$((m - 1))) and the merge as job $merge; results in $dir/result.txt"
