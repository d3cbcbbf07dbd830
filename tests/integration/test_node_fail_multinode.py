"""A job of two nodes whose second node falls silent ends NODE_FAIL; its
batch script still runs on its first node, and that node's GPU goes to no
other job until the script is gone (found by the chaos run, seed 1001)."""

import os
import re
import signal

import pytest

from helpers import cluster_fixture, pid_alive, wait_file, wait_for

TIMEOUT = 4
UP = ["--nodes", "2", "--gpus-per-node", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
      "--set", f"SlurmdTimeout={TIMEOUT}", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def mcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "nodefail2", UP)


def test_gpu_not_reused_while_failed_job_runs(mcluster, workdir):
    c = mcluster
    out = os.path.join(workdir, "two.out")
    job = c.sbatch(["-N2", "--gres=gpu:1", "-o", out], cwd=workdir,
                   script="#!/bin/sh\necho pid $$\nexec /bin/sleep 300\n")
    c.wait_state(job, "RUNNING")
    shell = int(wait_file(out, contains="pid ").split()[1])
    m = re.search(r"BatchHost=(\S+)", c.run(["scontrol", "show", "job", str(job)]).stdout)
    assert m, "scontrol show job gives no BatchHost"
    batch = m.group(1)
    other = "node2" if batch == "node1" else "node1"
    # the next job on the batch node's GPU waits for it, and checks whether
    # the failed job's script still runs when it starts
    out2 = os.path.join(workdir, "next.out")
    nxt = c.sbatch(["-w", batch, "--gres=gpu:1", "-o", out2], cwd=workdir,
                   script=f"#!/bin/sh\nif kill -0 {shell} 2>/dev/null; then echo overlap;"
                          " else echo alone; fi\n")
    c.wait_state(nxt, "PENDING")
    agent = c.herdd_pid(other)
    os.kill(agent, signal.SIGSTOP)
    try:
        c.wait_state(job, "NODE_FAIL", timeout=TIMEOUT + 20)
        c.wait_state(nxt, "COMPLETED", timeout=30)
        text = wait_file(out2, contains="")
        assert text.strip() == "alone", (
            f"job {nxt} started on {batch}'s GPU while job {job}'s script {shell} still ran")
        wait_for(lambda: not pid_alive(shell), 15, f"job {job}'s script {shell} to be killed")
    finally:
        os.kill(agent, signal.SIGCONT)
