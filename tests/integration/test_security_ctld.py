"""The controller against a hostile user and a faulty network (issue 16):
a node that comes back after SlurmdTimeout leaves one copy of each job
running; ReturnToService; a late end report keeps the job's real end, and
dependents wait until an assumed NODE_FAIL stands;
MaxJobCount; negative --nice; the step layout's owner check;
SLURM_RESTART_COUNT; the controller's state and log readable by it alone."""

import os
import select
import signal
import stat
import subprocess
import time

import pytest

from helpers import (base_env, cluster_fixture, munge_cred, procs_matching, read, tcp,
                     wait_file, wait_for)

TIMEOUT = 4
RTS_UP = ["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000",
          "--set", f"SlurmdTimeout={TIMEOUT}", "--set", "KillWait=2",
          "--set", "ReturnToService=0"]


# The tests on this cluster idle through SlurmdTimeout and KillWait: they are
# marked `waits` and run beside the others (scripts/run-integration.sh).
@pytest.fixture(scope="module")
def rcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "secctld", RTS_UP)


def node_env(pid):
    """SLURMD_NODENAME of a job's process, read from /proc (we are root)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            env = f.read().split(b"\0")
    except OSError:
        return None
    for kv in env:
        if kv.startswith(b"SLURMD_NODENAME="):
            return kv.split(b"=", 1)[1].decode()
    return None


def copies(tag):
    """The job processes running `sleep TAG`, as (pid, node)."""
    return [(p, node_env(p)) for p, cmd in procs_matching(f"sleep {tag}")
            if cmd.split()[0].endswith("sleep")]


def node_state(c, node):
    return c.node_states().get(node, "")


def silence(c, node):
    """Stops the node's agent (its jobs' supervisors run on) until the
    controller has marked the node down; returns the agent's pid."""
    agent = c.herdd_pid(node)
    os.kill(agent, signal.SIGSTOP)
    wait_for(lambda: node_state(c, node).startswith("down"), TIMEOUT + 15,
             f"{node} to be marked down")
    return agent


def resume(c, node):
    c.run(["scontrol", "update", f"nodename={node}", "state=resume"])
    wait_for(lambda: node_state(c, node) == "idle", 15, f"{node} to be idle again")


@pytest.mark.waits
def test_returning_node_keeps_one_copy_of_a_requeued_job(rcluster, workdir):
    """The node silent past SlurmdTimeout still runs the job the controller
    requeued and started elsewhere: when its agent answers again, that copy
    is killed, and its end report does not end the run on the other node."""
    c = rcluster
    tag = "31415"
    job = c.sbatch(["--requeue", "-J", "dup", "-o", "/dev/null"], cwd=workdir,
                   script=f"#!/bin/sh\nexec /bin/sleep {tag}\n")
    c.wait_state(job, "RUNNING")
    first = c.field(job, "%N")
    other = "node2" if first == "node1" else "node1"
    wait_for(lambda: [n for _, n in copies(tag)] == [first], 15, "the job's process on " + first)
    agent = silence(c, first)
    try:
        def moved():
            return c.state(job) == "RUNNING" and c.field(job, "%N") == other
        wait_for(moved, 30, f"job {job} to be requeued and run on {other}")
        wait_for(lambda: sorted(n for _, n in copies(tag)) == sorted([first, other]), 15,
                 "a copy on each node while the first node is silent")
    finally:
        os.kill(agent, signal.SIGCONT)
    wait_for(lambda: [n for _, n in copies(tag)] == [other], 15,
             f"only the copy on {other} to run")
    # the killed copy's end report reached the controller: the run on the
    # other node goes on
    time.sleep(3)
    assert [n for _, n in copies(tag)] == [other]
    assert c.state(job) == "RUNNING" and c.field(job, "%N") == other
    assert c.api_job(job)["restarts"] == 1
    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED", timeout=20)
    wait_for(lambda: not copies(tag), 15, "no copy of the job left")
    resume(c, first)


