"""The time limit: the `-t 1` job submitted when the shared cluster started
(see conftest.py) ends TIMEOUT about a minute later; this file sorts last so
that the wait overlaps the other tests."""

import os
import time

from helpers import read


def test_time_limit_gives_timeout(session_cluster):
    c = session_cluster
    assert c.timeout_job is not None, f"the -t 1 job was not submitted: {c.timeout_error}"
    job = c.timeout_job
    assert c.field(job, "%l") == "1:00"
    # One minute, KillWait=2, and the controller's own check period.
    left = 60 + 60 - (time.monotonic() - c.timeout_submitted)
    c.wait_state(job, "TIMEOUT", timeout=max(left, 5))
    row = c.run(["squeue", "-t", "all", "-h", "-j", str(job)]).stdout.split()
    assert row[4] == "TO", row
    rec = c.api_job(job)
    ran = rec["end_time"] - rec["start_time"]
    assert 60 <= ran <= 100, f"ran {ran} s for a 1 minute limit: {rec}"
    out = read(os.path.join(c.timeout_dir, f"slurm-{job}.out"))
    assert out.startswith("started\n"), out
