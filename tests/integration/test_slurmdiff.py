"""The diff harness against real Slurm (tools/slurmdiff, issue 18): its case
file parser and its normalizer, without Slurm. A difference the harness
hides or one it invents would make its report lie."""

import os
import sys

import pytest

TOOL = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "slurmdiff")
sys.path.insert(0, TOOL)
import slurmdiff  # noqa: E402


def side(nodes=("node1",), paths=None):
    return slurmdiff.Side("t", "/bin", {}, "/tmp", nodes, paths or {})


def test_shipped_case_file_parses_with_enough_cases():
    with open(os.path.join(TOOL, "cases.txt")) as f:
        setup, cases = slurmdiff.parse_cases(f.read())
    assert len(cases) >= 300
    assert any(kind == "job" for kind, _, _ in setup)
    tools = {cid.split(".")[0] for cid, _, _ in cases}
    for t in ("sbatch", "srun", "salloc", "squeue", "sinfo", "scontrol", "sacct", "scancel",
              "sacctmgr", "sprio", "sshare"):
        assert t in tools, f"no case for {t}"
    with open(os.path.join(TOOL, "known.txt")) as f:
        known = slurmdiff.parse_known(f.read())
    ids = {cid for cid, _, _ in cases}
    assert set(known) <= ids, f"known.txt names cases that are gone: {set(known) - ids}"


def test_case_file_directives_and_cases():
    text = ("# comment\n\n@job A sbatch --parsable --wrap true\n@wait A\n@sleep 1.5\n"
            "sq.one squeue -j $A\nsq.Two  squeue -h\n")
    setup, cases = slurmdiff.parse_cases(text)
    assert setup == [("job", "A", "sbatch --parsable --wrap true"), ("wait", "A", None),
                     ("sleep", 1.5, None)]
    assert [(c[0], c[1]) for c in cases] == [("sq.one", "squeue -j $A"),
                                             ("sq.Two", "squeue -h")]
    assert cases[0][2] == 6


@pytest.mark.parametrize("text,what", [
    ("a.b squeue\na.b sinfo\n", "already on line 1"),
    ("@job lower sbatch\n", "NAME in capitals"),
    ("@wait\n", "@wait NAME"),
    ("@sleep soon\n", "@sleep SECONDS"),
    ("@frob x\n", "unknown directive"),
    ("Upper squeue\n", "lower-case letter"),
    ("lonely\n", "lower-case letter"),
])
def test_case_file_errors_name_the_line(text, what):
    with pytest.raises(slurmdiff.CaseError, match=what):
        slurmdiff.parse_cases(text)


def test_known_file_needs_a_reason():
    assert slurmdiff.parse_known("# c\nx.y Slurm prints its version\n") == \
        {"x.y": "Slurm prints its version"}
    with pytest.raises(slurmdiff.CaseError, match="no reason"):
        slurmdiff.parse_known("x.y\n")


def test_job_ids_become_placeholders_in_id_places_only():
    s = side()
    s.learn("7", "HELD")
    out = slurmdiff.normalize("Submitted batch job 12\n", s)
    assert out == "Submitted batch job <JOBID>\n"
    # a learned id leads a line (squeue, sacct); the count 7 elsewhere stays
    text = "      7     debug  sleep  PD  0:00  7 (None)\n12_3 x\n12.batch y\n"
    assert slurmdiff.normalize(text, s) == \
        "      <HELD>     debug  sleep  PD  <ELAPSED>  7 (None)\n<JOBID>_3 x\n<JOBID>.batch y\n"
    assert slurmdiff.normalize("JobId=7 JobName=x\nSLURM_JOB_ID=12\n", s) == \
        "JobId=<HELD> JobName=x\nSLURM_JOB_ID=<JOBID>\n"
    # a number never seen as a job id is left alone at a line's start
    assert slurmdiff.normalize("3\n", s) == "3\n"
    # and so is any, where the command lists no jobs (`cat` of a job's output)
    assert slurmdiff.normalize("7\n", s, lead=False) == "7\n"
    assert slurmdiff.LISTS_IDS.search("sbatch --parsable --wrap true")
    assert not slurmdiff.LISTS_IDS.search("sbatch -W -o v.txt --wrap x; cat v.txt")


def test_times_nodes_paths_and_pids_are_erased():
    s = side(nodes=("node1", "vm"), paths={"/tmp/x/herd": "<CWD>", "/tmp/x/slurm.conf": "<CONF>"})
    text = ("Start=2026-12-05T05:09:43 vm node1 node12 /tmp/x/herd/c/a.out /tmp/x/slurm.conf\n"
            "Sat Dec 05 05:09:43 2026\nTIME 0:03 12:41 LIMIT 1:30:00 1-02:03:04\n"
            "SLURM_TASK_PID=4242 pid 99\n")
    assert slurmdiff.normalize(text, s) == (
        "Start=<DATE> <NODE> <NODE> node12 <CWD>/c/a.out <CONF>\n"
        "Sat Dec 05 <CLOCK> 2026\nTIME <ELAPSED> <ELAPSED> LIMIT 1:30:00 1-02:03:04\n"
        "SLURM_TASK_PID=<PID> pid <PID>\n")


def test_compare_tells_widths_from_differences():
    assert slurmdiff.compare("a  b\n", "a  b\n") == "same"
    assert slurmdiff.compare("  JOBID NAME\n      1 x\n", "JOBID   NAME\n1       x\n") == "widths"
    assert slurmdiff.compare("a b\n", "a c\n") == "differ"
    assert slurmdiff.compare("ab\n", "a b\n") == "differ"


def test_render_keeps_stderr_and_exit_code_apart():
    s = side()
    assert slurmdiff.render(s, "out\n", "sbatch: error: x\n", 1) == \
        "out\n[stderr]\nsbatch: error: x\n\n[exit 1]"
    assert slurmdiff.render(s, "", "", 0) == "\n[exit 0]"


def test_render_drops_what_only_a_wait_says():
    s = side()
    err = ("salloc: Pending job allocation 12\nsalloc: job 12 queued and waiting for resources\n"
           "salloc: job 12 has been allocated resources\nsalloc: Granted job allocation 12\n")
    assert slurmdiff.render(s, "", err, 0) == \
        "[stderr]\nsalloc: Granted job allocation <JOBID>\n\n[exit 0]"
    assert slurmdiff.render(s, "x\n", "srun: job 3 queued and waiting for resources\n", 0) == \
        "x\n\n[exit 0]"
