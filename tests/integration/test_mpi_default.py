"""Open MPI on the default cluster (`herd up` without --netns), with two
ranks on each of two nodes and no --mca option: each node agent has a UTS
namespace of its own named after its node, so Open MPI tells the nodes
apart, uses its shared-memory transport between the ranks of one node and
TCP between nodes, instead of taking all four ranks for one host and
crashing (docs/local-cluster.md)."""

import os
import re
import shutil
import subprocess

import pytest

from helpers import read
from test_mpi import HELLO


def test_hostname_is_the_node(cluster, workdir):
    """`hostname` in a job's tasks says the node's name, as on Slurm."""
    out = os.path.join(workdir, "host.out")
    job = cluster.sbatch(["-N2", "--ntasks-per-node=1", "-o", out], cwd=workdir,
                         script="#!/bin/sh\nsrun hostname | sort\necho rc=$?\n")
    cluster.wait_state(job, ("COMPLETED", "FAILED"), timeout=60)
    text = read(out)
    nodes = cluster.run(["scontrol", "show", "hostnames",
                         cluster.field(job, "%N").strip()]).stdout.split()
    assert text.split() == sorted(nodes) + ["rc=0"], text


@pytest.mark.skipif(not (shutil.which("mpirun") and shutil.which("mpicc")),
                    reason="Open MPI is not installed (scripts/install-deps.sh installs it)")
def test_open_mpi_two_ranks_per_node(cluster, workdir, users):
    c = cluster
    src = os.path.join(workdir, "hello.c")
    with open(src, "w") as f:
        f.write(HELLO)
    subprocess.run(["mpicc", "-o", os.path.join(workdir, "hello"), src], check=True)
    out = os.path.join(workdir, "mpi.out")
    job = c.sbatch(["-N2", "--ntasks-per-node=2", "-o", out], cwd=workdir, user="herdtest1",
                   script="#!/bin/sh\nmpirun ./hello\necho rc=$?\n")
    c.wait_state(job, ("COMPLETED", "FAILED"), timeout=90)
    text = read(out)
    ranks = sorted(re.findall(r"rank=(\d) size=4 sum=4 node=(\S+)", text))
    assert [r for r, _ in ranks] == ["0", "1", "2", "3"], text
    per_node = {}
    for _, n in ranks:
        per_node[n] = per_node.get(n, 0) + 1
    assert sorted(per_node.values()) == [2, 2], text
    assert "rc=0" in text, text
