"""The workflow engines Debian 12 packages, unchanged, run workflows to the
end on a herd cluster: Toil 5.9 (`--batchSystem slurm`: sbatch --wrap,
squeue/sacct for states, `scontrol show config` at start-up) with a Python
workflow and with toil-cwl-runner on a tiny CWL tool, and Snakemake 7.21
with `--cluster "sbatch ..."` (its generic cluster mode, which learns of
the end of a job from files the job writes). Snakemake's --slurm mode is in
test_snakemake.py.

Toil polls the cluster every SchedulerTimeSlice + 20 % (36 s) unless told
otherwise; the tests pass --statePollingWait 2 to stay short (Toil's
reading of `scontrol show config` is checked in test_show_config.py)."""

import os
import re
import shutil

import pytest

from helpers import read

TOIL_WORKFLOW = r'''
import os

from toil.common import Toil
from toil.job import Job

# where the jobs write: the workers import this file again, on the nodes
OUT = os.path.dirname(os.path.abspath(__file__))


def hello(job, name):
    import socket
    with open(os.path.join(OUT, name + ".txt"), "w") as f:
        f.write("%s job=%s host=%s\n" % (name, os.environ.get("SLURM_JOB_ID"),
                                         socket.gethostname()))
    return name


def collect(job, *names):
    with open(os.path.join(OUT, "all.txt"), "w") as f:
        f.write(" ".join(names) + "\n")


if __name__ == "__main__":
    opts = Job.Runner.getDefaultArgumentParser().parse_args()
    root = Job()
    kids = [root.addChildJobFn(hello, n) for n in ("a", "b")]
    root.addFollowOnJobFn(collect, *[k.rv() for k in kids])
    with Toil(opts) as t:
        t.start(root)
'''

CWL_TOOL = r'''cwlVersion: v1.2
class: CommandLineTool
baseCommand: [sh, -c]
arguments: ['echo "$0 job=$SLURM_JOB_ID" > out.txt', $(inputs.message)]
inputs:
  message: string
outputs:
  out:
    type: File
    outputBinding:
      glob: out.txt
'''

SNAKEFILE = r'''
rule all:
    input: "b.txt"

rule a:
    output: "a.txt"
    shell: "echo job=$SLURM_JOB_ID > {output}"

rule b:
    input: "a.txt"
    output: "b.txt"
    shell: "cat {input} > {output}; echo done >> {output}"
'''

TOIL_OPTS = ["--batchSystem", "slurm", "--statePollingWait", "2", "--disableCaching",
             "--defaultMemory", "100M", "--defaultDisk", "10M"]

needs_toil = pytest.mark.skipif(
    not (shutil.which("toil") and shutil.which("toil-cwl-runner")),
    reason="toil is not installed (scripts/install-deps.sh installs it)")


def job_ids(cluster, prefix):
    """The states of this user's jobs whose names start with prefix (Toil
    names its jobs toil_job_N_NAME)."""
    out = cluster.run(["sacct", "-X", "-n", "-P", "-o", "JobIDRaw,JobName,State"]).stdout
    rows = (line.split("|") for line in out.split("\n") if line)
    return {int(i): s for i, n, s in rows if n.startswith(prefix)}


@needs_toil
def test_toil_python_workflow(cluster, workdir):
    c = cluster
    script = os.path.join(workdir, "wf.py")
    with open(script, "w") as f:
        f.write(TOIL_WORKFLOW)
    before = set(job_ids(c, "toil_job"))
    cp = c.run(["/usr/bin/python3", script, "file:" + os.path.join(workdir, "js"),
                "--workDir", workdir] + TOIL_OPTS, cwd=workdir, check=False, timeout=240)
    log = cp.stdout + cp.stderr
    assert cp.returncode == 0, log
    assert "Finished toil run successfully" in log, log
    jobs = {i: s for i, s in job_ids(c, "toil_job").items() if i not in before}
    # the root, two children and the follow-on: one Slurm job each
    assert len(jobs) == 4 and set(jobs.values()) == {"COMPLETED"}, jobs
    for name in ("a", "b"):
        m = re.fullmatch(rf"{name} job=(\d+) host=(\S+)\n", read(os.path.join(workdir,
                                                                          name + ".txt")))
        assert m and int(m.group(1)) in jobs, m
    assert read(os.path.join(workdir, "all.txt")) == "a b\n"


@needs_toil
def test_toil_cwl_runner(cluster, workdir):
    c = cluster
    with open(os.path.join(workdir, "echo.cwl"), "w") as f:
        f.write(CWL_TOOL)
    with open(os.path.join(workdir, "echo.yml"), "w") as f:
        f.write("message: hello-cwl\n")
    outdir = os.path.join(workdir, "out")
    before = set(job_ids(c, "toil_job"))
    cp = c.run(["toil-cwl-runner", "--jobStore", "file:" + os.path.join(workdir, "js"),
                "--workDir", workdir, "--outdir", outdir,
                "--preserve-environment", "SLURM_JOB_ID"] + TOIL_OPTS + ["echo.cwl", "echo.yml"],
               cwd=workdir, check=False, timeout=240)
    log = cp.stdout + cp.stderr
    assert cp.returncode == 0, log
    jobs = {i: s for i, s in job_ids(c, "toil_job").items() if i not in before}
    assert jobs and set(jobs.values()) == {"COMPLETED"}, jobs
    m = re.fullmatch(r"hello-cwl job=(\d*)\n", read(os.path.join(outdir, "out.txt")))
    assert m, read(os.path.join(outdir, "out.txt"))
    assert not m.group(1) or int(m.group(1)) in jobs


@pytest.mark.skipif(not shutil.which("snakemake"), reason="snakemake is not installed "
                    "(scripts/install-deps.sh installs it)")
def test_snakemake_cluster_sbatch(cluster, workdir):
    c = cluster
    with open(os.path.join(workdir, "Snakefile"), "w") as f:
        f.write(SNAKEFILE)
    cp = c.run(["snakemake", "-j", "2", "--latency-wait", "5", "--cluster",
                "sbatch --parsable -N1 -n1 -t 5 -J smk-cluster -o slurm-%j.out"],
               cwd=workdir, check=False, timeout=180)
    log = cp.stdout + cp.stderr
    assert cp.returncode == 0, log
    assert "3 of 3 steps (100%) done" in log, log
    jobs = job_ids(c, "smk-cluster")
    a = read(os.path.join(workdir, "a.txt"))
    m = re.fullmatch(r"job=(\d+)\n", a)
    assert m and jobs.get(int(m.group(1))) == "COMPLETED", (a, jobs)
    assert read(os.path.join(workdir, "b.txt")) == a + "done\n"
