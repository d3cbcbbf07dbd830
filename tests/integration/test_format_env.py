"""Slurm's format defaults from the environment (SQUEUE_FORMAT,
SQUEUE_FORMAT2, SINFO_FORMAT) and the date line of the long forms, as Slurm
22.05 prints them (issue 18, found by tools/slurmdiff)."""

import re


def held(c, workdir, name):
    return c.sbatch(["--hold", "-J", name], cwd=workdir, script="#!/bin/sh\ntrue\n")


def test_squeue_format_from_environment(cluster, workdir):
    c = cluster
    j = held(c, workdir, "envfmt")
    env = {"SQUEUE_FORMAT": "%i %j"}
    assert c.run(["squeue", "-j", str(j)], extra_env=env).stdout == f"JOBID NAME\n{j} envfmt\n"
    # -o wins over the environment, and SQUEUE_FORMAT over SQUEUE_FORMAT2
    assert c.run(["squeue", "-h", "-j", str(j), "-o", "%T"], extra_env=env).stdout == "PENDING\n"
    env2 = {"SQUEUE_FORMAT2": "JobID:8,Name:7"}
    assert c.run(["squeue", "-j", str(j)], extra_env=env2).stdout == \
        f"JOBID   NAME   \n{j:<8}envfmt \n"
    both = dict(env, **env2)
    assert c.run(["squeue", "-h", "-j", str(j)], extra_env=both).stdout == f"{j} envfmt\n"
    # -l keeps its own columns
    long = c.run(["squeue", "-l", "-j", str(j)], extra_env=both).stdout.splitlines()
    assert long[1].split()[:5] == ["JOBID", "PARTITION", "NAME", "USER", "STATE"]


def test_sinfo_format_from_environment(cluster):
    env = {"SINFO_FORMAT": "%P %a"}
    out = cluster.run(["sinfo"], extra_env=env).stdout.splitlines()
    assert out[0] == "PARTITION AVAIL" and all(l.endswith(" up") for l in out[1:]), out
    # -s and -N keep their own defaults
    assert cluster.run(["sinfo", "-s"], extra_env=env).stdout.split()[3] == "NODES(A/I/O/T)"
    assert cluster.run(["sinfo", "-N"], extra_env=env).stdout.split()[0] == "NODELIST"


def test_long_forms_date_line_has_a_two_digit_day(cluster, workdir):
    j = held(cluster, workdir, "dateline")
    for cmd in (["squeue", "-l", "-j", str(j)], ["sinfo", "-l"]):
        first = cluster.run(cmd).stdout.splitlines()[0]
        assert re.fullmatch(r"[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d \d{4}", first), \
            (cmd, first)
