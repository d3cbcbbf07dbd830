"""Measuring helpers of the benchmark harness: bounded commands, timed
shell loops (timed inside bash with $EPOCHREALTIME, as slurm-ref's bench.sh
does, so that the two sides are measured the same way) and the figure record
(median, min, max of the repetitions)."""

import os
import statistics
import subprocess
import time


def now():
    return time.time()


def sh(script, env=None, timeout=600, check=False, cwd=None):
    """Runs a bash script; returns (rc, stdout, stderr). Never hangs past
    timeout (the command is killed; rc 124)."""
    try:
        cp = subprocess.run(["bash", "-c", script], env=env, cwd=cwd, capture_output=True,
                            text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out, "timeout after %ss" % timeout
    if check and cp.returncode != 0:
        raise RuntimeError("command failed (%d): %s\n%s" % (cp.returncode, script, cp.stderr))
    return cp.returncode, cp.stdout, cp.stderr


def timed_sh(body, env=None, timeout=600, cwd=None):
    """Seconds the bash body took, measured inside bash; None on failure."""
    script = "t0=$EPOCHREALTIME\n%s\nt1=$EPOCHREALTIME\necho \"@@T $t0 $t1\"" % body
    rc, out, err = sh(script, env=env, timeout=timeout, cwd=cwd)
    for line in out.splitlines():
        if line.startswith("@@T "):
            _, a, b = line.split()
            return float(b) - float(a)
    raise RuntimeError("timed command failed (rc %d): %s\n%s" % (rc, body[:200], err[-500:]))


def timed_cmd(argv, env=None, timeout=120):
    """Wall seconds of one command, output discarded; raises on failure."""
    t0 = time.perf_counter()
    cp = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                        timeout=timeout)
    t1 = time.perf_counter()
    if cp.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv), cp.returncode,
                                                 cp.stderr.decode(errors="replace")[-300:]))
    return t1 - t0


def wait_until(fn, timeout, interval=0.05):
    """Polls fn until truthy; returns its value, or None after timeout."""
    deadline = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Figure:
    """One row of the table: a value per side (list of repetitions, a fixed
    text such as n/a, or absent), its unit and whether larger is better."""

    def __init__(self, key, label, unit, higher_better, floor=None, goal=None):
        self.key, self.label, self.unit = key, label, unit
        self.higher_better = higher_better
        self.floor = floor          # (value, text) of the machine's floor, if any
        self.goal = goal            # text of the goal, if any
        self.reps = {}              # side -> [float]
        self.text = {}              # side -> "n/a (...)" when not measured
        self.note = {}              # side -> detail

    def add(self, side, value):
        self.reps.setdefault(side, []).append(float(value))

    def na(self, side, why):
        self.text[side] = why

    def median(self, side):
        r = self.reps.get(side)
        return statistics.median(r) if r else None

    def as_json(self):
        out = {"label": self.label, "unit": self.unit, "higher_better": self.higher_better}
        for side in sorted(set(self.reps) | set(self.text)):
            r = self.reps.get(side)
            d = {"text": self.text[side]} if side in self.text and not r else {}
            if r:
                d = {"median": statistics.median(r), "min": min(r), "max": max(r), "reps": r}
            if side in self.note:
                d["note"] = self.note[side]
            out[side] = d
        if self.floor:
            out["floor"] = self.floor[0]
        if self.goal:
            out["goal"] = self.goal
        return out


def fmt_num(v):
    if v is None:
        return "-"
    if abs(v) >= 100:
        return "{:,.0f}".format(v)
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 0.1 or v == 0:
        return "%.2f" % v
    return "%.2g" % v


def fmt_side(fig, side):
    r = fig.reps.get(side)
    if not r:
        return fig.text.get(side, "-")
    med = statistics.median(r)
    s = "%s %s" % (fmt_num(med), fig.unit)
    if len(r) > 1:
        s += " (%s-%s)" % (fmt_num(min(r)), fmt_num(max(r)))
    return s


def ratio(fig):
    """How many times better Herd is than Slurm (>1: Herd better)."""
    h, s = fig.median("herd"), fig.median("slurm")
    if not h or not s:
        return "-"
    return "%.1fx" % ((h / s) if fig.higher_better else (s / h))


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


def machine():
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) / 1048576
    return "%s, %d CPUs, %.1f GiB, kernel %s" % (cpu_model(), os.cpu_count(), mem,
                                                  os.uname().release)
