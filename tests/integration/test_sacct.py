"""sacct: job accounting from the controller's store, as Slurm prints it:
formats (-P, -p, --delimiter, -o with widths, -n, -X), job and step rows,
the end states (COMPLETED, FAILED 3:0, CANCELLED by 0), -S/-E windows,
--name, -s, -u, --json, and the exact calls tools make."""

import json
import re
import time

import pytest

from helpers import open_dir, wait_for

CPU_BURN = "#!/bin/sh\ni=0\nwhile [ $i -lt 200000 ]; do i=$((i+1)); done\necho done\n"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


@pytest.fixture(scope="module")
def jobs(session_cluster, tmp_path_factory, users):
    """One job of each kind, all finished, submitted after t0."""
    c = session_cluster
    wd = tmp_path_factory.mktemp("sacct")
    open_dir(wd)
    wd = str(wd)
    t0 = time.time() - 1
    time.sleep(1.1)
    tag = f"sa{int(time.time()) % 100000}"
    j = {"t0": t0, "tag": tag}
    j["ok"] = c.sbatch(["-J", tag + "ok", "--mem=100", "-c", "2"], cwd=wd, script=CPU_BURN)
    j["fail"] = c.sbatch(["-J", tag + "fail"], cwd=wd, script="#!/bin/sh\nexit 3\n")
    j["long"] = c.sbatch(["-J", tag + "long"], cwd=wd, script="#!/bin/sh\nexec sleep 300\n")
    j["held"] = c.sbatch(["-J", tag + "held", "--hold"], cwd=wd, script="#!/bin/sh\ntrue\n")
    j["user"] = c.sbatch(["-J", tag + "user"], cwd=wd, user=users[0],
                         script="#!/bin/sh\ntrue\n")
    c.wait_state(j["long"], "RUNNING")
    c.run(["scancel", str(j["long"]), str(j["held"])])
    c.wait_state(j["ok"], "COMPLETED", timeout=60)
    c.wait_state(j["fail"], "FAILED")
    c.wait_state(j["long"], "CANCELLED")
    c.wait_state(j["held"], "CANCELLED")
    c.wait_state(j["user"], "COMPLETED")
    time.sleep(1.1)
    j["t1"] = time.time()
    return j


def sacct(c, args, **kw):
    return c.run(["sacct"] + args, **kw).stdout


def rows(out, sep="|"):
    return [line.split(sep) for line in out.splitlines()]


def test_parsable2_job_and_steps(session_cluster, jobs):
    jid = jobs["ok"]
    out = sacct(session_cluster, ["-o", "JobID,State,NodeList", "--parsable2", "-j", str(jid)])
    lines = out.splitlines()
    assert lines[0] == "JobID|State|NodeList"
    got = rows("\n".join(lines[1:]))
    assert [r[:2] for r in got] == [[str(jid), "COMPLETED"], [f"{jid}.batch", "COMPLETED"],
                                    [f"{jid}.extern", "COMPLETED"]], out
    assert all(re.fullmatch(r"node\d+", r[2]) for r in got), out


def test_parsable_trailing_delimiter_and_delimiter(session_cluster, jobs):
    jid = str(jobs["fail"])
    out = sacct(session_cluster, ["-p", "-X", "-j", jid, "-o", "JobID,State,ExitCode"])
    assert out.splitlines() == ["JobID|State|ExitCode|", f"{jid}|FAILED|3:0|"], out
    out = sacct(session_cluster, ["-P", "-n", "-X", "--delimiter=,", "-j", jid,
                                  "-o", "jobid,state,exitcode"])
    assert out == f"{jid},FAILED,3:0\n", out


