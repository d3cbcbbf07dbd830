"""Makes upgrade-v0.db, the state database test_upgrade.py opens with the
current build, and upgrade-v0.expect.json, what that release's commands
showed of it. Run it with the release to keep as the "previous" one:

    env -i PATH=/usr/bin:/bin HOME=/root TZ=UTC \
        HERD_BIN=/path/to/that/build/asan/bin \
        /usr/bin/python3 tests/integration/data/make_upgrade_db.py tests/integration/data

(env -i: the submitting environment is stored with each job.) Needs root
and the test users (tests/integration/conftest.py)."""

import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from helpers import Cluster, open_dir, wait_for  # noqa: E402

UP = ["--nodes", "1", "--gpus-per-node", "2", "--cpus-per-node", "4", "--mem-per-node", "4000",
      "--set", "KillWait=2", "--set", "PriorityCalcPeriod=1"]
# What test_upgrade.py compares, run by both releases (TZ=UTC).
SACCT = ["sacct", "-a", "-D", "-P", "-S", "2000-01-01", "-o",
         "JobIDRaw,JobID,JobName,User,Account,Partition,State,ExitCode,Submit,Start,End,"
         "Elapsed"]
SHOWS = {
    "sacct": SACCT,
    "accounts": ["sacctmgr", "-P", "-n", "show", "account", "format=Account,Descr,Org"],
    "assocs": ["sacctmgr", "-P", "-n", "show", "assoc",
               "format=Account,User,Fairshare,GrpTRES,QOS"],
    "qos": ["sacctmgr", "-P", "-n", "show", "qos", "format=Name,Priority,MaxTRESPU,MaxWall"],
    "resv": ["scontrol", "show", "res", "fxresv"],
    "sshare": ["sshare", "-a", "-P"],
}


def saved(db, key):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = con.execute("SELECT doc FROM usage WHERE key = ?", (key,)).fetchone()
        return row and json.loads(row[0]).get("usage")
    finally:
        con.close()


def main(out_dir):
    d = tempfile.mkdtemp(prefix="herd-fixture-")
    open_dir(d, 0o755)
    work = os.path.join(d, "work")
    os.mkdir(work)
    open_dir(work)
    c = Cluster(d, UP)
    c.up()
    try:
        mgr = ["sacctmgr", "-i"]
        c.run(mgr + ["add", "account", "phys", "Description=Physics", "Organization=science"])
        c.run(mgr + ["add", "qos", "gpu", "MaxTRESPerUser=gres/gpu=4", "Priority=10",
                     "MaxWall=2:00:00"])
        c.run(mgr + ["add", "user", "herdtest1", "account=phys", "defaultaccount=phys"])
        c.run(mgr + ["modify", "account", "phys", "set", "GrpTRES=gres/gpu=6", "qos=normal,gpu"])
        c.run(["scontrol", "create", "reservation", "ReservationName=fxresv",
               "StartTime=2035-01-01T00:00:00", "Duration=60", "Nodes=node1", "Users=root"])

        c.run(["sshare"])   # fair-share accrues from here (usage_update's first call)

        def sb(args, script, user=None):
            return c.sbatch(["-o", "/dev/null"] + args, cwd=work, user=user, script=script)
        done = sb(["-J", "fx-done"], "#!/bin/sh\nsleep 3\n", user="herdtest1")
        failed = sb(["-J", "fx-failed"], "#!/bin/sh\nexit 3\n")
        arr = sb(["-J", "fx-array", "--array=0-2"], "#!/bin/sh\ntrue\n", user="herdtest1")
        cancelled = sb(["-J", "fx-cancel"], "#!/bin/sh\nexec sleep 300\n")
        rq = sb(["-J", "fx-requeue"],
                "#!/bin/sh\n[ \"${SLURM_RESTART_COUNT:-0}\" -ge 1 ] || exec sleep 300\n")
        held = sb(["-J", "fx-held", "--hold"], "#!/bin/sh\ntrue\n")
        c.wait_state(cancelled, "RUNNING")
        c.wait_state(rq, "RUNNING")
        c.run(["scancel", str(cancelled)])
        c.run(["scontrol", "requeue", str(rq)])
        for j in (done, failed, cancelled, rq):
            c.wait_state(j, {"COMPLETED", "FAILED", "CANCELLED"}, timeout=60)
        wait_for(lambda: c.run(["squeue", "-h", "-t", "all", "-j", str(arr), "-o", "%T"])
                 .stdout.split() == ["COMPLETED"] * 3, 30, "the array")
        assert c.state(held) == "PENDING"
        c.run(["sshare"])   # charges the ended jobs; saved every PriorityCalcPeriod (1 min)
        wait_for(lambda: saved(os.path.join(c.state_dir(), "herd.db"), "fairshare"), 90,
                 "the fair-share usage to be saved")
        expect = {k: c.run(v, extra_env={"TZ": "UTC"}).stdout for k, v in SHOWS.items()}
        expect["ids"] = {"done": done, "failed": failed, "array": arr, "cancelled": cancelled,
                         "requeued": rq, "held": held}
    finally:
        c.down()
    db = os.path.join(d, "ctld", "herd.db")
    con = sqlite3.connect(db)
    con.execute("VACUUM")
    con.close()
    shutil.copy(db, os.path.join(out_dir, "upgrade-v0.db"))
    with open(os.path.join(out_dir, "upgrade-v0.expect.json"), "w") as f:
        json.dump(expect, f, indent=1, sort_keys=True)
        f.write("\n")
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1])
