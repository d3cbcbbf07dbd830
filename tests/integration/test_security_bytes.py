"""Bytes a hostile (or merely non-UTF-8) user gives, and the commands' own
faults: a script, environment, name, comment, path or argument that is not
UTF-8 reaches the job byte-exact and shows as given; control characters do
not split parsable rows; an oversized script is refused in Slurm's words
and never kills sbatch with SIGPIPE; `sdiag -r` by a user exits 1; a
command waits out a controller restart, bounded by MessageTimeout."""

import os
import signal
import subprocess
import threading
import time

import pytest

from helpers import base_env, cluster_fixture, pid_alive, wait_for
import helpers

TOO_LONG = "Pathname of a file, directory or other parameter too long"


# A cluster of this file's own: the jobs here have names no other test's
# squeue output could decode as text, and the last tests kill its controller.
UP = ["--nodes", "1", "--gpus-per-node", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
      "--set", "MessageTimeout=3"]


@pytest.fixture(scope="module")
def bcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "bytes", UP)


def run_bytes(c, args, user=None, env_extra=None, cwd=None, timeout=60):
    """A command whose arguments and output are bytes (no decoding)."""
    env = {os.fsencode(k): os.fsencode(v) for k, v in base_env(c.conf).items()}
    env[b"PATH"] = os.fsencode(helpers.HERD_BIN) + b":" + env.get(b"PATH", b"/usr/bin:/bin")
    preexec = None
    if user:
        import pwd
        pw = pwd.getpwnam(user)
        env.update({b"HOME": os.fsencode(pw.pw_dir), b"USER": user.encode(),
                    b"LOGNAME": user.encode()})
        preexec = helpers.as_user(user)
    env.update(env_extra or {})
    return subprocess.run(args, capture_output=True, env=env, cwd=cwd, timeout=timeout,
                          preexec_fn=preexec)


def write_script(workdir, name, body):
    path = os.path.join(workdir, f"{int(time.time() * 1e6)}-{name}")
    with open(path, "wb") as f:
        f.write(body)
    os.chmod(path, 0o755)
    return path


def submit_bytes(c, args, workdir, user="herdtest1", env_extra=None):
    cp = run_bytes(c, [b"sbatch", b"--parsable"] + args, user=user, env_extra=env_extra,
                   cwd=workdir)
    assert cp.returncode == 0, cp.stderr
    return int(cp.stdout.split(b";")[0])


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


# --- item 9: bytes that are not UTF-8 ---------------------------------------

def test_latin1_script_runs(bcluster, workdir):
    script = write_script(workdir, "latin1.sh", b"#!/bin/sh\n# caf\xe9\necho 'caf\xe9 ok'\n")
    job = submit_bytes(bcluster, [os.fsencode(script)], workdir)
    bcluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(workdir, f"slurm-{job}.out")) == b"caf\xe9 ok\n"


def test_environment_value_byte_exact(bcluster, workdir):
    out = os.path.join(workdir, "env.bin")
    script = write_script(workdir, "env.sh",
                          f"#!/bin/sh\nprintf '%s' \"$HOSTILE\" > {out}\n".encode())
    value = b"\xff\xfe-caf\xe9-\xee\xbf\xbf-end"   # the last is a real U+EFFF
    job = submit_bytes(bcluster, [os.fsencode(script)], workdir,
                       env_extra={b"HOSTILE": value})
    bcluster.wait_state(job, "COMPLETED")
    assert read_bytes(out) == value


