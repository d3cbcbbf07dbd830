"""What the commands print and exit with for a bad option (issue 18, found by
tools/slurmdiff against Slurm 22.05): sbatch, srun and salloc meet these on
Slurm's fatal path and exit 255, with getopt's words and a hint that names
the command itself."""

import pytest

TRY = 'Try "{prog} --help" for more information\n'


def jobs(c):
    return c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()


@pytest.mark.parametrize("args,first", [
    (["--bogus-option"], "sbatch: unrecognized option '--bogus-option'"),
    (["-Z"], "sbatch: invalid option -- 'Z'"),
    (["--time"], "sbatch: option '--time' requires an argument"),
    (["--hold=3"], "sbatch: option '--hold' doesn't allow an argument"),
])
def test_sbatch_getopt_errors(cluster, workdir, args, first):
    before = jobs(cluster)
    cp = cluster.run(["sbatch", "--wrap", "true"] + args, cwd=workdir, check=False)
    assert (cp.returncode, cp.stdout) == (255, "")
    assert cp.stderr == first + "\n" + TRY.format(prog="sbatch")
    assert set(jobs(cluster)) <= set(before)


@pytest.mark.parametrize("args,err,rc", [
    (["-N", "x"], 'sbatch: error: "x" is not a valid node count', 255),
    (["-N", "3-2"], "sbatch: error: Maximum node count 2 is less than minimum node count 3", 255),
    (["-N", "0"], "sbatch: error: Batch job submission failed: Node count specification invalid",
     1),
    (["-t", "abc"], "sbatch: error: Invalid --time specification", 255),
    (["--mem=lots"], "sbatch: error: Invalid --mem specification", 255),
    (["--open-mode=sideways"], "sbatch: error: Invalid --open-mode specification", 255),
    (["--begin=yesterdayish"], "sbatch: error: Invalid --begin specification", 255),
    (["--mail-type=SOMETIMES"], "sbatch: error: Invalid --mail-type specification", 255),
    (["-n", "0x"], 'sbatch: error: Invalid numeric value "0x" for --ntasks.', 1),
])
def test_sbatch_bad_values(cluster, workdir, args, err, rc):
    cp = cluster.run(["sbatch"] + args + ["--wrap", "true"], cwd=workdir, check=False)
    assert (cp.returncode, cp.stderr) == (rc, err + "\n")


def test_sbatch_bad_directive_names_its_line(cluster, workdir):
    cp = cluster.run(["sbatch"], input="#!/bin/sh\n#SBATCH --bogus\ntrue\n", cwd=workdir,
                     check=False)
    assert cp.returncode == 255
    assert cp.stderr == ("sbatch: unrecognized option '--bogus' (batch script line 2)\n"
                         + TRY.format(prog="sbatch"))


@pytest.mark.parametrize("prog", ["srun", "salloc"])
@pytest.mark.parametrize("args,err", [
    (["--bogus-option"], "{prog}: unrecognized option '--bogus-option'\n" + TRY),
    (["--nodes"], "{prog}: option '--nodes' requires an argument\n" + TRY),
    (["-N", "x"], '{prog}: error: "x" is not a valid node count\n'),
    (["-N", "3-2"], "{prog}: error: Maximum node count 2 is less than minimum node count 3\n"),
    (["-t", "abc"], "{prog}: error: Invalid --time specification\n"),
])
def test_srun_salloc_fatal_option_errors(cluster, workdir, prog, args, err):
    before = jobs(cluster)
    cp = cluster.run([prog] + args + ["true"] if args != ["--nodes"] else [prog, "--nodes"],
                     cwd=workdir, check=False)
    assert (cp.returncode, cp.stdout, cp.stderr) == (255, "", err.format(prog=prog))
    assert set(jobs(cluster)) <= set(before)


@pytest.mark.parametrize("prog,hint", [
    ("squeue", True), ("sinfo", True), ("scancel", True), ("sacctmgr", True), ("sacct", False),
])
def test_query_commands_bad_option(cluster, prog, hint):
    """Exit 1; every one but sacct adds the hint."""
    cp = cluster.run([prog, "--bogus-option"], check=False)
    want = f"{prog}: unrecognized option '--bogus-option'\n" + (TRY.format(prog=prog) if hint else "")
    assert (cp.returncode, cp.stdout, cp.stderr) == (1, "", want)


def test_sacctmgr_help_needs_no_cluster():
    import helpers
    env = helpers.base_env()
    env.pop("SLURM_CONF", None)
    env["SLURM_CONF"] = "/nonexistent/slurm.conf"
    cp = helpers.run(["sacctmgr", "--help"], env=env)
    assert cp.stdout.startswith("sacctmgr [<OPTION>] [<COMMAND>]\n")


def test_squeue_bad_state_lists_states_as_slurm(cluster):
    cp = cluster.run(["squeue", "-t", "BOGUS"], check=False)
    assert cp.returncode == 1
    lines = cp.stderr.split("\n")
    assert lines[0] == "squeue: error: Invalid job state specified: BOGUS"
    assert lines[1].startswith("squeue: error: Valid job states include: PENDING,RUNNING,")
    assert lines[1].endswith(",STAGE_OUT,STOPPED") and lines[2:] == ["", ""]


def test_scontrol_show_reservation_says_there_are_none(cluster):
    # the shared cluster has none (test_reservations.py makes its own)
    cp = cluster.run(["scontrol", "show", "reservation"])
    assert cp.stdout == "No reservations in the system\n"
    cp = cluster.run(["scontrol", "show", "res", "maint"], check=False)
    assert (cp.returncode, cp.stdout) == (1, "Reservation maint not found\n")


def test_scontrol_update_job_refusals_in_slurms_words(cluster, workdir):
    j = cluster.sbatch(["--hold"], cwd=workdir, script="#!/bin/sh\ntrue\n")
    cp = cluster.run(["scontrol", "update", f"JobId={j}", "NoSuchKey=1"], check=False)
    assert (cp.returncode, cp.stderr) == \
        (1, "Update of this parameter is not supported: NoSuchKey=1\nRequest aborted\n")
    cp = cluster.run(["scontrol", "update", f"JobId={j}", "TimeLimit=abc"], check=False)
    assert (cp.returncode, cp.stderr) == (1, "scontrol: error: Invalid TimeLimit value\n")


def test_sinfo_bad_state_lists_slurms_states_word_for_word():
    import helpers
    cp = helpers.run(["sinfo", "-t", "bogus"], check=False)
    assert (cp.returncode, cp.stderr) == (1, (
        'sinfo: error: Bad state string: "bogus"\n'
        "sinfo: error: valid states: unknown,down,idle,allocated,?,mixed,future,drain,drained,"
        "draining,no_respond,reserved,perfctrs,cloud,completing,powering_down,powered_down,"
        "power_down,powering_up,fail,maint,reboot,reboot^,unknown\n"))
