"""sinfo -O/--Format, -R, -s, -t, -n and --json on the shared 2-node cluster
(8 CPUs, 8000 MB, 4 GPUs each), byte for byte where tools parse them."""

import json
import re

import pytest

from helpers import wait_for

TOOL_FORMAT = "NodeList: ,AllocMem: ,Memory: ,CPUsState: ,StateLong: ,Partition: ,Gres: ,GresUsed:"
REASON_HEADER = f"{'REASON':<20} {'USER':<9} {'TIMESTAMP':<19} NODELIST"
STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"


@pytest.fixture
def quiet(cluster):
    """No job running, so that node values are known (the session's time
    limit job holds a CPU for its first minute)."""
    def idle():
        out = cluster.run(["squeue", "-h", "-t", "R,CG", "-o", "%i"]).stdout
        return not out.split()
    wait_for(idle, 150, "no running job")
    return cluster


@pytest.fixture
def drained(quiet):
    c = quiet
    c.run(["scontrol", "update", "NodeName=node2", "State=DRAIN", "Reason=testing"])
    try:
        yield c
    finally:
        c.run(["scontrol", "update", "NodeName=node2", "State=RESUME"])


def test_format_long_tool_call(quiet, workdir):
    c = quiet
    j = c.sbatch(["-w", "node1", "-n", "2", "--mem=1000", "--gres=gpu:2"], cwd=workdir,
                 script="#!/bin/sh\nexec /bin/sleep 120\n")
    try:
        c.wait_state(j, "RUNNING")
        out = c.run(["sinfo", "-N", "-O", TOOL_FORMAT]).stdout.splitlines()
        assert out[0] == "NODELIST ALLOCMEM MEMORY CPUS(A/I/O/T) STATE PARTITION GRES GRES_USED"
        m = re.fullmatch(r"node1 1000 8000 2/6/0/8 mixed debug\* gpu:4 gpu:2\(IDX:(\S+)\)",
                         out[1])
        assert m and re.fullmatch(r"\d-\d|\d,\d", m.group(1)), out
        assert out[2:] == ["node2 0 8000 0/8/0/8 idle debug* gpu:4 gpu:0(IDX:N/A)"], out
    finally:
        c.run(["scancel", str(j)], check=False)


def test_format_long_widths(quiet):
    """No width: 20 columns; :N pads and cuts; :. right-aligns."""
    out = quiet.run(["sinfo", "-O", "Partition,Nodes:.6,NodeAIOT:.15,Available:3|,Time"]).stdout
    assert out.splitlines() == [
        f"{'PARTITION':<20}{'NODES':>6}{'NODES(A/I/O/T)':>15}AVA|{'TIMELIMIT':<20}",
        f"{'debug*':<20}{'2':>6}{'0/2/0/2':>15}up |{'infinite':<20}"], out
    out = quiet.run(["sinfo", "-h", "-N", "-O", "NodeHost:6,CPUs:3,Sockets:3,Cores:2,Threads:2,"
                     "SocketCoreThread:6,Weight:2,Features,FreeMem:4,CPUsLoad:4"]).stdout
    assert out.splitlines() == [f"{n:<6}8  8  1 1 8:1:1 1 {'(null)':<20}N/A N/A "
                                for n in ("node1", "node2")], out


def test_format_long_bad_field(quiet):
    cp = quiet.run(["sinfo", "-O", "NodeList,NoSuchField"], check=False)
    assert cp.returncode == 1 and cp.stdout == ""
    assert cp.stderr == "sinfo: error: Invalid node format specification: NoSuchField\n"


def test_list_reasons(drained):
    c = drained
    out = c.run(["sinfo", "-R"]).stdout.splitlines()
    assert out[0] == REASON_HEADER, out
    assert len(out) == 2 and re.fullmatch(rf"testing {' ' * 12} root {' ' * 5}({STAMP}) node2",
                                           out[1]), out
    out = c.run(["sinfo", "-R", "-l", "-h"]).stdout.splitlines()
    assert len(out) == 1 and re.fullmatch(rf"testing {' ' * 12} root\(0\) {' ' * 5}{STAMP} "
                                          r"drain  node2", out[0]), out
    out = c.run(["sinfo", "-h", "-N", "-O", "NodeList:6,Reason:8,User:5,StateCompact:6"]).stdout
    assert out.splitlines() == ["node1 none    Unknoidle  ", "node2 testing root drain "], out


def test_list_reasons_none(quiet):
    out = quiet.run(["sinfo", "-R"]).stdout
    assert out == REASON_HEADER + "\n"


def test_summarize(quiet):
    out = quiet.run(["sinfo", "-s"]).stdout
    assert out == ("PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
                   "debug*       up   infinite          0/2/0/2  node[1-2]\n")


def test_summarize_drained(drained):
    out = drained.run(["sinfo", "-s", "-h"]).stdout
    assert out == "debug*       up   infinite          0/1/1/2  node[1-2]\n"


def test_states_filter(drained):
    c = drained
    out = c.run(["sinfo", "-t", "drain"]).stdout
    assert out == ("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
                   "debug*       up   infinite      1  drain node2\n")
    out = c.run(["sinfo", "-h", "-N", "--states=idle,alloc", "-o", "%N %t"]).stdout
    assert out.startswith("node1 idle\n"), out
    # a partition with no node left still has its row, as in Slurm
    out = c.run(["sinfo", "-h", "-t", "down"]).stdout
    assert out == "debug*       up   infinite      0    n/a \n"
    bad = c.run(["sinfo", "-t", "bogus"], check=False)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.startswith('sinfo: error: Bad state string: "bogus"\n'
                                 "sinfo: error: valid states: unknown,down,idle,"), bad.stderr


def test_nodes_filter_and_exact(quiet):
    out = quiet.run(["sinfo", "-h", "-e", "-n", "node2", "-o", "%P %D %N"]).stdout
    assert out == "debug* 1 node2\n"
    out = quiet.run(["sinfo", "-h", "--nodes=node[1-2]", "-N", "-o", "%N"]).stdout
    assert out == "node1\nnode2\n"


def test_bad_option(quiet):
    cp = quiet.run(["sinfo", "--no-such-option"], check=False)
    assert cp.returncode == 1
    assert cp.stderr.endswith('Try "sinfo --help" for more information\n'), cp.stderr


def test_json(drained):
    doc = json.loads(drained.run(["sinfo", "--json"]).stdout)
    assert doc["errors"] == [] and doc["meta"]["Slurm"]["release"] == "22.05.8"
    nodes = {n["name"]: n for n in doc["nodes"]}
    assert sorted(nodes) == ["node1", "node2"]
    n1, n2 = nodes["node1"], nodes["node2"]
    assert n1["state"] == "idle" and n1["state_flags"] == []
    assert n2["state"] == "idle" and n2["state_flags"] == ["DRAIN"]
    assert n2["reason"] == "testing" and n2["reason_set_by_user"] == "root"
    assert n2["reason_changed_at"] > 0
    assert n1["cpus"] == 8 and n1["real_memory"] == 8000 and n1["alloc_memory"] == 0
    assert n1["gres"] == "gpu:4" and n1["gres_used"] == "gpu:0(IDX:N/A)"
    assert n1["partitions"] == ["debug"]
    parts = doc["partitions"]
    assert [p["name"] for p in parts] == ["debug"] and parts[0]["total_nodes"] == 2
    only = json.loads(drained.run(["sinfo", "--json", "-t", "drain"]).stdout)
    assert [n["name"] for n in only["nodes"]] == ["node2"]
