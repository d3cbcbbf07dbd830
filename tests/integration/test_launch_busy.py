"""A launch that a node answers 503 (it is up but busy: its credential
checks or connections are full) is sent again after 1, 2 and 4 s, the job
keeping its allocation, and counts as a failed launch (requeue, node not
responding) only after that. The emulator's silent node answers launches
503; it comes back before the third try."""

import os
import signal
import time

import pytest

from helpers import cluster_fixture, read, wait_for

UP = ["--nodes", "2", "--emulate", "--emu-run", "2", "--set", "SlurmdTimeout=60"]


@pytest.fixture(scope="module")
def ecluster(tmp_path_factory):
    yield from cluster_fixture(tmp_path_factory, "busy", UP)


def silence(c, nodes):
    with open(os.path.join(c.dir, "run", "emu-silent"), "w") as f:
        f.write(nodes)
    os.kill(c.herdd_pid("emu1"), signal.SIGUSR2)


def test_busy_node_launch_sent_again(ecluster, workdir):
    c = ecluster
    silence(c, "emu2")
    time.sleep(0.5)
    job = c.sbatch(["-w", "emu2", "-o", "/dev/null", "--wrap", "true"], cwd=workdir)
    log = os.path.join(c.dir, "log", "herdctld.log")
    wait_for(lambda: f"launch of job {job}: node emu2 is busy (503); again in 2 s"
             in read(log), 15, "the launch to be answered 503 twice")
    silence(c, "")
    c.wait_state(job, "COMPLETED", timeout=30)
    j = c.api_job(job)
    assert j["restarts"] == 0, j
    assert f"launch of job {job} on emu2 failed" not in read(log)
    assert c.node_states().get("emu2") == "idle", c.node_states()
