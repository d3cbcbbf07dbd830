"""scontrol suspend/resume: a suspended job's processes really stop (its
cgroup frozen, or SIGSTOP where jobs have no cgroup) and go on when resumed;
squeue, scontrol show job and sacct say SUSPENDED; the time limit is moved on
by the time suspended; scancel ends a suspended job; only admins may suspend;
the state survives a controller restart. Preemption by suspension
(PreemptMode=SUSPEND,GANG) runs once the preemption configuration exists."""

import os
import signal
import time
from datetime import datetime

import pytest

from helpers import FINAL_STATES, cluster_fixture, pid_alive, read, wait_file, wait_for

UP = ["--nodes", "1", "--cpus-per-node", "4", "--mem-per-node", "4000", "--gpus-per-node", "2",
      "--set", "SlurmdTimeout=6", "--set", "KillWait=2"]
# without cgroups the agent stops every process of the job with SIGSTOP
NO_CGROUP = ["--set", "ProctrackType=proctrack/linuxproc", "--set", "TaskPlugin=task/none"]

COUNTER = """#!/bin/sh
echo pid $$
i=0
while :; do i=$((i+1)); echo $i > {out}.tmp; mv -f {out}.tmp {out}; sleep 0.2; done
"""


@pytest.fixture(scope="module", params=["cgroup", "signals"])
def scluster(request, tmp_path_factory, users):
    extra = NO_CGROUP if request.param == "signals" else []
    gen = cluster_fixture(tmp_path_factory, f"susp-{request.param}", UP + extra)
    c = next(gen)
    c.mode = request.param
    try:
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture(autouse=True)
def no_jobs_left(request):
    """A failed test leaves no job behind to hold the next test's CPUs."""
    yield
    if "scluster" not in request.fixturenames:
        return
    c = request.getfixturevalue("scluster")
    left = c.cancel_all()
    if left:
        wait_for(lambda: all(c.state(i) in FINAL_STATES | {""} for i in left), 30,
                 f"jobs {left} to end after scancel")


def count(path):
    try:
        return int(read(path).strip() or 0)
    except (OSError, ValueError):
        return 0


def grows(path, timeout=10):
    first = count(path)
    wait_for(lambda: count(path) > first + 2, timeout, f"{path} to grow past {first}")


def stays(path, secs=1.5):
    first = count(path)
    time.sleep(secs)
    assert count(path) == first, f"{path} went on from {first} to {count(path)}"


def to_secs(hms):
    d, _, rest = hms.rpartition("-")
    h, m, s = (int(x) for x in rest.split(":"))
    return int(d or 0) * 86400 + h * 3600 + m * 60 + s


def kv(text):
    out = {}
    for word in text.split():
        k, sep, v = word.partition("=")
        if sep:
            out.setdefault(k, v)
    return out


def show(c, job):
    return kv(c.run(["scontrol", "show", "job", str(job)]).stdout)


def start_counter(c, workdir, args=()):
    out = os.path.join(workdir, f"count-{time.monotonic_ns()}")
    j = c.sbatch(["-o", out + ".log"] + list(args), cwd=workdir, script=COUNTER.format(out=out))
    c.wait_state(j, "RUNNING")
    grows(out)
    return j, out


def test_suspend_stops_and_resume_continues(scluster, workdir):
    c = scluster
    j, out = start_counter(c, workdir)
    # SecsPreSuspend counts whole seconds: the job must have run one for sure
    time.sleep(1.5)
    c.run(["scontrol", "suspend", str(j)])
    assert c.field(j, "%t %T") == "S SUSPENDED"
    f = show(c, j)
    assert f["JobState"] == "SUSPENDED" and f["SuspendTime"] != "None", f
    assert c.run(["sacct", "-n", "-X", "-j", str(j), "-o", "state"]).stdout.strip() == "SUSPENDED"
    assert str(j) in c.run(["squeue", "-h", "-t", "S", "-o", "%i"]).stdout.split()
    time.sleep(0.5)   # the agent's stop follows the commit
    stays(out)
    used = c.field(j, "%M")
    time.sleep(1.2)
    assert c.field(j, "%M") == used, "a suspended job's TIME went on"
    # suspending a suspended job is no error, as Slurm's
    c.run(["scontrol", "suspend", str(j)])
    c.run(["scontrol", "resume", str(j)])
    assert c.field(j, "%T") == "RUNNING"
    grows(out)
    f = show(c, j)
    assert f["JobState"] == "RUNNING" and int(f["SecsPreSuspend"]) >= 1, f
    c.run(["scancel", str(j)])
    c.wait_state(j, "CANCELLED")


