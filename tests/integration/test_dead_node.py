"""A node that dies (its agent and its job killed with SIGKILL) is marked down
within SlurmdTimeout, its job ends NODE_FAIL, no job goes there, and
`herd up` brings it back."""

import os
import signal

import pytest

from helpers import cluster_fixture, cmdline_of, pid_alive, ppid_of, wait_file, wait_for

TIMEOUT = 4
UP = ["--nodes", "2", "--gpus-per-node", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
      "--set", f"SlurmdTimeout={TIMEOUT}", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def ncluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "deadnode", UP)


def kill_node(c, node, job_shell):
    """SIGKILL the node's agent, the job's supervisor(s) and the job, freezing
    them first so that none can report the others' death."""
    agent = c.herdd_pid(node)
    chain = []
    p = ppid_of(job_shell)
    while p and p not in (1, agent, os.getpid()) and "herdctld" not in cmdline_of(p):
        chain.append(p)
        p = ppid_of(p)
    pgid = os.getpgid(job_shell)
    victims = [agent] + chain
    for v in victims:
        os.kill(v, signal.SIGSTOP)
    if pgid != os.getpgrp():
        os.killpg(pgid, signal.SIGKILL)
    else:   # the job shares our process group: never kill that
        os.kill(job_shell, signal.SIGKILL)
    for v in victims:
        os.kill(v, signal.SIGKILL)
    wait_for(lambda: not any(pid_alive(v) for v in victims + [job_shell]), 10,
             f"agent {agent}, supervisors {chain}, job {job_shell} to die")


def test_dead_node(ncluster, workdir):
    c = ncluster
    out = os.path.join(workdir, "long.out")
    job = c.sbatch(["-J", "doomed", "-o", out], cwd=workdir,
                   script="#!/bin/sh\necho pid $$\nexec /bin/sleep 300\n")
    c.wait_state(job, "RUNNING")
    node = c.field(job, "%N")
    assert node in ("node1", "node2"), node
    other = "node2" if node == "node1" else "node1"
    shell = int(wait_file(out, contains="pid ").split()[1])
    kill_node(c, node, shell)

    def node_down():
        st = c.node_states().get(node, "")
        return st if st.startswith("down") else None
    st = wait_for(node_down, TIMEOUT + 15, f"{node} to show down in sinfo")
    assert st in ("down", "down*"), st
    c.wait_state(job, "NODE_FAIL", timeout=TIMEOUT + 15)
    assert c.node_states()[other] == "idle"

    # New work goes only to the node that is alive.
    jobs = [c.sbatch([], cwd=workdir, script="#!/bin/sh\ntrue\n") for _ in range(3)]
    for j in jobs:
        c.wait_state(j, "COMPLETED", timeout=30)
        assert c.field(j, "%N") == other

    c.up()
    wait_for(lambda: c.node_states().get(node) == "idle", 30, f"{node} to return to idle")
    j = c.sbatch(["-w", node], cwd=workdir, script="#!/bin/sh\ntrue\n")
    c.wait_state(j, "COMPLETED", timeout=30)
    assert c.field(j, "%N") == node
