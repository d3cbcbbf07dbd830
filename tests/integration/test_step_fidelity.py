"""Steps and scontrol show job as Slurm 22.05 prints them (checked against
a real Slurm): the extern step only under PrologFlags=Contain (which herd
up writes), squeue -s and scontrol show step layouts, %J in srun's file
names, and every key of scontrol show job in Slurm's order, with -d and
`show jobid -dd`."""

import os
import re

import pytest

from helpers import cluster_fixture, wait_file, wait_for

STEP = "#!/bin/sh\nsrun -J stp /bin/sleep 120\n"
SLEEP = "#!/bin/sh\nexec /bin/sleep 120\n"

# slurm-ref's `scontrol show job` of a held job, key by key
PENDING_KEYS = (
    "JobId JobName UserId GroupId MCS_label Priority Nice Account QOS JobState Reason "
    "Dependency Requeue Restarts BatchFlag Reboot ExitCode RunTime TimeLimit TimeMin "
    "SubmitTime EligibleTime AccrueTime StartTime EndTime Deadline SuspendTime "
    "SecsPreSuspend LastSchedEval Scheduler Partition AllocNode:Sid ReqNodeList ExcNodeList "
    "NodeList NumNodes NumCPUs NumTasks CPUs/Task ReqB:S:C:T TRES Socks/Node "
    "NtasksPerN:B:S:C CoreSpec MinCPUsNode MinMemoryNode MinTmpDiskNode Features DelayBoot "
    "OverSubscribe Contiguous Licenses Network Command WorkDir StdErr StdIn StdOut Power").split()

STEP_LINES = [["StepId", "UserId", "StartTime", "TimeLimit"],
              ["State", "Partition", "NodeList"],
              ["Nodes", "CPUs", "Tasks", "Name", "Network"], ["TRES"], ["ResvPorts"],
              ["CPUFreqReq", "Dist"], ["SrunHost:Pid"]]


def keys(text):
    return [w.split("=", 1)[0] for w in text.split() if "=" in w]


def herd_keys_out(ks):
    """Slurm's keys: without the Why= line Herd adds for a pending job (its
    words for the reason, a key of its own after Slurm's Reason=)."""
    return [k for k in ks if k != "Why"]


def step_rows(c, job):
    cp = c.run(["squeue", "-s", "-j", str(job)])
    lines = cp.stdout.splitlines()
    return lines[0], [l.split() for l in lines[1:]]


def wait_step(c, job):
    return wait_for(lambda: any(r[0] == f"{job}.0" for r in step_rows(c, job)[1]), 30,
                    f"step {job}.0 to run")


def sacct_ids(c, job):
    cp = c.run(["sacct", "-n", "-P", "-j", str(job), "-o", "JobID"])
    return cp.stdout.split()


def test_steps_with_contain(cluster, workdir):
    assert "PrologFlags             = Alloc,Contain" in \
        cluster.run(["scontrol", "show", "config"]).stdout
    j = cluster.sbatch([], cwd=workdir, script=STEP)
    try:
        wait_step(cluster, j)
        header, rows = step_rows(cluster, j)
        assert header == "         STEPID     NAME PARTITION     USER      TIME NODELIST", header
        node = cluster.field(j, "%N")
        assert [r[:4] + r[5:] for r in rows] == [
            [f"{j}.0", "stp", "debug", "root", node],
            [f"{j}.batch", "batch", "debug", "root", node],
            [f"{j}.extern", "extern", "debug", "root", node]], rows
        one = cluster.run(["squeue", "-h", f"--steps={j}.batch", "-o", "%i|%j|%A"]).stdout
        assert one == f"{j}.batch|batch|1\n", one
        out = cluster.run(["scontrol", "show", "step", f"{j}.0"]).stdout
        lines = out.rstrip("\n").split("\n")
        assert [keys(l) for l in lines] == STEP_LINES, out
        assert out.endswith("\n\n") and all(l.startswith("   ") for l in lines[1:]), out
        assert "Name=stp " in out and "TRES=cpu=1,mem=0,node=1" in out, out
        out = cluster.run(["scontrol", "show", "step", str(j)]).stdout
        assert re.findall(r"^StepId=(\S+)", out, re.M) == [f"{j}.extern", f"{j}.batch",
                                                            f"{j}.0"], out
        assert "Name=extern" in out and "TRES=(null)" in out, out
        assert f"{j}.extern" in sacct_ids(cluster, j)
    finally:
        cluster.run(["scancel", str(j)], check=False)
    bad = cluster.run(["scontrol", "show", "step", "999999.0"], check=False)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "slurm_get_job_steps error: Invalid job id specified"


