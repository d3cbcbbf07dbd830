"""Job arrays as Slurm 22.05 shows them (checked against a real Slurm):
an array task's default output file slurm-%A_%a.out and the file name
codes, squeue's folded line for stepped and listed arrays and a throttle,
scontrol's ArrayTaskId, and a waiting task cancelled by name, which only
leaves the waiting set."""

import json
import os

from helpers import wait_file, wait_for

ECHO = "#!/bin/sh\necho task=$SLURM_ARRAY_TASK_ID\n"
SLEEP = "#!/bin/sh\nexec /bin/sleep 60\n"


def squeue_ids(c, job, *extra):
    cp = c.run(["squeue", "-h", "-j", str(job), "-o", "%i %T"] + list(extra))
    return dict(line.split() for line in cp.stdout.splitlines() if line.strip())


def held(c, workdir, spec, made):
    a = c.sbatch(["--hold", f"--array={spec}"], cwd=workdir, script=SLEEP)
    made.append(a)
    return a


def test_default_output_is_slurm_A_a(cluster, workdir):
    a = cluster.sbatch(["--array=1-2"], cwd=workdir, script=ECHO)
    for t in (1, 2):
        text = wait_file(os.path.join(workdir, f"slurm-{a}_{t}.out"), contains="task=")
        assert text == f"task={t}\n", text
    # no task wrote under its own job id
    assert not [f for f in os.listdir(workdir) if f.startswith("slurm-") and "_" not in f]
    out = cluster.run(["scontrol", "show", "job", f"{a}_2"]).stdout
    assert f"StdOut={workdir}/slurm-{a}_2.out" in out, out
    j = cluster.sbatch([], cwd=workdir, script=ECHO)
    wait_file(os.path.join(workdir, f"slurm-{j}.out"), contains="task=")


def test_file_name_codes(cluster, workdir):
    """Each code as slurm-ref's sbatch expanded it for a batch step."""
    pat = "x-%A_%a_%j_%J_%s_%n_%t_%u_%x_%%_%4a_%5j.out"
    a = cluster.sbatch(["--array=7", "-J", "nm", "-o", pat], cwd=workdir, script=ECHO)
    want = f"x-{a}_7_{a}_{a}_batch_0_0_root_nm_%_0007_{a:05d}.out"
    wait_file(os.path.join(workdir, want), contains="task=7")
    j = cluster.sbatch(["-J", "pl", "-o", "p-%A_%a_%12j.out"], cwd=workdir, script=ECHO)
    wait_file(os.path.join(workdir, f"p-{j}_4294967294_{j:010d}.out"), contains="task=")


def test_show_job_names_array_files(cluster, workdir):
    made = []
    try:
        a = held(cluster, workdir, "3-4", made)
        out = cluster.run(["scontrol", "show", "job", str(a)]).stdout
        assert f"StdOut={workdir}/slurm-{a}_4294967294.out" in out, out
        b = cluster.sbatch(["--hold", "-o", "%A_%a_%j_%J_%s_%u_%x_%5j"], cwd=workdir,
                           script=SLEEP, name="s.sh")
        made.append(b)
        out = cluster.run(["scontrol", "show", "job", str(b)]).stdout
        # show job expands only %A %a %j %u %x, and no widths (slurm-ref)
        assert f"StdOut={workdir}/{b}_4294967294_{b}_%J_%s_root_" in out, out
        assert out.split(f"StdOut={workdir}/")[1].split("\n")[0].endswith("s.sh_%5j"), out
    finally:
        for j in made:
            cluster.run(["scancel", str(j)], check=False)


def test_folded_lines_as_slurm(cluster, workdir):
    made = []
    try:
        cases = {"3-9:2": "3,5,7,9", "1,4,7": "1,4,7", "5-10%2": "5-10%2",
                 "0-98:2": "0-98:2", "0-20:4%3": "0-20:4%3", "1,3-9:2,20": "1,3,5,7,9,20"}
        ids = {spec: held(cluster, workdir, spec, made) for spec in cases}
        for spec, a in ids.items():
            assert squeue_ids(cluster, a) == {f"{a}_[{cases[spec]}]": "PENDING"}, spec
            k = cluster.run(["squeue", "-h", "-j", str(a), "-o", "%K"]).stdout.strip()
            assert k == cases[spec], (spec, k)
            out = cluster.run(["scontrol", "show", "job", str(a)]).stdout
            assert f"ArrayJobId={a} ArrayTaskId={cases[spec]} " in out, out
        js = json.loads(cluster.run(["squeue", "--json", "-j", str(ids["3-9:2"])]).stdout)
        rec = next(j for j in js["jobs"] if j["job_id"] == ids["3-9:2"])
        assert rec["array_task_string"] == "3,5,7,9" and rec["array_max_tasks"] == 0, rec
        js = json.loads(cluster.run(["squeue", "--json", "-j", str(ids["5-10%2"])]).stdout)
        rec = next(j for j in js["jobs"] if j["job_id"] == ids["5-10%2"])
        assert rec["array_task_string"] == "5-10%2" and rec["array_max_tasks"] == 2, rec
        # a long list is cut as Slurm cuts it, and %i at 31 characters
        a = held(cluster, workdir, "1,0-300:2", made)
        k = cluster.run(["squeue", "-h", "-j", str(a), "-o", "%K"]).stdout.strip()
        assert k == "0-2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42...", k
        i = cluster.run(["squeue", "-h", "-j", str(a), "-o", "%i"]).stdout.strip()
        assert i == f"{a}_[0-2,4,6,8,10,12,14,16,18,20,22,24"[:31], i
    finally:
        for j in made:
            cluster.run(["scancel", str(j)], check=False)


def test_cancelled_waiting_task_leaves_no_record(cluster, workdir):
    made = []
    try:
        a = held(cluster, workdir, "3-9:2", made)
        cluster.run(["scancel", f"{a}_5"])
        wait_for(lambda: squeue_ids(cluster, a) == {f"{a}_[3,7,9]": "PENDING"}, 20,
                 "the task to leave the waiting set")
        # as slurm-ref: not even squeue -t all or -r shows the cancelled task
        assert squeue_ids(cluster, a, "-t", "all") == {f"{a}_[3,7,9]": "PENDING"}
        assert set(squeue_ids(cluster, a, "-r")) == {f"{a}_3", f"{a}_7", f"{a}_9"}
        cluster.run(["scancel", f"{a}_[3,7]"])
        wait_for(lambda: squeue_ids(cluster, a) == {f"{a}_[9]": "PENDING"}, 20,
                 "two more tasks to go")
        # the last one ends the array's record, shown then as its bare id
        cluster.run(["scancel", f"{a}_9"])
        wait_for(lambda: squeue_ids(cluster, a, "-t", "all") == {str(a): "CANCELLED"}, 20,
                 "the array to end")
        k = cluster.run(["squeue", "-h", "-t", "all", "-j", str(a), "-o", "%K"]).stdout
        assert k.strip() == "N/A", k
        out = cluster.run(["scontrol", "show", "job", str(a)]).stdout
        assert out.startswith(f"JobId={a} ArrayJobId={a} ArrayTaskId=4294967294 "), out
        cp = cluster.run(["sacct", "-j", str(a), "-X", "-n", "-P", "-o", "JobID,State"])
        assert cp.stdout.startswith(f"{a}|CANCELLED"), cp.stdout
    finally:
        for j in made:
            cluster.run(["scancel", str(j)], check=False)
