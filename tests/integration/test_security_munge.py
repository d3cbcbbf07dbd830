"""Who a TCP request speaks for (issue 24 item 3): the MUNGE credential on
each request, and nothing else. A user's credential cannot claim another
uid (body, X-SLURM-USER-NAME), an expired or replayed one is refused, and
the routes meant for node agents (the controller's /v1/node/..., the node
agent's /v1/launch, /v1/signal, ...) answer no user, on TCP or on the
controller's Unix socket."""

import http.client
import json
import os
import pwd
import time

import pytest

from helpers import munge_cred, tcp


def uid(user):
    return pwd.getpwnam(user).pw_uid


SPEC = {"script": "#!/bin/sh\ntrue\n", "name": "claim", "work_dir": "/tmp", "hold": True,
        "stdout": "/dev/null", "environment": ["PATH=/usr/bin:/bin"]}


def test_credential_cannot_claim_another_uid(cluster, users):
    """herdtest1's credential, a body and headers naming herdtest2 or root:
    the job is herdtest1's."""
    c = cluster
    port = c.ctld_port()
    body = dict(SPEC, user_id=uid("herdtest2"), group_id=0, user_name="herdtest2",
                uid=0, gid=0)
    st, ans = tcp(port, "POST", "/v1/jobs", munge_cred(c, "herdtest1"), body=body,
                  headers={"X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": "x"})
    assert st == 200, ans
    j = c.api_job(ans["job_id"])
    assert (j["user_id"], j["group_id"]) == (uid("herdtest1"), pwd.getpwnam("herdtest1").pw_gid), j
    c.run(["scancel", str(ans["job_id"])])


def test_credential_cannot_act_on_another_users_job(cluster, workdir, users):
    c = cluster
    job = c.sbatch(["--hold"], cwd=workdir, user="herdtest2", script="#!/bin/sh\ntrue\n")
    port = c.ctld_port()
    for method, path, body in (("POST", f"/v1/jobs/{job}/cancel", {}),
                               ("POST", f"/v1/jobs/{job}/update", {"name": "taken"}),
                               ("POST", f"/v1/jobs/{job}/release", {}),
                               ("DELETE", f"/slurm/v0.0.40/job/{job}", None)):
        st, ans = tcp(port, method, path, munge_cred(c, "herdtest1"), body=body,
                      headers={"X-SLURM-USER-NAME": "herdtest2"})
        assert st in (403, 500) and "denied" in json.dumps(ans).lower(), (path, st, ans)
    assert c.state(job) == "PENDING" and c.field(job, "%j") != "taken"
    c.run(["scancel", str(job)])


def test_expired_credential_refused(cluster, users):
    c = cluster
    cred = munge_cred(c, "herdtest1", ttl=1)
    time.sleep(2.5)
    st, ans = tcp(c.ctld_port(), "GET", "/v1/jobs", cred)
    assert st == 401, (st, ans)
    assert b"xpired" in (ans if isinstance(ans, bytes) else json.dumps(ans).encode()), ans
    # a fresh one passes
    st, _ = tcp(c.ctld_port(), "GET", "/v1/jobs", munge_cred(c, "herdtest1"))
    assert st == 200


def test_replayed_credential_refused(cluster, users):
    c = cluster
    cred = munge_cred(c, "herdtest1")
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    st, ans = tcp(c.ctld_port(), "POST", "/v1/jobs", cred, body=SPEC)
    assert st == 200, ans
    st, again = tcp(c.ctld_port(), "POST", "/v1/jobs", cred, body=SPEC)
    assert st == 401, (st, again)
    assert b"eplayed" in (again if isinstance(again, bytes) else json.dumps(again).encode())
    after = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    assert len(set(after) - set(before)) == 1, (before, after)
    c.run(["scancel", str(ans["job_id"])])


def node_port(c, name="node1"):
    st, nodes = c.api("GET", "/v1/nodes")
    return int(next(n["port"] for n in nodes["nodes"] if n["name"] == name))


def user_unix(c, user, method, path, body):
    """A request on the controller's Unix socket as user: its status."""
    cp = c.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method,
                "-H", "Content-Type: application/json", "--data", json.dumps(body),
                "--unix-socket", c.sock_path(), "http://localhost" + path], user=user)
    return int(cp.stdout)


