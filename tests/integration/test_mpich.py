"""MPICH programs launched by Herd's PMI (srun --mpi=pmi2, as on Slurm)
and by MPICH's own mpiexec (Hydra, which starts its proxies through srun).
Debian's MPICH speaks PMI-1 over the socket named by PMI_FD; the node
agents serve it and srun joins their fences (src/noded/pmi.h). A small
PMI-2 client checks the PMI-2 wire form the same way."""

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
    int rank, size, one = 1, sum = 0, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank=%d size=%d sum=%d node=%s\n", rank, size, sum, getenv("SLURMD_NODENAME"));
    if (argc > 1 && rank == atoi(argv[1]))
        MPI_Abort(MPI_COMM_WORLD, 7);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
'''

needs_mpich = pytest.mark.skipif(
    not (shutil.which("mpicc.mpich") and shutil.which("mpiexec.hydra")),
    reason="MPICH is not installed (scripts/install-deps.sh installs it)")


@pytest.fixture
def hello(workdir):
    src = os.path.join(workdir, "hello.c")
    with open(src, "w") as f:
        f.write(HELLO)
    exe = os.path.join(workdir, "hello")
    subprocess.run(["mpicc.mpich", "-o", exe, src], check=True)
    return exe


def ranks_of(text):
    return sorted(re.findall(r"rank=(\d) size=4 sum=4 node=(node\d)", text))


def run_batch(c, workdir, body, timeout=60):
    out = os.path.join(workdir, "mpi.out")
    job = c.sbatch(["-N2", "--ntasks-per-node=2", "-o", out], cwd=workdir, user="herdtest1",
                   script="#!/bin/sh\n" + body)
    c.wait_state(job, ("COMPLETED", "FAILED"), timeout=timeout)
    return job, read(out)


@needs_mpich
def test_srun_mpi_pmi2_allreduce(cluster, workdir, hello):
    job, text = run_batch(cluster, workdir, f"srun --mpi=pmi2 {hello}\necho rc=$?\n")
    ranks = ranks_of(text)
    assert [r for r, _ in ranks] == ["0", "1", "2", "3"], text
    assert dict(ranks) == {"0": "node1", "1": "node1", "2": "node2", "3": "node2"}, text
    assert "rc=0" in text, text


@needs_mpich
def test_srun_mpi_type_from_environment(cluster, workdir, hello):
    job, text = run_batch(cluster, workdir,
                          f"export SLURM_MPI_TYPE=pmi2\nsrun -n4 {hello}\necho rc=$?\n")
    assert len(ranks_of(text)) == 4, text
    assert "rc=0" in text, text


@needs_mpich
def test_mpi_default_from_slurm_conf(cluster, workdir, hello):
    body = (f"sed '/^MpiDefault/d' $SLURM_CONF > {workdir}/mpi.conf\n"
            f"echo MpiDefault=pmi2 >> {workdir}/mpi.conf\n"
            f"SLURM_CONF={workdir}/mpi.conf srun -n4 {hello}\necho rc=$?\n")
    job, text = run_batch(cluster, workdir, body)
    assert len(ranks_of(text)) == 4, text
    assert "rc=0" in text, text


@needs_mpich
def test_mpi_abort_ends_the_step(cluster, workdir, hello):
    job, text = run_batch(cluster, workdir, f"srun --mpi=pmi2 {hello} 2\necho rc=$?\n")
    rc = re.search(r"rc=(\d+)", text)
    assert rc and rc.group(1) != "0", text
    assert "task 2" in text, text
    assert "Terminating StepId=" in text, text


@needs_mpich
def test_mpiexec_hydra_through_srun(cluster, workdir, hello):
    # Hydra's Slurm launcher runs srun by the path MPICH was built with
    # (/usr/bin/srun); -launcher-exec names ours. Hydra hands mpiexec's
    # environment to every rank (SLURMD_NODENAME included), so where the
    # ranks ran shows in the proxies' step, one proxy per node.
    body = (f"mpiexec.hydra -launcher slurm -launcher-exec \"$(command -v srun)\" "
            f"-n 4 {hello}\necho rc=$?\n")
    job, text = run_batch(cluster, workdir, body)
    assert [r for r, _ in ranks_of(text)] == ["0", "1", "2", "3"], text
    assert "rc=0" in text, text
    step = cluster.run(["sacct", "-j", f"{job}.0", "-n", "-P",
                        "-o", "JobName,NNodes,NTasks,NodeList,State"]).stdout.strip()
    assert step == "hydra_pmi_proxy|2|2|node[1-2]|COMPLETED", step


PMI2_CLIENT = r'''
import os, socket, sys
fd = int(os.environ["PMI_FD"])
s = socket.socket(fileno=fd)
f = s.makefile("rb")

def v1(line):
    s.sendall(line.encode() + b"\n")
    return f.readline().decode().strip()

def v2(**kv):
    body = "".join(f"{k}={str(v).replace(';', ';;')};" for k, v in kv.items()).encode()
    s.sendall(b"%-6d" % len(body) + body)
    n = int(f.read(6))
    pairs = f.read(n).decode().replace(";;", "\0").split(";")
    return dict(p.replace("\0", ";").split("=", 1) for p in pairs if p)

init = v1("cmd=init pmi_version=2 pmi_subversion=0")
assert "rc=0" in init and "pmi_version=2" in init, init
r = v2(cmd="fullinit", pmirank=os.environ["PMI_RANK"], threaded="FALSE")
rank, size = int(r["rank"]), int(r["size"])
jobid = v2(cmd="job-getid")["jobid"]
mapping = v2(cmd="info-getjobattr", key="PMI_process_mapping")["value"]
assert v2(cmd="kvs-put", key=f"k{rank}", value=f"v;{rank}")["rc"] == "0"
assert v2(cmd="kvs-fence")["rc"] == "0"
got = [v2(cmd="kvs-get", jobid=jobid, srcid=-1, key=f"k{i}")["value"] for i in range(size)]
missing = v2(cmd="kvs-get", jobid=jobid, srcid=-1, key="nope")["found"]
v2(cmd="finalize")
print(f"rank={rank} size={size} map={mapping} got={','.join(got)} missing={missing}")
'''


def test_pmi2_wire_protocol(cluster, workdir):
    client = os.path.join(workdir, "pmi2.py")
    with open(client, "w") as f:
        f.write(PMI2_CLIENT)
    job, text = run_batch(cluster, workdir,
                          f"srun --mpi=pmi2 -n3 /usr/bin/python3 {client}\necho rc=$?\n")
    lines = sorted(re.findall(r"rank=\d.*", text))
    assert len(lines) == 3, text
    for line in lines:
        assert "size=3 map=(vector,(0,1,2),(1,1,1)) got=v;0,v;1,v;2 missing=FALSE" in line, text
    assert "rc=0" in text, text


def test_unknown_mpi_type_is_refused(cluster, workdir):
    job, text = run_batch(cluster, workdir, "srun --mpi=pmix true\necho rc=$?\n")
    assert "srun: error: MPI type 'pmix' is not supported" in text, text
    assert "rc=1" in text, text
