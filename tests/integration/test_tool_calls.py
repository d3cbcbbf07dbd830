"""The exact command lines that workflow tools and portals issue (submitit,
Snakemake, Nextflow, Parsl, dask-jobqueue, Open OnDemand, batchspawner,
Toil), run against a herd cluster, checking what the tool parses: the bytes
where Slurm's output is fixed (columns, separators, no header, state names,
the trailing newline), the error lines tools match on, and exit codes.

Checked against real Slurm 22.05 (/work/shared/slurm-ref, 2026-12), same
call line on both, bytes compared:
  sbatch --parsable (stdin and --wrap): "ID\\n", no ";cluster" without -M;
  sbatch -p unknown: both error lines, exit 1;
  sbatch --constraint unknown: "Invalid feature specification", exit 1;
  squeue --noheader -o '%i %t' -t all -u USER: "ID ST" lines, array tasks
    "A_4", the pending tasks folded "A_[6-9%2]";
  squeue -h -j ID -o '%T %B': "RUNNING node\\n", "PENDING n/a\\n"; a job
    finished within MinJobAge prints nothing and exits 0, after it
    "slurm_load_jobs error: Invalid job id specified", exit 1; -j A_4 and
    -j A_7 (a pending task) answer that one task;
  squeue --format=%i|%T --states=all --noheader --name NAME;
  squeue --all --states=all --noconvert -O 'JobID:\\x1f,State:\\x1f,...':
    header, a 0x1f after every field, an empty NodeList while pending;
  Open OnDemand's squeue --all --states=all --noconvert -o '\\x1e%a\\x1f%A...'
    (49 codes, %d %H %I %J %W %X %z included; a held job's %Q is 0);
  squeue -u nosuchuser: the error and a blank line on stderr, exit 0;
  %b, tres-per-node, Gres and scontrol's TresPerNode: "gres:gpu:1" (for
    --gres and --gpus-per-node; N/A for --gpus);
  sacct -X --parsable2 --noheader --format=JobIdRaw,State ... --name NAME,
    held jobs and an array's record that tasks have left outside the window;
  sacct -X --noheader --format=jobid,state%20 --job IDS: %-12s, a blank,
    %20s, a trailing blank;
  sacct -n -j IDS --format JobIDRaw,State,ExitCode -P -S T -E T;
  sacct -j ARRAY (its tasks A_4, A_5, then the pending fold), sacct -j A_4
    (JobIDRaw N, JobID A_4, A_4.batch); sacct --json -j A_4: that task,
    with "array";
  scancel of an unknown id: a cancel silent, exit 0 (-v says why); a
    signal (--signal, -b) "scancel: error: Kill job error on job id 99:
    Invalid job id specified", exit 1; -Q quiet;
  scontrol requeue unknown / pending: "Invalid job id specified for job N",
    "Job is pending execution for job N", exit 1;
  scontrol show job ID (layout, first line, the blank line after);
  scontrol show job A_4: "JobId=N ArrayJobId=A ArrayTaskId=4
    ArrayTaskThrottle=2 JobName=...";
  scontrol show hostnames; sinfo -o %P; sinfo -h -o "%D,%T";
  sinfo -N -O "NodeList: ,AllocMem: ,...": header and one row per node.
Where herd differs from 22.05 on purpose (noted at the tests): sacct shows
the ID.extern step (22.05 does with PrologFlags=contain); GresUsed carries
"(IDX:...)" (22.05 does when gres.conf names the devices).
`scancel --signal SIG ID` signals the job's steps only, not the batch shell,
as 22.05 does without -b/-f; squeue sorts states by name (CD, F, PD, R) as
22.05 does. A job without -A shows the user's default account (%a, sacct,
scontrol: root's is root, a user without an association "(null)"), and %o
of a --wrap or stdin job is "(null)", as 22.05. (sacct --json lists a pending array record before its
tasks, the table after them: both as 22.05.)
"""

import json
import os
import re
import time

import pytest

from helpers import open_dir, read, wait_file, wait_for, cluster_fixture

SLEEP = "#!/bin/sh\necho hi\nexec /bin/sleep 300\n"
INVALID_ID = "slurm_load_jobs error: Invalid job id specified\n"


def iso(t):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(t))


