"""The node agent for real (issue #4): supervisors that outlive herdd, every
process of a job ended, cgroup limits (memory, cores, devices), GPUs found
by NVML (a stub library here), --signal, job files, prolog/epilog, usage.

One cluster of its own: the local node as `herd up` describes it, with the
NVML stub standing in for the driver, 4 fake GPU device files made with
mknod (major 195) named by gres.conf, and a prolog and an epilog."""

import os
import pwd
import signal
import socket
import subprocess
import time

import pytest

from helpers import cluster_fixture, open_dir, pid_alive, read, wait_file, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))
STUB_SRC = os.path.join(HERE, "..", "nvml_stub", "nvml_stub.c")
NODE = socket.gethostname().split(".")[0]

PROLOG = """#!/bin/sh
echo "prolog $SLURM_JOB_ID $SLURM_JOB_USER $SLURM_SCRIPT_CONTEXT $(id -u)" >> {d}/prolog.log
[ "$SLURM_JOB_NAME" = badprolog ] && exit 3
exit 0
"""
EPILOG = """#!/bin/sh
echo "epilog $SLURM_JOB_ID" >> {d}/epilog.log
"""


def cgroups_usable():
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return os.access("/sys/fs/cgroup", os.W_OK)
    return all(os.access(f"/sys/fs/cgroup/{c}/cgroup.procs", os.W_OK)
               for c in ("freezer", "memory"))


def cgroup_v1(ctrl):
    return os.access(f"/sys/fs/cgroup/{ctrl}/cgroup.procs", os.W_OK)


def need_cgroups():
    if not cgroups_usable():
        pytest.skip("this machine has no usable cgroup controller (needs v2, or v1 "
                    "freezer+memory writable under /sys/fs/cgroup)")


def prepare(c):
    d = c.dir
    stub = os.path.join(d, "libnvidia-ml-stub.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", stub, STUB_SRC], check=True)
    os.makedirs(os.path.join(d, "dev"))
    for i in range(4):
        os.mknod(os.path.join(d, "dev", f"nvidia{i}"), 0o666 | 0o020000, os.makedev(195, i))
    with open(os.path.join(d, "gres.conf"), "w") as f:
        f.write(f"Name=gpu Type=tesla_t4 File={d}/dev/nvidia[0-3]\n")
    for name, text in (("prolog.sh", PROLOG), ("epilog.sh", EPILOG)):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text.format(d=d))
        os.chmod(p, 0o755)
    os.environ["HERD_NVML_LIBRARY"] = stub
    c.up_args += ["--set", "KillWait=2", "--set", f"Prolog={d}/prolog.sh",
                  "--set", f"Epilog={d}/epilog.sh"]


@pytest.fixture(scope="module")
def nc(tmp_path_factory, users):
    saved = os.environ.get("HERD_NVML_LIBRARY")
    gen = cluster_fixture(tmp_path_factory, "noded", [], prepare=prepare)
    try:
        yield next(gen)
    finally:
        if saved is None:
            os.environ.pop("HERD_NVML_LIBRARY", None)
        else:
            os.environ["HERD_NVML_LIBRARY"] = saved
        for _ in gen:
            pass


@pytest.fixture
def wd(tmp_path):
    open_dir(tmp_path)
    return str(tmp_path)


def herdd_log(c):
    return read(os.path.join(c.dir, "log", f"herdd-{NODE}.log"))


def out_of(wd, job):
    return wait_file(os.path.join(wd, f"slurm-{job}.out"))


# 1. supervisors outlive herdd ---------------------------------------------
def test_herdd_kill9_restart_keeps_jobs(nc, wd):
    go, done = os.path.join(wd, "go"), os.path.join(wd, "done")
    job = nc.sbatch([], cwd=wd, script=f"""#!/bin/sh
echo $$ > {wd}/pid
while [ ! -e {go} ]; do sleep 0.1; done
echo done > {done}
""")
    nc.wait_state(job, "RUNNING")
    jpid = int(wait_file(os.path.join(wd, "pid")))
    os.kill(nc.herdd_pid(NODE), signal.SIGKILL)
    time.sleep(1)
    assert pid_alive(jpid), "the job died with herdd"
    open(go, "w").close()
    wait_file(done)                  # the job ends while no herdd runs
    wait_for(lambda: not pid_alive(jpid), 10, "the job's shell to exit")
    nc.up()                          # starts only what is not running: herdd
    nc.wait_state(job, "COMPLETED", timeout=30)
    assert nc.api_job(job).get("usage", {}).get("elapsed_s") is not None


