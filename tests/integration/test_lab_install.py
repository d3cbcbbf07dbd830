"""A lab's cluster from the installed tree (issue 23): `make install` into a
scratch root (DESTDIR), and from its binaries only (usr/bin/herd and its
links, usr/sbin/herdctld and herdd, the installed pam_herd_adopt.so) a
controller host and three node hosts, each node in network, UTS and mount
namespaces of its own (`herd up --netns`). The controller opens a copy of
the previous release's state database (data/upgrade-v0.db) and keeps all of
it. Each node's agent is then restarted in its namespaces with only
`--conf-server ADDR:PORT` (and a cache directory): it fetches the
controller's files and takes its NodeName from its host name. On these:
a 2-node `srun` as an ordinary user; pamtester on a node refuses a user
without a job there and admits one with a job, whose process is adopted
into the job's cgroup; `herd doctor` on a node whose munged has another key
reports exactly that. `herd down` stops the configless agents too and
removes the network; nothing may be left."""

import glob
import os
import re
import shutil
import signal
import subprocess

import pytest

import helpers
from helpers import (Cluster, base_env, cluster_dir, conf_value, install_tree, netns_unavailable,
                     network_left, open_dir, pid_alive, read, scrub_network, wait_file,
                     wait_for)
from test_pam_adopt import RECORD, cgroups_usable
from test_upgrade import fixture_kept, plant

NODES = ["node1", "node2", "node3"]
# the previous release's fixture was made on nodes of this shape (test_upgrade's UP)
UP = ["--nodes", str(len(NODES)), "--netns", "--gpus-per-node", "2", "--cpus-per-node", "4",
      "--mem-per-node", "4000", "--set", "KillWait=2",
      "--set", "SlurmctldParameters=enable_configless", "--set", "AuthInfo=cred_expire=5"]
PAMTESTER = shutil.which("pamtester")


def unavailable():
    why = netns_unavailable()
    if why:
        return why
    for tool in ("nsenter", "hostname", "mount"):
        if not shutil.which(tool):
            return f"needs {tool} (util-linux) to enter a node's namespaces"
    return None


WHY = unavailable()
pytestmark = pytest.mark.skipif(WHY is not None, reason=f"a lab in namespaces: {WHY}")


def ctld_addr(c):
    """ADDR:PORT of the controller on the cluster's bridge, as a node
    reaches it (SlurmctldHost=name(ADDR))."""
    host = conf_value(c.conf_text(), "SlurmctldHost")
    m = re.search(r"\(([^)]+)\)", host or "")
    assert m, f"SlurmctldHost={host!r} names no address"
    return f"{m.group(1)}:{c.ctld_port()}"


def munge_socket(c):
    """The socket of the cluster's munged (its own under DIR/munge, or the
    system's when that one answered when herd up wrote slurm.conf)."""
    v = conf_value(c.conf_text(), "AuthInfo") or ""
    m = re.search(r"socket=([^,\s]+)", v)
    assert m, f"AuthInfo={v!r} names no socket"
    return m.group(1)


def munge_key(c):
    sock = munge_socket(c)
    own = os.path.join(c.dir, "munge", "munge.socket")
    return os.path.join(c.dir, "munge", "munge.key") if sock == own else "/etc/munge/munge.key"


def on_node(c, node, argv):
    """argv run as a process of node's host, entered as herd up enters its
    agents (src/up/netns_enter.c): the node's network namespace (its handle
    DIR/netns/NODE.net), UTS and mount namespaces of its own (mounts: slave),
    the node's name as host name, the cluster's hosts file as /etc/hosts."""
    return ["nsenter", f"--net={os.path.join(c.dir, 'netns', node + '.net')}",
            "unshare", "--uts", "--mount", "--propagation", "slave",
            "sh", "-c", 'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"',
            "sh", node, os.path.join(c.dir, "netns", "hosts")] + list(argv)


def node_env(c, munge=None):
    """A node's environment: no SLURM_CONF (what it knows comes from the
    controller), the munged to use."""
    env = base_env()
    env.pop("SLURM_CONF", None)
    env["HERD_MUNGE_SOCKET"] = munge or munge_socket(c)
    return env


def installed(c, name):
    return os.path.join(c.root, "usr/bin" if name != "herdd" else "usr/sbin", name)


