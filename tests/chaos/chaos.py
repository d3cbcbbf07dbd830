#!/usr/bin/python3
"""Chaos with invariants (issue 24): a mixed workload on a `herd up` cluster
while the controller, node agents, job supervisors and munged are killed
with kill -9 at seeded moments and brought back, and (with --netns) nodes'
links go down for a while; then, once it settled, the invariants are checked
(docs/testing.md, "Chaos"). Exits 1 on any violation, naming the seed.

    tests/chaos/chaos.py --seed 7 --time 120 --nodes 3 --jobs 300 --faults 20
"""

import argparse
import os
import random
import re
import shutil
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from common import TERMINAL, Ctx, helpers  # noqa: E402
import faults as faults_mod  # noqa: E402
import invariants as inv  # noqa: E402
import workload as wl_mod  # noqa: E402

SACCT_FIELDS = "JobIDRaw,JobID,State,ExitCode,ElapsedRaw,Start,End,NodeList"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=None, help="default: drawn, and printed")
    p.add_argument("--time", type=float, default=120, help="seconds of chaos (default 120)")
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--gpus-per-node", type=int, default=2)
    p.add_argument("--jobs", type=int, default=None,
                   help="job ids to submit, array tasks counted (default 2.5 per second of --time)")
    p.add_argument("--faults", type=int, default=None,
                   help="faults to inject (default one per 6 seconds of --time)")
    p.add_argument("--netns", action="store_true", help="nodes in namespaces; links go down too")
    p.add_argument("--dir", default=None, help="cluster directory (default /tmp/herd-chaos-SEED)")
    p.add_argument("--bin", default=os.path.join(HERE, "..", "..", "build", "bin"))
    p.add_argument("--settle", type=float, default=None,
                   help="seconds to wait for every job to end (default max(90, time))")
    p.add_argument("--keep", action="store_true", help="leave DIR (it is stopped anyway)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every event")
    a = p.parse_args(argv)
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1, 1 << 31)
    if a.dir is None:
        a.dir = f"/tmp/herd-chaos-{a.seed}"
    if a.jobs is None:
        a.jobs = max(1, round(2.5 * a.time))
    if a.faults is None:
        a.faults = round(a.time / 6)
    if a.settle is None:
        a.settle = max(90.0, a.time)
    return a


def norm_state(s):
    return s.split()[0].rstrip("+") if s else ""


def sacct_rows(ctx, dup=False):
    cmd = ["sacct", "-X", "-P", "-n", "-a", "-S", "2000-01-01T00:00:00", "-o", SACCT_FIELDS]
    if dup:
        cmd.insert(1, "-D")
    rc, out, err = ctx.run(cmd, timeout=60)
    if rc != 0:
        return None
    keys = SACCT_FIELDS.split(",")
    rows = []
    for line in out.splitlines():
        v = line.split("|")
        if len(v) == len(keys):
            rows.append(dict(zip(keys, v)))
    return rows


def squeue_states(ctx):
    rc, out, err = ctx.run(["squeue", "-h", "-t", "all", "-o", "%A|%T"], timeout=60)
    if rc != 0:
        return None
    st = {}
    for line in out.splitlines():
        a, _, b = line.partition("|")
        if a.strip().isdigit():
            st.setdefault(int(a), []).append(b.strip())
    return st


class Checks:
    """Violations and how many items each invariant looked at."""

    def __init__(self, seed):
        self.seed = seed
        self.checked = {}
        self.violations = []

    def count(self, name, n=1):
        self.checked[name] = self.checked.get(name, 0) + n

    def fail(self, name, msg):
        self.violations.append((name, msg))