# 2. every process of a job is ended ----------------------------------------
def test_cancel_kills_setsid_grandchild(nc, wd):
    gc = os.path.join(wd, "gc.pid")
    job = nc.sbatch([], cwd=wd, script=f"""#!/bin/sh
setsid sh -c 'echo $$ > {gc}; exec sleep 317' &
( sleep 318 & ) &
sleep 317
""")
    nc.wait_state(job, "RUNNING")
    pid = int(wait_file(gc))
    assert pid_alive(pid)
    nc.run(["scancel", str(job)])
    nc.wait_state(job, "CANCELLED")
    wait_for(lambda: not pid_alive(pid), 10, f"setsid grandchild {pid} to be killed")
    # durations no other test uses: other tests' "sleep 300" jobs may still be ending
    left = subprocess.run(["pgrep", "-af", "sleep 31[78]"], capture_output=True, text=True)
    assert left.stdout.strip() == "", f"processes left: {left.stdout}"


def test_batch_end_kills_daemonized_child(nc, wd):
    gc = os.path.join(wd, "gc.pid")
    job = nc.sbatch([], cwd=wd, script=f"""#!/bin/sh
setsid sh -c 'echo $$ > {gc}; exec sleep 299' &
sleep 0.5
""")
    nc.wait_state(job, "COMPLETED")
    pid = int(wait_file(gc))
    wait_for(lambda: not pid_alive(pid), 10, "the detached child to be killed at the end")


# 3. cgroup limits ------------------------------------------------------------
def test_cgroup_conf_written(nc):
    need_cgroups()
    text = nc.conf_text()
    assert "TaskPlugin=task/cgroup" in text and "ProctrackType=proctrack/cgroup" in text
    cg = read(os.path.join(nc.dir, "cgroup.conf"))
    for k in ("ConstrainRAMSpace=yes", "ConstrainCores=yes", "ConstrainDevices=yes"):
        assert k in cg


def test_mem_limit_out_of_memory(nc, wd):
    need_cgroups()
    job = nc.sbatch(["--mem=64M"], cwd=wd, script="""#!/bin/sh
python3 -c 'x = bytearray(300 * 1024 * 1024); print(len(x))'
echo after
""")
    nc.wait_state(job, "OUT_OF_MEMORY", timeout=30)
    j = nc.api_job(job)
    assert (j["exit_code"], j["exit_signal"]) == (0, 125), j
    assert 0 < j["usage"]["max_rss_kb"] <= 64 * 1024 + 1024, j["usage"]


def test_mem_per_cpu_within_limit_completes(nc, wd):
    need_cgroups()
    job = nc.sbatch(["--mem-per-cpu=200M"], cwd=wd, script="""#!/bin/sh
python3 -c 'x = bytearray(50 * 1024 * 1024); print(len(x))'
""")
    nc.wait_state(job, "COMPLETED", timeout=30)


def allowed_cpus(text):
    line = [l for l in text.splitlines() if l.startswith("Cpus_allowed_list")][0]
    n = 0
    for part in line.split(":")[1].strip().split(","):
        a, _, b = part.partition("-")
        n += int(b or a) - int(a) + 1
    return n


def test_cpus_constrained(nc, wd):
    need_cgroups()
    if not cgroup_v1("cpuset") and not os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        pytest.skip("no cpuset controller")
    script = "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n"
    one = nc.sbatch(["-c", "1"], cwd=wd, script=script)
    nc.wait_state(one, "COMPLETED")
    assert allowed_cpus(out_of(wd, one)) == 1
    if os.cpu_count() >= 2:
        two = nc.sbatch(["-c", "2"], cwd=wd, script=script)
        nc.wait_state(two, "COMPLETED")
        assert allowed_cpus(out_of(wd, two)) == 2


