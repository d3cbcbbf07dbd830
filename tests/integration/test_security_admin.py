"""What only an administrator may change (issue 24 item 3): nodes,
partitions, the configuration, accounts, users, QOS and their limits, and
other users' jobs. Each refusal in Slurm's words, and nothing changed.
(Reservations: test_reservations.py::test_* 'only root (or SlurmUser)
changes reservations'; QOS and accounts by a plain user:
test_sacctmgr_edit.py; another's job hold/release/update/requeue:
test_scontrol.py::test_user_hold_and_other_users.)"""

import os

import pytest

from helpers import read, wait_file

DENIED = "slurm_update error: Access/permission denied"


def sc(c, *args, user="herdtest1"):
    return c.run(["scontrol", *args], user=user, check=False)


def test_user_cannot_update_nodes_partitions_or_reconfigure(cluster, users):
    c = cluster
    before_nodes = c.node_states()
    for args in (["update", "NodeName=node1", "State=DRAIN", "Reason=mine"],
                 ["update", "NodeName=node1", "State=DOWN", "Reason=mine"],
                 ["update", "NodeName=node2", "Reason=mine"],
                 ["update", "PartitionName=debug", "State=DOWN"],
                 ["update", "PartitionName=debug", "MaxTime=1"]):
        cp = sc(c, *args)
        assert (cp.returncode, cp.stderr.strip()) == (1, DENIED), (args, cp)
    assert c.node_states() == before_nodes
    assert "Reason=mine" not in sc(c, "show", "node", user="root").stdout
    part = sc(c, "show", "partition", "debug", user="root").stdout
    assert "State=UP" in part and "MaxTime=UNLIMITED" in part, part
    cp = sc(c, "reconfigure")
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp


def test_user_cannot_touch_another_users_job(cluster, workdir, users):
    """herdtest2 on herdtest1's running job: scancel (and with a signal),
    scontrol hold, requeue, suspend, update of each kind; srun into it."""
    c = cluster
    ready = os.path.join(workdir, "ready")
    out = os.path.join(workdir, "victim.out")
    job = c.sbatch(["-o", out, "-t", "10"], cwd=workdir, user="herdtest1",
                   script=f"#!/bin/sh\ntrap 'echo got USR1' USR1\ntouch {ready}\n"
                          "while :; do sleep 0.2; done\n")
    c.wait_state(job, "RUNNING")
    wait_file(ready)
    u2 = "herdtest2"
    cp = c.run(["scancel", "-s", "USR1", str(job)], user=u2, check=False)
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp
    for args in (["hold", str(job)], ["requeue", str(job)], ["suspend", str(job)],
                 ["update", f"JobId={job}", "TimeLimit=5"],
                 ["update", f"JobId={job}", "Name=taken"],
                 ["update", f"JobId={job}", "Partition=debug"],
                 ["update", f"JobId={job}", "Nice=10"]):
        cp = sc(c, *args, user=u2)
        assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, (args, cp)
    cp = c.run(["srun", f"--jobid={job}", "true"], user=u2, check=False)
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp
    info = sc(c, "show", "job", str(job), user="root").stdout
    assert "TimeLimit=00:10:00" in info and "JobName=taken" not in info and \
        "Nice=0" in info, info
    assert c.state(job) == "RUNNING"
    assert "got USR1" not in read(out)
    c.run(["scancel", str(job)])


def test_user_cannot_raise_their_own_limits(cluster, workdir, users):
    """A user's own pending job: a negative nice and a longer time limit
    are the operators' (the shorter limit is the user's: test_scontrol.py;
    Priority= is not supported by Herd's scontrol)."""
    c = cluster
    job = c.sbatch(["--hold", "-t", "5"], cwd=workdir, user="herdtest1",
                   script="#!/bin/sh\ntrue\n")
    cp = sc(c, "update", f"JobId={job}", "Nice=-100")
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp
    cp = sc(c, "update", f"JobId={job}", "TimeLimit=50")
    assert (cp.returncode, cp.stderr.strip()) == (1, DENIED), cp
    info = sc(c, "show", "job", str(job), user="root").stdout
    assert "TimeLimit=00:05:00" in info and "Nice=0" in info, info
    c.run(["scancel", str(job)])


@pytest.mark.parametrize("args", [
    ["modify", "user", "herdtest1", "set", "adminlevel=Admin"],
    ["modify", "user", "herdtest1", "set", "maxjobs=1000", "grptres=gres/gpu=100"],
    ["modify", "user", "where", "name=herdtest2", "set", "maxsubmitjobs=0"],
    ["modify", "account", "root", "set", "grptres=gres/gpu=1"],
    ["modify", "qos", "normal", "set", "maxwall=1"],
    ["add", "qos", "mine"],
    ["add", "user", "herdtest1", "account=root", "adminlevel=Operator"],
    ["add", "coordinator", "account=root", "names=herdtest1"],
    ["delete", "user", "herdtest2"],
], ids=["self-admin", "own-limits", "others-limits", "account-limits", "qos", "add-qos",
        "add-user", "coordinator", "delete-user"])
def test_user_cannot_change_accounting(cluster, users, args):
    c = cluster
    before = c.run(["sacctmgr", "-P", "-n", "show", "assoc",
                    "format=account,user,grptres,maxjobs,maxsubmit,qos"]).stdout
    users_before = c.run(["sacctmgr", "-P", "-n", "show", "user",
                          "format=user,adminlevel"]).stdout
    cp = c.run(["sacctmgr", "-i", *args], user="herdtest1", check=False)
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr, cp
    assert c.run(["sacctmgr", "-P", "-n", "show", "assoc",
                  "format=account,user,grptres,maxjobs,maxsubmit,qos"]).stdout == before
    assert c.run(["sacctmgr", "-P", "-n", "show", "user",
                  "format=user,adminlevel"]).stdout == users_before
