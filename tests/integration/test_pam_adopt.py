"""pam_herd_adopt (issue 23 item 5): ssh only into nodes where you run a job.

pamtester drives the module's account phase through a PAM service file of
the test's own (/etc/pam.d/herd-adopt-test-PID, removed at the end): a user
without a running job here is refused with pam_slurm_adopt's message, one
with a job is let in and moved into the job's cgroup (a pam_exec.so line
after the module records the cgroup its child was born in, and leaves a
process behind that the job's end must kill), root passes, and
action_no_jobs=ignore lets a user without jobs through."""

import os
import shutil
import socket
import subprocess

import pytest

from helpers import base_env, cluster_fixture, open_dir, pid_alive, read, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
MODULE = os.path.abspath(os.environ.get(
    "HERD_PAM_MODULE", os.path.join(HERE, "..", "..", "build", "lib", "security",
                                    "pam_herd_adopt.so")))
NODE = socket.gethostname().split(".")[0]
PAMTESTER = shutil.which("pamtester")

RECORD = """#!/bin/sh
# run by pam_exec.so after pam_herd_adopt, in the pamtester process's cgroup
cat /proc/self/cgroup > {d}/cgroup-$PAM_USER
setsid sleep 777 </dev/null >/dev/null 2>&1 &
echo $! > {d}/left-$PAM_USER
"""


def cgroups_usable():
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return os.access("/sys/fs/cgroup", os.W_OK)
    return all(os.access(f"/sys/fs/cgroup/{c}/cgroup.procs", os.W_OK)
               for c in ("freezer", "memory"))


@pytest.fixture(scope="module")
def pc(tmp_path_factory, users):
    if not PAMTESTER:
        pytest.skip("pamtester is not installed (apt-get install pamtester)")
    if not os.path.exists(MODULE):
        pytest.skip(f"{MODULE} is not built (make pam)")
    if os.geteuid() != 0:
        pytest.skip("pamtester's account phase for other users needs root")
    if not cgroups_usable():
        pytest.skip("this machine has no usable cgroup controller (needs v2, or v1 "
                    "freezer+memory writable under /sys/fs/cgroup)")
    gen = cluster_fixture(tmp_path_factory, "pam", ["--set", "KillWait=2"])
    c = next(gen)
    rec = os.path.join(c.dir, "record.sh")
    with open(rec, "w") as f:
        f.write(RECORD.format(d=c.dir))
    os.chmod(rec, 0o755)
    services = []

    def service(args=""):
        name = f"herd-adopt-test-{os.getpid()}-{len(services)}"
        path = f"/etc/pam.d/{name}"
        with open(path, "w") as f:
            f.write(f"account required {MODULE} service={name} log_level=debug {args}\n"
                    f"account optional pam_exec.so quiet {rec}\n"
                    "account required pam_permit.so\n")
        services.append(path)
        return name
    c.service = service
    try:
        yield c
    finally:
        for p in services:
            os.unlink(p)
        for _ in gen:
            pass


def pamtester(c, service, user):
    env = base_env(c.conf)      # SLURM_CONF: the module finds the conf as the commands do
    return subprocess.run([PAMTESTER, "-v", service, user, "acct_mgmt"], env=env,
                          capture_output=True, text=True, timeout=30)


def test_no_job_refused_with_message(pc):
    cp = pamtester(pc, pc.service(f"nodename={NODE}"), "herdtest1")
    out = cp.stdout + cp.stderr
    assert cp.returncode != 0, out
    assert "Access denied by pam_herd_adopt: you have no active jobs on this node" in out, out


def test_root_passes(pc):
    cp = pamtester(pc, pc.service(), "root")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert "account management done" in cp.stdout + cp.stderr


def test_action_no_jobs_ignore(pc):
    cp = pamtester(pc, pc.service("action_no_jobs=ignore"), "herdtest2")
    assert cp.returncode == 0, cp.stdout + cp.stderr


def test_unknown_option_logged_not_fatal(pc):
    cp = pamtester(pc, pc.service("no_such_option=1 action_no_jobs=ignore"), "herdtest2")
    assert cp.returncode == 0, cp.stdout + cp.stderr


def test_job_owner_adopted_into_job_cgroup(pc, tmp_path):
    open_dir(tmp_path)
    job = pc.sbatch(["-t", "5", "-o", "/dev/null"], script="#!/bin/sh\nsleep 300\n",
                    user="herdtest1", cwd=str(tmp_path))
    pc.wait_state(job, "RUNNING", timeout=30)
    rec, left = (os.path.join(pc.dir, f"{k}-herdtest1") for k in ("cgroup", "left"))
    for p in (rec, left):
        if os.path.exists(p):
            os.unlink(p)
    # no nodename=: the host name is the node's name under herd up
    cp = pamtester(pc, pc.service(), "herdtest1")
    assert cp.returncode == 0, cp.stdout + cp.stderr
    cg = read(rec)
    assert f"/job_{job}" in cg, f"pam_exec's child ran in {cg!r}, not job {job}'s cgroup"
    pid = int(wait_for(lambda: read(left).strip() if os.path.exists(left) else None, 10,
                       "the left-behind process's pid"))
    assert pid_alive(pid)
    # it counts as the job's: the job's end kills it
    pc.run(["scancel", str(job)])
    pc.wait_state(job, "CANCELLED", timeout=30)
    wait_for(lambda: not pid_alive(pid), 20, f"adopted pid {pid} killed with job {job}")


def test_several_jobs_action_unknown(pc, tmp_path):
    open_dir(tmp_path)
    jobs = [pc.sbatch(["-t", "5", "-o", "/dev/null"], script="#!/bin/sh\nsleep 300\n",
                      user="herdtest2", cwd=str(tmp_path)) for _ in range(2)]
    for j in jobs:
        pc.wait_state(j, "RUNNING", timeout=30)
    try:
        cp = pamtester(pc, pc.service(f"nodename={NODE} action_unknown=deny"), "herdtest2")
        assert cp.returncode != 0, cp.stdout + cp.stderr
        assert "unable to determine the job to adopt into" in cp.stdout + cp.stderr
        # the default, newest: the later of the two (same start second: the higher id)
        cp = pamtester(pc, pc.service(f"nodename={NODE}"), "herdtest2")
        assert cp.returncode == 0, cp.stdout + cp.stderr
        cg = read(os.path.join(pc.dir, "cgroup-herdtest2"))
        assert f"/job_{max(jobs)}" in cg, cg
    finally:
        pc.run(["scancel"] + [str(j) for j in jobs])
        for j in jobs:
            pc.wait_state(j, "CANCELLED", timeout=30)
