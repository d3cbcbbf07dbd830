#!/usr/bin/python3
"""A synthetic workload in the Standard Workload Format, from a seed.

Arrivals are a Poisson process whose rate gives the offered load asked for
(sum of run * procs over P * span). Sizes are powers of two up to P/2 (half
of the jobs serial), run times log-uniform from 1 minute to 4 hours, and
each user's estimate is the run time times a factor in [1, 3] rounded up to
the next 5 minutes, as users over-ask. Users follow a Zipf-like draw over
--users users. The same seed gives the same file on any machine.

    bench/sim/gen_swf.py --jobs 2000 --procs 64 --load 0.7 --seed 7 > w.swf
"""
import argparse
import math
import random
import sys


def gen(jobs, procs, load, seed, users):
    rnd = random.Random(seed)
    sizes = [1 << k for k in range(0, max(1, int(math.log2(procs))))]
    lo, hi = math.log(60), math.log(4 * 3600)
    specs = []
    for _ in range(jobs):
        size = 1 if rnd.random() < 0.5 else rnd.choice(sizes)
        run = int(round(math.exp(rnd.uniform(lo, hi))))
        est = int(math.ceil(run * rnd.uniform(1.0, 3.0) / 300.0) * 300)
        user = 1 + min(users - 1, int(users * rnd.random() ** 2))
        specs.append((size, run, est, user))
    mean_area = sum(s * r for s, r, _, _ in specs) / jobs
    gap = mean_area / (procs * load)
    t = 0.0
    lines = [f"; Synthetic workload: bench/sim/gen_swf.py --jobs {jobs} --procs {procs} "
             f"--load {load} --seed {seed} --users {users}",
             f"; MaxProcs: {procs}", f"; MaxJobs: {jobs}"]
    for i, (size, run, est, user) in enumerate(specs, 1):
        fields = [i, int(t), -1, run, size, -1, -1, size, est, -1, 1, user, 1, 1, 1, 1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
        t += rnd.expovariate(1.0 / gap)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--jobs", type=int, default=2000)
    ap.add_argument("--procs", type=int, default=64)
    ap.add_argument("--load", type=float, default=0.7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--users", type=int, default=20)
    a = ap.parse_args()
    if a.jobs < 1 or a.procs < 2 or not 0 < a.load <= 2 or a.users < 1:
        ap.error("--jobs >= 1, --procs >= 2, 0 < --load <= 2, --users >= 1")
    sys.stdout.write(gen(a.jobs, a.procs, a.load, a.seed, a.users))


if __name__ == "__main__":
    main()
