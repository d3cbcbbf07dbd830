"""Faults at seeded moments: kill -9 of the controller, of a node agent, of
a job's supervisor, of herd's own munged; `herd up -D DIR` brings back what
died (a second `herd up` starts only what does not run); in --netns mode a
node's host-side veth goes down for a while. Only processes of this run's
cluster directory are ever signalled."""

import glob
import heapq
import os
import signal
import subprocess
import time

from common import helpers

KINDS = ("ctld", "herdd", "supervisor", "munged", "netdown")


def dir_hash(d):
    """FNV-1a of the cluster's directory, as src/up/netns.c names its links."""
    h = 2166136261
    for b in os.path.realpath(d).encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return f"{h:08x}"


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class Faults:
    def __init__(self, ctx, rng, nfaults, start, end, nodes, netns, workload):
        self.ctx = ctx
        self.rng = rng
        self.nodes = nodes
        self.netns = netns
        self.workload = workload
        self.counts = {k: 0 for k in KINDS}
        self.missed = {k: 0 for k in KINDS}     # drawn, but nothing to hit then
        self.restarts = 0
        self.restart_failures = 0
        self.queue = []                          # heap of (at, seq, what, arg)
        self.seq = 0
        kinds = ["ctld"] * 5 + ["herdd"] * 5 + ["supervisor"] * 6 + ["munged"] * 2
        if netns:
            kinds += ["netdown"] * 4
        for _ in range(nfaults):
            self.push(ctx.t0 + rng.uniform(start, end), "fault", rng.choice(kinds))
        self.up_proc = None
        self.up_started = 0.0
        self.up_interrupted = 0
        self.last_kill = 0.0
        self.up_wanted = False
        self.down_links = set()

    def push(self, at, what, arg):
        self.seq += 1
        heapq.heappush(self.queue, (at, self.seq, what, arg))

    # --- the targets -------------------------------------------------------
    def pid_of(self, kind, node=None):
        d = self.ctx.dir
        if kind == "ctld":
            pid, want = read_pid(f"{d}/run/herdctld.pid"), "herdctld"
        elif kind == "herdd":
            pid, want = read_pid(f"{d}/run/herdd-{node}.pid"), "herdd"
        elif kind == "munged":
            pid, want = read_pid(f"{d}/munge/munged.pid"), "munged"
        else:
            return None
        if pid and helpers.pid_alive(pid):
            cmd = helpers.cmdline_of(pid)
            # never anything but this cluster's own daemon
            if want in cmd and "--supervise" not in cmd and (d in cmd or kind != "munged"):
                return pid
        return None

    def supervisors(self):
        """[(pid, job id, node)] of the live supervisors of this cluster."""
        out = []
        for f in glob.glob(f"{self.ctx.dir}/spool/*/job*/supervisor.pid"):
            pid = read_pid(f)
            if pid and helpers.pid_alive(pid):
                cmd = helpers.cmdline_of(pid)
                if "--supervise" in cmd and self.ctx.dir in cmd:
                    jdir = os.path.basename(os.path.dirname(f))
                    node = os.path.basename(os.path.dirname(os.path.dirname(f)))
                    out.append((pid, int(jdir[3:]), node))
        return out

    def veth(self, i):
        return f"hv{dir_hash(self.ctx.dir)}-{i}"

    # --- actions -----------------------------------------------------------
    def kill(self, pid):
        self.last_kill = time.time()
        try:
            os.kill(pid, signal.SIGKILL)
            return True
        except OSError:
            return False

    def inject(self, kind):
        rng = self.rng
        if kind == "supervisor":
            sups = self.supervisors()
            if not sups:
                self.missed[kind] += 1
                return
            pid, jid, node = rng.choice(sorted(sups))
            if self.kill(pid):
                self.counts[kind] += 1
                j = self.workload.jobs.get(jid)
                self.workload.victims.add(jid)
                if j:
                    j.victim = True
                self.ctx.log(f"FAULT kill -9 supervisor {pid} of job {jid} on {node}")
            return
        if kind == "netdown":
            i = rng.randint(1, self.nodes)
            link = self.veth(i)
            if link in self.down_links:
                self.missed[kind] += 1
                return
            cp = subprocess.run(["ip", "link", "set", link, "down"], capture_output=True,
                                text=True, timeout=10)
            if cp.returncode != 0:
                self.missed[kind] += 1
                self.ctx.log(f"netdown {link} failed: {cp.stderr.strip()}")
                return
            self.down_links.add(link)
            self.counts[kind] += 1
            secs = rng.uniform(2, 12)
            self.ctx.log(f"FAULT link {link} (node{i}) down for {secs:.1f}s")
            self.push(time.time() + secs, "netup", link)
            return
        node = f"node{rng.randint(1, self.nodes)}" if kind == "herdd" else None
        pid = self.pid_of(kind, node)
        if not pid:
            self.missed[kind] += 1
            return
        if self.kill(pid):
            self.counts[kind] += 1
            self.ctx.log(f"FAULT kill -9 {kind} {pid}" + (f" ({node})" if node else ""))
            self.push(time.time() + rng.uniform(0.5, 4), "restart", kind)

    def link_up(self, link):
        subprocess.run(["ip", "link", "set", link, "up"], capture_output=True, timeout=10)
        self.down_links.discard(link)
        self.ctx.log(f"link {link} up")

    def restart(self):
        """`herd up -D DIR` in the background (one at a time). One that began
        before the latest kill may wait its 30 s for a daemon it saw running:
        it is stopped (SIGTERM, as a user's ^C) and a fresh one started."""
        if self.up_proc is not None and self.up_proc.poll() is None:
            if self.up_started < self.last_kill:
                self.up_proc.terminate()
                try:
                    self.up_proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.up_proc.kill()
                    self.up_proc.wait()
                self.up_interrupted += 1
                self.up_proc.stdout.read()
                self.up_proc = None
            else:
                self.up_wanted = True
                return
        self.reap_up()
        self.up_wanted = False
        self.restarts += 1
        self.ctx.log("restart: herd up -D DIR")
        self.up_started = time.time()
        self.up_proc = subprocess.Popen([os.path.join(self.ctx.bin, "herd"), "up", "-D", self.ctx.dir],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=self.ctx.env())

    def reap_up(self):
        if self.up_proc is not None and self.up_proc.poll() is not None:
            out = self.up_proc.stdout.read()
            if self.up_proc.returncode != 0:
                self.restart_failures += 1
                self.ctx.log(f"herd up exited {self.up_proc.returncode}: {out.strip()[-300:]}")
            self.up_proc = None

    def run(self):
        while not self.ctx.stop.is_set():
            self.reap_up()
            if self.up_wanted and self.up_proc is None:
                self.restart()
            if not self.queue:
                if self.up_proc is None and not self.up_wanted:
                    return
                time.sleep(0.2)
                continue
            at, _, what, arg = self.queue[0]
            now = time.time()
            if at > now:
                time.sleep(min(0.2, at - now))
                continue
            heapq.heappop(self.queue)
            if what == "fault":
                self.inject(arg)
            elif what == "netup":
                self.link_up(arg)
            else:
                self.restart()

    def heal(self):
        """Everything back: links up, then `herd up` until it succeeds."""
        for link in list(self.down_links):
            self.link_up(link)
        if self.up_proc is not None:
            try:
                self.up_proc.wait(timeout=90)
            except subprocess.TimeoutExpired:
                pass
            self.reap_up()
        for attempt in range(3):
            rc, out, err = self.ctx.run(["herd", "up", "-D", self.ctx.dir], timeout=90)
            if rc == 0:
                return True
            self.ctx.log(f"final herd up: rc {rc}: {err.strip()[-300:]}")
            time.sleep(3)
        return False