@pytest.fixture(scope="module")
def calls(session_cluster, tmp_path_factory, users):
    """Jobs submitted as the tools submit them: one with every option and
    the script on stdin, one from a file with --gpus, a failing --wrap, a
    throttled array, a held job, a 2-node job printing its hostnames."""
    c = session_cluster
    wd = tmp_path_factory.mktemp("toolcalls")
    open_dir(wd)
    wd = str(wd)
    tag = f"tc{int(time.time()) % 100000}"
    j = {"dir": wd, "tag": tag, "t0": time.time() - 1}
    out = os.path.join(wd, "full.out")
    with open(out, "w") as f:
        f.write("old\n")          # --open-mode=append keeps it
    os.chmod(out, 0o666)
    full = c.run(["sbatch", "--parsable", f"--job-name={tag}full", f"--output={out}",
                  f"--error={wd}/full.err", "--export=ALL", "--comment=tool call", "-A", "root",
                  "-p", "debug", "--qos", "normal", "--exclude", "node2", "--requeue",
                  "--nodes", "1", "--ntasks", "1", "--ntasks-per-node", "1", "-c", "2",
                  "--mem", "100", "--gres", "gpu:1", "--signal", "B:USR2@30",
                  "--open-mode=append"],
                 cwd=wd, input="#!/bin/sh\necho \"var=$TC_VAR\"\nexec /bin/sleep 300\n",
                 extra_env={"TC_VAR": "from-submit"})
    j["full_out"] = full.stdout
    j["full"] = int(full.stdout)
    script = os.path.join(wd, "gpus.sh")
    with open(script, "w") as f:
        f.write(SLEEP)
    j["gpus"] = c.sbatch(["--job-name", tag + "gpus", "--gpus", "1", "--gpus-per-node", "1",
                          "--mem-per-cpu", "50", "--ntasks", "2", f"--output={wd}/gpus.out",
                          script], cwd=wd)
    j["fail"] = c.sbatch(["--job-name", tag + "fail", f"--output={wd}/fail.out",
                          "--wrap", "exit 3"], cwd=wd)
    j["array"] = c.sbatch(["--job-name", tag + "arr", "--array", "4-9%2",
                           "--output=/dev/null", "--wrap", "exec sleep 300"], cwd=wd)
    j["held"] = c.sbatch(["--job-name", tag + "held", "--hold", "--wrap", "true"], cwd=wd)
    j["hosts"] = c.sbatch(["--job-name", tag + "hosts", "--nodes", "2", "--mem", "200",
                           f"--output={wd}/hosts.out",
                           "--wrap", 'scontrol show hostnames "$SLURM_JOB_NODELIST"'], cwd=wd)
    for k in ("full", "gpus"):
        c.wait_state(j[k], "RUNNING")
    c.wait_state(j["fail"], "FAILED")
    c.wait_state(j["hosts"], "COMPLETED")

    def two_tasks_running():
        out = c.run(["squeue", "-h", "-j", str(j["array"]), "-t", "R", "-o", "%i"]).stdout
        return len(out.split()) == 2
    wait_for(two_tasks_running, 30, "two tasks of the throttled array to run")
    yield j
    c.run(["scancel"] + [str(j[k]) for k in ("full", "gpus", "array", "held")], check=False)


def squeue(c, *args, **kw):
    return c.run(["squeue"] + list(args), **kw)


# ---- sbatch -------------------------------------------------------------

def test_sbatch_parsable_prints_only_the_id(calls):
    assert calls["full_out"] == f"{calls['full']}\n"
    assert calls["gpus"] > calls["full"]


def test_sbatch_options_took_effect(session_cluster, calls):
    c = session_cluster
    text = wait_file(os.path.join(calls["dir"], "full.out"), contains="var=")
    assert text == "old\nvar=from-submit\n", text
    kv = c.run(["scontrol", "show", "job", str(calls["full"])]).stdout
    for want in ("Requeue=1", "NodeList=node1", "NumCPUs=2", "MinMemoryNode=100M",
                 "Partition=debug", f"JobName={calls['tag']}full"):
        assert re.search(r"(^|\s)" + re.escape(want) + r"(\s|$)", kv), (want, kv)
    assert "   Comment=tool call \n" in kv, kv
    assert f"   StdOut={calls['dir']}/full.out\n" in kv, kv
    # --gpus 1 --gpus-per-node 1 --mem-per-cpu 50 --ntasks 2: 22.05's "gres:gpu:1" (23.02
    # writes "gres/gpu:1"), for --gres gpu:1 too
    assert squeue(c, "-h", "-j", str(calls["gpus"]), "-o", "%b|%C|%m").stdout == \
        "gres:gpu:1|2|50M\n"
    assert squeue(c, "-h", "-j", str(calls["full"]), "-O", "tres-per-node:12,Gres:10").stdout \
        == "gres:gpu:1  gres:gpu:1\n"