def cache_of(c, node):
    return os.path.join(c.dir, f"cache-{node}")


def start_configless(c, node):
    """Stops the agent herd up started for node and starts the installed
    herdd in node's namespaces with only --conf-server and its cache. herdd
    goes to the background once it serves; returns its pid."""
    old = c.herdd_pid(node)
    os.kill(old, signal.SIGTERM)
    wait_for(lambda: not pid_alive(old), 20, f"{node}'s agent from herd up to stop")
    errf = os.path.join(c.dir, f"herdd-{node}.stderr")
    argv = [installed(c, "herdd"), "--conf-server", c.server, "--conf-cache", cache_of(c, node)]
    with open(errf, "w") as err:   # the daemon keeps what it inherits: no pipes
        cp = subprocess.run(on_node(c, node, argv), env=node_env(c), stdin=subprocess.DEVNULL,
                            stdout=err, stderr=err, timeout=60)
    assert cp.returncode == 0, f"configless herdd on {node}: exit {cp.returncode}\n" + read(errf) \
        + c.log_tail()
    pid = c.herdd_pid(node)    # its pid file, written before it said it serves
    assert pid != old, f"{node}: the pid file still names the stopped agent"
    c.agents[node] = (pid, argv)
    return pid


@pytest.fixture(scope="module")
def lab(tmp_path_factory, users):
    root = install_tree(tmp_path_factory, "lab-destdir")
    for f in ("usr/bin/herd", "usr/bin/sbatch", "usr/bin/srun", "usr/sbin/herdctld",
              "usr/sbin/herdd"):
        assert os.access(root / f, os.X_OK), f"{f} not installed"
    c = Cluster(cluster_dir(tmp_path_factory, "lab"), UP)
    c.root = str(root)
    c.agents = {}
    c.pam_services = []
    c.munged2 = None
    problems = []
    saved = helpers.HERD_BIN
    helpers.HERD_BIN = str(root / "usr/bin")   # base_env's PATH: the installed commands only
    try:
        # an ordinary user's commands are the installed ones, not another
        # Slurm's further down PATH
        for cmd in ("srun", "sbatch"):
            cp = helpers.run(["sh", "-c", f"command -v {cmd}"], user="herdtest1", env=base_env())
            assert cp.stdout.strip() == str(root / "usr/bin" / cmd), cp.stdout
        plant(c)    # the previous release's state, opened at the controller's first start
        c.started = True
        cp = helpers.run([installed(c, "herd"), "up", "-D", c.dir] + UP, env=base_env(),
                         check=False, timeout=120)
        assert cp.returncode == 0, helpers.fmt_result(cp) + c.log_tail()
        c.server = ctld_addr(c)
        for node in NODES:
            start_configless(c, node)
        yield c
    finally:
        for p in c.pam_services:
            if os.path.exists(p):
                os.unlink(p)
        stop_munged2(c)
        if c.started:
            # herd down finds the configless agents by the pid files their
            # fetched slurm.conf names, as herd up's own
            cp = c.down()
            running = [n for n, (pid, _) in c.agents.items() if pid_alive(pid)]
            if running:
                problems.append(f"configless agents of {running} still run after herd down:\n"
                                + cp.stderr)
            elif c.agents and f"stopped {len(c.agents)} node agent" not in cp.stderr:
                problems.append("herd down did not say it stopped the node agents:\n" + cp.stderr)
        problems += c.stop_and_check()
        left = network_left(c.dir)
        scrub_network(c.dir)
        if left:
            problems.append(f"network of {c.dir} left after herd down: {left}")
        helpers.HERD_BIN = saved
        if problems:
            pytest.fail("\n\n".join(problems), pytrace=False)


def stop_munged2(c):
    if not c.munged2:
        return
    pidfile = c.munged2
    c.munged2 = None
    try:
        pid = int(read(pidfile).split()[0])
    except (OSError, ValueError, IndexError):
        return
    if "munged" in helpers.cmdline_of(pid):
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not pid_alive(pid), 20, f"the second munged ({pid}) to stop")


def test_previous_release_database_kept(lab):
    """herdctld from the installed tree migrated the fixture at its first
    start; every job, account, QOS, reservation and usage of it is there."""
    fixture_kept(lab, newer_jobs=True)


