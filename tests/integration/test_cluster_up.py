"""herd up / herd down: the local cluster a user starts with one command."""

import os

from helpers import wait_for

SINFO_HEADER = "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST"


def test_up_prints_export_line(session_cluster):
    c = session_cluster
    lines = c.up_output.splitlines()
    assert f"export SLURM_CONF={c.dir}/slurm.conf" in lines, c.up_output
    assert os.path.isfile(c.conf)


def test_up_writes_pid_files_and_logs(session_cluster):
    c = session_cluster
    assert os.path.isfile(os.path.join(c.dir, "run", "herdctld.pid")), os.listdir(c.dir)
    pids = c.daemon_pids()
    assert len(pids) >= 3, f"expected pid files of herdctld and 2 herdd under run/: {pids}"
    dead = {f: p for f, p in pids.items() if not os.path.exists(f"/proc/{p}")}
    assert not dead, f"pid files naming no live process: {dead}"
    assert os.path.isdir(os.path.join(c.dir, "log")) and os.listdir(os.path.join(c.dir, "log"))


def test_sinfo_after_up_shows_two_idle_nodes(session_cluster):
    cp = session_cluster.initial[("sinfo",)]
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.splitlines() == [
        SINFO_HEADER,
        "debug*       up   infinite      2   idle node[1-2]",
    ], cp.stdout


def test_sinfo_short_format_after_up(session_cluster):
    cp = session_cluster.initial[("sinfo", "-h", "-o", "%D,%T")]
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout.splitlines() == ["2,idle"], cp.stdout


def test_sinfo_node_oriented_after_up(session_cluster):
    cp = session_cluster.initial[("sinfo", "-N")]
    assert cp.returncode == 0, cp.stderr
    lines = cp.stdout.splitlines()
    assert lines[0].split() == ["NODELIST", "NODES", "PARTITION", "STATE"], cp.stdout
    assert [l.split() for l in lines[1:]] == [["node1", "1", "debug*", "idle"],
                                              ["node2", "1", "debug*", "idle"]], cp.stdout


def test_up_again_is_idempotent_and_keeps_jobs(cluster, workdir):
    c = cluster
    held = c.sbatch(["--hold", "-J", "keepme"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    running = c.sbatch(["-J", "keeprun"], cwd=workdir, script="#!/bin/sh\nexec /bin/sleep 30\n")
    c.wait_state(running, "RUNNING")
    before = c.daemon_pids()
    cp = c.up()
    assert f"export SLURM_CONF={c.dir}/slurm.conf" in cp.stdout.splitlines(), cp.stdout
    # Nothing restarted, no second set of daemons for the same directory.
    assert c.daemon_pids() == before, "herd up on a running cluster changed its daemons"
    ctlds = [p for p in c.leftovers() if "herdctld" in p[1]]
    assert len(ctlds) == 1, f"herdctld processes of {c.dir}: {ctlds}"
    assert c.state(held) == "PENDING"
    assert c.field(held, "%r") == "JobHeldUser"
    assert c.state(running) == "RUNNING"
    wait_for(lambda: set(c.node_states().values()) <= {"idle", "mix", "alloc"},
             15, "nodes to be up after the second herd up")
    c.run(["scancel", str(held), str(running)])
