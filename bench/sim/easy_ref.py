#!/usr/bin/python3
"""An independent EASY backfilling simulator for SWF traces, written from the
Standard Workload Format's definitions only (no code shared with herd sim),
to check `herd sim --policy easy`.

    bench/sim/easy_ref.py [--procs P] [--warmup F] [--truncate] TRACE.swf[.gz]

The reading of the format (docs/scheduling.md, "Trace semantics"):
  size      field 5 (allocated processors), else field 8 (requested) when 5 is -1
  run       field 4; a job with a run of -1 never ran (cancelled in the queue): dropped
  estimate  field 9 (requested time); -1: the run time itself (the job is planned exactly)
  overrun   a job runs its whole field-4 time even past its estimate (unless --truncate,
            which cuts it at the estimate and drops jobs without one, as pyss does)
  dropped   size <= 0 or size > P
Processors are one pool (the machine is P one-processor nodes). At each second ends
come first, then arrivals, then one EASY pass: the queue head starts while it fits; the
first that does not gets a reservation at the earliest time enough processors are
free if every running job ends at start + estimate (one already past it: now); every
later job, in submission order, starts if it fits now and ends (by its estimate) before
that time or uses only processors the reservation leaves over.
"""
import argparse
import gzip
import heapq


def read(path, P, truncate):
    op = gzip.open if path.endswith(".gz") else open
    jobs, maxp = [], None
    with op(path, "rt") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                if "MaxProcs:" in s:
                    maxp = int(s.split("MaxProcs:")[1].split()[0])
                continue
            v = s.split()
            submit, run, alloc, req, rt = (float(v[1]), float(v[3]), float(v[4]),
                                           float(v[7]), float(v[8]))
            jobs.append((int(submit), int(run), int(alloc), int(req), int(rt)))
    P = P or maxp
    out = []
    for submit, run, alloc, req, rt in jobs:
        size = alloc if alloc > 0 else req
        if size <= 0 or size > P or run < 0 or submit < 0:
            continue
        if truncate:
            if rt <= 0 or run <= 0 or req > P:
                continue
            run = min(run, rt)
        est = rt if rt > 0 else max(run, 1)
        out.append([submit, run, size, est])
    out.sort(key=lambda j: j[0])
    return out, P


def simulate(jobs, P):
    start = [None] * len(jobs)
    free = P
    running = []              # (end, i)
    queue = []                # indices in submission order
    nxt = 0
    while nxt < len(jobs) or running or queue:
        t = min(running[0][0] if running else float("inf"),
                jobs[nxt][0] if nxt < len(jobs) else float("inf"))
        while running and running[0][0] <= t:
            _, i = heapq.heappop(running)
            free += jobs[i][2]
        while nxt < len(jobs) and jobs[nxt][0] <= t:
            queue.append(nxt)
            nxt += 1
        # head starts while it fits
        while queue and jobs[queue[0]][2] <= free:
            i = queue.pop(0)
            start[i] = t
            free -= jobs[i][2]
            heapq.heappush(running, (t + jobs[i][1], i))
        if not queue:
            continue
        head = jobs[queue[0]]
        ends = sorted((max(t, start[i] + jobs[i][3]), jobs[i][2]) for _, i in running)
        avail, shadow = free, None
        for e, p in ends:
            if shadow is not None and e > shadow:
                break
            avail += p
            if shadow is None and avail >= head[2]:
                shadow = e
        extra = avail - head[2]
        keep = [queue[0]]
        for i in queue[1:]:
            size, est = jobs[i][2], jobs[i][3]
            if size <= free and (t + est <= shadow or size <= extra):
                start[i] = t
                free -= size
                if t + est > shadow:
                    extra -= size
                heapq.heappush(running, (t + jobs[i][1], i))
            else:
                keep.append(i)
        queue = keep
    return start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--procs", type=int, default=0)
    ap.add_argument("--warmup", type=float, default=0.0)
    ap.add_argument("--truncate", action="store_true")
    ap.add_argument("trace")
    a = ap.parse_args()
    jobs, P = read(a.trace, a.procs, a.truncate)
    start = simulate(jobs, P)
    order = sorted(range(len(jobs)), key=lambda i: (start[i] + jobs[i][1], i))
    order = order[int(a.warmup * len(order)):]
    w = [start[i] - jobs[i][0] for i in order]
    b = [max(1.0, (w_ + jobs[i][1]) / max(jobs[i][1], 10)) for w_, i in zip(w, order)]
    print("jobs %d P %d bsld %.2f wait %.1f max %d" % (len(jobs), P, sum(b) / len(b),
                                                       sum(w) / len(w), max(w)))


if __name__ == "__main__":
    main()
