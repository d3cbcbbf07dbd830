"""Multifactor priority on a live cluster: sprio's factors and columns,
squeue --start's expected starts, the reason's plain words, jobs starting in
priority order, and sshare's tree with GPU-weighted usage."""

import os
import re
import time

import pytest

from helpers import cluster_fixture, open_dir, wait_for

UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "PriorityWeightAge=1000", "--set", "PriorityWeightFairshare=10000",
      "--set", "PriorityWeightJobSize=100", "--set", "PriorityWeightQOS=2000",
      "--set", "PriorityCalcPeriod=1", "--set", "MinJobAge=600"]

ASSOC = """# herd-assoc.conf: two accounts, one user each
Account=gold FairShare=90
Account=lead FairShare=10
User=herdtest1 Account=gold FairShare=1
User=herdtest2 Account=lead FairShare=1
QOS=high Priority=100
QOS=normal Priority=0
"""

START_HEADER = ("             JOBID PARTITION     NAME     USER ST          START_TIME  NODES "
                "SCHEDNODES           NODELIST(REASON)")


@pytest.fixture(scope="module")
def pcluster(tmp_path_factory, users):
    def prepare(c):
        with open(os.path.join(c.dir, "herd-assoc.conf"), "w") as f:
            f.write(ASSOC)
    gen = cluster_fixture(tmp_path_factory, "prio", UP, prepare=prepare)
    c = next(gen)
    try:
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture(scope="module")
def queue(pcluster, tmp_path_factory):
    """A blocker holding both GPUs, then three jobs that each need both:
    herdtest2 normal, herdtest1 --nice=500, herdtest1 -q high."""
    wd = tmp_path_factory.mktemp("prio-jobs")
    open_dir(wd)
    c = pcluster
    block = c.sbatch(["-G", "2", "-t", "1", "-J", "blocker"], cwd=str(wd),
                     script="#!/bin/sh\nsleep 6\n")
    c.wait_state(block, "RUNNING", 20)
    job = "#!/bin/sh\nsleep 1\n"
    plain = c.sbatch(["-G", "2", "-t", "1"], cwd=str(wd), script=job, user="herdtest2")
    nice = c.sbatch(["-G", "2", "-t", "1", "--nice=500"], cwd=str(wd), script=job,
                    user="herdtest1")
    high = c.sbatch(["-G", "2", "-t", "1", "-q", "high"], cwd=str(wd), script=job,
                    user="herdtest1")
    time.sleep(1.5)     # a pass sets reasons and estimates
    return {"block": block, "plain": plain, "nice": nice, "high": high}


def sprio_rows(c, args=()):
    out = c.run(["sprio"] + list(args)).stdout.splitlines()
    return out[0].split(), [l.split() for l in out[1:]]


def test_sprio_columns_and_factors(pcluster, queue):
    c = pcluster
    header, rows = sprio_rows(c)
    # zero-weight factors (ASSOC, PARTITION, TRES) are left out, as in Slurm
    assert header == ["JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "FAIRSHARE", "JOBSIZE",
                      "QOS"], header
    by_id = {int(r[0]): r for r in rows}
    assert set(by_id) == {queue["plain"], queue["nice"], queue["high"]}, rows
    prio = {k: int(by_id[queue[k]][2]) for k in ("plain", "nice", "high")}
    qos = {k: int(by_id[queue[k]][7]) for k in ("plain", "nice", "high")}
    assert qos["high"] == 2000 and qos["plain"] == 0, rows
    assert prio["high"] > prio["plain"], rows
    # the nice job is herdtest1's too: same factors as high but QOS, minus 500
    assert prio["high"] - 2000 - 500 == prio["nice"], rows
    for r in rows:
        assert 0 <= int(r[5]) <= 10000 and 0 < int(r[6]) <= 100, r


