"""Reservations as the commands show them, on a 2-node cluster of its own
(reservations made with Herd's scontrol): sinfo -T's table, node states
in a MAINT and in a plain reservation, a job's reservation in squeue,
scontrol show job and sacct, and sreport reservation Utilization. The
layouts are Slurm 22.05's (slurm-ref, 2026-12); where real Slurm runs on
this machine, sinfo -T is compared with it line for line."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from helpers import cluster_fixture, open_dir, wait_for

UP = ["--nodes", "2", "--gpus-per-node", "2"]
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"
HEADER = "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST"


@pytest.fixture(scope="module")
def rc(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "resv", UP)
    c = next(gen)
    c.wd = str(tmp_path_factory.mktemp("resv-jobs"))
    open_dir(c.wd)
    try:
        yield c
    finally:
        for _ in gen:
            pass


def create(c, *args):
    """scontrol create reservation ARGS; its name."""
    cp = c.run(["scontrol", "create", "reservation", *args])
    m = re.fullmatch(r"Reservation created: (\S+)\n", cp.stdout)
    assert m, cp.stdout + cp.stderr
    return m.group(1)


def delete(c, name):
    c.run(["scontrol", "delete", "reservation", name])


def states(c):
    """node -> (%t, %T)."""
    out = c.run(["sinfo", "-h", "-N", "-o", "%N %t %T"]).stdout.split("\n")
    return {l.split()[0]: tuple(l.split()[1:]) for l in out if l.strip()}


def test_sinfo_T_none_and_future(rc):
    c = rc
    cp = c.run(["sinfo", "-T"])
    assert cp.stdout == "No reservations in the system\n" and cp.returncode == 0
    name = create(c, "ReservationName=later", "StartTime=now+1hour", "Duration=90",
                  "Nodes=node1", "Users=root")
    try:
        out = c.run(["sinfo", "-T"]).stdout.splitlines()
        assert out[0] == HEADER
        assert re.fullmatch(rf"later      INACTIVE  {STAMP}  {STAMP}     01:30:00  node1",
                            out[1]), out
        assert c.run(["sinfo", "--reservation", "-h"]).stdout.splitlines() == out[1:]
        # nothing changes for the nodes before it starts
        assert states(c)["node1"] == ("idle", "idle")
        # as Slurm: an infinite one ends a year after its start
        forever = create(c, "ReservationName=forever", "StartTime=now+2days",
                         "Duration=infinite", "Nodes=node2", "Users=root")
        row = [l for l in c.run(["sinfo", "-T"]).stdout.splitlines() if "forever" in l]
        delete(c, forever)
        m = re.fullmatch(rf"forever    INACTIVE  ({STAMP})  ({STAMP})  365-00:00:00  node2", row[0])
        assert m, row
        start, end = (time.mktime(time.strptime(t, "%Y-%m-%dT%H:%M:%S")) for t in m.groups())
        assert abs(end - start - 365 * 86400) <= 3600, row   # a DST change may fall between
    finally:
        delete(c, name)


def test_maint_and_plain_reservation_states(rc):
    c = rc
    maint = create(c, "ReservationName=fix", "StartTime=now", "Duration=30", "Nodes=node2",
                   "Users=root", "Flags=MAINT")
    plain = create(c, "ReservationName=lab", "StartTime=now", "Duration=30", "Nodes=node1",
                   "Users=root")
    try:
        wait_for(lambda: states(c) == {"node1": ("resv", "reserved"),
                                       "node2": ("maint", "maint")},
                 20, "nodes shown in their reservations")
        show = c.run(["scontrol", "show", "node", "node2"]).stdout
        assert "   State=IDLE+MAINTENANCE+RESERVED " in show, show
        assert "   State=IDLE+RESERVED " in c.run(["scontrol", "show", "node", "node1"]).stdout
        assert c.run(["sinfo", "-h", "-N", "-t", "maint", "-o", "%N"]).stdout == "node2\n"
        assert c.run(["sinfo", "-h", "-N", "-t", "resv", "-o", "%N"]).stdout == \
            "node1\nnode2\n"
        out = c.run(["sinfo", "-T"]).stdout.splitlines()
        assert [l.split()[:2] for l in out[1:]] == [["fix", "ACTIVE"], ["lab", "ACTIVE"]] or \
            [l.split()[:2] for l in out[1:]] == [["lab", "ACTIVE"], ["fix", "ACTIVE"]], out
        j = c.sbatch(["--reservation=fix", "-w", "node2", "-c", "1"], cwd=c.wd,
                     script="#!/bin/sh\nsleep 3\n")
        c.wait_state(j, "RUNNING", timeout=30)
        assert states(c)["node2"] == ("mix$", "mixed$")
        assert c.field(j, "%v") == "fix"
        assert c.run(["squeue", "-h", "-R", "fix", "-o", "%i"]).stdout == f"{j}\n"
        assert c.run(["squeue", "-h", "-R", "lab", "-o", "%i"]).stdout == ""
        assert c.run(["squeue", "-O", "reservation", "-j", str(j)]).stdout == \
            f"{'RESERVATION':<20}\n{'fix':<20}\n"
        jobs = json.loads(c.run(["squeue", "--json", "-j", str(j)]).stdout)["jobs"]
        assert [x["resv_name"] for x in jobs] == ["fix"]
        show = c.run(["scontrol", "show", "job", str(j)]).stdout.splitlines()
        at = [i for i, l in enumerate(show) if l.startswith("   Features=")][0]
        assert show[at + 1] == "   Reservation=fix", show
        c.wait_state(j, "COMPLETED", timeout=30)
        out = c.run(["sacct", "-X", "-n", "-P", "-j", str(j), "-o",
                     "Reservation,ReservationId"]).stdout
        assert re.fullmatch(r"fix\|\d+\n", out), out
        table = c.run(["sacct", "-X", "-j", str(j), "-o", "Reservation,ReservationId"]).stdout
        assert table.splitlines()[:2] == ["         Reservation Reservat ",
                                          "-------------------- -------- "], table
        assert re.fullmatch(r" {17}fix +\d+ ", table.splitlines()[2]), table
        other = c.sbatch(["-w", "node1", "--reservation=lab"], cwd=c.wd,
                         script="#!/bin/sh\ntrue\n")
        c.wait_state(other, "COMPLETED", timeout=30)
        assert "Reservation=" not in c.run(["scontrol", "show", "job", str(j + 100000)],
                                           check=False).stdout
    finally:
        delete(c, maint)
        delete(c, plain)
    wait_for(lambda: states(c) == {"node1": ("idle", "idle"), "node2": ("idle", "idle")},
             20, "nodes idle again")


def test_job_without_reservation(rc):
    c = rc
    j = c.sbatch([], cwd=c.wd, script="#!/bin/sh\ntrue\n")
    c.wait_state(j, "COMPLETED", timeout=30)
    assert c.field(j, "%v") == "(null)"
    assert not [l for l in c.run(["scontrol", "show", "job", str(j)]).stdout.splitlines()
                if "Reservation=" in l]
    assert c.run(["sacct", "-X", "-n", "-P", "-j", str(j), "-o",
                  "Reservation,ReservationId"]).stdout == "|\n"


def test_sreport_reservation_utilization(rc):
    c = rc
    # the report's hours hold the whole reservation, even one that starts
    # just before an hour turns (CI met it: created 00:59:58, gone 01:00:00)
    hour = int(time.time()) // 3600 * 3600
    name = create(c, "ReservationName=demo", "StartTime=now", "Duration=10", "Nodes=node1",
                  "Users=root")
    j = c.sbatch(["--reservation=demo", "-w", "node1", "-c", "2"], cwd=c.wd,
                 script="#!/bin/sh\nsleep 2\n")
    c.wait_state(j, "COMPLETED", timeout=30)
    delete(c, name)
    elapsed = int(c.run(["sacct", "-X", "-n", "-P", "-j", str(j), "-o",
                         "ElapsedRaw"]).stdout)
    fmt = "%Y-%m-%dT%H:%M:%S"
    period = [f"start={time.strftime(fmt, time.localtime(hour))}",
              f"end={time.strftime(fmt, time.localtime(hour + 7200))}"]
    out = c.run(["sreport", "-t", "seconds", "reservation", "utilization",
                 *period]).stdout.splitlines()
    assert out[0] == out[3] == "-" * 80
    assert out[1].startswith("Reservation Utilization ")
    assert out[2] == "Usage reported in TRES Seconds"
    assert out[4] == ("  Cluster      Name               Start                 End      "
                      "TRES Name            Allocated                 Idle ")
    rows = [l.split() for l in out[6:] if l.split()[1] == "demo"]
    assert len(rows) == 1 and rows[0][4] == "cpu", out
    assert int(rows[0][5]) == 2 * elapsed, out
    p = c.run(["sreport", "-n", "-P", "-t", "percent", "reservation", "utilization",
               *period]).stdout.splitlines()
    row = [l.split("|") for l in p if "|demo|" in l][0]
    assert float(row[5].rstrip("%")) + float(row[6].rstrip("%")) == pytest.approx(100, abs=0.02)


def slurm_ref():
    """Real Slurm's sinfo answers, as root: the comparison can run."""
    if os.geteuid() != 0 or not shutil.which("sinfo", path="/usr/bin"):
        return False
    try:
        return subprocess.run(["/usr/bin/sinfo", "-h"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not slurm_ref(), reason="no real Slurm answering on this machine")
def test_sinfo_T_as_slurm(rc):
    """The same future reservation in both (one core on Slurm's node, so no
    one's jobs there wait for it): the lines match but for the node names."""
    c = rc
    slurm = "/usr/bin/scontrol"
    common = ["StartTime=now+300days", "Duration=2-03:04:05", "Users=root"]
    subprocess.run([slurm, "create", "reservation", "ReservationName=herd_cmp_resv_view",
                    *common, "CoreCnt=1", "Nodes=vm"], capture_output=True, timeout=20)
    name = create(c, "ReservationName=herd_cmp_resv_view", *common, "Nodes=node1")
    try:
        want = subprocess.run(["/usr/bin/sinfo", "-T"], capture_output=True, text=True,
                              timeout=20).stdout.splitlines()
        got = c.run(["sinfo", "-T"]).stdout.splitlines()
        want = [l for l in want if "herd_cmp_resv_view" in l or l.startswith("RESV_NAME")]
        assert len(want) == 2, want
        # the name column's width depends on every name listed: compare past it
        rest = lambda l: re.sub(STAMP, "T", re.sub(r"^\S+ +", "", l).rsplit(None, 1)[0])
        assert rest(got[0]) == rest(want[0])
        assert rest(got[1]) == rest(want[1])
        assert got[1].startswith("herd_cmp_resv_view  INACTIVE  ")
    finally:
        subprocess.run([slurm, "delete", "reservation", "herd_cmp_resv_view"],
                       capture_output=True, timeout=20)
        delete(c, name)


def test_sreport_gpu_reservation(rc):
    """A lab's GPUs held for a demo: -T gres/gpu reports GPU time in it."""
    c = rc
    hour = int(time.time()) // 3600 * 3600   # before it: as above
    name = create(c, "ReservationName=gpudemo", "StartTime=now", "Duration=10",
                  "TRES=gres/gpu=2", "Nodes=node2", "Users=root")
    try:
        j = c.sbatch(["--reservation=gpudemo", "-G", "1"], cwd=c.wd,
                     script="#!/bin/sh\nsleep 2\n")
        c.wait_state(j, "COMPLETED", timeout=30)
    finally:
        delete(c, name)
    elapsed = int(c.run(["sacct", "-X", "-n", "-P", "-j", str(j), "-o",
                         "ElapsedRaw"]).stdout)
    fmt = "%Y-%m-%dT%H:%M:%S"
    period = [f"start={time.strftime(fmt, time.localtime(hour))}",
              f"end={time.strftime(fmt, time.localtime(hour + 7200))}"]
    out = c.run(["sreport", "-n", "-P", "-t", "seconds", "-T", "gres/gpu", "reservation",
                 "utilization", *period]).stdout.splitlines()
    rows = [l.split("|") for l in out if l.split("|")[1] == "gpudemo"]
    assert len(rows) == 1 and rows[0][4] == "gres/gpu", out
    assert int(rows[0][5]) == elapsed, out
    # the second GPU, and both after the job, held for nothing: idle
    assert int(rows[0][6]) > 0, out
