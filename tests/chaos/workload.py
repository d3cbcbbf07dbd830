"""The chaos run's workload: single and multi-node jobs, GPU jobs, arrays,
dependency pairs, srun steps, non-zero exits; and, while they run, scancel
and `scontrol requeue` of some. Every job writes what it did to
DIR/chaos/jobs/ID.log (its own record, independent of the controller's and
the agents'):

    start EPOCH NODE gpus=LIST rc=RESTARTS     the batch script began
    end EPOCH rc=RESTARTS exit=CODE            it reached its end
and its srun steps to ID.steps.log:
    step EPOCH NODE gpus=LIST rc=RESTARTS step=S
    stepend EPOCH NODE gpus=LIST rc=RESTARTS step=S
"""

import os
import re
import time

from common import TERMINAL

EXITS = [0, 0, 0, 0, 0, 0, 1, 2, 3, 42]

STEP_SH = """#!/bin/sh
L={logdir}/$SLURM_JOB_ID.steps.log
G=${{SLURM_STEP_GPUS:-${{SLURM_JOB_GPUS:-}}}}
echo "step $(date +%s.%N) $SLURMD_NODENAME gpus=$G rc=${{SLURM_RESTART_COUNT:-0}} step=$SLURM_STEP_ID" >> $L
sleep {d}
echo "stepend $(date +%s.%N) $SLURMD_NODENAME gpus=$G rc=${{SLURM_RESTART_COUNT:-0}} step=$SLURM_STEP_ID" >> $L
"""


def job_script(logdir, dur, code, steps):
    """A batch script: logs its start (node, GPUs, restart count), runs its
    srun steps, sleeps, logs its end and exits with code."""
    lines = ["#!/bin/sh",
             f"L={logdir}/$SLURM_JOB_ID.log",
             'echo "start $(date +%s.%N) $SLURMD_NODENAME gpus=${SLURM_JOB_GPUS:-} '
             'rc=${SLURM_RESTART_COUNT:-0}" >> $L']
    for n in steps:
        lines.append(f"srun -N{n} -n{n} {logdir}/step.sh || echo \"srunfail $(date +%s.%N) $?\" >> $L")
    lines += [f"sleep {dur}",
              f'echo "end $(date +%s.%N) rc=${{SLURM_RESTART_COUNT:-0}} exit={code}" >> $L',
              f"exit {code}", ""]
    return "\n".join(lines)


class Job:
    """One acknowledged job id (an array's task is one too)."""

    def __init__(self, jid, kind, code, sub):
        self.id = jid             # the id as sacct's JobIDRaw gives it
        self.kind = kind
        self.code = code          # the exit code its script ends with
        self.sub = sub            # the Submission it came from
        self.cancelled = False    # scancel said yes
        self.requeued = 0         # scontrol requeue said yes
        self.victim = False       # its supervisor was killed by a fault


class Submission:
    def __init__(self, idx, kind, args, script, count, code, dep=None):
        self.idx = idx
        self.kind = kind
        self.args = args
        self.script = script
        self.count = count        # job ids it makes (array tasks)
        self.code = code
        self.dep = dep            # (type, parent Submission) for a dependent
        self.at = 0.0             # seconds into the run
        self.id = None            # the id sbatch printed
        self.jobs = []            # its Jobs
        self.failed = None        # why sbatch did not acknowledge it


