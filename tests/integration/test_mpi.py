"""Open MPI's mpirun inside an allocation launches its daemons through
srun (a step with one orted per node, as on Slurm) and runs an allreduce
over 4 ranks on 2 nodes, with TCP only (--mca btl self,tcp), which also
works where the nodes cannot have host names of their own (see
docs/local-cluster.md; test_mpi_default.py runs it without --mca)."""

import os
import re
import shutil
import subprocess

import pytest

from helpers import read

HELLO = r'''
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank=%d size=%d sum=%d node=%s\n", rank, size, sum, getenv("SLURMD_NODENAME"));
    MPI_Finalize();
    return 0;
}
'''


@pytest.mark.skipif(not (shutil.which("mpirun") and shutil.which("mpicc")),
                    reason="Open MPI is not installed (scripts/install-deps.sh installs it)")
def test_mpirun_over_two_nodes(cluster, workdir, users):
    c = cluster
    src = os.path.join(workdir, "hello.c")
    with open(src, "w") as f:
        f.write(HELLO)
    subprocess.run(["mpicc", "-o", os.path.join(workdir, "hello"), src], check=True)
    out = os.path.join(workdir, "mpi.out")
    job = c.sbatch(["-N2", "--ntasks-per-node=2", "-o", out], cwd=workdir, user="herdtest1",
                   script="#!/bin/sh\nmpirun --mca btl self,tcp ./hello\necho rc=$?\n")
    c.wait_state(job, ("COMPLETED", "FAILED"), timeout=60)
    text = read(out)
    ranks = sorted(re.findall(r"rank=(\d) size=4 sum=4 node=(node\d)", text))
    assert [r for r, _ in ranks] == ["0", "1", "2", "3"], text
    assert sorted({n for _, n in ranks}) == ["node1", "node2"], text
    assert "rc=0" in text, text
    steps = c.run(["sacct", "-j", f"{job}.0", "-n", "-P", "-o", "JobName,NNodes,State"]).stdout
    # mpirun ends its daemons' srun itself, so the step may end CANCELLED, as on Slurm.
    # The batch host's agent is named after its node (test_mpi_default.py), so mpirun
    # knows it runs there and starts an orted on the other node only, as on Slurm.
    assert steps.split("|")[:2] == ["orted", "1"], steps