def test_suspend_stops_a_steps_tasks(scluster, workdir):
    """srun's tasks are the agent's children, not the batch shell's: with
    cgroups they are in the job's group, without they get SIGSTOP apart."""
    c = scluster
    out = os.path.join(workdir, f"stepcount-{time.monotonic_ns()}")
    loop = COUNTER.format(out=out).split("\n", 2)[2]
    script = "#!/bin/sh\nsrun sh -c '" + loop.strip().replace("'", "") + "'\n"
    j = c.sbatch(["-o", out + ".log"], cwd=workdir, script=script)
    c.wait_state(j, "RUNNING")
    grows(out)
    c.run(["scontrol", "suspend", str(j)])
    time.sleep(0.5)
    stays(out)
    c.run(["scontrol", "resume", str(j)])
    grows(out)
    c.run(["scancel", str(j)])
    c.wait_state(j, "CANCELLED")


def test_suspended_job_leaves_its_cpus_not_its_gpus(scluster, workdir):
    c = scluster
    a, out = start_counter(c, workdir, ["-c", "4", "--gres=gpu:2"])
    c.run(["scontrol", "suspend", str(a)])
    node = kv(c.run(["scontrol", "show", "node", "node1"]).stdout)
    assert node["CPUAlloc"] == "0", node
    cpus = c.sbatch(["-c", "4"], cwd=workdir, script="#!/bin/sh\nsleep 300\n")
    gpu = c.sbatch(["-c", "1", "--gres=gpu:1"], cwd=workdir, script="#!/bin/sh\nsleep 300\n")
    c.wait_state(cpus, "RUNNING", timeout=20)
    time.sleep(3)
    assert c.state(gpu) == "PENDING", "a job took the suspended job's GPUs"
    c.run(["scancel", str(a), str(cpus), str(gpu)])
    for j in (a, cpus, gpu):
        c.wait_state(j, "CANCELLED")