@pytest.mark.waits
def test_node_starting_a_dropped_job_takes_no_new_work(rcluster, workdir):
    """A node that answers again while it still starts a job whose launch
    the controller took for failed (the answer was lost) holds that job's
    GPUs and CPUs: it takes no new work until a registration lists no such
    job. The registration is sent here, as the silenced agent's would be."""
    c = rcluster
    agent = silence(c, "node2")
    try:
        reg = {"name": "node2", "port": 1, "cpus": 2, "mem_mb": 2000, "gpus": 0,
               "jobs": [], "starting": [987654]}
        st, ans = tcp(c.ctld_port(), "POST", "/v1/node/register", munge_cred(c), body=reg)
        assert st == 200, ans
        c.run(["scontrol", "update", "nodename=node2", "state=resume"])
        job = c.sbatch(["-w", "node2", "-o", "/dev/null"], cwd=workdir,
                       script="#!/bin/sh\nexec /bin/sleep 1\n")
        time.sleep(3)
        assert c.state(job) == "PENDING", c.job_debug(job)
        log = read(os.path.join(c.dir, "log", "herdctld.log"))
        assert "node node2 is starting job 987654, which the controller does not hold" in log
    finally:
        os.kill(agent, signal.SIGCONT)
    # the agent's own registration lists no such job: the node takes work
    c.wait_state(job, "COMPLETED", timeout=30)


