"""GPUs are never shared: six whole-node GPU jobs on 2 nodes x 4 GPUs run at
most two at a time, on disjoint devices, and the others wait with a reason."""

import os
import time

from helpers import read, wait_for

SCRIPT = """#!/bin/sh
echo "start $(date +%s.%N) $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES"
sleep 2
echo "end $(date +%s.%N)"
"""


def test_six_whole_node_gpu_jobs(cluster, workdir):
    c = cluster
    jobs = [c.sbatch(["--gres=gpu:4", "-J", f"g{i}"], cwd=workdir, script=SCRIPT)
            for i in range(6)]
    ids = {str(j) for j in jobs}
    max_running = 0
    reasons = set()
    rows_seen = []

    def all_done():
        nonlocal max_running
        cp = c.run(["squeue", "-h", "-t", "all", "-o", "%i %T %R"])
        rows = [l.split(None, 2) for l in cp.stdout.splitlines()]
        mine = [r for r in rows if r and r[0] in ids]
        running = [r for r in mine if r[1] == "RUNNING"]
        max_running = max(max_running, len(running))
        for r in mine:
            if r[1] == "PENDING" and len(r) == 3:
                reasons.add(r[2])
        rows_seen.append(mine)
        return len(mine) == 6 and all(r[1] in ("COMPLETED", "FAILED", "CANCELLED") for r in mine)

    wait_for(all_done, 90, "the six GPU jobs to end", interval=0.2)
    states = {j: c.state(j) for j in jobs}
    bad = {j: (s, read(os.path.join(workdir, f"slurm-{j}.out")), c.job_debug(j))
           for j, s in states.items() if s != "COMPLETED"}
    assert not bad, f"jobs that did not complete: {bad}"
    assert max_running <= 2, f"{max_running} whole-node GPU jobs RUNNING at once on 2 nodes"
    assert reasons, "no waiting job was ever seen PENDING"
    assert reasons <= {"(Resources)", "(Priority)"}, f"pending reasons shown: {reasons}"
    assert "(Resources)" in reasons, reasons

    spans = []
    for j in jobs:
        text = read(os.path.join(workdir, f"slurm-{j}.out")).split()
        # start T NODE DEVS end T
        assert len(text) == 6 and text[0] == "start" and text[4] == "end", (j, text)
        devs = set(text[3].split(","))
        assert len(devs) == 4, f"job {j} got CUDA_VISIBLE_DEVICES={text[3]}"
        spans.append((j, text[2], devs, float(text[1]), float(text[5])))
    for a in spans:
        for b in spans:
            if a[0] < b[0] and a[1] == b[1] and a[3] < b[4] and b[3] < a[4]:
                assert not (a[2] & b[2]), \
                    f"jobs {a[0]} and {b[0]} ran together on {a[1]} sharing GPUs {a[2] & b[2]}"
    # At no instant did more than two of them run.
    for _, _, _, t, _ in spans:
        together = [s for s in spans if s[3] <= t < s[4]]
        assert len(together) <= 2, together


def test_waiting_job_reason_in_default_squeue(cluster, workdir):
    c = cluster
    first = [c.sbatch(["--gres=gpu:4", "-J", "fill"], cwd=workdir,
                      script="#!/bin/sh\nexec /bin/sleep 30\n") for _ in range(2)]
    for j in first:
        c.wait_state(j, "RUNNING")
    waiting = c.sbatch(["--gres=gpu:4", "-J", "waits"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    time.sleep(1.0)

    def row():
        lines = c.run(["squeue", "-j", str(waiting)]).stdout.splitlines()
        return lines[1] if len(lines) == 2 and lines[1].rstrip().endswith(")") else None
    line = wait_for(row, 10, f"job {waiting} to show a pending reason")
    assert line.split()[4] == "PD", line
    assert line.split()[-1] in ("(Resources)", "(Priority)"), line
    c.run(["scancel"] + [str(j) for j in first + [waiting]])