def test_devices_only_allocated_gpus(nc, wd):
    need_cgroups()
    if not cgroup_v1("devices"):
        pytest.skip("device constraints need cgroup v1's devices controller")
    job = nc.sbatch(["--gres=gpu:1"], cwd=wd, script=f"""#!/usr/bin/python3
import errno, os
print("CUDA", os.environ.get("CUDA_VISIBLE_DEVICES"))
for i in range(4):
    try:
        os.close(os.open("{nc.dir}/dev/nvidia%d" % i, os.O_RDONLY))
        print(i, "OPEN")
    except OSError as e:
        print(i, errno.errorcode[e.errno])
""")
    nc.wait_state(job, "COMPLETED")
    lines = dict(l.split(None, 1) for l in out_of(wd, job).splitlines())
    gpu = lines["CUDA"]
    assert gpu in ("0", "1", "2", "3"), lines
    for i in range(4):
        # no driver behind the files: an allowed open gets ENXIO, a denied one EPERM
        want = "ENXIO" if str(i) == gpu else "EPERM"
        assert lines[str(i)] == want, (i, lines)


# 4. GPUs found by NVML -------------------------------------------------------
def test_nvml_stub_gpus(nc, wd):
    assert "Gres=gpu:tesla_t4:4" in nc.conf_text()
    job = nc.sbatch(["--gres=gpu:tesla_t4:2"], cwd=wd,
                    script="#!/bin/sh\necho $CUDA_VISIBLE_DEVICES $GPU_DEVICE_ORDINAL\n")
    nc.wait_state(job, "COMPLETED")
    cuda, ordinal = out_of(wd, job).split()
    assert cuda == ordinal and len(cuda.split(",")) == 2
    assert "uuid=GPU-00000000-0000-0000-0000-000000000003" in herdd_log(nc)


# 5. signals ------------------------------------------------------------------
def test_signal_before_time_limit_to_batch_shell(nc, wd):
    got, child = os.path.join(wd, "got"), os.path.join(wd, "child")
    job = nc.sbatch(["-t", "1", "--signal=B:USR1@52"], cwd=wd, script=f"""#!/bin/bash
start=$(date +%s)
python3 -c 'import signal, time
signal.signal(signal.SIGUSR1, lambda *a: open("{child}", "w").write("x"))
time.sleep(120)' &
trap 'echo $(( $(date +%s) - start )) > {got}; sleep 1; exit 0' USR1
while :; do sleep 0.2; done
""")
    nc.wait_state(job, "RUNNING")
    secs = int(wait_file(got, timeout=30))
    assert 4 <= secs <= 16, secs
    nc.wait_state(job, "COMPLETED", timeout=15)
    assert not os.path.exists(child), "B: must signal the batch shell only"


def test_scancel_batch_signals_only_the_shell(nc, wd):
    shell, child, ready = (os.path.join(wd, n) for n in ("b-shell", "b-child", "b-ready"))
    job = nc.sbatch([], cwd=wd, script=f"""#!/bin/bash
python3 -c 'import signal, time
signal.signal(signal.SIGUSR1, lambda *a: open("{child}", "w").write("x"))
open("{ready}", "w").write("1")
time.sleep(60)' &
trap 'echo shell > {shell}' USR1
while :; do sleep 0.2; done
""")
    nc.wait_state(job, "RUNNING")
    wait_file(ready)
    nc.run(["scancel", "-b", "--signal=USR1", str(job)])
    assert wait_file(shell, timeout=15, contains="shell").strip() == "shell"
    time.sleep(1)
    assert not os.path.exists(child), "scancel -b must signal the batch shell only"
    nc.run(["scancel", str(job)])
    nc.wait_state(job, "CANCELLED")


def test_scancel_signal_reaches_every_process(nc, wd):
    gc = os.path.join(wd, "gc")
    ready = os.path.join(wd, "ready")
    job = nc.sbatch([], cwd=wd, script=f"""#!/bin/sh
setsid python3 -c 'import signal, time
signal.signal(signal.SIGUSR2, lambda *a: open("{gc}", "w").write("usr2"))
open("{ready}", "w").write("1")
time.sleep(60)' &
trap '' USR2
sleep 60
""")
    nc.wait_state(job, "RUNNING")
    wait_file(ready)
    nc.run(["scancel", "-f", "--signal=USR2", str(job)])   # -f: every process of the job
    assert wait_file(gc, timeout=15) == "usr2"
    nc.run(["scancel", str(job)])
    nc.wait_state(job, "CANCELLED")


