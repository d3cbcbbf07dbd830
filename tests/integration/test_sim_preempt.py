"""`herd sim` with scavenger jobs, preemption and maintenance windows, on a
small generated trace (bench/sim/gen_swf.py, seed recorded here): what a
site deciding whether to let owners preempt scavengers would look at."""

import csv
import json
import os
import subprocess
import sys

import pytest

import helpers

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GEN = os.path.join(ROOT, "bench", "sim", "gen_swf.py")
# 600 jobs on 32 processors at 60 % offered load: about two simulated days.
TRACE_ARGS = ["--jobs", "600", "--procs", "32", "--load", "0.6", "--seed", "11"]
STREAM = ["--scavenger-stream", "4", "--seed", "5"]


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("simtrace") / "w.swf"
    cp = subprocess.run([sys.executable, GEN] + TRACE_ARGS, capture_output=True, text=True,
                        timeout=30, check=True)
    path.write_text(cp.stdout)
    return str(path)


def sim(args, timeout=60):
    cp = subprocess.run([os.path.join(helpers.HERD_BIN, "herd"), "sim", "--json"] + args,
                        capture_output=True, text=True, timeout=timeout)
    assert cp.returncode == 0, helpers.fmt_result(cp)
    return json.loads(cp.stdout)


def test_preemption_keeps_owners_waits_and_fills_the_machine(trace):
    base = sim(STREAM + ["--owners-only", trace])
    pre = sim(STREAM + ["--preempt", "requeue", trace])
    off = sim(STREAM + ["--preempt", "off", trace])
    assert base["owners"] == pre["owners"] == off["owners"] == 600
    # Owners barely notice scavengers they may preempt...
    assert pre["avg_wait_s"] <= base["avg_wait_s"] * 1.05 + 30, (base, pre)
    # ...and the scavengers' completed work fills the machine.
    assert pre["utilization"] > base["utilization"] + 0.1, (base, pre)
    sc = pre["scavengers"]
    assert sc["preemptions"] > 0 and sc["lost_proc_h"] > 0, sc
    assert sc["completed"] > 0 and sc["done_proc_h"] > sc["lost_proc_h"], sc
    # Without preemption the same scavengers hold nodes the owners want.
    assert off["avg_wait_s"] > pre["avg_wait_s"] * 1.2 + 60, (pre, off)
    assert off["scavengers"]["preemptions"] == 0 and off["scavengers"]["lost_proc_h"] == 0


def test_cancel_and_grace(trace, tmp_path):
    out = tmp_path / "jobs.tsv"
    r = sim(STREAM + ["--preempt", "cancel", "--grace", "120", "--jobs-out", str(out), trace])
    sc = r["scavengers"]
    assert sc["cancelled"] > 0 and sc["cancelled"] == sc["preemptions"], sc
    rows = list(csv.DictReader(out.open(), delimiter="\t"))
    cancelled = [x for x in rows if x["state"] == "cancelled"]
    assert len(cancelled) == sc["cancelled"]
    assert all(x["kind"] == "scavenger" for x in cancelled)
    # Each victim ran on through its grace: none is cut in under 120 s.
    assert all(int(x["end"]) - int(x["start"]) >= 120 for x in cancelled), cancelled[:3]
    assert all(x["state"] == "completed" for x in rows if x["kind"] == "owner")


def windows(start, dur, period, until):
    t = start
    while t < until:
        yield t, t + dur
        t += period


def test_no_job_runs_inside_a_maintenance_window(trace, tmp_path):
    out = tmp_path / "jobs.tsv"
    base = sim([trace])
    # A 4-hour window every day from the trace's 6th hour (its first submit is 0).
    r = sim(["--maint", "21600,14400,86400", "--jobs-out", str(out), trace])
    m = r["maint"]
    assert m["windows"] >= 2 and m["overlaps"] == 0, m
    rows = list(csv.DictReader(out.open(), delimiter="\t"))
    assert len(rows) == r["jobs"] and all(x["state"] == "completed" for x in rows)
    last = max(int(x["end"]) for x in rows)
    inside = [(x["id"], x["start"], x["end"]) for x in rows
              for ws, we in windows(21600, 14400, 86400, last)
              if int(x["start"]) < we and int(x["end"]) > ws]
    assert not inside, inside[:5]
    # Closing the machine 4 hours a day costs the owners waiting time.
    assert r["avg_wait_s"] > base["avg_wait_s"], (base, r)


@pytest.mark.parametrize("args,words", [
    (["--preempt", "maybe"], "bad --preempt 'maybe'"),
    (["--scavenger-users", "150"], "bad --scavenger-users '150'"),
    (["--scavenger-stream", "0"], "bad --scavenger-stream '0'"),
    (["--scavenger-stream", "4", "--grace", "-5"], "bad --grace '-5'"),
    (["--maint", "3600"], "bad --maint '3600'"),
    (["--maint", "0,7200,3600"], "PERIOD longer than DURATION"),
    (["--maint", "1h,2h"], "bad --maint '1h,2h'"),
    (["--preempt", "requeue"], "need scavengers"),
    (["--scavenger-stream", "4", "--grace", "60"], "--grace needs --preempt"),
])
def test_bad_values_are_refused_with_their_name(trace, args, words):
    cp = subprocess.run([os.path.join(helpers.HERD_BIN, "herd"), "sim"] + args + [trace],
                        capture_output=True, text=True, timeout=30)
    assert cp.returncode != 0, helpers.fmt_result(cp)
    assert words in cp.stderr, cp.stderr
    assert cp.stdout == ""
