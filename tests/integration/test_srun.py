"""srun inside an allocation: job steps over the job's nodes through their
node agents, each task's rank and GPUs, output back to srun (with -l
labels), exit codes and signals, --kill-on-bad-exit, the tasks' user, and
no task left behind once the job is cancelled."""

import os
import re
import signal
import subprocess
import time

import pytest

from helpers import base_env, pid_alive, read, wait_file, wait_for


def run_job(c, workdir, args, body, user=None, timeout=40):
    out = os.path.join(workdir, "out.txt")
    job = c.sbatch(list(args) + ["-o", out], cwd=workdir, user=user,
                   script="#!/bin/sh\n" + body)
    c.wait_state(job, ("COMPLETED", "FAILED"), timeout=timeout)
    return job, read(out)


def test_ranks_nodes_and_gpus(cluster, workdir):
    body = ("srun -l --gpus-per-task=1 sh -c 'echo rank=$SLURM_PROCID local=$SLURM_LOCALID "
            "node=$SLURMD_NODENAME nodeid=$SLURM_NODEID n=$SLURM_NTASKS "
            "step=$SLURM_STEP_ID gpu=$CUDA_VISIBLE_DEVICES tpn=$SLURM_STEP_TASKS_PER_NODE'\n"
            "echo rc=$?\n"
            "echo job tpn=$SLURM_TASKS_PER_NODE ntasks=$SLURM_NTASKS\n")
    job, out = run_job(cluster, workdir, ["-N2", "--ntasks-per-node=2", "--gpus-per-node=2"], body)
    rows = [dict(kv.split("=") for kv in line.split(": ", 1)[1].split())
            for line in out.splitlines() if re.match(r"\d: rank=", line)]
    assert len(rows) == 4, out
    for line in out.splitlines():
        if "rank=" in line:
            assert line.startswith(line.split("rank=")[1].split()[0] + ": "), line
    assert sorted(r["rank"] for r in rows) == ["0", "1", "2", "3"]
    assert {r["n"] for r in rows} == {"4"} and {r["step"] for r in rows} == {"0"}
    assert {r["tpn"] for r in rows} == {"2(x2)"}
    by_node = {}
    for r in rows:
        by_node.setdefault(r["node"], []).append(r)
    assert len(by_node) == 2, out
    for node, rs in by_node.items():
        assert sorted(r["local"] for r in rs) == ["0", "1"]
        assert len({r["nodeid"] for r in rs}) == 1
        gpus = [r["gpu"] for r in rs]
        assert len(set(gpus)) == 2 and all(re.fullmatch(r"\d", g) for g in gpus), out
    assert "rc=0" in out
    assert "job tpn=2(x2) ntasks=4" in out


def test_exit_codes_and_signals(cluster, workdir):
    body = ("srun -n1 sh -c 'echo to-err >&2; exit 3'; echo rc=$?\n"
            "srun -n1 sh -c 'kill -9 $$'; echo rc=$?\n"
            "srun -n1 /no/such/program; echo rc=$?\n"
            "srun -n2 -l echo hi; echo rc=$?\n")
    job, out = run_job(cluster, workdir, ["-n2"], body)
    lines = out.splitlines()
    assert "to-err" in lines
    assert re.search(r"^srun: error: node\d: task 0: Exited with exit code 3$\nrc=3$", out, re.M), out
    assert re.search(r"^srun: error: node\d: task 0: Killed$\nrc=137$", out, re.M), out
    assert "slurmstepd: error: execve(): /no/such/program: No such file or directory" in out
    assert re.search(r"task 0: Exited with exit code 2$\nrc=2$", out, re.M), out
    assert sorted(l for l in lines if l.endswith(": hi")) == ["0: hi", "1: hi"]
    assert lines[-1] == "rc=0"


def test_tasks_lines_do_not_mix(cluster, workdir):
    # Each task writes half a line, waits, then ends it: srun writes whole
    # lines, as Slurm's stepd does; -u passes bytes on as they come.
    half = "sh -c 'printf a$SLURM_PROCID; sleep 0.5; echo b$SLURM_PROCID'"
    body = f"srun -n2 {half}\necho --\nsrun -u -n2 {half}\necho --\nsrun -n1 printf end\n"
    job, out = run_job(cluster, workdir, ["-n2"], body)
    buffered, unbuffered, last = out.split("--\n")
    assert sorted(buffered.splitlines()) == ["a0b0", "a1b1"], out
    assert sorted(unbuffered.replace("\n", "")) == sorted("a0b0a1b1"), out
    assert unbuffered.startswith(("a0a1", "a1a0")), out
    assert last == "end", out


