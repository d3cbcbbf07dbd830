"""GPUs asked per task (--gpus-per-task, --cpus-per-gpu, --mem-per-gpu,
--gpu-bind), as the most common multi-GPU training script asks them: the
job holds gpus-per-task x tasks on each node, srun's tasks each see their
own GPU, the variables Slurm 22.05 sets, scontrol's keys, and --gpu-bind
refused in Slurm's words. The session cluster: 2 nodes of 4 GPUs."""

import re

import pytest

from helpers import cluster_fixture, read, typed_gpus

TYPED_UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4",
            "--mem-per-node", "2000", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def typed(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "gputyped", TYPED_UP, prepare=typed_gpus)


def run_job(c, workdir, args, body, timeout=40):
    out = f"{workdir}/out.txt"
    job = c.sbatch(list(args) + ["-o", out], cwd=workdir, script="#!/bin/sh\n" + body)
    c.wait_state(job, ("COMPLETED", "FAILED"), timeout=timeout)
    return job, read(out)


def rows_of(out):
    return [dict(kv.split("=", 1) for kv in line.split(": ", 1)[1].split())
            for line in out.splitlines() if re.match(r"\d+: rank=", line)]


def test_each_task_of_two_nodes_sees_its_own_gpu(cluster, workdir):
    body = ("env | grep -E '^(SLURM_(GPUS_PER_TASK|CPUS_PER_GPU|MEM_PER_GPU|GPUS_ON_NODE|"
            "JOB_GPUS)|CUDA_VISIBLE_DEVICES)=' | sort\n"
            "srun -l sh -c 'echo rank=$SLURM_PROCID node=$SLURMD_NODENAME "
            "cvd=$CUDA_VISIBLE_DEVICES step=$SLURM_STEP_GPUS gpt=$SLURM_GPUS_PER_TASK "
            "job=$SLURM_JOB_GPUS on=$SLURM_GPUS_ON_NODE'\n"
            "echo rc=$?\n"
            "scontrol show job $SLURM_JOB_ID\n")
    job, out = run_job(cluster, workdir, ["-N2", "--ntasks-per-node=2", "--gpus-per-task=1",
                                          "--cpus-per-gpu=2", "--mem-per-gpu=100"], body)
    assert "rc=0" in out, out
    env = dict(l.split("=", 1) for l in out.splitlines()
               if re.match(r"^(SLURM_[A-Z_]+|CUDA_VISIBLE_DEVICES)=", l))
    assert env["SLURM_GPUS_PER_TASK"] == "1"
    assert env["SLURM_CPUS_PER_GPU"] == "2"
    assert env["SLURM_MEM_PER_GPU"] == "100"
    assert env["SLURM_GPUS_ON_NODE"] == "2", "2 tasks x 1 GPU on the batch node: " + out
    assert re.fullmatch(r"\d,\d", env["SLURM_JOB_GPUS"]), out
    assert env["CUDA_VISIBLE_DEVICES"] == env["SLURM_JOB_GPUS"]
    rows = rows_of(out)
    assert sorted(r["rank"] for r in rows) == ["0", "1", "2", "3"], out
    by_node = {}
    for r in rows:
        assert re.fullmatch(r"\d", r["cvd"]) and r["cvd"] == r["step"], out
        assert r["gpt"] == "1"
        by_node.setdefault(r["node"], set()).add(r["cvd"])
    assert len(by_node) == 2 and all(len(g) == 2 for g in by_node.values()), out
    # as slurmstepd: SLURM_GPUS_ON_NODE counts the step's GPUs on the task's
    # node; SLURM_JOB_GPUS is the batch script's, passed on by srun
    for r in rows:
        assert r["on"] == "2" and r["job"] == env["SLURM_JOB_GPUS"], out
    # the job holds 2 GPUs on each node, and 2 CPUs for each
    assert "TRES=cpu=8,mem=400M,node=2,billing=8,gres/gpu=4" in out, out
    assert re.search(r"NumNodes=2 NumCPUs=8 NumTasks=4 CPUs/Task=2 ", out), out
    # the step's tasks take --cpus-per-gpu x --gpus-per-task CPUs each, as Slurm's srun
    acct = cluster.run(["sacct", "-j", str(job), "-n", "-P", "-o", "JobID,AllocCPUS"]).stdout
    assert f"{job}.0|8" in acct.split(), acct
    assert re.search(r"Power=\n\s+CpusPerTres=gres:gpu:2\n\s+MemPerTres=gres:gpu:100\n"
                     r"\s+TresPerTask=gres:gpu:1\n", out), out