def test_default_format_table(session_cluster, jobs):
    jid = jobs["long"]
    out = sacct(session_cluster, ["-j", str(jid)]).splitlines()
    assert out[0] == ("JobID           JobName  Partition    Account  AllocCPUS      State "
                      "ExitCode ")
    assert out[1] == " ".join("-" * w for w in (12, 10, 10, 10, 10, 10, 8)) + " "
    job, batch, ext = out[2:5]
    assert job.startswith(f"{jid:<12} ") and "CANCELLED+" in job, job
    assert batch.startswith(f"{jid}.batch".ljust(12)) and " CANCELLED " in batch, batch
    assert ext.startswith(f"{jid}.extern") and "COMPLETED" in ext, ext
    assert len(out) == 5


def test_widths_noheader_allocations(session_cluster, jobs):
    ids = [jobs["ok"], jobs["fail"], jobs["long"]]
    out = sacct(session_cluster, ["-X", "--noheader", "--format=jobid,state%20",
                                  "--job", ",".join(map(str, ids))])
    want = [f"{i:<12} {s:>20} " for i, s in
            zip(ids, ["COMPLETED", "FAILED", "CANCELLED by 0"])]
    assert out.splitlines() == want, out
    out = sacct(session_cluster, ["-n", "-X", "-o", "JobID%-20,JobName%5", "-j", str(jobs["ok"])])
    assert out == f"{jobs['ok']:<20} {jobs['tag'] + 'ok'!s:.4}+ \n", out


def test_end_states_and_exit_codes(session_cluster, jobs):
    ids = ",".join(str(jobs[k]) for k in ("ok", "fail", "long", "held"))
    out = sacct(session_cluster, ["-n", "-j", ids, "--format", "JobIDRaw,State,ExitCode", "-P",
                                  "-S", iso(jobs["t0"]), "-E", iso(jobs["t1"])])
    got = {r[0]: (r[1], r[2]) for r in rows(out)}
    ok, fail, long_, held = (str(jobs[k]) for k in ("ok", "fail", "long", "held"))
    assert got[ok] == ("COMPLETED", "0:0")
    assert got[fail] == ("FAILED", "3:0") and got[fail + ".batch"] == ("FAILED", "3:0")
    assert got[fail + ".extern"] == ("COMPLETED", "0:0")
    assert got[long_][0] == "CANCELLED by 0" and got[long_ + ".batch"][0] == "CANCELLED"
    assert got[held] == ("CANCELLED by 0", "0:0")
    assert held + ".batch" not in got, "a job that never ran has no steps"


def test_batch_step_usage_and_tres(session_cluster, jobs):
    jid = str(jobs["ok"])
    out = sacct(session_cluster, ["-P", "-n", "-j", jid, "-o",
                                  "JobID,MaxRSS,TotalCPU,AllocTRES,ReqMem,NCPUS,NNodes,Elapsed,"
                                  "ElapsedRaw,Timelimit,User,Partition,Submit,Start,End"])
    job, batch, ext = rows(out)
    assert batch[0] == jid + ".batch"
    assert re.fullmatch(r"\d+(\.\d+)?[KMG]?", batch[1]), batch
    assert job[1] == "" and ext[1] == "", "MaxRSS is the steps'"
    assert re.fullmatch(r"(\d+:)?\d\d:\d\d(\.\d{3})?", batch[2]), batch
    assert job[3] == "billing=2,cpu=2,mem=100M,node=1", job
    assert batch[3] == "cpu=2,mem=100M,node=1", batch
    assert job[4] == "100M" and batch[4] == ""
    assert job[5] == "2" and job[6] == "1"
    assert re.fullmatch(r"\d\d:\d\d:\d\d", job[7]) and job[8].isdigit()
    assert job[10] == "root" and batch[10] == "" and job[11] != "" and batch[11] == ""
    for t in job[12:15]:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", t), job


def test_name_window_call(session_cluster, jobs):
    name = jobs["tag"] + "fail"
    out = sacct(session_cluster, ["-X", "--parsable2", "--noheader",
                                  "--format=JobIdRaw,State", "--starttime", iso(jobs["t0"]),
                                  "--endtime", "now", "--name", name])
    assert out == f"{jobs['fail']}|FAILED\n", out