def test_kill_on_bad_exit(cluster, workdir):
    body = ("start=$(date +%s)\n"
            "srun -n2 -K sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 1; fi; exec sleep 60'\n"
            "echo rc=$? took=$(( $(date +%s) - start ))\n")
    job, out = run_job(cluster, workdir, ["-n2"], body)
    assert "task 1: Exited with exit code 1" in out
    took = int(re.search(r"took=(\d+)", out).group(1))
    assert took < 20, out
    assert re.search(r"rc=[1-9]", out), out


def test_tasks_run_as_the_user(cluster, workdir, users):
    job, out = run_job(cluster, workdir, ["-N2", "--ntasks-per-node=1"],
                       "srun -l sh -c 'id -un; pwd'\n", user="herdtest1")
    assert sorted(l for l in out.splitlines() if "herdtest" in l) == \
        ["0: herdtest1", "1: herdtest1"], out
    assert f"0: {workdir}" in out.splitlines()


def test_other_users_job_refused(cluster, workdir, users):
    c = cluster
    job = c.sbatch([], cwd=workdir, user="herdtest1", script="#!/bin/sh\nexec sleep 60\n")
    c.wait_state(job, "RUNNING")
    cp = c.run(["srun", f"--jobid={job}", "true"], user="herdtest2", check=False)
    assert cp.returncode == 1
    assert cp.stderr.strip() == \
        f"srun: error: Unable to create step for job {job}: Access/permission denied"
    c.run(["scancel", str(job)])


def test_no_task_left_after_scancel(cluster, workdir):
    c = cluster
    body = "srun -N2 -n2 sh -c 'echo $$ > pid.$SLURM_PROCID; exec sleep 300'\n"
    job = c.sbatch(["-N2", "--ntasks-per-node=1"], cwd=workdir, script="#!/bin/sh\n" + body)
    pids = [int(wait_file(os.path.join(workdir, f"pid.{i}"), contains="\n").strip())
            for i in range(2)]
    assert all(pid_alive(p) for p in pids)
    c.run(["scancel", str(job)])
    c.wait_state(job, "CANCELLED")
    wait_for(lambda: not any(pid_alive(p) for p in pids), 20, f"step tasks {pids} to end")


def test_steps_hold_their_cpus_and_gpus(cluster, workdir):
    # As Slurm since 20.11: a step holds its CPUs and --gpus-per-task GPUs
    # until it ends. Two one-task steps in a 2-CPU, 2-GPU job run side by
    # side on distinct GPUs; a third waits for one of them ("busy"), then
    # starts; --overlap runs beside them at once.
    task = "sh -c 'echo gpu=$CUDA_VISIBLE_DEVICES t=$(date +%s.%N); sleep 2'"
    body = (f"for i in 1 2 3; do srun -n1 --gpus-per-task=1 {task} & sleep 0.3; done\n"
            "sleep 0.3; srun -n1 --overlap sh -c 'echo overlap t=$(date +%s.%N)'\n"
            "wait\nsrun -n3 true; echo never=$?\n")
    job, out = run_job(cluster, workdir, ["-N1", "-n2", "--gpus-per-node=2"], body)
    starts = [(g, float(t)) for g, t in re.findall(r"gpu=(\d) t=([\d.]+)", out)]
    assert len(starts) == 3, out
    assert starts[0][0] != starts[1][0], out
    assert starts[2][1] - starts[0][1] > 1.5, "the third step did not wait: " + out
    overlap = float(re.search(r"overlap t=([\d.]+)", out).group(1))
    assert overlap < starts[2][1], out
    assert f"srun: Job {job} step creation temporarily disabled, retrying " \
           "(Requested nodes are busy)" in out, out
    assert re.search(rf"^srun: Step created for StepId={job}\.\d$", out, re.M), out
    # more than the job has: refused at once, not waited for
    assert "Requested node configuration is not available\nnever=1" in out, out


def cgroup_v1_memory():
    return os.path.exists("/sys/fs/cgroup/memory/cgroup.procs")


