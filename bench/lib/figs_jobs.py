"""Figures of jobs that run: trivial jobs end to end, arrays, submit to
running on an idle cluster, many varied jobs made eligible at once, and the
scheduler's pass time (bench/sched)."""

import os
import re
import subprocess
import time

import context
import util

WAIT_EMPTY = ('while [[ -n $(%s -h -o %%i | head -1) ]]; do sleep 0.05; '
              '(( SECONDS > %d )) && exit 3; done')


def e2e(ctx):
    n = ctx.size["e2e"]
    f = ctx.fig("e2e", "%d trivial jobs (`true`), serial sbatch, first submit -> queue empty" % n,
                "jobs/s", True, goal=">= 10x Slurm")
    g = ctx.fig("e2e_bulk", "%d trivial jobs in one bulk request -> queue empty" % n,
                "jobs/s", True)
    ctx.note_cmd("e2e: serial `sbatch -Q -o /dev/null true.sh` loop, then `squeue -h -o %i`"
                 " polled every 50 ms until empty; e2e_bulk: one POST of n specs, same wait")
    for side in ctx.sides():
        t = ctx.herd("e2e") if side == "herd" else ctx.slurm
        for r in range(ctx.size["reps"]):
            t.clean()
            body = ("for ((i = 0; i < %d; i++)); do %s -Q -o /dev/null %s/true.sh >/dev/null "
                    "2>>%s/sbatch.err; done\necho \"@@S $EPOCHREALTIME\"\n"
                    % (n, t.cmd("sbatch"), ctx.wd, ctx.wd)) + WAIT_EMPTY % (t.cmd("squeue"), 900)
            el = util.timed_sh(body, env=t.env, timeout=1000)
            f.add(side, n / el)
            ctx.log("e2e %s rep%d: %d jobs in %.2fs = %.0f/s" % (side, r + 1, n, el, n / el))
            if side == "herd":
                specs = [t.spec(os.path.join(ctx.wd, "true.sh"), ctx.wd)] * n
                t0 = time.perf_counter()
                context.bulk_submit(t, specs, n)
                if not t.wait_empty(900):
                    raise RuntimeError("e2e_bulk: queue not empty")
                el = time.perf_counter() - t0
                g.add(side, n / el)
                ctx.log("e2e_bulk rep%d: %.2fs = %.0f/s" % (r + 1, el, n / el))
        if side == "herd":
            t.down()
        else:
            g.na("slurm", "n/a (no bulk submission)")


def array(ctx):
    n = ctx.size["array"]
    f = ctx.fig("array", "job array of %d trivial tasks, submit -> queue empty" % n,
                "tasks/s", True, goal=">= 10x Slurm")
    ctx.note_cmd("array: `sbatch -Q -o /dev/null --array=1-n true.sh`, then `squeue -h -o %i`"
                 " polled until empty")
    for side in ctx.sides():
        t = ctx.herd("array") if side == "herd" else ctx.slurm
        for r in range(ctx.size["reps"]):
            t.clean()
            el = util.timed_sh("%s -Q -o /dev/null --array=1-%d %s/true.sh >/dev/null\n" %
                               (t.cmd("sbatch"), n, ctx.wd) + WAIT_EMPTY % (t.cmd("squeue"), 900),
                               env=t.env, timeout=1000)
            f.add(side, n / el)
            ctx.log("array %s rep%d: %d tasks in %.2fs = %.0f/s" % (side, r + 1, n, el, n / el))
        if side == "herd":
            t.down()


def latency(ctx):
    f = ctx.fig("latency", "idle cluster: sbatch returned -> job script running", "ms", False,
                goal="<= 10 ms")
    g = ctx.fig("latency_total", "idle cluster: before sbatch -> job script running", "ms",
                False)
    ctx.note_cmd("latency: `sbatch --parsable -o /dev/null stamp.sh` (the script runs "
                 "`date +%s.%N > lat.$SLURM_JOB_ID`), file polled every 2 ms; 1 s pause between")
    for side in ctx.sides():
        t = ctx.herd("latency") if side == "herd" else ctx.slurm
        t.clean()
        time.sleep(1)
        for r in range(ctx.size["lat_reps"]):
            t_before = time.time()
            cp = subprocess.run([t.cmd("sbatch"), "--parsable", "-o", "/dev/null",
                                 os.path.join(ctx.wd, "stamp.sh")], env=t.env,
                                capture_output=True, text=True, timeout=60)
            t_ret = time.time()
            jid = cp.stdout.strip().split(";")[0]
            path = os.path.join(ctx.wd, "lat." + jid)
            if not util.wait_until(lambda: os.path.exists(path) and os.path.getsize(path) > 0,
                                   60, 0.002):
                raise RuntimeError("%s: job %s never ran" % (side, jid))
            with open(path) as fh:
                ts = float(fh.read().strip())
            os.unlink(path)
            f.add(side, 1000 * (ts - t_ret))
            g.add(side, 1000 * (ts - t_before))
            t.wait_empty(60)
            time.sleep(1)
        ctx.log("latency %s: %s ms" % (side, " ".join("%.1f" % v for v in f.reps[side])))
        if side == "herd":
            t.down()


