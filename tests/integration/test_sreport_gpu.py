"""sreport user/account GPUUtilization (issue 21 item 4) on real daemons:
herdd samples the jobs' GPUs through the NVML stub (readings scripted per
GPU by a file the test rewrites between jobs). herdtest1's 2-GPU job has
one GPU at 90 % and one at 0 %: 45 % utilization, half its GPU time idle.
herdtest2's 1-GPU job stays at 0 % and the idle-GPU policy cancels it. GPU
time is what sacct's ElapsedRaw times the GPUs gives; -P and --json say
what the table says."""

import json
import os
import time

import pytest

from helpers import nvml_cluster, open_dir, set_gpus


def prepare(c):
    policy = "threshold=5,flag_after=0:02,action=cancel,action_after=0:03,exempt_users=herdtest1"
    c.up_args += ["--set", "JobAcctGatherFrequency=1", "--set", f"IdleGPUPolicy={policy}",
                  "--set", "MinJobAge=600"]


@pytest.fixture(scope="module")
def gc(tmp_path_factory, users):
    # any two neighbouring GPUs are one at 90 % and one at 0 %
    gen = nvml_cluster(tmp_path_factory, "sreportgpu", ["--nodes", "1", "--gpus-per-node", "4"],
                       [90, 0, 90, 0], prepare=prepare)
    c = next(gen)
    try:
        for args in (["account", "hep"], ["account", "phys"],
                     ["user", "herdtest1", "account=hep"], ["user", "herdtest2", "account=phys"]):
            c.run(["sacctmgr", "-i", "add", *args])
        wd = tmp_path_factory.mktemp("sreport-gpu-jobs")
        open_dir(wd)
        busy = c.sbatch(["-G", "2"], cwd=str(wd), script="#!/bin/sh\nsleep 5\n",
                        user="herdtest1")
        c.wait_state(busy, "COMPLETED", timeout=40)
        set_gpus(c, [0, 0, 0, 0])
        idle = c.sbatch(["-G", "1"], cwd=str(wd), script="#!/bin/sh\nsleep 60\n",
                        user="herdtest2")
        c.wait_state(idle, "CANCELLED", timeout=40)
        c.jobs = [busy, idle]
        yield c
    finally:
        for _ in gen:
            pass


def window(c):
    """The whole hours around the jobs' runs."""
    out = c.run(["sacct", "-a", "-X", "-n", "-P", "-o", "Start,End", "-j",
                 ",".join(map(str, c.jobs))]).stdout.split()
    times = [time.mktime(time.strptime(t, "%Y-%m-%dT%H:%M:%S"))
             for row in out for t in row.split("|")]
    start, end = int(min(times)) // 3600 * 3600, (int(max(times)) // 3600 + 1) * 3600
    fmt = "%Y-%m-%dT%H:%M:%S"
    return (f"start={time.strftime(fmt, time.localtime(start))}",
            f"end={time.strftime(fmt, time.localtime(end))}", start, end)


def gpu_seconds(c, job):
    secs, tres = c.run(["sacct", "-a", "-X", "-n", "-P", "-o", "ElapsedRaw,AllocTRES", "-j",
                        str(job)]).stdout.split()[0].split("|")
    gpus = [int(t.split("=")[1]) for t in tres.split(",") if t.startswith("gres/gpu=")]
    return int(secs) * gpus[0]


COLS = ["Cluster", "Login", "Proper Name", "Account", "GPU-Secs", "Sampled GPU-Secs", "Util%",
        "Idle GPU-Secs", "Max GPU Mem", "Jobs", "IdleCancelled"]


