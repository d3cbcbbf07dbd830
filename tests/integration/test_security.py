"""Users and security: jobs run as their submitter, users cannot touch each
other's jobs, TCP requires MUNGE, and garbage does not bring a daemon down."""

import http.client
import os
import socket
import time

import pytest

from helpers import pid_alive, read, wait_file


def test_job_runs_as_submitter(cluster, workdir, users):
    import pwd
    pw = pwd.getpwnam("herdtest1")
    job = cluster.sbatch([], cwd=workdir, user="herdtest1",
                         script="#!/bin/sh\nid -u\nid -g\necho $USER $HOME\n")
    cluster.wait_state(job, "COMPLETED")
    path = os.path.join(workdir, f"slurm-{job}.out")
    assert read(path).splitlines() == [str(pw.pw_uid), str(pw.pw_gid),
                                      f"herdtest1 {pw.pw_dir}"]
    assert os.stat(path).st_uid == pw.pw_uid
    assert cluster.field(job, "%u") == "herdtest1"


def test_other_user_cannot_cancel_but_root_can(cluster, workdir, users):
    ready = os.path.join(workdir, "ready")
    job = cluster.sbatch([], cwd=workdir, user="herdtest1",
                         script=f"#!/bin/sh\ntouch {ready}\nexec /bin/sleep 60\n")
    cluster.wait_state(job, "RUNNING")
    wait_file(ready)
    cp = cluster.run(["scancel", str(job)], user="herdtest2", check=False)
    assert f"scancel: error: Kill job error on job id {job}: Access/permission denied" \
        in cp.stderr, cp.stderr
    time.sleep(1)
    assert cluster.state(job) == "RUNNING"
    cluster.run(["scancel", str(job)])
    cluster.wait_state(job, "CANCELLED", timeout=20)


def test_user_cannot_submit_as_someone_else(cluster, workdir, users):
    """The uid comes from authentication, never from the request body."""
    job = cluster.sbatch([], cwd=workdir, user="herdtest2", script="#!/bin/sh\nid -u\n")
    cluster.wait_state(job, "COMPLETED")
    import pwd
    assert read(os.path.join(workdir, f"slurm-{job}.out")).strip() == \
        str(pwd.getpwnam("herdtest2").pw_uid)


# --- the wire ----------------------------------------------------------