# 6. job files, identity, prolog/epilog -------------------------------------
def test_output_owned_by_user_and_umask(nc, wd, users):
    user = users[0]
    pw = pwd.getpwnam(user)
    path = os.path.join(wd, f"{int(time.time() * 1e6)}.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\nid -u\ntouch made\n")
    os.chmod(path, 0o755)
    cp = nc.run(["sh", "-c", f"umask 027; exec sbatch --parsable {path}"], user=user, cwd=wd)
    job = int(cp.stdout.strip())
    nc.wait_state(job, "COMPLETED")
    out = os.path.join(wd, f"slurm-{job}.out")
    assert out_of(wd, job).strip() == str(pw.pw_uid)
    assert os.stat(out).st_uid == pw.pw_uid
    made = os.stat(os.path.join(wd, "made"))
    assert made.st_uid == pw.pw_uid and made.st_mode & 0o777 == 0o640


def test_user_cannot_write_where_not_allowed(nc, wd, users):
    closed = os.path.join(wd, "closed")
    os.mkdir(closed, 0o755)          # root's, not writable by the user
    job = nc.sbatch(["-o", f"{closed}/out.txt"], cwd=wd, user=users[0],
                    script="#!/bin/sh\necho hi\n")
    nc.wait_state(job, "FAILED")
    assert not os.path.exists(os.path.join(closed, "out.txt"))


def test_open_mode_append_and_input(nc, wd):
    out = os.path.join(wd, "app.out")
    with open(out, "w") as f:
        f.write("before\n")
    inp = os.path.join(wd, "in.txt")
    with open(inp, "w") as f:
        f.write("from-stdin\n")
    job = nc.sbatch(["--open-mode=append", "-o", out, "-i", inp], cwd=wd,
                    script="#!/bin/sh\ncat\n")
    nc.wait_state(job, "COMPLETED")
    assert read(out) == "before\nfrom-stdin\n"
    job = nc.sbatch(["-o", out], cwd=wd, script="#!/bin/sh\necho new\n")
    nc.wait_state(job, "COMPLETED")
    assert read(out) == "new\n"


def test_prolog_epilog(nc, wd, users):
    job = nc.sbatch([], cwd=wd, user=users[0], script="#!/bin/sh\ntrue\n")
    nc.wait_state(job, "COMPLETED")
    log = read(os.path.join(nc.dir, "prolog.log"))
    assert f"prolog {job} {users[0]} prolog_slurmd 0" in log
    wait_file(os.path.join(nc.dir, "epilog.log"), contains=f"epilog {job}\n")


# 7. usage --------------------------------------------------------------------
def test_usage_recorded(nc, wd):
    job = nc.sbatch(["--gres=gpu:2"], cwd=wd, script="""#!/bin/sh
python3 -c '
import time
x = bytearray(40 * 1024 * 1024)
t = time.process_time()
while time.process_time() - t < 0.5: pass'
sleep 1
""")
    nc.wait_state(job, "COMPLETED", timeout=30)
    u = nc.api_job(job)["usage"]
    assert u["elapsed_s"] >= 1, u
    assert u["total_cpu_ms"] >= 400, u
    assert u["max_rss_kb"] >= 40 * 1024, u
    assert u["gpus"] == 2 and u["gpu_seconds"] == 2 * u["elapsed_s"], u
    assert (u["exit_code"], u["exit_signal"]) == (0, 0)


def test_resource_limits_propagated(nc, wd):
    out = os.path.join(wd, "limits.out")
    script = "#!/bin/sh\nulimit -n; ulimit -c\n"
    path = os.path.join(wd, "lim.sh")
    with open(path, "w") as f:
        f.write(script)
    cp = nc.run(["sh", "-c", f"ulimit -n 777; ulimit -c 0; sbatch --parsable -o {out} {path}"],
                cwd=wd)
    job = int(cp.stdout.strip())
    nc.wait_state(job, "COMPLETED")
    assert read(out).split() == ["777", "0"]


# Last in this file: it drains the cluster's only node.
def test_zz_failed_prolog_drains_node_and_requeues_held(nc, wd):
    marker = os.path.join(wd, "ran")
    bad = nc.sbatch(["-J", "badprolog"], cwd=wd, script=f"#!/bin/sh\ntouch {marker}\n")
    wait_for(lambda: nc.field(bad, "%T %r") == "PENDING JobHeldAdmin", 30,
             "the job requeued and held after its prolog failed")
    assert not os.path.exists(marker), "the job ran although its prolog failed"
    assert f"job {bad}: prolog" in herdd_log(nc)
    assert "drain" in nc.run(["sinfo", "-h", "-o", "%T"]).stdout
    assert "Prolog error" in nc.run(["sinfo", "-h", "-N", "-o", "%E"]).stdout

