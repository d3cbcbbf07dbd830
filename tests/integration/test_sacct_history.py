"""Exit codes, states and requeue history as sacct records them, checked
against Slurm 22.05 (slurm-ref, 2026-12): the job row's ExitCode is 0:0 for
an end the controller decided (cancel, time limit, requeue), the batch row
carries the shell's own end; `scontrol requeue` sends a running job back
with Reason=BeginTime until cred_expire + 1 s later, a new SubmitTime, a
note in its output, truncated on the rerun; `sacct -D` shows every run;
requeuehold's reason survives a controller restart."""

import os
import re
import signal
import time

import pytest

from helpers import cluster_fixture, open_dir, pid_alive, read, wait_file, wait_for

UP = ["--nodes", "1", "--cpus-per-node", "8", "--mem-per-node", "4000",
      "--set", "SlurmdTimeout=6", "--set", "KillWait=2", "--set", "AuthInfo=cred_expire=5"]
CRED_EXPIRE = 5


def cgroups_usable():
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return os.access("/sys/fs/cgroup", os.W_OK)
    return all(os.access(f"/sys/fs/cgroup/{c}/cgroup.procs", os.W_OK)
               for c in ("freezer", "memory"))


@pytest.fixture(scope="module")
def hc(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "history", UP)
    c = next(gen)
    try:
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture
def wd(tmp_path):
    open_dir(tmp_path)
    return str(tmp_path)


def sacct_rows(c, job, *extra):
    out = c.run(["sacct", "-P", "-n", "-j", str(job), "-o",
                 "JobID,State,ExitCode,DerivedExitCode,NodeList,Start,End,Submit"]
                + list(extra)).stdout
    return [line.split("|") for line in out.splitlines()]


def show(c, job):
    out = c.run(["scontrol", "show", "job", str(job)]).stdout
    return dict(kv.split("=", 1) for kv in out.split() if "=" in kv)


def ends(c, job):
    """{row id: (State, ExitCode, DerivedExitCode)} of the job's rows."""
    return {r[0]: tuple(r[1:4]) for r in sacct_rows(c, job)}


def epoch(s):
    return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))


def test_exit_codes_per_case(hc, wd):
    c = hc
    cancel = c.sbatch([], cwd=wd, script="#!/bin/sh\nexec /bin/sleep 300\n")
    killed = c.sbatch([], cwd=wd, script="#!/bin/sh\nkill -KILL $$\n")
    segv = c.sbatch([], cwd=wd, script="#!/bin/sh\nsleep 1\nkill -SEGV $$\n")
    three = c.sbatch([], cwd=wd, script="#!/bin/sh\nexit 3\n")
    step = c.sbatch([], cwd=wd, script="#!/bin/sh\nsrun sh -c 'exit 5'\nexit 0\n")
    c.wait_state(cancel, "RUNNING")
    c.run(["scancel", str(cancel)])
    c.wait_state(cancel, "CANCELLED")
    for j in (killed, segv, three):
        c.wait_state(j, "FAILED")
    c.wait_state(step, "COMPLETED")

    e = ends(c, cancel)
    assert e[str(cancel)] == ("CANCELLED by 0", "0:0", "0:0")
    assert e[f"{cancel}.batch"] == ("CANCELLED", "0:15", "")
    s = show(c, cancel)
    assert (s["JobState"], s["ExitCode"]) == ("CANCELLED", "0:15")

    for j, sig in ((killed, 9), (segv, 11)):
        e = ends(c, j)
        assert e[str(j)] == ("FAILED", f"0:{sig}", "0:0")
        assert e[f"{j}.batch"] == ("CANCELLED", f"0:{sig}", "")
        s = show(c, j)
        assert (s["Reason"], s["ExitCode"]) == ("JobLaunchFailure", f"0:{sig}")

    e = ends(c, three)
    assert e[str(three)] == ("FAILED", "3:0", "0:0")
    assert e[f"{three}.batch"] == ("FAILED", "3:0", "")
    s = show(c, three)
    assert (s["Reason"], s["ExitCode"]) == ("NonZeroExitCode", "3:0")

    e = ends(c, step)
    assert e[str(step)] == ("COMPLETED", "0:0", "5:0")
    assert e[f"{step}.batch"] == ("COMPLETED", "0:0", "")
    assert e[f"{step}.0"] == ("FAILED", "5:0", "")
    for j in (cancel, killed, three, step):
        assert ends(c, j)[f"{j}.extern"] == ("COMPLETED", "0:0", "")


def test_out_of_memory(hc, wd):
    if not cgroups_usable():
        pytest.skip("no usable cgroup controller: memory is not enforced here")
    c = hc
    job = c.sbatch(["--mem=64M"], cwd=wd, script="#!/bin/sh\n"
                   "python3 -c 'x = bytearray(300 * 1024 * 1024)'\n")
    c.wait_state(job, "OUT_OF_MEMORY", timeout=30)
    e = ends(c, job)
    assert e[str(job)] == ("OUT_OF_MEMORY", "0:125", "0:0")
    assert e[f"{job}.batch"] == ("OUT_OF_MEMORY", "0:125", "")
    assert show(c, job)["ExitCode"] == "0:125"


