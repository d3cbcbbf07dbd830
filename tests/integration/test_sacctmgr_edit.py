"""sacctmgr add, modify and delete of accounts, users and QOS, on a cluster of
its own (the changes reach fair share): Slurm 22.05's text for each (checked
against slurm-ref), who may change what, the confirmation without -i, and
the database surviving a controller kill -9."""
import os
import signal

import pytest

from helpers import cluster_fixture, pid_alive, wait_for

UP = ["--nodes", "1", "--set", "PriorityType=priority/multifactor",
      "--set", "PriorityWeightFairshare=1000", "--set", "SlurmUser=herdtest2"]


@pytest.fixture(scope="module")
def mcluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "acctmgr", UP)


def mgr(c, *args, user=None, check=True, input=None):
    return c.run(["sacctmgr", *args], user=user, check=check, input=input)


def lines(text):
    return text.rstrip("\n").split("\n")


def test_add_account_and_user(mcluster):
    c = mcluster
    cp = mgr(c, "-i", "add", "account", "phys", "Description=Physics", "Organization=science")
    assert lines(cp.stdout) == [
        " Adding Account(s)", "  phys", " Settings", "  Description     = physics",
        "  Organization    = science", " Associations", "  A = phys       C = herd      ",
        " Settings", "  Parent        = root"]
    cp = mgr(c, "-i", "add", "account", "chem", "parent=phys", "fairshare=10",
             "GrpTRES=gres/gpu=3", "MaxJobs=4")
    assert lines(cp.stdout)[3:5] == ["  Description     = Account Name",
                                     "  Organization    = Parent/Account Name"]
    assert lines(cp.stdout)[-4:] == ["  Fairshare     = 10", "  GrpTRES       = gres/gpu=3",
                                     "  MaxJobs       = 4", "  Parent        = phys"]
    cp = mgr(c, "-i", "add", "account", "phys", check=False)
    assert (cp.returncode, cp.stdout) == (1, " Nothing new added.\n")
    cp = mgr(c, "-i", "add", "user", "herdtest1", "account=phys,chem", "defaultaccount=chem",
             "adminlevel=Operator")
    assert lines(cp.stdout) == [
        " Adding User(s)", "  herdtest1", " Settings =", "  Default Account = chem",
        "  Admin Level     = Operator", " Associations =",
        "  U = herdtest1 A = phys       C = herd      ",
        "  U = herdtest1 A = chem       C = herd      ", " Non Default Settings"]
    cp = mgr(c, "-i", "add", "user", "nobody", "account=nosuch", check=False)
    assert cp.returncode == 1
    assert lines(cp.stderr) == [" This account 'nosuch' doesn't exist.",
                                "        Contact your admin to add this account.",
                                " No associations or wckeys created."]
    out = mgr(c, "-P", "-n", "show", "assoc", "format=account,user,share,grptres,maxjobs")
    rows = lines(out.stdout)
    assert "chem||10|gres/gpu=3|4" in rows
    assert "chem|herdtest1|1||4" in rows, "a user association shows its account's MaxJobs"
    assert rows.index("phys|herdtest1|1||") < rows.index("chem||10|gres/gpu=3|4")
    users = mgr(c, "-P", "-n", "show", "user").stdout
    assert "herdtest1|chem|Operator" in lines(users)


def test_qos_add_show_modify(mcluster):
    c = mcluster
    cp = mgr(c, "-i", "add", "qos", "gpu", "MaxTRESPerUser=gres/gpu=4", "Priority=10",
             "MaxWall=2-00:00:00", "MaxJobsPerUser=3", "Flags=DenyOnLimit")
    assert lines(cp.stdout) == [
        " Adding QOS(s)", "  gpu", " Settings", "  Description    = gpu",
        "  Flags                    = DenyOnLimit", "  MaxJobsPerUser = 3",
        "  MaxTRESPerUser           = gres/gpu=4", "  MaxWall                  = 2-00:00:00",
        "  Priority                 = 10"]
    row = mgr(c, "show", "qos", "gpu", "-P", "-n").stdout
    assert row == "gpu|10|00:00:00|||cluster|DenyOnLimit||1.000000||||||||||2-00:00:00|" \
                  "gres/gpu=4|3|||||\n"
    cp = mgr(c, "-i", "modify", "qos", "gpu", "set", "MaxTRESPerUser=gres/gpu=2,cpu=8",
             "MaxWall=-1")
    assert lines(cp.stdout) == [" Modified qos...", "  gpu"]
    out = mgr(c, "show", "qos", "gpu", "format=name,maxtrespu%20,maxwall").stdout
    assert lines(out)[2] == f"{'gpu':>10} {'cpu=8,gres/gpu=2':>20} {'':>11} "
    cp = mgr(c, "-i", "modify", "qos", "nosuch", "set", "Priority=3", check=False)
    assert (cp.returncode, cp.stdout) == (1, " Nothing modified\n")
    cp = mgr(c, "-i", "add", "qos", "bad", "MaxWall=bogus", check=False)
    assert cp.returncode == 1 and "Bad MaxWall time format: MaxWall=bogus" in cp.stderr
    cp = mgr(c, "-i", "modify", "qos", "gpu", "set", "Bogus=3", check=False)
    assert cp.returncode == 1 and " Unknown option: Bogus=3" in cp.stderr