def test_sprio_options(pcluster, queue):
    c = pcluster
    header, rows = sprio_rows(c, ["-l"])
    assert header[:4] == ["JOBID", "PARTITION", "USER", "ACCOUNT"] and "NICE" in header, header
    nice_row = [r for r in rows if int(r[0]) == queue["nice"]][0]
    assert nice_row[2:4] == ["herdtest", "gold"]   # %.8u cuts, as in Slurm
    assert nice_row[header.index("NICE")] == "500"
    _, rows = sprio_rows(c, [f"-j{queue['high']}"])
    assert [int(r[0]) for r in rows] == [queue["high"]]
    _, rows = sprio_rows(c, ["-u", "herdtest2"])
    assert [int(r[0]) for r in rows] == [queue["plain"]]
    _, rows = sprio_rows(c, ["-w"])
    assert rows == [["Weights", "1", "1000", "10000", "100", "2000"]], rows
    _, rows = sprio_rows(c, ["-n", f"-j{queue['high']}"])
    assert all(0.0 <= float(v) <= 1.0 for v in rows[0][2:]), rows


def test_squeue_start(pcluster, queue):
    c = pcluster
    out = c.run(["squeue", "--start"]).stdout.splitlines()
    assert out[0] == START_HEADER, out
    ids = [int(l.split()[0]) for l in out[1:]]
    assert set(ids) == {queue["plain"], queue["nice"], queue["high"]}, out
    first = out[1].split()
    assert int(first[0]) == queue["high"], out        # highest priority starts first
    t = time.mktime(time.strptime(first[5], "%Y-%m-%dT%H:%M:%S"))
    assert time.time() - 5 <= t <= time.time() + 180, out
    assert first[8] == "(Resources)", out
    # every pending job has an expected start, in the order they will run
    starts = [time.mktime(time.strptime(l.split()[5], "%Y-%m-%dT%H:%M:%S")) for l in out[1:]]
    assert starts == sorted(starts) and starts[-1] > starts[0], out
    j = c.api_job(queue["high"])
    assert "needs 2 GPUs" in j["reason_text"] and "expected start" in j["reason_text"], j
    assert f"when job {queue['block']} ends" in j["reason_text"], j
    assert c.api_job(queue["plain"])["reason"] == "Priority"


def test_start_order_follows_priority(pcluster, queue):
    c = pcluster
    ids = [queue["high"], queue["plain"], queue["nice"]]

    def done():
        return all(c.state(i) == "COMPLETED" for i in ids)
    wait_for(done, 40, "the queued jobs to complete")
    starts = [c.api_job(i)["start_time"] for i in ids]
    assert starts == sorted(starts), (ids, starts)


def test_sshare(pcluster, queue):
    c = pcluster
    wait_for(lambda: c.state(queue["block"]) == "COMPLETED", 30, "the blocker to end")
    out = c.run(["sshare", "-a"]).stdout.splitlines()
    assert out[0].split() == ["Account", "User", "RawShares", "NormShares", "RawUsage",
                              "EffectvUsage", "FairShare"], out
    assert re.fullmatch(r"-{20} -{10} -{10} -{11} -{11} -{13} -{10}", out[1]), out
    rows = {(l[:20].strip(), l[21:31].strip()): l.split() for l in out[2:]}
    # siblings under root: gold 90, lead 10 and root's own user (1 share)
    assert rows[("gold", "")][1:3] == ["90", "%f" % (90 / 101)], out
    assert rows[("lead", "")][1:3] == ["10", "%f" % (10 / 101)], out
    # the blocker held 2 GPUs for ~6 s: GPU-weighted, far above its 1 CPU-second rate
    root_user = rows[("root", "root")]
    assert int(root_user[4]) >= 2 * 16 * 4, out
    assert float(root_user[-1]) > 0, out
    mine = c.run(["sshare"], user="herdtest1").stdout.splitlines()
    users = {l[21:31].strip() for l in mine[2:]} - {""}
    assert users == {"herdtest1"}, mine
    long = c.run(["sshare", "-l", "-u", "herdtest2"]).stdout.splitlines()
    assert "LevelFS" in long[0].split() and "NormUsage" in long[0].split(), long