def test_name_and_comment_kept(bcluster, workdir):
    script = write_script(workdir, "named.sh", b"#!/bin/sh\nsleep 30\n")
    job = submit_bytes(bcluster, [b"-J", b"n\xffx", b"--comment", b"c\xe9 note", b"--hold",
                                 b"--wckey", b"w\xff", b"-e", b"err-\xe9", os.fsencode(script)],
                       workdir)
    cp = run_bytes(bcluster, [b"squeue", b"-h", b"-j", str(job).encode(), b"-o", b"%j|%k|%w"])
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == b"n\xffx|c\xe9 note|w\xff\n"
    cp = run_bytes(bcluster, [b"scontrol", b"show", b"job", str(job).encode()])
    for shown in (b"JobName=n\xffx", b"Comment=c\xe9 note", b"WCKey=w\xff",
                  b"StdErr=" + os.fsencode(workdir) + b"/err-\xe9"):
        assert shown in cp.stdout, (shown, cp.stdout)
    # squeue -n and scancel -n find it by the same bytes
    cp = run_bytes(bcluster, [b"squeue", b"-h", b"-n", b"n\xffx", b"-o", b"%i"])
    assert cp.stdout.split() == [str(job).encode()]
    cp = run_bytes(bcluster, [b"scancel", b"-n", b"n\xffx"], user="herdtest1")
    assert cp.returncode == 0, cp.stderr
    bcluster.wait_state(job, "CANCELLED")
    cp = run_bytes(bcluster, [b"sacct", b"-n", b"-X", b"-P", b"-j", str(job).encode(), b"-o",
                             b"JobName,Comment"])
    assert cp.stdout == b"n\xffx|c\xe9 note\n", cp.stdout


def test_paths_and_arguments_bytes(bcluster, workdir):
    """work dir, output path, script arguments and --wrap keep their bytes."""
    wd = os.path.join(os.fsencode(workdir), b"d\xe9")
    os.mkdir(wd)
    os.chmod(wd, 0o777)
    script = write_script(workdir, "args.sh", b"#!/bin/sh\nprintf '%s|' \"$@\" \"$PWD\"\n")
    job = submit_bytes(bcluster, [b"-D", wd, b"-o", b"out-\xff.txt", os.fsencode(script),
                                 b"a\xff", b"b"], workdir)
    bcluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(wd, b"out-\xff.txt")) == b"a\xff|b|" + wd + b"|"
    job = submit_bytes(bcluster, [b"--wrap", b"echo w\xe9", b"-o", b"wrap.out"], workdir)
    bcluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(workdir, "wrap.out")) == b"w\xe9\n"


def test_srun_argv_env_and_name_bytes(bcluster, workdir):
    cp = run_bytes(bcluster, [b"srun", b"-N1", b"-J", b"s\xff", b"sh", b"-c",
                             b"printf '%s|%s' \"$1\" \"$HOSTILE\"", b"x", b"a\xe9"],
                   user="herdtest1", cwd=workdir, env_extra={b"HOSTILE": b"v\xff"})
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == b"a\xe9|v\xff"
    cp = run_bytes(bcluster, [b"sacct", b"-n", b"-X", b"-P", b"-u", b"herdtest1", b"-o",
                             b"JobName"])
    assert b"s\xff" in cp.stdout.splitlines()


# --- item 10c: control characters do not split rows --------------------------

def test_control_characters_do_not_split_rows(bcluster, workdir):
    script = write_script(workdir, "ctl.sh", b"#!/bin/sh\ntrue\n")
    job = submit_bytes(bcluster, [b"-J", b"a\nFORGED|1", b"--comment", b"x\ty\rz\x1b[2J",
                                 os.fsencode(script)], workdir)
    bcluster.wait_state(job, "COMPLETED")
    jid = str(job).encode()
    cp = run_bytes(bcluster, [b"squeue", b"-h", b"-t", b"all", b"-j", jid, b"-o", b"%i %j %k"])
    assert cp.stdout == jid + b" a?FORGED|1 x?y?z?[2J\n", cp.stdout
    cp = run_bytes(bcluster, [b"sacct", b"-n", b"-P", b"-j", jid, b"-o", b"JobID,JobName"])
    for line in cp.stdout.splitlines():
        assert line.startswith(jid), cp.stdout
    assert jid + b"|a?FORGED|1" in cp.stdout.splitlines()
    cp = run_bytes(bcluster, [b"scontrol", b"-o", b"show", b"job", jid])
    assert cp.stdout.count(b"\n") == 1 and b"JobName=a?FORGED|1" in cp.stdout, cp.stdout


# --- item 10a: an oversized script -------------------------------------------