def test_salloc_steps_take_the_jobs_gpus_per_task(cluster, workdir):
    cp = cluster.run(["salloc", "-N1", "-n2", "--gpus-per-task=1", "sh", "-c",
                      "echo gpt=$SLURM_GPUS_PER_TASK; "
                      "srun -l sh -c 'echo rank=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES'; "
                      "srun -l --gpu-bind=none sh -c 'echo rank=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES'"],
                     cwd=workdir, check=False, extra_env={"SLURM_JOB_ID": ""})
    assert cp.returncode == 0, cp.stderr
    assert "gpt=1" in cp.stdout
    rows = rows_of(cp.stdout)
    assert len(rows) == 4, cp.stdout
    own, shared = rows[:2], rows[2:]
    assert all(re.fullmatch(r"\d", r["cvd"]) for r in own), cp.stdout
    assert len({r["cvd"] for r in own}) == 2, cp.stdout
    # --gpu-bind=none: every task sees both of the job's GPUs
    assert all(re.fullmatch(r"\d,\d", r["cvd"]) for r in shared), cp.stdout


def test_typed_form(typed, workdir):
    c = typed
    body = ("echo gpt=$SLURM_GPUS_PER_TASK\n"
            "srun -l sh -c 'echo rank=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES'\n"
            "scontrol show job $SLURM_JOB_ID\n")
    job, out = run_job(c, workdir, ["-n2", "--gpus-per-task=a100:1", "--gpu-bind=closest"],
                       body)
    assert "gpt=a100:1" in out, out
    rows = rows_of(out)
    assert sorted(r["cvd"] for r in rows) == ["0", "1"], out
    assert re.search(r"Power=\n\s+TresBind=gpu:closest\n\s+TresPerTask=gres:gpu:a100:1\n",
                     out), out
    assert "gres/gpu=2" in out, out
    held = c.sbatch(["-H", "-n2", "--gpus-per-task=a100:1", "--cpus-per-gpu=2",
                     "--mem-per-gpu=10", "--gpu-bind=none", "--wrap", "true"], cwd=workdir)
    try:
        cols = c.run(["squeue", "-j", str(held), "-h", "-O",
                      "tres-per-task,tres-per-job,tres-per-node,tres-bind,cpus-per-tres,"
                      "mem-per-tres"]).stdout.split()
        assert cols == ["gres:gpu:a100:1", "N/A", "N/A", "gpu:none", "gres:gpu:2",
                        "gres:gpu:10"], cols
        # pending, Slurm counts the tasks' CPUs as asked, not --cpus-per-gpu's yet
        show = c.run(["scontrol", "show", "job", str(held)]).stdout
        assert "NumCPUs=2 NumTasks=2 CPUs/Task=1 " in show, show
    finally:
        c.run(["scancel", str(held)])
    cp = c.run(["sbatch", "-n1", "--gpus-per-task=h100:1", "--wrap", "true"], check=False,
               cwd=workdir)
    assert cp.returncode == 1 and cp.stderr.strip() == (
        "sbatch: error: Batch job submission failed: Requested node configuration is not "
        "available")


def test_bad_gpu_bind_and_exclusive_options(cluster, workdir):
    c = cluster
    alone = {"SLURM_JOB_ID": ""}
    for prog in ("sbatch", "srun", "salloc"):
        args = [prog, "-n1", "--gpus-per-task=1", "--gpu-bind=bogus"]
        args += ["--wrap", "true"] if prog == "sbatch" else ["true"]
        cp = c.run(args, check=False, cwd=workdir, extra_env=alone)
        assert cp.returncode == 255, (prog, cp.returncode)   # Slurm's exit(-1)
        assert cp.stderr.strip() == f"{prog}: error: Invalid --gpu-bind argument: gpu:bogus"
    cp = c.run(["sbatch", "--gpu-bind=map_gpu:zz", "--wrap", "true"], check=False, cwd=workdir)
    assert cp.stderr.splitlines() == [
        "sbatch: error: Failed to validate zz, offending character is z",
        "sbatch: error: Invalid --gpu-bind argument: gpu:map_gpu:zz"]
    cp = c.run(["sbatch", "--gpus-per-task=1", "--ntasks-per-gpu=2", "--wrap", "true"],
               check=False, cwd=workdir)
    assert cp.returncode != 0 and cp.stderr.strip() == (
        "sbatch: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu "
        "and SLURM_NTASKS_PER_GPU")
    cp = c.run(["salloc", "--cpus-per-gpu=2", "-c2", "--gpus=1", "true"], check=False,
               cwd=workdir, extra_env=alone)
    assert cp.stderr.splitlines() == [
        "salloc: error: --cpus-per-gpu is mutually exclusive with --cpus-per-task",
        "salloc: error: Invalid generic resource (gres) specification"]
    # a type alone is one GPU of it, and no node has x ones
    cp = c.run(["srun", "-n1", "--gpus-per-task=x", "true"], check=False, cwd=workdir,
               extra_env=alone)
    assert cp.returncode == 1 and cp.stderr.strip() == (
        "srun: error: Unable to allocate resources: Requested node configuration is not "
        "available")