def test_sbatch_errors_tools_match(session_cluster, calls):
    c = session_cluster
    cp = c.run(["sbatch", "--parsable", "-p", "nosuchpart", "--wrap", "true"], check=False,
               cwd=calls["dir"])
    assert (cp.returncode, cp.stdout, cp.stderr) == (
        1, "", "sbatch: error: invalid partition specified: nosuchpart\n"
               "sbatch: error: Batch job submission failed: Invalid partition name specified\n")
    cp = c.run(["sbatch", "--parsable", "--constraint", "nosuchfeature", "--wrap", "true"],
               check=False, cwd=calls["dir"])
    assert (cp.returncode, cp.stdout, cp.stderr) == (
        1, "", "sbatch: error: Batch job submission failed: Invalid feature specification\n")


# ---- squeue -------------------------------------------------------------

def test_nextflow_squeue_all_states_of_user(session_cluster, calls):
    """Nextflow: squeue --noheader -o '%i %t' -t all -u $USER"""
    out = squeue(session_cluster, "--noheader", "-o", "%i %t", "-t", "all", "-u", "root").stdout
    assert out.endswith("\n") and "JOBID" not in out
    lines = out.splitlines()
    # an array's folded tasks as Slurm prints them: 12_[3-9], 17_[0-98:2], 16_[5-10%2], and
    # cut at 31 characters (without its bracket) when long
    assert all(re.fullmatch(r"\d+(_\d+|_\[[0-9,%:-]+\]?)? [A-Z]{1,2}", l) for l in lines), out
    a = calls["array"]
    for want in (f"{calls['full']} R", f"{calls['held']} PD", f"{calls['fail']} F",
                 f"{calls['hosts']} CD", f"{a}_4 R", f"{a}_5 R", f"{a}_[6-9%2] PD"):
        assert want in lines, (want, out)


def test_only_job_state_polls(session_cluster, calls):
    """Nextflow with onlyJobState: squeue --noheader -o '%i %t' -t all
    --only-job-state; SkyPilot: squeue -h --only-job-state --jobs ID -o "%T"
    (Slurm 23.02's lighter query): the same lines as without it."""
    c = session_cluster
    base = ["--noheader", "-o", "%i %t", "-t", "all"]
    assert squeue(c, *base, "--only-job-state").stdout == squeue(c, *base).stdout
    cp = squeue(c, "-h", "--only-job-state", "--jobs", str(calls["held"]), "-o", "%T")
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "PENDING\n", "")


def test_batchspawner_squeue_state_and_host(session_cluster, calls):
    """batchspawner: squeue -h -j ID -o '%T %B'"""
    c = session_cluster
    assert squeue(c, "-h", "-j", str(calls["full"]), "-o", "%T %B").stdout == "RUNNING node1\n"
    assert squeue(c, "-h", "-j", str(calls["held"]), "-o", "%T %B").stdout == "PENDING n/a\n"
    # Finished, within MinJobAge: no line without -t, and no error.
    cp = squeue(c, "-h", "-j", str(calls["fail"]), "-o", "%T %B")
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "", "")
    cp = squeue(c, "-h", "-j", "99999", "-o", "%T %B", check=False)
    assert (cp.returncode, cp.stdout, cp.stderr) == (1, "", INVALID_ID)


def test_squeue_one_array_task(session_cluster, calls):
    a = calls["array"]
    c = session_cluster
    assert squeue(c, "-h", "-j", f"{a}_4", "-o", "%i %T").stdout == f"{a}_4 RUNNING\n"
    assert squeue(c, "-h", "-j", f"{a}_7", "-o", "%i %T").stdout == f"{a}_7 PENDING\n"
    assert squeue(c, "-h", "-j", f"{a}_99", "-o", "%i %T").stdout == ""


def test_squeue_by_name_pipe_format(session_cluster, calls):
    """squeue --format=%i|%T --states=all --noheader --name NAME"""
    a = calls["array"]
    out = squeue(session_cluster, "--format=%i|%T", "--states=all", "--noheader",
                 "--name", calls["tag"] + "arr").stdout
    assert out == f"{a}_[6-9%2]|PENDING\n{a}_4|RUNNING\n{a}_5|RUNNING\n", out
    out = squeue(session_cluster, "--format=%i|%T", "--states=all", "--noheader",
                 "--name", calls["tag"] + "fail").stdout
    assert out == f"{calls['fail']}|FAILED\n"


