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


def test_each_job_keeps_its_own_environment(cluster, workdir):
    """The store keeps one copy of an environment many jobs share: jobs
    submitted in turn with two environments each still see their own."""
    jobs = [(cluster.sbatch(["-o", f"shared-{i}.out"], cwd=workdir,
                            script="#!/bin/sh\necho \"V=$SHARED_V\"\n",
                            extra_env={"SHARED_V": v}), i, v)
            for i, v in enumerate(["one", "one", "two", "one", "two"])]
    for job, i, v in jobs:
        cluster.wait_state(job, "COMPLETED")
        assert read(os.path.join(workdir, f"shared-{i}.out")).strip() == f"V={v}", (job, v)


def test_bulk_defaults(cluster, workdir):
    """POST /v1/jobs {"defaults": {...}, "jobs": [...]}: each job is the
    defaults with its own keys over them (its own environment replaces the
    shared one whole)."""
    defaults = {"script": "#!/bin/sh\necho \"$BULK_V $SLURM_JOB_NAME\"\n", "work_dir": workdir,
                "environment": ["BULK_V=shared", "PATH=/usr/bin:/bin"]}
    jobs = [{"name": "bd0", "stdout": os.path.join(workdir, "bd0.out")},
            {"name": "bd1", "stdout": os.path.join(workdir, "bd1.out"),
             "environment": ["BULK_V=own", "PATH=/usr/bin:/bin"]},
            {"name": "bd2", "stdout": os.path.join(workdir, "bd2.out"),
             "script": "#!/bin/sh\necho \"other $BULK_V\"\n"}]
    st, r = cluster.api("POST", "/v1/jobs", {"defaults": defaults, "jobs": jobs})
    assert st == 200 and len(r["job_ids"]) == 3, (st, r)
    for job in r["job_ids"]:
        cluster.wait_state(job, "COMPLETED")
    got = [read(os.path.join(workdir, f"bd{i}.out")).strip() for i in range(3)]
    assert got == ["shared bd0", "own bd1", "other shared"], got
    st, r = cluster.api("POST", "/v1/jobs", {"defaults": "x", "jobs": jobs})
    assert st == 400 and "defaults" in str(r), (st, r)
