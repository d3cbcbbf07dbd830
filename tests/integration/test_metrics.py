"""Slurm 25.11's metrics on the controller's port (issue 21, item 1): every
endpoint answers a plain GET over TCP without a credential (other routes
still refuse one), promtool accepts each, the GPU figures are squeue's and
sinfo's, MetricsAuthUsers restricts who reads, and a real Prometheus server
scrapes /metrics/jobs-users-accts and answers a PromQL query for the GPUs
each user holds."""

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest

from helpers import cluster_fixture, munge_cred, wait_for

UP = ["--nodes", "2", "--gpus-per-node", "4", "--cpus-per-node", "8", "--mem-per-node", "8000",
      "--set", "KillWait=2", "--set", "MetricsType=metrics/openmetrics"]
ENDPOINTS = ["/metrics/jobs", "/metrics/nodes", "/metrics/partitions",
             "/metrics/jobs-users-accts", "/metrics/scheduler"]
INDEX = ("slurmctld index of metrics endpoints:\n"
         "  '/metrics/jobs': get job metrics\n"
         "  '/metrics/nodes': get node metrics\n"
         "  '/metrics/partitions': get partition metrics\n"
         "  '/metrics/jobs-users-accts': get user and account jobs metrics\n"
         "  '/metrics/scheduler': get scheduler metrics\n")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})? (\S+)$')


@pytest.fixture(scope="module")
def mcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "metrics", UP)


@pytest.fixture(scope="module")
def gpu_jobs(mcluster, users, tmp_path_factory):
    """Three GPU jobs of two users, running: 2 + 1 GPUs for the first user,
    3 for the second."""
    c = mcluster
    wd = tmp_path_factory.mktemp("mjobs")
    os.chmod(wd, 0o777)
    script = "#!/bin/sh\nexec sleep 600\n"
    jobs = [c.sbatch(["--gpus=2", "-J", "m1"], script=script, user=users[0], cwd=str(wd)),
            c.sbatch(["--gpus=1", "-J", "m2"], script=script, user=users[0], cwd=str(wd)),
            c.sbatch(["--gpus=3", "-J", "m3"], script=script, user=users[1], cwd=str(wd))]
    for j in jobs:
        c.wait_state(j, {"RUNNING"}, timeout=30)
    yield jobs
    c.run(["scancel"] + [str(j) for j in jobs], check=False)


def get(port, path, headers=None, timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers or {})
        r = conn.getresponse()
        return r.status, r.getheader("Content-Type"), r.read().decode()
    finally:
        conn.close()


def samples(text):
    """{(name, labels text): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        out[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return out



def gpus_of_running(c):
    """{user: GPUs} of the running jobs, as scontrol show job's TRES says."""
    per_user = {}
    out = c.run(["squeue", "-h", "-t", "R", "-o", "%i %u"]).stdout.split("\n")
    for line in filter(None, out):
        jid, user = line.split()
        show = c.run(["scontrol", "show", "job", jid]).stdout
        m = re.search(r"\bTRES=\S*gres/gpu=(\d+)", show)
        per_user[user] = per_user.get(user, 0) + (int(m.group(1)) if m else 0)
    return per_user


def promtool():
    p = shutil.which("promtool")
    if not p:
        pytest.skip("promtool is missing: scripts/install-deps.sh installs Debian's prometheus")
    return p


def test_endpoints_answer_without_credential_and_pass_promtool(mcluster, gpu_jobs, tmp_path):
    c = mcluster
    port = c.ctld_port()
    tool = promtool()
    for path in ENDPOINTS:
        st, ctype, body = get(port, path)
        assert st == 200, f"GET {path}: {st} {body[:300]}"
        assert ctype == "text/plain", f"GET {path}: Content-Type {ctype}"
        assert body.endswith("# EOF\n"), f"GET {path} does not end with # EOF"
        f = tmp_path / (path.replace("/", "_") + ".txt")
        f.write_text(body)
        with open(f) as inp:
            cp = subprocess.run([tool, "check", "metrics"], stdin=inp, capture_output=True,
                                text=True, timeout=30)
        assert cp.returncode == 0, f"promtool check metrics on {path}:\n{cp.stdout}{cp.stderr}"
    assert get(port, "/metrics") == (200, "text/plain", INDEX)
    st, _, root = get(port, "/")
    assert st == 200 and root.startswith("slurmctld index of endpoints:\n")
    for probe in ("/readyz", "/livez", "/healthz"):
        assert get(port, probe) == (204, None, ""), f"GET {probe}"


