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
    cp = cluster.run(["scancel", "99999"], check=False)
    assert "scancel: error: Kill job error on job id 99999: Invalid job id specified" \
        in cp.stderr, cp.stderr