def watch_alloc(t, t0, window, settle):
    """Polls the node's allocation every 50 ms from t0; returns the
    timeline [(seconds, cpus, gpus)] of changes. Stops after window s, or
    settle s without a change once something started."""
    tl, last = [], (0, 0)
    while True:
        now = time.time()
        a = t.node_alloc()
        if a and a != last:
            tl.append((now - t0, a[0], a[1]))
            last = a
        if now - t0 > window or (tl and now - t0 - tl[-1][0] > settle):
            return tl
        time.sleep(0.05)


def start(ctx):
    n = ctx.size["start"]
    f = ctx.fig("start_first", "%d varied jobs eligible at once: first start" % n, "s", False)
    g = ctx.fig("start_full", "%d varied jobs eligible at once: node full (last start)" % n,
                "s", False)
    ctx.note_cmd("start: Herd: POSTs of bulk_per_req mix specs (sleep 3600; %d in all) on one"
                 " connection on an idle cluster, t0 ="
                 " request sent; Slurm: partitions DOWN, mix submitted, t0 = partitions UP."
                 " Node allocation polled every 50 ms (API /v1/nodes, `scontrol show node`)" % n)
    for side in ctx.sides():
        t = ctx.herd("start") if side == "herd" else ctx.slurm
        for r in range(ctx.size["reps"] if side == "herd" else 1):
            t.clean()
            time.sleep(1)
            if side == "herd":
                specs = ctx.mix_specs(t, n, False)
                t0 = time.time()
                # One request of 10,000 specs is over the 16 MiB body limit
                # (common/http.c): requests of bulk_per_req, one connection.
                context.bulk_submit(t, specs, ctx.size["bulk_per_req"])
                tl = watch_alloc(t, t0, ctx.size["start_window"], 3)
            else:
                t.parts_state("DOWN")
                try:
                    context.populate(ctx, t, n, hold=False)
                    t0 = time.time()
                    t.parts_state("UP")
                    tl = watch_alloc(t, t0, ctx.size["slurm_window"], 40)
                finally:
                    t.parts_state("UP")
            if not tl:
                raise RuntimeError("%s: nothing started of %d jobs" % (side, n))
            f.add(side, tl[0][0])
            g.add(side, tl[-1][0])
            g.note[side] = "node at %d/64 CPUs, %d/8 GPUs" % (tl[-1][1], tl[-1][2])
            ctx.log("start %s rep%d: first +%.3fs, last +%.3fs (%s)" % (side, r + 1, tl[0][0],
                                                                       tl[-1][0], g.note[side]))
        t.clean(600)
        if side == "herd":
            t.down()


def sched(ctx):
    """bench/sched/run.sh (a colleague's): one full pass of the scheduler
    core; the line for 1,000 nodes x 10,000 pending is the figure."""
    f = ctx.fig("sched_pass", "scheduler pass, 10,000 pending x 1,000 nodes (bench/sched, "
                "policy herd)", "ms", False)
    pol = os.environ.get("POLICIES", "herd")
    if ctx.quick:
        exe = os.path.join(ctx.root, "build", "bench", "sched")
        if not os.path.exists(exe):
            f.na("herd", "skipped (--quick and build/bench/sched not built)")
            return
        cmds = [[exe, "10", "1000", "herd"]]
        f.label = "scheduler pass, 1,000 pending x 10 nodes (build/bench/sched, --quick)"
    else:
        cmds = [["bench/sched/run.sh"]]
    ctx.note_cmd("sched: `POLICIES=%s bench/sched/run.sh`" % pol)
    lines = []
    for c in cmds:
        env = dict(os.environ, POLICIES=pol)
        cp = subprocess.run(c, cwd=ctx.root, env=env, capture_output=True, text=True,
                            timeout=1200)
        lines += cp.stdout.splitlines()
    ctx.sched_lines = lines
    for line in lines:
        m = re.search(r"^(\S+)\s+nodes\s+(\d+)\s+pending\s+(\d+).*pass\s+([\d.]+) s", line)
        if m and (ctx.quick or (m.group(1) == "herd" and m.group(2) == "1000"
                                and m.group(3) == "10000")):
            f.add("herd", 1000 * float(m.group(4)))
    if not f.reps.get("herd"):
        f.na("herd", "no figure (bench/sched printed %d lines)" % len(lines))
    f.note["herd"] = "; ".join(lines)
    if ctx.slurm:
        f.na("slurm", "see sdiag in slurm-ref (main 49-62 ms, backfill 0.8-0.9 s)")