def test_squeue_unknown_user(session_cluster, calls):
    """squeue -u nosuchuser: as Slurm 22.05, the error and a blank line on
    stderr, exit 0, no job; with a valid user beside it, that user's jobs."""
    cp = squeue(session_cluster, "-h", "-u", "nosuchuser", "-o", "%i")
    assert (cp.returncode, cp.stdout, cp.stderr) == (
        0, "", "squeue: error: Invalid user: nosuchuser\n\n")
    out = squeue(session_cluster, "-h", "-u", "nosuchuser,root", "-o", "%i").stdout
    assert f"{calls['held']}\n" in out


# Open OnDemand's Slurm adapter (OSC/ood_core lib/ood_core/job/adapters/slurm.rb,
# squeue_args and all_squeue_fields): -o with a record separator first and a
# unit separator between its 49 codes; it drops two records (the header) and
# zips each record's fields with its keys.
OOD_CODES = "aABcCdDeEfFgGhHiIjJkKlLmMnNoOqPQrStTuUvVwWxXyYzZb"
OOD_HEADER = ("ACCOUNT JOBID EXEC_HOST MIN_CPUS CPUS MIN_TMP_DISK NODES END_TIME DEPENDENCY "
              "FEATURES ARRAY_JOB_ID GROUP GROUP OVER_SUBSCRIBE SOCKETS_PER_NODE JOBID "
              "CORES_PER_SOCKET NAME THREADS_PER_CORE COMMENT ARRAY_TASK_ID TIME_LIMIT TIME_LEFT "
              "MIN_MEMORY TIME REQ_NODES NODELIST COMMAND CONTIGUOUS QOS PARTITION PRIORITY REASON "
              "START_TIME ST STATE USER UID RESERVATION SUBMIT_TIME WCKEY LICENSES EXC_NODES "
              "CORE_SPEC NICE SCHEDNODES S:C:T WORK_DIR TRES_PER_NODE").split()


def test_ood_squeue_call(session_cluster, calls):
    """squeue --all --states=all --noconvert -o '\x1e%a\x1f%A...' [-j ID]:
    Slurm 22.05's header and values (slurm-ref, 2026-12), no error on
    stderr (OnDemand reads one as a failure), every record 49 fields."""
    fmt = "\x1e" + "\x1f".join("%" + ch for ch in OOD_CODES)
    c = session_cluster
    cp = squeue(c, "--all", "--states=all", "--noconvert", "-o", fmt)
    assert cp.stderr == "", cp.stderr
    records = cp.stdout.split("\x1e")
    assert records[0] == "" and records[1] == "\x1f".join(OOD_HEADER) + "\n", records[1]
    jobs = [dict(zip(OOD_CODES, r.rstrip("\n").split("\x1f"))) for r in records[2:]]
    assert all(len(r.rstrip("\n").split("\x1f")) == len(OOD_CODES) for r in records[2:])
    held = [j for j in jobs if j["A"] == str(calls["held"])]
    assert len(held) == 1, jobs
    h = held[0]
    assert (h["t"], h["T"], h["r"], h["Q"], h["N"], h["B"], h["S"]) == (
        "PD", "PENDING", "JobHeldUser", "0", "", "n/a", "N/A"), h
    assert (h["a"], h["o"]) == ("root", "(null)"), h   # no -A; --wrap: as 22.05
    assert (h["d"], h["H"], h["I"], h["J"], h["W"], h["X"], h["z"], h["b"]) == (
        "0", "*", "*", "*", "(null)", "N/A", "*:*:*", "N/A"), h
    full = [j for j in jobs if j["A"] == str(calls["full"])][0]
    assert (full["t"], full["N"], full["b"], full["C"]) == ("R", "node1", "gres:gpu:1", "2"), full
    a = calls["array"]
    assert {j["i"] for j in jobs if j["F"] == str(a)} == {f"{a}_4", f"{a}_5", f"{a}_[6-9%2]"}
    # status(id): -j ID with the three codes it needs
    cp = squeue(c, "--all", "--states=all", "--noconvert", "-o", "\x1e%A\x1f%i\x1f%t",
                "-j", f"{a}_4")
    recs = [r.rstrip("\n").split("\x1f") for r in cp.stdout.split("\x1e")[2:]]
    assert [r[1:] for r in recs] == [[f"{a}_4", "R"]], cp.stdout


