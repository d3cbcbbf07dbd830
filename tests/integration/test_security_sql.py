"""SQL is always parameterized (issue 24 item 3): job names, comments,
wckeys, paths and accounting descriptions with quotes, semicolons and SQL
comments round-trip exactly through sbatch, squeue, scontrol, sacct and
sacctmgr, filter by the same bytes, and leave the database whole."""

import os
import sqlite3

from helpers import read

NAME = "x'); DROP TABLE jobs;--"
COMMENT = "\"; select 1; ' OR '1'='1"
WCKEY = "w';DELETE FROM jobs;"
LIKE = "100%_done"


def tables(c):
    db = sqlite3.connect(f"file:{os.path.join(c.state_dir(), 'herd.db')}?mode=ro", uri=True)
    try:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}, \
            db.execute("SELECT count(*) FROM jobs").fetchone()[0]
    finally:
        db.close()


def test_quotes_and_semicolons_round_trip(cluster, workdir, users):
    c = cluster
    before_tables, before_jobs = tables(c)
    assert "jobs" in before_tables
    acct = ["sacct", "-n", "-X", "-P", "-a", "-S", "2000-01-01", "-o", "JobID"]
    before_acct = set(c.run(acct).stdout.split())
    out = os.path.join(workdir, "o'ut;--.txt")
    job = c.sbatch(["-J", NAME, "--comment", COMMENT, "--wckey", WCKEY, "-o", out],
                   cwd=workdir, user="herdtest1", script="#!/bin/sh\necho ran\n")
    like = c.sbatch(["-J", LIKE], cwd=workdir, user="herdtest1", script="#!/bin/sh\ntrue\n")
    held = c.sbatch(["-J", "a'b;--", "--hold"], cwd=workdir, user="herdtest1",
                    script="#!/bin/sh\ntrue\n")
    c.wait_state(job, "COMPLETED")
    c.wait_state(like, "COMPLETED")
    assert read(out) == "ran\n"
    cp = c.run(["squeue", "-h", "-t", "all", "-j", str(job), "-o", "%j|%k|%w"])
    assert cp.stdout == f"{NAME}|{COMMENT}|{WCKEY}\n", cp.stdout
    show = c.run(["scontrol", "show", "job", str(job)]).stdout
    for shown in (f"JobName={NAME}", f"Comment={COMMENT}", f"StdOut={out}"):
        assert shown in show, (shown, show)
    cp = c.run(["sacct", "-n", "-X", "-P", "-j", str(job), "-o", "JobName,Comment,State"])
    assert cp.stdout == f"{NAME}|{COMMENT}|COMPLETED\n", cp.stdout
    # filters bind the same bytes: no more and no less
    cp = c.run(["sacct", "-n", "-X", "-P", "-a", "--name", NAME, "-o", "JobID"])
    assert cp.stdout.split() == [str(job)], cp.stdout
    cp = c.run(["sacct", "-n", "-X", "-P", "-a", "--name", "x' OR '1'='1", "-o", "JobID"])
    assert cp.stdout == "", cp.stdout
    cp = c.run(["sacct", "-n", "-X", "-P", "-a", "--name", "1%", "-o", "JobID"])
    assert cp.stdout == "", "a name filter is not a LIKE pattern"
    cp = c.run(["sacct", "-n", "-X", "-P", "-a", "--name", LIKE, "-o", "JobID"])
    assert cp.stdout.split() == [str(like)], cp.stdout
    cp = c.run(["squeue", "-h", "-t", "all", "-n", NAME, "-o", "%i"])
    assert cp.stdout.split() == [str(job)]
    c.run(["scancel", "-n", "a'b;--"], user="herdtest1")
    c.wait_state(held, "CANCELLED")
    after_tables, after_jobs = tables(c)
    assert after_tables == before_tables and after_jobs >= before_jobs + 3
    # every earlier job is still there for sacct, and the new ones
    after_acct = set(c.run(acct).stdout.split())
    assert before_acct | {str(job), str(like)} <= after_acct, (before_acct, after_acct)


def test_accounting_names_round_trip(cluster):
    """sacctmgr: a description and organization with quotes and ';' are
    stored and shown as given."""
    c = cluster
    desc = "it's; DROP TABLE assoc;--"
    c.run(["sacctmgr", "-i", "add", "account", "sqlacct", f"Description={desc}",
           "Organization=o\"rg;"])
    try:
        cp = c.run(["sacctmgr", "-P", "-n", "show", "account", "sqlacct",
                    "format=account,descr,org"])
        assert cp.stdout == f"sqlacct|{desc.lower()}|o\"rg;\n", cp.stdout
        assert "sqlacct" in c.run(["sacctmgr", "-P", "-n", "show", "assoc",
                                   "format=account"]).stdout.split()
    finally:
        c.run(["sacctmgr", "-i", "delete", "account", "sqlacct"], check=False)