def test_nodes_are_configless_hosts(lab):
    text = lab.conf_text()
    for node in NODES:
        pid, argv = lab.agents[node]
        assert pid_alive(pid), f"{node}'s agent is gone" + lab.log_tail()
        # only --conf-server (and the cache): no -N, no -f
        assert helpers.cmdline_of(pid).split() == argv
        handle = os.path.join(lab.dir, "netns", f"{node}.net")
        assert os.readlink(f"/proc/{pid}/ns/net") == f"net:[{os.stat(handle).st_ino}]", node
        assert os.readlink(f"/proc/{pid}/ns/uts") != os.readlink("/proc/self/ns/uts"), node
        assert read(os.path.join(cache_of(lab, node), "slurm.conf")) == text, node
        # the name from the host name, the address from the fetched file
        addr = re.search(rf"^NodeName={node} NodeAddr=(\S+)", text, re.M).group(1)
        log = read(os.path.join(lab.dir, "log", f"herdd-{node}.log"))
        assert f"node {node} serving on {addr}:" in log, log[-2000:]


def test_srun_two_nodes_as_a_user(lab, tmp_path):
    open_dir(tmp_path)
    cp = lab.run(["srun", "-N2", "-l", "hostname"], user="herdtest1", cwd=str(tmp_path),
                 timeout=60)
    rows = sorted(l.split(":", 1) for l in cp.stdout.splitlines())
    assert [r for r, _ in rows] == ["0", "1"], cp.stdout + cp.stderr
    names = [n.strip() for _, n in rows]
    assert len(set(names)) == 2 and set(names) <= set(NODES), cp.stdout


def pam_module(c):
    found = glob.glob(os.path.join(c.root, "lib", "*", "security", "pam_herd_adopt.so"))
    if not found:
        pytest.fail(f"make install put no pam_herd_adopt.so under {c.root}/lib/*/security")
    return found[0]


def pam_service(c):
    rec = os.path.join(c.dir, "record.sh")
    with open(rec, "w") as f:
        f.write(RECORD.format(d=c.dir))
    os.chmod(rec, 0o755)
    name = f"herd-lab-test-{os.getpid()}-{len(c.pam_services)}"
    path = f"/etc/pam.d/{name}"
    c.pam_services.append(path)
    with open(path, "w") as f:
        f.write(f"account required {pam_module(c)} service={name} log_level=debug\n"
                f"account optional pam_exec.so quiet {rec}\n"
                "account required pam_permit.so\n")
    return name


