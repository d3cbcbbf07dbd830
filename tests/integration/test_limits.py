"""QOS and association limits under AccountingStorageEnforce, on a cluster of
its own (2 nodes x 4 GPUs): a per-user GPU cap holds the extra jobs with
Slurm's reason while another user's start, raising it with sacctmgr starts
them, group limits hold an account's users together, submit and wall limits
refuse with Slurm's text, and the limits hold across a controller kill -9."""
import os
import signal

import pytest

from helpers import cluster_fixture, pid_alive, typed_gpus, wait_for

UP = ["--nodes", "2", "--gpus-per-node", "4",
      "--set", "AccountingStorageEnforce=associations,limits,qos"]
POLICY = ("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
          "(job submit limit, user's size and/or time limits)")
SLEEP = "#!/bin/sh\nsleep 300\n"


@pytest.fixture(scope="module")
def lcluster(tmp_path_factory, users):
    def prepare(c):
        pass
    gen = cluster_fixture(tmp_path_factory, "limits", UP, prepare=prepare)
    c = next(gen)
    mgr(c, "-i", "add", "account", "lab")
    mgr(c, "-i", "add", "account", "chem", "parent=lab")
    mgr(c, "-i", "add", "user", "herdtest1", "account=lab")
    mgr(c, "-i", "add", "user", "herdtest2", "account=lab,chem")
    try:
        yield c
    finally:
        for _ in gen:
            pass


def mgr(c, *args, user=None):
    return c.run(["sacctmgr", *args], user=user)


@pytest.fixture
def clean(lcluster):
    yield lcluster
    lcluster.cancel_all()
    mgr(lcluster, "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=-1",
        "MaxSubmitJobsPerUser=-1", "MaxWall=-1", "GrpTRESRunMins=gres/gpu=-1",
        "MaxTRESMins=gres/gpu=-1", "MinTRESPerJob=gres/gpu=-1", "MaxTRESPerNode=gres/gpu=-1",
        "MaxTRESPerUser=billing=-1", "MaxTRESRunMinsPerUser=gres/gpu=-1")
    mgr(lcluster, "-i", "modify", "account", "chem", "set", "GrpTRES=gres/gpu=-1",
        "GrpTRESMins=gres/gpu=-1")


def reason(c, job):
    return c.field(job, "%r")


def test_per_user_gpu_cap(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=2")
    mine = [c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
            for _ in range(4)]
    other = c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest2")
    c.wait_state(mine[0], "RUNNING")
    c.wait_state(mine[1], "RUNNING")
    c.wait_state(other, "RUNNING")
    wait_for(lambda: reason(c, mine[2]) == "QOSMaxGRESPerUser", 15, "the limit's reason")
    assert c.state(mine[2]) == c.state(mine[3]) == "PENDING"
    assert reason(c, mine[3]) == "QOSMaxGRESPerUser"
    words = c.api_job(mine[2])["reason_text"]
    assert "herdtest1 uses 2 of the 2 GPUs allowed per user by QOS normal " \
           "(MaxTRESPerUser=gres/gpu=2)" in words, words
    assert f"job {mine[0]} ends at about" in words, words
    show = c.run(["scontrol", "show", "job", str(mine[2])]).stdout.splitlines()
    assert show[4].startswith("   Why=herdtest1 uses 2 of the 2 GPUs"), show[:6]
    assert "Reason=QOSMaxGRESPerUser" in show[3], show[3]
    import json
    listed = json.loads(c.run(["squeue", "--json"]).stdout)["jobs"]
    mine2 = [j for j in listed if j["job_id"] == mine[2]][0]
    assert mine2["state_reason"] == "QOSMaxGRESPerUser"
    assert mine2["reason_text"].startswith("herdtest1 uses 2 of the 2 GPUs"), mine2
    why = c.run(["herd", "why", str(mine[2])]).stdout
    assert why.startswith(f"Job {mine[2]} is PENDING (QOSMaxGRESPerUser): herdtest1 uses 2 of"), why
    # squeue --start counts the limit: not before the first of the user's jobs ends
    start = c.field(mine[2], "%S")
    assert start != "N/A", start
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=4")
    c.wait_state(mine[2], "RUNNING", timeout=10)
    c.wait_state(mine[3], "RUNNING", timeout=10)


def test_submit_limit_refuses(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxSubmitJobsPerUser=2")
    for _ in range(2):
        c.sbatch(["--hold"], cwd=workdir, script=SLEEP, user="herdtest1")
    cp = c.run(["sbatch", "--hold", "--wrap", "true"], user="herdtest1", cwd=workdir,
               check=False)
    assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), cp.stderr
    # another user's count is their own
    c.sbatch(["--hold"], cwd=workdir, script=SLEEP, user="herdtest2")


def test_max_wall(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxWall=00:10:00")
    cp = c.run(["sbatch", "-t", "20", "--wrap", "true"], user="herdtest1", cwd=workdir,
               check=False)
    assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), cp.stderr
    job = c.sbatch(["--hold"], cwd=workdir, script=SLEEP, user="herdtest1")
    assert c.field(job, "%l") == "10:00", "a job without -t gets MaxWall"


def test_account_group_limit(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "account", "chem", "set", "GrpTRES=gres/gpu=3")
    jobs = [c.sbatch(["-G", "2", "-t", "5", "-A", "chem"], cwd=workdir, script=SLEEP,
                     user="herdtest2") for _ in range(2)]
    c.wait_state(jobs[0], "RUNNING")
    wait_for(lambda: reason(c, jobs[1]) == "AssocGrpGRES", 15, "the account's limit")
    # the same user in another account is not held by it
    free = c.sbatch(["-G", "2", "-t", "5", "-A", "lab"], cwd=workdir, script=SLEEP,
                    user="herdtest2")
    c.wait_state(free, "RUNNING")


def test_run_minutes(clean, workdir):
    """GrpTRESRunMins counts GPUs times the minutes left to running jobs."""
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "GrpTRESRunMins=gres/gpu=20")
    first = c.sbatch(["-G", "1", "-t", "10"], cwd=workdir, script=SLEEP, user="herdtest1")
    c.wait_state(first, "RUNNING")
    second = c.sbatch(["-G", "1", "-t", "15"], cwd=workdir, script=SLEEP, user="herdtest2")
    wait_for(lambda: reason(c, second) == "QOSGrpGRESRunMinutes", 15, "the run-minutes limit")
    short = c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest2")
    c.wait_state(short, "RUNNING")
    cp = c.run(["sbatch", "-G", "1", "-t", "30", "--wrap", "true"], user="herdtest1",
               cwd=workdir, check=False)
    assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), "30 GPU-minutes never fit"


