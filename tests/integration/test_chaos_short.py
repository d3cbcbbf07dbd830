"""The short chaos run (issue 24; docs/testing.md, "Chaos"): tests/chaos/chaos.py
with a fixed seed on a 3-node cluster of its own, 300 jobs and 20 faults
(kill -9 of herdctld, herdd, job supervisors, munged; with namespaces, links
down) in 90 s, then every invariant. `make chaos` is the long run."""

import os
import subprocess
import sys

import pytest

import helpers

CHAOS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chaos", "chaos.py")
SEED = 24


def netns_usable():
    if os.geteuid() != 0 or not any(os.access(p, os.X_OK) for p in ("/usr/sbin/ip", "/sbin/ip",
                                                                      "/usr/bin/ip", "/bin/ip")):
        return False
    cp = subprocess.run(["unshare", "--net", "--uts", "--mount", "true"], capture_output=True,
                        timeout=10)
    return cp.returncode == 0


def test_chaos_short(tmp_path_factory):
    d = helpers.cluster_dir(tmp_path_factory, "chaos")
    cmd = [sys.executable, CHAOS, "--seed", str(SEED), "--time", "90", "--nodes", "3",
           "--jobs", "300", "--faults", "20", "--dir", str(d), "--bin", helpers.HERD_BIN]
    if netns_usable():
        cmd.append("--netns")
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=420)
    except subprocess.TimeoutExpired as e:
        subprocess.run([os.path.join(helpers.HERD_BIN, "herd"), "down", "-D", str(d)],
                       capture_output=True, timeout=120)
        pytest.fail(f"the chaos run did not end within 420 s\n{e.stdout}\n{e.stderr}")
    sys.stdout.write(cp.stdout)
    assert cp.returncode == 0, f"chaos run failed (rc {cp.returncode})\n{cp.stdout}\n{cp.stderr}"
    assert "all invariants hold" in cp.stdout
    assert not helpers.procs_matching(str(d)), "processes of the chaos cluster left"