def test_user_modify_and_qos_list(mcluster):
    c = mcluster
    mgr(c, "-i", "add", "qos", "long")
    cp = mgr(c, "-i", "modify", "user", "herdtest1", "where", "account=phys", "set",
             "qos+=long", "defaultqos=long", "MaxJobs=2")
    assert lines(cp.stdout) == [" Modified user associations...",
                                "  C = herd       A = phys                 U = herdtest1"]
    row = mgr(c, "-P", "-n", "show", "assoc", "where", "user=herdtest1", "account=phys",
              "format=account,maxjobs,qos,defaultqos").stdout
    assert row == "phys|2|long,normal|long\n" or row == "phys|2|normal,long|long\n", row
    cp = mgr(c, "-i", "modify", "user", "herdtest1", "set", "qos=nosuchqos", check=False)
    assert cp.returncode == 1 and "You gave a bad qos 'nosuchqos'" in cp.stderr
    cp = mgr(c, "-i", "modify", "account", "chem", "set", "GrpTRES=gres/gpu=6")
    assert lines(cp.stdout) == [" Modified account associations...",
                                "  C = herd       A = chem of phys"]


def test_fairshare_change_reaches_sshare(mcluster):
    c = mcluster
    mgr(c, "-i", "modify", "account", "phys", "set", "fairshare=70")
    out = c.run(["sshare", "-P", "-n", "-a"]).stdout
    rows = [r.split("|") for r in lines(out)]
    assert any(r[0].strip() == "phys" and r[1] == "" and r[2] == "70" for r in rows), out


def test_non_admin_is_refused(mcluster):
    c = mcluster
    cp = mgr(c, "-i", "modify", "qos", "normal", "set", "priority=2", user="herdtest1",
             check=False)
    # herdtest1 is an Operator since test_add_account_and_user: allowed.
    assert cp.returncode == 0, cp.stderr
    mgr(c, "-i", "modify", "user", "herdtest1", "set", "adminlevel=None")
    cp = mgr(c, "-i", "modify", "qos", "normal", "set", "priority=3", user="herdtest1",
             check=False)
    assert cp.returncode == 1
    assert lines(cp.stderr) == [
        "sacctmgr: error: Your user doesn't have privilege to perform this action",
        " Error with request: Access/permission denied"]
    cp = mgr(c, "-i", "add", "account", "mine", user="herdtest1", check=False)
    assert cp.returncode == 1
    assert cp.stderr == " Problem adding accounts: Access/permission denied\n"
    assert "mine" not in mgr(c, "-P", "-n", "show", "account", "format=account").stdout.split()
    # SlurmUser may, as root may.
    mgr(c, "-i", "add", "qos", "byslurmuser", user="herdtest2")
    assert "byslurmuser" in mgr(c, "-P", "-n", "show", "qos", "format=name").stdout.split()


def test_confirmation_without_i(mcluster):
    c = mcluster
    cp = mgr(c, "add", "qos", "maybe", input="n\n")
    assert lines(cp.stdout)[-2:] == [
        "Would you like to commit changes? (You have 30 seconds to decide)",
        "(N/y):  Changes Discarded"]
    assert "maybe" not in mgr(c, "-P", "-n", "show", "qos", "format=name").stdout.split()
    cp = mgr(c, "add", "qos", "maybe", input="x\ny\n")
    assert "Y or N please" in cp.stdout
    assert "maybe" in mgr(c, "-P", "-n", "show", "qos", "format=name").stdout.split()
    cp = mgr(c, "delete", "qos", "maybe", input="")
    assert cp.stdout.endswith(" Changes Discarded\n"), "end of input discards"


