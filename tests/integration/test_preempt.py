"""Preemption (PreemptType=preempt/qos, then preempt/partition_prio) on a
cluster of its own, 1 node x 4 GPUs: the keys as scontrol and sacctmgr show
them, a high QOS job taking GPUs from scavenger jobs that are requeued
(sacct -D shows the preempted runs; the next run sees SLURM_RESTART_COUNT)
or cancelled (state PREEMPTED, Slurm's line in their stderr), GraceTime's
SIGTERM then SIGKILL, and PreemptExemptTime sparing a young job."""
import os
import re
import signal
import time

import pytest

from helpers import cluster_fixture, pid_alive, wait_for

KILL_WAIT = 2
UP = ["--nodes", "1", "--gpus-per-node", "4", "--cpus-per-node", "8",
      "--set", f"KillWait={KILL_WAIT}", "--set", "PreemptType=preempt/qos",
      "--set", "PreemptMode=REQUEUE", "--set", "PreemptParameters=send_user_signal"]
SLEEP = "#!/bin/sh\necho restart=${SLURM_RESTART_COUNT:-none} >> env.$SLURM_JOB_ID\nsleep 300\n"


@pytest.fixture(scope="module")
def pcluster(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "preempt", UP)
    c = next(gen)
    mgr(c, "-i", "add", "qos", "scavenger")
    mgr(c, "-i", "add", "qos", "high", "Preempt=scavenger")
    try:
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture
def clean(pcluster):
    yield pcluster
    pcluster.cancel_all()
    mgr(pcluster, "-i", "modify", "qos", "scavenger", "set", "PreemptMode=off", "GraceTime=-1",
        "PreemptExemptTime=-1")


def mgr(c, *args, check=True):
    return c.run(["sacctmgr", *args], check=check)


def lines(text):
    return text.rstrip("\n").split("\n")


def scavengers(c, workdir, n=4, extra=(), script=SLEEP):
    jobs = [c.sbatch(["--qos=scavenger", "-G", "1", "-t", "10", *extra], cwd=workdir,
                     script=script) for _ in range(n)]
    for j in jobs:
        c.wait_state(j, "RUNNING")
    return jobs


def states(c, jobs):
    return {j: c.state(j) for j in jobs}


def run_states(c, job):
    """sacct -D's rows of the job's allocation: one per run, oldest first."""
    out = c.run(["sacct", "-D", "-X", "-n", "-P", "-j", str(job), "-o", "JobID,State"]).stdout
    return [l.split("|")[1] for l in out.splitlines() if l.split("|")[0] == str(job)]


def test_config_and_partition_show_preemption(pcluster):
    c = pcluster
    conf = c.run(["scontrol", "show", "config"]).stdout
    assert re.search(r"^PreemptMode\s+= REQUEUE$", conf, re.M), conf
    assert re.search(r"^PreemptType\s+= preempt/qos$", conf, re.M), conf
    assert re.search(r"^PreemptExemptTime\s+= 00:00:00$", conf, re.M), conf
    assert re.search(r"^JobRequeue\s+= 1$", conf, re.M), conf
    part = c.run(["scontrol", "show", "partition"]).stdout
    assert "GraceTime=0 Hidden=NO" in part, part
    assert "PriorityJobFactor=1 PriorityTier=1 RootOnly=NO" in part, part
    assert "   OverTimeLimit=NONE PreemptMode=REQUEUE\n" in part, part


def test_qos_preemption_fields(clean):
    c = clean
    cp = mgr(c, "-i", "add", "qos", "mid", "Preempt=scavenger", "GraceTime=30",
             "PreemptMode=requeue", "PreemptExemptTime=5:00")
    assert lines(cp.stdout) == [
        " Adding QOS(s)", "  mid", " Settings", "  Description    = mid",
        "  GraceTime                = 30", "  Preempt                  = scavenger",
        "  PreemptMode              = REQUEUE", "  PreemptExemptTime        = 00:05:00"]
    out = mgr(c, "show", "qos", "mid,scavenger",
              "format=Name,GraceTime,Preempt,PreemptExemptTime,PreemptMode").stdout
    assert sorted(lines(out)[2:]) == [
        "       mid   00:00:30  scavenger            00:05:00     requeue ",
        " scavenger   00:00:00                                    cluster "]
    mgr(c, "-i", "modify", "qos", "mid", "set", "Preempt+=normal")
    assert mgr(c, "show", "qos", "mid", "-n", "-P", "format=Preempt").stdout == \
        "scavenger,normal\n"
    mgr(c, "-i", "modify", "qos", "mid", "set", "Preempt-=scavenger", "PreemptMode=off")
    assert mgr(c, "show", "qos", "mid", "-n", "-P", "format=Preempt,PreemptMode").stdout == \
        "normal|cluster\n"
    cp = mgr(c, "-i", "modify", "qos", "mid", "set", "PreemptMode=bogus", check=False)
    assert cp.returncode == 1 and "Bad Preempt Mode given: PreemptMode=bogus" in cp.stderr
    cp = mgr(c, "-i", "modify", "qos", "mid", "set", "Preempt=mid", check=False)
    assert cp.returncode == 1 and "QOS Preemption loop detected" in cp.stdout + cp.stderr
    cp = mgr(c, "-i", "modify", "qos", "mid", "set", "Preempt+=nosuch", check=False)
    assert cp.returncode == 1 and "You gave a bad qos 'nosuch'" in cp.stdout + cp.stderr
    mgr(c, "-i", "delete", "qos", "mid")


