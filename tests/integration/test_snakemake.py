"""Debian's Snakemake (7.21) with --slurm, unchanged, runs a workflow to the
end on the cluster: it submits each rule with sbatch --wrap, guesses the
account with sacct, finds the default partition with sinfo -o %P, polls
sacct -P -n --format=JobIdRaw,State -j ID, checks the account with sacctmgr,
and runs the rule inside the job through srun -n1 --cpu-bind=q."""

import os
import re
import shutil

import pytest

from helpers import read

SNAKEFILE = r'''
rule all:
    input: "b.txt"

rule a:
    output: "a.txt"
    threads: 2
    shell: "echo job=$SLURM_JOB_ID step=$SLURM_STEP_ID cpus=$SLURM_CPUS_PER_TASK > {output}"

rule b:
    input: "a.txt"
    output: "b.txt"
    shell: "cat {input} > {output}; echo done >> {output}"
'''


@pytest.mark.skipif(not shutil.which("snakemake"), reason="snakemake is not installed "
                    "(scripts/install-deps.sh installs it)")
def test_snakemake_slurm_workflow(cluster, workdir):
    c = cluster
    with open(os.path.join(workdir, "Snakefile"), "w") as f:
        f.write(SNAKEFILE)
    # an account Snakemake checks with sacctmgr before it submits with -A
    held = c.sbatch(["--hold", "-A", "smkacct"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    # Snakemake polls at most once a second (a value above 1 it turns into 0.03)
    cp = c.run(["snakemake", "--slurm", "-j", "2", "--max-status-checks-per-second", "1",
                "--default-resources", "runtime=5", "mem_mb=1000", "slurm_account=smkacct"],
               cwd=workdir, check=False, timeout=180,
               extra_env={"USER": "root", "SLURM_JOB_ID": ""})
    log = cp.stdout + cp.stderr
    assert cp.returncode == 0, log
    jobs = [int(j) for j in re.findall(r"submitted with SLURM jobid (\d+)", log)]
    assert len(jobs) == 2, log
    assert all(c.state(j) == "COMPLETED" for j in jobs)
    a = read(os.path.join(workdir, "a.txt")).split()
    assert a == [f"job={jobs[0]}", "step=0", "cpus=2"], a
    assert read(os.path.join(workdir, "b.txt")).splitlines()[-1] == "done"
    assert "3 of 3 steps (100%) done" in log
    accounts = c.run(["sacct", "-X", "-n", "-P", "-j", ",".join(map(str, jobs)),
                      "-o", "Account"]).stdout.split()
    assert accounts == ["smkacct", "smkacct"]
    c.run(["scancel", str(held)])
