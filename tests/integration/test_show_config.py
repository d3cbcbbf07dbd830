"""scontrol show config in Slurm 22.05's layout: every key Slurm prints, in
its order, aligned as Slurm aligns them, the trailing sections and the ping
line. Tools read keys from it by name: Toil 5.9 (--batchSystem slurm)
stops at start-up without SchedulerTimeSlice and AcctGatherNodeFreq.

The list of keys is Slurm 22.05.8's own, captured from
/work/shared/slurm-ref (`/usr/bin/scontrol show config`, 2026-12) into
data/slurm-22.05-show-config.txt; when that reference cluster answers, its
live output is checked too."""

import os
import re
import shutil
import subprocess

import pytest

DATA = os.path.join(os.path.dirname(__file__), "data", "slurm-22.05-show-config.txt")
LINE = re.compile(r"^(\S+) *= (.*)$")


def keys_of(text, section=None):
    """The keys of the main list (section None) or of the titled section."""
    keys, current = [], None
    for line in text.splitlines():
        if line.endswith("Configuration:"):
            current = line
            continue
        m = LINE.match(line)
        if m and current == section:
            keys.append(m.group(1))
    return keys


def values_of(text):
    return {m.group(1): m.group(2) for m in map(LINE.match, text.splitlines()) if m}


def slurm_reference():
    texts = [open(DATA).read()]
    if os.access("/usr/bin/scontrol", os.X_OK):
        try:
            cp = subprocess.run(["/usr/bin/scontrol", "show", "config"], capture_output=True,
                                text=True, timeout=15)
            if cp.returncode == 0 and "SLURM_VERSION" in cp.stdout:
                texts.append(cp.stdout)
        except (OSError, subprocess.TimeoutExpired):
            pass
    return texts


def in_order(want, got):
    """The keys of want missing from got, or out of want's order in it."""
    pos, bad = -1, []
    for k in want:
        if k not in got:
            bad.append(f"{k} missing")
        elif got.index(k) < pos:
            bad.append(f"{k} out of order")
        else:
            pos = got.index(k)
    return bad


@pytest.fixture(scope="module")
def config(session_cluster):
    return session_cluster.run(["scontrol", "show", "config"]).stdout


def test_every_slurm_key_in_order(config):
    got = keys_of(config)
    for ref in slurm_reference():
        want = keys_of(ref)
        # Slurm prints DefMemPerCPU in DefMemPerNode's place when it is set
        got_ = ["DefMemPerNode" if k == "DefMemPerCPU" else k for k in got]
        assert not in_order(want, got_), in_order(want, got_)
        assert not in_order(keys_of(ref, "MPI Plugins Configuration:"),
                            keys_of(config, "MPI Plugins Configuration:"))


def test_layout(config, session_cluster):
    lines = config.split("\n")
    assert re.fullmatch(r"Configuration data as of \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", lines[0])
    for line in lines[1:]:
        if " = " in line:
            key = line.split(" = ")[0]
            # Slurm pads keys to 23 columns, longer ones take one blank
            assert len(key) == 23 or (len(key.rstrip()) > 23 and key == key.rstrip()), line
    assert config.endswith("\n\nSlurmctld(primary) at %s is UP\n"
                           % values_of(config)["SlurmctldHost[0]"].split("(")[0])
    assert "\n\nMPI Plugins Configuration:\n" in config


def test_toil_keys(config):
    """Toil 5.9 reads these two and parses their numbers."""
    v = values_of(config)
    assert re.fullmatch(r"\d+ sec", v["SchedulerTimeSlice"]), v["SchedulerTimeSlice"]
    assert re.fullmatch(r"\d+ sec", v["AcctGatherNodeFreq"]), v["AcctGatherNodeFreq"]


def test_herd_values(config, session_cluster):
    """Herd's own values, not Slurm's defaults, where Herd has them."""
    v = values_of(config)
    text = session_cluster.conf_text()
    name = re.search(r"^ClusterName=(\S+)", text, re.M | re.I)
    if name:
        assert v["ClusterName"] == name.group(1)
    assert v["SLURM_CONF"] == session_cluster.conf
    assert v["SLURM_VERSION"] == "22.05.8"
    assert v["SlurmctldPort"] == str(session_cluster.ctld_port())
    assert re.fullmatch(r"\d+", v["NEXT_JOB_ID"]) and int(v["NEXT_JOB_ID"]) >= 1
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", v["BOOT_TIME"])
    assert v["MaxNodeCount"] == str(len(session_cluster.run(
        ["sinfo", "-h", "-N", "-o", "%N"]).stdout.split()) or v["MaxNodeCount"])


def test_cgroup_section(config, session_cluster):
    """With a cgroup.conf beside slurm.conf, its section comes before MPI's,
    sorted by name as Slurm sorts it, with the file's values."""
    cg = os.path.join(os.path.dirname(session_cluster.conf), "cgroup.conf")
    if not os.path.exists(cg):
        assert "Cgroup Support Configuration:" not in config
        return
    assert "\n\nCgroup Support Configuration:\n" in config
    assert config.index("Cgroup Support") < config.index("MPI Plugins")
    keys = keys_of(config, "Cgroup Support Configuration:")
    assert keys == sorted(keys, key=str.lower) and "ConstrainRAMSpace" in keys
    text = open(cg).read()
    m = re.search(r"^ConstrainRAMSpace=(\S+)", text, re.M | re.I)
    if m:
        want = "yes" if m.group(1).lower() in ("yes", "true", "1") else "no"
        assert values_of(config)["ConstrainRAMSpace"] == want


def test_ping_line(session_cluster):
    out = session_cluster.run(["scontrol", "ping"]).stdout
    assert re.fullmatch(r"Slurmctld\(primary\) at \S+ is UP\n", out), out


@pytest.mark.skipif(not shutil.which("toil"), reason="toil is not installed "
                    "(scripts/install-deps.sh installs it)")
def test_toil_wait_duration(session_cluster):
    """Toil's own reader of `scontrol show config` (SlurmBatchSystem's
    getWaitDuration, called at start-up) takes Herd's output: 36 s, from
    SchedulerTimeSlice 30 sec with its 20 % margin."""
    code = ("from toil.batchSystems.slurm import SlurmBatchSystem\n"
            "print(SlurmBatchSystem.getWaitDuration())\n")
    cp = session_cluster.run(["/usr/bin/python3", "-c", code], check=False, timeout=60)
    assert cp.returncode == 0, cp.stderr
    assert cp.stdout == "36\n", cp.stdout