def test_requeue_begin_time_output_and_history(hc, wd):
    c = hc
    out = os.path.join(wd, "r.out")
    app = os.path.join(wd, "a.out")
    script = "#!/bin/sh\necho run ${SLURM_RESTART_COUNT:-0}\nexec /bin/sleep 300\n"
    job = c.sbatch(["-o", out], cwd=wd, script=script)
    keep = c.sbatch(["-o", app, "--open-mode=append"], cwd=wd, script=script)
    for j in (job, keep):
        c.wait_state(j, "RUNNING")
    wait_file(out, contains="run")
    wait_file(app, contains="run")
    first = show(c, job)
    other = c.sbatch(["-H"], cwd=wd, script="#!/bin/sh\ntrue\n")
    time.sleep(1.1)   # its SubmitTime before the requeue's
    t = time.time()
    c.run(["scontrol", "requeue", f"{job},{keep}"])
    c.wait_state(job, "PENDING", timeout=20)
    s = show(c, job)
    assert (s["JobState"], s["Reason"], s["Restarts"], s["ExitCode"]) == \
        ("PENDING", "BeginTime", "1", "0:0")
    # BeginTime = the requeue + cred_expire + 1 (the kill's report may lag)
    assert t - 1 <= epoch(s["SubmitTime"]) <= t + 10, s
    assert epoch(s["EligibleTime"]) - epoch(s["SubmitTime"]) == CRED_EXPIRE + 1, s
    assert c.field(job, "%r") == "BeginTime"
    note = re.compile(rf"slurmstepd-node1: error: \*\*\* JOB {job} ON node1 CANCELLED AT "
                      r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d DUE TO JOB REQUEUE \*\*\*")
    wait_for(lambda: note.search(read(out)), 10, "the requeue's note in the output")

    # the rerun truncates its output unless --open-mode=append
    wait_for(lambda: "run 1" in read(out), 40, "the second run's output")
    assert "run 0" not in read(out) and not note.search(read(out))
    wait_for(lambda: "run 1" in read(app), 40, "the appended second run")
    a = read(app)
    assert "run 0" in a and "run 1" in a and a.index("run 0") < a.index("DUE TO JOB REQUEUE") \
        < a.index("run 1"), a
    c.wait_state(job, "RUNNING")
    c.run(["scancel", str(job), str(keep)])
    c.wait_state(job, "CANCELLED")

    # plain sacct: the last run; -D: the requeued run first
    last = sacct_rows(c, job)
    assert [r[:3] for r in last if r[0] == str(job)] == [[str(job), "CANCELLED by 0", "0:0"]]
    runs = sacct_rows(c, job, "-D")
    jobs = [r for r in runs if r[0] == str(job)]
    assert [r[1] for r in jobs] == ["REQUEUED", "CANCELLED by 0"], runs
    rq = jobs[0]
    assert (rq[2], rq[3], rq[4]) == ("0:0", "0:0", "node1")
    assert epoch(rq[5]) == epoch(first["StartTime"]) and epoch(rq[7]) == epoch(first["SubmitTime"])
    assert epoch(rq[5]) <= epoch(rq[6]) <= epoch(jobs[1][5])
    batches = [r[1:3] for r in runs if r[0] == f"{job}.batch"]
    assert batches == [["CANCELLED", "0:15"], ["CANCELLED", "0:15"]], runs
    assert runs.index(rq) < runs.index(jobs[1])
    # -D lists records as Slurm's database made them: the rerun's at its requeue
    c.run(["scancel", str(other)])
    c.wait_state(other, "CANCELLED")
    order = [r[:2] for r in sacct_rows(c, f"{job},{other}", "-D", "-X")]
    assert order == [[str(job), "REQUEUED"], [str(other), "CANCELLED by 0"],
                     [str(job), "CANCELLED by 0"]], order


def test_requeuehold_survives_restart(hc, wd):
    c = hc
    job = c.sbatch([], cwd=wd, script="#!/bin/sh\nexec /bin/sleep 300\n")
    c.wait_state(job, "RUNNING")
    c.run(["scontrol", "requeuehold", str(job)])
    c.wait_state(job, "PENDING", timeout=20)
    s = show(c, job)
    assert (s["Reason"], s["Restarts"]) == ("job_requeued_in_held_state", "1")
    assert epoch(s["EligibleTime"]) - epoch(s["SubmitTime"]) == CRED_EXPIRE + 1, s
    assert c.field(job, "%r") == "job_requeued_in_held_state"

    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    c.up()
    s = show(c, job)
    assert (s["JobState"], s["Reason"], s["Restarts"]) == \
        ("PENDING", "job_requeued_in_held_state", "1")
    c.run(["scontrol", "release", str(job)])
    c.wait_state(job, "RUNNING", timeout=30)
    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED")


@pytest.mark.waits
def test_timeout(hc, wd):
    """A time limit is whole minutes, as Slurm's: the test idles one, beside
    the other tests (scripts/run-integration.sh)."""
    c = hc
    job = c.sbatch(["-t", "1"], cwd=wd, script="#!/bin/sh\nexec /bin/sleep 300\n")
    c.wait_state(job, "TIMEOUT", timeout=150)
    e = ends(c, job)
    assert e[str(job)] == ("TIMEOUT", "0:0", "0:0")
    assert e[f"{job}.batch"] == ("CANCELLED", "0:15", "")
    s = show(c, job)
    assert (s["Reason"], s["ExitCode"]) == ("TimeLimit", "0:15")
