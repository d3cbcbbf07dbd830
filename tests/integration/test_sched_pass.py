"""The scheduling pass as users meet it: the controller keeps answering while
a long pass plans (it runs on a snapshot in its own thread), every pending
job gets an expected start, and a malformed associations file stops the
controller at start-up with the line named."""

import os
import re
import time

import pytest

from helpers import Cluster, cluster_dir, cluster_fixture, open_dir, wait_for

# Conservative backfill plans a reservation for every job: with 10,000 of
# them on two nodes a pass takes seconds (longer under the sanitizers).
UP = ["--nodes", "2", "--gpus-per-node", "4", "--cpus-per-node", "8", "--mem-per-node", "8000",
      "--set", "SchedulerParameters=herd_policy=conservative", "--set", "MinJobAge=600",
      "--set", "MaxJobCount=20000"]     # 10,000 and the probes, past Slurm's default
NJOBS = 10000


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    gen = cluster_fixture(tmp_path_factory, "pass", UP)
    c = next(gen)
    try:
        yield c
    finally:
        for _ in gen:
            pass


def bulk_specs(wd, n):
    return [{"name": f"p{i}", "script": "#!/bin/sh\nsleep 300\n", "work_dir": wd,
             "stdout": "/dev/null", "gpus": 1 + i % 4, "time_limit": 10 + i % 50}
            for i in range(n)]


def timed(c, path):
    t0 = time.monotonic()
    st, _ = c.api("GET", path, timeout=30)
    assert st == 200, path
    return time.monotonic() - t0


def test_answers_while_a_pass_plans(busy, tmp_path):
    c = busy
    wd = str(tmp_path)
    open_dir(wd)
    st, r = c.api("POST", "/v1/jobs", {"jobs": bulk_specs(wd, NJOBS)}, timeout=120)
    assert st == 200 and len(r["job_ids"]) == NJOBS, (st, r)
    probe = r["job_ids"][-1]
    # Each submission asks for a pass over all 10,000: ask for a job while
    # the controller says one is planning.
    during, t_end, next_submit = [], time.monotonic() + 20, 0
    while len(during) < 5 and time.monotonic() < t_end:
        if time.monotonic() >= next_submit:
            assert c.api("POST", "/v1/jobs", bulk_specs(wd, 1)[0])[0] == 200
            next_submit = time.monotonic() + 0.5
        st, d = c.api("GET", "/v1/diag")
        assert st == 200, d
        if d["schedule_in_flight"]:
            during.append(timed(c, f"/v1/jobs/{probe}"))
        time.sleep(0.01)
    def settled():
        d = c.api("GET", "/v1/diag")[1]
        return d if d["schedule_cycle_total"] > 0 and not d["schedule_in_flight"] else None
    d = wait_for(settled, 60, "a pass to finish")
    # Planned in the event loop, no answer could ever say a pass is in flight.
    assert len(during) >= 5, (during, d)
    assert max(during) < 0.5, (during, d)
    assert d["schedule_queue_length"] >= NJOBS - 16 and d["schedule_cycle_max"] > 0, d
    out = c.run(["sdiag"]).stdout
    assert "Main schedule statistics (microseconds):" in out, out
    last = re.search(r"Last queue length: (\d+)", out)
    assert last and int(last.group(1)) >= NJOBS - 16, out


def test_every_pending_job_has_an_expected_start(busy):
    c = busy
    out = c.run(["squeue", "--start", "-h", "-o", "%i %S"]).stdout.splitlines()
    assert len(out) >= NJOBS - 8, len(out)
    missing = [l for l in out if l.split()[1] == "N/A"]
    assert not missing, missing[:5]
    starts = [time.mktime(time.strptime(l.split()[1], "%Y-%m-%dT%H:%M:%S")) for l in out]
    assert all(s >= time.time() - 5 for s in starts), out[:5]
    c.run(["scancel", "-u", "root"])


def test_malformed_assoc_file_stops_startup(tmp_path_factory):
    c = Cluster(cluster_dir(tmp_path_factory, "badassoc"), ["--nodes", "1"])
    with open(os.path.join(c.dir, "herd-assoc.conf"), "w") as f:
        f.write("Account=gold FairShare=90\nUser=alice Account=gold FairShare=lots\n")
    try:
        c.started = True
        from helpers import HERD_BIN, base_env, run
        cp = run([os.path.join(HERD_BIN, "herd"), "up", "-D", c.dir, "--nodes", "1"],
                 env=base_env(), check=False, timeout=120)
        assert cp.returncode != 0, cp.stdout + cp.stderr
        said = cp.stdout + cp.stderr + c.log_tail()
        assert "herd-assoc.conf" in said and ":2:" in said, said
    finally:
        problems = c.stop_and_check()
        assert not problems, problems
