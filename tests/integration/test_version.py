"""`CMD --version` and `-V` print the Slurm release Herd's output follows, as
Slurm's commands do, so that tools choosing their flags by it work; `herd
--version` says what it is."""

import os

import helpers

COMMANDS = ("sbatch", "squeue", "sinfo", "scancel", "sacct", "scontrol", "sprio", "sshare",
            "sdiag")


def test_every_command_prints_the_slurm_version():
    for cmd in COMMANDS:
        for flag in ("--version", "-V"):
            cp = helpers.run([os.path.join(helpers.HERD_BIN, cmd), flag])
            assert cp.stdout == "slurm 22.05.8\n", (cmd, flag, cp.stdout, cp.stderr)


def test_herd_names_itself():
    cp = helpers.run([os.path.join(helpers.HERD_BIN, "herd"), "--version"])
    assert cp.stdout.startswith("herd ") and "slurm 22.05.8" in cp.stdout, cp.stdout


def test_scontrol_show_config_version(cluster):
    out = cluster.run(["scontrol", "show", "config"]).stdout
    assert any(l.split() == ["SLURM_VERSION", "=", "22.05.8"] for l in out.splitlines()), out
