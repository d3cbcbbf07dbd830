"""herd up --netns: each emulated node's agent in network, UTS and mount
namespaces of its own, so that its jobs see a distinct host (its name, its
address, every other node by name): srun hostname, name resolution across
nodes, a PyTorch gloo all-reduce and Open MPI's mpirun without
`--mca btl self,tcp` over two such nodes. Every cluster here is stopped with
`herd down`, and whatever network it left (veths, bridge, namespace
handles) is removed and reported, failure or not."""

import contextlib
import os
import random
import re
import shutil
import subprocess

import pytest

from helpers import (HERD_BIN, Cluster, base_env, cluster_dir, conf_value, dir_hash,
                     netns_unavailable, network_left, read, run, scrub_network)

UP = ["--nodes", "2", "--netns", "--set", "SlurmdTimeout=6", "--set", "KillWait=2"]

WHY = netns_unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"--netns: {WHY}")


@contextlib.contextmanager
def netns_cluster(tmp_path_factory, name, up_args):
    c = Cluster(cluster_dir(tmp_path_factory, name), up_args)
    try:
        c.up()
        yield c
    finally:
        problems = c.stop_and_check()
        left = network_left(c.dir)
        scrub_network(c.dir)
        if left:
            problems.append(f"network of {c.dir} left after herd down: {left}")
        if problems:
            pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture(scope="module")
def nc(tmp_path_factory, users):
    with netns_cluster(tmp_path_factory, "netns", UP) as c:
        yield c


def node_addrs(c):
    text = c.conf_text()
    return dict(re.findall(r"^NodeName=(\S+) NodeAddr=(\S+)", text, re.M))


