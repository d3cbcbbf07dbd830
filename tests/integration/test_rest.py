"""The slurmrestd-compatible subset (issue 22, item 2): a client that knows
only slurmrestd's v0.0.40 API, written with nothing but urllib, submits,
lists, reads, cancels and finds in accounting a job on real daemons over
TCP with a MUNGE credential; another user's DELETE is refused; errors have
slurmrestd's `errors` array; ping, diag, nodes, node, partitions and
reservations answer in v0.0.40's shapes."""

import json
import os
import re
import urllib.error
import urllib.request

import pytest

from helpers import cluster_fixture, munge_cred, wait_for

UP = ["--nodes", "2", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "KillWait=2"]
V = "v0.0.40"


@pytest.fixture(scope="module")
def rcluster(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "rest", UP)
    c = next(gen)
    c.partition = c.run(["sinfo", "-h", "-o", "%R"]).stdout.split()[0]
    yield c
    next(gen, None)   # herd down, and the teardown checks



def jwt(c, user):
    """user's token, as `scontrol token` prints it (SLURM_JWT=...)."""
    out = c.run(["scontrol", "token"], user=user).stdout.strip()
    assert out.startswith("SLURM_JWT="), out
    return out.split("=", 1)[1]


def rest(c, method, path, user, body=None, timeout=10, token=None):
    """(status, parsed body) of one request as a slurmrestd client sends it:
    with a MUNGE credential of user's, or with token (slurmrestd's headers)."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{c.ctld_port()}{path}", data=data,
                                 method=method)
    if token is not None:
        req.add_header("X-SLURM-USER-NAME", user)
        req.add_header("X-SLURM-USER-TOKEN", token)
    else:
        req.add_header("Authorization", "Munge " + munge_cred(c, user))
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw


def is_noval(v):
    return (isinstance(v, dict) and isinstance(v.get("set"), bool)
            and isinstance(v.get("infinite"), bool) and isinstance(v.get("number"), int))


def check_envelope(body, errors=False):
    for k in ("meta", "errors", "warnings"):
        assert k in body, (k, body)
    assert isinstance(body["errors"], list) and isinstance(body["warnings"], list)
    assert bool(body["errors"]) == errors, body["errors"]
    m = body["meta"]
    assert m["plugin"]["data_parser"] == "data_parser/v0.0.40", m
    assert m["slurm"]["version"]["major"] and m["slurm"]["cluster"], m


def check_error(body, number, text):
    check_envelope(body, errors=True)
    e = body["errors"][0]
    assert e["error_number"] == number and e["error"] == text, e
    assert isinstance(e["description"], str) and isinstance(e["source"], str), e


def submit(c, user, wd, job=None, script="#!/bin/sh\nexec sleep 300\n", token=None):
    desc = {"name": "restjob", "partition": c.partition, "current_working_directory": wd,
            "environment": ["PATH=/bin:/usr/bin", "REST_SAYS=hello"],
            "time_limit": {"set": True, "infinite": False, "number": 10},
            "tres_per_node": "gres/gpu:1", "tasks": 1, "cpus_per_task": 2}
    desc.update(job or {})
    return rest(c, "POST", f"/slurm/{V}/job/submit", user, {"script": script, "job": desc},
                token=token)


@pytest.fixture(scope="module")
def wd(tmp_path_factory):
    d = tmp_path_factory.mktemp("restwd")
    os.chmod(d, 0o777)
    return str(d)


def test_job_lifecycle(rcluster, users, wd):
    c = rcluster
    st, body = submit(c, users[0], wd, {"user_id": "0"})
    assert st == 200, body
    check_envelope(body)
    jid = body["job_id"]
    assert isinstance(jid, int) and body["step_id"] == "batch", body
    assert body["job_submit_user_msg"] == "", body
    assert body["warnings"], "user_id in the body should be answered with a warning"

    def running():
        st, b = rest(c, "GET", f"/slurm/{V}/job/{jid}", users[0])
        assert st == 200, b
        return b if b["jobs"][0]["job_state"] == ["RUNNING"] else None
    b = wait_for(running, 30, f"job {jid} RUNNING")
    check_envelope(b)
    assert is_noval(b["last_update"]), b
    j = b["jobs"][0]
    # it runs as the caller, never as the user_id the body named
    assert j["user_name"] == users[0] and j["user_id"] != 0, j
    assert j["job_id"] == jid and j["name"] == "restjob" and j["partition"] == c.partition, j
    assert j["time_limit"] == {"set": True, "infinite": False, "number": 10}, j
    assert j["current_working_directory"] == wd, j
    assert j["nodes"] and j["node_count"]["number"] == 1, j
    assert re.fullmatch(r"cpu=2,mem=\d+M,node=1,billing=2,gres/gpu=1", j["tres_req_str"]), j
    assert j["tres_per_node"] == "gres/gpu:1", j
    for k in ("submit_time", "start_time", "end_time", "priority", "cpus", "tasks"):
        assert is_noval(j[k]), (k, j[k])
    assert j["start_time"]["set"] and j["start_time"]["number"] > 0, j
    assert j["exit_code"]["status"] == ["PENDING"], j

    st, b = rest(c, "GET", f"/slurm/{V}/jobs", users[1])
    assert st == 200, b
    check_envelope(b)
    assert [x["job_id"] for x in b["jobs"]].count(jid) == 1, b

    # another user may not cancel it: slurmrestd's errors array
    st, b = rest(c, "DELETE", f"/slurm/{V}/job/{jid}", users[1])
    assert st == 500, (st, b)
    check_error(b, 2002, "Access/permission denied")
    assert c.state(jid) == "RUNNING"

    st, b = rest(c, "DELETE", f"/slurm/{V}/job/{jid}", users[0])
    assert st == 200, b
    check_envelope(b)
    wait_for(lambda: c.state(jid) == "CANCELLED", 30, f"job {jid} CANCELLED")
    st, b = rest(c, "GET", f"/slurm/{V}/job/{jid}", users[0])
    assert st == 200 and b["jobs"][0]["job_state"] == ["CANCELLED"], b

    def in_db():
        st, b = rest(c, "GET", f"/slurmdb/{V}/jobs?users={users[0]}", users[0])
        assert st == 200, b
        hit = [x for x in b["jobs"] if x["job_id"] == jid]
        return (b, hit[0]) if hit and hit[0]["state"]["current"] == ["CANCELLED"] else None
    b, a = wait_for(in_db, 30, f"job {jid} in /slurmdb jobs")
    check_envelope(b)
    assert a["user"] == users[0] and a["name"] == "restjob" and a["partition"] == c.partition, a
    assert a["time"]["limit"] == {"set": True, "infinite": False, "number": 10}, a
    assert a["time"]["start"] > 0 and a["time"]["end"] >= a["time"]["start"], a
    assert isinstance(a["time"]["elapsed"], int), a
    assert is_noval(a["exit_code"]["return_code"]), a
    assert any(t["type"] == "gres" and t["name"] == "gpu" and t["count"] == 1
               for t in a["tres"]["requested"]), a
    assert a["nodes"] == j["nodes"], a
    st, b = rest(c, "GET", f"/slurmdb/{V}/job/{jid}", users[0])
    assert st == 200 and [x["job_id"] for x in b["jobs"]] == [jid], b
    # the filters: another user's name finds none of it
    st, b = rest(c, "GET", f"/slurmdb/{V}/jobs?users={users[1]}", users[0])
    assert st == 200 and jid not in [x["job_id"] for x in b["jobs"]], b


def test_pending_job_and_delete(rcluster, users, wd):
    """A job that cannot start yet (held) is listed PENDING and cancelled by
    DELETE once its end is stored."""
    c = rcluster
    st, body = submit(c, users[1], wd, {"hold": True, "time_limit": 5})
    assert st == 200, body
    jid = body["job_id"]
    st, b = rest(c, "GET", f"/slurm/{V}/job/{jid}", users[1])
    j = b["jobs"][0]
    assert j["job_state"] == ["PENDING"] and j["hold"] is True, j
    assert j["time_limit"]["number"] == 5 and j["user_name"] == users[1], j
    assert not j["start_time"]["set"], j
    st, b = rest(c, "DELETE", f"/slurm/{V}/job/{jid}", users[1])
    assert st == 200, b
    assert c.state(jid) == "CANCELLED"


def test_token_auth(rcluster, users, wd):
    """slurmrestd's usual client: X-SLURM-USER-NAME and X-SLURM-USER-TOKEN
    from `scontrol token`; the job is the token's user's, and another
    user's token cannot cancel it."""
    c = rcluster
    mine, theirs = jwt(c, users[0]), jwt(c, users[1])
    st, b = submit(c, users[0], wd, {"hold": True}, token=mine)
    assert st == 200, b
    jid = b["job_id"]
    st, b = rest(c, "GET", f"/slurm/{V}/job/{jid}", users[0], token=mine)
    assert st == 200 and b["jobs"][0]["user_name"] == users[0], b
    assert b["meta"]["client"]["user"] == users[0], b["meta"]
    st, b = rest(c, "DELETE", f"/slurm/{V}/job/{jid}", users[1], token=theirs)
    assert st == 500, b
    check_error(b, 2002, "Access/permission denied")
    # a token speaks only for its own user
    st, _ = rest(c, "GET", f"/slurm/{V}/ping", users[1], token=mine)
    assert st == 401
    st, b = rest(c, "DELETE", f"/slurm/{V}/job/{jid}", users[0], token=mine)
    assert st == 200, b
    assert c.state(jid) == "CANCELLED"