def start_cluster(ctx, a):
    if os.path.exists(ctx.dir):
        if not os.path.isdir(os.path.join(ctx.dir, "chaos")) and os.listdir(ctx.dir):
            sys.exit(f"chaos: {ctx.dir} exists and is not a chaos run's directory; not touching it")
        ctx.run(["herd", "down", "-D", ctx.dir], timeout=120)
        shutil.rmtree(ctx.dir)
    os.makedirs(ctx.dir)
    helpers.open_dir(ctx.dir, 0o755)
    os.makedirs(os.path.join(ctx.dir, "chaos"))
    up = ["herd", "up", "-D", ctx.dir, "--nodes", str(a.nodes),
          "--gpus-per-node", str(a.gpus_per_node), "--cpus-per-node", "8",
          "--mem-per-node", "8000",
          "--set", "SlurmdTimeout=6", "--set", "KillWait=2",
          "--set", "AuthInfo=cred_expire=5", "--set", "MinJobAge=86400"]
    if a.netns:
        up.append("--netns")
    rc, out, err = ctx.run(up, timeout=120)
    if rc != 0:
        print(err, file=sys.stderr)
        ctx.run(["herd", "down", "-D", ctx.dir], timeout=120)
        sys.exit(f"chaos: herd up failed (rc {rc})")


def settle(ctx, w, deadline):
    """Polls sacct until every acknowledged job is terminal (array tasks
    learnt on the way); returns the last rows."""
    rows = None
    while True:
        rows = sacct_rows(ctx)
        if rows is not None:
            w.learn_array_tasks(rows)
            by = {int(r["JobIDRaw"]): norm_state(r["State"]) for r in rows
                  if r["JobIDRaw"].isdigit()}
            arrays_complete = all(len(s.jobs) >= s.count for s in w.subs
                                  if s.kind == "array" and s.id is not None)
            waiting = [j for j in w.jobs if by.get(j) not in TERMINAL]
            if not waiting and arrays_complete:
                return rows, []
        else:
            waiting = ["(sacct failed)"]
        if time.time() > deadline:
            return rows, waiting
        time.sleep(2)


def check_presence(ctx, w, rows, rowsD, sq, c):
    """Every acknowledged job is there, once, in one terminal state, and
    squeue says the same as sacct."""
    by = {}
    for r in rows:
        if r["JobIDRaw"].isdigit():
            by.setdefault(int(r["JobIDRaw"]), []).append(r)
    byD = {}
    for r in rowsD or []:
        if r["JobIDRaw"].isdigit():
            byD.setdefault(int(r["JobIDRaw"]), []).append(r)
    for s in w.subs:
        if s.kind == "array" and s.id is not None and len(s.jobs) != s.count:
            c.fail("present", f"array {s.id} has {len(s.jobs)} tasks in sacct, {s.count} submitted")
    for jid, j in sorted(w.jobs.items()):
        c.count("present+one terminal state")
        rs = by.get(jid, [])
        if not rs:
            c.fail("present", f"job {jid} ({j.kind}) was acknowledged but sacct does not know it")
            continue
        if len(rs) > 1:
            c.fail("one terminal state", f"job {jid}: {len(rs)} records in sacct -X: "
                   + "; ".join(r["State"] for r in rs))
        st = norm_state(rs[-1]["State"])
        if st not in TERMINAL:
            c.fail("one terminal state", f"job {jid} ({j.kind}) is still {st} after settling")
        finals = [r for r in byD.get(jid, []) if norm_state(r["State"]) != "REQUEUED"]
        if rowsD is not None and len(finals) != 1:
            c.fail("one terminal state", f"job {jid}: sacct -D has {len(finals)} final records: "
                   + "; ".join(r["State"] for r in byD.get(jid, [])))
        j.requeued_rows = len(byD.get(jid, [])) - len(finals)
        if sq is not None:
            c.count("squeue agrees with sacct")
            q = sq.get(jid)
            if q is None:
                c.fail("squeue agrees with sacct", f"job {jid}: sacct says {st}, squeue -t all "
                       "does not show it (MinJobAge is a day)")
            elif len(q) != 1 or norm_state(q[0]) != st:
                c.fail("squeue agrees with sacct", f"job {jid}: sacct says {st}, squeue says {q}")
    return {jid: rs[-1] for jid, rs in by.items()}


