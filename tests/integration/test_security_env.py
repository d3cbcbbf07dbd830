"""What a job's environment and --chdir cannot do (issue 24 item 3): make
the Prolog, the Epilog or the job's supervisor, which run as root, load a
library, run a program or read a setting the user chose. (BASH_ENV, PATH,
LD_PRELOAD and SLURM_* overrides: test_security_noded.py.)

A cluster of its own, with a Prolog and an Epilog that record their uid,
working directory and environment where only root may read them, and run
`env`, `id` and `sh` by name as admin scripts do."""

import os
import pwd
import subprocess

import pytest

from helpers import cluster_fixture, open_dir, parse_env, read, wait_file

UP = ["--nodes", "1", "--gpus-per-node", "1", "--cpus-per-node", "2", "--mem-per-node", "2000",
      "--set", "KillWait=2"]

# by name, through the PATH Herd gives: a user's PATH or working directory
# would make these run the user's programs
ROOT_SCRIPT = """#!/bin/bash
umask 077
d="{d}/dump/$SLURM_SCRIPT_CONTEXT.$SLURM_JOB_ID"
env > "$d.env"
id -u > "$d.id"
pwd > "$d.pwd"
sh -c true
exit 0
"""

AUDIT_C = r"""
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
unsigned int la_version(unsigned int v) { return v; }
"""

HOSTILE_NAMES = ("env", "id", "sh", "bash", "true", "pwd")


def prepare(c):
    os.makedirs(os.path.join(c.dir, "dump"), mode=0o700)
    for name in ("prolog.sh", "epilog.sh"):
        p = os.path.join(c.dir, name)
        with open(p, "w") as f:
            f.write(ROOT_SCRIPT.format(d=c.dir))
        os.chmod(p, 0o755)
    c.up_args += ["--set", f"Prolog={c.dir}/prolog.sh", "--set", f"Epilog={c.dir}/epilog.sh"]


@pytest.fixture(scope="module")
def ec(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "secenv", UP, prepare=prepare)


def dumped(c, context, job, what):
    return wait_file(os.path.join(c.dir, "dump", f"{context}.{job}.{what}"), timeout=30)


def test_loader_and_shell_variables_and_chdir_never_reach_root(ec, tmp_path, users):
    """--export with the dynamic loader's variables (LD_LIBRARY_PATH,
    LD_AUDIT, GCONV_PATH), the shells' (ENV, SHELLOPTS=xtrace with a PS4
    that runs a command, BASH_FUNC_*), interpreters' (PYTHONPATH, PERL5LIB)
    and --chdir into a directory whose `env`, `id`, `sh`... mark who ran
    them: the Prolog and Epilog run as root with none of it, outside the
    job's directory; the user's own job does see its variables."""
    c = ec
    wd = str(tmp_path)
    open_dir(wd)
    marker = os.path.join(wd, "marker")
    open(marker, "w").close()
    os.chmod(marker, 0o666)
    for name in HOSTILE_NAMES:
        p = os.path.join(wd, name)
        with open(p, "w") as f:
            f.write(f"#!/bin/sh\necho \"$(/usr/bin/id -u) {name}\" >> {marker}\n")
        os.chmod(p, 0o755)
    src, so = os.path.join(wd, "audit.c"), os.path.join(wd, "audit.so")
    with open(src, "w") as f:
        f.write(AUDIT_C % marker)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", so, src], check=True)
    os.chmod(so, 0o755)
    hostile = {"LD_LIBRARY_PATH": wd, "LD_AUDIT": so, "GCONV_PATH": wd, "ENV": f"{wd}/sh",
               "SHELLOPTS": "xtrace", "PS4": f"$({wd}/id)", "PYTHONPATH": wd, "PERL5LIB": wd,
               "BASH_FUNC_id%%": f"() {{ {wd}/id; }}", "PATH": f"{wd}:/usr/bin:/bin"}
    export = "ALL," + ",".join(f"{k}={v}" for k, v in hostile.items() if "," not in v)
    job = ec.sbatch([f"--export={export}", f"--chdir={wd}", "-o", os.path.join(wd, "job.out")],
                    cwd=wd, user="herdtest1",
                    script="#!/bin/sh\n/usr/bin/env > \"$SLURM_SUBMIT_DIR/job.env\"\n")
    c.wait_state(job, "COMPLETED", timeout=30)
    dumped(c, "epilog_slurmd", job, "pwd")
    uid1 = str(pwd.getpwnam("herdtest1").pw_uid)
    ran = read(marker).split("\n")
    assert not any(line.startswith("0") for line in ran), f"ran as root: {ran}"
    for context in ("prolog_slurmd", "epilog_slurmd"):
        assert dumped(c, context, job, "id").strip() == "0"
        assert dumped(c, context, job, "pwd").strip() != wd
        env = parse_env(dumped(c, context, job, "env"))
        leaked = sorted(k for k in env
                        if (k in hostile and k != "PATH") or k.startswith("BASH_FUNC"))
        assert not leaked, f"{context} got {leaked}"
        assert wd not in env.get("PATH", ""), env.get("PATH")
    # the job itself had them: the test's variables did travel
    job_env = parse_env(read(os.path.join(wd, "job.env")))
    assert job_env.get("LD_AUDIT") == so and job_env.get("GCONV_PATH") == wd, job_env
    assert {line.split()[0] for line in ran if line} == {uid1}, \
        f"the audit library never ran, not even in the job: the test proves nothing: {ran}"


def test_supervisor_keeps_its_own_environment(ec, tmp_path, users):
    """The job's supervisor (root, for the job's whole life) is exec'd with
    the node agent's environment, never the job's."""
    c = ec
    wd = str(tmp_path)
    open_dir(wd)
    shell = os.path.join(wd, "shell.pid")
    job = c.sbatch(["--export=ALL,HERD_EVIL=1,LD_PRELOAD=/nonexistent/evil.so"], cwd=wd,
                   user="herdtest1", script=f"#!/bin/sh\necho $$ > {shell}\nexec sleep 60\n")
    c.wait_state(job, "RUNNING")
    sh = int(wait_file(shell))
    sup = int(read(f"/proc/{sh}/stat").rsplit(")", 1)[1].split()[1])
    assert "--supervise" in read(f"/proc/{sup}/cmdline").replace("\0", " ")
    assert os.stat(f"/proc/{sup}").st_uid == 0
    with open(f"/proc/{sup}/environ", "rb") as f:
        env = f.read().split(b"\0")
    assert not any(e.startswith((b"HERD_EVIL=", b"LD_PRELOAD=")) for e in env), env
    with open(f"/proc/{sh}/environ", "rb") as f:
        assert b"HERD_EVIL=1" in f.read().split(b"\0")
    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED", timeout=30)