def test_time_windows(session_cluster, jobs):
    # the held job, cancelled without running, was never eligible: Slurm
    # 22.05 leaves it out of every window (but -s CA names it, below)
    mine = {str(jobs[k]) for k in ("ok", "fail", "long", "user")}

    def ids(args):
        out = sacct(session_cluster, ["-a", "-X", "-n", "-P", "-o", "JobID"] + args)
        return set(out.split())
    assert mine <= ids([])                                     # midnight today
    assert str(jobs["held"]) not in ids([])
    assert mine <= ids(["-S", iso(jobs["t0"])])
    assert mine <= ids(["-S", "now-1hour"])
    assert mine <= ids(["-S", "today", "-E", "now"])
    assert mine <= ids(["-S", time.strftime("%m%d", time.localtime(jobs["t0"]))])
    assert not mine & ids(["-S", "2000-01-01", "-E", iso(jobs["t0"])])   # not yet submitted
    assert not mine & ids(["-S", iso(jobs["t1"])])                        # all ended before
    cp = session_cluster.run(["sacct", "-S", "now", "-E", "now-1hour"], check=False)
    assert cp.returncode == 1 and "is after end time" in cp.stderr
    cp = session_cluster.run(["sacct", "-S", "yesterdayish"], check=False)
    assert cp.returncode == 1 and "Invalid time specification" in cp.stderr


def test_state_filter(session_cluster, jobs):
    def ids(states):
        out = sacct(session_cluster, ["-a", "-X", "-n", "-P", "-o", "JobID,State", "-s", states,
                                      "-S", iso(jobs["t0"]), "--name",
                                      ",".join(jobs["tag"] + k for k in
                                               ("ok", "fail", "long", "held", "user"))])
        return {r[0] for r in rows(out)}
    assert ids("F") == {str(jobs["fail"])}
    assert ids("completed") == {str(jobs["ok"]), str(jobs["user"])}
    assert ids("CA,F") == {str(jobs["fail"]), str(jobs["long"]), str(jobs["held"])}
    assert ids("R") == {str(jobs[k]) for k in ("ok", "fail", "long", "user")}, \
        "running at some time in the window"
    cp = session_cluster.run(["sacct", "-s", "nosuch"], check=False)
    assert cp.returncode == 1


def test_users(session_cluster, jobs, users):
    mine = str(jobs["user"])
    out = sacct(session_cluster, ["-X", "-n", "-P", "-o", "JobID,User", "-u", users[0],
                                  "-S", iso(jobs["t0"])])
    # other tests' jobs of the same user may fall in the window (test order)
    assert [mine, users[0]] in rows(out) and {r[1] for r in rows(out)} == {users[0]}, out
    # a user sees only their own jobs, unless -a
    out = sacct(session_cluster, ["-X", "-n", "-P", "-o", "JobID,User", "-S", iso(jobs["t0"])],
                user=users[0])
    assert [mine, users[0]] in rows(out) and {r[1] for r in rows(out)} == {users[0]}, out
    out = sacct(session_cluster, ["-a", "-X", "-n", "-P", "-o", "JobID", "-S", iso(jobs["t0"])],
                user=users[0])
    assert str(jobs["ok"]) in out.split() and mine in out.split()


def test_nodelist_filter(session_cluster, jobs):
    jid = str(jobs["ok"])
    node = sacct(session_cluster, ["-X", "-n", "-P", "-o", "NodeList", "-j", jid]).strip()
    assert jid in sacct(session_cluster, ["-X", "-n", "-P", "-o", "JobID", "-N", node,
                                          "-S", iso(jobs["t0"])]).split()
    other = "node1" if node != "node1" else "node2"
    out = sacct(session_cluster, ["-X", "-n", "-P", "-o", "JobID", "-N", other, "-j", jid])
    assert out == ""