def check_gpus(ctx, w, sampler, logs, c):
    for v in sampler.violations:
        c.fail("GPU held by one job", v)
    c.count("GPU held by one job (samples x held GPUs)", sampler.gpu_checks)
    iv = {}
    for jid, (runs, steps) in logs.items():
        for r in runs.values():
            last = sampler.last_seen.get((jid, r.rc))
            end = r.end or max(r.start, last or r.start)
            for g in r.gpus:
                iv.setdefault((r.node, g), []).append((r.start, end, jid, r.rc, "batch"))
        for st in steps:
            last = sampler.last_seen.get((jid, st[4]))
            end = st[1] or max(st[0], last or st[0])
            for g in st[3]:
                iv.setdefault((st[2], g), []).append((st[0], end, jid, st[4], "step"))
    for key, lst in sorted(iv.items()):
        lst.sort()
        c.count("GPU intervals from the jobs' own logs", len(lst))
        for i, a in enumerate(lst):
            for b in lst[i + 1:]:
                if b[0] >= a[1]:
                    break
                same_job = a[2] == b[2] and a[3] == b[3]
                if not same_job and min(a[1], b[1]) - b[0] > 0.05:
                    c.fail("GPU held by one job",
                           f"GPU {key[1]} of {key[0]}: job {a[2]} ({a[4]}, run {a[3]}) "
                           f"{a[0] - ctx.t0:.2f}-{a[1] - ctx.t0:.2f}s overlaps job {b[2]} "
                           f"({b[4]}, run {b[3]}) {b[0] - ctx.t0:.2f}-{b[1] - ctx.t0:.2f}s "
                           "(the jobs' own logs)")


def check_leftovers(ctx, final, c):
    """No process of an ended job: job processes (by environment) and
    supervisors (by command line), given KillWait and a little more."""
    deadline = time.time() + 15
    while True:
        procs = [p for p in inv.job_processes(ctx.conf)
                 if norm_state(final.get(p[1], {}).get("State", "")) in TERMINAL]
        sups = []
        for pid, cmd in helpers.procs_matching(ctx.dir + "/spool/"):
            m = re.search(r"--supervise \S*/job0*(\d+) ", cmd)
            if m and norm_state(final.get(int(m.group(1)), {}).get("State", "")) in TERMINAL:
                sups.append((pid, int(m.group(1)), cmd))
        if (not procs and not sups) or time.time() > deadline:
            break
        time.sleep(1)
    c.count("no process of an ended job (scans)", 1)
    for pid, jid, node, gpus, cmd, _ in procs:
        c.fail("no leftover process", f"pid {pid} of job {jid} (ended "
               f"{final[jid]['State']}) still runs on {node}: {cmd}")
    for pid, jid, cmd in sups:
        c.fail("no leftover process", f"supervisor {pid} of job {jid} (ended "
               f"{final[jid]['State']}) still runs: {cmd}")


def node_fail_firm(ctx):
    """Jobs whose NODE_FAIL the controller holds to, whatever the script did
    on its node: the end stood (docs/node-agent.md: a dependent waited, the
    node came back without it, or its stale copy was killed), or the node
    that fell was not the job's batch node (the job was killed on the rest:
    nothing was assumed). Read from herdctld's log."""
    out, batch, down = set(), {}, None
    try:
        with open(os.path.join(ctx.dir, "log", "herdctld.log"), errors="replace") as f:
            for line in f:
                m = re.search(r"node (\S+) is DOWN", line)
                if m:
                    down = m.group(1)
                m = re.search(r"job (\d+) starts on (\S+)", line)
                if m:
                    batch[int(m.group(1))] = m.group(2)
                m = re.search(r"job (\d+) ended NODE_FAIL", line)
                if m and batch.get(int(m.group(1))) != down:
                    out.add(int(m.group(1)))
                m = re.search(r"job (\d+): NODE_FAIL stands", line)
                if m:
                    out.add(int(m.group(1)))
    except OSError:
        pass
    return out