def test_squeue_unit_separator_fields(session_cluster, calls):
    """squeue --all --states=all --noconvert -O 'JobID:\\x1f,State:\\x1f,...'
    (a field list ended by 0x1f, as portals split it)"""
    fields = ["JobID", "State", "Name", "NodeList", "Reason", "ArrayJobID", "ArrayTaskID"]
    spec = ",".join(f + ":\x1f" for f in fields)
    out = squeue(session_cluster, "--all", "--states=all", "--noconvert", "-O", spec).stdout
    lines = out.split("\n")
    assert lines[0] == ("JOBID\x1fSTATE\x1fNAME\x1fNODELIST\x1fREASON\x1fARRAY_JOB_ID\x1f"
                        "ARRAY_TASK_ID\x1f"), lines[0]
    assert lines[-1] == "", "output ends with a newline"
    h, f = calls["held"], calls["full"]
    assert f"{h}\x1fPENDING\x1f{calls['tag']}held\x1f\x1fJobHeldUser\x1f{h}\x1fN/A\x1f" in lines
    assert f"{f}\x1fRUNNING\x1f{calls['tag']}full\x1fnode1\x1fNone\x1f{f}\x1fN/A\x1f" in lines
    a = calls["array"]
    pend = [l for l in lines if l.startswith(f"{a}\x1f")]
    assert pend == [f"{a}\x1fPENDING\x1f{calls['tag']}arr\x1f\x1fJobArrayTaskLimit\x1f{a}\x1f"
                    "6-9%2\x1f"], pend
    assert all(l.count("\x1f") == len(fields) for l in lines[:-1]), out
    noheader = squeue(session_cluster, "--all", "--states=all", "--noconvert", "-h",
                      "-O", "JobID:\x1f,State:\x1f").stdout
    assert f"{calls['fail']}\x1fFAILED\x1f\n" in noheader and "JOBID" not in noheader


# ---- sacct --------------------------------------------------------------

def test_submitit_sacct_parsable2(session_cluster, calls):
    """submitit: sacct -o JobID,State,NodeList --parsable2 -j ID"""
    i = calls["fail"]
    out = session_cluster.run(["sacct", "-o", "JobID,State,NodeList", "--parsable2",
                               "-j", str(i)]).stdout
    node = session_cluster.field(i, "%N")
    assert out == (f"JobID|State|NodeList\n{i}|FAILED|{node}\n{i}.batch|FAILED|{node}\n"
                   f"{i}.extern|COMPLETED|{node}\n"), out


def test_snakemake_sacct_by_name(session_cluster, calls):
    """Snakemake: sacct -X --parsable2 --noheader --format=JobIdRaw,State
    --starttime T --endtime now --name NAME"""
    out = session_cluster.run(["sacct", "-X", "--parsable2", "--noheader",
                               "--format=JobIdRaw,State", "--starttime", iso(calls["t0"]),
                               "--endtime", "now", "--name", calls["tag"] + "fail"]).stdout
    assert out == f"{calls['fail']}|FAILED\n"


def test_parsl_sacct_fixed_width(session_cluster, calls):
    """Parsl: sacct -X --noheader --format=jobid,state%20 --job 'IDS'"""
    ids = [calls[k] for k in ("full", "fail", "held")]
    out = session_cluster.run(["sacct", "-X", "--noheader", "--format=jobid,state%20",
                               "--job", ",".join(map(str, ids))]).stdout
    assert out == "".join(f"{i:<12} {s:>20} \n" for i, s in
                          zip(ids, ("RUNNING", "FAILED", "PENDING"))), out


def test_sacct_array_tasks(session_cluster, calls):
    """-j of an array names its tasks (ID_TASK rows, the pending ones folded);
    -j ID_4 one task, its steps as ID_4.batch"""
    c = session_cluster
    a = calls["array"]
    out = c.run(["sacct", "-X", "--noheader", "--format=jobid,state%20", "--job", str(a)]).stdout
    # as 22.05: the pending record after the tasks that left it
    assert out.splitlines() == [f"{i:<12} {s:>20} " for i, s in (
        (f"{a}_4", "RUNNING"), (f"{a}_5", "RUNNING"), (f"{a}_[6-9%2]", "PENDING"))], out
    t4 = c.run(["squeue", "-h", "-j", f"{a}_4", "-o", "%A"]).stdout.strip()
    out = c.run(["sacct", "-n", "-P", "-j", f"{a}_4", "--format", "JobIDRaw,JobID,State"]).stdout
    assert out == (f"{t4}|{a}_4|RUNNING\n{t4}.batch|{a}_4.batch|RUNNING\n"
                   f"{t4}.extern|{a}_4.extern|RUNNING\n"), out
    out = c.run(["sacct", "-n", "-P", "-j", f"{a}_4.batch", "--format", "JobID"]).stdout
    assert out == f"{a}_4.batch\n"