def test_delete(mcluster):
    c = mcluster
    mgr(c, "-i", "add", "user", "herdtest2", "account=chem")
    cp = mgr(c, "-i", "delete", "user", "herdtest2", "where", "account=chem")
    assert lines(cp.stdout) == [" Deleting user associations...",
                                "  C = herd       A = chem       U = herdtest2"]
    cp = mgr(c, "-i", "delete", "user", "herdtest2", "where", "account=chem", check=False)
    assert (cp.returncode, cp.stdout) == (1, " Nothing deleted\n")
    cp = mgr(c, "-i", "delete", "qos", "long")
    assert lines(cp.stdout) == [" Deleting QOS(s)...", "  long"]
    qos = mgr(c, "-P", "-n", "show", "assoc", "where", "user=herdtest1", "account=phys",
              "format=qos,defaultqos").stdout
    assert qos == "normal|\n", "a deleted QOS leaves the associations"


def test_coordinator(mcluster, workdir):
    """A coordinator of an account adds existing users there (and in its
    sub-accounts) and cancels their jobs there; nothing else."""
    c = mcluster
    mgr(c, "-i", "modify", "user", "herdtest1", "set", "adminlevel=None")
    mgr(c, "-i", "add", "user", "herdtest2", "account=phys", check=False)
    cp = mgr(c, "-i", "add", "coordinator", "account=phys", "names=herdtest1")
    assert lines(cp.stdout) == [" Adding Coordinator User(s)", "  herdtest1",
                                " To Account(s) and all sub-accounts", "  phys"]
    rows = lines(mgr(c, "-P", "-n", "show", "user", "herdtest1", "withcoord").stdout)
    assert rows[0].split("|")[-1].split(",") == ["phys", "chem"], rows
    cp = mgr(c, "-i", "add", "user", "herdtest2", "account=chem", user="herdtest1")
    assert "  U = herdtest2 A = chem       C = herd      " in lines(cp.stdout)
    cp = mgr(c, "-i", "add", "user", "herdtest2", "account=root", user="herdtest1",
             check=False)
    assert cp.returncode == 1 and "Access/permission denied" in cp.stderr
    theirs = c.sbatch(["--hold", "-A", "chem"], cwd=workdir, script="#!/bin/sh\ntrue\n",
                      user="herdtest2")
    other = c.sbatch(["--hold", "-A", "root"], cwd=workdir, script="#!/bin/sh\ntrue\n",
                     user="herdtest2")
    c.run(["scancel", str(theirs)], user="herdtest1")
    c.wait_state(theirs, "CANCELLED")
    cp = c.run(["scancel", str(other)], user="herdtest1", check=False)
    assert cp.returncode != 0 and "Access/permission denied" in cp.stderr
    c.run(["scancel", str(other)])
    cp = mgr(c, "-i", "delete", "coordinator", "account=phys", "names=herdtest1")
    assert lines(cp.stdout)[-2:] == [" Removed Coordinators (sub accounts not listed)...",
                                     "  U = herdtest1 A = phys      "]


def test_database_survives_controller_kill(mcluster):
    c = mcluster
    before = mgr(c, "-P", "show", "assoc").stdout
    pid = c.ctld_pid()
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid), 10, f"herdctld {pid} to die")
    c.up()
    assert mgr(c, "-P", "show", "assoc").stdout == before
    assert "gpu|10|" in mgr(c, "-P", "-n", "show", "qos").stdout


def test_usage_factor(mcluster, workdir):
    """A QOS's UsageFactor scales what fair share charges: 0 is free."""
    c = mcluster
    mgr(c, "-i", "add", "qos", "free", "UsageFactor=0")

    def raw_usage():
        rows = [r.split("|") for r in lines(c.run(["sshare", "-P", "-n", "-a"]).stdout)]
        return sum(int(r[4]) for r in rows if r[1] == "herdtest2" and r[0].strip() == "phys")

    before = raw_usage()
    job = c.sbatch(["-q", "free", "-A", "phys"], cwd=workdir,
                   script="#!/bin/sh\nsleep 2\n", user="herdtest2")
    c.wait_state(job, "COMPLETED", timeout=30)
    assert raw_usage() == before, "a job of a free QOS is charged nothing"
    job = c.sbatch(["-A", "phys"], cwd=workdir, script="#!/bin/sh\nsleep 2\n",
                   user="herdtest2")
    c.wait_state(job, "COMPLETED", timeout=30)
    assert raw_usage() > before