def test_errors(rcluster, users, wd):
    c = rcluster
    for method in ("GET", "DELETE"):
        st, b = rest(c, method, f"/slurm/{V}/job/999999", users[0])
        assert st == 500, (method, st, b)
        check_error(b, 2017, "Invalid job id specified")
    st, b = rest(c, "GET", f"/slurmdb/{V}/job/999999", users[0])
    check_error(b, 2017, "Invalid job id specified")
    st, b = rest(c, "GET", f"/slurm/{V}/node/nosuchnode", users[0])
    check_error(b, 2018, "Invalid node name specified")
    # a bad description: 400 with the field named
    st, b = submit(c, users[0], wd, {"tasks": "many"})
    assert st == 400, b
    assert "job.tasks" in b["errors"][0]["description"], b
    # what slurmctld refuses: Slurm's code and words
    st, b = submit(c, users[0], wd, {"partition": "nosuchpart"})
    assert st == 500, b
    check_error(b, 2000, "Invalid partition name specified")
    st, b = rest(c, "POST", f"/slurm/{V}/job/submit", users[0], {"script": "#!/bin/sh\n"})
    assert st == 400, b
    # a bad query value on accounting
    st, b = rest(c, "GET", f"/slurmdb/{V}/jobs?start_time=yesterday", users[0])
    assert st == 400 and b["errors"], b
    # without a credential: refused before any handler
    req = urllib.request.Request(f"http://127.0.0.1:{c.ctld_port()}/slurm/{V}/ping")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=10)
    assert e.value.code == 401


