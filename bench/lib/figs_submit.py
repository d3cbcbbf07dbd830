"""Submission figures: the fork+exec floor, serial and parallel sbatch, and
Herd's bulk API. Loops run in bash and are timed inside it, as slurm-ref's
bench.sh times them."""

import os
import subprocess

import context
import util


def floor(ctx):
    """1,000 fork+exec of an empty static binary: what a serial loop of any
    command cannot beat on this machine."""
    n = ctx.size["serial"]
    src, exe = os.path.join(ctx.wd, "nop.c"), os.path.join(ctx.wd, "nop")
    with open(src, "w") as f:
        f.write("int main(void) { return 0; }\n")
    subprocess.run(["cc", "-static", "-O2", "-o", exe, src], check=True)
    f = ctx.fig("floor", "floor: %d fork+exec of a static empty binary (bash loop)" % n,
                "/s", True)
    for _ in range(max(ctx.size["reps"], 3)):
        el = util.timed_sh("for ((i = 0; i < %d; i++)); do %s >/dev/null; done" % (n, exe))
        f.add("herd", n / el)
        if ctx.slurm:
            f.add("slurm", n / el)
    ctx.note_cmd("floor: `for ((i=0;i<%d;i++)); do ./nop >/dev/null; done` (nop: `cc -static`"
                 " empty main)" % n)


def serial_loop(t, ctx, n, held):
    return util.timed_sh(
        "for ((i = 0; i < %d; i++)); do %s -Q %s-o /dev/null %s/true.sh >/dev/null "
        "2>>%s/sbatch.err; done" % (n, t.cmd("sbatch"), "-H " if held else "", ctx.wd, ctx.wd),
        env=t.env, timeout=1800)


def serial(ctx):
    n = ctx.size["serial"]
    f = ctx.fig("submit", "%d serial `sbatch --hold` (submit path only)" % n, "jobs/s", True,
                goal=">= 80 % of floor")
    ctx.note_cmd("submit: `for ((i=0;i<%d;i++)); do sbatch -Q -H -o /dev/null true.sh; done`,"
                 " queue emptied before each repetition" % n)
    for side in ctx.sides():
        t = ctx.herd("submit") if side == "herd" else ctx.slurm
        for r in range(ctx.size["reps"]):
            t.clean()
            el = serial_loop(t, ctx, n, True)
            got = t.count("PD")
            if got < n:
                raise RuntimeError("%s: %d of %d serial submissions pending" % (side, got, n))
            f.add(side, n / el)
            ctx.log("submit %s rep%d: %.3fs = %.0f/s" % (side, r + 1, el, n / el))
        t.clean()
        if side == "herd":
            t.down()
    fl = ctx.figs.get("floor")
    if fl and fl.median("herd"):
        f.note["herd"] = "%.0f %% of the fork+exec floor" % (100 * f.median("herd") /
                                                          fl.median("herd"))


def parallel(ctx):
    n, par = ctx.size["par_total"], ctx.size["par"]
    f = ctx.fig("parallel", "%d `sbatch --hold` in %d parallel streams (slurm-ref's mix)"
                % (n, par), "jobs/s", True)
    ctx.note_cmd("parallel: `xargs -P %d -L 1 sbatch -Q -H -J benchE -o /dev/null < mix.txt`"
                 " (%d lines, slurm-ref's awk mix)" % (par, n))
    for side in ctx.sides():
        t = ctx.herd("parallel") if side == "herd" else ctx.slurm
        reps = ctx.size["reps"] if side == "herd" else 1
        if side == "slurm":
            f.note["slurm"] = "1 repetition (each takes a minute)"
        for r in range(reps):
            t.clean()
            el = util.timed_sh("xargs -P %d -L 1 %s -Q -H -J benchE -o /dev/null < %s "
                               "2>>%s/sbatch.err" % (par, t.cmd("sbatch"), ctx.mix_file(n),
                                                     ctx.wd), env=t.env, timeout=1800)
            got = t.count("PD")
            f.add(side, got / el)
            ctx.log("parallel %s rep%d: %d accepted in %.2fs = %.0f/s" % (side, r + 1, got, el,
                                                                          got / el))
        t.clean()
        if side == "herd":
            t.down()


def bulk(ctx):
    n, per = ctx.size["bulk"], ctx.size["bulk_per_req"]
    f = ctx.fig("bulk", "bulk API: %d held jobs, %d per request, one connection (durable)"
                % (n, per), "jobs/s", True, goal=">= 20,000/s")
    d = ctx.fig("bulk_defaults", "bulk API as above, what the specs share (script, "
                "environment, directories) once per request as \"defaults\"", "jobs/s", True)
    g = ctx.fig("bulk1", "API: %d held jobs one per request, keep-alive connection (durable)"
                % (n // 10), "jobs/s", True)
    ctx.note_cmd("bulk: POST /v1/jobs {\"jobs\": [%d specs]} x %d on one Unix-socket "
                 "connection (Python http.client), specs as sbatch sends them (each with its "
                 "environment); bulk_defaults: {\"defaults\": {shared keys}, \"jobs\": [the "
                 "rest]}; bodies encoded before the clock starts" % (per, n // per))
    h = ctx.herd("bulk")
    for r in range(ctx.size["reps"]):
        specs = ctx.mix_specs(h, n, True)
        for fig, shared in ((f, False), (d, True)):
            h.clean()
            el = context.bulk_submit(h, specs, per, shared)
            fig.add("herd", n / el)
            ctx.log("%s rep%d: %d in %.3fs = %.0f/s" % (fig.key, r + 1, n, el, n / el))
        m = n // 10
        el = context.bulk_submit(h, specs[:m], 1)
        g.add("herd", m / el)
        ctx.log("single-spec API rep%d: %d in %.3fs = %.0f/s" % (r + 1, m, el, m / el))
    h.clean()
    h.down()
    for x in (f, d, g):
        if ctx.slurm:
            x.na("slurm", "n/a (no bulk submission; slurmrestd not set up)")


def grow(ctx):
    """Bulk submission as the queue grows: jobs that may run (not held) in
    partitions that are down, so that every scheduling pass has them all to
    plan, submitted in four parts; the first part's rate beside the last's."""
    n, per = ctx.size["grow"], ctx.size["bulk_per_req"]
    part = n // 4
    first = ctx.fig("grow_first", "bulk API, eligible jobs in down partitions: the first %s "
                    "(0 to %s pending)" % ("{:,}".format(part), "{:,}".format(part)),
                    "jobs/s", True)
    last = ctx.fig("grow_last", "... and the last %s (%s to %s pending)"
                   % ("{:,}".format(part), "{:,}".format(n - part), "{:,}".format(n)),
                   "jobs/s", True)
    ctx.note_cmd("grow: %d specs of the mix, not held, in requests of %d, into partitions set "
                 "DOWN (every pass plans them all); rate of each quarter" % (n, per))
    h = ctx.herd("grow")
    for p in ("debug", "gpu"):
        util.sh("%s update PartitionName=%s State=DOWN" % (h.cmd("scontrol"), p), env=h.env,
                check=True)
    specs = ctx.mix_specs(h, n, False)
    rates = []
    for i in range(0, 4 * part, part):
        el = context.bulk_submit(h, specs[i:i + part], per)
        rates.append(part / el)
    ctx.log("grow: %s jobs/s by quarter" % " ".join("%.0f" % r for r in rates))
    first.add("herd", rates[0])
    last.add("herd", rates[-1])
    h.down()
    for x in (first, last):
        if ctx.slurm:
            x.na("slurm", "n/a (no bulk submission)")
