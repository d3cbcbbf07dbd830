"""The idle-GPU policy (issue 21 item 3) on real daemons: herdd samples the
jobs' GPUs through the NVML stub (readings scripted per GPU by a file the
test rewrites), the controller flags a job whose GPUs all stay under the
threshold, runs the notify program, cancels it after the further period
with Reason IdleGPU in sacct, and leaves alone the busy job, the exempt
user's job and a job whose GPUs came back to work."""

import os

import pytest

from helpers import nvml_cluster, read, set_gpus, wait_for

NOTIFY = """#!/bin/sh
echo "$SLURM_JOB_ID $SLURM_JOB_USER $HERD_IDLE_GPU_EVENT" >> {d}/notify.log
"""


def prepare(c):
    d = c.dir
    notify = os.path.join(d, "notify.sh")
    with open(notify, "w") as f:
        f.write(NOTIFY.format(d=d))
    os.chmod(notify, 0o755)
    policy = (f"threshold=5,flag_after=0:03,action=cancel,action_after=0:08,"
              f"exempt_users=herdtest2,notify={notify}")
    c.up_args += ["--set", "JobAcctGatherFrequency=1", "--set", f"IdleGPUPolicy={policy}",
                  "--set", "MinJobAge=600"]


@pytest.fixture(scope="module")
def ic(tmp_path_factory, users):
    yield from nvml_cluster(tmp_path_factory, "idlegpu", ["--nodes", "1", "--gpus-per-node", "4"],
                            [90, 0, 0, 0], prepare=prepare)


def notices(c):
    path = os.path.join(c.dir, "notify.log")
    return read(path).split("\n") if os.path.exists(path) else []


def flagged_at(c, job):
    return c.field(job, "%i") and c.run(["squeue", "-h", "-j", str(job), "-O",
                                         "GpuIdleSince"]).stdout.strip()


def test_idle_job_flagged_told_and_cancelled(ic, tmp_path):
    c = ic
    os.chmod(tmp_path, 0o777)
    cwd = str(tmp_path)
    script = "#!/bin/sh\nsleep 300\n"
    busy = c.sbatch(["-G", "1", "-J", "busy"], script, user="herdtest1", cwd=cwd)
    c.wait_state(busy, "RUNNING")
    idle = c.sbatch(["-G", "1", "-J", "idle"], script, user="herdtest1", cwd=cwd)
    c.wait_state(idle, "RUNNING")
    exempt = c.sbatch(["-G", "1", "-J", "exempt"], script, user="herdtest2", cwd=cwd)
    c.wait_state(exempt, "RUNNING")
    # GPUs are handed out lowest first: busy has GPU 0 (90 %), idle 1, exempt 2
    assert c.run(["squeue", "-h", "-j", str(busy), "-O", "GpuUtil"]).stdout.strip() in ("", "N/A", "90%")

    wait_for(lambda: f"{idle} herdtest1 flagged" in notices(c), 30, "the idle job's flag notice")
    assert flagged_at(c, idle) not in ("", "N/A")
    show = c.run(["scontrol", "show", "job", str(idle)]).stdout
    assert "IdleGPUFlagged=" in show, show
    assert wait_for(lambda: c.run(["squeue", "-h", "-j", str(busy), "-O", "GpuUtil"])
                    .stdout.strip() == "90%", 20, "busy job's GpuUtil 90%")

    c.wait_state(idle, "CANCELLED", timeout=40)
    assert f"{idle} herdtest1 cancelled" in notices(c)
    acct = c.run(["sacct", "-j", str(idle), "-X", "-n", "-P", "-o",
                  "JobID,State,Reason,AdminComment"]).stdout
    assert f"{idle}|CANCELLED" in acct and "|IdleGPU|" in acct, acct
    assert "idle-GPU policy" in acct, acct

    # the busy job and the exempt user's job run on, never flagged
    for j in (busy, exempt):
        assert c.state(j) == "RUNNING"
        assert flagged_at(c, j) == "N/A"
        assert not any(line.startswith(f"{j} ") for line in notices(c)), notices(c)
    c.run(["scancel", str(busy), str(exempt)])
    c.wait_state(busy, "CANCELLED")
    c.wait_state(exempt, "CANCELLED")


def test_flag_cleared_when_gpus_busy_again(ic, tmp_path):
    c = ic
    os.chmod(tmp_path, 0o777)
    set_gpus(c, [0, 0, 0, 0])
    job = c.sbatch(["-G", "1", "-J", "wakes"], "#!/bin/sh\nsleep 300\n", user="herdtest1",
                   cwd=str(tmp_path))
    c.wait_state(job, "RUNNING")
    wait_for(lambda: f"{job} herdtest1 flagged" in notices(c), 30, "the flag notice")
    set_gpus(c, [80, 80, 80, 80])
    wait_for(lambda: flagged_at(c, job) == "N/A", 20, "the flag to clear")
    # past flag + action_after: still running, never cancelled
    import time
    time.sleep(10)
    assert c.state(job) == "RUNNING"
    assert f"{job} herdtest1 cancelled" not in notices(c)
    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED")
    set_gpus(c, [90, 0, 0, 0])


def test_requeue_action_after_reconfigure(ic, tmp_path):
    """action=requeue, set by scontrol reconfigure: the job goes back to the
    queue, keeps its id, and its first run shows in sacct -D."""
    c = ic
    os.chmod(tmp_path, 0o777)
    with open(c.conf) as f:
        text = f.read()
    with open(c.conf, "w") as f:
        f.write(text.replace("action=cancel", "action=requeue"))
    c.run(["scontrol", "reconfigure"])
    set_gpus(c, [0, 0, 0, 0])
    try:
        job = c.sbatch(["-G", "1", "-J", "ckpt", "--requeue"], "#!/bin/sh\nsleep 300\n",
                       user="herdtest1", cwd=str(tmp_path))
        c.wait_state(job, "RUNNING")
        wait_for(lambda: f"{job} herdtest1 requeued" in notices(c), 40, "the requeue notice")
        wait_for(lambda: c.field(job, "%n %T") and int(c.run(
            ["squeue", "-h", "-j", str(job), "-O", "RestartCnt"]).stdout.strip() or 0) >= 1,
            30, "the job back in the queue")
        runs = c.run(["sacct", "-j", str(job), "-D", "-X", "-n", "-P", "-o",
                      "JobID,State,Reason"]).stdout
        assert "REQUEUED" in runs and "IdleGPU" in runs, runs
    finally:
        with open(c.conf, "w") as f:
            f.write(text)
        c.run(["scontrol", "reconfigure"])
        c.run(["scancel", str(job)], check=False)
        set_gpus(c, [90, 0, 0, 0])


def test_bad_policy_is_refused_by_name(tmp_path):
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=x\nSlurmctldHost=localhost\n"
                    "NodeName=n1 CPUs=1 State=UNKNOWN\nPartitionName=p Nodes=n1 Default=YES\n"
                    "IdleGPUPolicy=threshold=500,flag_after=60\n")
    from helpers import HERD_BIN, run
    cp = run([os.path.join(HERD_BIN, "scontrol"), "show", "config"], check=False,
             env={"SLURM_CONF": str(conf), "PATH": os.environ.get("PATH", "")})
    assert cp.returncode != 0
    assert "IdleGPUPolicy" in cp.stderr and "threshold" in cp.stderr, cp.stderr
