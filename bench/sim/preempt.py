#!/usr/bin/python3
"""The preemption and maintenance figures of docs/sim-preemption.md: runs
`herd-sim` on each trace in several configurations and prints Markdown
tables (and, with --json, every run's JSON line to a file).

    bench/sim/preempt.py --bin build/bin [--traces KTH SDSC ...] [--json out.jsonl]

Scavengers are a stream of --stream K queued 1-node jobs (seed --seed), or
the jobs of --users-pct % of a trace's users; owners may preempt them.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TRACES = "/work/shared/data/traces"
SMALL = ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz",
         "CTC-SP2-1996-3.1-cln.swf.gz"]
SYNTH = ["--jobs", "5000", "--procs", "128", "--load", "0.7", "--seed", "7"]


def configs(stream, users_pct, seed):
    st = ["--scavenger-stream", str(stream), "--seed", str(seed)]
    us = ["--scavenger-users", str(users_pct), "--seed", str(seed)]
    return [
        ("stream", "owners alone (baseline)", st + ["--owners-only"]),
        ("stream", "scavengers, no preemption", st + ["--preempt", "off"]),
        ("stream", "preemption: requeue", st + ["--preempt", "requeue"]),
        ("stream", "preemption: requeue, grace 300 s", st + ["--preempt", "requeue",
                                                            "--grace", "300"]),
        ("stream", "preemption: cancel", st + ["--preempt", "cancel"]),
        ("users", "owners alone (baseline)", us + ["--owners-only"]),
        ("users", "scavengers, no preemption", us + ["--preempt", "off"]),
        ("users", "preemption: requeue", us + ["--preempt", "requeue"]),
        ("users", "preemption: cancel", us + ["--preempt", "cancel"]),
    ]


MAINT = [("no windows", []),
         ("4 h every week from day 1", ["--maint", "86400,14400,604800"]),
         ("4 h every week from day 1, scavenger stream with requeue",
          ["--maint", "86400,14400,604800", "--scavenger-stream", "8", "--preempt", "requeue"])]


def run(binary, args, trace):
    cp = subprocess.run(["nice", binary, "--json"] + args + [trace], capture_output=True,
                        text=True)
    if cp.returncode != 0:
        sys.exit("herd-sim %s %s failed: %s" % (" ".join(args), trace, cp.stderr))
    return json.loads(cp.stdout)


def hours(x):
    return "%.0f" % x


def scav_table(name, rows):
    out = ["#### %s" % name, "",
           "| scavengers | run | utilization | busy | owners' wait (s) | owners' bsld |"
           " scavenger work done (proc-h) | lost (proc-h) | preemptions (instant) |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for kind, label, r in rows:
        sc = r.get("scavengers", {})
        done = "-" if sc.get("owners_only") else hours(sc.get("done_proc_h", 0))
        lost = "-" if sc.get("owners_only") else hours(sc.get("lost_proc_h", 0))
        pre = "-" if sc.get("owners_only") else "%d (%d)" % (sc.get("preemptions", 0),
                                                             sc.get("instant_preemptions", 0))
        out.append("| %s | %s | %.3f | %.3f | %.0f | %.2f | %s | %s | %s |" % (
            kind, label, r["utilization"], r["busy"], r["avg_wait_s"], r["avg_bsld"],
            done, lost, pre))
    return "\n".join(out) + "\n"


def maint_table(name, rows):
    out = ["#### %s" % name, "",
           "| run | windows | runs inside a window | jobs refused | owners' wait (s) |"
           " owners' bsld | utilization |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for label, r in rows:
        m = r.get("maint", {"windows": 0, "overlaps": 0, "refused": 0})
        out.append("| %s | %d | %d | %d | %.0f | %.2f | %.3f |" % (
            label, m["windows"], m["overlaps"], m["refused"], r["avg_wait_s"], r["avg_bsld"],
            r["utilization"]))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--traces", nargs="*", default=SMALL)
    ap.add_argument("--stream", type=int, default=8)
    ap.add_argument("--users-pct", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="runs at once")
    ap.add_argument("--json", help="every run's JSON, one a line")
    ap.add_argument("--synthetic", default="/tmp/herd-sim-synth.swf")
    a = ap.parse_args()
    binary = os.path.join(a.bin, "herd-sim")
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "bench/sim/gen_swf.py")] + SYNTH,
                         capture_output=True, text=True, check=True)
    with open(a.synthetic, "w") as f:
        f.write(gen.stdout)
    traces = [(a.synthetic, "synthetic: gen_swf.py " + " ".join(SYNTH))]
    traces += [(os.path.join(TRACES, t) if "/" not in t else t, t) for t in a.traces]
    work = [(t, name, "scav", c) for t, name in traces
            for c in configs(a.stream, a.users_pct, a.seed)]
    work += [(t, name, "maint", c) for t, name in traces for c in MAINT]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        res = list(ex.map(lambda w: run(binary, w[3][-1], w[0]), work))
    if a.json:
        with open(a.json, "w") as f:
            for w, r in zip(work, res):
                f.write(json.dumps({"trace": w[1], "args": w[3][-1], "result": r}) + "\n")
    for t, name in traces:
        rows = [(w[3][0], w[3][1], r) for w, r in zip(work, res) if w[1] == name and
                w[2] == "scav"]
        print(scav_table(name, rows))
    for t, name in traces:
        rows = [(w[3][0], r) for w, r in zip(work, res) if w[1] == name and w[2] == "maint"]
        print(maint_table(name, rows))


if __name__ == "__main__":
    main()
