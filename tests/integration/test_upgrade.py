"""Upgrades keep the data: a state database written by the previous release
(data/upgrade-v0.db, made by data/make_upgrade_db.py) is opened, migrated
to this release's schema and keeps every job, run, account, QOS, limit,
reservation and fair-share usage, as that release's own commands showed
them (data/upgrade-v0.expect.json); a database from a later release is
refused; a running job survives restarting both daemons and is recorded
once."""

import json
import os
import shutil
import signal
import sqlite3
import sys

import pytest

from helpers import (HERD_BIN, Cluster, base_env, cluster_dir, cluster_fixture, pid_alive, read,
                     run, wait_file, wait_for)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FIXTURE = os.path.join(DATA, "upgrade-v0.db")
# as data/make_upgrade_db.py brought the previous release up
UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "KillWait=2"]
LATEST = 2   # src/ctld/store_schema.c's last step

with open(os.path.join(DATA, "upgrade-v0.expect.json")) as f:
    EXPECT = json.load(f)
sys.path.insert(0, DATA)
from make_upgrade_db import SHOWS  # noqa: E402  (the same commands)


def plant(c, mutate=None):
    """Puts a copy of the fixture where herd up's controller keeps its
    state, before its first start."""
    state = os.path.join(c.dir, "ctld")
    os.makedirs(state, exist_ok=True)
    db = os.path.join(state, "herd.db")
    shutil.copy(FIXTURE, db)
    if mutate:
        con = sqlite3.connect(db)
        con.executescript(mutate)
        con.close()
    return db


def ctld_log(c):
    """What herdctld wrote: before it opens SlurmctldLogFile (the database
    is opened first) to stderr, which herd up keeps in log/herdctld.start."""
    out = ""
    for name in ("herdctld.start", "herdctld.log"):
        path = os.path.join(c.dir, "log", name)
        if os.path.exists(path):
            out += read(path)
    return out


