"""The invariants of a chaos run, and the sampler that watches GPUs while it
runs.

The sampler looks, every SAMPLE_S seconds, at two records that are not the
controller's:
- the node agents' own: every job directory in DIR/spool/NODE/ with a
  job.json (the launch as the agent stored it: job_id, node_gpus) and no
  result yet is a job the agent runs on those GPUs;
- the jobs' processes: every process whose environment has
  SLURM_CONF=DIR/slurm.conf and SLURM_JOB_ID, on node SLURMD_NODENAME,
  holding SLURM_STEP_GPUS (an srun step's) or SLURM_JOB_GPUS.
Two jobs on one node's GPU in one sample, in either record, is a violation.
The jobs' own logs (workload.py) give a third record, checked afterwards
as intervals."""

import glob
import json
import os
import re
import sqlite3
import threading
import time

from common import helpers

SAMPLE_S = 0.5


def parse_gpus(s):
    out = set()
    for part in (s or "").split(","):
        part = part.strip()
        if re.fullmatch(r"\d+", part):
            out.add(int(part))
        elif re.fullmatch(r"\d+-\d+", part):
            a, b = map(int, part.split("-"))
            out.update(range(a, b + 1))
    return out


def proc_environ(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    env = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep:
            env[k.decode(errors="replace")] = v.decode(errors="replace")
    return env


def job_processes(conf):
    """[(pid, job id, node, gpus, cmdline, restart count)] of the processes
    of this cluster's jobs."""
    out = []
    want = conf.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        if b"SLURM_CONF=" + want + b"\0" not in raw + b"\0" or b"SLURM_JOB_ID=" not in raw:
            continue
        env = proc_environ(pid) or {}
        try:
            jid = int(env.get("SLURM_JOB_ID", ""))
        except ValueError:
            continue
        if not helpers.pid_alive(pid):
            continue
        gpus = parse_gpus(env.get("SLURM_STEP_GPUS") or env.get("SLURM_JOB_GPUS"))
        try:
            rc = int(env.get("SLURM_RESTART_COUNT", "0"))
        except ValueError:
            rc = 0
        out.append((pid, jid, env.get("SLURMD_NODENAME", "?"), gpus, helpers.cmdline_of(pid), rc))
    return out


def agent_records(d):
    """[(node, job id, gpus)] of the jobs the node agents' spools hold as running."""
    out = []
    for jj in glob.glob(f"{d}/spool/*/job*/job.json"):
        jdir = os.path.dirname(jj)
        node = os.path.basename(os.path.dirname(jdir))
        try:
            if os.path.getsize(os.path.join(jdir, "result")) > 0:
                continue
        except OSError:
            pass
        try:
            with open(jj) as f:
                js = json.load(f)
        except (OSError, ValueError):
            continue          # being written, or emptied into the pool
        jid = js.get("job_id")
        if not isinstance(jid, int):
            continue
        out.append((node, jid, set(js.get("node_gpus") or [])))
    return out


class Sampler:
    def __init__(self, ctx):
        self.ctx = ctx
        self.samples = 0
        self.last_seen = {}       # (job id, restart count) -> epoch (a process of that run alive)
        self.violations = []
        self.gpu_checks = 0
        self.stop = threading.Event()

    def sample(self):
        now = time.time()
        procs = job_processes(self.ctx.conf)
        held = {}
        for pid, jid, node, gpus, cmd, rc in procs:
            self.last_seen[(jid, rc)] = now
            for g in gpus:
                held.setdefault((node, g), {}).setdefault(jid, pid)
        for (node, g), jobs in held.items():
            self.gpu_checks += 1
            if len(jobs) > 1:
                self.violations.append(
                    f"t={now - self.ctx.t0:.1f}s: GPU {g} of {node} held by the processes of "
                    f"jobs {sorted(jobs)} at once (pids {sorted(jobs.values())})")
        held = {}
        for node, jid, gpus in agent_records(self.ctx.dir):
            for g in gpus:
                held.setdefault((node, g), set()).add(jid)
        for (node, g), jobs in held.items():
            self.gpu_checks += 1
            if len(jobs) > 1:
                self.violations.append(
                    f"t={now - self.ctx.t0:.1f}s: GPU {g} of {node} is in the spool records "
                    f"of jobs {sorted(jobs)} at once (agent's job.json, no result)")
        self.samples += 1

    def run(self):
        while not self.stop.is_set():
            t = time.time()
            try:
                self.sample()
            except Exception as e:           # a sampler bug must not end the run silently
                self.violations.append(f"sampler failed: {e!r}")
                return
            self.stop.wait(max(0.05, SAMPLE_S - (time.time() - t)))


# --- the jobs' own logs -----------------------------------------------------

class Run:
    """One run of a job's batch script, from its log."""

    def __init__(self, rc, start, node, gpus):
        self.rc = rc
        self.start = start
        self.node = node
        self.gpus = gpus
        self.end = None
        self.exit = None


class Runs(dict):
    """restart count -> Run; dups: restart counts whose script started twice."""
    dups = ()


def read_job_log(logdir, jid):
    runs = Runs()
    dups = []
    steps = []
    try:
        with open(os.path.join(logdir, f"{jid}.log")) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        p = line.split()
        if not p:
            continue
        kv = dict(x.split("=", 1) for x in p if "=" in x)
        if p[0] == "start" and len(p) >= 3:
            rc = int(kv.get("rc", "0") or 0)
            if rc in runs:
                dups.append(rc)
            runs[rc] = Run(rc, float(p[1]), p[2], parse_gpus(kv.get("gpus")))
        elif p[0] == "end":
            rc = int(kv.get("rc", "0") or 0)
            if rc in runs:
                runs[rc].end = float(p[1])
                runs[rc].exit = int(kv.get("exit", "-1"))
    runs.dups = dups
    try:
        with open(os.path.join(logdir, f"{jid}.steps.log")) as f:
            slines = f.read().splitlines()
    except OSError:
        slines = []
    open_steps = {}
    for line in slines:
        p = line.split()
        if len(p) < 3:
            continue
        kv = dict(x.split("=", 1) for x in p if "=" in x)
        key = (p[2], kv.get("rc"), kv.get("step"))
        if p[0] == "step":
            open_steps[key] = [float(p[1]), None, p[2], parse_gpus(kv.get("gpus")),
                               int(kv.get("rc", "0") or 0)]
            steps.append(open_steps[key])
        elif p[0] == "stepend" and key in open_steps:
            open_steps[key][1] = float(p[1])
    return runs, steps


def sacct_time(s):
    if not s or s in ("Unknown", "None"):
        return None
    try:
        return time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S"))
    except ValueError:
        return None


def integrity(db):
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            r = con.execute("PRAGMA integrity_check").fetchall()
        finally:
            con.close()
    except sqlite3.Error as e:
        return f"cannot check: {e}"
    return None if r == [("ok",)] else f"PRAGMA integrity_check said {r[:5]!r}"


