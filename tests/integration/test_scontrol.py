"""scontrol: show job/node/partition/config in Slurm's Key=Value layout (and
-o), hostnames/hostlist without a controller, holds, requeue, updates of jobs,
nodes and partitions, --begin, ping."""

import os
import re
import time

import pytest

from helpers import read, run, wait_file, wait_for

SLEEP = "#!/bin/sh\necho run\nexec /bin/sleep 300\n"
TRUE = "#!/bin/sh\necho done\n"


def kv(text):
    """Key=Value words of a record (values without blanks, as Slurm's)."""
    out = {}
    for word in text.split():
        k, sep, v = word.partition("=")
        if sep:
            out.setdefault(k, v)
    return out


def show(cluster, *args, user=None, check=True):
    return cluster.run(["scontrol"] + list(args), user=user, check=check)


def reason(cluster, job):
    return cluster.field(job, "%r")


def test_show_job_layout(cluster, workdir):
    j = cluster.sbatch(["-H", "-J", "layout", "-t", "5", "--comment=hello", "--nice=7"],
                       cwd=workdir, script=TRUE)
    out = show(cluster, "show", "job", str(j)).stdout
    lines = out.split("\n")
    assert lines[0] == f"JobId={j} JobName=layout", out
    assert re.fullmatch(r"   UserId=root\(0\) GroupId=\S+\(0\) MCS_label=N/A", lines[1]), out
    assert all(l.startswith("   ") for l in lines[1:] if l), out
    assert out.endswith("\n\n"), repr(out[-20:])
    f = kv(out)
    assert f["JobState"] == "PENDING" and f["Reason"] == "JobHeldUser", out
    assert f["TimeLimit"] == "00:05:00" and f["Partition"] == "debug", out
    assert f["Account"] == "root" and f["Comment"] == "hello" and f["Nice"] == "7", out
    # a pending job's NodeList is blank in Slurm 22.05 (ReqNodeList says "(null)")
    assert f["Priority"] == "0" and f["NodeList"] == "", out
    assert f["StdOut"] == os.path.join(workdir, f"slurm-{j}.out"), out
    assert f["WorkDir"] == workdir and f["Command"].startswith(workdir), out
    one = show(cluster, "-o", "show", "job", str(j)).stdout
    assert one.count("\n") == 1 and one.startswith(f"JobId={j} JobName=layout UserId="), one
    assert kv(one) == f
    assert "DerivedExitCode=0:0" in show(cluster, "show", "job", str(j), "-d").stdout
    bad = show(cluster, "show", "job", "999999", check=False)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "slurm_load_jobs error: Invalid job id specified"


def test_show_node_and_partition(cluster):
    node = sorted(cluster.node_states())[0]
    out = show(cluster, "show", "node", node).stdout
    assert out.startswith(f"NodeName={node} Arch="), out
    f = kv(out)
    assert f["CPUTot"] == "8" and f["RealMemory"] == "8000" and f["Gres"] == "gpu:4", out
    assert f["Partitions"] == "debug" and f["State"] in ("IDLE", "MIXED", "ALLOCATED"), out
    assert len(show(cluster, "-o", "show", "node").stdout.strip().split("\n")) == 2
    miss = show(cluster, "show", "node", "nosuch", check=False)
    assert miss.returncode == 1 and "Node nosuch not found" in miss.stdout
    p = show(cluster, "show", "partition").stdout
    assert p.startswith("PartitionName=debug\n   AllowGroups=ALL"), p
    f = kv(p)
    assert f["TotalNodes"] == "2" and f["TotalCPUs"] == "16" and f["State"] == "UP", p
    assert f["Default"] == "YES" and f["MaxTime"] == "UNLIMITED", p


def test_hostnames_hostlist_need_no_controller(tmp_path):
    nowhere = str(tmp_path / "no-such.conf")
    cp = run(["scontrol", "show", "hostnames", "gpu[01-03],login"], conf=nowhere)
    assert cp.stdout == "gpu01\ngpu02\ngpu03\nlogin\n"
    cp = run(["scontrol", "show", "hostnames"], conf=nowhere,
             extra_env={"SLURM_JOB_NODELIST": "n[1-2]"})
    assert cp.stdout == "n1\nn2\n"
    cp = run(["scontrol", "show", "hostlist", "n1,n2,n3,n5"], conf=nowhere)
    assert cp.stdout == "n[1-3,5]\n"


