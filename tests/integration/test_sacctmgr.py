"""sacctmgr list/show on the shared cluster, with the accounts jobs name:
what Snakemake asks to check an account (sacctmgr -n -s list user NAME
format=account%20), and Slurm's default user, account and association
listings."""


def test_accounts_of_a_user(cluster, workdir, users):
    c = cluster
    job = c.sbatch(["--hold", "-A", "mgrproj"], cwd=workdir, user="herdtest1",
                   script="#!/bin/sh\ntrue\n")
    out = c.run(["sacctmgr", "-n", "-s", "list", "user", "herdtest1", "format=account%20"]).stdout
    assert f"{'mgrproj':>20} " in out.splitlines(), out
    assert "mgrproj" in out.split()
    users_out = c.run(["sacctmgr", "list", "user", "herdtest1"]).stdout.splitlines()
    assert users_out[0] == "      User   Def Acct     Admin "
    assert users_out[1] == "---------- ---------- --------- "
    # the default account is the user's first association (other tests may have made one)
    user, default, admin = users_out[2].split()
    assert (user, admin) == ("herdtest1", "None") and default in out.split(), users_out
    assert users_out[2] == f"{user:>10} {default:>10} {admin:>9} "
    accounts = c.run(["sacctmgr", "-P", "-n", "list", "account", "format=Account"]).stdout.split()
    assert "mgrproj" in accounts
    assoc = c.run(["sacctmgr", "-P", "-n", "show", "assoc", "where", "user=herdtest1",
                   "format=Cluster,Account,User"]).stdout.splitlines()
    assert "herd|mgrproj|herdtest1" in assoc, assoc
    c.run(["scancel", str(job)])


def test_unknown_field(cluster):
    cp = cluster.run(["sacctmgr", "list", "user", "format=Nonsense"], check=False)
    assert cp.returncode == 1 and "Unknown field 'Nonsense'" in cp.stderr


def test_show_cluster(cluster):
    """The one cluster, as tools ask for it: Slurm 22.05's columns."""
    out = cluster.run(["sacctmgr", "show", "cluster", "-P"]).stdout.splitlines()
    assert out[0] == ("Cluster|ControlHost|ControlPort|RPC|Share|GrpJobs|GrpTRES|GrpSubmit|"
                      "MaxJobs|MaxTRES|MaxSubmit|MaxWall|QOS|Def QOS")
    row = out[1].split("|")
    assert row[0] == "herd" and row[2] == str(cluster.ctld_port()) and row[3] == "9728", row
    assert row[4] == "1" and row[12] == "normal", row