GARBAGE = [
    {"job": "not an object"},
    {"job": {"tasks": {"set": True}}},
    {"job": {"nodes": "many"}},
    {"job": {"nodes": [1, 2]}},
    {"job": {"time_limit": {"set": True, "number": "10"}}},
    {"job": {"environment": "PATH=/bin"}},
    {"job": {"environment": [1, 2]}, "script": "#!/bin/sh\n"},
    {"job": {"tres_per_node": "gres/gpu:a100:"}},
    {"job": {"tres_per_node": "gres/gpu:-1"}},
    {"job": {"tres_per_job": 5}},
    {"job": {"required_nodes": [None]}},
    {"job": {"excluded_nodes": ["x" * 3000, "y" * 3000]}},
    {"job": {"memory_per_node": {"infinite": True}}},
    {"job": {"tasks": 2 ** 62}, "script": "#!/bin/sh\n"},
    {"jobs": [{"script": "#!/bin/sh\n"}]},
    {"job": {}, "script": 42},
    {},
]


def test_garbage_submissions_refused(rcluster, users):
    """Each malformed description is refused with the errors array, never a
    job, and the controller goes on answering."""
    c = rcluster
    before = rest(c, "GET", f"/slurm/{V}/jobs", users[0])[1]["jobs"]
    for body in GARBAGE:
        st, b = rest(c, "POST", f"/slurm/{V}/job/submit", users[0], body)
        assert st in (400, 500), (body, st, b)
        assert isinstance(b, dict) and b["errors"] and "job_id" not in b, (body, b)
    after = rest(c, "GET", f"/slurm/{V}/jobs", users[0])[1]["jobs"]
    assert len(after) == len(before)
    for path in (f"/slurm/{V}/job/abc", f"/slurm/{V}/job/-1", f"/slurm/{V}/job/99999999999999999999",
                 f"/slurmdb/{V}/job/abc", f"/slurm/{V}/job/1?signal=NOPE"):
        st, b = rest(c, "GET" if "signal" not in path else "DELETE", path, users[0])
        assert st in (400, 500) and b["errors"], (path, st, b)
    assert rest(c, "GET", f"/slurm/{V}/ping", users[0])[0] == 200


