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


# Slurm 22.05's `scontrol show node` keys, line by line (captured from
# slurm-ref, a node without a reason); the first line, OS and Partitions
# end in a blank there.
NODE_LINES = [
    ["NodeName", "Arch", "CoresPerSocket"],
    ["CPUAlloc", "CPUEfctv", "CPUTot", "CPULoad"],
    ["AvailableFeatures"], ["ActiveFeatures"], ["Gres"],
    ["NodeAddr", "NodeHostName", "Version"], ["OS"],
    ["RealMemory", "AllocMem", "FreeMem", "Sockets", "Boards"],
    ["State", "ThreadsPerCore", "TmpDisk", "Weight", "Owner", "MCS_label"],
    ["Partitions"], ["BootTime", "SlurmdStartTime"], ["LastBusyTime"],
    ["CfgTRES"], ["AllocTRES"], ["CapWatts"], ["CurrentWatts", "AveWatts"],
    ["ExtSensorsJoules", "ExtSensorsWatts", "ExtSensorsTemp"],
]


def test_show_node_layout(session_cluster):
    out = session_cluster.run(["scontrol", "show", "node"]).stdout
    record = out.split("\n\n")[0]
    lines = record.split("\n")
    keys = [re.findall(r"(?:^|\s)([A-Za-z_]+)=", line) for line in lines]
    # Reason= follows only on a node with a reason
    assert keys[:len(NODE_LINES)] == NODE_LINES, keys
    assert all(line.startswith("   ") for line in lines[1:])
    assert lines[0].endswith(" ") and lines[6].endswith(" ") and lines[9].endswith(" ")
    one = session_cluster.run(["scontrol", "show", "node", "-o"]).stdout.split("\n")[0]
    assert " CoresPerSocket=1  CPUAlloc=" in one, one
    alloc = re.search(r"AllocTRES=(\S*)", record).group(1)
    assert "mem=0" not in alloc


# The headers Slurm 22.05's sinfo prints for `-o %all` (slurm-ref)
SINFO_ALL_HEADER = (
    "AVAIL|ACTIVE_FEATURES|CPUS|TMP_DISK|FREE_MEM|AVAIL_FEATURES|GROUPS|OVERSUBSCRIBE|TIMELIMIT|"
    "MEMORY|HOSTNAMES|NODE_ADDR|PRIO_TIER|ROOT|JOB_SIZE|STATE|USER|VERSION|WEIGHT|S:C:T|"
    "NODES(A/I) |MAX_CPUS_PER_NODE |CPUS(A/I/O/T) |NODES |REASON |NODES(A/I/O/T) |GRES |"
    "TIMESTAMP |PRIO_JOB_FACTOR |DEFAULTTIME |PREEMPT_MODE |NODELIST |CPU_LOAD |PARTITION |"
    "PARTITION |ALLOCNODES |STATE |USER |CLUSTER |SOCKETS |CORES |THREADS ")


def test_sinfo_codes(session_cluster):
    """The codes of sinfo's man page Herd lacked, with Slurm's headers and
    its values for a cluster without those features."""
    c = session_cluster
    out = c.run(["sinfo", "-o", "%b|%B|%I|%M|%o|%p|%S|%v|%V"]).stdout.split("\n")
    assert out[0] == ("ACTIVE_FEATURES|MAX_CPUS_PER_NODE|PRIO_JOB_FACTOR|PREEMPT_MODE|"
                      "NODE_ADDR|PRIO_TIER|ALLOCNODES|VERSION|CLUSTER"), out[0]
    assert re.fullmatch(r"\S+\|UNLIMITED\|\d+\|OFF\|[\d.]+\|1\|all\|22\.05\.8\|N/A", out[1]), out
    al = c.run(["sinfo", "-o", "%all"]).stdout.split("\n")
    assert al[0] == SINFO_ALL_HEADER
    assert al[1].count("|") == SINFO_ALL_HEADER.count("|")
    long = c.run(["sinfo", "-h", "-O", "NodeAddr,Version,PreemptMode"]).stdout
    assert re.match(r"[\d.]+\s+22\.05\.8\s+OFF\s", long), long
