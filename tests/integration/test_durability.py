"""Durability: kill -9 the controller; after `herd up` every acknowledged job
is back with its id and state, running jobs kept running, and a job that
ended while the controller was down is recorded as it ended."""

import os
import signal
import sqlite3
import time

import pytest

from helpers import cluster_fixture, pid_alive, wait_file, wait_for

UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "SlurmdTimeout=6", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def dcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "durable", UP)


def kill_controller(c):
    pid = c.ctld_pid()
    assert pid_alive(pid), "herdctld not running before the kill"
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    return pid


def test_jobs_survive_controller_kill(dcluster, workdir):
    c = dcluster
    held = c.sbatch(["--hold", "-J", "dheld"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    out = os.path.join(workdir, "running.out")
    running = c.sbatch(["-J", "drun", "-o", out], cwd=workdir,
                       script="#!/bin/sh\necho pid $$\n/bin/sleep 15\necho done\n")
    c.wait_state(running, "RUNNING")
    job_pid = int(wait_file(out, contains="pid ").split()[1])
    old = kill_controller(c)
    time.sleep(1)
    assert pid_alive(job_pid), "the job's process died with the controller"
    c.up()
    assert c.ctld_pid() != old
    assert c.state(held) == "PENDING"
    assert c.field(held, "%r") == "JobHeldUser"
    assert c.field(held, "%j") == "dheld"
    assert c.state(running) == "RUNNING"
    assert c.field(running, "%j") == "drun"
    assert pid_alive(job_pid), "the job's process did not survive the controller restart"
    c.wait_state(running, "COMPLETED", timeout=45)
    with open(out) as f:
        assert f.read().splitlines()[-1] == "done"
    # Ids are never reused after a restart.
    newer = c.sbatch(["--hold"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    assert newer > max(held, running)
    c.run(["scancel", str(held), str(newer)])
    c.wait_state(held, "CANCELLED")


def test_job_ending_while_controller_down(dcluster, workdir):
    c = dcluster
    job = c.sbatch(["-J", "dshort"], cwd=workdir, script="#!/bin/sh\n/bin/sleep 3\n")
    c.wait_state(job, "RUNNING")
    kill_controller(c)
    time.sleep(6)        # the job ends while nobody listens
    c.up()
    c.wait_state(job, "COMPLETED", timeout=30)
    failed = c.sbatch(["-J", "dfail"], cwd=workdir, script="#!/bin/sh\n/bin/sleep 2\nexit 7\n")
    c.wait_state(failed, "RUNNING")
    kill_controller(c)
    time.sleep(4)
    c.up()
    c.wait_state(failed, "FAILED", timeout=30)
    assert c.api_job(failed)["exit_code"] == 7


def test_drained_node_stays_drained_after_restart(dcluster):
    c = dcluster
    c.run(["scontrol", "update", "NodeName=node1", "State=DRAIN", "Reason=bad disk"])
    kill_controller(c)
    c.up()
    out = c.run(["scontrol", "show", "node", "node1"]).stdout
    assert "Reason=bad disk" in out and "DRAIN" in out, out
    c.run(["scontrol", "update", "NodeName=node1", "State=RESUME"])
    kill_controller(c)
    c.up()
    assert "Reason=" not in c.run(["scontrol", "show", "node", "node1"]).stdout
    wait_for(lambda: "idle" in c.run(["sinfo", "-h", "-o", "%T"]).stdout, 20, "node1 idle")


def test_dependencies_survive_restart(dcluster, workdir):
    """A settled dependency stays settled (a failed one is never retried), a
    waiting one still waits, and what its job does after the restart counts."""
    c = dcluster
    bad = c.sbatch(["-J", "dbad"], cwd=workdir, script="#!/bin/sh\nexit 2\n")
    c.wait_state(bad, "FAILED")
    never = c.sbatch(["-d", f"afterok:{bad}"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    held = c.sbatch(["--hold"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    waits = c.sbatch(["-d", f"afterany:{held}"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    wait_for(lambda: c.field(never, "%r") == "DependencyNeverSatisfied", 10, "reason")
    kill_controller(c)
    c.up()
    assert c.field(never, "%r") == "DependencyNeverSatisfied"
    assert c.field(never, "%E") == f"afterok:{bad}(failed)"
    assert c.field(waits, "%r") == "Dependency"
    c.run(["scontrol", "release", str(held)])
    c.wait_state(waits, "COMPLETED")
    c.run(["scancel", str(never)])


def test_partition_state_survives_restart_until_reconfigure(dcluster):
    c = dcluster
    avail = lambda: c.run(["sinfo", "-h", "-o", "%a %l"]).stdout.split()
    c.run(["scontrol", "update", "PartitionName=debug", "State=DOWN", "MaxTime=30"])
    kill_controller(c)
    c.up()
    assert avail() == ["down", "30:00"]
    c.run(["scontrol", "reconfigure"])
    assert avail()[0] == "up" and avail()[1] != "30:00", avail()
    kill_controller(c)
    c.up()
    assert avail()[0] == "up"


def test_store_of_an_older_herd(dcluster, workdir):
    """A state file written before jobs had their array column (what
    `sacct -j ARRAY` finds tasks by) is upgraded when the controller opens
    it: every record kept, an array's tasks still found."""
    c = dcluster
    a = c.sbatch(["-J", "dold", "--array=0-2", "-o", "/dev/null"], cwd=workdir,
                 script="#!/bin/sh\ntrue\n")
    wait_for(lambda: c.run(["sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j", str(a)])
             .stdout.count("COMPLETED") == 3, 30, "the array's 3 tasks to complete")
    before = c.run(["sacct", "-a", "-n", "-P", "-S", "2000-01-01", "-o", "JobIDRaw,JobID,State"])
    kill_controller(c)
    db = sqlite3.connect(os.path.join(c.state_dir(), "herd.db"))
    # as that release left it: no schema version, the documents in `usage`
    db.executescript("DROP INDEX jobs_array; ALTER TABLE jobs DROP COLUMN array_job_id;"
                     "ALTER TABLE docs RENAME TO usage; PRAGMA user_version = 0;")
    db.close()
    c.up()
    out = c.run(["sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j", str(a)]).stdout
    assert sorted(out.split()) == [f"{a}_{t}|COMPLETED" for t in range(3)], out
    after = c.run(["sacct", "-a", "-n", "-P", "-S", "2000-01-01", "-o", "JobIDRaw,JobID,State"])
    assert after.stdout == before.stdout
