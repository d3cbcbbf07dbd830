#!/usr/bin/python3
"""A synthetic workload in the Standard Workload Format, from a seed.

Arrivals are a Poisson process whose rate gives the offered load asked for
(sum of run * procs over P * span). Sizes are powers of two up to P/2 (half
of the jobs serial), run times log-uniform from 1 minute to 4 hours, and
each user's estimate is the run time times a factor in [1, 3] rounded up to
the next 5 minutes, as users over-ask. Users follow a Zipf-like draw over
--users users. The same seed gives the same file on any machine.

--kind picks how run times relate to a user's past (the default, `independent`,
is the workload above, unchanged for a given seed):
  independent  each run drawn afresh: a user's history says nothing of the next run
  exact        as independent, but every estimate is the run time itself
  repeat       as in the Archive logs: each user has 1-4 job classes (size, typical run,
               the estimate the user always asks for); a job repeats the user's last class
               with probability 0.7, runs its class's time times a log-normal factor
               (sigma 0.25), and 8 % end early (a crash) at a uniform fraction of it

    bench/sim/gen_swf.py --jobs 2000 --procs 64 --load 0.7 --seed 7 > w.swf
"""
import argparse
import math
import random
import sys


def pick_user(rnd, users):
    return 1 + min(users - 1, int(users * rnd.random() ** 2))


def gen_repeat(rnd, jobs, sizes, lo, hi, users):
    classes, last, specs = {}, {}, []
    for u in range(1, users + 1):
        cl = []
        for _ in range(rnd.randint(1, 4)):
            size = 1 if rnd.random() < 0.5 else rnd.choice(sizes)
            base = math.exp(rnd.uniform(lo, hi))
            est = int(math.ceil(base * 1.6 * rnd.uniform(1.0, 3.0) / 3600.0) * 3600)
            cl.append((size, base, est))
        classes[u] = cl
    for _ in range(jobs):
        user = pick_user(rnd, users)
        c = last.get(user)
        if c is None or rnd.random() >= 0.7:
            c = rnd.randrange(len(classes[user]))
        last[user] = c
        size, base, est = classes[user][c]
        run = base * math.exp(rnd.gauss(0.0, 0.25))
        if rnd.random() < 0.08:
            run *= rnd.random()
        run = max(1, min(est, int(round(run))))
        specs.append((size, run, est, user))
    return specs


def gen(jobs, procs, load, seed, users, kind="independent"):
    rnd = random.Random(seed)
    sizes = [1 << k for k in range(0, max(1, int(math.log2(procs))))]
    lo, hi = math.log(60), math.log(4 * 3600)
    specs = []
    if kind == "repeat":
        specs = gen_repeat(rnd, jobs, sizes, lo, hi, users)
    for _ in range(jobs if kind != "repeat" else 0):
        size = 1 if rnd.random() < 0.5 else rnd.choice(sizes)
        run = int(round(math.exp(rnd.uniform(lo, hi))))
        est = int(math.ceil(run * rnd.uniform(1.0, 3.0) / 300.0) * 300)
        if kind == "exact":
            est = run
        user = pick_user(rnd, users)
        specs.append((size, run, est, user))
    mean_area = sum(s * r for s, r, _, _ in specs) / jobs
    gap = mean_area / (procs * load)
    t = 0.0
    lines = [f"; Synthetic workload: bench/sim/gen_swf.py --jobs {jobs} --procs {procs} "
             f"--load {load} --seed {seed} --users {users}"
             + (f" --kind {kind}" if kind != "independent" else ""),
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
    ap.add_argument("--kind", choices=["independent", "exact", "repeat"], default="independent")
    a = ap.parse_args()
    if a.jobs < 1 or a.procs < 2 or not 0 < a.load <= 2 or a.users < 1:
        ap.error("--jobs >= 1, --procs >= 2, 0 < --load <= 2, --users >= 1")
    sys.stdout.write(gen(a.jobs, a.procs, a.load, a.seed, a.users, a.kind))


if __name__ == "__main__":
    main()
