"""The table (figure, Herd, Slurm, ratio, floor, goal) and the JSON record.
Where Slurm was not measured in this run, its figure from slurm-ref's README
(same machine) is shown, marked "ref"."""

import json
import time

import util

# slurm-ref/README.md, 2 vCPUs, Slurm 22.05, medians.
SLURM_REF = {
    "submit": 114, "parallel": 251, "e2e": 23, "array": 22, "latency": 1680,
    "perjob_10000": 5500, "squeue_10000": 205, "squeue_o_10000": 148, "squeue_j_10000": 10,
    "sinfo_10000": 10, "scontrol_job_10000": 10, "start_first": 2.9, "start_full": 16,
    "scancel": 10.9, "sacct_all": 26.7, "sacct_j": 100,   # sacct_all: 1.6 s / 60,000 records
}


def slurm_cell(fig, measured, quick):
    if measured or "slurm" in fig.text:
        return util.fmt_side(fig, "slurm"), util.ratio(fig)
    ref = None if quick else SLURM_REF.get(fig.key)
    if ref is None:
        return "-", "-"
    h = fig.median("herd")
    r = "-"
    if h:
        r = "%.1fx" % ((h / ref) if fig.higher_better else (ref / h))
    return "%s %s (ref)" % (util.fmt_num(ref), fig.unit), r


def table(ctx):
    rows = ["| figure | Herd | Slurm | Herd vs Slurm | floor | goal |",
            "| --- | --- | --- | --- | --- | --- |"]
    floor = ctx.figs.get("floor")
    for key in ctx.order:
        f = ctx.figs[key]
        if key == "floor":
            rows.append("| %s | %s | | | (this is the floor) | |" % (
                f.label, util.fmt_side(f, "herd")))
            continue
        s, r = slurm_cell(f, bool(ctx.slurm), ctx.quick)
        fl = ""
        if key == "submit" and floor and floor.median("herd"):
            fl = "%s /s (Herd at %.0f %%)" % (util.fmt_num(floor.median("herd")),
                                              100 * (f.median("herd") or 0) / floor.median("herd"))
        if getattr(f, "vs_floor", False) and floor and floor.median("herd") and f.median("herd"):
            per = 1000 / floor.median("herd")   # ms per fork+exec
            fl = "%s ms (Herd at %.2fx)" % (util.fmt_num(per), f.median("herd") / per)
        rows.append("| %s | %s | %s | %s | %s | %s |" % (
            f.label, util.fmt_side(f, "herd"), s, r, fl, f.goal or ""))
    return "\n".join(rows)


def write_json(ctx, path, argv, started):
    out = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)),
        "seconds": round(time.time() - started, 1),
        "machine": util.machine(),
        "argv": argv,
        "quick": ctx.quick,
        "slurm": bool(ctx.slurm),
        "sizes": ctx.size,
        "commands": ctx.commands,
        "order": ctx.order,
        "figures": {k: ctx.figs[k].as_json() for k in ctx.order},
        "slurm_ref": SLURM_REF,
        "errors": ctx.errors,
    }
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