def test_run_minutes_per_user(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESRunMinsPerUser=gres/gpu=20")
    first = c.sbatch(["-G", "1", "-t", "10"], cwd=workdir, script=SLEEP, user="herdtest1")
    c.wait_state(first, "RUNNING")
    second = c.sbatch(["-G", "1", "-t", "15"], cwd=workdir, script=SLEEP, user="herdtest1")
    wait_for(lambda: reason(c, second) == "MaxGRESRunMinsPerUser", 15, "the per-user limit")
    theirs = c.sbatch(["-G", "1", "-t", "15"], cwd=workdir, script=SLEEP, user="herdtest2")
    c.wait_state(theirs, "RUNNING")


def test_per_job_minutes_and_minimum(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESMins=gres/gpu=30",
        "MinTRESPerJob=gres/gpu=1")
    for args in (["-G", "2", "-t", "20"], ["-t", "5"]):   # 40 GPU-minutes; no GPU
        cp = c.run(["sbatch", *args, "--wrap", "true"], user="herdtest1", cwd=workdir,
                   check=False)
        assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), (args, cp.stderr)
    c.sbatch(["--hold", "-G", "2", "-t", "15"], cwd=workdir, script=SLEEP, user="herdtest1")


def test_per_node(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESPerNode=gres/gpu=2")
    cp = c.run(["sbatch", "--gres=gpu:3", "--wrap", "true"], user="herdtest1", cwd=workdir,
               check=False)
    assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), cp.stderr
    c.sbatch(["--hold", "-N", "2", "--gres=gpu:2"], cwd=workdir, script=SLEEP, user="herdtest1")