def test_script_over_max_script_size_refused(bcluster, workdir):
    body = b"#!/bin/sh\n" + (b"# " + b"x" * 1021 + b"\n") * (4 * 1024 + 1) + b"true\n"
    path = write_script(workdir, "big.sh", body)
    cp = run_bytes(bcluster, [b"sbatch", os.fsencode(path)], user="herdtest1", cwd=workdir)
    assert cp.returncode == 1, (cp.returncode, cp.stderr)
    assert cp.stderr.decode() == f"sbatch: error: Batch job submission failed: {TOO_LONG}\n"
    # 18 MB: over the controller's body limit too; never SIGPIPE (141)
    path = write_script(workdir, "huge.sh", body * 4 + b"# " + b"y" * 2000000 + b"\n")
    cp = run_bytes(bcluster, [b"sbatch", os.fsencode(path)], user="herdtest1", cwd=workdir)
    assert cp.returncode == 1, (cp.returncode, cp.stderr)
    assert TOO_LONG in cp.stderr.decode()
    # the controller refuses a request that is not sbatch's
    st, ans = bcluster.api("POST", "/v1/jobs", {"script": body.decode(), "name": "big"})
    assert st == 400 and ans["error"] == TOO_LONG and ans["code"] == 2012, (st, ans)


# --- item 10b: sdiag -r by a user ---------------------------------------------

def test_sdiag_reset_by_user_exits_1(bcluster):
    cp = bcluster.run(["sdiag", "-r"], user="herdtest1", check=False)
    assert cp.returncode == 1
    assert "sdiag: error: Access/permission denied" in cp.stderr, cp.stderr
    assert bcluster.run(["sdiag", "-r"]).returncode == 0


# --- item 10d: a controller briefly away; one away for good; a send cut short --

def kill_controller(c):
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")


def test_send_cut_short_reported_not_sigpipe(bcluster, workdir):
    """A client whose max_script_size is above the controller's body limit:
    the controller refuses before it has read the whole request, and sbatch
    says so instead of dying of SIGPIPE (exit 141)."""
    conf = os.path.join(workdir, "client.conf")
    with open(bcluster.conf) as f, open(conf, "w") as out:
        out.write(f.read() + "\nSchedulerParameters=max_script_size=40000000\n")
    os.chmod(conf, 0o644)
    body = b"#!/bin/sh\n" + (b"# " + b"x" * 1021 + b"\n") * (18 * 1024) + b"true\n"
    path = write_script(workdir, "huge.sh", body)
    cp = run_bytes(bcluster, [b"sbatch", os.fsencode(path)], cwd=workdir,
                   env_extra={b"SLURM_CONF": os.fsencode(conf)})
    assert cp.returncode == 1, (cp.returncode, cp.stderr)
    # the refusal when it could be read, else the send's failure
    assert cp.stderr.decode() in (
        f"sbatch: error: Batch job submission failed: {TOO_LONG}\n",
        "sbatch: error: Batch job submission failed: Unable to contact slurm controller "
        "(send failure)\n"), cp.stderr


def test_command_waits_out_a_controller_restart(bcluster):
    c = bcluster
    kill_controller(c)
    restart = threading.Thread(target=lambda: (time.sleep(2), c.up()))
    restart.start()
    try:
        t0 = time.monotonic()
        cp = c.run(["squeue", "-h", "-o", "%i"], check=False, timeout=60)
        took = time.monotonic() - t0
    finally:
        restart.join(timeout=120)
    assert cp.returncode == 0, cp.stderr
    assert took >= 1.5, f"squeue answered in {took:.1f}s while the controller was down"


def test_command_gives_up_after_message_timeout(bcluster):
    c = bcluster
    kill_controller(c)
    try:
        t0 = time.monotonic()
        cp = c.run(["squeue"], check=False, timeout=60)
        took = time.monotonic() - t0
        assert cp.returncode == 1
        assert cp.stderr == ("slurm_load_jobs error: Unable to contact slurm controller "
                             "(connect failure)\n"), cp.stderr
        assert 2.5 <= took < 8, f"gave up after {took:.1f}s with MessageTimeout=3"
    finally:
        c.up()
