"""An accounting answer larger than one batch is streamed (GET
/v1/accounting reads the store a batch at a time, each sent before the next
is read): every record once, in id order, as lines for sacct and as one
JSON document for other clients."""

import json
import socket

import pytest

from helpers import cluster_fixture, open_dir

UP = ["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000"]
N = 5000   # over the controller's batch of 4,096 rows


@pytest.fixture(scope="module")
def acluster(tmp_path_factory):
    yield from cluster_fixture(tmp_path_factory, "acctstream", UP)


def test_streamed_answer(acluster, tmp_path):
    c = acluster
    open_dir(tmp_path)
    ids = []
    defaults = {"script": "#!/bin/sh\ntrue\n", "work_dir": str(tmp_path), "hold": True}
    for k in range(N // 1000):
        st, r = c.api("POST", "/v1/jobs",
                      {"defaults": defaults, "jobs": [{"name": f"s{k}"}] * 1000}, timeout=60)
        assert st == 200 and len(r["job_ids"]) == 1000, (st, str(r)[:300])
        ids += r["job_ids"]
    c.run(["scancel", "-u", "root"])
    out = c.run(["sacct", "-a", "-X", "-n", "-P", "-s", "CA", "-S", "2000-01-01",
                 "-o", "jobid,state,jobname"]).stdout
    rows = [line.split("|") for line in out.splitlines()]
    assert [int(r[0]) for r in rows] == sorted(ids)
    assert all(r[1].startswith("CANCELLED") and r[2].startswith("s") for r in rows), rows[:3]
    # other clients get one JSON document, streamed in chunks
    st, doc = c.api("GET", "/v1/accounting?states=CANCELLED", timeout=60)
    assert st == 200 and isinstance(doc, dict), str(doc)[:300]
    assert [j["job_id"] for j in doc["jobs"]] == sorted(ids)
    assert doc["jobs"][-1]["record"]["state"] == "CANCELLED"
    # and one line each, after the time line, with only the keys asked for
    cp = c.run(["curl", "-s", "--unix-socket", c.sock_path(),
                "http://localhost/v1/accounting?states=CANCELLED&format=lines&keys=state"])
    lines = cp.stdout.splitlines()
    assert "now" in json.loads(lines[0]) and len(lines) == N + 1
    assert all(json.loads(line)["record"] == {"state": "CANCELLED"} for line in lines[1:])


def test_reader_gone_mid_stream(acluster):
    """A client that leaves while the answer streams: the controller drops
    the rest, frees what it held (the teardown reads the sanitizers'
    reports) and answers the next request."""
    c = acluster
    for _ in range(3):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10)
        s.connect(c.sock_path())
        s.sendall(b"GET /v1/accounting?states=CANCELLED HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        s.close()   # with megabytes still to come
    out = c.run(["sacct", "-a", "-X", "-n", "-P", "-s", "CA", "-S", "2000-01-01",
                 "-o", "jobid"]).stdout
    assert len(out.split()) == N


HELD = []   # connections left open until the cluster stops


def test_shutdown_mid_stream(acluster):
    """A controller stopped while an answer streams to a reader that has
    stopped reading: it exits cleanly, freeing the stream (the cluster's
    teardown, right after this last test, reads the sanitizers' reports)."""
    c = acluster
    # larger records: batches still to read once the unsent bytes pass the
    # controller's bound, so that the stream waits for its reader
    defaults = {"script": "#!/bin/sh\ntrue\n", "work_dir": "/tmp", "hold": True,
                "comment": "x" * 2000}
    for n in (1000, 1000, 1000, 500):   # 8,500 records: three batches (MaxJobCount 10,000)
        st, r = c.api("POST", "/v1/jobs", {"defaults": defaults, "jobs": [{"name": "m"}] * n},
                      timeout=60)
        assert st == 200, str(r)[:300]
    c.run(["scancel", "-u", "root"])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(c.sock_path())
    s.sendall(b"GET /v1/accounting?states=CANCELLED HTTP/1.1\r\nHost: x\r\n\r\n")
    assert s.recv(4096).startswith(b"HTTP/1.1 200")
    HELD.append(s)   # megabytes still to come, and nobody reading them
    st, r = c.api("GET", "/v1/diag")
    assert st == 200, r   # the controller still answers others meanwhile