def test_requeue_two_of_four(clean, workdir):
    c = clean
    scav = scavengers(c, workdir, extra=["--requeue"])
    t0 = time.time()
    high = c.sbatch(["--qos=high", "-G", "2", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    c.wait_state(high, "RUNNING", timeout=15)
    assert time.time() - t0 < 15
    st = states(c, scav)
    pending = [j for j, s in st.items() if s == "PENDING"]
    assert len(pending) == 2 and sorted(st.values()) == ["PENDING", "PENDING", "RUNNING",
                                                         "RUNNING"], st
    for j in pending:
        assert run_states(c, j) == ["PREEMPTED", "PENDING"], run_states(c, j)
        assert "Restarts=1" in c.run(["scontrol", "show", "job", str(j)]).stdout
    show = c.run(["scontrol", "show", "job", str(high)]).stdout
    assert re.search(r"\n   PreemptEligibleTime=\S+ PreemptTime=None\n", show), show
    # the GPUs come back: the requeued jobs run again and know it
    c.run(["scancel", str(high)])
    for j in pending:
        c.wait_state(j, "RUNNING", timeout=30)
        path = os.path.join(workdir, f"env.{j}")
        wait_for(lambda: "restart=1" in open(path).read(), 10, f"job {j}'s second run")
        assert open(path).read() == "restart=none\nrestart=1\n"


def test_cancel_mode_ends_preempted(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "scavenger", "set", "PreemptMode=cancel")
    scav = scavengers(c, workdir, extra=["--requeue"])
    high = c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    c.wait_state(high, "RUNNING", timeout=15)
    victims = [j for j, s in states(c, scav).items() if s != "RUNNING"]
    assert len(victims) == 1, states(c, scav)
    v = victims[0]
    c.wait_state(v, "PREEMPTED", timeout=15)
    out = c.run(["sacct", "-X", "-n", "-P", "-j", str(v), "-o", "State"]).stdout
    assert out == "PREEMPTED\n"
    err = os.path.join(workdir, f"slurm-{v}.out")
    wait_for(lambda: "DUE TO PREEMPTION" in open(err).read(), 10, "the preemption line")
    assert re.search(rf"slurmstepd-\S+: error: \*\*\* JOB {v} ON \S+ CANCELLED AT "
                     r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d DUE TO PREEMPTION \*\*\*", open(err).read())


TRAP = """#!/bin/sh
trap 'date +%s.%N > term.$SLURM_JOB_ID' TERM
touch ready.$SLURM_JOB_ID
while true; do sleep 0.2; done
"""


def trapping(c, workdir):
    """Four scavengers that trap SIGTERM, each past its trap."""
    scav = scavengers(c, workdir, script=TRAP)
    for j in scav:
        wait_for(lambda: os.path.exists(os.path.join(workdir, f"ready.{j}")), 15,
                 f"job {j}'s trap")
    return scav


def test_grace_time_sigterm_then_kill(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "scavenger", "set", "PreemptMode=cancel", "GraceTime=5")
    scav = trapping(c, workdir)
    t0 = time.time()
    high = c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    victim = wait_for(lambda: next((j for j in scav if os.path.exists(
        os.path.join(workdir, f"term.{j}"))), None), 15, "a victim's SIGTERM")
    termed = float(open(os.path.join(workdir, f"term.{victim}")).read())
    assert termed - t0 < 10
    assert c.state(victim) == "RUNNING"   # it ignores SIGTERM: the grace runs
    c.wait_state(victim, "PREEMPTED", timeout=20)
    ended = time.time()
    assert 4 <= ended - termed <= 5 + KILL_WAIT + 4, ended - termed
    c.wait_state(high, "RUNNING", timeout=10)


def test_send_user_signal(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "scavenger", "set", "PreemptMode=cancel", "GraceTime=3")
    usr1 = TRAP.replace("TERM\n", "USR1\n")
    scav = scavengers(c, workdir, script=usr1, extra=["--signal=USR1@10"])
    for j in scav:
        wait_for(lambda: os.path.exists(os.path.join(workdir, f"ready.{j}")), 15,
                 f"job {j}'s trap")
    c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir, script="#!/bin/sh\nsleep 300\n")
    victim = wait_for(lambda: next((j for j in scav if os.path.exists(
        os.path.join(workdir, f"term.{j}"))), None), 15, "a victim's USR1")
    c.wait_state(victim, "PREEMPTED", timeout=20)


def test_no_requeue_is_cancelled(clean, workdir):
    c = clean
    scav = scavengers(c, workdir, extra=["--no-requeue"])
    assert "   Requeue=0 Restarts=0 " in c.run(["scontrol", "show", "job", str(scav[0])]).stdout
    high = c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    c.wait_state(high, "RUNNING", timeout=15)
    st = states(c, scav)
    assert sorted(st.values()) == ["PREEMPTED", "RUNNING", "RUNNING", "RUNNING"], st


def test_grace_survives_controller_restart(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "scavenger", "set", "PreemptMode=cancel", "GraceTime=8")
    scav = trapping(c, workdir)
    high = c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    victim = wait_for(lambda: next((j for j in scav if os.path.exists(
        os.path.join(workdir, f"term.{j}"))), None), 15, "a victim's SIGTERM")
    termed = float(open(os.path.join(workdir, f"term.{victim}")).read())
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    c.up()
    c.wait_state(victim, "PREEMPTED", timeout=30)
    assert time.time() - termed <= 8 + KILL_WAIT + 6
    c.wait_state(high, "RUNNING", timeout=15)
    show = c.run(["scontrol", "show", "job", str(victim)]).stdout
    assert re.search(r"PreemptTime=\d{4}-", show), show
    assert [s for s in states(c, scav).values() if s != "RUNNING"] == ["PREEMPTED"]


def test_exempt_time_spares_young_jobs(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "scavenger", "set", "PreemptExemptTime=10:00")
    scav = scavengers(c, workdir)
    high = c.sbatch(["--qos=high", "-G", "1", "-t", "5"], cwd=workdir,
                    script="#!/bin/sh\nsleep 300\n")
    time.sleep(5)
    assert c.state(high) == "PENDING"
    assert set(states(c, scav).values()) == {"RUNNING"}
    show = c.run(["scontrol", "show", "job", str(scav[0])]).stdout
    assert "   Requeue=1 Restarts=0 " in show   # JobRequeue=1: requeued unless --no-requeue
    start = re.search(r"StartTime=(\S+)", show).group(1)
    elig = re.search(r"PreemptEligibleTime=(\S+) PreemptTime=None", show).group(1)
    fmt = "%Y-%m-%dT%H:%M:%S"
    assert time.mktime(time.strptime(elig, fmt)) - time.mktime(time.strptime(start, fmt)) == 600


PP_UP = ["--nodes", "1", "--gpus-per-node", "4", "--cpus-per-node", "8",
         "--set", f"KillWait={KILL_WAIT}", "--set", "PreemptType=preempt/partition_prio",
         "--set", "PreemptMode=REQUEUE"]


def tiers(c):
    """herd up writes slurm.conf; then two partitions on the same node."""
    c.up()
    problems = c.stop_and_check()
    assert not problems, "\n".join(problems)
    with open(c.conf, "a") as f:
        f.write("\nPartitionName=low Nodes=node1 PriorityTier=1 State=UP\n"
                "PartitionName=high Nodes=node1 PriorityTier=2 PreemptMode=CANCEL State=UP\n")


@pytest.fixture(scope="module")
def ppcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "preempt-tiers", PP_UP, prepare=tiers)


def test_partition_prio_preempts_lower_tier(ppcluster, workdir):
    c = ppcluster
    part = c.run(["scontrol", "show", "partition", "high"]).stdout
    assert "PriorityTier=2 " in part and "PreemptMode=CANCEL" in part, part
    low = [c.sbatch(["-p", "low", "-G", "1", "-t", "10"], cwd=workdir, script=SLEEP)
           for _ in range(4)]
    for j in low:
        c.wait_state(j, "RUNNING")
    # equal tiers never preempt each other
    same = c.sbatch(["-p", "low", "-G", "1", "-t", "5"], cwd=workdir, script=SLEEP)
    time.sleep(3)
    assert c.state(same) == "PENDING"
    c.run(["scancel", str(same)])
    high = c.sbatch(["-p", "high", "-G", "2", "-t", "5"], cwd=workdir, script=SLEEP)
    c.wait_state(high, "RUNNING", timeout=15)
    st = states(c, low)
    assert sorted(st.values()) == ["PENDING", "PENDING", "RUNNING", "RUNNING"], st
    c.cancel_all()
