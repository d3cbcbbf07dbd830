"""What the chaos modules share: running the cluster's commands without
pytest (a failure is a value here, never an exception), and the run's
event log."""

import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))

import helpers  # noqa: E402  (tests/integration/helpers.py: Cluster, pid_alive, ...)

TERMINAL = set(helpers.FINAL_STATES)


class Ctx:
    """The run: the cluster's directory, the binaries, the seeded RNG of each
    thread, the event log, and the deadline of every command."""

    def __init__(self, args):
        self.dir = os.path.realpath(args.dir)
        self.bin = os.path.realpath(args.bin)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.t0 = time.time()
        self.lock = threading.Lock()
        self.events = []          # (t, what) for the replay log
        self.stop = threading.Event()
        self.verbose = args.verbose

    def env(self):
        env = dict(os.environ)
        env["PATH"] = self.bin + os.pathsep + env.get("PATH", "/usr/bin:/bin")
        env["SLURM_CONF"] = self.conf
        env.setdefault("ASAN_OPTIONS", "abort_on_error=0:detect_leaks=0")
        return env

    def run(self, cmd, timeout=30, input=None):
        """(rc, stdout, stderr); rc 124 on timeout, 127 when it cannot run."""
        if cmd and not os.path.isabs(cmd[0]):
            cmd = [os.path.join(self.bin, cmd[0])] + list(cmd[1:])
        try:
            cp = subprocess.run(cmd, capture_output=True, text=True, env=self.env(),
                                timeout=timeout, input=input)
        except subprocess.TimeoutExpired as e:
            return 124, e.stdout or "", e.stderr or ""
        except OSError as e:
            return 127, "", str(e)
        return cp.returncode, cp.stdout, cp.stderr

    def log(self, what):
        t = time.time() - self.t0
        with self.lock:
            self.events.append((t, what))
        if self.verbose:
            print(f"[{t:7.2f}] {what}", flush=True)

    def elapsed(self):
        return time.time() - self.t0
