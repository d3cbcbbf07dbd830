"""Advance reservations: scontrol create/update/delete/show reservation with
Slurm 22.05's words and layout, their errors, durability across a controller
restart, and what they do to jobs (--reservation, access, a maintenance
window, GPUs held for a course)."""

import os
import re
import shutil
import signal
import subprocess
import time

import pytest

from helpers import FINAL_STATES, cluster_fixture, pid_alive, wait_for

UP = ["--nodes", "2", "--gpus-per-node", "4", "--cpus-per-node", "8", "--mem-per-node", "8000",
      "--set", "SlurmdTimeout=6", "--set", "KillWait=2"]
SLEEP = "#!/bin/sh\nexec /bin/sleep 300\n"
NOTE = ("Note, unless nodes are directly requested a reservation must exist in a single "
        "partition.\nIf no partition is requested the default partition is assumed.\n")


@pytest.fixture(scope="module")
def rcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "resv", UP)


@pytest.fixture
def rc(rcluster):
    """The module's cluster, left with no reservations and no jobs."""
    yield rcluster
    left = rcluster.cancel_all()
    if left:
        wait_for(lambda: all(rcluster.state(i) in FINAL_STATES | {""} for i in left), 30,
                 f"jobs {left} to end after scancel")
    st, body = rcluster.api("GET", "/v1/reservations")
    for r in body.get("reservations", []):
        rcluster.run(["scontrol", "delete", "reservation", r["name"]], check=False)


def scontrol(c, *args, user=None):
    return c.run(["scontrol"] + list(args), user=user, check=False)


def kv(text):
    out = {}
    for word in text.split():
        k, sep, v = word.partition("=")
        if sep:
            out.setdefault(k, v)
    return out


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


def reason(c, job):
    return c.field(job, "%r")


def kill_controller(c):
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")


def test_round_trip(rc):
    cp = scontrol(rc, "create", "reservation", "ReservationName=maint1", "StartTime=now+1hour",
                  "Duration=60", "Nodes=node1", "Users=root", "Flags=MAINT,IGNORE_JOBS")
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "Reservation created: maint1\n", "")
    st, body = rc.api("GET", "/v1/reservations/maint1")
    r = body["reservations"][0]
    assert r["duration_s"] == 3600 and r["end_time"] - r["start_time"] == 3600, r
    out = scontrol(rc, "show", "reservation", "maint1").stdout
    assert out == (
        f"ReservationName=maint1 StartTime={iso(r['start_time'])} EndTime={iso(r['end_time'])}"
        " Duration=01:00:00\n"
        "   Nodes=node1 NodeCnt=1 CoreCnt=8 Features=(null) PartitionName=(null)"
        " Flags=MAINT,IGNORE_JOBS,SPEC_NODES\n"
        "   TRES=cpu=8\n"
        "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE"
        " BurstBuffer=(null) Watts=n/a\n"
        "   MaxStartDelay=(null)\n\n"), out
    assert scontrol(rc, "show", "res=maint1").stdout == out
    one = scontrol(rc, "-o", "show", "res").stdout
    assert one == out.replace("\n   ", " ").replace("\n\n", "\n"), one
    cp = scontrol(rc, "update", "ReservationName=maint1", "Duration=2:00:00", "Users=herdtest1")
    assert (cp.returncode, cp.stdout) == (0, "Reservation updated.\n"), cp.stderr
    f = kv(scontrol(rc, "show", "res", "maint1").stdout)
    assert f["Duration"] == "02:00:00" and f["Users"] == "herdtest1", f
    cp = scontrol(rc, "delete", "reservation", "maint1")
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "", "")
    cp = scontrol(rc, "show", "res", "maint1")
    assert (cp.returncode, cp.stdout) == (1, "Reservation maint1 not found\n")
    assert scontrol(rc, "show", "res").stdout == "No reservations in the system\n"
    # kept for accounting, marked deleted
    st, body = rc.api("GET", "/v1/reservations?all=1")
    gone = [x for x in body["reservations"] if x["name"] == "maint1"]
    assert gone and gone[-1]["deleted"] and gone[-1]["deleted_time"] > 0, body