def plan(rng, njobs, nodes, gpus, span):
    """Submissions until njobs job ids, at seeded times in [0, span]."""
    subs = []
    total = 0
    kinds = [("single", 30), ("gpu", 25), ("multi", 10), ("array", 10), ("dep", 15), ("steps", 10)]
    if nodes < 2:
        kinds = [k for k in kinds if k[0] != "multi"]
    if gpus < 1:
        kinds = [k for k in kinds if k[0] != "gpu"]
    names = [k for k, _ in kinds]
    weights = [w for _, w in kinds]
    while total < njobs:
        kind = rng.choices(names, weights)[0]
        dur = rng.choice([1, 1, 2, 2, 3, 4])
        code = rng.choice(EXITS)
        base = ["-c", "1", "--mem", "100", "-t", "3"]
        if kind == "single":
            subs.append(Submission(len(subs), kind, base, (dur, code, []), 1, code))
        elif kind == "gpu":
            g = rng.randint(1, gpus)
            subs.append(Submission(len(subs), kind, base + [f"--gres=gpu:{g}"],
                                   (dur, code, []), 1, code))
        elif kind == "multi":
            n = rng.randint(2, min(nodes, 3))
            extra = ["--gres=gpu:1"] if gpus and rng.random() < 0.5 else []
            subs.append(Submission(len(subs), kind, base + ["-N", str(n)] + extra,
                                   (dur, code, [n]), 1, code))
        elif kind == "steps":
            extra = ["--gres=gpu:1"] if gpus and rng.random() < 0.5 else []
            subs.append(Submission(len(subs), kind, base + extra,
                                   (dur, code, [1] * rng.randint(1, 2)), 1, code))
        elif kind == "array":
            n = rng.randint(2, 5)
            extra = ["--gres=gpu:1"] if gpus and rng.random() < 0.5 else []
            subs.append(Submission(len(subs), kind, base + [f"--array=0-{n - 1}"] + extra,
                                   (dur, code, []), n, code))
        else:  # a parent and its dependent
            pcode = rng.choice([0, 0, 1, 3])
            parent = Submission(len(subs), "parent", base, (dur, pcode, []), 1, pcode)
            subs.append(parent)
            dtype = rng.choice(["afterok", "afterany", "afternotok"])
            child = Submission(len(subs), "child-" + dtype,
                               base + ["--kill-on-invalid-dep=yes"],
                               (1, rng.choice(EXITS), []), 1, None, dep=(dtype, parent))
            child.code = child.script[1]
            subs.append(child)
            total += 1
        total += subs[-1].count
    times = sorted(rng.uniform(0, span) for _ in subs)
    for s, t in zip(subs, times):
        s.at = t
    # a dependent right after its parent
    for s in subs:
        if s.dep:
            s.at = s.dep[1].at
    subs.sort(key=lambda s: (s.at, s.idx))
    return subs