@pytest.mark.waits
def test_return_to_service_0_keeps_a_silent_node_down(rcluster, workdir):
    """Slurm's ReturnToService=0: a node marked down for not responding
    stays down when its agent answers again, with Slurm's reason, until an
    admin resumes it."""
    c = rcluster
    agent = silence(c, "node2")
    os.kill(agent, signal.SIGCONT)
    # answering again: no longer "down*" (not responding), but still down
    wait_for(lambda: node_state(c, "node2") == "down", 15, "node2 to answer again")
    time.sleep(TIMEOUT)
    assert node_state(c, "node2") == "down"
    cp = c.run(["sinfo", "-R", "-h", "-o", "%E|%N"])
    assert "Not responding|node2" in cp.stdout, cp.stdout
    job = c.sbatch(["-w", "node2", "-o", "/dev/null"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    time.sleep(2)
    assert c.state(job) == "PENDING"
    resume(c, "node2")
    c.wait_state(job, "COMPLETED", timeout=30)


def silencer_pid(c, what):
    """The process to stop so that node1 goes silent: its agent, or the
    cluster's munged (no credential, so neither heartbeats nor end reports
    reach the controller: the MUNGE outage of issue 16's item 8)."""
    if what == "herdd":
        return c.herdd_pid("node1")
    with open(os.path.join(c.dir, "munge", "munged.pid")) as f:
        return int(f.read().split()[0])


@pytest.mark.waits
@pytest.mark.parametrize("silenced,away", [("herdd", 0), ("munged", 0),
                                            ("herdd", 2 * TIMEOUT + 2)])
def test_late_end_report_keeps_the_real_end(rcluster, workdir, silenced, away):
    """A job that finishes while its node is silent is first recorded
    NODE_FAIL (the controller can only assume); the agent's late report of
    its real end (COMPLETED, its exit code, its end time) replaces that,
    however long after (`away`) the node comes back, when no dependent
    waited on the job."""
    c = rcluster
    out = os.path.join(workdir, "late.out")
    job = c.sbatch(["-w", "node1", "-o", out], cwd=workdir,
                   script="#!/bin/sh\necho started\nsleep 2\necho done\nexit 0\n")
    c.wait_state(job, "RUNNING")
    wait_file(out, contains="started")
    agent = silencer_pid(c, silenced)
    os.kill(agent, signal.SIGSTOP)
    try:
        wait_file(out, contains="done")
        c.wait_state(job, "NODE_FAIL", timeout=TIMEOUT + 15)
        time.sleep(away)
        resumed = int(time.time())
    finally:
        os.kill(agent, signal.SIGCONT)
    # NODE_FAIL until the agent's report comes (it retries with a backoff)
    wait_for(lambda: c.state(job) == "COMPLETED", 30, f"job {job}'s real end to replace NODE_FAIL")
    j = c.api_job(job)
    assert (j["exit_code"], j["exit_signal"]) == (0, 0)
    assert 0 < j["end_time"] < resumed, (j["end_time"], resumed)
    sa = c.run(["sacct", "-X", "-n", "-P", "-o", "State,ExitCode", "-j", str(job)]).stdout
    assert sa.split() == ["COMPLETED|0:0"], sa
    for node in ("node1", "node2"):     # a MUNGE outage silences both
        if node == "node1" or node_state(c, node).startswith("down"):
            resume(c, node)


def dependents(c, workdir, parent):
    """An afterok and an afternotok child of parent, on node2, cancelled
    when their dependency can never be met."""
    return [c.sbatch([f"--dependency={t}:{parent}", "--kill-on-invalid-dep=yes", "-w", "node2",
                      "-o", "/dev/null"], cwd=workdir, script="#!/bin/sh\ntrue\n")
            for t in ("afterok", "afternotok")]


@pytest.mark.waits
@pytest.mark.parametrize("node_returns", [True, False])
def test_dependents_wait_until_an_assumed_node_fail_stands(rcluster, workdir, node_returns):
    """A parent whose node falls silent is recorded NODE_FAIL, but that end
    is only assumed: its afterok and afternotok children wait (reason
    Dependency) until the node reports the real end, which they then follow,
    or until SlurmdTimeout more has passed, when the NODE_FAIL stands and no
    late report changes it (chaos seeds 24 and 1001 found children acting on
    an end that was later rewritten)."""
    c = rcluster
    out = os.path.join(workdir, f"assumed-{node_returns}.out")
    body = "sleep 2\necho done\nexit 0" if node_returns else "exec sleep 300"
    parent = c.sbatch(["-w", "node1", "-o", out], cwd=workdir,
                      script=f"#!/bin/sh\necho started\n{body}\n")
    c.wait_state(parent, "RUNNING")
    wait_file(out, contains="started")
    ok, notok = dependents(c, workdir, parent)
    agent = c.herdd_pid("node1")
    os.kill(agent, signal.SIGSTOP)
    try:
        c.wait_state(parent, "NODE_FAIL", timeout=TIMEOUT + 15)
        assert [c.state(j) for j in (ok, notok)] == ["PENDING", "PENDING"], c.job_debug(ok)
        assert c.field(ok, "%r") == "Dependency", c.job_debug(ok)
        if not node_returns:
            # nothing came within SlurmdTimeout: the NODE_FAIL stands
            c.wait_state(notok, "COMPLETED", timeout=TIMEOUT + 20)
            c.wait_state(ok, "CANCELLED", timeout=10)
    finally:
        os.kill(agent, signal.SIGCONT)
    if node_returns:
        c.wait_state(parent, "COMPLETED", timeout=30)
        c.wait_state(ok, "COMPLETED", timeout=30)
        c.wait_state(notok, "CANCELLED", timeout=10)
    else:
        # the copy the node still ran is killed; its end changes nothing
        wait_for(lambda: not procs_matching("sleep 300"), 20, "the stale copy to be killed")
        time.sleep(2)
        assert c.state(parent) == "NODE_FAIL"
    resume(c, "node1")


# --- MaxJobCount ---------------------------------------------------------

@pytest.fixture(scope="module")
def ccluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "secctldcount",
                               ["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
                                "--set", "MaxJobCount=5"])


def test_max_job_count(ccluster, workdir):
    """MaxJobCount=5: an array counts as its tasks, finished jobs count
    until MinJobAge, the next job is refused with Slurm's error, and a bulk
    request that would exceed the limit is refused whole."""
    c = ccluster
    arr = c.sbatch(["-H", "--array=0-3", "-o", "/dev/null"], cwd=workdir,
                   script="#!/bin/sh\ntrue\n")
    one = c.sbatch(["-H", "-o", "/dev/null"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    path = os.path.join(workdir, "sixth.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\ntrue\n")
    assert queue_full_line(c, ["sbatch", "-H", path], workdir) == QUEUE_FULL, \
        "sbatch did not wait out a full queue as Slurm's does"
    before = c.run(["squeue", "-h", "-t", "all", "-r", "-o", "%i"]).stdout.split()
    assert len(before) == 5, before
    st, ans = c.api("POST", "/v1/jobs", {"jobs": [{"script": "#!/bin/sh\ntrue\n", "hold": True}]})
    assert st == 400 and ans.get("code") == 2007, (st, ans)
    assert ans.get("error") == "Unable to create job record, try again", ans
    after = c.run(["squeue", "-h", "-t", "all", "-r", "-o", "%i"]).stdout.split()
    assert after == before
    # finished jobs stay in the controller's table until MinJobAge: they count
    c.run(["scancel", str(arr), str(one)])
    wait_for(lambda: c.run(["squeue", "-h", "-o", "%i"]).stdout.strip() == "", 15,
             "the jobs to be cancelled")
    assert queue_full_line(c, ["sbatch", path], workdir) == QUEUE_FULL


QUEUE_FULL = "sbatch: error: Slurm job queue full, sleeping and retrying"


def queue_full_line(c, cmd, cwd):
    """Slurm 22.05's sbatch, refused for MaxJobCount (2007, "Unable to create
    job record, try again"), says so once and retries for 120 s: the first
    line it writes, then the command is stopped."""
    p = subprocess.Popen(cmd, cwd=cwd, env=base_env(c.conf), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([p.stderr], [], [], 20)
        return p.stderr.readline().strip() if ready else None
    finally:
        p.kill()
        p.communicate(timeout=10)


# --- the shared cluster ----------------------------------------------------

def test_negative_nice_only_for_root(cluster, workdir, users):
    """As slurmctld: a user may lower a job's priority, never raise it."""
    path = os.path.join(workdir, "nice.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\ntrue\n")
    os.chmod(path, 0o755)
    cp = cluster.run(["sbatch", "-H", "--nice=-10", path], user="herdtest1", cwd=workdir,
                     check=False)
    assert cp.returncode == 1
    assert cp.stderr.strip() == \
        "sbatch: error: Batch job submission failed: Invalid --nice value", cp.stderr
    job = cluster.sbatch(["-H", "--nice=10"], user="herdtest1", cwd=workdir,
                         script="#!/bin/sh\ntrue\n")
    cp = cluster.run(["scontrol", "update", f"jobid={job}", "nice=-5"], user="herdtest1",
                     check=False)
    assert cp.returncode != 0 and "Access/permission denied" in cp.stderr, cp
    root = cluster.sbatch(["-H", "--nice=-10"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert cluster.field(root, "%y") == "-10"
    cluster.run(["scancel", str(job), str(root)])


LAYOUT = """
import http.client, json, socket, sys
class C(http.client.HTTPConnection):
    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(sys.argv[1])
c = C("localhost", timeout=10)
c.request("GET", sys.argv[2])
r = c.getresponse()
print(r.status, r.read().decode())
"""


def test_step_layout_only_for_its_owner(cluster, workdir, users):
    """GET /v1/jobs/{id}/steps/{step} (nodes, ports, GPUs of a step) answers
    the job's owner and root, not another user."""
    ready = os.path.join(workdir, "step-ready")
    job = cluster.sbatch(["-o", "/dev/null"], user="herdtest1", cwd=workdir,
                         script=f"#!/bin/sh\nsrun sh -c 'touch {ready}; exec sleep 60'\n")
    cluster.wait_state(job, "RUNNING")
    wait_file(ready, timeout=30)
    url = f"/v1/jobs/{job}/steps/0"

    def ask(user):
        cp = cluster.run(["/usr/bin/python3", "-c", LAYOUT, cluster.sock_path(), url],
                         user=user, cwd=workdir)
        return int(cp.stdout.split()[0]), cp.stdout
    st, out = ask("herdtest2")
    assert st == 403 and "Access/permission denied" in out, out
    assert ask("herdtest1")[0] == 200
    cluster.run(["scancel", str(job)])


def test_restart_count_reaches_the_next_run(cluster, workdir):
    """A job requeued with `scontrol requeue` sees SLURM_RESTART_COUNT=1 in
    its second run, and scontrol shows Restarts=1."""
    out = os.path.join(workdir, "restarts.out")
    job = cluster.sbatch(["-o", out], cwd=workdir,
                         script="#!/bin/sh\necho \"run ${SLURM_RESTART_COUNT:-none}\"\n"
                                "exec /bin/sleep 60\n")
    cluster.wait_state(job, "RUNNING")
    wait_file(out, contains="run none")
    cluster.run(["scontrol", "requeue", str(job)])
    text = wait_file(out, contains="run 1", timeout=60)
    # as Slurm, the rerun truncates the output (no --open-mode=append)
    runs = [l for l in text.splitlines() if l.startswith("run ")]
    assert runs == ["run 1"], text
    show = cluster.run(["scontrol", "show", "job", str(job)]).stdout
    assert "Restarts=1" in show, show
    cluster.run(["scancel", str(job)])


WALK = """
import os, sys
secret = sys.argv[2].encode()
readable, leaks = 0, []
for root, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        p = os.path.join(root, name)
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError:
            continue
        readable += 1
        if secret in data:
            leaks.append(p)
print(readable, " ".join(leaks))
"""


def test_state_and_log_readable_by_the_controller_alone(cluster, workdir, users):
    """A job's script and environment are in the controller's database; its
    log names jobs. Another user reads none of it (and still uses the
    cluster through the socket)."""
    secret = "s3cr3t-" + str(int(time.time() * 1e6))
    job = cluster.sbatch([f"--export=ALL,HERD_TEST_TOKEN={secret}", "-o", "/dev/null"],
                         user="herdtest1", cwd=workdir,
                         script=f"#!/bin/sh\n# {secret}\ntrue\n")
    cluster.wait_state(job, "COMPLETED")
    cp = cluster.run(["/usr/bin/python3", "-c", WALK, cluster.dir, secret], user="herdtest2",
                     cwd=workdir)
    readable, _, leaks = cp.stdout.strip().partition(" ")
    assert int(readable) > 0          # the walk did read what is public (slurm.conf)
    assert leaks == "", f"herdtest2 read the secret in {leaks}"
    state = cluster.state_dir()
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o711
    for name in os.listdir(state):
        st = os.lstat(os.path.join(state, name))
        if stat.S_ISREG(st.st_mode):
            assert stat.S_IMODE(st.st_mode) == 0o600, name
    log = os.path.join(cluster.dir, "log", "herdctld.log")
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    # the socket still serves every user
    assert str(job) in cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"],
                                   user="herdtest2").stdout
    other = cluster.sbatch(["-o", "/dev/null"], user="herdtest2", cwd=workdir,
                           script="#!/bin/sh\ntrue\n")
    cluster.wait_state(other, "COMPLETED")


def test_files_an_older_controller_left_readable_are_made_private(ccluster):
    """A cluster made before: its state directory 0755, database and log
    0644. The controller makes them private when it starts, and every user
    still reaches it."""
    c = ccluster
    c.down()
    state = c.state_dir()
    log = os.path.join(c.dir, "log", "herdctld.log")
    os.chmod(state, 0o755)
    files = [os.path.join(state, n) for n in os.listdir(state)
             if stat.S_ISREG(os.lstat(os.path.join(state, n)).st_mode)] + [log]
    assert any(f.endswith("herd.db") for f in files), files
    for f in files:
        os.chmod(f, 0o644)
    c.up()
    assert stat.S_IMODE(os.stat(state).st_mode) == 0o711
    for f in files:
        if os.path.exists(f):
            assert stat.S_IMODE(os.stat(f).st_mode) == 0o600, f
    c.run(["squeue"], user="herdtest2")
