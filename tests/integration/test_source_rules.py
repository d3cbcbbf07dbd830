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