class Workload:
    def __init__(self, ctx, rng, subs, sampler):
        self.ctx = ctx
        self.rng = rng
        self.subs = subs
        self.sampler = sampler
        self.jobs = {}            # id -> Job
        self.logdir = os.path.join(ctx.dir, "chaos", "jobs")
        self.outdir = os.path.join(ctx.dir, "chaos", "out")
        self.actions = []         # (at, "cancel"|"requeue", Job)
        self.victims = set()      # job ids whose supervisor a fault killed
        self.counts = {"sbatch_ok": 0, "sbatch_failed": 0, "sbatch_retries": 0,
                       "scancel_ok": 0, "scancel_failed": 0,
                       "requeue_ok": 0, "requeue_refused": 0}

    def prepare(self):
        os.makedirs(self.logdir, exist_ok=True)
        os.makedirs(self.outdir, exist_ok=True)
        for d in (self.logdir, self.outdir):
            os.chmod(d, 0o777)
        p = os.path.join(self.logdir, "step.sh")
        with open(p, "w") as f:
            f.write(STEP_SH.format(logdir=self.logdir, d=1))
        os.chmod(p, 0o755)

    def submit(self, s):
        args = list(s.args) + ["-J", f"chaos-{s.kind}",
                               "-o", os.path.join(self.outdir, "%A_%a.out" if s.kind == "array"
                                                  else "%j.out")]
        if s.dep:
            dtype, parent = s.dep
            if parent.id is None:
                s.failed = "its parent was not acknowledged"
                return
            args += [f"--dependency={dtype}:{parent.id}"]
        dur, code, steps = s.script
        script = job_script(self.logdir, dur, code, steps)
        for attempt in range(4):
            rc, out, err = self.ctx.run(["sbatch", "--parsable"] + args, input=script, timeout=20)
            m = re.fullmatch(r"(\d+)(;\S+)?\n?", out)
            if rc == 0 and m:
                s.id = int(m.group(1))
                break
            s.failed = f"rc {rc}: {err.strip()[:200]}"
            # not acknowledged: it may still have been stored; a retry is a new job
            self.counts["sbatch_retries"] += 1
            time.sleep(1 + attempt)
            if self.ctx.stop.is_set():
                break
        if s.id is None:
            self.counts["sbatch_failed"] += 1
            self.ctx.log(f"sbatch {s.kind} not acknowledged: {s.failed}")
            return
        s.failed = None
        self.counts["sbatch_ok"] += 1
        if s.kind == "array":
            s.jobs = []          # the tasks' own ids are learnt from sacct afterwards
        else:
            j = Job(s.id, s.kind, s.code, s)
            s.jobs = [j]
            self.jobs[j.id] = j
            r = self.rng.random()
            if not s.dep and s.kind != "parent" and r < 0.07:
                self.actions.append((time.time() + self.rng.uniform(0.2, 5), "cancel", j))
            elif s.kind in ("single", "gpu") and r < 0.13:
                self.actions.append((time.time() + self.rng.uniform(1.5, 3.5), "requeue", j))
        self.ctx.log(f"submitted {s.kind} {s.id}")

    def act(self, what, j, tries=0):
        if what == "cancel":
            rc, out, err = self.ctx.run(["scancel", str(j.id)], timeout=20)
            if rc == 0:
                j.cancelled = True
                self.counts["scancel_ok"] += 1
            else:
                self.counts["scancel_failed"] += 1
            self.ctx.log(f"scancel {j.id}: rc {rc} {err.strip()[:100]}")
        else:
            rc, out, err = self.ctx.run(["scontrol", "requeue", str(j.id)], timeout=20)
            if rc == 0:
                j.requeued += 1
                self.counts["requeue_ok"] += 1
            elif "pending" in err and tries < 8:
                # not started yet: try again a little later
                self.actions.append((time.time() + 1.0, "requeue", j, tries + 1))
            else:
                self.counts["requeue_refused"] += 1
            self.ctx.log(f"requeue {j.id}: rc {rc} {err.strip()[:100]}")

    def run(self):
        """The workload thread: submissions at their times, then the
        cancels and requeues they drew."""
        t0 = self.ctx.t0
        pending = list(self.subs)
        while (pending or self.actions) and not self.ctx.stop.is_set():
            now = time.time()
            self.actions.sort(key=lambda a: a[0])
            if self.actions and self.actions[0][0] <= now:
                at, what, j, *tries = self.actions.pop(0)
                self.act(what, j, *tries)
                continue
            if pending and t0 + pending[0].at <= now:
                self.submit(pending.pop(0))
                continue
            cands = [t0 + pending[0].at] if pending else []
            cands += [a[0] for a in self.actions[:1]]
            nxt = min(cands) if cands else now + 0.1
            time.sleep(max(0.02, min(0.2, nxt - now)))

    def acknowledged(self):
        return [s for s in self.subs if s.id is not None]

    def learn_array_tasks(self, rows):
        """Array tasks' own ids from sacct rows (JobID 12_3, JobIDRaw 15)."""
        by_master = {s.id: s for s in self.subs if s.kind == "array" and s.id is not None}
        for r in rows:
            m = re.fullmatch(r"(\d+)_(\d+)", r["JobID"])
            if m and int(m.group(1)) in by_master:
                s = by_master[int(m.group(1))]
                jid = int(r["JobIDRaw"])
                if jid not in self.jobs:
                    j = Job(jid, "array", s.code, s)
                    j.task = int(m.group(2))
                    s.jobs.append(j)
                    self.jobs[jid] = j


def all_terminal(states):
    return all(st in TERMINAL for st in states)