@pytest.mark.skipif(not cgroup_v1_memory(), reason="needs cgroup v1's memory controller")
def test_steps_inside_the_jobs_cgroup(cluster, workdir):
    # On the batch node a step's tasks join the job's groups; on the other
    # node the step gets a group of its own inside the job's, with the
    # job's memory there; what a task leaves running there (a setsid'd
    # daemon) ends with the step.
    with open(os.path.join(workdir, "task.sh"), "w") as f:
        f.write("p=$(grep :memory: /proc/self/cgroup | cut -d: -f3)\n"
                "echo $p $(cat /sys/fs/cgroup/memory$p/memory.limit_in_bytes)\n"
                "setsid sh -c 'echo $$ > left.$SLURM_PROCID; exec sleep 300' "
                "</dev/null >/dev/null 2>&1 &\n"
                "while [ ! -s left.$SLURM_PROCID ]; do sleep 0.05; done\n")
    body = "srun -l sh task.sh\nsleep 1\n"
    job, out = run_job(cluster, workdir, ["-N2", "--ntasks-per-node=1", "--mem=100"], body)
    rows = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
    assert re.fullmatch(rf"/herd/node\d-[0-9a-f]{{8}}/job_{job} 104857600", rows["0"]), out
    assert re.fullmatch(rf"/herd/node\d-[0-9a-f]{{8}}/job_{job}/step_0 104857600",
                        rows["1"]), out
    left = [int(wait_file(os.path.join(workdir, f"left.{i}"), contains="\n")) for i in range(2)]
    wait_for(lambda: not any(pid_alive(p) for p in left), 20, f"left-behind {left} to end")
    group = rows["1"].split()[0]
    assert not os.path.exists("/sys/fs/cgroup/memory" + group), "the step's group was not removed"


def test_srun_makes_its_own_allocation(cluster, workdir):
    c = cluster
    cp = c.run(["srun", "-N2", "-n4", "-l", "-J", "standalone", "sh", "-c",
                "echo $SLURMD_NODENAME $SLURM_PROCID $SLURM_JOB_NUM_NODES"],
               cwd=workdir, extra_env={"SLURM_JOB_ID": ""})
    lines = sorted(cp.stdout.splitlines())
    assert [l.split(":")[0] for l in lines] == ["0", "1", "2", "3"], cp.stdout
    assert len({l.split()[1] for l in lines}) == 2 and {l.split()[3] for l in lines} == {"2"}
    acct = c.run(["sacct", "-n", "-P", "--name", "standalone", "-o", "JobID,State,NNodes"]).stdout
    rows = acct.split()
    job = rows[0].split("|")[0]
    assert rows == [f"{job}|COMPLETED|2", f"{job}.extern|COMPLETED|2", f"{job}.0|COMPLETED|2"], \
        "an allocation has no batch step, and its step is 0: " + acct
    bad = c.run(["srun", "-p", "nosuch", "true"], check=False, extra_env={"SLURM_JOB_ID": ""})
    assert bad.returncode == 1
    assert bad.stderr.strip() == \
        "srun: error: Unable to allocate resources: Invalid partition name specified"


def test_stdin_goes_to_the_tasks(cluster, workdir):
    # As Slurm: every task reads srun's stdin unless --input names one
    # task, or none; a large input arrives whole, at the tasks' pace.
    c = cluster
    alone = {"SLURM_JOB_ID": ""}
    run = lambda *args, **kw: c.run(["srun", "-N2", "-n2", "-l", *args], cwd=workdir,
                                    extra_env=alone, **kw).stdout
    assert sorted(run("cat", input="a\nb\n").splitlines()) == ["0: a", "0: b", "1: a", "1: b"]
    assert run("--input=1", "cat", input="only\n") == "1: only\n"
    assert run("--input=none", "sh", "-c", "cat; echo eof", input="lost\n").count("eof") == 2
    data = os.urandom(3 << 20).hex()   # 6 MB: several chunks, and the pipe fills
    want = subprocess.run(["md5sum"], input=data, capture_output=True, text=True).stdout
    got = c.run(["srun", "-n1", "sh", "-c", "sleep 1; md5sum"], input=data, cwd=workdir,
                extra_env=alone).stdout
    assert got == want


