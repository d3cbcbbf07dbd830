#!/bin/sh
# make demo: a two-node cluster with 4 GPUs per node on this machine, a GPU
# workload that must queue, its results, and the cluster stopped again.
set -eu
cd "$(dirname "$0")/.."
bin=$PWD/build/bin
d=$(mktemp -d /tmp/herd-demo.XXXXXX)

cleanup() {
    printf '\n== herd down -D %s\n' "$d"
    "$bin/herd" down -D "$d" || true
    rm -rf "$d"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '\n== %s\n' "$*"; }

say "herd up -D $d --nodes 2 --gpus-per-node 4"
env_line=$("$bin/herd" up -D "$d" --nodes 2 --gpus-per-node 4)
echo "$env_line"
eval "$env_line"
export PATH="$bin:$PATH"

mkdir "$d/work"
cd "$d/work"
cat >train.sh <<'EOF'
#!/bin/sh
#SBATCH -t 5
echo "job $SLURM_JOB_ID ($SLURM_JOB_NAME) on ${SLURMD_NODENAME:-?}: CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-none}"
sleep 3
EOF

# 2 jobs of 4 GPUs and 4 of 2 GPUs: 16 GPUs asked of 8, so half must wait.
say "sbatch: 2 jobs with --gres=gpu:4, 4 jobs with --gres=gpu:2"
for i in 1 2; do sbatch --gres=gpu:4 -J big$i train.sh; done
for i in 1 2 3 4; do sbatch --gres=gpu:2 -J small$i train.sh; done

sleep 1
say squeue
squeue
say sinfo
sinfo

say "waiting for the queue to empty (at most 120 s)"
waited=0
while [ -n "$(squeue | sed 1d)" ]; do
    if [ "$waited" -ge 120 ]; then
        echo "demo: the queue did not empty in 120 s" >&2
        squeue >&2
        exit 1
    fi
    sleep 1
    waited=$((waited + 1))
done
echo "done after about ${waited} s"

say "squeue -t all"
squeue -t all
say "sacct -X -o JobID,JobName,State,ExitCode,Elapsed,NodeList,AllocTRES%45"
sacct -X -o JobID,JobName,State,ExitCode,Elapsed,NodeList,AllocTRES%45
say "the jobs' output (slurm-%j.out)"
for f in slurm-*.out; do
    [ -e "$f" ] || { echo "demo: no job output file in $PWD" >&2; exit 1; }
    echo "--- $f"
    cat "$f"
done
cd /
