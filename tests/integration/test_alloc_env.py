"""What salloc exports to its command, and srun's tasks outside a job see,
beside the job's id and nodes (issue 18, found by tools/slurmdiff against
Slurm 22.05): where and on which cluster the allocation was asked for, and
its per-node counts."""

import socket


def env_of(c, cmd, workdir):
    out = c.run(cmd, cwd=workdir).stdout
    return dict(l.split("=", 1) for l in out.splitlines() if l.startswith("SLURM_"))


def test_salloc_exports_origin_and_counts(cluster, workdir):
    env = env_of(cluster, ["salloc", "-n", "2", "env"], workdir)
    assert env["SLURM_SUBMIT_DIR"] == workdir
    assert env["SLURM_SUBMIT_HOST"] == socket.gethostname()
    assert env["SLURM_CLUSTER_NAME"] == "herd"
    assert env["SLURM_JOB_CPUS_PER_NODE"] == "2"
    assert env["SLURM_TASKS_PER_NODE"] == "2"
    assert "SLURM_CPUS_ON_NODE" not in env, "salloc's command runs on no node"


def test_srun_tasks_see_the_allocation(cluster, workdir):
    env = env_of(cluster, ["srun", "-N", "2", "-c", "3", "sh", "-c", "env"], workdir)
    assert env["SLURM_SUBMIT_DIR"] == workdir
    assert env["SLURM_CLUSTER_NAME"] == "herd"
    assert env["SLURM_JOB_CPUS_PER_NODE"] == "3(x2)"
    assert env["SLURM_TASKS_PER_NODE"] == "1(x2)"
    assert env["SLURM_CPUS_ON_NODE"] == "3"


def test_srun_chdir_relative_to_where_srun_runs(cluster, workdir):
    import os
    os.mkdir(os.path.join(workdir, "sub"))
    os.chmod(os.path.join(workdir, "sub"), 0o777)
    cp = cluster.run(["srun", "-D", "sub", "pwd"], cwd=workdir)
    assert (cp.stdout, cp.stderr) == (os.path.join(workdir, "sub") + "\n", "")


def test_salloc_quiet_and_missing_command(cluster, workdir):
    cp = cluster.run(["salloc", "-Q", "true"], cwd=workdir)
    assert cp.stderr == ""
    cp = cluster.run(["salloc", "/nonexistent/prog"], cwd=workdir, check=False)
    assert cp.returncode == 1
    lines = cp.stderr.splitlines()
    assert lines[0].startswith("salloc: Granted job allocation ")
    assert lines[1] == 'salloc: error: _fork_command: Unable to find command "/nonexistent/prog"'
    assert lines[2].startswith("salloc: Relinquishing job allocation ")


def test_step_tasks_know_the_job_user(cluster, workdir, users):
    import pwd
    pw = pwd.getpwnam("herdtest1")
    out = cluster.run(["srun", "-n", "1", "env"], cwd=workdir, user="herdtest1").stdout
    env = dict(l.split("=", 1) for l in out.splitlines() if l.startswith("SLURM_"))
    assert env["SLURM_JOB_USER"] == "herdtest1"
    assert env["SLURM_JOB_UID"] == str(pw.pw_uid)
    assert env["SLURM_JOB_GID"] == str(pw.pw_gid)
