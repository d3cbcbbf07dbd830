"""GPU figures on the client side (issue 21 item 2): sstat while a job runs,
sacct's TRESUsageIn* and seff after it ends, and --acctg-freq overriding
JobAcctGatherFrequency. Real daemons; the NVML stub scripts GPU 0 at 90 %
with 2 GiB in use and GPU 1 idle. The cluster samples every 30 s, so the
job's own --acctg-freq=task=1 is what makes samples come in seconds."""

import pytest

from helpers import nvml_cluster, open_dir, wait_for


@pytest.fixture(scope="module")
def gc(tmp_path_factory, users):
    yield from nvml_cluster(tmp_path_factory, "gpuuse",
                            ["--gpus-per-node", "4", "--set", "JobAcctGatherFrequency=30"],
                            [90, 0, 0, 0], [2048, 0, 0, 0])


@pytest.fixture
def wd(tmp_path):
    open_dir(tmp_path)
    return str(tmp_path)


def samples(c, jid):
    return c.api_job(jid).get("usage_live", {}).get("gpu", {}).get("samples", 0)


def parsable(cp):
    return [line.split("|") for line in cp.stdout.splitlines()]


def test_acctg_freq_sstat_sacct_seff(gc, wd):
    jid = gc.sbatch(["--gpus=2", "--acctg-freq=task=1", "-t", "5"],
                    script="#!/bin/sh\nsleep 300\n", cwd=wd)
    wait_for(lambda: gc.state(jid) == "RUNNING", 30, f"job {jid} running")
    # 3 rounds within 15 s: impossible at the cluster's 30 s period
    wait_for(lambda: samples(gc, jid) >= 3, 15, "3 GPU samples at --acctg-freq=task=1")

    cp = gc.run(["sstat", "-j", str(jid), "-o", "JobID,TRESUsageInAve", "-P"])
    rows = parsable(cp)
    assert rows[0] == ["JobID", "TRESUsageInAve"], cp.stdout
    assert rows[1][0] == f"{jid}.batch", cp.stdout
    assert "gres/gpuutil=90" in rows[1][1].split(","), cp.stdout
    assert "gres/gpumem=2G" in rows[1][1].split(","), cp.stdout

    cp = gc.run(["seff", str(jid)])
    assert "GPUs: 2" in cp.stdout and "WARNING: Efficiency statistics" in cp.stdout, cp.stdout

    gc.run(["scancel", str(jid)])
    wait_for(lambda: gc.state(jid) not in ("RUNNING", "COMPLETING"), 30, f"job {jid} ended")

    cp = gc.run(["sstat", "-j", str(jid), "-P", "-o", "JobID"])
    assert f"No steps running for job {jid}" in cp.stderr, cp.stderr

    def tres_row():
        cp = gc.run(["sacct", "-j", f"{jid}.batch", "-o",
                     "JobID,TRESUsageInAve,TRESUsageInMax", "-P", "-n"])
        rows = parsable(cp)
        return rows[0] if rows and "gres/gpuutil" in rows[0][1] else None
    wait_for(tres_row, 20, "the batch row's GPU figures in sacct")
    row = tres_row()
    ave, mx = row[1].split(","), row[2].split(",")
    assert "gres/gpuutil=90" in ave and "gres/gpuutil=90" in mx, row
    assert "gres/gpumem=2G" in ave and "gres/gpumem=2G" in mx, row

    cp = gc.run(["seff", str(jid)])
    out = cp.stdout
    assert out.startswith(f"Job ID: {jid}\n"), out
    assert "GPUs: 2\n" in out, out
    assert "GPU Utilization: 45.00% (mean of 2 GPUs; " in out, out
    assert "GPU 0: 90.00%" in out and "GPU 1: 0.00%" in out, out
    assert "GPU Memory Utilized: 2.00 GB" in out, out


def test_acctg_freq_invalid(gc, wd):
    cp = gc.run(["sbatch", "--acctg-freq=task=abc", "--wrap", "true"], check=False, cwd=wd)
    assert cp.returncode != 0 and "Invalid --acctg-freq specification" in cp.stderr, cp.stderr


def test_sstat_unknown_job(gc):
    cp = gc.run(["sstat", "-j", "999999", "-P"], check=False)
    assert "sstat: error: couldn't get steps for job 999999" in cp.stderr, cp.stderr
