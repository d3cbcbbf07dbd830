#!/usr/bin/python3
"""Scheduling quality of each policy against EASY, on the Archive traces and on
synthetic workloads of bench/sim/gen_swf.py (seeds recorded here).

    bench/sim/quality.py [--bin build/bin] [--policies easy,herd,LABEL=herd --predict user]
                         [--traces DIR] [--only NAME] [--md]

Every figure is the whole trace (no warm-up), bounded slowdown with tau = 10 s,
runs not cut at the estimate, P = the header's MaxProcs. For each workload and
policy: bounded slowdown, mean wait, longest wait, utilization, and the change
against EASY (bsld: negative is better; max wait: the ratio).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = ["KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz",
          "CTC-SP2-1996-3.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz"]
# (name, gen_swf.py arguments): seeds are part of the name.
SYNTH = [(f"{kind}-l{load}-s{seed}",
          ["--jobs", "4000", "--procs", "128", "--load", str(load), "--seed", str(seed),
           "--users", "40", "--kind", kind])
         for kind in ("repeat", "independent", "exact")
         for load in (0.7, 0.9)
         for seed in (1, 2)]


def sim(binp, policy, path):
    """policy: a policy name, or LABEL=POLICY OPTION... (a variant)."""
    args = policy.split("=", 1)[-1].split()
    prog = [os.path.join(binp, "herd-sim")]   # what `herd sim` runs
    out = subprocess.run(prog + ["--policy"] + args + ["--json", path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--policies", default="easy,herd")
    ap.add_argument("--traces", default="/work/shared/data/traces")
    ap.add_argument("--only", default="")
    ap.add_argument("--tmp", default="/tmp/herd-quality")
    ap.add_argument("--md", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    work = [(t.split("-")[0], os.path.join(a.traces, t)) for t in TRACES]
    for name, args in SYNTH:
        path = os.path.join(a.tmp, name + ".swf")
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "gen_swf.py")] + args,
                           check=True, stdout=f)
        work.append((name, path))
    pols = [p for p in a.policies.split(",") if p]
    for name, path in work:
        if a.only and a.only not in name:
            continue
        if not os.path.exists(path):
            continue
        base = None
        for p in pols:
            r = sim(a.bin, p, path)
            if p == "easy":
                base = r
            d = ""
            if base and p != "easy":
                d = "%+.1f%% x%.2f" % (100 * (r["avg_bsld"] / base["avg_bsld"] - 1),
                                       r["max_wait_s"] / max(1, base["max_wait_s"]))
            if a.md:
                print("| %s | %s | %.2f | %.0f | %.0f | %.3f | %s |" % (
                    name, p.split("=")[0], r["avg_bsld"], r["avg_wait_s"], r["max_wait_s"],
                    r["utilization"], d))
            else:
                print("%-22s %-16s bsld %8.2f wait %9.0f max %9.0f util %.3f %s" % (
                    name, p.split("=")[0], r["avg_bsld"], r["avg_wait_s"], r["max_wait_s"],
                    r["utilization"], d), flush=True)


if __name__ == "__main__":
    main()
