"""scancel by id, by user, by name, with a signal, and its error text."""

import os

from helpers import wait_file

TRUE = "#!/bin/sh\ntrue\n"


def test_scancel_ids(cluster, workdir):
    a = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    b = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    keep = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    cp = cluster.run(["scancel", str(a), str(b)])
    assert cp.stdout == "" and cp.stderr == "", cp
    for j in (a, b):
        cluster.wait_state(j, "CANCELLED")
    assert cluster.state(keep) == "PENDING"


def test_scancel_user(cluster, workdir, users):
    mine = [cluster.sbatch(["--hold"], cwd=workdir, user="herdtest1", script=TRUE)
            for _ in range(2)]
    roots = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    cluster.run(["scancel", "-u", "herdtest1"])
    for j in mine:
        cluster.wait_state(j, "CANCELLED")
    assert cluster.state(roots) == "PENDING"


def test_scancel_name(cluster, workdir):
    named = [cluster.sbatch(["--hold", "-J", "cname"], cwd=workdir, script=TRUE)
             for _ in range(2)]
    other = cluster.sbatch(["--hold", "-J", "cother"], cwd=workdir, script=TRUE)
    cluster.run(["scancel", "-n", "cname"])
    for j in named:
        cluster.wait_state(j, "CANCELLED")
    assert cluster.state(other) == "PENDING"


def test_scancel_signal_reaches_trapping_script(cluster, workdir):
    marker = os.path.join(workdir, "got-usr1")
    ready = os.path.join(workdir, "ready")
    script = f"""#!/bin/sh
trap 'echo usr1 > {marker}; exit 0' USR1
echo ready > {ready}
i=0
while [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
"""
    job = cluster.sbatch([], cwd=workdir, script=script)
    cluster.wait_state(job, "RUNNING")
    wait_file(ready)
    cluster.run(["scancel", "-b", "--signal=USR1", str(job)])   # -b: the batch shell
    assert wait_file(marker, timeout=15) == "usr1\n"
    # The script chose to exit 0 on the signal: the job was signalled, not cancelled.
    cluster.wait_state(job, "COMPLETED", timeout=20)


def test_scancel_unknown_job(cluster):
    # As Slurm 22.05: cancelling a job that is gone is no error (said with -v)
    cp = cluster.run(["scancel", "99999"], check=False)
    assert (cp.returncode, cp.stderr) == (0, ""), cp.stderr
    cp = cluster.run(["scancel", "-v", "99999"], check=False)
    assert "scancel: error: Kill job error on job id 99999: Invalid job id specified" \
        in cp.stderr, cp.stderr
    assert cp.returncode == 0


def test_scancel_user_arrays_in_one_request(cluster, workdir, users):
    """`scancel -u` sends what it picked in one request: an array (its
    running tasks and its waiting ones) and plain jobs all end, with nothing
    printed; another user's job stays."""
    arr = cluster.sbatch(["--array=0-9%2"], cwd=workdir, user="herdtest1",
                         script="#!/bin/sh\nsleep 300\n")
    plain = cluster.sbatch(["--hold"], cwd=workdir, user="herdtest1", script=TRUE)
    roots = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    cluster.wait_state(f"{arr}_0", "RUNNING")
    cp = cluster.run(["scancel", "-u", "herdtest1"], user="herdtest1")
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "", ""), cp
    for j in (f"{arr}_0", f"{arr}_1", plain):
        cluster.wait_state(j, "CANCELLED")
    cp = cluster.run(["squeue", "-h", "-u", "herdtest1"])
    assert cp.stdout == "", cp.stdout
    assert cluster.state(roots) == "PENDING"


def test_bulk_cancel_refusals(cluster, workdir, users):
    """POST /v1/jobs/cancel names each job it refused, and cancels the rest."""
    theirs = cluster.sbatch(["--hold"], cwd=workdir, user="herdtest1", script=TRUE)
    mine = cluster.sbatch(["--hold"], cwd=workdir, script=TRUE)
    st, r = cluster.api("POST", "/v1/jobs/cancel", {"job_ids": [mine, 99999]})
    assert st == 200 and r["errors"] == [
        {"job_id": 99999, "error": "Invalid job id specified", "code": 2017}], (st, r)
    cluster.wait_state(mine, "CANCELLED")
    st, r = cluster.api("POST", "/v1/jobs/cancel", {"job_ids": [mine]})
    assert r["errors"][0]["error"] == "Job/step already completing or completed", r
    cp = cluster.run(["scancel", "-u", "herdtest1", "-n", "nosuch"])
    assert (cp.stdout, cp.stderr) == ("", ""), cp
    assert cluster.state(theirs) == "PENDING"
    st, r = cluster.api("POST", "/v1/jobs/cancel", {"job_ids": "x"})
    assert st == 400, (st, r)
