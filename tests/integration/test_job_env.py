"""The environment a batch job sees: Slurm's SLURM_* variables, the GPUs it
was given, and the submitter's own variables."""

import os
import socket

from helpers import parse_env, read


def test_job_environment(cluster, workdir):
    job = cluster.sbatch(["-J", "envjob", "-n", "1", "-c", "2", "--gres=gpu:2"], cwd=workdir,
                         script="#!/bin/sh\nenv\n", extra_env={"MY_OWN_VAR": "from-submitter"})
    cluster.wait_state(job, "COMPLETED")
    env = parse_env(read(os.path.join(workdir, f"slurm-{job}.out")))
    node = env.get("SLURMD_NODENAME")
    assert node in ("node1", "node2"), env
    host = socket.gethostname()
    expected = {
        "SLURM_JOB_ID": str(job),
        "SLURM_JOBID": str(job),
        "SLURM_JOB_NAME": "envjob",
        "SLURM_JOB_NODELIST": node,
        "SLURM_NODELIST": node,
        "SLURM_NNODES": "1",
        "SLURM_JOB_NUM_NODES": "1",
        "SLURM_NTASKS": "1",
        "SLURM_CPUS_PER_TASK": "2",
        "SLURM_CPUS_ON_NODE": "2",
        "SLURM_SUBMIT_DIR": workdir,
        "SLURM_JOB_PARTITION": "debug",
        "SLURM_GPUS_ON_NODE": "2",
        "MY_OWN_VAR": "from-submitter",
    }
    got = {k: env.get(k) for k in expected}
    assert got == expected
    assert env.get("SLURM_SUBMIT_HOST") in (host, host.split(".")[0]), env.get("SLURM_SUBMIT_HOST")
    gpus = env.get("CUDA_VISIBLE_DEVICES", "").split(",")
    assert len(gpus) == 2 and len(set(gpus)) == 2, env.get("CUDA_VISIBLE_DEVICES")
    assert all(g.isdigit() and 0 <= int(g) < 4 for g in gpus), gpus
    assert cluster.field(job, "%N") == node


def test_no_gpu_job_sees_no_gpus(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir,
                         script="#!/bin/sh\necho CVD=${CUDA_VISIBLE_DEVICES-unset}\n")
    cluster.wait_state(job, "COMPLETED")
    out = read(os.path.join(workdir, f"slurm-{job}.out"))
    # Slurm leaves it unset, or empty-ish, but never hands out a GPU.
    assert out.strip() in ("CVD=unset", "CVD=", "CVD=NoDevFiles"), out