def test_unnamed_names_and_ids(rc):
    first = scontrol(rc, "create", "res", "StartTime=now+2hours", "Duration=10", "NodeCnt=1",
                     "Users=root")
    second = scontrol(rc, "create", "res", "StartTime=now+2hours", "Duration=10",
                      "NodeCnt=1", "Accounts=root")
    m1 = re.fullmatch(r"Reservation created: root_(\d+)\n", first.stdout)
    m2 = re.fullmatch(r"Reservation created: root_(\d+)\n", second.stdout)
    assert m1 and m2, (first, second)
    assert int(m2.group(1)) == int(m1.group(1)) + 1
    st, body = rc.api("GET", "/v1/reservations")
    nodes = sorted(r["nodes"] for r in body["reservations"])
    assert nodes == ["node1", "node2"], body   # NodeCnt picks a node no other one holds
    # as slurm-ref: chosen nodes come from the default partition, which it shows
    assert {r["partition"] for r in body["reservations"]} == {"debug"}, body
    assert "Flags=SPEC_NODES" not in scontrol(rc, "show", "res").stdout


def test_errors(rc, workdir):
    base = ["create", "reservation", "Nodes=node1", "Users=root"]
    cases = [
        (["Duration=10"], "scontrol: error: A start time must be given.  No reservation created.\n"),
        (["StartTime=now"],
         "scontrol: error: An end time or duration must be given.  No reservation created.\n"),
        (["StartTime=now", "Duration=10", "Flags=MAINT,BOGUS"],
         "scontrol: error: Error parsing flags BOGUS.  No reservation created.\n"),
        (["StartTime=now", "Duration=10", "Foo=bar"],
         "scontrol: error: Unknown parameter Foo=bar.  No reservation created.\n"),
        (["StartTime=now", "Duration=abc"],
         "scontrol: error: Invalid duration Duration=abc.  No reservation created.\n"),
        (["StartTime=now", "Duration=10", "Users=nosuchuser"],
         "Error creating the reservation: Invalid user id\n"),
        (["StartTime=now", "Duration=10", "Accounts=nosuchacct"],
         "Error creating the reservation: Invalid account or account/partition combination "
         "specified\n"),
    ]
    for extra, err in cases:
        args = base + extra if not any(a.startswith("Users=") for a in extra) else \
            ["create", "reservation", "Nodes=node1"] + extra
        cp = scontrol(rc, *args)
        assert (cp.returncode, cp.stderr) == (1, err), (extra, cp)
    cp = scontrol(rc, "create", "res", "StartTime=now", "Duration=10", "Nodes=node1")
    assert cp.stderr == ("scontrol: error: Either Users/Groups and/or Accounts must be "
                         "specified.  No reservation created.\n"), cp
    # busy: a job runs on node2 past the start
    job = rc.sbatch(["-w", "node2", "-t", "30"], cwd=workdir, script=SLEEP)
    rc.wait_state(job, "RUNNING")
    cp = scontrol(rc, "create", "res", "StartTime=now", "Duration=10", "Nodes=node2",
                  "Users=root")
    assert (cp.returncode, cp.stderr, cp.stdout) == (
        1, "Error creating the reservation: Requested nodes are busy\n", NOTE), cp
    cp = scontrol(rc, "create", "res", "ReservationName=ij", "StartTime=now", "Duration=10",
                  "Nodes=node2", "Users=root", "Flags=IGNORE_JOBS")
    assert cp.returncode == 0, cp
    # overlap, unless OVERLAP or MAINT
    cp = scontrol(rc, "create", "res", "StartTime=now+5minutes", "Duration=10", "Nodes=node2",
                  "Users=root", "Flags=IGNORE_JOBS")
    assert (cp.returncode, cp.stderr) == (
        1, "Error creating the reservation: Requested reservation overlaps with another "
           "reservation\n"), cp
    cp = scontrol(rc, "create", "res", "ReservationName=ov", "StartTime=now+5minutes",
                  "Duration=10", "Nodes=node2", "Users=root", "Flags=IGNORE_JOBS,OVERLAP")
    assert cp.returncode == 0, cp
    # the job IGNORE_JOBS let stay on node2 does not keep others off node1
    other = rc.sbatch(["-c", "8"], cwd=workdir, script=SLEEP)
    rc.wait_state(other, "RUNNING")
    assert rc.field(other, "%N") == "node1"
    # only root (or SlurmUser) changes reservations
    cp = scontrol(rc, "create", "res", "StartTime=now+3hours", "Duration=10", "Nodes=node1",
                  "Users=root", user="herdtest1")
    assert (cp.returncode, cp.stderr) == (1, "Error creating the reservation: Invalid user id\n")
    cp = scontrol(rc, "delete", "res", "ij", user="herdtest1")
    assert (cp.returncode, cp.stderr) == (1, "delete_reservation res: Invalid user id\n")
    cp = scontrol(rc, "update", "ReservationName=ij", "Duration=5", user="herdtest1")
    assert cp.stderr == ("Error updating the reservation: Invalid user id\n"
                         "slurm_update error: Invalid user id\n"), cp
    cp = scontrol(rc, "delete", "reservation", "nosuch")
    assert (cp.returncode, cp.stderr) == (
        1, "delete_reservation reservation: Requested reservation is invalid\n")
    cp = rc.run(["sbatch", "--reservation=nosuch", "--wrap", "true"], check=False, cwd=workdir)
    assert cp.stderr == "sbatch: error: Batch job submission failed: Requested reservation is " \
                        "invalid\n", cp


