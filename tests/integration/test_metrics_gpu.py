"""The GPU and limit families of issue 21 item 1 that need a cluster of their
own: herdd samples through the NVML stub (GPU 0 reads 90 %, the others 0 %)
every second, limits are enforced and an idle-GPU policy flags without
acting. A running 2-GPU job shows its GPUs' utilization and memory on the
controller's /metrics/jobs under its job and user, and is gone from there
once it ends; a job whose GPU stays idle is counted as flagged; herdd's own
/metrics shows the NVIDIA exporter's families with the job's id; the
headroom families follow a QOS's MaxTRESPerUser; promtool accepts every
endpoint of both daemons."""

import os
import re
import subprocess

import pytest

from helpers import nvml_cluster, wait_for
from test_metrics import ENDPOINTS, get, promtool, samples

SLEEP = "#!/bin/sh\nexec sleep 300\n"
MIB = 1048576


def prepare(c):
    c.up_args += ["--set", "JobAcctGatherFrequency=1",
                  "--set", "IdleGPUPolicy=threshold=5,flag_after=0:02,action=none",
                  "--set", "AccountingStorageEnforce=associations,limits,qos"]


@pytest.fixture(scope="module")
def gc(tmp_path_factory, users):
    gen = nvml_cluster(tmp_path_factory, "metricsgpu",
                       ["--nodes", "1", "--gpus-per-node", "4", "--set", "KillWait=2",
                        "--set", "MetricsType=metrics/openmetrics"],
                       [90, 0, 0, 0], [2048, 0, 0, 0], prepare=prepare)
    c = next(gen)
    c.run(["sacctmgr", "-i", "add", "account", "lab"])
    c.run(["sacctmgr", "-i", "add", "user", "herdtest1,herdtest2", "account=lab"])
    try:
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture
def cwd(tmp_path):
    os.chmod(tmp_path, 0o777)
    return str(tmp_path)


def scrape(c, path):
    st, _, body = get(c.ctld_port(), path)
    assert st == 200, f"GET {path}: {st} {body[:300]}"
    return samples(body)


def agent_addr(c):
    """The node agent's address and port, from its NodeName line."""
    line = re.search(r"^NodeName=.*$", c.conf_text(), re.M).group(0)
    addr = re.search(r"\bNodeAddr=(\S+)", line)
    return (addr.group(1) if addr else "127.0.0.1"), int(re.search(r"\bPort=(\d+)", line).group(1))


def agent_get(c, path):
    import http.client
    host, port = agent_addr(c)
    conn = http.client.HTTPConnection(host, port, timeout=10)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode()
    finally:
        conn.close()


def check_promtool(text, what, tmp_path):
    f = tmp_path / (re.sub(r"\W", "_", what) + ".txt")
    f.write_text(text)
    with open(f) as inp:
        cp = subprocess.run([promtool(), "check", "metrics"], stdin=inp, capture_output=True,
                            text=True, timeout=30)
    assert cp.returncode == 0, f"promtool check metrics on {what}:\n{cp.stdout}{cp.stderr}"


def job_gpu_series(s, job):
    """{(family, gpu): value} of the job's per-GPU series."""
    out = {}
    for (name, labels), v in s.items():
        if name.startswith("herd_job_gpu_") and f'job="{job}"' in labels:
            g = re.search(r'gpu="(\d+)"', labels)
            out[(name, int(g.group(1)) if g else None)] = v
    return out


def test_running_job_gpus_on_controller_and_agent(gc, cwd, tmp_path):
    c = gc
    job = c.sbatch(["-G", "2", "-J", "two"], SLEEP, user="herdtest1", cwd=cwd)
    c.wait_state(job, "RUNNING")
    # GPUs go lowest first: the job holds 0 (90 %, 2 GiB) and 1 (0 %)
    want = {("herd_job_gpu_utilization", 0): 90.0, ("herd_job_gpu_utilization", 1): 0.0,
            ("herd_job_gpu_memory_used_bytes", 0): 2048.0 * MIB,
            ("herd_job_gpu_memory_used_bytes", 1): 0.0}

    def seen():
        got = job_gpu_series(scrape(c, "/metrics/jobs"), job)
        return all(got.get(k) == v for k, v in want.items()) and got
    got = wait_for(seen, 20, "the job's two GPUs on /metrics/jobs")
    assert got[("herd_job_gpu_utilization_mean", 0)] == 90.0, got
    body = get(c.ctld_port(), "/metrics/jobs")[2]
    line = next(ln for ln in body.splitlines()
                if ln.startswith("herd_job_gpu_utilization{") and f'job="{job}"' in ln
                and 'gpu="0"' in ln)
    assert 'user="herdtest1"' in line and 'node="' in line, line

    st, text = agent_get(c, "/metrics")
    assert st == 200, text[:300]
    assert text.endswith("# EOF\n")
    a = samples(text)
    duty = {re.search(r'minor_number="(\d+)"', k[1]).group(1): (k[1], v)
            for k, v in a.items() if k[0] == "nvidia_gpu_duty_cycle"}
    assert duty["0"][1] == 90 and f'jobid="{job}"' in duty["0"][0], duty
    assert 'user="herdtest1"' in duty["0"][0], duty
    assert duty["1"][1] == 0 and f'jobid="{job}"' in duty["1"][0], duty
    assert 'jobid=""' in duty["3"][0], duty          # no job holds GPU 3
    for fam in ("nvidia_gpu_memory_used_bytes", "nvidia_gpu_memory_total_bytes",
                "nvidia_gpu_power_usage_milliwatts", "nvidia_gpu_temperature_celsius"):
        assert sum(1 for k in a if k[0] == fam) == 4, (fam, text)
    check_promtool(text, "herdd /metrics", tmp_path)
    for path in ENDPOINTS:
        check_promtool(get(c.ctld_port(), path)[2], path, tmp_path)

    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED")
    assert wait_for(lambda: not job_gpu_series(scrape(c, "/metrics/jobs"), job), 10,
                    "the ended job's series gone")


