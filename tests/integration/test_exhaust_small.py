"""bench/exhaust at a fiftieth of its size (issue 24 item 4): 2 arrays of
1,000 tasks and 2,000 single pending jobs fill MaxJobCount; past it, past
MaxArraySize and past max_script_size the controller refuses in Slurm's
words; a 1 MB script, 10,000 environment variables and 5,000 idle TCP
connections, from one peer and from 5,000, are taken while squeue and a
newcomer's TCP request are answered; a job submitted once room is
made runs. The full size is `bench/exhaust` (figures in docs/security.md)."""

import os
import subprocess

import helpers

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_exhaust_small(tmp_path):
    cp = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "exhaust"),
                         "--bin", helpers.HERD_BIN, "--scale", "0.02",
                         "--dir", str(tmp_path / "c")],
                        capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, cp.stdout + cp.stderr[-3000:]
    assert "MISSING" not in cp.stdout and cp.stdout.count("  ok:") == 10, cp.stdout
