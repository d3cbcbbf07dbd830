"""Figures with a big queue: query commands and controller memory with
10,000 and 100,000 pending jobs, scancel -u of 10,000, sacct."""

import os
import time

import context
import util

QUERIES = [
    ("squeue", ["squeue"]),
    ("squeue_o", ["squeue", "-h", "-o", "%i"]),
    ("squeue_u", ["squeue", "-u", "root", "-t", "PD"]),
    ("squeue_j", ["squeue", "-j", "ONE"]),
    ("sinfo", ["sinfo"]),
    ("scontrol_job", ["scontrol", "show", "job", "ONE"]),
]
# issue 26's goals; the single-job queries are measured against the fork+exec floor
GOALS = {("squeue", 0): "<= 15 ms", ("squeue", 1): "<= 100 ms"}
VS_FLOOR = {"squeue_j", "sinfo", "scontrol_job"}


def measure_queries(ctx, t, n, idx):
    one = t.one_job()
    size = ctx.size["big1"] if idx == 0 else ctx.size["big2"]
    for key, argv in QUERIES:
        f = ctx.fig("%s_%d" % (key, size),
                    "`%s` with %s pending" % (" ".join(argv), "{:,}".format(size)), "ms", False,
                    goal="<= 1.5x floor" if key in VS_FLOOR else GOALS.get((key, idx)))
        f.vs_floor = key in VS_FLOOR
        exe = t.cmd(argv[0])
        if not os.path.exists(exe):
            f.na(t.side, "n/a (%s not implemented)" % argv[0])
            continue
        cmd = " ".join([exe] + [one if a == "ONE" else "'%s'" % a for a in argv[1:]])
        for _ in range(ctx.size["q_reps"]):
            f.add(t.side, 1000 * util.timed_sh(cmd + " >/dev/null", env=t.env, timeout=300))
        ctx.log("%s %s: %s ms" % (t.side, f.label, " ".join("%.1f" % v for v in f.reps[t.side])))


def settled_count(t):
    """The pending jobs, counted once the submissions are done; then a
    pause, so that the memory figure is the queue's and not that count's
    answer (herdctld gives back each second what requests freed)."""
    time.sleep(1)
    n = t.count("PD")
    time.sleep(1.5)
    return n


def memory_fig(ctx, t, n, rss0, label_n):
    rss = t.ctld_rss_kb()
    f = ctx.fig("rss_%d" % label_n, "controller RSS with %s pending (fresh: 0 jobs)"
                % "{:,}".format(label_n), "MiB", False)
    f.add(t.side, rss / 1024)
    f.note[t.side] = "fresh %.1f MiB" % (rss0 / 1024)
    p = ctx.fig("perjob_%d" % label_n, "controller memory per pending job (%s pending)"
                % "{:,}".format(label_n), "B", False, goal="<= 600 B")
    p.add(t.side, (rss - rss0) * 1024 / max(n, 1))
    ctx.log("%s RSS: fresh %d kB, %d pending %d kB" % (t.side, rss0, n, rss))


def queries(ctx):
    """Fresh controller; RSS at 0; 10,000 pending held jobs of the mix
    (Herd: bulk API; Slurm: 4 parallel sbatch); queries and RSS; then up to
    100,000 (Slurm: only with --slurm-100k, submitting takes ~7 min)."""
    big1, big2 = ctx.size["big1"], ctx.size["big2"]
    ctx.note_cmd("queries: each command 5 times, timed in bash, output to /dev/null; "
                 "RSS: VmRSS of /proc/PID/status of the controller, fresh vs loaded")
    f0 = ctx.fig("rss_0", "controller RSS, fresh with 0 jobs", "MiB", False)
    for side in ctx.sides():
        if side == "herd":
            t = ctx.herd("queries")
            time.sleep(1)
        else:
            t = ctx.slurm
            t.clean()
            time.sleep(2)
        rss0 = t.ctld_rss_kb()
        f0.add(side, rss0 / 1024)
        if side == "slurm":
            f0.note[side] = "not restarted: its heap keeps what earlier sections took"
        context.populate(ctx, t, big1)
        n = settled_count(t)
        memory_fig(ctx, t, n, rss0, big1)
        measure_queries(ctx, t, n, 0)
        if side == "herd" or ctx.slurm_100k:
            specs_more = big2 - big1
            if side == "herd":
                context.bulk_submit(t, ctx.mix_specs(t, big2, True)[big1:], ctx.size["bulk_per_req"])
            else:
                util.timed_sh("head -n %d %s | tail -n %d | xargs -P 4 -L 1 %s -Q -H -o /dev/null"
                              % (big2, ctx.mix_file(big2), specs_more, t.cmd("sbatch")),
                              env=t.env, timeout=3600)
            n = settled_count(t)
            memory_fig(ctx, t, n, rss0, big2)
            measure_queries(ctx, t, n, 1)
        else:
            for key, argv in QUERIES:
                ctx.fig("%s_%d" % (key, big2), "`%s` with %s pending" % (
                    " ".join(argv), "{:,}".format(big2)), "ms", False).na(
                    side, "not run (--slurm-100k)")
        t.clean(600)
        if side == "herd":
            t.down()