def http_status(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request(method, path, body=body, headers=headers or {})
        return c.getresponse().status
    finally:
        c.close()


def test_tcp_without_munge_refused(cluster):
    port = cluster.ctld_port()
    assert http_status(port, "GET", "/v1/jobs") in (401, 403)
    before = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    body = '{"script": "#!/bin/sh\\ntrue\\n", "name": "intruder"}'
    st = http_status(port, "POST", "/v1/jobs", body=body,
                     headers={"Content-Type": "application/json"})
    assert st in (401, 403)
    st = http_status(port, "POST", "/v1/jobs", body=body,
                     headers={"Content-Type": "application/json",
                              "Authorization": "Munge not-a-credential"})
    assert st in (401, 403)
    after = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    assert set(after) <= set(before), "a job was created without a credential"


def test_node_agent_refuses_unauthenticated_launch(cluster, workdir):
    port = node_port(cluster)
    marker = os.path.join(workdir, "launched")
    body = ('{"job_id": 999999, "script": "#!/bin/sh\\ntouch %s\\n", "user_id": 0, '
            '"group_id": 0, "node_name": "node1", "environment": [], "work_dir": "/tmp"}' % marker)
    st = http_status(port, "POST", "/v1/launch", body=body,
                     headers={"Content-Type": "application/json"})
    assert st in (401, 403)
    time.sleep(1)
    assert not os.path.exists(marker)


def node_port(c):
    st, nodes = c.api("GET", "/v1/nodes")
    assert st == 200, nodes
    for n in nodes["nodes"]:
        if n["name"] == "node1":
            return int(n["port"])
    pytest.fail(f"node1 not in {nodes}")


def send_raw(addr, data, family=socket.AF_INET, wait_answer=True):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(addr)
        try:
            s.sendall(data)
        except OSError:
            return        # the daemon closed on us: fine
        if wait_answer:
            # A daemon may answer 400 and close, or wait for the rest: both fine.
            s.settimeout(1)
            try:
                s.recv(4096)
            except OSError:
                pass
    finally:
        s.close()


def assert_still_serving(c, pids):
    dead = {f: p for f, p in pids.items() if not pid_alive(p)}
    assert not dead, f"daemons died: {dead}\n{c.log_tail()}"
    cp = c.run(["squeue", "-h", "-o", "%i"], check=False, timeout=10)
    assert cp.returncode == 0, cp.stderr
    states = c.node_states()
    assert set(states) == {"node1", "node2"} and \
        not any(s.startswith("down") for s in states.values()), states


GARBAGE = [
    ("random", os.urandom(8192)),
    ("truncated", b"POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"na"),
    ("huge-header", b"GET /v1/jobs HTTP/1.1\r\nX-Big: " + b"A" * (4 << 20) + b"\r\n\r\n"),
    ("many-headers", b"GET /v1/ping HTTP/1.1\r\n" + b"X-H: v\r\n" * 100000 + b"\r\n"),
    ("bad-request-line", b"\x00\x01GARBAGE / HTTP/9.9\r\n\r\n"),
    ("bad-length", b"POST /v1/jobs HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
    ("bad-chunked", b"POST /v1/jobs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
]


@pytest.mark.parametrize("name,data", GARBAGE, ids=[g[0] for g in GARBAGE])
def test_garbage_to_controller_tcp(cluster, name, data):
    pids = cluster.daemon_pids()
    send_raw(("127.0.0.1", cluster.ctld_port()), data)
    assert_still_serving(cluster, pids)


@pytest.mark.parametrize("name,data", GARBAGE, ids=[g[0] for g in GARBAGE])
def test_garbage_to_controller_unix_socket(cluster, name, data):
    pids = cluster.daemon_pids()
    send_raw(cluster.sock_path(), data, family=socket.AF_UNIX)
    assert_still_serving(cluster, pids)


@pytest.mark.parametrize("name,data", GARBAGE, ids=[g[0] for g in GARBAGE])
def test_garbage_to_node_agent(cluster, name, data):
    pids = cluster.daemon_pids()
    send_raw(("127.0.0.1", node_port(cluster)), data)
    assert_still_serving(cluster, pids)


@pytest.mark.parametrize("body", [b"{not json", b"[1, 2, 3]", b'{"script": 5}', b"null",
                                  b'{"name": "x", "script": "#!/bin/sh\\n", "nodes": -1}',
                                  b'{"script": "#!/bin/sh\\n", "gpus": 1e400}'],
                         ids=["invalid", "array", "wrong-type", "null", "negative", "huge"])
def test_invalid_json_over_unix_socket(cluster, body):
    pids = cluster.daemon_pids()
    before = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    from helpers import UnixHTTPConnection
    c = UnixHTTPConnection(cluster.sock_path())
    try:
        c.request("POST", "/v1/jobs", body=body, headers={"Content-Type": "application/json"})
        r = c.getresponse()
        st = r.status
        r.read()
    finally:
        c.close()
    assert 400 <= st < 500, f"POST /v1/jobs {body!r} answered {st}"
    after = cluster.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    assert set(after) <= set(before)
    assert_still_serving(cluster, pids)


def test_stalled_connection_does_not_block_others(cluster):
    """A client that sends half a request and waits must not stall the loop."""
    pids = cluster.daemon_pids()
    stalled = []
    for addr, fam in ((("127.0.0.1", cluster.ctld_port()), socket.AF_INET),
                      (cluster.sock_path(), socket.AF_UNIX)):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.connect(addr)
        s.sendall(b"POST /v1/jobs HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        stalled.append(s)
    try:
        t0 = time.monotonic()
        cp = cluster.run(["squeue", "-h"], timeout=10)
        assert time.monotonic() - t0 < 5
        assert cp.returncode == 0
    finally:
        for s in stalled:
            s.close()
    assert_still_serving(cluster, pids)
