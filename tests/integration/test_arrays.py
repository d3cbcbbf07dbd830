"""Job arrays (sbatch --array): each task's environment and %A/%a file
names, the %N throttle, squeue's folded display, scancel of one task, a
range and the whole array, MaxArraySize, and a 100,000-task array that stays
one cheap record and survives a controller restart."""

import os
import signal
import time

import pytest

from helpers import cluster_fixture, parse_env, pid_alive, read, wait_file, wait_for

ENV_SCRIPT = "#!/bin/sh\nenv | grep ^SLURM_ARRAY_\necho id=$SLURM_JOB_ID\n"
SLEEP = "#!/bin/sh\nexec /bin/sleep 60\n"


@pytest.fixture
def arrays(cluster):
    """Submits arrays on the shared cluster and cancels them after the test,
    whatever happened: the shared fixture cancels plain job ids only."""
    made = []

    def submit(args, cwd, script):
        a = cluster.sbatch(args, cwd=cwd, script=script)
        made.append(a)
        return a
    yield submit
    for a in made:
        cluster.run(["scancel", str(a)], check=False)


def ids_states(c, array_id):
    """squeue's lines for an array: {"ID_N" or "ID_[...]": state}."""
    cp = c.run(["squeue", "-h", "-t", "all", "-j", str(array_id), "-o", "%i %T"])
    return dict(line.split() for line in cp.stdout.splitlines() if line.strip())


def wait_ids(c, array_id, want, timeout=20):
    last = {}

    def check():
        last["v"] = ids_states(c, array_id)
        return all(last["v"].get(k) == v for k, v in want.items())
    try:
        wait_for(check, timeout, f"array {array_id} to show {want}")
    except pytest.fail.Exception:
        pytest.fail(f"array {array_id}: squeue shows {last.get('v')}, expected {want}")
    return last["v"]


def test_array_env_and_file_names(cluster, arrays, workdir):
    a = arrays(["--array=0-3", "-o", "out-%A_%a.txt"], cwd=workdir, script=ENV_SCRIPT)
    seen_ids = set()
    for t in range(4):
        text = wait_file(os.path.join(workdir, f"out-{a}_{t}.txt"), contains="id=")
        env = parse_env(text)
        assert env["SLURM_ARRAY_JOB_ID"] == str(a)
        assert env["SLURM_ARRAY_TASK_ID"] == str(t)
        assert env["SLURM_ARRAY_TASK_COUNT"] == "4"
        assert env["SLURM_ARRAY_TASK_MIN"] == "0"
        assert env["SLURM_ARRAY_TASK_MAX"] == "3"
        assert env["SLURM_ARRAY_TASK_STEP"] == "1"
        seen_ids.add(env["id"])
    # every task is a job of its own; the last one to start took the array's id
    assert len(seen_ids) == 4 and str(a) in seen_ids
    wait_ids(cluster, a, {f"{a}_{t}": "COMPLETED" for t in range(4)})
    cp = cluster.run(["sacct", "-X", "-a", "-p", "-n", "-o", "JobID,State"])
    rows = {line.split("|")[0]: line.split("|")[1] for line in cp.stdout.splitlines()
            if line.startswith(f"{a}_")}
    assert rows == {f"{a}_{t}": "COMPLETED" for t in range(4)}, cp.stdout


def test_step_env(cluster, arrays, workdir):
    a = arrays(["--array=1-5:2", "-o", "s-%a.txt"], cwd=workdir, script=ENV_SCRIPT)
    env = parse_env(wait_file(os.path.join(workdir, "s-3.txt"), contains="id="))
    assert (env["SLURM_ARRAY_TASK_COUNT"], env["SLURM_ARRAY_TASK_MIN"],
            env["SLURM_ARRAY_TASK_MAX"], env["SLURM_ARRAY_TASK_STEP"]) == ("3", "1", "5", "2")
    assert not os.path.exists(os.path.join(workdir, "s-2.txt"))
    wait_ids(cluster, a, {f"{a}_{t}": "COMPLETED" for t in (1, 3, 5)})


def test_throttle_limits_running_tasks(cluster, arrays, workdir):
    a = arrays(["--array=0-9%3"], cwd=workdir, script="#!/bin/sh\nsleep 1\n")
    most = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        now = ids_states(cluster, a)
        running = [k for k, v in now.items() if v == "RUNNING"]
        most = max(most, len(running))
        assert len(running) <= 3, f"throttle %3 exceeded: {now}"
        if sum(v == "COMPLETED" for v in now.values()) == 10:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"array {a} did not finish: {ids_states(cluster, a)}")
    assert most >= 2, "the throttle let no tasks run side by side"


def test_one_pass_starts_many_tasks(cluster, arrays, workdir):
    st, before = cluster.api("GET", "/v1/diag")
    if st != 200:
        pytest.skip("no /v1/diag to count passes with")
    a = arrays(["--array=0-11"], cwd=workdir, script=SLEEP)
    wait_ids(cluster, a, {f"{a}_{t}": "RUNNING" for t in range(12)})
    st, after = cluster.api("GET", "/v1/diag")
    started = after["jobs_started"] - before["jobs_started"]
    passes = after["schedule_cycle_total"] - before["schedule_cycle_total"]
    assert started >= 12
    assert passes <= 4, f"{passes} passes to start 12 tasks: one per pass?"
    cluster.run(["scancel", str(a)])
    wait_ids(cluster, a, {f"{a}_{t}": "CANCELLED" for t in range(12)})


