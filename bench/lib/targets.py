"""The two systems under test. A target knows how to run its commands (full
paths: Herd's and Slurm's share names), how to find its controller, empty
its queue and read the node's allocation. Herd clusters are started fresh
with `herd up` from a slurm.conf written here (one node, debug + gpu
partitions, like slurm-ref); Slurm is slurm-ref's, used as it is."""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import time

import util

NODE_CPUS, NODE_GPUS, NODE_MEM_MB = 64, 8, 256000


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=120):
        super().__init__("localhost", timeout=timeout)
        self.sock_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.sock_path)
        self.sock = s


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def cgroups_usable():
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return os.access("/sys/fs/cgroup", os.W_OK)
    return (os.access("/sys/fs/cgroup/freezer/cgroup.procs", os.W_OK)
            and os.access("/sys/fs/cgroup/memory/cgroup.procs", os.W_OK))


def munge_answers(sock):
    if not os.path.exists(sock):
        return False
    cp = subprocess.run("munge -n -S %s </dev/null | unmunge -S %s" % (sock, sock), shell=True,
                        capture_output=True, timeout=10)
    return cp.returncode == 0


class Target:
    side = "?"
    node = "?"

    def cmd(self, name):
        raise NotImplementedError

    def wait_empty(self, timeout=300):
        """Until squeue shows no job (pending, running, completing)."""
        def empty():
            cp = subprocess.run([self.cmd("squeue"), "-h", "-o", "%i"], env=self.env,
                                capture_output=True, text=True, timeout=120)
            return cp.returncode == 0 and not cp.stdout.strip()
        return util.wait_until(empty, timeout, 0.05) is not None

    def clean(self, timeout=300):
        subprocess.run([self.cmd("scancel"), "-u", "root"], env=self.env,
                       capture_output=True, timeout=300)
        if not self.wait_empty(timeout):
            raise RuntimeError("%s: queue not empty after %ss" % (self.side, timeout))

    def count(self, state="PD"):
        cp = subprocess.run([self.cmd("squeue"), "-h", "-t", state, "-o", "%i"], env=self.env,
                            capture_output=True, text=True, timeout=300)
        return len(cp.stdout.split())

    def one_job(self):
        cp = subprocess.run([self.cmd("squeue"), "-h", "-o", "%i"], env=self.env,
                            capture_output=True, text=True, timeout=300)
        ids = cp.stdout.split()
        return ids[len(ids) // 2] if ids else None

    def ctld_rss_kb(self):
        return util.rss_kb(self.ctld_pid())


class Herd(Target):
    side = "herd"
    node = "node1"

    def __init__(self, bin_dir, prefix, name, min_job_age=300):
        self.bin = bin_dir
        self.dir = "%s-%s" % (prefix, name)
        self.min_job_age = min_job_age
        self.env = dict(os.environ)
        self.env.pop("SLURM_CONF", None)
        self.env["PATH"] = bin_dir + os.pathsep + self.env.get("PATH", "/usr/bin:/bin")
        self.env["SLURM_CONF"] = os.path.join(self.dir, "slurm.conf")
        self.started = False

    def cmd(self, name):
        return os.path.join(self.bin, name)

    def write_conf(self):
        d = self.dir
        ctld_port, node_port = free_ports(2)
        sysm = "/run/munge/munge.socket.2"
        munge = sysm if munge_answers(sysm) else os.path.join(d, "munge", "munge.socket")
        lines = [
            "# Written by bench/run: herd up's format, one node of slurm-ref's shape,",
            "# partitions debug (default) and gpu as in slurm-ref.",
            "ClusterName=herd",
            "SlurmctldHost=localhost(127.0.0.1)",
            "SlurmctldPort=%d" % ctld_port,
            "StateSaveLocation=%s/ctld" % d,
            "SlurmdSpoolDir=%s/spool/%%n" % d,
            "SlurmctldLogFile=%s/log/herdctld.log" % d,
            "SlurmdLogFile=%s/log/herdd-%%n.log" % d,
            "SlurmctldPidFile=%s/run/herdctld.pid" % d,
            "SlurmdPidFile=%s/run/herdd-%%n.pid" % d,
            "AuthInfo=socket=%s" % munge,
            "GresTypes=gpu",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "KillWait=30",
            "SlurmdTimeout=300",
            "MinJobAge=%d" % self.min_job_age,
            # the queue figures hold 100,000 jobs, past Slurm's default of 10,000
            "MaxJobCount=1000000",
        ]
        if cgroups_usable():
            lines += ["TaskPlugin=task/cgroup", "ProctrackType=proctrack/cgroup"]
            with open(os.path.join(d, "cgroup.conf"), "w") as f:
                f.write("# Written by bench/run (as herd up does).\nConstrainRAMSpace=yes\n"
                        "ConstrainCores=yes\nConstrainDevices=yes\n")
        lines += [
            "NodeName=node1 NodeAddr=127.0.0.1 Port=%d CPUs=%d RealMemory=%d Gres=gpu:%d "
            "State=UNKNOWN" % (node_port, NODE_CPUS, NODE_MEM_MB, NODE_GPUS),
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=UNLIMITED State=UP",
            "PartitionName=gpu Nodes=ALL Default=NO MaxTime=UNLIMITED State=UP",
        ]
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write("\n".join(lines) + "\n")

    def up(self):
        """A fresh cluster: the directory is wiped first."""
        self.down()
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir, mode=0o755)
        os.chmod(self.dir, 0o755)
        self.write_conf()
        self.started = True
        cp = subprocess.run([self.cmd("herd"), "up", "-D", self.dir], env=self.env,
                            capture_output=True, text=True, timeout=120)
        if cp.returncode != 0:
            raise RuntimeError("herd up -D %s failed:\n%s" % (self.dir, cp.stderr))
        return self

    def clean(self, timeout=300):
        """A fresh cluster: cancelling 100,000 jobs one by one takes minutes,
        and a fresh controller gives every repetition the same start."""
        self.up()

    def down(self):
        if not self.started:
            return
        subprocess.run([self.cmd("herd"), "down", "-D", self.dir], env=self.env,
                       capture_output=True, timeout=120)
        self.started = False

    def ctld_pid(self):
        with open(os.path.join(self.dir, "run", "herdctld.pid")) as f:
            return int(f.read().split()[0])

    def sock(self):
        return os.path.join(self.dir, "ctld", "herdctld.sock")

    def connect(self, timeout=300):
        return UnixHTTPConnection(self.sock(), timeout=timeout)

    def api(self, method, path, body=None, conn=None, timeout=300):
        c = conn or self.connect(timeout)
        try:
            data = json.dumps(body) if body is not None else None
            hdrs = {"Content-Type": "application/json"} if data is not None else {}
            c.request(method, path, body=data, headers=hdrs)
            r = c.getresponse()
            raw = r.read()
            return r.status, (json.loads(raw) if raw else {})
        finally:
            if conn is None:
                c.close()

    def node_alloc(self):
        st, body = self.api("GET", "/v1/nodes", timeout=30)
        for n in body.get("nodes", []) if st == 200 else []:
            if n.get("name") == self.node:
                return n.get("alloc_cpus", 0), n.get("alloc_gpus", 0)
        return None

    def spec(self, script, wd, extra=None):
        """A job spec as sbatch sends it (the whole environment: --export=ALL)."""
        s = {"name": os.path.basename(script), "script": open(script).read(), "argv": [],
             "environment": ["%s=%s" % kv for kv in sorted(self.env.items())],
             "work_dir": wd, "submit_dir": wd, "submit_host": socket.gethostname(),
             "umask": 0o22, "stdout": "/dev/null"}
        s.update(extra or {})
        return s