def test_output_and_input_files(cluster, workdir):
    # -o/-e patterns as Slurm's (%j job, %s step, %t task, %N node), tasks
    # with the same name sharing the file; -i: every task reads the file.
    with open(os.path.join(workdir, "in.txt"), "w") as f:
        f.write("from-file\n")
    body = ("srun -N2 -n3 -o 'o_%j_%s_%2t_%N.txt' -e err.txt sh -c "
            "'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'\necho rc=$?\n"
            "srun -n2 -l -i in.txt cat\n"
            "srun -o /no/such/dir/x true; echo rc=$?\n")
    job, out = run_job(cluster, workdir, ["-N2", "-n3"], body)
    names = sorted(n for n in os.listdir(workdir) if n.startswith("o_"))
    assert names == [f"o_{job}_0_00_node1.txt", f"o_{job}_0_01_node1.txt",
                     f"o_{job}_0_02_node2.txt"], names
    assert [read(os.path.join(workdir, n)) for n in names] == ["out 0\n", "out 1\n", "out 2\n"]
    assert sorted(read(os.path.join(workdir, "err.txt")).splitlines()) == ["err 0", "err 1", "err 2"]
    assert "rc=0" in out and sorted(re.findall(r"^\d: from-file$", out, re.M)) == \
        ["0: from-file", "1: from-file"], out
    assert "srun: error: Could not open stdout file: /no/such/dir/x: No such file or directory\n" \
           "rc=1" in out, out