def test_errors_as_slurm(scluster, workdir):
    c = scluster
    j, out = start_counter(c, workdir)
    cp = c.run(["scontrol", "resume", str(j)], check=False)
    assert cp.returncode == 1 and cp.stderr == f"Job is not suspended for job {j}\n"
    held = c.sbatch(["--hold"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    for word in ("suspend", "resume"):
        cp = c.run(["scontrol", word, str(held)], check=False)
        assert cp.returncode == 1 and cp.stderr == f"Job is pending execution for job {held}\n"
    cp = c.run(["scontrol", "suspend"], check=False)
    assert cp.returncode == 1 and cp.stderr == "too few arguments for keyword:suspend\n"
    c.run(["scancel", str(held), str(j)])
    c.wait_state(j, "CANCELLED")
    cp = c.run(["scontrol", "suspend", str(j)], check=False)
    assert cp.returncode == 1
    assert cp.stderr == f"Job/step already completing or completed for job {j}\n"


def test_user_may_not_suspend(scluster, workdir, users):
    c = scluster
    j, out = start_counter(c, workdir)
    mine, mine_out = start_counter_as(c, workdir, users[0])
    for job in (j, mine):
        for word in ("suspend", "resume"):
            cp = c.run(["scontrol", word, str(job)], user=users[0], check=False)
            assert cp.returncode == 1, cp
            assert cp.stderr == f"Access/permission denied for job {job}\n", cp.stderr
    assert c.field(mine, "%T") == "RUNNING"
    grows(mine_out)
    # the REST route says the same
    st, body = c.api("POST", f"/v1/jobs/{mine}/suspend")
    assert st == 200, body     # the test runs as root
    assert c.field(mine, "%T") == "SUSPENDED"
    st, body = c.api("POST", f"/v1/jobs/{mine}/resume")
    assert st == 200 and c.field(mine, "%T") == "RUNNING", body
    c.run(["scancel", str(j), str(mine)])
    c.wait_state(mine, "CANCELLED")


def start_counter_as(c, workdir, user):
    out = os.path.join(workdir, f"ucount-{time.monotonic_ns()}")
    j = c.sbatch(["-o", out + ".log"], cwd=workdir, user=user, script=COUNTER.format(out=out))
    c.wait_state(j, "RUNNING")
    grows(out)
    return j, out


def test_scancel_of_a_suspended_job(scluster, workdir):
    c = scluster
    j, out = start_counter(c, workdir)
    pid = int(wait_file(out + ".log", contains="pid ").split()[1])
    c.run(["scontrol", "suspend", str(j)])
    time.sleep(0.5)
    stays(out, 1)
    c.run(["scancel", str(j)])
    c.wait_state(j, "CANCELLED", timeout=20)
    wait_for(lambda: not pid_alive(pid), 10, f"the suspended job's shell {pid} to die")
    # its Elapsed leaves the suspended seconds out, as Slurm's
    el, start, end = c.run(["sacct", "-n", "-X", "-P", "-j", str(j), "-o",
                            "elapsedraw,start,end"]).stdout.split()[0].split("|")
    wall = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    assert int(el) < wall, (el, start, end)
    run = c.run(["scontrol", "show", "job", str(j)]).stdout
    assert int(el) == to_secs(kv(run)["RunTime"]), (el, run)
    # "CANCELLED by 0", cut to the column as Slurm's
    assert c.run(["sacct", "-n", "-X", "-j", str(j), "-o", "state"]).stdout.split()[0] \
        == "CANCELLED+"


def test_requeue_of_a_suspended_job_holds_it(scluster, workdir):
    c = scluster
    j, out = start_counter(c, workdir, ["--requeue"])
    c.run(["scontrol", "suspend", str(j)])
    c.run(["scontrol", "requeue", str(j)])
    c.wait_state(j, "PENDING", timeout=20)
    assert c.field(j, "%r") == "JobHeldAdmin"
    f = show(c, j)
    assert f["Restarts"] == "1" and f["SuspendTime"] == "None", f
    c.run(["scancel", str(j)])
    c.wait_state(j, "CANCELLED")


@pytest.mark.waits
def test_time_limit_moves_by_the_time_suspended(scluster, workdir):
    c = scluster
    if c.mode != "cgroup":
        pytest.skip("the supervisor keeps the limit alike either way: once is enough")
    j, out = start_counter(c, workdir, ["-t", "1"])
    end0 = show(c, j)["EndTime"]
    started = time.monotonic()
    c.run(["scontrol", "suspend", str(j)])
    time.sleep(20)
    c.run(["scontrol", "resume", str(j)])
    grows(out)
    f = show(c, j)
    assert f["EndTime"] > end0, f"EndTime {f['EndTime']} not after {end0}"
    # past the minute it would have had without the suspension
    left = started + 66 - time.monotonic()
    if left > 0:
        time.sleep(left)
    assert c.field(j, "%T") == "RUNNING", "the suspended time counted against the limit"
    c.wait_state(j, "TIMEOUT", timeout=40)
    assert time.monotonic() - started >= 78


def test_suspended_job_survives_controller_restart(scluster, workdir):
    c = scluster
    j, out = start_counter(c, workdir)
    c.run(["scontrol", "suspend", str(j)])
    time.sleep(0.5)
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    c.up()
    # the node re-registers and the job is reconciled, not killed or lost
    time.sleep(3)
    assert c.field(j, "%T") == "SUSPENDED"
    stays(out)
    c.run(["scontrol", "resume", str(j)])
    grows(out)
    c.run(["scancel", str(j)])
    c.wait_state(j, "CANCELLED")


PREEMPT_SET = ["--set", "PreemptType=preempt/partition_prio",
               "--set", "PreemptMode=SUSPEND,GANG"]


def two_tiers(c):
    """Two partitions on the one node: high (PriorityTier=2) preempts low (1)."""
    c.up()
    problems = c.stop_and_check()
    assert not problems, "\n".join(problems)
    text = read(c.conf)
    lines = [l for l in text.splitlines() if not l.startswith("PartitionName=")]
    lines += ["PartitionName=low Nodes=ALL Default=YES PriorityTier=1 MaxTime=INFINITE State=UP",
              "PartitionName=high Nodes=ALL PriorityTier=2 MaxTime=INFINITE State=UP"]
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def pcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "susp-preempt",
                               ["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
                                "--set", "KillWait=2"] + PREEMPT_SET, prepare=two_tiers)


def test_preemption_suspends_then_resumes(pcluster, workdir):
    c = pcluster
    low, out = start_counter(c, workdir, ["-p", "low", "-c", "2"])
    high = c.sbatch(["-p", "high", "-c", "2"], cwd=workdir,
                    script="#!/bin/sh\nsleep 10\necho high done\n")
    c.wait_state(low, "SUSPENDED", timeout=30)
    c.wait_state(high, "RUNNING", timeout=30)
    time.sleep(2.5)   # SIGTSTP, then the stop after suspend_grace_time (2 s)
    stays(out)
    c.wait_state(high, "COMPLETED", timeout=30)
    c.wait_state(low, "RUNNING", timeout=15)
    grows(out)
    c.run(["scancel", str(low)])
    c.wait_state(low, "CANCELLED")
