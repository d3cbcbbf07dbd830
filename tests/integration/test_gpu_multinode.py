"""A multi-node job's GPUs are measured on every node (issue 21 item 2):
the batch node samples the job, the other node samples it while its srun
step runs there, and the job's record sums both (Slurm's gres/gpuutil is
a sum over the job's GPUs). The NVML stub gives every node's GPU 0 90 %
and GPU 1 40 %."""

import os

import pytest

from helpers import nvml_cluster, wait_for


@pytest.fixture(scope="module")
def mc(tmp_path_factory, users):
    yield from nvml_cluster(tmp_path_factory, "gpumulti",
                            ["--nodes", "2", "--gpus-per-node", "2", "--set",
                             "JobAcctGatherFrequency=1"], [90, 40], [1024, 512])


def test_both_nodes_counted(mc, tmp_path):
    c = mc
    os.chmod(tmp_path, 0o777)
    job = c.sbatch(["-N2", "--gpus-per-node=2"],
                   "#!/bin/sh\nsrun -N2 --ntasks-per-node=1 sleep 5\n", user="herdtest1",
                   cwd=str(tmp_path))
    c.wait_state(job, "COMPLETED", timeout=60)

    def ave():
        out = c.run(["sacct", "-j", f"{job}.batch", "-n", "-P", "-o", "TRESUsageInAve"]).stdout
        return out if "gres/gpuutil=260" in out else None
    out = wait_for(ave, 20, "the job's GPU figures from both nodes")
    assert "gres/gpumem=3G" in out, out          # (1024 + 512) MiB on each node
    seff = c.run(["seff", str(job)]).stdout
    assert "node1 GPU 0: 90.00%, GPU 1: 40.00%, node2 GPU 0: 90.00%, GPU 1: 40.00%" in seff, seff
