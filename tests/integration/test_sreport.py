"""sreport on a cluster of its own: AccountUtilizationByUser with
--tres=gres/gpu adds up to the GPU time of the jobs run (as sacct records
them), account totals include their sub-accounts, and the banner, header
and refusals are Slurm's."""
import time

import pytest

from helpers import cluster_fixture, open_dir

UP = ["--nodes", "1", "--gpus-per-node", "4"]


@pytest.fixture(scope="module")
def rcluster(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "sreport", UP)
    c = next(gen)
    for args in (["account", "phys"], ["account", "hep", "parent=phys"],
                 ["user", "herdtest1", "account=hep"], ["user", "herdtest2", "account=phys"]):
        c.run(["sacctmgr", "-i", "add", *args])
    wd = tmp_path_factory.mktemp("sreport-jobs")
    open_dir(wd)
    c.jobs = [c.sbatch(["-G", "2", "-c", "2"], cwd=str(wd), script="#!/bin/sh\nsleep 2\n",
                       user="herdtest1"),
              c.sbatch(["-G", "1"], cwd=str(wd), script="#!/bin/sh\nsleep 1\n",
                       user="herdtest2")]
    for j in c.jobs:
        c.wait_state(j, "COMPLETED", timeout=30)
    try:
        yield c
    finally:
        for _ in gen:
            pass


def window(c):
    """The whole hours around the jobs' runs."""
    out = c.run(["sacct", "-a", "-X", "-n", "-P", "-o", "Start,End", "-j",
                 ",".join(map(str, c.jobs))]).stdout.split()
    times = [time.mktime(time.strptime(t, "%Y-%m-%dT%H:%M:%S"))
             for row in out for t in row.split("|")]
    start, end = int(min(times)) // 3600 * 3600, (int(max(times)) // 3600 + 1) * 3600
    fmt = "%Y-%m-%dT%H:%M:%S"
    return (f"start={time.strftime(fmt, time.localtime(start))}",
            f"end={time.strftime(fmt, time.localtime(end))}", end - start)


def gpu_seconds(c, user):
    rows = c.run(["sacct", "-a", "-X", "-n", "-P", "-u", user, "-o", "ElapsedRaw,AllocTRES",
                  "-j", ",".join(map(str, c.jobs))]).stdout.split()
    total = 0
    for row in rows:
        secs, tres = row.split("|")
        gpus = [int(t.split("=")[1]) for t in tres.split(",") if t.startswith("gres/gpu=")]
        total += int(secs) * (gpus[0] if gpus else 0)
    return total


def test_gpu_time_by_account_and_user(rcluster):
    c = rcluster
    start, end, secs = window(c)
    out = c.run(["sreport", "-t", "seconds", "--tres=gres/gpu", "cluster",
                 "AccountUtilizationByUser", start, end]).stdout.splitlines()
    assert out[0] == out[3] == "-" * 80
    assert out[1].startswith("Cluster/Account/User Utilization ") and \
        out[1].endswith(f" ({secs} secs)"), out[1]
    assert out[2] == "Usage reported in TRES Seconds"
    assert out[4] == ("  Cluster         Account     Login     Proper Name      TRES Name"
                      "     Used ")
    rows = {tuple(l.split()[1:-2]): int(l.split()[-1]) for l in out[6:]}
    one, two = gpu_seconds(c, "herdtest1"), gpu_seconds(c, "herdtest2")
    assert one > 0 and two > 0
    assert rows[("hep", "herdtest1")] == one, out
    assert rows[("phys", "herdtest2")] == two, out
    assert rows[("hep",)] == one, out
    assert rows[("phys",)] == one + two, "an account's total includes its sub-accounts"
    assert rows[("root",)] == one + two


def test_parsable_top_and_utilization(rcluster):
    c = rcluster
    start, end, secs = window(c)
    out = c.run(["sreport", "-n", "-P", "-t", "seconds", "--tres=gres/gpu", "user", "top",
                 start, end]).stdout.splitlines()
    assert out[0] == f"herd|herdtest1||hep|gres/gpu|{gpu_seconds(c, 'herdtest1')}", out
    util = c.run(["sreport", "-n", "-P", "-t", "seconds", "--tres=gres/gpu", "cluster",
                  "utilization", start, end]).stdout.splitlines()
    used = gpu_seconds(c, "herdtest1") + gpu_seconds(c, "herdtest2")
    assert util == [f"herd|gres/gpu|{used}|0|0|{4 * secs - used}|0|{4 * secs}"], util


def test_bad_report(rcluster):
    cp = rcluster.run(["sreport", "cluster", "bogus"], check=False)
    assert cp.returncode == 1 and cp.stderr.startswith("Not valid report bogus\n")


def test_billing_is_what_fair_share_charges(rcluster):
    """sacct's billing TRES is the partition's billing weights times what the
    job held: Herd's default weighs a GPU as max(16, the node's CPUs per GPU)."""
    c = rcluster
    cpus = int(c.run(["sinfo", "-h", "-o", "%c"]).stdout.split()[0])
    gpu_weight = max(16.0, cpus / 4)
    tres = c.run(["sacct", "-n", "-P", "-X", "-j", str(c.jobs[0]), "-o",
                  "AllocTRES"]).stdout.strip()
    billing = int(2 + 2 * gpu_weight + 0.5)
    assert tres.startswith(f"billing={billing},cpu=2,gres/gpu=2,"), tres
    start, end, _ = window(c)
    secs = int(c.run(["sacct", "-n", "-P", "-X", "-j", str(c.jobs[0]), "-o",
                      "ElapsedRaw"]).stdout)
    rows = c.run(["sreport", "-n", "-P", "-t", "seconds", "--tres=billing", "cluster",
                  "UserUtilizationByAccount", "users=herdtest1", start, end]).stdout
    assert rows == f"herd|herdtest1||hep|billing|{billing * secs}\n", rows
