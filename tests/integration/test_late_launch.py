"""A launch that reaches its node after the job ended NODE_FAIL (the node's
link was down while the launch's connect waited): the copy it starts is
killed and its end does not replace the NODE_FAIL (found by the chaos run,
seed 3)."""

import os
import subprocess
import time

import pytest

from test_netns import WHY, dir_hash, netns_cluster

pytestmark = pytest.mark.skipif(WHY is not None, reason=f"--netns: {WHY}")

TIMEOUT = 3
UP = ["--nodes", "2", "--netns", "--set", f"SlurmdTimeout={TIMEOUT}", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def lc(tmp_path_factory, users):
    with netns_cluster(tmp_path_factory, "latelaunch", UP) as c:
        yield c


def link(c, i, state):
    subprocess.run(["ip", "link", "set", f"hv{dir_hash(c.dir)}-{i}", state], check=True,
                   capture_output=True, timeout=10)


def test_late_launch_keeps_node_fail(lc, workdir):
    c = lc
    out = os.path.join(workdir, "late.out")
    link(c, 1, "down")
    try:
        # the controller still takes node1 for answering: the launch goes out,
        # and its connect waits (SYN again after 1, 3, 7 s)
        job = c.sbatch(["-w", "node1", "-o", out], cwd=workdir,
                       script="#!/bin/sh\necho ran\n")
        c.wait_state(job, "NODE_FAIL", timeout=TIMEOUT + 15)
    finally:
        link(c, 1, "up")
    # the connect gets through within the launch's 10 s and the node runs
    # the job (it ends before the node's next registration could list it);
    # its end must not replace the NODE_FAIL that the controller decided
    time.sleep(12)
    assert c.state(job) == "NODE_FAIL", c.job_debug(job)
