"""Waiting for a job without asking again and again: `sbatch --wait` blocks
until the job ends and exits with its code, served by the controller's
GET /v1/jobs/{id}/wait, which answers the moment the job ends (or starts,
with until=running) and, after its timeout, with the job as it is."""

import os
import re
import time


def test_sbatch_wait_exits_with_the_jobs_code(cluster, workdir):
    script = os.path.join(workdir, "w.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nsleep 1\nexit 3\n")
    t0 = time.monotonic()
    cp = cluster.run(["sbatch", "--wait", script], cwd=workdir, check=False)
    took = time.monotonic() - t0
    m = re.fullmatch(r"Submitted batch job (\d+)\n", cp.stdout)
    assert m, cp.stdout + cp.stderr
    assert cp.returncode == 3, (cp.returncode, cp.stderr)
    assert cluster.state(int(m.group(1))) == "FAILED"
    assert took < 15, took


def test_wait_answers_when_the_job_ends(cluster, workdir):
    job = cluster.sbatch(["-t", "1"], cwd=workdir, script="#!/bin/sh\nsleep 2\n")
    t0 = time.monotonic()
    st, r = cluster.api("GET", f"/v1/jobs/{job}/wait?until=end&timeout=60", timeout=70)
    took = time.monotonic() - t0
    assert st == 200, r
    assert r["jobs"][0]["state"] == "COMPLETED", r
    # the answer came with the end, not at the timeout
    assert took < 30, took


def test_wait_until_running_and_timeout(cluster, workdir):
    held = cluster.sbatch(["--hold"], cwd=workdir, script="#!/bin/sh\nsleep 30\n")
    t0 = time.monotonic()
    st, r = cluster.api("GET", f"/v1/jobs/{held}/wait?until=running&timeout=1", timeout=30)
    assert st == 200 and r["jobs"][0]["state"] == "PENDING", r
    assert 0.9 <= time.monotonic() - t0 < 10
    cluster.run(["scontrol", "release", str(held)])
    st, r = cluster.api("GET", f"/v1/jobs/{held}/wait?until=running&timeout=60", timeout=70)
    assert st == 200 and r["jobs"][0]["state"] == "RUNNING", r
    cluster.run(["scancel", str(held)])


def test_wait_on_unknown_job(cluster):
    st, r = cluster.api("GET", "/v1/jobs/987654/wait")
    assert st == 404 and r["error"] == "Invalid job id specified", r