def test_uneven_tasks_each_get_their_gpus(cluster, workdir):
    # -N2 -n3: the first node runs two tasks, each with two GPUs of its own
    cp = cluster.run(["srun", "-N2", "-n3", "--gpus-per-task=2", "-l", "sh", "-c",
                      "echo rank=$SLURM_PROCID node=$SLURMD_NODENAME cvd=$CUDA_VISIBLE_DEVICES"],
                     cwd=workdir, extra_env={"SLURM_JOB_ID": ""})
    rows = rows_of(cp.stdout)
    assert len(rows) == 3, cp.stdout + cp.stderr
    by_node = {}
    for r in rows:
        assert re.fullmatch(r"\d,\d", r["cvd"]), cp.stdout
        by_node.setdefault(r["node"], []).extend(r["cvd"].split(","))
    assert sorted(len(g) for g in by_node.values()) == [2, 4], cp.stdout
    assert all(len(set(g)) == len(g) for g in by_node.values()), cp.stdout


def test_srun_gpu_bind_map_mask_single(cluster, workdir):
    # the step's GPUs on the node are the job's two; the forms pick among
    # them as slurmstepd does, and say so when a request names none
    task = "sh -c 'echo rank=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES'"
    body = (f"echo job=$SLURM_JOB_GPUS\n"
            f"srun -n4 --gpu-bind=single:2 {task}\necho --\n"
            f"srun -n2 --gpu-bind=map_gpu:9,$(echo $SLURM_JOB_GPUS | cut -d, -f2) {task}\n"
            f"echo --\nsrun -n1 --gpu-bind=mask_gpu:0xff {task}\n")
    job, out = run_job(cluster, workdir, ["-N1", "-n4", "--gpus-per-node=2"], body)
    first, second = re.search(r"job=(\d),(\d)", out).groups()
    single, mapped, masked = out.split("--\n")
    rows = {r["rank"]: r["cvd"] for r in rows_of(
        "\n".join("0: " + l for l in single.splitlines() if l.startswith("rank=")))}
    assert rows == {"0": first, "1": first, "2": second, "3": second}, out
    rows = {r["rank"]: r["cvd"] for r in rows_of(
        "\n".join("0: " + l for l in mapped.splitlines() if l.startswith("rank=")))}
    assert rows == {"0": first, "1": second}, out
    assert ("slurmstepd-node1: error: Bind request gpu:map_gpu:9,%s does not specify any "
            "devices within the allocation for task 0. Binding to the first device in the "
            "allocation instead." % second) in mapped.replace("node2", "node1"), out
    assert f"rank=0 cvd={first},{second}" in masked, out


def test_steps_take_the_jobs_gpu_bind(cluster, workdir):
    # as Slurm: the job's --gpu-bind reaches the script as SLURM_GPU_BIND,
    # and srun inside binds by it unless told otherwise
    body = ("echo bind=$SLURM_GPU_BIND gpus=$SLURM_GPUS_PER_NODE job=$SLURM_JOB_GPUS\n"
            "srun -l sh -c 'echo rank=$SLURM_PROCID cvd=$CUDA_VISIBLE_DEVICES'\n")
    job, out = run_job(cluster, workdir, ["-N1", "-n4", "--gpus-per-node=2",
                                          "--gpu-bind=single:2"], body)
    first, second = re.search(r"bind=single:2 gpus=2 job=(\d),(\d)", out).groups()
    rows = {r["rank"]: r["cvd"] for r in rows_of(out)}
    assert rows == {"0": first, "1": first, "2": second, "3": second}, out


def test_per_task_needs_tasks_and_per_gpu_needs_gpus(cluster, workdir):
    alone = {"SLURM_JOB_ID": ""}
    for prog in ("srun", "salloc"):
        cp = cluster.run([prog, "--gpus-per-task=1", "true"], check=False, cwd=workdir,
                         extra_env=alone)
        assert cp.returncode == 1 and cp.stderr.splitlines() == [
            f"{prog}: error: Failed to validate job spec. --gpus-per-task used without either "
            "--gpus or -n/--ntasks is not allowed.",
            f"{prog}: error: Invalid generic resource (gres) specification"], cp.stderr
    cp = cluster.run(["sbatch", "--mem-per-gpu=10", "--wrap", "true"], check=False, cwd=workdir)
    assert cp.returncode == 1 and cp.stderr.splitlines() == [
        "sbatch: error: Requested mem_per_tres=gres:gpu:10 but did not request any GPU.",
        "sbatch: error: Invalid generic resource (gres) specification"], cp.stderr
