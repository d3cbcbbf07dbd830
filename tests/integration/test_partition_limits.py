"""A cluster whose slurm.conf the user extended: herd up reuses an existing
DIR/slurm.conf, and a partition's MaxTime is enforced at submit."""

import pytest

from helpers import cluster_fixture

UP = ["--nodes", "1", "--gpus-per-node", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
      "--set", "KillWait=2"]


def add_partition(c):
    """First up writes slurm.conf; down must leave nothing; then the user
    adds a partition with a MaxTime."""
    c.up()
    problems = c.stop_and_check()
    assert not problems, "\n".join(problems)
    with open(c.conf, "a") as f:
        f.write("\nPartitionName=short Nodes=node1 MaxTime=5 State=UP\n")


@pytest.fixture(scope="module")
def lcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "limits", UP, prepare=add_partition)


def test_up_reuses_existing_conf(lcluster):
    out = lcluster.run(["sinfo", "-h", "-o", "%P %l %D %T"]).stdout
    assert sorted(l.split() for l in out.splitlines()) == [
        ["debug*", "infinite", "1", "idle"], ["short", "5:00", "1", "idle"]], out


def test_time_over_max_time_refused(lcluster, workdir):
    cp = lcluster.run(["sbatch", "-p", "short", "-t", "10", "--wrap", "true"], cwd=workdir,
                      check=False)
    assert cp.returncode != 0, cp.stdout
    assert "sbatch: error: Batch job submission failed: Requested time limit is invalid " \
           "(missing or exceeds some limit)" in cp.stderr, cp.stderr


def test_time_within_max_time_accepted(lcluster, workdir):
    job = lcluster.sbatch(["-p", "short", "-t", "2"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert lcluster.field(job, "%l") == "2:00"
    lcluster.wait_state(job, "COMPLETED")
    # Without -t a job gets the partition's limit.
    job = lcluster.sbatch(["-p", "short"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert lcluster.field(job, "%l") == "5:00"
    assert lcluster.field(job, "%P") == "short"
    lcluster.wait_state(job, "COMPLETED")


@pytest.mark.parametrize("spec,shown", [("90", "1:30:00"), ("1:30", "2:00"),
                                        ("1-0", "1-00:00:00"), ("2:03:04", "2:04:00")])
def test_time_formats(lcluster, workdir, spec, shown):
    """Slurm rounds seconds up to whole minutes."""
    job = lcluster.sbatch(["--hold", "-t", spec], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert lcluster.field(job, "%l") == shown
    lcluster.run(["scancel", str(job)])