def check_accounting(ctx, w, final, logs, c):
    firm = node_fail_firm(ctx)
    for jid, j in sorted(w.jobs.items()):
        r = final.get(jid)
        if not r:
            continue
        c.count("accounting agrees with what ran")
        st = norm_state(r["State"])
        runs, _ = logs.get(jid, ({}, []))
        dup = getattr(runs, "dups", None)
        if dup:
            c.fail("accounting", f"job {jid}: run(s) {dup} started twice (the job's own log)")
        if not runs:
            if st == "COMPLETED":
                c.fail("accounting", f"job {jid} ({j.kind}) is COMPLETED but its script never ran")
            continue
        last = runs[max(runs)]
        if st == "COMPLETED" and not (last.end and last.exit == 0):
            c.fail("accounting", f"job {jid} ({j.kind}) is COMPLETED but its last run "
                   f"(restart {last.rc}) " + ("did not reach its end" if not last.end
                                               else f"ended with exit {last.exit}"))
        if not last.end:
            continue
        clean = not j.cancelled and not j.victim and jid not in w.victims and not j.requeued and \
            not getattr(j, "requeued_rows", 0)
        if not clean:
            continue
        if st == "NODE_FAIL" and jid in firm:
            continue    # the controller's decision, as Slurm's; the real end came too late
        want = "COMPLETED" if last.exit == 0 else "FAILED"
        if st != want or r["ExitCode"] != f"{last.exit}:0":
            c.fail("accounting", f"job {jid} ({j.kind}): its script ended with exit {last.exit} "
                   f"on {last.node} but sacct says {r['State']} {r['ExitCode']}")
            continue
        ran = last.end - last.start
        try:
            el = int(r["ElapsedRaw"])
        except ValueError:
            el = -1
        s0, e0 = inv.sacct_time(r["Start"]), inv.sacct_time(r["End"])
        # Elapsed is the allocation's (Start to End, as Slurm's): a launch the
        # network delayed counts, so only its lower bound is the script's run
        if el < ran - 1.5 or (s0 and e0 and abs(el - (e0 - s0)) > 1):
            c.fail("accounting", f"job {jid} ({j.kind}): its script ran {ran:.1f}s, sacct's "
                   f"Elapsed is {r['ElapsedRaw']}s (Start {r['Start']}, End {r['End']})")
        # whole seconds, read from time() (the coarse clock, a few ms behind
        # the script's `date`): an end just past a second may read the one before
        if s0 is None or e0 is None or s0 > last.start + 1 or e0 < last.end - 2 \
                or e0 > last.end + 5:
            c.fail("accounting", f"job {jid} ({j.kind}): sacct's Start {r['Start']} End "
                   f"{r['End']} do not hold its run {time.strftime('%H:%M:%S', time.localtime(last.start))}"
                   f"-{time.strftime('%H:%M:%S', time.localtime(last.end))}")
        if r["NodeList"].split("[")[0] and last.node not in expand(r["NodeList"]):
            c.fail("accounting", f"job {jid}: ran on {last.node}, sacct says {r['NodeList']}")


def expand(hl):
    m = re.fullmatch(r"([a-z]+)\[([\d,\-]+)\]", hl)
    if not m:
        return set(hl.split(","))
    out = set()
    for part in m.group(2).split(","):
        a, _, b = part.partition("-")
        for i in range(int(a), int(b or a) + 1):
            out.add(f"{m.group(1)}{i}")
    return out