class Slurm(Target):
    """slurm-ref's Slurm 22.05 (/etc/slurm), commands by full path."""
    side = "slurm"

    def __init__(self):
        self.env = dict(os.environ)
        self.env.pop("SLURM_CONF", None)
        self.node = socket.gethostname().split(".")[0]

    @staticmethod
    def available():
        if not os.path.exists("/etc/slurm/slurm.conf") or not shutil.which("/usr/bin/scontrol"):
            return False
        env = dict(os.environ)
        env.pop("SLURM_CONF", None)
        try:
            cp = subprocess.run(["/usr/bin/scontrol", "ping"], env=env, capture_output=True,
                                text=True, timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return "UP" in cp.stdout

    def cmd(self, name):
        return "/usr/bin/" + name

    def ctld_pid(self):
        with open("/run/slurm/slurmctld.pid") as f:
            return int(re.sub(r"\D", "", f.readline()))

    def parts_state(self, state):
        for p in ("debug", "gpu"):
            subprocess.run([self.cmd("scontrol"), "update", "partitionname=" + p,
                            "state=" + state], env=self.env, capture_output=True, timeout=60)

    def node_alloc(self):
        cp = subprocess.run([self.cmd("scontrol"), "show", "node", self.node], env=self.env,
                            capture_output=True, text=True, timeout=30)
        m = re.search(r"CPUAlloc=(\d+)", cp.stdout)
        g = re.search(r"AllocTRES=\S*gres/gpu=(\d+)", cp.stdout)
        return (int(m.group(1)), int(g.group(1)) if g else 0) if m else None

    def has_accounting(self):
        cp = subprocess.run([self.cmd("sacctmgr"), "-n", "show", "cluster", "format=cluster"],
                            env=self.env, capture_output=True, text=True, timeout=30)
        return cp.returncode == 0 and bool(cp.stdout.split())


def start_slurm_ref(root):
    """--with-slurm: slurm-ref's up.sh (installs packages once; minutes)."""
    up = os.path.join(root, "..", "shared", "slurm-ref", "up.sh")
    if not os.path.exists(up):
        up = "/work/shared/slurm-ref/up.sh"
    t0 = time.time()
    cp = subprocess.run(["bash", up], capture_output=True, text=True, timeout=1800)
    if cp.returncode != 0:
        raise RuntimeError("slurm-ref up.sh failed:\n" + cp.stdout[-2000:] + cp.stderr[-2000:])
    return time.time() - t0