def test_other_routes_still_refuse_unauthenticated_tcp(mcluster):
    """The anonymous role is the metrics' and probes' alone."""
    port = mcluster.ctld_port()
    for path in ("/v1/jobs", "/v1/nodes", "/v1/diag"):
        st, _, body = get(port, path)
        assert st == 401, f"GET {path} without a credential: {st} {body[:200]}"
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/metrics/jobs", body="{}", headers={"Content-Type": "application/json"})
        assert conn.getresponse().status in (401, 405)
    finally:
        conn.close()


def test_gpu_figures_match_squeue_and_sinfo(mcluster, gpu_jobs, users):
    c = mcluster
    port = c.ctld_port()
    per_user = gpus_of_running(c)
    assert per_user == {users[0]: 3, users[1]: 3}, per_user
    jobs = samples(get(port, "/metrics/jobs")[2])
    assert jobs[("slurm_jobs_gpus_alloc", "")] == 6
    assert jobs[("slurm_jobs_running", "")] == 3
    ua = samples(get(port, "/metrics/jobs-users-accts")[2])
    for u, n in per_user.items():
        assert ua[("slurm_user_jobs_gpus_alloc", f'{{username="{u}"}}')] == n
        assert ua[("herd_user_gpu_seconds_total", f'{{username="{u}"}}')] >= 0
    assert ua[("slurm_user_jobs_running", f'{{username="{users[0]}"}}')] == 2
    # sinfo's GRES and GRES_USED per node, against slurm_node_gpus{,_alloc}
    nodes = samples(get(port, "/metrics/nodes")[2])
    used_total = 0
    for line in c.run(["sinfo", "-N", "-h", "-O", "NodeList,Gres,GresUsed"]).stdout.splitlines():
        name, gres, used = line.split()
        total = int(re.match(r"gpu:(\d+)", gres).group(1))
        m = re.match(r"gpu:(\d+)", used)
        inuse = int(m.group(1)) if m else 0
        used_total += inuse
        assert nodes[("slurm_node_gpus", f'{{node="{name}"}}')] == total
        assert nodes[("slurm_node_gpus_alloc", f'{{node="{name}"}}')] == inuse
    assert used_total == 6
    assert nodes[("herd_gpus_idle", "")] == 8 - 6
    parts = samples(get(port, "/metrics/partitions")[2])
    part = c.run(["sinfo", "-h", "-o", "%P"]).stdout.split()[0].rstrip("*")
    assert parts[("slurm_partition_gpus", f'{{partition="{part}"}}')] == 8
    assert parts[("slurm_partition_jobs_gpus_alloc", f'{{partition="{part}"}}')] == 6


def test_herd_figures(mcluster, gpu_jobs, users, tmp_path):
    """A job that cannot fit waits with Resources; the submissions were
    counted and committed; GPU-seconds grow while the jobs run."""
    c = mcluster
    port = c.ctld_port()
    os.chmod(tmp_path, 0o777)
    big = c.sbatch(["--gpus=4", "-N1"], script="#!/bin/sh\nexec sleep 600\n", user=users[1],
                   cwd=str(tmp_path))
    try:
        def pending_resources():
            return samples(get(port, "/metrics/jobs")[2]).get(
                ("herd_jobs_pending_by_reason", '{reason="Resources"}'), 0) >= 1
        wait_for(pending_resources, 20, "the 4-GPU job to wait for Resources")
        u0 = f'{{username="{users[0]}"}}'
        before = samples(get(port, "/metrics/jobs-users-accts")[2])[
            ("herd_user_gpu_seconds_total", u0)]
        idle_before = samples(get(port, "/metrics/nodes")[2])[("herd_gpus_idle_seconds_total", "")]
        time.sleep(2)
        after = samples(get(port, "/metrics/jobs-users-accts")[2])[
            ("herd_user_gpu_seconds_total", u0)]
        assert after >= before + 3 * 1.5, (before, after)   # 3 GPUs for about 2 s
        nodes = samples(get(port, "/metrics/nodes")[2])
        assert nodes[("herd_gpus_idle", "")] == 2
        # 2 idle GPUs for about 2 s (sampled each second: one second's slack)
        idle = nodes[("herd_gpus_idle_seconds_total", "")] - idle_before
        assert 2 * 1.0 <= idle <= 2 * 4.0, idle
        sched = samples(get(port, "/metrics/scheduler")[2])
        assert sched[("herd_rpc_requests_total", '{method="POST",route="/v1/jobs"}')] >= 4
        assert sched[("herd_db_commit_seconds_count", "")] >= 4
        assert sched[("slurm_sdiag_jobs_submitted", "")] >= 4
    finally:
        c.run(["scancel", str(big)], check=False)