def test_durable_across_restart(rc):
    cp = scontrol(rc, "create", "res", "ReservationName=keep", "StartTime=now+1day",
                  "Duration=1-00:00:00", "Nodes=node1", "Users=herdtest1",
                  "Flags=WEEKLY,IGNORE_JOBS")
    assert cp.returncode == 0, cp
    before = scontrol(rc, "show", "res", "keep").stdout
    st, body = rc.api("GET", "/v1/reservations/keep")
    kept_id = body["reservations"][0]["id"]
    kill_controller(rc)
    rc.up()
    assert scontrol(rc, "show", "res", "keep").stdout == before
    assert "Flags=IGNORE_JOBS,WEEKLY,SPEC_NODES" in before, before
    # ids are never reused
    cp = scontrol(rc, "create", "res", "StartTime=now+3days", "Duration=10", "Nodes=node2",
                  "Users=root")
    assert cp.returncode == 0, cp
    st, body = rc.api("GET", "/v1/reservations")
    ids = [r["id"] for r in body["reservations"]]
    assert max(ids) > kept_id, body


def test_user_reservation(rc, workdir):
    """A reservation starting now for herdtest1 on node1: their job with
    --reservation runs there; herdtest2's is refused, and herdtest2's jobs
    without it stay off node1."""
    cp = scontrol(rc, "create", "res", "ReservationName=lab", "StartTime=now", "Duration=60",
                  "Nodes=node1", "Users=herdtest1")
    assert cp.returncode == 0, cp
    st, nodes = rc.api("GET", "/v1/nodes")
    held = {n["name"]: n.get("reservation") for n in nodes["nodes"]}
    assert held == {"node1": "lab", "node2": None}, held
    mine = rc.sbatch(["--reservation=lab", "-c", "2"], cwd=workdir, script=SLEEP,
                     user="herdtest1")
    cp = rc.run(["sbatch", "--reservation=lab", "--wrap", "true"], user="herdtest2",
                cwd=workdir, check=False)
    assert cp.stderr == ("sbatch: error: Batch job submission failed: Access denied to "
                         "requested reservation\n"), cp
    # the directive and SBATCH_RESERVATION name it too
    by_directive = rc.sbatch([], cwd=workdir, user="herdtest1",
                             script="#!/bin/sh\n#SBATCH --reservation=lab\n#SBATCH -c 1\n"
                                    "exec /bin/sleep 300\n")
    by_env = rc.sbatch(["-c", "1"], cwd=workdir, script=SLEEP, user="herdtest1",
                       extra_env={"SBATCH_RESERVATION": "lab"})
    for j in (by_directive, by_env):
        assert rc.api_job(j).get("reservation") == "lab", rc.job_debug(j)
        rc.wait_state(j, "RUNNING")
        assert rc.field(j, "%N") == "node1"
    rc.wait_state(mine, "RUNNING")
    assert rc.field(mine, "%N") == "node1"
    j = rc.api_job(mine)
    assert j["reservation"] == "lab" and j["reservation_id"] > 0, j
    others = [rc.sbatch(["-c", "8"], cwd=workdir, script=SLEEP, user="herdtest2")
              for _ in range(2)]
    try:
        rc.wait_state(others[0], "RUNNING")
    except BaseException:
        print(rc.run(["squeue", "-t", "all", "-o", "%i %u %T %N %r"]).stdout)
        print(rc.api("GET", "/v1/reservations?all=1"))
        raise
    time.sleep(3)   # a pass or two: the second must not take node1
    assert rc.field(others[0], "%N") == "node2"
    assert rc.state(others[1]) == "PENDING", rc.job_debug(others[1])
    # scontrol update job moves a pending job in, for a user the reservation is for
    held = rc.sbatch(["-H"], cwd=workdir, script=SLEEP, user="herdtest1")
    cp = scontrol(rc, "update", f"JobId={held}", "Reservation=lab", user="herdtest1")
    assert cp.returncode == 0 and rc.api_job(held)["reservation"] == "lab", cp
    theirs = rc.sbatch(["-H"], cwd=workdir, script=SLEEP, user="herdtest2")
    cp = scontrol(rc, "update", f"JobId={theirs}", "Reservation=lab", user="herdtest2")
    assert (cp.returncode, cp.stderr) == (    # as slurm-ref
        1, f"Access denied to requested reservation for job {theirs}\n"), cp
    assert "reservation" not in rc.api_job(theirs)
    # deleting it leaves its pending jobs pending, with Slurm's reason
    waiting = rc.sbatch(["--reservation=lab", "-c", "8"], cwd=workdir, script=SLEEP,
                        user="herdtest1")
    assert scontrol(rc, "delete", "res", "lab").returncode == 0
    wait_for(lambda: reason(rc, waiting) == "ReservationDeleted", 15,
             "the job of a deleted reservation to say so")
    assert rc.state(waiting) == "PENDING"


