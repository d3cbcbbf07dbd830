"""How jobs end, as squeue shows it: COMPLETED, FAILED with its exit code,
CANCELLED (and its processes gone), held jobs that never run."""

import os
import time

from helpers import pid_alive, read, wait_file, wait_for

LONG = "#!/bin/sh\necho shell $$\n/bin/sleep 300 &\necho child $!\nwait\n"


def pids_of(path):
    text = wait_file(path, contains="child ")
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if k in ("shell", "child") and v.strip().isdigit():
            out[k] = int(v)
    return out


def test_exit_code_gives_failed(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir, script="#!/bin/sh\necho about to fail\nexit 3\n")
    cluster.wait_state(job, "FAILED")
    assert cluster.run(["squeue", "-t", "all", "-j", str(job), "-h", "-o", "%T"]).stdout \
        == "FAILED\n"
    row = cluster.run(["squeue", "-t", "all", "-h", "-j", str(job)]).stdout.split()
    assert row[0] == str(job) and row[4] == "F", row
    rec = cluster.api_job(job)
    assert rec["exit_code"] == 3, rec
    assert read(os.path.join(workdir, f"slurm-{job}.out")) == "about to fail\n"


def test_success_gives_completed(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir, script="#!/bin/sh\nexit 0\n")
    cluster.wait_state(job, "COMPLETED")
    row = cluster.run(["squeue", "-t", "all", "-h", "-j", str(job)]).stdout.split()
    assert row[4] == "CD", row
    assert cluster.api_job(job)["exit_code"] == 0


def test_finished_jobs_hidden_by_default(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir, script="#!/bin/sh\ntrue\n")
    cluster.wait_state(job, "COMPLETED")
    assert str(job) not in cluster.run(["squeue", "-h", "-o", "%i"]).stdout.split()
    assert str(job) in cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()


def test_scancel_running_job(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir, script=LONG)
    cluster.wait_state(job, "RUNNING")
    pids = pids_of(os.path.join(workdir, f"slurm-{job}.out"))
    assert all(pid_alive(p) for p in pids.values()), pids
    cluster.run(["scancel", str(job)])
    cluster.wait_state(job, "CANCELLED", timeout=20)
    # KillWait=2: SIGTERM, then SIGKILL for whatever is left.
    wait_for(lambda: not any(pid_alive(p) for p in pids.values()), 10,
             f"the job's processes {pids} to be gone after scancel")


def test_hold_keeps_job_pending(cluster, workdir):
    marker = os.path.join(workdir, "ran")
    job = cluster.sbatch(["--hold"], cwd=workdir, script=f"#!/bin/sh\ntouch {marker}\n")
    assert cluster.state(job) == "PENDING"
    time.sleep(3)
    assert cluster.state(job) == "PENDING"
    assert cluster.field(job, "%r") == "JobHeldUser"
    row = cluster.run(["squeue", "-h", "-j", str(job)]).stdout.split()
    assert row[4] == "PD" and row[-1] == "(JobHeldUser)", row
    assert not os.path.exists(marker)
    assert not os.path.exists(os.path.join(workdir, f"slurm-{job}.out"))
    cluster.run(["scancel", str(job)])
    cluster.wait_state(job, "CANCELLED")
    assert not os.path.exists(marker)