def test_json_shape(session_cluster, jobs):
    out = sacct(session_cluster, ["--json", "-j", f"{jobs['fail']},{jobs['held']}"])
    doc = json.loads(out)
    assert isinstance(doc["jobs"], list) and len(doc["jobs"]) == 2
    fail, held = doc["jobs"]
    assert fail["job_id"] == jobs["fail"] and fail["name"] == jobs["tag"] + "fail"
    assert fail["state"]["current"] == ["FAILED"]
    assert fail["exit_code"]["return_code"]["number"] == 3
    assert [s["step"]["id"] for s in fail["steps"]] == [f"{jobs['fail']}.batch",
                                                       f"{jobs['fail']}.extern"]
    assert fail["time"]["end"] >= fail["time"]["start"] >= fail["time"]["submission"] > 0
    assert held["state"]["current"] == ["CANCELLED"] and held["steps"] == []


def test_each_field_alone_reads_as_among_all(session_cluster, jobs):
    """sacct asks the controller only for the members of each record that
    its fields read (&keys=): every field shown alone reads as it does
    beside all the others, by -j and by a window."""
    c = session_cluster
    names = sacct(c, ["--helpformat"]).split()
    kinds = ("ok", "fail", "long", "held", "user")
    ids = ",".join(str(jobs[k]) for k in kinds)
    by_name = ["--name", ",".join(jobs["tag"] + k for k in kinds)]   # none still running
    for sel in (["-j", ids], ["-a", "-S", iso(jobs["t0"]), "-E", iso(jobs["t1"])] + by_name):
        every = rows(sacct(c, ["-P", "-n", "-o", ",".join(names)] + sel))
        assert len(every) >= 8, every   # jobs, their batch and extern steps
        for i, name in enumerate(names):
            alone = [r[0] for r in rows(sacct(c, ["-P", "-n", "-o", name] + sel))]
            assert alone == [r[i] for r in every], (name, sel)


def test_accounting_keys(session_cluster, jobs):
    """GET /v1/accounting?keys=: only the members named; a bad name refused."""
    c = session_cluster

    def get(query):
        cp = c.run(["curl", "-s", "-w", "\n%{http_code}", "--unix-socket", c.sock_path(),
                    "http://localhost/v1/accounting?ids=%d&%s" % (jobs["fail"], query)])
        body, _, status = cp.stdout.rpartition("\n")
        return int(status), body

    st, body = get("keys=state,exit_code,spec.name,spec.nothing")
    assert st == 200, body
    rec = json.loads(body)["jobs"][0]["record"]
    assert rec == {"state": "FAILED", "exit_code": 3, "spec": {"name": jobs["tag"] + "fail"}}
    for bad in ("state,Bad-Key", "spec..name", "." + "x" * 80):
        st, body = get("keys=" + bad)
        assert st == 400 and "Invalid key" in body, (bad, body)
    st, body = get("keys=" + ",".join("k%d" % i for i in range(65)))
    assert st == 400 and "Too many keys" in body, body


def test_unknown_field_and_step_selection(session_cluster, jobs):
    cp = session_cluster.run(["sacct", "-o", "JobID,Bogus"], check=False)
    assert cp.returncode == 1 and 'Invalid field requested: "Bogus"' in cp.stderr
    jid = jobs["ok"]
    out = sacct(session_cluster, ["-n", "-P", "-o", "jobid", "-j", f"{jid}.batch"])
    assert out == f"{jid}.batch\n"


def test_running_job_and_unknown_end(session_cluster, cluster, workdir):
    jid = cluster.sbatch([], cwd=workdir, script="#!/bin/sh\nexec sleep 300\n")
    cluster.wait_state(jid, "RUNNING")
    out = sacct(cluster, ["-n", "-P", "-j", str(jid), "-o", "JobID,State,End"])
    assert rows(out) == [[str(jid), "RUNNING", "Unknown"], [f"{jid}.batch", "RUNNING", "Unknown"],
                         [f"{jid}.extern", "RUNNING", "Unknown"]], out
    cluster.run(["scancel", str(jid)])
    wait_for(lambda: "CANCELLED by 0" in sacct(cluster, ["-n", "-P", "-X", "-j", str(jid),
                                                         "-o", "State"]), 20,
             "sacct to show the cancel")