def test_sacct_window_leaves_out_uneligible(session_cluster, calls):
    """Without -j, Slurm 22.05's time window leaves out the pending jobs it
    has no eligible time for: a held job (pending, or cancelled so), an
    array's record once tasks left it. -j still names them."""
    c = session_cluster
    tag = calls["tag"]
    out = c.run(["sacct", "-X", "-P", "-n", "--format=JobIDRaw,JobID,State",
                 "--name", f"{tag}arr,{tag}held"]).stdout
    a = calls["array"]
    assert [l.split("|")[1:] for l in out.splitlines()] == [
        [f"{a}_4", "RUNNING"], [f"{a}_5", "RUNNING"]], out
    out = c.run(["sacct", "-X", "-P", "-n", "--format=JobID,State", "-j",
                 str(calls["held"])]).stdout
    assert out == f"{calls['held']}|PENDING\n"
    # held, then cancelled without running: still never eligible (22.05)
    gone = c.sbatch(["--job-name", f"{tag}gone", "--hold", "--wrap", "true"], cwd=calls["dir"])
    c.run(["scancel", str(gone)])
    c.wait_state(gone, "CANCELLED")
    out = c.run(["sacct", "-X", "-P", "-n", "--format=JobID,State", "--name", f"{tag}gone"])
    assert out.stdout == "", out
    out = c.run(["sacct", "-X", "-P", "-n", "--format=JobID,State", "-j", str(gone)]).stdout
    assert out == f"{gone}|CANCELLED by 0\n", out


def test_sacct_json_one_task(session_cluster, calls):
    """sacct --json -j A_4: that task alone, with Slurm 22.05's "array"
    (the array's id, the task's id); -j A: the pending record first, its
    tasks as a hex mask and its throttle."""
    c = session_cluster
    a = calls["array"]
    jobs = json.loads(c.run(["sacct", "--json", "-j", f"{a}_4"]).stdout)["jobs"]
    assert [(j["array"]["job_id"], j["array"]["task_id"]) for j in jobs] == [(a, 4)], jobs
    jobs = json.loads(c.run(["sacct", "--json", "-j", f"{a}_7"]).stdout)["jobs"]
    assert jobs == []
    jobs = json.loads(c.run(["sacct", "--json", "-j", str(a)]).stdout)["jobs"]
    assert jobs[0]["array"] == {"job_id": a, "limits": {"max": {"running": {"tasks": 2}}},
                                "task": "0x3c0", "task_id": None}, jobs[0]["array"]
    assert sorted(j["array"]["task_id"] for j in jobs[1:]) == [4, 5]


def test_toil_sacct_exit_codes(session_cluster, calls):
    """Toil: sacct -n -j IDS --format JobIDRaw,State,ExitCode -P -S T -E T"""
    f, h = calls["fail"], calls["hosts"]
    out = session_cluster.run(["sacct", "-n", "-j", f"{f},{h}", "--format",
                               "JobIDRaw,State,ExitCode", "-P", "-S", "1970-01-01T00:00:00",
                               "-E", iso(time.time() + 60)]).stdout
    assert out == (f"{f}|FAILED|3:0\n{f}.batch|FAILED|3:0\n{f}.extern|COMPLETED|0:0\n"
                   f"{h}|COMPLETED|0:0\n{h}.batch|COMPLETED|0:0\n{h}.extern|COMPLETED|0:0\n"), out


# ---- scancel, scontrol ----------------------------------------------------

def test_scancel_errors(session_cluster):
    """Slurm 22.05 (slurm-ref, 2026-12) on a job id that is unknown: a
    signal (--signal, -b) says why and exits 1; a cancel (plain, -f, -v)
    succeeds, saying why only with -v; -Q (Slurm's verbosity -1) says
    nothing."""
    err = "scancel: error: Kill job error on job id 99999: Invalid job id specified\n"
    cases = [
        (["--signal", "SIGUSR2"], 1, err), (["-b"], 1, err), (["--signal=KILL"], 1, err),
        (["-Q", "--signal=USR2"], 1, ""), ([], 0, ""), (["-f"], 0, ""),
        (["-v"], 0, "scancel: Terminating job 99999\n" + err), (["-Q", "-v"], 0, ""),
    ]
    for args, rc, stderr in cases:
        cp = session_cluster.run(["scancel"] + args + ["99999"], check=False)
        assert (cp.returncode, cp.stdout, cp.stderr) == (rc, "", stderr), args
    cp = session_cluster.run(["scancel", "99999_4"], check=False)
    assert (cp.returncode, cp.stderr) == (0, "")
    # filters that pick nothing: silent, and with -v Slurm's line
    cp = session_cluster.run(["scancel", "-v", "-t", "pd", "-n", "nosuchjobname", "-u", "root"])
    assert (cp.returncode, cp.stdout, cp.stderr) == (
        0, "", "scancel: error: No active jobs match ALL job filters, including: "
               "job_name=nosuchjobname state=PENDING user_name=root \n")
    cp = session_cluster.run(["scancel", "-n", "nosuchjobname"])
    assert (cp.returncode, cp.stdout, cp.stderr) == (0, "", "")