def test_partition_qos(clean, workdir):
    """A partition's QOS= adds its limits to every job there (read again at
    scontrol reconfigure)."""
    c = clean
    mgr(c, "-i", "add", "qos", "part", "MaxJobsPerUser=1")
    text = c.conf_text()
    with open(c.conf, "w") as f:
        f.write(text.replace("PartitionName=debug ", "PartitionName=debug QOS=part ", 1))
    try:
        c.run(["scontrol", "reconfigure"])
        jobs = [c.sbatch(["-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
                for _ in range(2)]
        c.wait_state(jobs[0], "RUNNING")
        wait_for(lambda: reason(c, jobs[1]) == "QOSMaxJobsPerUserLimit", 15, "the partition QOS")
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
        c.run(["scontrol", "reconfigure"])


def test_billing_limit(clean, workdir):
    """Limits on billing count what fair share charges: Herd's default weighs
    a GPU as max(16, the node's CPUs per GPU)."""
    c = clean
    cpus = int(c.run(["sinfo", "-h", "-o", "%c"]).stdout.split()[0])
    bill = 1 + int(max(16.0, cpus / 4) + 0.5)
    mgr(c, "-i", "modify", "qos", "normal", "set", f"MaxTRESPerUser=billing={2 * bill}")
    jobs = [c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
            for _ in range(3)]
    c.wait_state(jobs[1], "RUNNING")
    wait_for(lambda: reason(c, jobs[2]) == "QOSMaxBillingPerUser", 15, "the billing limit")


@pytest.mark.waits
def test_spent_minutes(clean, workdir):
    """GrpTRESMins: once an account's jobs have used its GPU-minutes, its new
    jobs wait; another account's do not."""
    c = clean
    mgr(c, "-i", "modify", "account", "chem", "set", "GrpTRESMins=gres/gpu=1")
    first = c.sbatch(["-G", "4", "-t", "5", "-A", "chem"], cwd=workdir,
                     script="#!/bin/sh\nsleep 17\n", user="herdtest2")
    c.wait_state(first, "COMPLETED", timeout=60)
    after = c.sbatch(["-G", "1", "-t", "5", "-A", "chem"], cwd=workdir, script=SLEEP,
                     user="herdtest2")
    wait_for(lambda: reason(c, after) == "AssocGrpGRESMinutes", 15, "the spent limit")
    words = c.api_job(after)["reason_text"]
    assert "jobs under account chem have used" in words and "GrpTRESMins=gres/gpu=1" in words, \
        words
    other = c.sbatch(["-G", "1", "-t", "5", "-A", "lab"], cwd=workdir, script=SLEEP,
                     user="herdtest2")
    c.wait_state(other, "RUNNING")


def test_safe(clean, workdir):
    """AccountingStorageEnforce=safe: a job starts only if what it may use by
    its time limit fits what its account has left of GrpTRESMins."""
    c = clean
    text = c.conf_text()
    with open(c.conf, "w") as f:
        f.write(text.replace("AccountingStorageEnforce=associations,limits,qos",
                             "AccountingStorageEnforce=associations,limits,qos,safe"))
    try:
        c.run(["scontrol", "reconfigure"])
        mgr(c, "-i", "modify", "account", "chem", "set", "GrpTRESMins=gres/gpu=10")
        cp = c.run(["sbatch", "-G", "1", "-t", "20", "-A", "chem", "--wrap", "true"],
                   user="herdtest2", cwd=workdir, check=False)
        assert cp.returncode == 1 and POLICY in cp.stderr.splitlines(), cp.stderr
        fits = c.sbatch(["-G", "1", "-t", "8", "-A", "chem"], cwd=workdir, script=SLEEP,
                        user="herdtest2")
        c.wait_state(fits, "RUNNING")
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
        c.run(["scontrol", "reconfigure"])


def test_no_association_refused(lcluster, workdir):
    cp = lcluster.run(["sbatch", "-A", "nosuch", "--wrap", "true"], user="herdtest1",
                      cwd=workdir, check=False)
    assert cp.returncode == 1
    assert "Invalid account or account/partition combination specified" in cp.stderr
    cp = lcluster.run(["sbatch", "-q", "nosuch", "--wrap", "true"], user="herdtest1",
                      cwd=workdir, check=False)
    assert cp.returncode == 1 and "Invalid qos specification" in cp.stderr


def test_limits_hold_after_controller_kill(clean, workdir):
    c = clean
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=1")
    first = c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
    c.wait_state(first, "RUNNING")
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    c.up()
    second = c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
    wait_for(lambda: reason(c, second) == "QOSMaxGRESPerUser", 15, "the limit after restart")
    assert c.state(first) == "RUNNING"


@pytest.fixture(scope="module")
def tcluster(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "limits-typed", UP, prepare=typed_gpus)
    c = next(gen)
    mgr(c, "-i", "add", "account", "lab")
    mgr(c, "-i", "add", "user", "herdtest1", "account=lab")
    try:
        yield c
    finally:
        for _ in gen:
            pass


def test_typed_gpu_limit(tcluster, workdir):
    """MaxTRESPerUser=gres/gpu:a100=1 counts the jobs that ask for a100s (an
    untyped request is not counted against it, as in Slurm)."""
    c = tcluster
    mgr(c, "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu:a100=1")
    typed = [c.sbatch(["--gres=gpu:a100:1", "-t", "5"], cwd=workdir, script=SLEEP,
                      user="herdtest1") for _ in range(2)]
    c.wait_state(typed[0], "RUNNING")
    wait_for(lambda: reason(c, typed[1]) == "QOSMaxGRESPerUser", 15, "the typed limit")
    untyped = c.sbatch(["-G", "1", "-t", "5"], cwd=workdir, script=SLEEP, user="herdtest1")
    c.wait_state(untyped, "RUNNING")
    c.cancel_all()
