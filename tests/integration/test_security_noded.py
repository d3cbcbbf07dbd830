"""The node agent against a hostile local user (issue #16): root scripts get
an environment of Herd's own (item 1), no process of a job outlives its
supervisor's kill -9 (item 6), and the node's spool and logs are closed to
other users (item 2).

One cluster of its own, with a Prolog and an Epilog that dump their
environment where only root may read it."""

import glob
import json
import os
import pwd
import signal
import subprocess

import pytest

from helpers import cluster_fixture, open_dir, parse_env, pid_alive, read, run, wait_file, wait_for

NODE = "node1"
UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "KillWait=2"]

# Absolute paths: a root script has no PATH a user could choose.
DUMP = """#!/bin/bash
umask 077
/usr/bin/env > "{d}/envdump/$SLURM_SCRIPT_CONTEXT.$SLURM_JOB_ID"
exit 0
"""

PRELOAD_C = r"""
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
    FILE *f = fopen("%s", "a");
    if (f) {
        fprintf(f, "%%d\n", (int)getuid());
        fclose(f);
    }
}
"""


def prepare(c):
    d = c.dir
    dump = os.path.join(d, "envdump")
    os.makedirs(dump, mode=0o700)
    for name in ("prolog.sh", "epilog.sh"):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(DUMP.format(d=d))
        os.chmod(p, 0o755)
    c.up_args += ["--set", f"Prolog={d}/prolog.sh", "--set", f"Epilog={d}/epilog.sh"]


@pytest.fixture(scope="module")
def sc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "secnoded", UP, prepare=prepare)


@pytest.fixture
def wd(tmp_path):
    open_dir(tmp_path)
    return str(tmp_path)


def root_env(c, context, job):
    path = os.path.join(c.dir, "envdump", f"{context}.{job}")
    return parse_env(wait_file(path, timeout=30))


def uids_in(path):
    """The uids a marker file says ran the hostile code."""
    if not os.path.exists(path):
        return set()
    return {line.strip() for line in read(path).splitlines() if line.strip()}


# 1. Prolog and Epilog get an environment of Herd's own -----------------------
def test_bash_env_never_runs_as_root(sc, wd):
    marker = os.path.join(wd, "bashenv.marker")
    evil = os.path.join(wd, "evil.sh")
    with open(evil, "w") as f:
        f.write(f'echo "$(/usr/bin/id -u)" >> {marker}\n')
    os.chmod(evil, 0o755)
    open(marker, "w").close()
    os.chmod(marker, 0o666)
    hostile = (f"ALL,BASH_ENV={evil},PATH=/tmp/evilpath:/usr/bin:/bin,HOME=/tmp/evilhome,"
               "SLURM_UID=0,SLURM_JOB_UID=0,SLURM_JOB_USER=root,SLURM_JOB_ACCOUNT=evilacct,"
               "SLURM_JOB_ID=1,SLURM_CONF=/tmp/evil.conf,CUDA_VISIBLE_DEVICES=3,"
               "SLURMD_NODENAME=evilnode,IFS=x")
    job = sc.sbatch([f"--export={hostile}"], cwd=wd, user="herdtest1",
                    script="#!/bin/sh\ntrue\n")
    sc.wait_state(job, "COMPLETED", timeout=30)
    root_env(sc, "epilog_slurmd", job)          # the epilog has run
    assert "0" not in uids_in(marker), "the user's BASH_ENV ran as root"
    for context in ("prolog_slurmd", "epilog_slurmd"):
        env = root_env(sc, context, job)
        assert env.get("SLURM_SCRIPT_CONTEXT") == context
        assert env.get("SLURM_JOB_ID") == str(job)
        assert env.get("SLURM_JOB_USER") == "herdtest1"
        assert env.get("SLURM_JOB_UID") == str(pwd.getpwnam("herdtest1").pw_uid)
        assert env.get("SLURMD_NODENAME") == NODE
        assert env.get("SLURM_CONF") == sc.conf
        for k in ("BASH_ENV", "SLURM_UID", "HOME", "CUDA_VISIBLE_DEVICES", "IFS"):
            assert k not in env, f"{context} got the user's {k}={env.get(k)!r}"
        assert "evil" not in env.get("PATH", ""), env.get("PATH")
        assert env.get("SLURM_JOB_ACCOUNT") != "evilacct"
        # the user chooses none of it: every variable is one Herd sets
        assert all(k.startswith("SLURM") or k in ("PATH", "GPU_DEVICE_ORDINAL", "PWD", "SHLVL", "_")
                   for k in env), sorted(env)


def test_ld_preload_never_runs_as_root(sc, wd):
    marker = os.path.join(wd, "preload.marker")
    src, so = os.path.join(wd, "pre.c"), os.path.join(wd, "pre.so")
    with open(src, "w") as f:
        f.write(PRELOAD_C % marker)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", so, src], check=True)
    os.chmod(so, 0o755)
    open(marker, "w").close()
    os.chmod(marker, 0o666)
    job = sc.sbatch([f"--export=ALL,LD_PRELOAD={so}"], cwd=wd, user="herdtest1",
                    script="#!/bin/sh\n/bin/true\n")
    sc.wait_state(job, "COMPLETED", timeout=30)
    root_env(sc, "epilog_slurmd", job)          # the epilog has run
    uids = uids_in(marker)
    assert uids, "the preload library never ran, not even in the job: the test proves nothing"
    assert "0" not in uids, "the user's LD_PRELOAD ran as root"
    for context in ("prolog_slurmd", "epilog_slurmd"):
        assert "LD_PRELOAD" not in root_env(sc, context, job)