def scancel(ctx):
    n = ctx.size["scancel"]
    f = ctx.fig("scancel", "`scancel -u root` of %s pending jobs: returns" % "{:,}".format(n),
                "s", False)
    g = ctx.fig("scancel_empty", "`scancel -u root` of %s pending jobs: queue empty"
                % "{:,}".format(n), "s", False)
    ctx.note_cmd("scancel: %d held jobs (Herd: bulk API; Slurm: 4 parallel sbatch), then "
                 "`scancel -u root`, then squeue polled until empty" % n)
    for side in ctx.sides():
        t = ctx.herd("scancel") if side == "herd" else ctx.slurm
        for _ in range(ctx.size["reps"] if side == "herd" else 1):
            t.clean()
            context.populate(ctx, t, n)
            t0 = time.perf_counter()
            util.timed_sh("%s -u root" % t.cmd("scancel"), env=t.env, timeout=900)
            t1 = time.perf_counter()
            t.wait_empty(900)
            t2 = time.perf_counter()
            f.add(side, t1 - t0)
            g.add(side, t2 - t0)
            ctx.log("scancel %s: %.3fs / %.3fs" % (side, t1 - t0, t2 - t0))
        if side == "herd":
            t.down()


def sacct(ctx):
    n = ctx.size["sacct"]
    f = ctx.fig("sacct_all", "`sacct -a` over all job records, per record", "us", False,
                goal=">= 5x Slurm")
    g = ctx.fig("sacct_j", "`sacct -j ID` (Herd: %s finished records)" % "{:,}".format(n),
                "ms", False, goal="<= 10 ms")
    bin_sacct = os.path.join(ctx.bin, "sacct")
    if not os.path.exists(bin_sacct):
        f.na("herd", "n/a (sacct not implemented)")
        g.na("herd", "n/a (sacct not implemented)")
    else:
        # Finished records the fast way: jobs cancelled while they wait in
        # partitions that are down (running 100,000 jobs at the measured
        # launch rate would take most of an hour). Not held: a held job
        # never becomes eligible, and Slurm's window leaves those out.
        h = ctx.herd("sacct", min_job_age=30)
        for part in ("debug", "gpu"):
            util.sh("%s update PartitionName=%s State=DOWN" % (h.cmd("scontrol"), part),
                    env=h.env, check=True)
        context.populate(ctx, h, n, hold=False)
        util.timed_sh("%s -u root" % h.cmd("scancel"), env=h.env, timeout=1800)
        h.wait_empty(1800)
        f.note["herd"] = "%d jobs cancelled while pending" % n
        # per record: Slurm's database holds another count of them
        for fig, cmd, per in ((f, "%s -a -X -n -S 2000-01-01 -o jobid,state,elapsed" % bin_sacct,
                               1e6 / n),
                              (g, "%s -j %d" % (bin_sacct, n // 2), 1000)):
            for _ in range(3):
                fig.add("herd", per * util.timed_sh(cmd + " >/dev/null", env=h.env))
        h.down()
    if ctx.slurm and ctx.slurm.has_accounting():
        t = ctx.slurm
        _, out, _ = util.sh("/usr/bin/sacct -a -X -n -S 2000-01-01 -o jobid | wc -l", env=t.env)
        records = max(1, int(out.strip() or "1"))
        f.note["slurm"] = "%d records in slurmdbd" % records
        for fig, cmd, per in ((f, "/usr/bin/sacct -a -X -n -S 2000-01-01 -o jobid,state,elapsed",
                               1e6 / records),
                              (g, "/usr/bin/sacct -j ONE", 1000)):
            if "ONE" in cmd:
                _, out, _ = util.sh("/usr/bin/sacct -a -X -n -S 2000-01-01 -o jobid | tail -1",
                                    env=t.env)
                cmd = cmd.replace("ONE", out.strip() or "1")
            for _ in range(3):
                fig.add("slurm", per * util.timed_sh(cmd + " >/dev/null", env=t.env))