def check_dependencies(ctx, w, final, logs, c):
    for s in w.subs:
        if not s.dep or s.id is None:
            continue
        dtype, parent = s.dep
        if parent.id is None or s.id not in final or parent.id not in final:
            continue
        c.count("dependencies fired correctly")
        pst = norm_state(final[parent.id]["State"])
        cst = norm_state(final[s.id]["State"])
        cruns, _ = logs.get(s.id, ({}, []))
        pruns, _ = logs.get(parent.id, ({}, []))
        ran = bool(cruns)
        should = {"afterok": pst == "COMPLETED", "afternotok": pst != "COMPLETED",
                  "afterany": True}[dtype]
        what = f"job {s.id} ({dtype}:{parent.id}, parent {final[parent.id]['State']})"
        if ran and not should:
            c.fail("dependencies", f"{what} ran")
        if not should and cst != "CANCELLED":
            c.fail("dependencies", f"{what} ended {cst}, not CANCELLED (--kill-on-invalid-dep)")
        if should and not ran and cst == "CANCELLED":
            c.fail("dependencies", f"{what} was cancelled without running")
        if ran:
            pend = max([r.end for r in pruns.values() if r.end] or
                       [inv.sacct_time(final[parent.id]["End"]) or 0])
            first = min(r.start for r in cruns.values())
            if first < pend - 1.0:
                c.fail("dependencies", f"{what} started {pend - first:.1f}s before its parent ended")