def test_hold_release(cluster, workdir):
    j = cluster.sbatch(["-H"], cwd=workdir, script=TRUE)
    show(cluster, "release", str(j))
    cluster.wait_state(j, "COMPLETED")
    j = cluster.sbatch(["--begin=now+600"], cwd=workdir, script=TRUE)
    show(cluster, "hold", str(j))
    assert reason(cluster, j) == "JobHeldAdmin"
    time.sleep(1.5)
    assert cluster.state(j) == "PENDING"
    show(cluster, "update", f"JobId={j}", "StartTime=now")
    show(cluster, "release", str(j))
    cluster.wait_state(j, "COMPLETED")
    done = show(cluster, "hold", str(j), check=False)
    assert done.returncode == 1 and f"for job {j}" in done.stderr


def test_user_hold_and_other_users(cluster, workdir, users):
    u1, u2 = users
    j = cluster.sbatch(["--begin=now+600"], cwd=workdir, user=u1, script=TRUE)
    show(cluster, "uhold", str(j), user=u1)
    assert reason(cluster, j) == "JobHeldUser"
    for args in (["release", str(j)], ["update", f"JobId={j}", "Comment=x"],
                 ["requeue", str(j)]):
        cp = show(cluster, *args, user=u2, check=False)
        assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp
    cp = show(cluster, "hold", str(j), user=u1, check=False)   # an admin hold is root's
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr
    show(cluster, "release", str(j), user=u1)
    show(cluster, "update", f"JobId={j}", "StartTime=now", user=u1)
    cluster.wait_state(j, "COMPLETED")


def test_update_time_limit_and_fields(cluster, workdir, users):
    u1 = users[0]
    j = cluster.sbatch(["-H", "-t", "30"], cwd=workdir, user=u1, script=TRUE)
    show(cluster, "update", f"JobId={j}", "TimeLimit=20", user=u1)
    assert cluster.field(j, "%l") == "20:00"
    cp = show(cluster, "update", f"JobId={j}", "TimeLimit=40", user=u1, check=False)
    assert cp.returncode == 1
    assert cp.stderr.strip() == "slurm_update error: Access/permission denied"
    show(cluster, "update", f"JobId={j}", "TimeLimit=1:00:00")
    show(cluster, "update", f"JobId={j}", "Name=renamed", "Comment=new", "NumNodes=2",
         "Gres=gpu:2", "Nice=5", "Partition=debug")
    f = kv(show(cluster, "show", "job", str(j)).stdout)
    assert f["TimeLimit"] == "01:00:00" and f["JobName"] == "renamed", f
    assert f["Comment"] == "new" and f["NumNodes"] == "2" and f["Nice"] == "5", f
    assert f["TresPerNode"] == "gres:gpu:2", f   # 22.05 (23.02: "gres/gpu:2")
    cp = show(cluster, "update", f"JobId={j}", "Partition=nosuch", check=False)
    assert "Invalid partition name specified" in cp.stderr
    cp = show(cluster, "update", f"JobId={j}", "Bogus=1", check=False)
    assert "Update of this parameter is not supported: Bogus=1" in cp.stderr


def test_node_drain_resume(cluster):
    node = sorted(cluster.node_states())[-1]
    try:
        cp = show(cluster, "update", f"NodeName={node}", "State=DRAIN", check=False)
        assert cp.returncode == 1 and "must specify a reason" in cp.stderr
        show(cluster, "update", f"NodeName={node}", "State=DRAIN", "Reason=maintenance")
        assert cluster.node_states()[node].startswith("drain"), cluster.node_states()
        f = kv(show(cluster, "show", "node", node).stdout)
        assert "DRAIN" in f["State"] and f["Reason"] == "maintenance", f
    finally:
        show(cluster, "update", f"NodeName={node}", "State=RESUME")
    assert cluster.node_states()[node] in ("idle", "mix", "alloc"), cluster.node_states()