def set_conf(c, key, value):
    """Sets (or with value None removes) a slurm.conf line, then reconfigures."""
    lines = [ln for ln in c.conf_text().splitlines() if not ln.startswith(key + "=")]
    if value is not None:
        lines.append(f"{key}={value}")
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    c.run(["scontrol", "reconfigure"])


def test_metrics_auth_users_restricts(mcluster, users):
    c = mcluster
    port = c.ctld_port()
    set_conf(c, "MetricsAuthUsers", users[0])
    try:
        assert re.search(rf"^MetricsAuthUsers\s+= {users[0]}$",
                         c.run(["scontrol", "show", "config"]).stdout, re.M)
        st, _, body = get(port, "/metrics/jobs")
        assert st == 401 and body == ("slurmctld HTTP server request for 'GET /metrics/jobs':\n"
                                      "Failed: Invalid authentication credential\n"), (st, body)
        assert get(port, "/metrics")[0] == 401
        st, _, body = get(port, "/metrics/jobs",
                          {"Authorization": "Munge " + munge_cred(c, users[1])})
        assert st == 403 and "Failed: Operation not permitted" in body, (st, body)
        for who in (users[0], "root"):
            st, _, body = get(port, "/metrics/jobs",
                              {"Authorization": "Munge " + munge_cred(c, who)})
            assert st == 200 and "slurm_jobs " in body, (who, st, body[:200])
        # on the local socket the kernel names the caller: root reads
        st, body = c.api("GET", "/metrics/jobs")
        assert st == 200 and b"slurm_jobs " in body, (st, body[:200])
        # the probes stay open to everyone, as Slurm's
        assert get(port, "/livez")[0] == 204
    finally:
        set_conf(c, "MetricsAuthUsers", None)
    assert get(port, "/metrics/jobs")[0] == 200


def test_private_data_restricts_unless_ignored(mcluster, users):
    """PrivateData closes the metrics to all but root and SlurmUser;
    MetricsParameters=ignore_private_data opens them again."""
    c = mcluster
    port = c.ctld_port()
    set_conf(c, "PrivateData", "jobs")
    try:
        assert get(port, "/metrics/nodes")[0] == 401
        st, _, _ = get(port, "/metrics/nodes", {"Authorization": "Munge " + munge_cred(c, users[0])})
        assert st == 403
        st, _, _ = get(port, "/metrics/nodes", {"Authorization": "Munge " + munge_cred(c, "root")})
        assert st == 200
        set_conf(c, "MetricsParameters", "ignore_private_data")
        assert get(port, "/metrics/nodes")[0] == 200
    finally:
        set_conf(c, "MetricsParameters", None)
        set_conf(c, "PrivateData", None)
    assert get(port, "/metrics/nodes")[0] == 200


def test_without_metrics_type_endpoints_are_empty(cluster):
    """As Slurm's without MetricsType: 200 and nothing in the body."""
    port = cluster.ctld_port()
    assert get(port, "/metrics/jobs") == (200, "text/plain", "")
    assert get(port, "/metrics")[0] == 200


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prom_query(port, expr):
    import json
    import urllib.parse
    import urllib.request
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]


def test_prometheus_scrapes_gpus_per_user(mcluster, gpu_jobs, users, tmp_path):
    prom = shutil.which("prometheus")
    if not prom:
        pytest.skip("prometheus is missing: scripts/install-deps.sh installs Debian's prometheus")
    c = mcluster
    expected = gpus_of_running(c)
    port = free_port()
    cfg = tmp_path / "prometheus.yml"
    cfg.write_text(f"""global:
  scrape_interval: 1s
scrape_configs:
  - job_name: slurm_useracct
    metrics_path: /metrics/jobs-users-accts
    static_configs:
      - targets: ['127.0.0.1:{c.ctld_port()}']
""")
    log = open(tmp_path / "prometheus.log", "w")
    p = subprocess.Popen([prom, f"--config.file={cfg}", f"--storage.tsdb.path={tmp_path / 'data'}",
                          f"--web.listen-address=127.0.0.1:{port}"],
                         stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    got = {}
    try:
        def answered():
            nonlocal got
            if p.poll() is not None:
                pytest.fail(f"prometheus exited {p.returncode}: "
                            f"{(tmp_path / 'prometheus.log').read_text()[-2000:]}")
            try:
                res = prom_query(port, "sum by (username) (slurm_user_jobs_gpus_alloc)")
            except OSError:
                return False
            got = {r["metric"].get("username"): int(float(r["value"][1])) for r in res}
            return got == expected
        wait_for(answered, 60, f"Prometheus to report GPUs per user {expected} (last {got})")
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=5)
        log.close()