def test_pending_fold_and_cancel_forms(cluster, arrays, workdir):
    a = arrays(["--hold", "--array=0-15%8"], cwd=workdir, script=SLEEP)
    assert ids_states(cluster, a) == {f"{a}_[0-15%8]": "PENDING"}
    # as Slurm 22.05: a waiting task cancelled only leaves the waiting set
    cluster.run(["scancel", f"{a}_4"])
    wait_ids(cluster, a, {f"{a}_[0-3,5-15%8]": "PENDING"})
    cluster.run(["scancel", f"{a}_[1-3]"])
    now = wait_ids(cluster, a, {f"{a}_[0,5-15%8]": "PENDING"})
    assert now == {f"{a}_[0,5-15%8]": "PENDING"}, now
    cp = cluster.run(["scontrol", "show", "job", str(a)])
    assert f"ArrayJobId={a} ArrayTaskId=0,5-15%8" in cp.stdout, cp.stdout
    assert "ArrayTaskId=4 " not in cp.stdout, cp.stdout
    cluster.run(["scancel", str(a)])
    wait_ids(cluster, a, {f"{a}_[0,5-15%8]": "CANCELLED"})


def test_running_tasks_and_scancel(cluster, arrays, workdir):
    a = arrays(["--array=0-2"], cwd=workdir, script=SLEEP)
    wait_ids(cluster, a, {f"{a}_{t}": "RUNNING" for t in range(3)})
    cluster.run(["scancel", f"{a}_1"])
    wait_ids(cluster, a, {f"{a}_1": "CANCELLED", f"{a}_0": "RUNNING", f"{a}_2": "RUNNING"})
    cluster.run(["scancel", str(a)])
    wait_ids(cluster, a, {f"{a}_{t}": "CANCELLED" for t in range(3)})
    # as Slurm 22.05: cancelling what is not there is no error, said with -v
    cp = cluster.run(["scancel", "-v", f"{a}_7"])
    assert "Invalid job id specified" in cp.stderr, cp


def test_state_filter_splits_an_array(cluster, arrays, workdir):
    """scancel -t takes each record on its own, as Slurm's: the pending
    ones of an array go, its running tasks stay, and then -t R ends them."""
    a = arrays(["--array=0-5%2", "-J", "splitme"], cwd=workdir, script=SLEEP)
    wait_ids(cluster, a, {f"{a}_0": "RUNNING", f"{a}_1": "RUNNING",
                          f"{a}_[2-5%2]": "PENDING"})
    cluster.run(["scancel", "-t", "PD", "-n", "splitme"])
    wait_for(lambda: "PENDING" not in ids_states(cluster, a).values(), 20,
             "the array's pending tasks to be cancelled")
    time.sleep(1)   # what a wrong cancel of the whole array would have ended by now
    now = ids_states(cluster, a)
    assert (now[f"{a}_0"], now[f"{a}_1"]) == ("RUNNING", "RUNNING"), now
    cluster.run(["scancel", "-t", "R", str(a)])
    wait_ids(cluster, a, {f"{a}_0": "CANCELLED", f"{a}_1": "CANCELLED"})


def test_bad_specs_and_max_array_size(cluster, arrays, workdir):
    cp = cluster.run(["sbatch", "--array=3-1", "--wrap", "true"], cwd=workdir, check=False)
    assert cp.returncode != 0
    assert cp.stderr.strip() == "sbatch: error: Invalid job array specification", cp
    # MaxArraySize is 1001 by default: ids must be below it
    cp = cluster.run(["sbatch", "--array=0-1001", "--wrap", "true"], cwd=workdir, check=False)
    assert cp.returncode != 0
    assert cp.stderr.strip() == ("sbatch: error: Batch job submission failed: "
                                 "Invalid job array specification"), cp
    a = arrays(["--hold", "--array=1000"], cwd=workdir, script=SLEEP)
    assert ids_states(cluster, a) == {f"{a}_[1000]": "PENDING"}
    cluster.run(["scancel", str(a)])


# ---- a big array on a cluster of its own (MaxArraySize raised) ----

BIG_UP = ["--nodes", "1", "--cpus-per-node", "4", "--mem-per-node", "4000",
          "--set", "SlurmdTimeout=6", "--set", "KillWait=2", "--set", "MaxArraySize=100001",
          "--set", "MaxJobCount=200000"]   # an array counts as its tasks


@pytest.fixture(scope="module")
def bigcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "arrays", BIG_UP)


def rss_kb(pid):
    for line in read(f"/proc/{pid}/status").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_hundred_thousand_tasks_are_one_record(bigcluster, workdir):
    c = bigcluster
    warm = c.sbatch(["--hold"], cwd=workdir, script=SLEEP)   # the code paths run once
    c.run(["scancel", str(warm)])
    before = rss_kb(c.ctld_pid())
    t0 = time.monotonic()
    a = c.sbatch(["--array=0-99999", "-o", "/dev/null"], cwd=workdir, script=SLEEP)
    assert time.monotonic() - t0 < 5, "submitting the array took too long"
    now = wait_ids(c, a, {f"{a}_[4-99999]": "PENDING", f"{a}_3": "RUNNING"})
    assert len(now) == 5, now       # the meta record and the 4 tasks that fit
    grown = rss_kb(c.ctld_pid()) - before
    assert grown < 5 * 1024, f"controller RSS grew {grown} kB for one array"
    # The pending set is stored: a controller killed now forgets nothing.
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, "herdctld to die")
    c.up()
    wait_ids(c, a, {f"{a}_[4-99999]": "PENDING", f"{a}_0": "RUNNING", f"{a}_3": "RUNNING"})
    # every task by range: the waiting ones leave the meta record at once, not one by one
    t0 = time.monotonic()
    c.run(["scancel", f"{a}_[0-99999]"])
    # the last waiting task gone, the meta record shows as the bare id, as in Slurm
    wait_ids(c, a, {str(a): "CANCELLED", f"{a}_0": "CANCELLED"}, timeout=30)
    assert time.monotonic() - t0 < 10
