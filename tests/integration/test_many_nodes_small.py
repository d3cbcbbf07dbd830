"""bench/many_nodes at a small size (issue 26 item 2): one `herdd --emulate`
serves 200 nodes; all register at `herd up` and again after herdctld is
killed -9 and restarted; 500 timer jobs all start once (none requeued by a
failed launch) and all end COMPLETED; 10 nodes silenced are marked DOWN
within SlurmdTimeout (6 s) and a tick or two, their jobs NODE_FAIL'd or
requeued. The full size is `bench/many_nodes` (figures in bench/RESULTS.md)."""

import json
import os
import subprocess

import helpers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_many_nodes_small(tmp_path):
    out = tmp_path / "r.json"
    cp = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "many_nodes"),
                         "--bin", helpers.HERD_BIN, "--nodes", "200", "--jobs", "500",
                         "--run", "1", "--window", "2", "--slurmd-timeout", "6",
                         "--silence", "10", "--limit", "120",
                         "--prefix", str(tmp_path / "c"), "--json", str(out)],
                        capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stdout + cp.stderr[-3000:]
    r = json.load(open(out))["runs"][0]
    assert r["storm_s"] == r["storm_s"] and r["storm_s"] < 60, cp.stdout   # not NaN
    j = r["jobs"]
    assert j["started"] == 500 and j["ended"] == 500, cp.stdout
    s = r["silent"]
    assert s["down_s"] is not None and s["down_s"] < 6 + 10, cp.stdout
    # MinJobAge=2: a job that ended may have left the list before it was seen
    assert s["jobs_s"] is not None and sum(s["job_states"].values()) <= 10, cp.stdout
    assert set(s["job_states"]) <= {"NODE_FAIL", "PENDING", "REQUEUED"}, cp.stdout