def test_node_routes_refuse_users(cluster, workdir, users):
    """A user's own running job: the routes node agents report on would
    end it, register a node or book usage; a user credential (TCP) or a
    user's socket gets 403 and the job runs on."""
    c = cluster
    ready = os.path.join(workdir, "ready")
    job = c.sbatch([], cwd=workdir, user="herdtest1",
                   script=f"#!/bin/sh\ntouch {ready}\nexec sleep 60\n")
    c.wait_state(job, "RUNNING")
    end = {"job_id": job, "name": "node1", "state": "COMPLETED", "exit_code": 0,
           "exit_signal": 0, "end_time": int(time.time())}
    reg = {"name": "node1", "port": 1, "cpus": 64, "gpus": 64, "jobs": []}
    usage = {"name": "node1", "jobs": [{"job_id": job, "gpus": []}]}
    ctld = c.ctld_port()
    for path, body in (("/v1/node/job_end", end), ("/v1/node/register", reg),
                       ("/v1/node/usage", usage)):
        st, ans = tcp(ctld, "POST", path, munge_cred(c, "herdtest1"), body=body)
        assert st == 403, (path, st, ans)
        assert user_unix(c, "herdtest1", "POST", path, body) == 403, path
    # the node agent's root routes
    agent = node_port(c)
    marker = os.path.join(workdir, "launched")
    launch = {"job_id": 999999, "script": f"#!/bin/sh\ntouch {marker}\n", "user_id": 0,
              "group_id": 0, "node_name": "node1", "environment": [], "work_dir": "/tmp"}
    for path, body in (("/v1/launch", launch), ("/v1/signal", {"job_id": job, "signal": 9}),
                       ("/v1/timelimit", {"job_id": job, "time_limit": 0}),
                       ("/v1/suspend", {"job_id": job}),
                       ("/v1/output", {"job_id": job, "path": "/etc/shadow"}),
                       ("/v1/local/adopt", {"job_id": job, "pid": 1})):
        st, ans = tcp(agent, "POST", path, munge_cred(c, "herdtest1"), body=body)
        assert st == 403, (path, st, ans)
    st, ans = tcp(agent, "GET", "/v1/local/jobs", munge_cred(c, "herdtest1"))
    assert st == 403, ans
    time.sleep(1)
    assert not os.path.exists(marker)
    assert c.state(job) == "RUNNING", c.job_debug(job)
    assert c.node_states().get("node1") in ("mix", "alloc"), c.node_states()
    c.run(["scancel", str(job)])


def test_each_request_on_a_connection_needs_its_own(cluster, users):
    """Keep-alive: a request after one with a good credential is judged by
    its own; none, or the first one's again, is refused."""
    c = cluster
    cred = munge_cred(c, "herdtest1")
    conn = http.client.HTTPConnection("127.0.0.1", c.ctld_port(), timeout=15)
    got = []
    try:
        for hdrs in ({"Authorization": f"Munge {cred}"}, {},
                     {"Authorization": f"Munge {cred}"},
                     {"Authorization": f"Munge {munge_cred(c, 'herdtest2')}"}):
            conn.request("GET", "/v1/jobs", headers=hdrs)
            r = conn.getresponse()
            r.read()
            got.append(r.status)
            if r.will_close:
                conn.close()
    finally:
        conn.close()
    assert got == [200, 401, 401, 200], got


def test_node_agent_lends_no_user_its_credential(cluster, workdir, users):
    """The node agent looks a step up at the controller with its own (root)
    credential for whoever asks it to start tasks: herdtest2 naming
    herdtest1's step, or signalling it, is refused and nothing runs."""
    c = cluster
    ready = os.path.join(workdir, "step-ready")
    marker = os.path.join(workdir, "stolen")
    job = c.sbatch([], cwd=workdir, user="herdtest1",
                   script=f"#!/bin/sh\nsrun sh -c 'touch {ready}; exec sleep 60'\n")
    c.wait_state(job, "RUNNING")
    from helpers import wait_file
    wait_file(ready, timeout=30)
    agent = node_port(c, c.field(job, "%N"))
    for step in (0, 1):
        body = {"job_id": job, "step_id": step, "argv": ["touch", marker], "env": [],
                "cwd": "/tmp"}
        st, ans = tcp(agent, "POST", "/v1/steps", munge_cred(c, "herdtest2"), body=body)
        # step 0 exists: the agent got its layout and refuses; step 1 does not
        assert st == (403 if step == 0 else 404), (step, st, ans)
    st, ans = tcp(agent, "POST", "/v1/steps/signal", munge_cred(c, "herdtest2"),
                  body={"job_id": job, "step_id": 0, "signal": 9})
    assert st in (403, 404), (st, ans)
    time.sleep(1)
    assert not os.path.exists(marker)
    assert c.state(job) == "RUNNING"
    c.run(["scancel", str(job)])


@pytest.fixture(scope="module")
def sucluster(tmp_path_factory, users):
    from helpers import cluster_fixture
    yield from cluster_fixture(tmp_path_factory, "secslurmuser",
                               ["--nodes", "1", "--gpus-per-node", "1", "--cpus-per-node", "2",
                                "--mem-per-node", "2000", "--set", "SlurmUser=herdtest2"])


def test_node_agent_takes_slurmuser_as_its_controller(sucluster):
    """The controller runs as SlurmUser (the packaged unit: User=herd), so
    the node agent's root routes answer SlurmUser's credential as slurmd
    does (_slurm_authorized_user); any other user's still get 403."""
    c = sucluster
    agent = node_port(c)
    body = {"job_id": 424242, "signal": 0}
    st, ans = tcp(agent, "POST", "/v1/signal", munge_cred(c, "herdtest2"), body=body)
    assert st != 403, (st, ans)
    st, ans = tcp(agent, "POST", "/v1/signal", munge_cred(c, "herdtest1"), body=body)
    assert st == 403, (st, ans)
