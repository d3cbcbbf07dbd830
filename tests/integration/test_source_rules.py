"""Rules of the source tree that a reader relies on (issue 17): each of
Slurm's error numbers is defined once, in src/common/slurm_errno.h (its
values are checked against Slurm's in tests/unit/slurm_errno.c)."""

import os
import re

SRC = os.path.join(os.path.dirname(__file__), "..", "..", "src")


def test_slurm_error_numbers_defined_once():
    where = []
    for root, _, files in os.walk(SRC):
        for name in files:
            path = os.path.join(root, name)
            if not name.endswith((".c", ".h")) or name == "slurm_errno.h":
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f, 1):
                    if re.match(r"^\s*#\s*define\s+(ESLURM_\w+|SLURM_(SUCCESS|ERROR)\w*)\b", line):
                        where.append(f"{os.path.relpath(path, SRC)}:{n}: {line.strip()}")
    assert not where, "Slurm error numbers defined outside common/slurm_errno.h:\n" + \
        "\n".join(where)


def _sources():
    for root, _, files in os.walk(SRC):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, SRC), f.read().split("\n")


def test_functions_fit_on_a_screen():
    """No function body runs past 80 lines: a body opens with '{' alone in
    column 0 and closes with '}' in column 0, as the tree writes them."""
    long = []
    for rel, lines in _sources():
        start = None
        for n, line in enumerate(lines, 1):
            if line == "{":
                start = n
            elif line.startswith("}") and start is not None:
                if n - start - 1 > 80:
                    long.append(f"{rel}:{start}: {n - start - 1} lines")
                start = None
    assert not long, "functions over 80 lines:\n" + "\n".join(long)


def test_time_is_read_in_each_daemons_clock_only():
    """The system clock is read in the clock modules (ctld, noded, client)
    and nowhere else; the logger stamps its lines itself; the scheduling
    core reads no time zone (it is given the offset)."""
    where = []
    clock_call = re.compile(r"\b(time\s*\(\s*NULL\s*\)|clock_gettime|gettimeofday\s*\()")
    for rel, lines in _sources():
        if rel.endswith("clock.c") or rel == os.path.join("common", "log.c"):
            continue
        for n, line in enumerate(lines, 1):
            if clock_call.search(line) or (rel.startswith("sched") and "localtime" in line):
                where.append(f"{rel}:{n}: {line.strip()}")
    assert not where, "the clock read outside a clock module:\n" + "\n".join(where)


def test_job_table_is_walked_through_its_iterator():
    """Only job.c (the table's owner) indexes the controller's job table;
    every other file walks it with JOB_FOREACH."""
    where = []
    for rel, lines in _sources():
        if not rel.startswith("ctld") or rel in (os.path.join("ctld", "job.c"),
                                                 os.path.join("ctld", "ctld.h")):
            continue
        for n, line in enumerate(lines, 1):
            if re.search(r"->jobs\s*\[", line):
                where.append(f"{rel}:{n}: {line.strip()}")
    assert not where, "the job table indexed outside job.c:\n" + "\n".join(where)


def test_holding_list_follows_job_c_alone():
    """The list of jobs holding an allocation is indexed only by its module,
    and told of a change of state only by job.c, where every change is made:
    a state set elsewhere would leave the list (and sinfo) behind."""
    owner = os.path.join("ctld", "job_holding.c")
    where = []
    for rel, lines in _sources():
        if not rel.startswith("ctld") or rel in (owner, os.path.join("ctld", "ctld.h")):
            continue
        for n, line in enumerate(lines, 1):
            if re.search(r"->holding\s*\[", line) or (
                    "job_holding_note(" in line and rel != os.path.join("ctld", "job.c")):
                where.append(f"{rel}:{n}: {line.strip()}")
            if re.search(r"->state\s*=\s*(JOB_|\(enum job_state\))", line) and \
                    rel != os.path.join("ctld", "job.c"):
                where.append(f"{rel}:{n}: {line.strip()}")
    assert not where, "the holding list or a job's state touched outside job.c:\n" + \
        "\n".join(where)


def test_store_does_not_know_the_job_model():
    """The store keeps and hands back records; job.c builds jobs from them."""
    with open(os.path.join(SRC, "ctld", "store.c"), encoding="utf-8") as f:
        text = f.read()
    for needle in ('#include "ctld/ctld.h"', "struct job *", "job_from_record", "job_insert"):
        assert needle not in text, f"store.c uses the model: {needle}"
