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

from helpers import HERD_BIN, base_env, read, run
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


@pytest.mark.skipif(not shutil.which("setpriv") or os.geteuid() != 0,
                    reason="needs root and setpriv to take CAP_SYS_ADMIN away")
def test_warning_where_nodes_cannot_be_named(tmp_path):
    """Without CAP_SYS_ADMIN herd up cannot name the nodes: it says so and
    what to do, and the cluster comes up all the same."""
    d = str(tmp_path / "c")
    env = base_env()
    up = ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin",
          os.path.join(HERD_BIN, "herd"), "up", "-D", d, "--nodes", "2"]
    try:
        cp = run(up, env=env, check=False, timeout=120)
        assert cp.returncode == 0, cp.stderr
        warn = [line for line in cp.stderr.split("\n") if line.startswith("herd: warning")]
        assert len(warn) == 1 and "host names of their own" in warn[0], cp.stderr
        assert "--netns" in warn[0] and "--mca btl self,tcp" in warn[0], warn
        srun = run(["srun", "-N2", "hostname"], env=base_env(os.path.join(d, "slurm.conf")),
                   timeout=60)
        assert len(set(srun.stdout.split())) == 1, srun.stdout
    finally:
        run([os.path.join(HERD_BIN, "herd"), "down", "-D", d], env=env, check=False, timeout=60)