def pamtester(c, node, service, user):
    """pamtester's account phase as on node (the module knows the node by
    its host name, and reads the node's fetched slurm.conf)."""
    env = node_env(c)
    env["SLURM_CONF"] = os.path.join(cache_of(c, node), "slurm.conf")
    return subprocess.run(on_node(c, node, [PAMTESTER, "-v", service, user, "acct_mgmt"]),
                          env=env, capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(not PAMTESTER, reason="pamtester is not installed (apt-get install pamtester)")
def test_pam_refuses_without_job_admits_and_adopts_with_one(lab, tmp_path):
    node = "node3"
    service = pam_service(lab)
    cp = pamtester(lab, node, service, "herdtest2")
    out = cp.stdout + cp.stderr
    assert cp.returncode != 0, out
    assert "Access denied by pam_herd_adopt: you have no active jobs on this node" in out, out
    if not cgroups_usable():
        pytest.skip("this machine has no usable cgroup controller: no job cgroup to adopt into")
    open_dir(tmp_path)
    out = os.path.join(str(tmp_path), "job.out")
    job = lab.sbatch(["-w", node, "-t", "5", "-o", out], user="herdtest1",
                     cwd=str(tmp_path), script="#!/bin/sh\necho started\nexec sleep 300\n")
    try:
        lab.wait_state(job, "RUNNING", timeout=30)
        # RUNNING is the controller's word: the node has the job once its script runs
        wait_file(out, timeout=30, contains="started")
        rec, left = (os.path.join(lab.dir, f"{k}-herdtest1") for k in ("cgroup", "left"))
        cp = pamtester(lab, node, service, "herdtest1")
        assert cp.returncode == 0, cp.stdout + cp.stderr
        assert "account management done" in cp.stdout + cp.stderr
        cg = read(rec)
        assert f"/job_{job}" in cg, f"pam_exec's child ran in {cg!r}, not job {job}'s cgroup"
        pid = int(wait_for(lambda: read(left).strip() if os.path.exists(left) else None, 10,
                           "the left-behind process's pid"))
        assert pid_alive(pid)
    finally:
        lab.run(["scancel", str(job)], check=False)
    lab.wait_state(job, "CANCELLED", timeout=30)
    # the adopted process counted as the job's: its end killed it
    wait_for(lambda: not pid_alive(pid), 20, f"adopted pid {pid} killed with job {job}")


def start_munged2(c):
    """A munged on node's side whose key is not the cluster's: its socket."""
    d = os.path.join(c.dir, "munge2")
    os.makedirs(d, mode=0o755, exist_ok=True)
    key = os.path.join(d, "munge.key")
    with open(key, "wb") as f:
        f.write(os.urandom(1024))
    os.chmod(key, 0o400)
    sock, pidfile = os.path.join(d, "munge.socket"), os.path.join(d, "munged.pid")
    argv = [shutil.which("munged") or "/usr/sbin/munged", f"--socket={sock}", f"--key-file={key}",
            f"--pid-file={pidfile}", f"--log-file={d}/munged.log", f"--seed-file={d}/munged.seed"]
    c.munged2 = pidfile
    # as herd up's munged: --force only when munged refuses the setup
    for extra in ([], ["--force"]):
        cp = subprocess.run(argv + extra, capture_output=True, text=True, timeout=30)
        if cp.returncode == 0:
            break
    assert cp.returncode == 0, cp.stderr
    wait_for(lambda: subprocess.run(["munge", "-n", "-S", sock], capture_output=True,
                                    timeout=10).returncode == 0, 20, "the second munged to answer")
    return sock, key


def node_key(c, key, name):
    """A copy of key as a node keeps it (munge:munge, 0400): herd up's
    munged and the second one read theirs as root, which doctor would
    rightly call wrong on a node."""
    d = os.path.join(c.dir, "node-keys")
    os.makedirs(d, mode=0o755, exist_ok=True)
    path = os.path.join(d, name)
    shutil.copyfile(key, path)
    os.chmod(path, 0o400)
    try:
        shutil.chown(path, "munge", "munge")
    except (LookupError, PermissionError):
        pass     # no munge user: doctor says so in both runs alike
    return path


def doctor(c, node, munge, key):
    """herd doctor from the installed tree as on node; its verdict lines
    (the last line sums them up) and the FAIL ones."""
    cp = subprocess.run(on_node(c, node, [installed(c, "herd"), "doctor", "--conf-server",
                                          c.server, "--munge-key", key, "--role", "node"]),
                        env=node_env(c, munge), capture_output=True, text=True, timeout=90)
    lines = cp.stdout.splitlines()
    bad = [l for l in lines[:-1] if not re.match(r"(ok|warn|FAIL)\b", l)]
    assert not bad, "lines of herd doctor that start with none of ok, warn, FAIL:\n" + cp.stdout
    assert lines and lines[-1].startswith("herd doctor: "), cp.stdout + cp.stderr
    return cp, [l for l in lines if l.startswith("FAIL")]


def test_doctor_names_a_munge_key_that_differs(lab):
    node = "node2"
    cp, good_fails = doctor(lab, node, munge_socket(lab), node_key(lab, munge_key(lab), "ours"))
    assert not [l for l in good_fails if "MUNGE" in l.upper()], cp.stdout + cp.stderr
    assert cp.returncode == (1 if good_fails else 0), cp.stdout + cp.stderr
    try:
        sock, key = start_munged2(lab)
        cp, fails = doctor(lab, node, sock, node_key(lab, key, "other"))
    finally:
        stop_munged2(lab)
    assert cp.returncode == 1, cp.stdout + cp.stderr
    # exactly that: the one failure more is the key's
    more = [l for l in fails if l not in good_fails]
    assert len(more) == 1 and "MUNGE key differs from the controller's" in more[0], \
        f"FAIL lines with the cluster's key:\n{good_fails}\nwith another key:\n{cp.stdout}"