@pytest.fixture(scope="module")
def plain(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "nocontain",
                               ["--nodes", "1", "--set", "KillWait=2",
                                "--set", "PrologFlags=Alloc"])


def test_no_extern_step_without_contain(plain, workdir):
    j = plain.sbatch([], cwd=workdir, script=STEP)
    try:
        wait_step(plain, j)
        _, rows = step_rows(plain, j)
        assert [r[0] for r in rows] == [f"{j}.0", f"{j}.batch"], rows
        out = plain.run(["scontrol", "show", "step", str(j)]).stdout
        assert "extern" not in out, out
    finally:
        plain.run(["scancel", str(j)])
    plain.wait_state(j, "CANCELLED")
    ids = wait_for(lambda: (lambda v: v if f"{j}.batch" in v else None)(sacct_ids(plain, j)),
                   20, "the batch step in sacct")
    assert f"{j}.extern" not in ids, ids
    # Slurm lists the flags slurm.conf gives
    assert "PrologFlags             = Alloc" in plain.run(["scontrol", "show", "config"]).stdout


def test_srun_file_codes(cluster, workdir):
    body = "#!/bin/sh\nsrun -n2 -o 'o-%J-%t-%s-%2n.txt' echo hi\n"
    j = cluster.sbatch(["-n", "2"], cwd=workdir, script=body)
    for t in (0, 1):
        assert wait_file(os.path.join(workdir, f"o-{j}.0-{t}-0-00.txt"), contains="hi") == "hi\n"


def test_show_job_keys(cluster, workdir):
    j = cluster.sbatch(["-H", "-N", "1"], cwd=workdir, script=SLEEP)
    try:
        out = cluster.run(["scontrol", "show", "job", str(j)]).stdout
        assert herd_keys_out(keys(out)) == PENDING_KEYS, out
        f = dict(w.split("=", 1) for w in out.split() if "=" in w)
        assert f["NumNodes"] == "1-1" and f["QOS"] == "normal" and f["Requeue"] in "01", out
        assert f["TRES"].startswith("cpu=1,") and ",node=1,billing=1" in f["TRES"], out
        assert "\n   NodeList=\n" in out, out
        same = cluster.run(["scontrol", "show", "jobid", str(j)]).stdout
        assert same == out
        r = cluster.sbatch(["-H", "-N", "1-2"], cwd=workdir, script=SLEEP)
        cluster.run(["scontrol", "update", f"JobId={r}", "NumNodes=2"], check=False)
        out = cluster.run(["scontrol", "show", "job", str(r)]).stdout
        assert "   NumNodes=2 NumCPUs=" in out, out   # updated: bare, as Slurm's
        cluster.run(["scancel", str(r)])
        r = cluster.sbatch(["-H", "-N", "1-2"], cwd=workdir, script=SLEEP)
        out = cluster.run(["scontrol", "show", "job", str(r)]).stdout
        cluster.run(["scancel", str(r)])
        assert "   NumNodes=1-2 NumCPUs=" in out, out
    finally:
        cluster.run(["scancel", str(j)], check=False)
    j = cluster.sbatch(["--gpus-per-node=1"], cwd=workdir, script=SLEEP)
    try:
        cluster.wait_state(j, "RUNNING")
        out = cluster.run(["scontrol", "show", "job", str(j)]).stdout
        want = PENDING_KEYS[:]
        want.insert(want.index("NodeList") + 1, "BatchHost")
        assert herd_keys_out(keys(out)) == want + ["TresPerNode"], out
        f = dict(w.split("=", 1) for w in out.split() if "=" in w)
        assert f["NumNodes"] == "1" and f["TRES"].endswith(",gres/gpu=1"), out
        for args in (["-d", "show", "job", str(j)], ["show", "jobid", "-dd", str(j)]):
            d = cluster.run(["scontrol"] + args).stdout
            lines = d.split("\n")
            assert lines[5].startswith("   DerivedExitCode=0:0"), d
            at = next(i for i, l in enumerate(lines) if l.startswith("   Socks/Node="))
            assert lines[at + 1] == "   JOB_GRES=gpu:1", d
            assert re.fullmatch(r"     Nodes=\S+ CPU_IDs=\S+ Mem=\d+ GRES=gpu:1\(IDX:\d\)",
                                lines[at + 2]), d
    finally:
        cluster.run(["scancel", str(j)], check=False)