def test_ping_diag(rcluster, users):
    c = rcluster
    st, b = rest(c, "GET", f"/slurm/{V}/ping", users[0])
    assert st == 200, b
    check_envelope(b)
    p = b["pings"][0]
    assert p["pinged"] == "UP" and p["mode"] == "primary" and isinstance(p["hostname"], str), p
    assert isinstance(p["latency"], int), p
    st, b = rest(c, "GET", f"/slurm/{V}/diag/", users[0])
    assert st == 200, b
    check_envelope(b)
    s = b["statistics"]
    for k in ("jobs_submitted", "jobs_started", "jobs_completed", "jobs_canceled",
              "jobs_failed", "jobs_pending", "jobs_running", "schedule_cycle_max",
              "schedule_cycle_last", "schedule_cycle_total", "schedule_queue_length"):
        assert isinstance(s[k], int), (k, s)
    assert is_noval(s["req_time"]) and s["req_time"]["number"] > 0, s


def test_nodes_partitions(rcluster, users):
    c = rcluster
    st, b = rest(c, "GET", f"/slurm/{V}/nodes", users[0])
    assert st == 200, b
    check_envelope(b)
    assert is_noval(b["last_update"]), b
    nodes = b["nodes"]
    assert len(nodes) == 2, nodes
    n = nodes[0]
    assert isinstance(n["name"], str) and isinstance(n["state"], list), n
    assert all(isinstance(s, str) for s in n["state"]), n
    assert n["cpus"] == 4 and n["real_memory"] == 4000, n
    assert n["gres"] == "gpu:2" and isinstance(n["alloc_cpus"], int), n
    assert isinstance(n["partitions"], list) and c.partition in n["partitions"], n
    assert n["tres"].startswith("cpu=4,mem=4000M"), n
    st, b = rest(c, "GET", f"/slurm/{V}/node/{n['name']}", users[0])
    assert st == 200 and [x["name"] for x in b["nodes"]] == [n["name"]], b

    st, b = rest(c, "GET", f"/slurm/{V}/partitions", users[0])
    assert st == 200, b
    check_envelope(b)
    p = b["partitions"][0]
    assert p["name"] == c.partition and p["partition"]["state"] == ["UP"], p
    assert p["nodes"]["total"] == 2 and isinstance(p["nodes"]["configured"], str), p
    assert p["cpus"]["total"] == 8, p
    assert is_noval(p["maximums"]["time"]) and is_noval(p["defaults"]["time"]), p


def test_reservations(rcluster, users):
    c = rcluster
    st, b = rest(c, "GET", f"/slurm/{V}/reservations", users[0])
    assert st == 200 and b["reservations"] == [], b
    check_envelope(b)
    node = c.run(["sinfo", "-h", "-N", "-o", "%N"]).stdout.split()[0]
    c.run(["scontrol", "create", "reservation", "ReservationName=restres", "StartTime=now+60",
           "Duration=10", f"Nodes={node}", f"Users={users[0]}"])
    try:
        st, b = rest(c, "GET", f"/slurm/{V}/reservations", users[0])
        assert st == 200, b
        r = b["reservations"][0]
        assert r["name"] == "restres" and r["node_list"] == node and r["node_count"] == 1, r
        assert is_noval(r["start_time"]) and is_noval(r["end_time"]), r
        assert r["end_time"]["number"] - r["start_time"]["number"] == 600, r
        assert isinstance(r["flags"], list) and r["users"] == users[0], r
        st, b = rest(c, "GET", f"/slurm/{V}/reservation/nosuch", users[0])
        check_error(b, 2053, "Requested reservation is invalid")
    finally:
        c.run(["scontrol", "delete", "ReservationName=restres"], check=False)


def test_openapi_document_names_what_is_served():
    """docs/openapi-v0.0.40.json describes exactly the routes api.c serves."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "docs", "openapi-v0.0.40.json")) as f:
        doc = json.load(f)
    with open(os.path.join(root, "src", "ctld", "api.c")) as f:
        table = f.read()
    served = set()
    for method, path in re.findall(r'\{ "(\w+)", "(/slurm(?:db)?/v0\.0\.40/[^"]*?)/?"', table):
        served.add((method.lower(), path.replace("{}", "{x}")))
    documented = set()
    for path, ops in doc["paths"].items():
        for method in ops:
            documented.add((method, re.sub(r"\{[^}]+\}", "{x}", path.rstrip("/"))))
    assert served == documented, (served ^ documented)
    assert doc["info"]["version"] == "0.0.40" or "0.0.40" in doc["info"]["title"], doc["info"]


def test_openapi_served(rcluster, users):
    """GET /openapi/v3, as slurmrestd's: the document docs/ ships."""
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    with open(os.path.join(root, "docs", "openapi-v0.0.40.json")) as f:
        doc = json.load(f)
    for path in ("/openapi/v3", "/openapi.json"):
        st, b = rest(rcluster, "GET", path, users[0])
        assert st == 200 and b == doc, (path, st)