def test_scancel_signal_then_cancel(session_cluster, workdir):
    # As 22.05: without -b/-f the signal reaches the job's steps (where
    # submitit runs its Python), not the batch shell.
    c = session_cluster
    marker, shell = os.path.join(workdir, "usr2"), os.path.join(workdir, "shell-usr2")
    loop = "i=0; while [ \\$i -lt 600 ]; do sleep 0.1; i=\\$((i+1)); done"   # the step's $i
    job = c.sbatch([], cwd=workdir, script=f"#!/bin/sh\ntrap 'echo usr2 >> {shell}' USR2\n"
                   f"srun sh -c \"trap 'echo usr2 >> {marker}' USR2; "
                   f"echo ready > {workdir}/ready; {loop}\"\n")
    c.wait_state(job, "RUNNING")
    wait_file(os.path.join(workdir, "ready"))
    cp = c.run(["scancel", str(job), "--signal", "SIGUSR2"])
    assert (cp.stdout, cp.stderr) == ("", "")
    assert wait_file(marker, timeout=15) == "usr2\n"
    assert not os.path.exists(shell)
    assert c.state(job) == "RUNNING"
    cp = c.run(["scancel", str(job)])
    assert (cp.stdout, cp.stderr) == ("", "")
    c.wait_state(job, "CANCELLED")


def test_scontrol_requeue(session_cluster, workdir, calls):
    c = session_cluster
    cp = c.run(["scontrol", "requeue", "99999"], check=False)
    assert (cp.returncode, cp.stderr) == (1, "Invalid job id specified for job 99999\n")
    cp = c.run(["scontrol", "requeue", str(calls["held"])], check=False)
    assert (cp.returncode, cp.stderr) == (1, f"Job is pending execution for job {calls['held']}\n")
    job = c.sbatch([], cwd=workdir, script=SLEEP)
    c.wait_state(job, "RUNNING")
    cp = c.run(["scontrol", "requeue", str(job)])
    assert (cp.stdout, cp.stderr) == ("", "")

    def restarted():
        kv = c.run(["scontrol", "show", "job", str(job)]).stdout
        return "Restarts=1" in kv.split()
    wait_for(restarted, 20, f"job {job} to be requeued")
    c.run(["scancel", str(job)])


def test_scontrol_show_job(session_cluster, calls):
    c = session_cluster
    out = c.run(["scontrol", "show", "job", str(calls["full"])]).stdout
    lines = out.split("\n")
    assert lines[0] == f"JobId={calls['full']} JobName={calls['tag']}full"
    assert lines[1].startswith("   UserId=root(0) GroupId=root(0) ")
    assert "   JobState=RUNNING Reason=None Dependency=(null)" in lines
    assert out.endswith("\n\n") and not out.endswith("\n\n\n"), out[-20:]
    a = calls["array"]
    first = c.run(["scontrol", "show", "job", f"{a}_4"]).stdout.split("\n")[0]
    assert re.fullmatch(rf"JobId=\d+ ArrayJobId={a} ArrayTaskId=4 ArrayTaskThrottle=2 "
                        rf"JobName={calls['tag']}arr", first), first
    cp = c.run(["scontrol", "show", "job", "99999"], check=False)
    assert (cp.returncode, cp.stdout, cp.stderr) == (1, "", INVALID_ID)


def test_scontrol_show_hostnames_in_job(calls):
    """scontrol show hostnames "$SLURM_JOB_NODELIST" inside a 2-node job"""
    assert read(os.path.join(calls["dir"], "hosts.out")) == "node1\nnode2\n"


def test_scontrol_show_config(session_cluster):
    out = session_cluster.run(["scontrol", "show", "config"]).stdout
    lines = out.split("\n")
    assert re.fullmatch(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[0])
    assert f"{'MinJobAge':<23} = 1800 sec" in lines, out
    assert f"{'SlurmdTimeout':<23} = 6 sec" in lines, out
    assert re.search(r"^SLURM_VERSION\s+= \d+\.\d+\.\d+$", out, re.M), out


# ---- sinfo ------------------------------------------------------------------