def main(argv=None):
    a = parse_args(argv)
    ctx = Ctx(a)
    replay = (f"tests/chaos/chaos.py --seed {a.seed} --time {a.time:g} --nodes {a.nodes} "
              f"--gpus-per-node {a.gpus_per_node} --jobs {a.jobs} --faults {a.faults}"
              + (" --netns" if a.netns else ""))
    print(f"chaos: seed {a.seed}, {a.time:g}s, {a.nodes} nodes x {a.gpus_per_node} GPUs, "
          f"{a.jobs} jobs, {a.faults} faults{', netns' if a.netns else ''}; dir {ctx.dir}",
          flush=True)
    start_cluster(ctx, a)
    ctx.t0 = time.time()
    subs = wl_mod.plan(random.Random(a.seed), a.jobs, a.nodes, a.gpus_per_node, 0.6 * a.time)
    sampler = inv.Sampler(ctx)
    w = wl_mod.Workload(ctx, random.Random(a.seed + 1), subs, sampler)
    w.prepare()
    f = faults_mod.Faults(ctx, random.Random(a.seed + 2), a.faults, 0.05 * a.time, 0.8 * a.time,
                          a.nodes, a.netns, w)
    threads = [threading.Thread(target=t, daemon=True, name=n)
               for t, n in ((sampler.run, "sampler"), (w.run, "workload"), (f.run, "faults"))]
    for t in threads:
        t.start()
    c = Checks(a.seed)
    try:
        for t in threads[1:]:
            t.join(timeout=max(1, a.time + 120 - ctx.elapsed()))
        if any(t.is_alive() for t in threads[1:]):
            c.fail("run", "the workload or fault thread overran by 120 s")
        ctx.stop.set()
        healed = f.heal()
        if not healed:
            c.fail("run", "herd up did not bring the cluster back after the faults")
        chaos_s = ctx.elapsed()
        rows, waiting = settle(ctx, w, time.time() + a.settle)
        settle_s = ctx.elapsed() - chaos_s
        if waiting:
            c.fail("one terminal state", f"{len(waiting)} jobs not terminal {a.settle:g}s after "
                   f"the chaos ended: {waiting[:20]}")
        rowsD = sacct_rows(ctx, dup=True)
        sq = squeue_states(ctx)
        if rows is None:
            c.fail("run", "sacct failed after settling")
            rows = []
        final = check_presence(ctx, w, rows, rowsD, sq, c)
        check_leftovers(ctx, final, c)
        sampler.stop.set()
        threads[0].join(timeout=10)
        logs = {}
        for name in os.listdir(w.logdir):
            m = re.fullmatch(r"(\d+)\.log", name)
            if m:
                logs[int(m.group(1))] = inv.read_job_log(w.logdir, int(m.group(1)))
        for jid in w.jobs:
            logs.setdefault(jid, inv.read_job_log(w.logdir, jid))
        check_gpus(ctx, w, sampler, logs, c)
        check_accounting(ctx, w, final, logs, c)
        check_dependencies(ctx, w, final, logs, c)
        live = inv.integrity(os.path.join(ctx.dir, "ctld", "herd.db"))
        c.count("PRAGMA integrity_check")
        if live:
            c.fail("integrity", f"live database: {live}")
        unacked = sorted(j for j in final if j not in w.jobs)
        for jid in unacked:
            # stored although sbatch saw no answer: a job all the same
            c.count("present+one terminal state")
            if norm_state(final[jid]["State"]) not in TERMINAL:
                c.fail("one terminal state", f"job {jid} (stored without acknowledgement) is "
                       f"still {final[jid]['State']} after settling")
    finally:
        ctx.stop.set()
        sampler.stop.set()
        for link in list(f.down_links):
            f.link_up(link)
        rc, out, err = ctx.run(["herd", "down", "-D", ctx.dir], timeout=180)
    if rc != 0:
        c.fail("run", f"herd down failed: {err.strip()[-300:]}")
    db = inv.integrity(os.path.join(ctx.dir, "ctld", "herd.db"))
    c.count("PRAGMA integrity_check")
    if db:
        c.fail("integrity", f"after herd down: {db}")
    left = helpers.procs_matching(ctx.dir)
    if left:
        c.fail("no leftover process", f"after herd down: {left[:10]}")
    san = helpers.Cluster(ctx.dir).sanitizer_reports()
    if san:
        c.fail("sanitizer", san[:2000])

    # --- figures -----------------------------------------------------------
    kinds = {}
    for j in w.jobs.values():
        kinds[j.kind] = kinds.get(j.kind, 0) + 1
    states = {}
    for jid in w.jobs:
        st = norm_state(final.get(jid, {}).get("State", "missing"))
        states[st] = states.get(st, 0) + 1
    print(f"\nchaos figures (seed {a.seed}):")
    print(f"  time: {chaos_s:.0f}s of chaos, {settle_s:.0f}s to settle; "
          f"{w.counts['sbatch_ok']} submissions acknowledged, {w.counts['sbatch_failed']} not "
          f"({w.counts['sbatch_retries']} sbatch retries)")
    print(f"  jobs: {len(w.jobs)} acknowledged job ids: "
          + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"  stored without acknowledgement: {len(unacked)} {unacked[:10]}")
    print("  final states: " + ", ".join(f"{k} {v}" for k, v in sorted(states.items())))
    print(f"  actions: scancel {w.counts['scancel_ok']} (+{w.counts['scancel_failed']} refused), "
          f"scontrol requeue {w.counts['requeue_ok']} (+{w.counts['requeue_refused']} refused)")
    print("  faults: " + ", ".join(f"{k} {v}" for k, v in f.counts.items() if v or k != "netdown")
          + f"; total {sum(f.counts.values())}; drawn with nothing to hit: "
          + ", ".join(f"{k} {v}" for k, v in f.missed.items() if v)
          + f"; herd up restarts {f.restarts} ({f.restart_failures} exited non-zero, "
          f"{f.up_interrupted} stopped by a later kill)")
    print(f"  sampler: {sampler.samples} samples")
    print("  invariants checked: " + "; ".join(f"{k}: {v}" for k, v in c.checked.items()))
    if c.violations:
        print(f"\nchaos: {len(c.violations)} VIOLATIONS (seed {a.seed}; replay: {replay}):")
        for name, msg in c.violations:
            print(f"  [{name}] {msg}")
        print(f"(cluster directory kept: {ctx.dir}; events in {ctx.dir}/chaos/events.log)")
    else:
        print(f"\nchaos: all invariants hold (seed {a.seed})")
    with open(os.path.join(ctx.dir, "chaos", "events.log"), "w") as fh:
        for t, what in ctx.events:
            fh.write(f"{t:8.2f} {what}\n")
    if not c.violations and not a.keep:
        shutil.rmtree(ctx.dir, ignore_errors=True)
    return 1 if c.violations else 0


if __name__ == "__main__":
    sys.exit(main())