def finished(c, job, timeout=90):
    return c.wait_state(job, ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"), timeout=timeout)


def test_nodes_have_their_own_addresses(nc):
    addrs = node_addrs(nc)
    assert sorted(addrs) == ["node1", "node2"], addrs
    nets = {a.rsplit(".", 1)[0] for a in addrs.values()}
    assert len(nets) == 1 and len(set(addrs.values())) == 2, addrs
    ctld = conf_value(nc.conf_text(), "SlurmctldHost")
    net = nets.pop()
    assert ctld.endswith(f"({net}.254)"), ctld
    bridge = f"/sys/class/net/hb{dir_hash(nc.dir)}"
    assert read(bridge + "/ifalias").strip() == f"herd {os.path.realpath(nc.dir)}"


def test_srun_hostname_names_each_node(nc):
    """srun on the host reaches each agent at its NodeAddr; UTS says the node."""
    cp = nc.run(["srun", "-N2", "-n2", "hostname"], timeout=60)
    assert sorted(cp.stdout.split()) == ["node1", "node2"], cp.stdout + cp.stderr


def test_a_node_resolves_the_others(nc):
    addrs = node_addrs(nc)
    cp = nc.run(["srun", "-N1", "-w", "node2", "sh", "-c",
                 "getent hosts node1; getent hosts node2; hostname"], timeout=60)
    lines = [l.split() for l in cp.stdout.splitlines()]
    assert lines == [[addrs["node1"], "node1"], [addrs["node2"], "node2"], ["node2"]], cp.stdout


ALLREDUCE = r'''
import os, socket
import torch
import torch.distributed as dist
rank, world = int(os.environ["SLURM_PROCID"]), int(os.environ["SLURM_NTASKS"])
dist.init_process_group("gloo", rank=rank, world_size=world)
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print(f"rank={rank} world={world} sum={t.item():g} host={socket.gethostname()}", flush=True)
dist.destroy_process_group()
'''


def torch_missing():
    cp = subprocess.run(["/usr/bin/python3", "-c", "import torch.distributed"],
                        capture_output=True, timeout=120)
    return cp.returncode != 0


@pytest.mark.skipif(torch_missing(), reason="python3-torch is not installed for /usr/bin/python3")
def test_torch_gloo_allreduce_over_two_nodes(nc, workdir):
    with open(os.path.join(workdir, "allreduce.py"), "w") as f:
        f.write(ALLREDUCE)
    out = os.path.join(workdir, "torch.out")
    port = random.randint(20000, 30000)
    script = ("#!/bin/sh\n"
              'export MASTER_ADDR=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)\n'
              f"export MASTER_PORT={port}\n"
              "echo master=$MASTER_ADDR\n"
              "srun /usr/bin/python3 allreduce.py\n"
              "echo rc=$?\n")
    job = nc.sbatch(["-N2", "--ntasks-per-node=1", "-t", "5", "-o", out], cwd=workdir,
                    user="herdtest1", script=script)
    finished(nc, job, timeout=150)
    text = read(out)
    ranks = sorted(re.findall(r"rank=(\d) world=2 sum=3 host=(\S+)", text))
    assert ranks == [("0", "node1"), ("1", "node2")], text
    assert "master=node1" in text and "rc=0" in text, text


HELLO = r'''
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;
    char host[64] = "";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    gethostname(host, sizeof host - 1);
    printf("rank=%d size=%d sum=%d host=%s\n", rank, size, sum, host);
    MPI_Finalize();
    return 0;
}
'''


@pytest.mark.skipif(not (shutil.which("mpirun") and shutil.which("mpicc")),
                    reason="Open MPI is not installed (scripts/install-deps.sh installs it)")
def test_mpirun_with_default_transports(nc, workdir):
    """Distinct hosts: Open MPI's shared memory stays within a node, so no
    `--mca btl self,tcp` is needed (docs/srun.md)."""
    src = os.path.join(workdir, "hello.c")
    with open(src, "w") as f:
        f.write(HELLO)
    subprocess.run(["mpicc", "-o", os.path.join(workdir, "hello"), src], check=True, timeout=120)
    out = os.path.join(workdir, "mpi.out")
    job = nc.sbatch(["-N2", "--ntasks-per-node=2", "-t", "5", "-o", out], cwd=workdir,
                    user="herdtest1", script="#!/bin/sh\nmpirun ./hello\necho rc=$?\n")
    finished(nc, job, timeout=120)
    text = read(out)
    ranks = sorted(re.findall(r"rank=(\d) size=4 sum=4 host=(node\d)", text))
    assert [r for r, _ in ranks] == ["0", "1", "2", "3"], text
    assert sorted({n for _, n in ranks}) == ["node1", "node2"], text
    assert "rc=0" in text, text


def test_up_again_restarts_a_killed_agent_in_its_namespace(nc):
    before = nc.daemon_pids()
    node1 = nc.herdd_pid("node1")
    os.kill(node1, 9)
    cp = nc.up()
    assert "started node1" in cp.stderr, cp.stderr
    after = nc.daemon_pids()
    changed = sorted(f for f in after if after[f] != before.get(f))
    assert [os.path.basename(f) for f in changed] == ["herdd-node1.pid"], (before, after)
    cp = nc.run(["srun", "-N2", "-n2", "hostname"], timeout=60)
    assert sorted(cp.stdout.split()) == ["node1", "node2"], cp.stdout + cp.stderr


def test_down_removes_the_network_and_up_brings_it_back(tmp_path_factory):
    with netns_cluster(tmp_path_factory, "netns-cycle", ["--nodes", "1", "--netns"]) as c:
        assert len(network_left(c.dir)) == 3, network_left(c.dir)   # bridge, veth, handle
        c.down()
        assert network_left(c.dir) == []
        c.up()
        cp = c.run(["srun", "-N1", "hostname"], timeout=60)
        assert cp.stdout.split() == ["node1"], cp.stdout + cp.stderr


def test_failed_up_leaves_nothing(tmp_path_factory):
    d = cluster_dir(tmp_path_factory, "netns-fail")
    try:
        cp = run([os.path.join(HERD_BIN, "herd"), "up", "-D", str(d), "--nodes", "2", "--netns",
                  "--set", "StateSaveLocation=/proc/herd-nonexistent"],
                 env=base_env(), check=False, timeout=120)
        assert cp.returncode == 1, cp.stderr
        assert "removing its network" in cp.stderr, cp.stderr
        assert network_left(d) == []
        assert Cluster(d).leftovers() == []
    finally:
        run([os.path.join(HERD_BIN, "herd"), "down", "-D", str(d)], env=base_env(), check=False)
        scrub_network(d)


def test_netns_needs_nodes(tmp_path_factory):
    d = cluster_dir(tmp_path_factory, "netns-nonodes")
    cp = run([os.path.join(HERD_BIN, "herd"), "up", "-D", str(d), "--netns"], env=base_env(),
             check=False, timeout=60)
    assert cp.returncode == 1 and "--netns needs --nodes" in cp.stderr, cp.stderr
    assert not os.path.exists(os.path.join(d, "slurm.conf"))