def test_sinfo_partitions_and_counts(session_cluster, calls):
    c = session_cluster
    assert c.run(["sinfo", "-o", "%P"]).stdout == "PARTITION\ndebug*\n"
    out = c.run(["sinfo", "-h", "-o", "%D,%T"]).stdout
    rows = [l.split(",") for l in out.splitlines()]
    assert out.endswith("\n") and all(len(r) == 2 and r[0].isdigit() for r in rows), out
    assert sum(int(r[0]) for r in rows) == 2, out
    assert "mixed" in [r[1] for r in rows], out    # node1 holds the 2-CPU job


def test_sinfo_node_fields(session_cluster, calls):
    out = session_cluster.run(["sinfo", "-N", "-O", "NodeList: ,AllocMem: ,Memory: ,CPUsState: ,"
                               "StateLong: ,Partition: ,Gres: ,GresUsed:"]).stdout
    lines = out.split("\n")
    assert lines[0] == "NODELIST ALLOCMEM MEMORY CPUS(A/I/O/T) STATE PARTITION GRES GRES_USED"
    assert lines[-1] == "" and len(lines) == 4, out
    for name, line in zip(("node1", "node2"), lines[1:3]):
        m = re.fullmatch(rf"{name} (\d+) 8000 (\d+)/(\d+)/0/8 ([a-z]+) debug\* gpu:4 "
                         r"gpu:(\d)(\(IDX:[0-9,N/A-]+\))?", line)
        assert m, line
        assert int(m.group(2)) + int(m.group(3)) == 8, line
    n1 = re.fullmatch(r"node1 (\d+) \S+ (\d+)/.*gpu:(\d).*", lines[1])
    assert int(n1.group(1)) >= 100 and int(n1.group(2)) >= 2 and int(n1.group(3)) >= 1, lines[1]


# ---- a job that has left the controller -------------------------------------

@pytest.fixture(scope="module")
def minjobage_cluster(tmp_path_factory, users):
    """A 1-node cluster whose finished jobs leave squeue after 3 s."""
    yield from cluster_fixture(tmp_path_factory, "minjobage",
                               ["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "1000",
                                "--set", "MinJobAge=3"])


def test_finished_job_then_invalid_id(minjobage_cluster, tmp_path):
    c = minjobage_cluster
    open_dir(tmp_path)
    job = c.sbatch(["--wrap", "true", "--output=/dev/null"], cwd=str(tmp_path))
    c.wait_state(job, "COMPLETED")
    cp = c.run(["squeue", "-h", "-j", str(job), "-o", "%T %B"])
    assert (cp.stdout, cp.stderr) == ("", "")

    def gone():
        cp = c.run(["squeue", "-h", "-j", str(job), "-o", "%T %B"], check=False)
        return cp if cp.returncode else None
    cp = wait_for(gone, 30, f"job {job} to leave the controller after MinJobAge")
    assert (cp.returncode, cp.stdout, cp.stderr) == (1, "", INVALID_ID)
    cp = c.run(["scontrol", "show", "job", str(job)], check=False)
    assert (cp.returncode, cp.stderr) == (1, INVALID_ID)
    # accounting keeps it
    out = c.run(["sacct", "-n", "-X", "-P", "-j", str(job), "--format", "JobIDRaw,State"]).stdout
    assert out == f"{job}|COMPLETED\n"


def test_sacct_json_steps(session_cluster, workdir):
    """sacct --json: each job's "steps" holds ID.batch, ID.extern and srun's
    ID.0, ID.1 with their own states and exit codes, as data_parser does."""
    c = session_cluster
    job = c.sbatch(["--output=/dev/null", "--wrap", "srun true; srun sh -c 'exit 2'; exit 0"],
                   cwd=workdir)
    c.wait_state(job, "COMPLETED", timeout=60)
    doc = json.loads(c.run(["sacct", "-j", str(job), "--json"]).stdout)
    steps = doc["jobs"][0]["steps"]
    got = [(s["step"]["id"], s["state"][0], s["exit_code"]["return_code"]["number"])
           for s in steps]
    assert got == [(f"{job}.batch", "COMPLETED", 0), (f"{job}.extern", "COMPLETED", 0),
                   (f"{job}.0", "COMPLETED", 0), (f"{job}.1", "FAILED", 2)], got
    assert [s["step"]["name"] for s in steps][2:] == ["true", "sh"]
    # the table agrees
    out = c.run(["sacct", "-n", "-P", "-j", str(job), "-o", "JobID,State,ExitCode"]).stdout
    assert out == (f"{job}|COMPLETED|0:0\n{job}.batch|COMPLETED|0:0\n"
                   f"{job}.extern|COMPLETED|0:0\n{job}.0|COMPLETED|0:0\n{job}.1|FAILED|2:0\n"), out
