"""Bytes a hostile (or merely non-UTF-8) user gives: a script, environment,
name, comment, path or argument that is not UTF-8 reaches the job
byte-exact and shows as given; control characters do not split parsable
rows."""

import os
import subprocess
import time

from helpers import base_env
import helpers


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

def test_latin1_script_runs(cluster, workdir, users):
    script = write_script(workdir, "latin1.sh", b"#!/bin/sh\n# caf\xe9\necho 'caf\xe9 ok'\n")
    job = submit_bytes(cluster, [os.fsencode(script)], workdir)
    cluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(workdir, f"slurm-{job}.out")) == b"caf\xe9 ok\n"


def test_environment_value_byte_exact(cluster, workdir, users):
    out = os.path.join(workdir, "env.bin")
    script = write_script(workdir, "env.sh",
                          f"#!/bin/sh\nprintf '%s' \"$HOSTILE\" > {out}\n".encode())
    value = b"\xff\xfe-caf\xe9-\xee\xbf\xbf-end"   # the last is a real U+EFFF
    job = submit_bytes(cluster, [os.fsencode(script)], workdir,
                       env_extra={b"HOSTILE": value})
    cluster.wait_state(job, "COMPLETED")
    assert read_bytes(out) == value


def test_name_and_comment_kept(cluster, workdir, users):
    script = write_script(workdir, "named.sh", b"#!/bin/sh\nsleep 30\n")
    job = submit_bytes(cluster, [b"-J", b"n\xffx", b"--comment", b"c\xe9 note", b"--hold",
                                 os.fsencode(script)], workdir)
    cp = run_bytes(cluster, [b"squeue", b"-h", b"-j", str(job).encode(), b"-o", b"%j|%k"])
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == b"n\xffx|c\xe9 note\n"
    cp = run_bytes(cluster, [b"scontrol", b"show", b"job", str(job).encode()])
    assert b"JobName=n\xffx" in cp.stdout and b"Comment=c\xe9 note" in cp.stdout, cp.stdout
    # squeue -n and scancel -n find it by the same bytes
    cp = run_bytes(cluster, [b"squeue", b"-h", b"-n", b"n\xffx", b"-o", b"%i"])
    assert cp.stdout.split() == [str(job).encode()]
    cp = run_bytes(cluster, [b"scancel", b"-n", b"n\xffx"], user="herdtest1")
    assert cp.returncode == 0, cp.stderr
    cluster.wait_state(job, "CANCELLED")
    cp = run_bytes(cluster, [b"sacct", b"-n", b"-X", b"-P", b"-j", str(job).encode(), b"-o",
                             b"JobName,Comment"])
    assert cp.stdout == b"n\xffx|c\xe9 note\n", cp.stdout


def test_paths_and_arguments_bytes(cluster, workdir, users):
    """work dir, output path, script arguments and --wrap keep their bytes."""
    wd = os.path.join(os.fsencode(workdir), b"d\xe9")
    os.mkdir(wd)
    os.chmod(wd, 0o777)
    script = write_script(workdir, "args.sh", b"#!/bin/sh\nprintf '%s|' \"$@\" \"$PWD\"\n")
    job = submit_bytes(cluster, [b"-D", wd, b"-o", b"out-\xff.txt", os.fsencode(script),
                                 b"a\xff", b"b"], workdir)
    cluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(wd, b"out-\xff.txt")) == b"a\xff|b|" + wd + b"|"
    job = submit_bytes(cluster, [b"--wrap", b"echo w\xe9", b"-o", b"wrap.out"], workdir)
    cluster.wait_state(job, "COMPLETED")
    assert read_bytes(os.path.join(workdir, "wrap.out")) == b"w\xe9\n"


def test_srun_argv_env_and_name_bytes(cluster, workdir, users):
    cp = run_bytes(cluster, [b"srun", b"-N1", b"-J", b"s\xff", b"sh", b"-c",
                             b"printf '%s|%s' \"$1\" \"$HOSTILE\"", b"x", b"a\xe9"],
                   user="herdtest1", cwd=workdir, env_extra={b"HOSTILE": b"v\xff"})
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == b"a\xe9|v\xff"
    cp = run_bytes(cluster, [b"sacct", b"-n", b"-X", b"-P", b"-u", b"herdtest1", b"-o",
                             b"JobName"])
    assert b"s\xff" in cp.stdout.splitlines()


# --- item 10c: control characters do not split rows --------------------------

def test_control_characters_do_not_split_rows(cluster, workdir, users):
    script = write_script(workdir, "ctl.sh", b"#!/bin/sh\ntrue\n")
    job = submit_bytes(cluster, [b"-J", b"a\nFORGED|1", b"--comment", b"x\ty\rz\x1b[2J",
                                 os.fsencode(script)], workdir)
    cluster.wait_state(job, "COMPLETED")
    jid = str(job).encode()
    cp = run_bytes(cluster, [b"squeue", b"-h", b"-t", b"all", b"-j", jid, b"-o", b"%i %j %k"])
    assert cp.stdout == jid + b" a?FORGED|1 x?y?z?[2J\n", cp.stdout
    cp = run_bytes(cluster, [b"sacct", b"-n", b"-P", b"-j", jid, b"-o", b"JobID,JobName"])
    for line in cp.stdout.splitlines():
        assert line.startswith(jid), cp.stdout
    assert jid + b"|a?FORGED|1" in cp.stdout.splitlines()
    cp = run_bytes(cluster, [b"scontrol", b"-o", b"show", b"job", jid])
    assert cp.stdout.count(b"\n") == 1 and b"JobName=a?FORGED|1" in cp.stdout, cp.stdout