def test_gpu_reservation_leaves_other_gpus(rc, workdir):
    """TRES=gres/gpu=2 on a 4-GPU node: the other two GPUs stay for others."""
    cp = scontrol(rc, "create", "res", "ReservationName=course", "StartTime=now",
                  "Duration=60", "Nodes=node1", "TRES=gres/gpu=2", "Users=herdtest1")
    assert cp.returncode == 0, cp
    f = kv(scontrol(rc, "show", "res", "course").stdout)
    assert f["TRES"] == "gres/gpu=2" and f["Nodes"] == "node1" and f["CoreCnt"] == "0", f
    # node2 busy, so that node1 is the only place left
    filler = rc.sbatch(["-w", "node2", "--exclusive"], cwd=workdir, script=SLEEP)
    rc.wait_state(filler, "RUNNING")
    other = rc.sbatch(["--gres=gpu:2", "-w", "node1"], cwd=workdir, script=SLEEP,
                      user="herdtest2")
    rc.wait_state(other, "RUNNING")
    third = rc.sbatch(["--gres=gpu:1", "-w", "node1"], cwd=workdir, script=SLEEP,
                      user="herdtest2")
    student = rc.sbatch(["--gres=gpu:2", "--reservation=course"], cwd=workdir, script=SLEEP,
                        user="herdtest1")
    rc.wait_state(student, "RUNNING")
    assert rc.state(third) == "PENDING", rc.job_debug(third)
    assert rc.field(student, "%N") == "node1"
    gpus = {i: set(rc.api_job(i)["gpus_alloc"]["node1"]) for i in (other, student)}
    assert len(gpus[student]) == 2 and not gpus[student] & gpus[other], gpus


