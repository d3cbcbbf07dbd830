"""Smoke test of the benchmark harness: `bench/run --quick` at tiny sizes
against the binaries under test; every figure must be produced and sane
(a positive number, or the n/a text of what is not implemented)."""

import json
import os
import subprocess
import sys

import helpers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# Herd's figures that must be numbers, and the ones that must say n/a.
NUMERIC = ["floor", "submit", "parallel", "bulk", "bulk_defaults", "bulk1", "e2e", "e2e_bulk", "latency",
           "latency_total", "rss_0", "rss_100", "perjob_100", "squeue_100", "squeue_o_100",
           "squeue_u_100", "squeue_j_100", "sinfo_100", "rss_400", "squeue_400",
           "start_first", "start_full", "scancel", "scancel_empty", "sacct_j",
           "scontrol_job_100", "array"]
NOT_YET = {}
LIMITS = {"latency": 5000, "squeue_100": 5000, "perjob_100": 10 ** 6, "start_full": 60}


def test_bench_quick(tmp_path):
    out = tmp_path / "results.json"
    cmd = [sys.executable, os.path.join(ROOT, "bench", "run"), "--quick", "--no-slurm",
           "--json", str(out), "--bin", helpers.HERD_BIN,
           "--prefix", str(tmp_path / "bench")]
    cp = subprocess.run(cmd, capture_output=True, text=True, timeout=150, cwd=ROOT)
    assert cp.returncode == 0, "bench/run failed\n%s\n%s" % (cp.stdout, cp.stderr[-4000:])
    res = json.loads(out.read_text())
    figs = res["figures"]
    for key in NUMERIC:
        assert key in figs, "figure %s missing; have %s" % (key, sorted(figs))
        h = figs[key].get("herd", {})
        assert "median" in h, "figure %s has no Herd number: %r" % (key, h)
        assert h["min"] <= h["median"] <= h["max"], (key, h)
        assert h["median"] > 0, (key, h)
        assert h["median"] < LIMITS.get(key, 10 ** 9), (key, h)
    for key, text in NOT_YET.items():
        h = figs[key]["herd"]
        # The day the feature lands, a number is fine too.
        assert "median" in h or text in h.get("text", ""), (key, h)
    assert "sched_pass" in figs
    assert "| figure | Herd | Slurm |" in cp.stdout
    assert not res["errors"]