def test_idle_job_flagged(gc, cwd):
    c = gc
    busy = c.sbatch(["-G", "1", "-J", "busy"], SLEEP, user="herdtest1", cwd=cwd)
    c.wait_state(busy, "RUNNING")
    idle = c.sbatch(["-G", "1", "-J", "idle"], SLEEP, user="herdtest2", cwd=cwd)
    c.wait_state(idle, "RUNNING")
    flag = ("herd_job_gpu_idle_flagged", f'{{job="{idle}",user="herdtest2"}}')
    wait_for(lambda: scrape(c, "/metrics/jobs").get(flag) == 1, 30, "the idle job flagged")
    s = scrape(c, "/metrics/jobs")
    assert s[("herd_jobs_gpu_idle_flagged", "")] == 1, s
    assert not any(k[0] == "herd_job_gpu_idle_flagged" and f'job="{busy}"' in k[1] for k in s)
    c.run(["scancel", str(busy), str(idle)])
    c.wait_state(idle, "CANCELLED")
    assert wait_for(lambda: scrape(c, "/metrics/jobs").get(("herd_jobs_gpu_idle_flagged", ""))
                    == 0, 10, "no flagged job left")


def test_headroom_follows_qos_limit(gc, cwd, tmp_path):
    c = gc
    c.run(["sacctmgr", "-i", "modify", "qos", "normal", "set",
           "MaxTRESPerUser=gres/gpu=2,cpu=6", "MaxJobsPerUser=3", "GrpTRES=gres/gpu=3"])
    c.run(["sacctmgr", "-i", "modify", "account", "lab", "set", "GrpTRES=gres/gpu=4"])
    c.run(["sacctmgr", "-i", "modify", "user", "herdtest1", "set", "MaxJobs=2", "GrpJobs=5"])
    try:
        job = c.sbatch(["-G", "1", "-c", "2", "-J", "one"], SLEEP, user="herdtest1", cwd=cwd)
        c.wait_state(job, "RUNNING")
        s = scrape(c, "/metrics/jobs-users-accts")
        user = 'qos="normal",username="herdtest1",resource='
        assert s[("herd_qos_user_headroom", '{' + user + '"gres/gpu"}')] == 1, s
        assert s[("herd_qos_user_headroom", '{' + user + '"cpu"}')] == 4, s
        assert s[("herd_qos_user_headroom", '{' + user + '"jobs"}')] == 2, s
        assert s[("herd_qos_headroom", '{qos="normal",resource="gres/gpu"}')] == 2, s
        acct = '{account="lab",username="",resource="gres/gpu"}'
        assert s[("herd_assoc_headroom", acct)] == 3, s
        # MaxJobs and GrpJobs of one association: one series, the lesser
        mine = [k for k in s if k[0] == "herd_assoc_headroom" and 'username="herdtest1"' in k[1]]
        assert mine == [("herd_assoc_headroom",
                         '{account="lab",username="herdtest1",resource="jobs"}')], s
        assert s[mine[0]] == 1, s
        # a user without jobs has no series
        assert not any('username="herdtest2"' in k[1] for k in s if "headroom" in k[0]), s
        check_promtool(get(c.ctld_port(), "/metrics/jobs-users-accts")[2], "useracct",
                       tmp_path)
        c.run(["scancel", str(job)])
        c.wait_state(job, "CANCELLED")
        assert wait_for(lambda: not any("headroom" in k[0]
                                        for k in scrape(c, "/metrics/jobs-users-accts")), 10,
                        "no headroom series without jobs")
    finally:
        c.run(["sacctmgr", "-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=-1",
               "MaxTRESPerUser=cpu=-1", "MaxJobsPerUser=-1", "GrpTRES=gres/gpu=-1"])
        c.run(["sacctmgr", "-i", "modify", "account", "lab", "set", "GrpTRES=gres/gpu=-1"])
        c.run(["sacctmgr", "-i", "modify", "user", "herdtest1", "set", "MaxJobs=-1",
               "GrpJobs=-1"])