def test_user_report_text_parsable_json_agree(gc):
    c = gc
    start, end, t0, t1 = window(c)
    one, two = gpu_seconds(c, c.jobs[0]), gpu_seconds(c, c.jobs[1])
    assert one > 0 and two > 0

    # -P: the figures
    out = c.run(["sreport", "-P", "-t", "seconds", "user", "GPUUtilization", start,
                 end]).stdout.splitlines()
    assert out[4] == "|".join(COLS), out
    rows = {r.split("|")[1]: dict(zip(COLS, r.split("|"))) for r in out[5:]}
    a, b = rows["herdtest1"], rows["herdtest2"]
    assert (a["Account"], b["Account"]) == ("hep", "phys")
    assert int(a["GPU-Secs"]) == one and int(a["Sampled GPU-Secs"]) == one, out
    assert a["Util%"] == "45.00%", out
    assert int(a["Idle GPU-Secs"]) == one // 2, "the GPU at 0 % is idle, the one at 90 % is not"
    assert a["Max GPU Mem"] == "1024M" and a["Jobs"] == "1" and a["IdleCancelled"] == "0", out
    assert int(b["GPU-Secs"]) == two and b["Util%"] == "0.00%", out
    assert int(b["Idle GPU-Secs"]) == two and b["IdleCancelled"] == "1", out
    gpu_col = [int(r.split("|")[4]) for r in out[5:]]
    assert gpu_col == sorted(gpu_col, reverse=True), "most GPU time first"

    # the table: the banner, and the same figures right-justified
    text = c.run(["sreport", "-t", "seconds", "user", "gpu", start, end]).stdout.splitlines()
    assert text[0] == text[3] == "-" * 80
    assert text[1].startswith("GPU Utilization by User ") and \
        text[1].endswith(f" ({t1 - t0} secs)"), text[1]
    assert text[2] == "Usage reported in GPU Seconds", text[2]
    assert text[4].split() == " ".join(COLS).split(), text[4]
    for line in text[6:]:
        login = line.split()[1]
        assert line.split()[-8:] == [rows[login][k] for k in COLS[3:]], (line, rows[login])

    # -t hours is the default: GPU-Hours
    hours = c.run(["sreport", "-n", "-p", "user", "GPUUtilization", start, end]).stdout
    assert hours.splitlines()[0].endswith("|"), "-p ends each field with '|'"
    by_hours = c.run(["sreport", "-P", "user", "GPUUtil", start, end]).stdout.splitlines()
    assert by_hours[4].split("|")[4] == "GPU-Hours", by_hours
    h = {r.split("|")[1]: r.split("|")[4] for r in by_hours[5:]}
    assert h["herdtest1"] == f"{one / 3600:.2f}", "hours with two decimals"

    # --json: the period and the same rows, in seconds and hours
    doc = json.loads(c.run(["sreport", "--json", "user", "GPUUtilization", start,
                            end]).stdout)
    assert doc["report"] == "user GPUUtilization" and (doc["start"], doc["end"]) == (t0, t1)
    assert doc["idle_threshold_pct"] == 5
    js = {r["login"]: r for r in doc["rows"]}
    assert js["herdtest1"]["gpu_seconds"] == one and js["herdtest1"]["util_pct"] == 45
    assert js["herdtest1"]["gpu_hours"] == pytest.approx(one / 3600)
    assert js["herdtest1"]["idle_gpu_seconds"] == one // 2
    assert js["herdtest1"]["max_gpu_mem_mb"] == 1024 and js["herdtest1"]["jobs"] == 1
    assert js["herdtest2"]["util_pct"] == 0 and js["herdtest2"]["idle_cancelled_jobs"] == 1
    assert [r["login"] for r in doc["rows"]] == [r.split("|")[1] for r in out[5:]]


def test_account_report_and_filters(gc):
    c = gc
    start, end, _, _ = window(c)
    one, two = gpu_seconds(c, c.jobs[0]), gpu_seconds(c, c.jobs[1])
    out = c.run(["sreport", "-n", "-P", "-t", "seconds", "account", "GPUUtilization", start,
                 end]).stdout.splitlines()
    rows = {r.split("|")[1]: r.split("|")[2:] for r in out}
    assert rows["hep"][:3] == [str(one), str(one), "45.00%"], out
    assert rows["phys"][:3] == [str(two), str(two), "0.00%"], out
    only = c.run(["sreport", "-n", "-P", "user", "GPUUtilization", "users=herdtest2", start,
                  end]).stdout.splitlines()
    assert [r.split("|")[1] for r in only] == ["herdtest2"], only


def test_refusals(gc):
    c = gc
    r = c.run(["sreport", "--json", "cluster", "Utilization"], check=False)
    assert r.returncode != 0 and "--json is for the GPU reports only" in r.stderr, r.stderr
    r = c.run(["sreport", "account", "bogus"], check=False)
    assert r.returncode != 0 and "Valid account reports" in r.stderr, r.stderr


def test_zz_running_job_counts_live_figures(gc, tmp_path):
    """A running job has no usage.gpu in its record yet: its live figures
    count, for its run up to now."""
    c = gc
    os.chmod(tmp_path, 0o777)
    set_gpus(c, [90, 90, 90, 90])
    job = c.sbatch(["-G", "1"], cwd=str(tmp_path), script="#!/bin/sh\nsleep 60\n",
                   user="herdtest1")
    try:
        c.wait_state(job, "RUNNING")
        start, _, _, _ = window(c)
        end = "end=now+1hours"
        row = None
        deadline = time.time() + 20
        while time.time() < deadline:
            doc = json.loads(c.run(["sreport", "--json", "user", "GPUUtilization", "users=herdtest1",
                                    start, end]).stdout)
            row = doc["rows"][0]
            if row["jobs"] == 2 and row["sampled_gpu_seconds"] > gpu_seconds(c, c.jobs[0]):
                break
            time.sleep(0.5)
        assert row["jobs"] == 2, row
        assert row["sampled_gpu_seconds"] > gpu_seconds(c, c.jobs[0]), row
        assert row["sampled_gpu_seconds"] == row["gpu_seconds"], row
        assert 45 < row["util_pct"] <= 90, row
    finally:
        c.run(["scancel", str(job)])
        c.wait_state(job, "CANCELLED")
