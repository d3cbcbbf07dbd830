"""squeue and sinfo output, byte for byte where tools parse it."""

import re

import pytest

SQUEUE_HEADER = ("             JOBID PARTITION     NAME     USER ST       TIME  NODES "
                 "NODELIST(REASON)")
SQUEUE_LONG_HEADER = ("             JOBID PARTITION     NAME     USER    STATE       TIME "
                      "TIME_LIMI  NODES NODELIST(REASON)")


def row(job, part, name, user, st, tm, nodes, where):
    return f"{job:>18} {part:>9} {name[:8]:>8} {user[:8]:>8} {st:>2} {tm:>10} {nodes:>6} {where}"


@pytest.fixture
def jobs(cluster, workdir, users):
    """A held job, a running job with a long name, a held job of herdtest1."""
    c = cluster
    held = c.sbatch(["--hold", "-J", "fmtjob"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    run = c.sbatch(["-J", "longjobname123"], cwd=workdir,
                   script="#!/bin/sh\nexec /bin/sleep 60\n")
    other = c.sbatch(["--hold", "-J", "otherusr"], cwd=workdir, user="herdtest1",
                     script="#!/bin/sh\ntrue\n")
    c.wait_state(run, "RUNNING")
    yield {"held": held, "run": run, "other": other}
    c.run(["scancel", str(held), str(run), str(other)], check=False)


def lines_for(out, job):
    return [l for l in out.splitlines() if l.split() and l.split()[0] == str(job)]


def test_squeue_default(cluster, jobs):
    out = cluster.run(["squeue"]).stdout
    lines = out.splitlines()
    assert lines[0] == SQUEUE_HEADER, out
    assert lines_for(out, jobs["held"]) == [
        row(jobs["held"], "debug", "fmtjob", "root", "PD", "0:00", 1, "(JobHeldUser)")], out
    r = lines_for(out, jobs["run"])
    assert len(r) == 1, out
    node = cluster.field(jobs["run"], "%N")
    tm = r[0][50:61].strip()
    assert re.fullmatch(r"\d+:\d\d", tm), r[0]
    assert r[0] == row(jobs["run"], "debug", "longjobn", "root", "R", tm, 1, node)
    assert lines_for(out, jobs["other"]) == [
        row(jobs["other"], "debug", "otherusr", "herdtest1", "PD", "0:00", 1, "(JobHeldUser)")]


def test_squeue_noheader(cluster, jobs):
    out = cluster.run(["squeue", "-h"]).stdout
    assert "JOBID" not in out
    assert lines_for(out, jobs["held"]), out


def test_squeue_user_filter(cluster, jobs):
    mine = cluster.run(["squeue", "-h", "-u", "herdtest1", "-o", "%i"]).stdout.split()
    assert mine == [str(jobs["other"])]
    roots = cluster.run(["squeue", "-h", "-u", "root", "-o", "%i"]).stdout.split()
    assert str(jobs["held"]) in roots and str(jobs["run"]) in roots
    assert str(jobs["other"]) not in roots


def test_squeue_job_filter(cluster, jobs):
    out = cluster.run(["squeue", "-h", "-j", str(jobs["held"]), "-o", "%i"]).stdout
    assert out == f"{jobs['held']}\n"
    both = cluster.run(["squeue", "-h", "-j", f"{jobs['held']},{jobs['run']}", "-o", "%i"])
    assert sorted(both.stdout.split()) == sorted([str(jobs["held"]), str(jobs["run"])])


def test_squeue_state_filter(cluster, jobs):
    pending = cluster.run(["squeue", "-h", "-t", "PD", "-o", "%i"]).stdout.split()
    running = cluster.run(["squeue", "-h", "-t", "R", "-o", "%i"]).stdout.split()
    assert str(jobs["held"]) in pending and str(jobs["run"]) not in pending
    assert str(jobs["run"]) in running and str(jobs["held"]) not in running
    long_names = cluster.run(["squeue", "-h", "-t", "running", "-o", "%i"]).stdout.split()
    assert long_names == running


def test_squeue_name_filter(cluster, jobs):
    out = cluster.run(["squeue", "-h", "-n", "fmtjob", "-o", "%i"]).stdout
    assert out == f"{jobs['held']}\n"


def test_squeue_format(cluster, jobs):
    out = cluster.run(["squeue", "-j", str(jobs["held"]), "-o", "%i %T"]).stdout
    assert out == f"JOBID STATE\n{jobs['held']} PENDING\n"
    out = cluster.run(["squeue", "-h", "-j", str(jobs["run"]), "-o", "%i|%j|%u|%P|%t|%D|%N"])
    node = cluster.field(jobs["run"], "%N")
    assert out.stdout == f"{jobs['run']}|longjobname123|root|debug|R|1|{node}\n"


def test_squeue_long(cluster, jobs):
    out = cluster.run(["squeue", "-l"]).stdout
    lines = out.splitlines()
    # A date line first, e.g. "Tue Dec  2 18:19:00 2025".
    assert re.match(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}$",
                    lines[0]), out
    assert lines[1] == SQUEUE_LONG_HEADER, out
    held = jobs["held"]
    assert lines_for(out, held) == [
        f"{held:>18} {'debug':>9} {'fmtjob':>8} {'root':>8} {'PENDING':>8} {'0:00':>10} "
        f"{'UNLIMITED':>9} {1:>6} (JobHeldUser)"], out


def test_sinfo_node_oriented(cluster, jobs):
    out = cluster.run(["sinfo", "-N"]).stdout
    lines = out.splitlines()
    assert lines[0].split() == ["NODELIST", "NODES", "PARTITION", "STATE"], out
    rows = [l.split() for l in lines[1:]]
    assert [r[0] for r in rows] == ["node1", "node2"], out
    assert all(r[1] == "1" and r[2] == "debug*" for r in rows), out
    assert {r[3] for r in rows} <= {"idle", "mix", "alloc"}, out
    node = cluster.field(jobs["run"], "%N")
    assert dict((r[0], r[3]) for r in rows)[node] in ("mix", "alloc"), out


def test_sinfo_counts_and_states(cluster, jobs):
    out = cluster.run(["sinfo", "-h", "-o", "%D,%T"]).stdout
    pairs = [l.split(",") for l in out.splitlines()]
    assert sum(int(n) for n, _ in pairs) == 2, out
    assert {s for _, s in pairs} <= {"idle", "mixed", "allocated"}, out
    assert "mixed" in {s for _, s in pairs}, out


def test_sinfo_partition_filter(cluster):
    out = cluster.run(["sinfo", "-p", "debug"]).stdout
    lines = out.splitlines()
    assert lines[0] == "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST", out
    assert len(lines) >= 2 and all(l.startswith("debug*       up   infinite ") for l in lines[1:])
    assert sum(int(l.split()[3]) for l in lines[1:]) == 2, out
    out = cluster.run(["sinfo", "-h", "-p", "debug", "-o", "%P %a %l %D"]).stdout
    assert out.split() == ["debug*", "up", "infinite", "2"], out


def test_squeue_long_field_names(cluster, jobs):
    """-O/--Format: 20 columns by default, :N sets a width, :. right-aligns,
    text after the width is a suffix (tools use \\x1F as a separator)."""
    held = jobs["held"]
    out = cluster.run(["squeue", "-j", str(held), "-O", "JobID,State,Name:10,Partition:.8"])
    assert out.stdout.splitlines() == [
        f"{'JOBID':<20}{'STATE':<20}{'NAME':<10}{'PARTITIO':>8}",
        f"{held:<20}{'PENDING':<20}{'fmtjob':<10}{'debug':>8}"], out.stdout
    sep = cluster.run(["squeue", "--all", "--states=all", "--noconvert", "-h", "-j", str(held),
                       "-O", "JobID:\x1f,State:\x1f,Reason:\x1f"]).stdout
    assert sep == f"{held}\x1fPENDING\x1fJobHeldUser\x1f\n"
    bad = cluster.run(["squeue", "-O", "NoSuchField"], check=False)
    assert bad.returncode != 0 and "NoSuchField" in bad.stderr


def test_squeue_json(cluster, jobs):
    import json
    doc = json.loads(cluster.run(["squeue", "--json"]).stdout)
    assert doc["errors"] == []
    by_id = {j["job_id"]: j for j in doc["jobs"]}
    held, run = by_id[jobs["held"]], by_id[jobs["run"]]
    assert held["job_state"] == "PENDING" and held["state_reason"] == "JobHeldUser"
    assert held["name"] == "fmtjob" and held["partition"] == "debug"
    assert run["job_state"] == "RUNNING" and run["nodes"] == cluster.field(jobs["run"], "%N")
    assert by_id[jobs["other"]]["user_name"] == "herdtest1"


def test_squeue_sort(cluster, jobs):
    """-S as Slurm's: codes or -O names, '-' for descending, equal keys in
    job id order."""
    ids = [jobs["held"], jobs["run"], jobs["other"]]
    mine = [str(i) for i in ids]

    def order(*args):
        out = cluster.run(["squeue", "-h", "-o", "%i"] + list(args)).stdout.split()
        return [i for i in out if i in mine]
    assert order("-S", "i") == mine
    assert order("--sort=-i") == mine[::-1]
    # names: fmtjob < longjobname123 < otherusr
    assert order("-S", "j") == [mine[0], mine[1], mine[2]]
    assert order("-S", "-Name") == [mine[2], mine[1], mine[0]]
    # state first (PENDING before RUNNING by name), then id descending
    assert order("-S", "t,-i") == [mine[2], mine[0], mine[1]]


def test_squeue_account_and_qos_filters(cluster, jobs):
    acct = cluster.run(["squeue", "-h", "-j", str(jobs["held"]), "-o", "%a"]).stdout.strip()
    qos = cluster.run(["squeue", "-h", "-j", str(jobs["held"]), "-o", "%q"]).stdout.strip()
    shown = cluster.run(["squeue", "-h", "-A", acct, "-q", qos, "-o", "%i"]).stdout.split()
    assert str(jobs["held"]) in shown
    none = cluster.run(["squeue", "-h", "--account=no_such_acct", "-o", "%i"]).stdout.split()
    assert none == []