def test_partition_down_up(cluster, workdir):
    try:
        show(cluster, "update", "PartitionName=debug", "State=DOWN")
        j = cluster.sbatch([], cwd=workdir, script=TRUE)
        wait_for(lambda: reason(cluster, j) == "PartitionDown", 10, "PartitionDown")
    finally:
        show(cluster, "update", "PartitionName=debug", "State=UP")
    cluster.wait_state(j, "COMPLETED")


def test_requeue_running_job(cluster, workdir):
    j = cluster.sbatch([], cwd=workdir, script=SLEEP)
    out = os.path.join(workdir, f"slurm-{j}.out")
    cluster.wait_state(j, "RUNNING")
    wait_file(out, contains="run")
    show(cluster, "requeue", str(j))
    wait_for(lambda: "DUE TO JOB REQUEUE" in read(out), 20, "the requeue's note")
    # as Slurm: the rerun starts cred_expire + 1 s later and truncates its output
    wait_for(lambda: read(out) == "run\n", 40, "the second run's output, alone")
    cluster.wait_state(j, "RUNNING")
    assert kv(show(cluster, "show", "job", str(j)).stdout)["Restarts"] == "1"
    cluster.run(["scancel", str(j)])
    p = cluster.sbatch(["-H"], cwd=workdir, script=TRUE)
    cp = show(cluster, "requeue", str(p), check=False)
    assert cp.returncode == 1 and cp.stderr.strip() == f"Job is pending execution for job {p}"


def test_begin_time(cluster, workdir):
    j = cluster.sbatch(["--begin=now+3"], cwd=workdir, script=TRUE)
    assert cluster.state(j) == "PENDING" and reason(cluster, j) == "BeginTime"
    cluster.wait_state(j, "COMPLETED", timeout=20)
    bad = cluster.run(["sbatch", "--begin=whenever", "--wrap=true"], check=False)
    assert bad.returncode != 0 and "Invalid --begin specification" in bad.stderr


def test_ping_and_config(cluster):
    cp = show(cluster, "ping")
    assert re.fullmatch(r"Slurmctld\(primary\) at \S+ is UP\n", cp.stdout), cp.stdout
    out = show(cluster, "show", "config").stdout
    assert out.startswith("Configuration data as of "), out
    assert re.search(r"^AuthType {16}= auth/munge$", out, re.M), out
    assert re.search(r"^KillWait {16}= 2 sec$", out, re.M), out
    assert re.search(r"^SLURM_CONF {14}= " + re.escape(cluster.conf) + "$", out, re.M), out
    for key in ("ClusterName", "SlurmctldHost[0]", "SlurmctldPort", "SlurmdPort",
                "StateSaveLocation", "SlurmdSpoolDir", "SchedulerType", "SelectType",
                "SlurmdTimeout", "MinJobAge", "GresTypes", "SLURM_VERSION"):
        assert re.search("^" + re.escape(key) + r" *= \S", out, re.M), key


@pytest.mark.waits
def test_running_job_time_limit(cluster, workdir, users):
    """A running job's limit changes where it is kept, on its node: shortened
    by its owner, it ends TIMEOUT at its start plus the new limit."""
    u1 = users[0]
    j = cluster.sbatch(["-t", "30"], cwd=workdir, user=u1, script="#!/bin/sh\nexec sleep 300\n")
    cluster.wait_state(j, "RUNNING")
    cp = show(cluster, "update", f"JobId={j}", "TimeLimit=40", user=u1, check=False)
    assert cp.stderr.strip() == "slurm_update error: Access/permission denied"
    show(cluster, "update", f"JobId={j}", "TimeLimit=1", user=u1)
    assert kv(show(cluster, "show", "job", str(j)).stdout)["TimeLimit"] == "00:01:00"
    cluster.wait_state(j, "TIMEOUT", timeout=100)
    start = cluster.api_job(j)["start_time"]
    end = cluster.api_job(j)["end_time"]
    assert 55 <= end - start <= 80, (start, end)
