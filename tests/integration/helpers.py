"""Helpers of the integration tests: running the real commands, bounded waits,
a local cluster started with `herd up` and always stopped with `herd down`."""

import glob
import http.client
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time

import pytest

HERD_BIN = os.path.abspath(os.environ.get(
    "HERD_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "asan", "bin")))
CMD_TIMEOUT = 60

# Finished jobs stay visible to `squeue -t all` for MinJobAge.
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"}


def base_env(conf=None):
    env = dict(os.environ)
    env["PATH"] = HERD_BIN + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    if conf:
        env["SLURM_CONF"] = conf
    # Sanitizer reports must reach the test output, not be swallowed.
    env.setdefault("ASAN_OPTIONS", "abort_on_error=0:detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    return env


def as_user(user):
    """preexec_fn that drops to user (uid, gid, supplementary groups)."""
    pw = pwd.getpwnam(user)

    def drop():
        os.setgid(pw.pw_gid)
        os.initgroups(pw.pw_name, pw.pw_gid)
        os.setuid(pw.pw_uid)
    return drop


def fmt_result(cp):
    return (f"command: {cp.args!r}\nexit: {cp.returncode}\n"
            f"--- stdout ---\n{cp.stdout}\n--- stderr ---\n{cp.stderr}")


def run(cmd, user=None, input=None, check=True, env=None, cwd=None, timeout=CMD_TIMEOUT,
        conf=None, extra_env=None):
    """Runs a command (list, or str split on blanks) and returns the
    CompletedProcess; with check, a non-zero exit fails the test showing
    the command's output."""
    if isinstance(cmd, str):
        cmd = cmd.split()
    env = dict(env) if env is not None else base_env(conf)
    if extra_env:
        env.update(extra_env)
    preexec = None
    if user is not None and user != "root":
        pw = pwd.getpwnam(user)
        env.update(HOME=pw.pw_dir, USER=user, LOGNAME=user)
        preexec = as_user(user)
    try:
        cp = subprocess.run(cmd, input=input, capture_output=True, text=True, env=env,
                            cwd=cwd, timeout=timeout, preexec_fn=preexec)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"command {cmd!r} did not finish within {timeout}s\n"
                    f"stdout: {e.stdout!r}\nstderr: {e.stderr!r}")
    if check and cp.returncode != 0:
        pytest.fail("command failed\n" + fmt_result(cp))
    return cp


def wait_for(fn, timeout, what, interval=0.25):
    """Polls fn until it returns something truthy and returns it; fails the
    test after timeout seconds naming what was awaited and the last value."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = fn()
        except AssertionError as e:
            last = f"assertion: {e}"
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}; last value: {last!r}")
        time.sleep(interval)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is gone for every practical purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ppid_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def cmdline_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def procs_matching(pattern):
    """[(pid, cmdline)] of processes whose command line contains pattern
    (pgrep -f), without this process and those that started it (a
    `timeout ... --dir DIR` wrapper names the directory too)."""
    cp = subprocess.run(["pgrep", "-a", "-f", re.escape(pattern)], capture_output=True, text=True)
    mine, pid = set(), os.getpid()
    while pid and pid > 1 and pid not in mine:
        mine.add(pid)
        pid = ppid_of(pid)
    out = []
    for line in cp.stdout.splitlines():
        pid, _, cmd = line.partition(" ")
        if int(pid) not in mine:
            out.append((int(pid), cmd))
    return out


def open_dir(path, mode=0o777):
    """Makes path usable by ordinary users: mode on it, o+x on its parents."""
    os.chmod(path, mode)
    p = os.path.dirname(os.path.abspath(str(path)))
    while p not in ("/", ""):
        st = os.stat(p)
        if not st.st_mode & 0o001:
            os.chmod(p, st.st_mode | 0o011)
        p = os.path.dirname(p)


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=10):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def munge_cred(c, user=None, ttl=None):
    """A fresh credential of user's (root by default) from the cluster's
    munged: AuthInfo's socket=, else the one herd up started in its
    directory. MUNGE refuses a credential used twice: one per request."""
    m = re.search(r"^AuthInfo=\S*\bsocket=([^,\s]+)", c.conf_text(), re.M)
    sock = m.group(1) if m else os.path.join(c.dir, "munge", "munge.socket")
    args = ["munge", "-S", sock, "-n"] + (["-t", str(ttl)] if ttl else [])
    return c.run(args, user=user).stdout.strip()


def tcp(port, method, path, cred, body=None, headers=None):
    """(status, parsed body) of one request to 127.0.0.1:port with the
    MUNGE credential cred (none when empty)."""
    h = {"Authorization": f"Munge {cred}"} if cred else {}
    if body is not None:
        h["Content-Type"] = "application/json"
    h.update(headers or {})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=h)
        r = conn.getresponse()
        raw = r.read()
    finally:
        conn.close()
    try:
        return r.status, json.loads(raw) if raw else {}
    except ValueError:
        return r.status, raw


def conf_value(conf_text, key):
    m = re.search(r"^\s*" + key + r"\s*=\s*(\S+)", conf_text, re.I | re.M)
    return m.group(1) if m else None


class Cluster:
    """A local cluster in directory d, driven through the real commands."""

    def __init__(self, d, up_args=()):
        self.dir = str(d)
        self.up_args = list(up_args)
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.up_output = None
        self.started = False

    # --- lifecycle -------------------------------------------------------
    def up(self, extra=(), timeout=120):
        for b in ("herd", "herdctld", "herdd", "sbatch", "squeue", "sinfo", "scancel"):
            if not os.path.exists(os.path.join(HERD_BIN, b)):
                pytest.fail(f"{b} not found in HERD_BIN={HERD_BIN}")
        self.started = True
        args = list(self.up_args) + list(extra)
        if not any(str(a).startswith("AuthInfo=") for a in args):
            # a requeued job may start again cred_expire + 1 s later (Slurm's
            # BeginTime): 6 s rather than Slurm's default 121 s
            args += ["--set", "AuthInfo=cred_expire=5"]
        cp = run([os.path.join(HERD_BIN, "herd"), "up", "-D", self.dir] + args,
                 env=base_env(), check=False, timeout=timeout)
        if cp.returncode != 0:
            pytest.fail("herd up failed\n" + fmt_result(cp) + self.log_tail())
        self.up_output = cp.stdout
        return cp

    def down(self, timeout=60):
        return run([os.path.join(HERD_BIN, "herd"), "down", "-D", self.dir], env=base_env(),
                   check=False, timeout=timeout)

    def leftovers(self):
        return procs_matching(self.dir)

    def stop_and_check(self):
        """herd down, then no process of this dir may be left; kills any
        leftover so that the next cluster starts clean. Returns problems."""
        problems = []
        if not self.started:
            return problems
        cp = self.down()
        if cp.returncode != 0:
            problems.append("herd down failed\n" + fmt_result(cp))
        deadline = time.monotonic() + 15
        left = self.leftovers()
        while left and time.monotonic() < deadline:
            time.sleep(0.25)
            left = self.leftovers()
        if left:
            problems.append("processes of %s left after herd down:\n%s" % (
                self.dir, "\n".join(f"  {p} {c}" for p, c in left)))
            for p, _ in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
        san = self.sanitizer_reports()
        if san:
            problems.append("sanitizer reports in the daemons' logs:\n" + san)
        return problems

    def log_tail(self, n=30):
        out = []
        for f in sorted(glob.glob(os.path.join(self.dir, "log", "*"))):
            try:
                with open(f, errors="replace") as fh:
                    lines = fh.read().splitlines()[-n:]
            except OSError:
                continue
            out.append(f"\n--- {f} (last {n} lines) ---\n" + "\n".join(lines))
        return "".join(out)

    def sanitizer_reports(self):
        hits = []
        for f in sorted(glob.glob(os.path.join(self.dir, "log", "*"))):
            try:
                with open(f, errors="replace") as fh:
                    text = fh.read()
            except OSError:
                continue
            for m in re.finditer(r"(ERROR: (Address|Leak)Sanitizer.*|.*runtime error:.*)", text):
                start = m.start()
                hits.append(f"--- {f} ---\n" + text[start:start + 1500])
                break
        return "\n".join(hits)

    # --- configuration ---------------------------------------------------
    def conf_text(self):
        with open(self.conf) as f:
            return f.read()

    def ctld_port(self):
        v = conf_value(self.conf_text(), "SlurmctldPort")
        return int(v) if v else 6817

    def state_dir(self):
        return conf_value(self.conf_text(), "StateSaveLocation") or os.path.join(self.dir, "ctld")

    def sock_path(self):
        return os.path.join(self.state_dir(), "herdctld.sock")

    def pidfiles(self):
        return sorted(glob.glob(os.path.join(self.dir, "run", "*.pid")))

    def read_pid(self, path):
        with open(path) as f:
            return int(f.read().split()[0])

    def ctld_pid(self):
        return self.read_pid(os.path.join(self.dir, "run", "herdctld.pid"))

    def herdd_pid(self, node):
        """The pid of node's agent: a pid file under run/ naming the node
        whose process is herdd, else a herdd process naming dir and node."""
        for f in self.pidfiles():
            base = os.path.basename(f)
            if re.search(re.escape(node) + r"(\D|$)", base):
                pid = self.read_pid(f)
                if "herdd" in cmdline_of(pid):
                    return pid
        for pid, cmd in procs_matching(self.dir):
            if "herdd" in cmd and re.search(re.escape(node) + r"(\D|$)", cmd):
                return pid
        pytest.fail(f"cannot find the herdd of {node}: pid files {self.pidfiles()}, "
                    f"processes {procs_matching(self.dir)}")

    def daemon_pids(self):
        return {f: self.read_pid(f) for f in self.pidfiles()}

    # --- the REST API (local socket, root) ---------------------------------
    def api(self, method, path, body=None, timeout=10):
        c = UnixHTTPConnection(self.sock_path(), timeout=timeout)
        try:
            data = json.dumps(body) if body is not None else None
            hdrs = {"Content-Type": "application/json"} if data is not None else {}
            c.request(method, path, body=data, headers=hdrs)
            r = c.getresponse()
            raw = r.read()
            try:
                return r.status, json.loads(raw) if raw else {}
            except ValueError:
                return r.status, raw
        finally:
            c.close()

    def api_job(self, job_id):
        st, j = self.api("GET", f"/v1/jobs/{job_id}")
        assert st == 200, f"GET /v1/jobs/{job_id}: {st} {j!r}"
        return j["jobs"][0]

    # --- commands --------------------------------------------------------
    def run(self, cmd, **kw):
        kw.setdefault("conf", self.conf)
        return run(cmd, **kw)

    def sbatch(self, args=(), script=None, user=None, cwd=None, extra_env=None, name="job.sh"):
        """Submits with --parsable; script text is written to cwd/name (a
        fresh name each time) unless args already holds the script. Returns
        the job id."""
        args = list(args)
        if script is not None:
            path = os.path.join(cwd, f"{int(time.time() * 1e6)}-{name}")
            with open(path, "w") as f:
                f.write(script)
            os.chmod(path, 0o755)
            args.append(path)
        cp = self.run(["sbatch", "--parsable"] + args, user=user, cwd=cwd, extra_env=extra_env)
        m = re.fullmatch(r"(\d+)(;\S+)?\n?", cp.stdout)
        assert m, f"sbatch --parsable printed {cp.stdout!r} (stderr {cp.stderr!r})"
        return int(m.group(1))

    def state(self, job_id):
        cp = self.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", "%T"], check=False)
        return cp.stdout.strip() if cp.returncode == 0 else f"<squeue failed: {cp.stderr.strip()}>"

    def field(self, job_id, fmt):
        cp = self.run(["squeue", "-h", "-t", "all", "-j", str(job_id), "-o", fmt])
        return cp.stdout.strip()

    def wait_state(self, job_id, states, timeout=30):
        if isinstance(states, str):
            states = {states}
        states = set(states)
        last = {}

        def check():
            last["s"] = self.state(job_id)
            if last["s"] in states:
                return last["s"]
            if last["s"] in FINAL_STATES:
                pytest.fail(f"job {job_id} ended {last['s']}, expected {sorted(states)}"
                            + self.job_debug(job_id))
            return None
        return wait_for(check, timeout, f"job {job_id} to be {sorted(states)}")

    def job_debug(self, job_id):
        try:
            st, j = self.api("GET", f"/v1/jobs/{job_id}")
            return f"\njob record: {j!r}"
        except OSError as e:
            return f"\n(job record unavailable: {e})"

    def node_states(self):
        cp = self.run(["sinfo", "-h", "-N", "-o", "%N %t"])
        out = {}
        for line in cp.stdout.splitlines():
            parts = line.split()
            if len(parts) == 2:
                out[parts[0]] = parts[1]
        return out

    def cancel_all(self, keep=()):
        cp = self.run(["squeue", "-h", "-o", "%i"], check=False)
        ids = [i for i in cp.stdout.split() if i.isdigit() and int(i) not in keep]
        if ids:
            self.run(["scancel"] + ids, check=False)
        return ids


# --- an installed tree (make install), as test_install and test_lab_install use it ---
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def make(*args, timeout=600):
    """Runs make in the repository (nice, on every core); fails the test
    with its output."""
    jobs = f"-j{os.cpu_count() or 1}"
    cp = subprocess.run(["nice", "make", jobs, "-C", REPO] + list(args), capture_output=True,
                        text=True, timeout=timeout)
    assert cp.returncode == 0, \
        f"make {' '.join(args)} failed:\n{cp.stdout[-3000:]}\n{cp.stderr[-3000:]}"
    return cp


def install_tree(tmp_path_factory, name="destdir"):
    """`make install PREFIX=/usr DESTDIR=...` (the release build, made if
    missing) into a fresh scratch root that every user can reach; returns
    the root (a Path)."""
    top = tmp_path_factory.mktemp(name)
    open_dir(top, 0o755)     # ordinary users run the installed commands
    d = top / "root"
    make("install", "PREFIX=/usr", f"DESTDIR={d}")
    return d


# --- herd up --netns clusters: what a test may find of their network ---
def netns_unavailable():
    """Why `herd up --netns` cannot run here, or None."""
    if os.geteuid() != 0:
        return "needs root (namespaces, links, mounts)"
    if not any(os.access(p, os.X_OK)
               for p in ("/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip")):
        return "needs `ip` (iproute2)"
    if not shutil.which("unshare"):
        return "needs util-linux's unshare to check that namespaces can be made"
    cp = subprocess.run(["unshare", "--net", "--uts", "--mount", "true"], capture_output=True,
                        text=True, timeout=10)
    if cp.returncode != 0:
        return f"cannot make network/UTS/mount namespaces here: {cp.stderr.strip()}"
    return None


def dir_hash(d):
    """FNV-1a of the cluster's directory, as netns.c names its links."""
    h = 2166136261
    for b in os.path.realpath(d).encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return f"{h:08x}"


def network_left(d):
    """The links and namespace handles of d's cluster that still exist."""
    h = dir_hash(d)
    links = [n for n in os.listdir("/sys/class/net") if n == f"hb{h}" or n.startswith(f"hv{h}-")]
    netns = os.path.join(os.path.realpath(d), "netns")
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split()[4] for line in f if line.split()[4].startswith(netns + "/")]
    return links + mounts


def scrub_network(d):
    """Removes what network_left finds, so that a failed test leaves nothing."""
    for thing in network_left(d):
        if thing.startswith("/"):
            subprocess.run(["umount", "-l", thing], capture_output=True, timeout=10)
        else:
            subprocess.run(["ip", "link", "del", thing], capture_output=True, timeout=10)


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def wait_file(path, timeout=20, contains=None):
    def check():
        if not os.path.exists(path):
            return None
        text = read(path)
        if contains is None:
            return text if text else True
        return text if contains in text else None
    return wait_for(check, timeout, f"file {path}" + (f" to contain {contains!r}" if contains else ""))


def parse_env(text):
    env = {}
    for line in text.splitlines():
        k, sep, v = line.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
            env[k] = v
    return env


def cluster_dir(tmp_path_factory, name):
    d = tmp_path_factory.mktemp(name)
    open_dir(d, 0o755)     # ordinary users read slurm.conf and reach the socket
    return d


def cluster_fixture(tmp_path_factory, name, up_args, prepare=None):
    """Generator body shared by the cluster fixtures: up, yield, down + check."""
    c = Cluster(cluster_dir(tmp_path_factory, name), up_args)
    err = None
    try:
        if prepare:
            prepare(c)
        c.up()
        yield c
    except Exception as e:
        err = e
        raise
    except pytest.fail.Exception as e:
        err = e
        raise
    finally:
        problems = c.stop_and_check()
        if problems:
            msg = "\n\n".join(problems)
            if err is not None:
                msg = f"{err}\n\n(and in teardown) {msg}"
            pytest.fail(msg, pytrace=False)


def typed_gpus(c, gpu_type="a100"):
    """A cluster_fixture prepare step: herd up writes slurm.conf with untyped
    GPUs; the nodes' become GPU_TYPE ones."""
    c.up()
    problems = c.stop_and_check()
    assert not problems, "\n".join(problems)
    with open(c.conf) as f:
        text = f.read()
    with open(c.conf, "w") as f:
        f.write(re.sub(r"Gres=gpu:(\d+)", rf"Gres=gpu:{gpu_type}:\1", text))


NVML_STUB_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "nvml_stub",
                             "nvml_stub.c")