def db_facts(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {
            "version": con.execute("PRAGMA user_version").fetchone()[0],
            "tables": {r[0] for r in con.execute("SELECT name FROM sqlite_master"
                                                 " WHERE type = 'table'")},
            "jobs": con.execute("SELECT count(*) FROM jobs").fetchone()[0],
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def uc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "upgrade", UP, prepare=plant)


def test_fixture_is_the_previous_release(tmp_path):
    copy = str(tmp_path / "v0.db")   # opening a WAL file leaves -shm beside it
    shutil.copy(FIXTURE, copy)
    f = db_facts(copy)
    assert f["version"] == 0 and "usage" in f["tables"] and "docs" not in f["tables"], f
    assert f["jobs"] == 8


def fixture_jobs_only(sacct):
    """sacct -P's header and the rows of the fixture's jobs (JobIDRaw up to
    its last id): what a cluster that has run jobs since still shows of it."""
    last = max(EXPECT["ids"].values())
    lines = sacct.splitlines(keepends=True)
    return "".join(lines[:1] + [l for l in lines[1:] if int(l.split("|")[0].split(".")[0]) <= last])


def fixture_kept(c, newer_jobs=False):
    """Every job, account, QOS, reservation and fair-share usage of the
    fixture, as the previous release showed them, in c (which opened a
    copy of it, plant()); the schema steps logged. newer_jobs: c may have
    run jobs since, whose sacct rows are left out of the comparison."""
    for k, cmd in SHOWS.items():
        if k == "sshare":
            continue
        got = c.run(cmd, extra_env={"TZ": "UTC"}).stdout
        if k == "sacct" and newer_jobs:
            got = fixture_jobs_only(got)
        assert got == EXPECT[k], f"{k}: {' '.join(cmd)}"
    ids = EXPECT["ids"]
    # what sacct reads from the records, seen through squeue too
    assert c.state(ids["held"]) == "PENDING"
    assert c.field(ids["held"], "%r") == "JobHeldUser"
    sacct = EXPECT["sacct"]
    assert f"{ids['failed']}|{ids['failed']}|fx-failed|root|root|debug|FAILED|3:0|" in sacct
    assert "|fx-requeue|root|root|debug|REQUEUED|" in sacct
    assert sacct.count("|fx-array|herdtest1|phys|") == 3
    # fair-share usage: the decay since the fixture was made changes the number
    rows = [r.split("|") for r in c.run(SHOWS["sshare"]).stdout.splitlines()]
    col = rows[0].index("RawUsage")
    usage = {(r[0].strip(), r[1]): float(r[col]) for r in rows[1:] if r[col]}
    assert usage.get(("phys", "herdtest1"), 0) > 0, rows
    log = ctld_log(c)
    assert "schema step 1 applied: the first versioned schema" in log
    assert "schema step 2 applied: documents table usage renamed docs" in log


def test_every_job_account_and_reservation_kept(uc):
    fixture_kept(uc)


def test_new_jobs_after_the_kept_ones(uc, workdir):
    c = uc
    j = c.sbatch(["-o", "/dev/null"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert j > max(EXPECT["ids"].values())
    c.wait_state(j, "COMPLETED", timeout=30)
    # the held job from the old file runs when released
    held = EXPECT["ids"]["held"]
    c.run(["scontrol", "release", str(held)])
    c.wait_state(held, "COMPLETED", timeout=30)


def stop(pid, sig):
    os.kill(pid, sig)
    wait_for(lambda: not pid_alive(pid), 20, f"pid {pid} to stop")


def test_running_job_survives_restarting_both_daemons(uc, workdir):
    """An upgrade: herdctld stops (SIGTERM), herdd stops leaving its jobs
    (SIGQUIT), both start again from the new binaries (herd up starts what
    is not running); the job completes and is recorded once."""
    c = uc
    out = os.path.join(workdir, "up.out")
    go = os.path.join(workdir, "go")
    job = c.sbatch(["-J", "fx-live", "-o", out], cwd=workdir,
                   script=f"#!/bin/sh\necho pid $$\nwhile [ ! -e {go} ]; do sleep 0.2; done\n"
                          "echo done\n")
    c.wait_state(job, "RUNNING")
    jpid = int(wait_file(out, contains="pid ").split()[1])
    ctld, herdd = c.ctld_pid(), c.herdd_pid("node1")
    stop(ctld, signal.SIGTERM)
    stop(herdd, signal.SIGQUIT)
    assert pid_alive(jpid), "the job died with its daemons"
    c.up()
    assert c.ctld_pid() != ctld and c.herdd_pid("node1") != herdd
    assert c.state(job) == "RUNNING"
    open(go, "w").close()
    c.wait_state(job, "COMPLETED", timeout=45)
    assert read(out).splitlines()[-1] == "done"
    rows = c.run(["sacct", "-D", "-X", "-n", "-P", "-o", "JobID,State,ExitCode",
                  "-j", str(job)]).stdout.splitlines()
    assert rows == [f"{job}|COMPLETED|0:0"]
    assert "stopping for a restart: this node's jobs keep running" in \
        read(os.path.join(c.dir, "log", "herdd-node1.log"))


def test_version_stamped_after_stop(uc):
    c = uc
    db = os.path.join(c.state_dir(), "herd.db")
    cp = c.down()
    assert cp.returncode == 0, cp.stderr
    f = db_facts(db)
    assert f["version"] == LATEST
    assert "docs" in f["tables"] and "usage" not in f["tables"]
    assert f["jobs"] >= 10
    c.up()   # the fixture's teardown stops it again


def test_newer_database_refused(tmp_path_factory, users):
    c = Cluster(cluster_dir(tmp_path_factory, "future"), UP)
    db = plant(c, "PRAGMA user_version = 99;")
    try:
        cp = run([os.path.join(HERD_BIN, "herd"), "up", "-D", c.dir] + UP, env=base_env(),
                 check=False, timeout=120)
        c.started = True
        assert cp.returncode != 0, cp.stdout
        log = ctld_log(c)
        assert ("schema version 99 is newer than this release knows (%d); refusing to open it"
                % LATEST) in log, log[-2000:]
        f = db_facts(db)
        assert f["version"] == 99 and "usage" in f["tables"] and "docs" not in f["tables"]
    finally:
        problems = c.stop_and_check()
        assert not problems, problems