def test_root_script_gpus_from_allocation(sc, wd):
    job = sc.sbatch(["--gres=gpu:1", "--export=ALL,CUDA_VISIBLE_DEVICES=3"], cwd=wd,
                    user="herdtest1", script="#!/bin/sh\ntrue\n")
    sc.wait_state(job, "COMPLETED", timeout=30)
    env = root_env(sc, "prolog_slurmd", job)
    assert env.get("SLURM_JOB_GPUS") in ("0", "1"), env
    assert env.get("CUDA_VISIBLE_DEVICES") == env.get("SLURM_JOB_GPUS"), env


# 6. no process of a job outlives its supervisor ------------------------------
def cgroup_dirs(job):
    return glob.glob(f"/sys/fs/cgroup/*/herd/*/job_{job}") + glob.glob(
        f"/sys/fs/cgroup/herd/*/job_{job}")


def test_supervisor_kill9_kills_job_and_cgroup(sc, wd):
    if "ProctrackType=proctrack/cgroup" not in sc.conf_text():
        pytest.skip("herd up found no usable cgroups on this machine")
    gc, shell = os.path.join(wd, "gc.pid"), os.path.join(wd, "shell.pid")
    job = sc.sbatch([], cwd=wd, user="herdtest1", script=f"""#!/bin/sh
echo $$ > {shell}
setsid sh -c 'echo $$ > {gc}; exec sleep 1493' &
exec sleep 1494
""")
    sc.wait_state(job, "RUNNING")
    child = int(wait_file(gc))
    sh = int(wait_file(shell))
    sup = int(read(f"/proc/{sh}/stat").rsplit(")", 1)[1].split()[1])
    assert "--supervise" in read(f"/proc/{sup}/cmdline").replace("\0", " ")
    # this cluster's: the ones holding the job's shell
    groups = wait_for(lambda: [g for g in cgroup_dirs(job)
                               if str(sh) in read(os.path.join(g, "cgroup.procs")).split()],
                      10, f"job {job}'s cgroup")
    os.kill(sup, signal.SIGKILL)
    sc.wait_state(job, "FAILED", timeout=30)
    wait_for(lambda: not pid_alive(child), 10, f"the setsid child {child} to be killed")
    left = subprocess.run(["pgrep", "-af", "sleep 149[34]"], capture_output=True, text=True)
    assert left.stdout.strip() == "", f"processes of the job left: {left.stdout}"
    wait_for(lambda: not any(os.path.exists(g) for g in groups), 10,
             f"job {job}'s cgroup {groups} to be removed")


# 2. the node's spool and logs are root's ---------------------------------------
PROBE = r"""
import json, os, socket, stat, sys
opened = []
for p in json.load(sys.stdin):
    try:
        st = os.lstat(p)
    except OSError:
        continue
    try:
        if stat.S_ISDIR(st.st_mode):
            os.listdir(p)
        elif stat.S_ISSOCK(st.st_mode):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            s.connect(p)
            s.close()
        else:
            with open(p, "rb") as f:
                f.read(1)
    except PermissionError:
        continue
    except OSError as e:
        opened.append(f"{p}: {e}")
        continue
    opened.append(p)
print(json.dumps(opened))
"""


def node_paths(c):
    spool = os.path.join(c.dir, "spool", NODE)
    paths = [spool]
    for root, dirs, files in os.walk(spool):
        paths += [os.path.join(root, n) for n in dirs + files]
    logs = glob.glob(os.path.join(c.dir, "log", f"herdd-{NODE}*"))
    assert logs, os.listdir(os.path.join(c.dir, "log"))
    return paths + logs


def test_spool_and_logs_closed_to_other_users(sc, wd):
    go = os.path.join(wd, "go")
    job = sc.sbatch(["--export=ALL,HERD_SECRET=hunter2-env"], cwd=wd, user="herdtest1",
                    script=f"#!/bin/sh\n# hunter2-script\nwhile [ ! -e {go} ]; do sleep 0.1; done\n")
    sc.wait_state(job, "RUNNING")
    try:
        jdir = os.path.join(sc.dir, "spool", NODE, f"job{job:05d}")
        wait_for(lambda: os.path.exists(os.path.join(jdir, "supervisor.pid")), 10,
                 "the job's pid files")
        paths = node_paths(sc)
        assert any("hunter2-env" in read(p) for p in paths if os.path.isfile(p)), \
            "no file holds the secret: the test proves nothing"
        cp = run(["/usr/bin/python3", "-c", PROBE], user="herdtest2", input=json.dumps(paths))
        opened = json.loads(cp.stdout)
        assert opened == [], f"herdtest2 could read: {opened}"
    finally:
        open(go, "w").close()
    sc.wait_state(job, "COMPLETED", timeout=30)