def set_gpus(c, utils, mems=None):
    """The NVML stub's readings for c's nodes: GPU i at utils[i] % with mems[i]
    MiB used (default: 1 GiB when busy, none when idle). Atomic: herdd may
    read the file at any moment."""
    mems = mems or [1024 if u else 0 for u in utils]
    tmp = c.values + ".tmp"
    with open(tmp, "w") as f:
        for i, (u, m) in enumerate(zip(utils, mems)):
            f.write(f"{i} {u} {m}\n")
    os.rename(tmp, c.values)


def nvml_cluster(tmp_path_factory, name, up_args, utils, mems=None, prepare=None):
    """Generator body of a cluster fixture whose nodes find GPUs through the
    NVML stub (tests/nvml_stub), built here; their readings start as
    set_gpus(utils, mems) says. The environment is put back at the end."""
    keys = ("HERD_NVML_LIBRARY", "HERD_NVML_STUB_VALUES")
    saved = {k: os.environ.get(k) for k in keys}

    def prep(c):
        stub = os.path.join(c.dir, "libnvidia-ml-stub.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", stub, NVML_STUB_SRC], check=True)
        c.values = os.path.join(c.dir, "gpu-values")
        set_gpus(c, utils, mems)
        os.environ["HERD_NVML_LIBRARY"] = stub
        os.environ["HERD_NVML_STUB_VALUES"] = c.values
        if prepare:
            prepare(c)
    try:
        yield from cluster_fixture(tmp_path_factory, name, up_args, prepare=prep)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