def pty_session(cmd, env, steps, timeout=20):
    """Runs cmd on a terminal of our own, writes each of steps (bytes, or
    (rows, cols) to resize the terminal) after a pause, and returns
    (everything it printed, its exit code)."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, env)
    out, deadline = b"", time.time() + timeout

    def pump(secs):
        nonlocal out
        end = min(time.time() + secs, deadline)
        while time.time() < end:
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                out += data
    try:
        pump(2)
        for step in steps:
            if isinstance(step, tuple):
                fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", step[0], step[1], 0, 0))
            else:
                os.write(fd, step)
            pump(1)
        pump(deadline - time.time())
        done, status = os.waitpid(pid, os.WNOHANG)
        while not done and time.time() < deadline:
            time.sleep(0.05)
            done, status = os.waitpid(pid, os.WNOHANG)
        assert done, "srun --pty did not end: " + out.decode(errors="replace")
        return out.decode(errors="replace"), os.waitstatus_to_exitcode(status)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(fd)


def test_pty_shell(cluster, workdir):
    # srun --pty bash: task 0 on a terminal of its own on the node, keys as
    # typed (^C interrupts the remote command, not srun), resizes passed on,
    # the shell's exit code is srun's.
    env = base_env(cluster.conf)
    env.update({"SLURM_JOB_ID": "", "TERM": "dumb"})
    out, rc = pty_session(["srun", "-N1", "--pty", "/bin/bash", "--norc", "--noprofile", "-i"],
                          env, [b"tty; echo node=$SLURMD_NODENAME; stty size\n", (40, 120),
                                b"stty size\n", b"sleep 30\n", b"\x03",
                                b"echo after-int; exit 3\n"])
    assert re.search(r"^/dev/pts/\d+\r$", out, re.M), out
    assert re.search(r"^node=node\d\r$", out, re.M), out
    assert re.search(r"^40 120\r$", out, re.M), out
    assert re.search(r"^after-int\r$", out, re.M), out
    assert rc == 3, out


def test_salloc_runs_srun_inside(cluster, workdir):
    c = cluster
    cp = c.run(["salloc", "-N2", "-J", "sallocjob", "sh", "-c",
                "echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NODELIST; srun -l hostname >/dev/null; "
                "srun sh -c 'echo $SLURMD_NODENAME'; exit 4"],
               cwd=workdir, check=False, extra_env={"SLURM_JOB_ID": ""})
    assert cp.returncode == 4, cp.stderr
    job = int(re.search(r"job=(\d+)", cp.stdout).group(1))
    assert "nodes=node[1-2]" in cp.stdout
    assert sorted(cp.stdout.split()[2:]) == ["node1", "node2"], cp.stdout
    assert cp.stderr.splitlines() == [f"salloc: Granted job allocation {job}",
                                      f"salloc: Relinquishing job allocation {job}"]
    c.wait_state(job, "FAILED")
    assert c.api_job(job)["exit_code"] == 4


def test_scancel_of_an_allocation_ends_its_steps(cluster, workdir):
    c = cluster
    pidfile = os.path.join(workdir, "pid")
    proc = subprocess.Popen(
        ["salloc", "-J", "cancelme", "srun", "sh", "-c", f"echo $$ > {pidfile}; exec sleep 300"],
        env=dict(base_env(c.conf), SLURM_JOB_ID=""), cwd=workdir, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    try:
        pid = int(wait_file(pidfile, contains="\n").strip())
        job = int(c.run(["squeue", "-h", "-n", "cancelme", "-o", "%i"]).stdout.split()[0])
        c.run(["scancel", str(job)])
        c.wait_state(job, "CANCELLED")
        wait_for(lambda: not pid_alive(pid), 20, f"step task {pid} to end")
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_bad_options(cluster):
    cp = cluster.run(["srun", "--jobid=1"], check=False)
    assert cp.returncode == 1 and "No command given to execute" in cp.stderr
    cp = cluster.run(["srun", "--jobid=999999", "true"], check=False)
    assert cp.returncode == 1
    assert cp.stderr.strip() == \
        "srun: error: Unable to create step for job 999999: Invalid job id specified"
    cp = cluster.run(["srun", "--input=in_%t.txt", "true"], check=False)
    assert cp.returncode == 1 and \
        "srun's --input with a file name pattern is not supported yet" in cp.stderr


def test_steps_in_sacct(cluster, workdir):
    c = cluster
    body = ("srun -J hello hostname >/dev/null\n"
            "srun -n1 sh -c 'exit 3'\n"
            "srun -n2 -K sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 1; fi; exec sleep 60'\n"
            "exit 0\n")
    job, out = run_job(c, workdir, ["-N2", "--ntasks-per-node=2"], body)
    rows = c.run(["sacct", "-j", str(job), "-P", "-n",
                  "-o", "JobID,JobName,State,ExitCode,NTasks,NNodes"]).stdout.splitlines()
    assert re.fullmatch(rf"{job}\|[^|]*job.sh\|COMPLETED\|0:0\|\|2", rows[0]), rows
    assert f"{job}.batch|batch|COMPLETED|0:0|1|1" in rows
    steps = [r for r in rows if re.match(rf"{job}\.\d", r)]
    assert steps == [f"{job}.0|hello|COMPLETED|0:0|4|2",
                     f"{job}.1|sh|FAILED|3:0|1|1",
                     f"{job}.2|sh|CANCELLED|0:9|2|2"], rows   # -K killed task 0
    one = c.run(["sacct", "-j", f"{job}.1", "-P", "-n", "-o", "JobID,State"]).stdout
    assert one == f"{job}.1|FAILED\n"


def test_ctrl_c_gives_up_a_waiting_allocation(cluster, workdir):
    c = cluster
    proc = subprocess.Popen(["salloc", "--begin=now+1hour", "-J", "waitalloc", "true"],
                            env=dict(base_env(c.conf), SLURM_JOB_ID=""), cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: c.run(["squeue", "-h", "-n", "waitalloc", "-o", "%i"]).stdout.strip(),
                 15, "the allocation to be queued")
        job = int(c.run(["squeue", "-h", "-n", "waitalloc", "-o", "%i"]).stdout.split()[0])
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 1
        assert err.splitlines() == [f"salloc: Pending job allocation {job}",
                                    f"salloc: job {job} queued and waiting for resources",
                                    f"salloc: Job allocation {job} has been revoked."]
        c.wait_state(job, "CANCELLED")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_twice_within_a_second_aborts(cluster, workdir):
    """As Slurm's srun: one Ctrl-C only says so; a second within 1 s sends
    SIGINT to the tasks (presses 1.5 s apart are each a first)."""
    started = os.path.join(workdir, "ctrlc-started")
    proc = subprocess.Popen(["srun", "-J", "ctrlc", "sh", "-c", f"touch {started}; sleep 300"],
                            env=dict(base_env(cluster.conf), SLURM_JOB_ID=""), cwd=workdir,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_file(started, timeout=20)
        proc.send_signal(signal.SIGINT)
        time.sleep(1.5)
        assert proc.poll() is None, "one Ctrl-C must not end srun"
        proc.send_signal(signal.SIGINT)
        time.sleep(1.5)
        assert proc.poll() is None, "a Ctrl-C 1.5 s after the last is a first one"
        proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert err.count("srun: interrupt (one more within 1 sec to abort)") == 3, err
        assert re.search(r"srun: sending Ctrl-C to StepId=\d+\.0", err), err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