def test_maint_window(rc, workdir):
    """MAINT,IGNORE_JOBS on every node in 2 minutes: a 10-minute job waits
    with Slurm's reason, a 1-minute one starts."""
    cp = scontrol(rc, "create", "res", "ReservationName=maint", "StartTime=now+2minutes",
                  "Duration=30", "Nodes=ALL", "Users=root", "Flags=MAINT,IGNORE_JOBS")
    assert cp.returncode == 0, cp
    assert "Flags=MAINT,IGNORE_JOBS,SPEC_NODES,ALL_NODES" in \
        scontrol(rc, "show", "res", "maint").stdout
    long_job = rc.sbatch(["-t", "10"], cwd=workdir, script=SLEEP)
    short_job = rc.sbatch(["-t", "1"], cwd=workdir, script=SLEEP)
    rc.wait_state(short_job, "RUNNING")
    wait_for(lambda: reason(rc, long_job) == "ReqNodeNotAvail, Reserved for maintenance", 15,
             "the long job to wait for the maintenance")
    assert rc.state(long_job) == "PENDING"


@pytest.mark.waits
def test_recurring_and_purged(rc):
    """HOURLY moves to its next hour when it ends; PURGE_COMP=1 goes once it
    has had no job for a minute."""
    assert scontrol(rc, "create", "res", "ReservationName=hourly", "StartTime=now",
                    "Duration=1", "Nodes=node1", "Users=root", "Flags=HOURLY").returncode == 0
    assert scontrol(rc, "create", "res", "ReservationName=purged", "StartTime=now",
                    "Duration=10", "Nodes=node2", "Users=root",
                    "Flags=PURGE_COMP=1").returncode == 0
    st, body = rc.api("GET", "/v1/reservations/hourly")
    first = body["reservations"][0]

    def moved():
        st, b = rc.api("GET", "/v1/reservations/hourly")
        return b["reservations"][0]["start_time"] == first["start_time"] + 3600
    wait_for(moved, 90, "the hourly reservation to move to its next hour")
    wait_for(lambda: rc.api("GET", "/v1/reservations/purged")[0] == 404, 30,
             "the PURGE_COMP reservation to go")
    cp = scontrol(rc, "show", "res", "hourly")
    assert "Flags=HOURLY,SPEC_NODES" in cp.stdout and "State=INACTIVE" in cp.stdout, cp.stdout


def slurm_ref_ready():
    if not shutil.which("scontrol", path="/usr/bin") or not os.path.exists("/usr/bin/scontrol"):
        return False
    try:
        cp = subprocess.run(["/usr/bin/scontrol", "ping"], capture_output=True, text=True,
                            timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return cp.returncode == 0 and "is UP" in cp.stdout and os.geteuid() == 0


def layout(text):
    """The keys of each line, in order: the shape of a record."""
    return [[w.partition("=")[0] for w in line.split() if "=" in w]
            for line in text.splitlines()]


@pytest.mark.skipif(not slurm_ref_ready(), reason="no Slurm (slurm-ref) on this machine")
def test_show_layout_as_slurm(rc):
    name = f"herdcmp{os.getpid()}"
    args = ["create", "reservation", f"ReservationName={name}", "StartTime=now+20days",
            "Duration=90", "Users=root", "Flags=MAINT,IGNORE_JOBS"]
    ref = subprocess.run(["/usr/bin/scontrol"] + args + ["Nodes=vm"], capture_output=True,
                         text=True, timeout=30)
    try:
        if ref.returncode != 0:
            pytest.skip(f"slurm-ref refused the reservation: {ref.stderr.strip()}")
        assert ref.stdout == f"Reservation created: {name}\n"
        ref_show = subprocess.run(["/usr/bin/scontrol", "show", "res", name],
                                  capture_output=True, text=True, timeout=30).stdout
    finally:
        subprocess.run(["/usr/bin/scontrol", "delete", "res", name], capture_output=True,
                       timeout=30)
    cp = scontrol(rc, *(args + ["Nodes=node1"]))
    assert cp.stdout == ref.stdout, cp
    ours = scontrol(rc, "show", "res", name).stdout
    assert layout(ours) == layout(ref_show), (ours, ref_show)
    o, r = kv(ours), kv(ref_show)
    for k in ("Duration", "Flags", "Users", "State", "Watts", "MaxStartDelay", "Features"):
        assert o[k] == r[k], (k, ours, ref_show)
    assert ours.endswith("\n\n") and ref_show.endswith("\n\n")
