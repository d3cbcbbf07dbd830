"""Another user's job script, environment and output (issue 24 item 3):
refused through every command and API where Slurm refuses them. Without
PrivateData Slurm shows every job's record to everyone (squeue, scontrol
show job, sacct -a) but its batch script (`scontrol write batch_script`),
its environment and its output only to the owner and the admins; with
PrivateData=jobs a user sees no other user's job, but a coordinator those of
their accounts: squeue, scontrol, sacct, sprio, sstat and slurmrestd's job
and slurmdb routes alike."""

import json
import os

import pytest

from helpers import cluster_fixture, wait_file

SECRET = "s3cr3t-token-4711"
UP = ["--nodes", "1", "--gpus-per-node", "1", "--cpus-per-node", "4", "--mem-per-node", "2000",
      "--set", "PrivateData=jobs", "--set", "PriorityType=priority/multifactor"]


def user_get(c, user, path):
    """GET path on the controller's Unix socket as user (the kernel names
    the caller): (status, body text)."""
    cp = c.run(["curl", "-s", "-w", "\n%{http_code}", "--unix-socket", c.sock_path(),
                "http://localhost" + path], user=user)
    body, _, status = cp.stdout.rpartition("\n")
    return int(status), body


def secret_job(c, workdir, user, hold=False):
    """A job whose script, environment and output each hold SECRET."""
    return c.sbatch(["--export=ALL,HERD_SECRET=" + SECRET] + (["--hold"] if hold else []),
                    cwd=workdir, user=user,
                    script=f"#!/bin/sh\n# {SECRET}\necho \"$HERD_SECRET\"\n")


# --- without PrivateData: the record is public, its contents are not ----------

def test_script_environment_and_output_only_for_the_owner(cluster, workdir, users):
    c = cluster
    job = secret_job(c, workdir, "herdtest1")
    c.wait_state(job, "COMPLETED")
    wait_file(os.path.join(workdir, f"slurm-{job}.out"), contains=SECRET)
    # the owner gets the script and environment
    st, body = user_get(c, "herdtest1", f"/v1/jobs/{job}?script=1")
    assert st == 200 and SECRET in json.loads(body)["jobs"][0]["script"], body[:300]
    # another user: the record, never the secret, by any route
    for path in (f"/v1/jobs/{job}?script=1", f"/v1/jobs/{job}", f"/v1/jobs?ids={job}",
                 f"/slurm/v0.0.40/job/{job}", "/slurm/v0.0.40/jobs",
                 f"/slurmdb/v0.0.40/job/{job}", f"/v1/accounting?ids={job}"):
        st, body = user_get(c, "herdtest2", path)
        assert st == 200, (path, st, body[:300])
        assert SECRET not in body, f"{path} showed herdtest1's secret to herdtest2"
    st, body = user_get(c, "herdtest2", f"/v1/jobs/{job}/output")
    assert st == 403 and SECRET not in body, (st, body[:300])
    for cmd in (["scontrol", "show", "job", "-dd", str(job)], ["squeue", "-j", str(job), "-O", "all"],
                ["sacct", "-a", "-j", str(job), "-o", "ALL", "-P"]):
        cp = c.run(cmd, user="herdtest2", check=False)
        assert SECRET not in cp.stdout + cp.stderr, cmd
    # the output file itself is the owner's, mode from the owner's umask
    # (Slurm's too); the job's spool copy of script and environment is root's
    assert os.stat(os.path.join(workdir, f"slurm-{job}.out")).st_uid != 0


# --- PrivateData=jobs -----------------------------------------------------------

@pytest.fixture(scope="module")
def pc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "secprivate", UP)


@pytest.fixture(scope="module")
def two_jobs(pc, tmp_path_factory):
    """A held job of herdtest1's and one of herdtest2's, a finished one of
    each (in accounting) and a running one of herdtest1's."""
    from helpers import open_dir
    wd = tmp_path_factory.mktemp("private-wd")
    open_dir(wd)
    done = secret_job(pc, str(wd), "herdtest1")
    done2 = secret_job(pc, str(wd), "herdtest2")
    pc.wait_state(done, "COMPLETED", timeout=60)
    pc.wait_state(done2, "COMPLETED", timeout=60)
    mine = secret_job(pc, str(wd), "herdtest1", hold=True)
    theirs = secret_job(pc, str(wd), "herdtest2", hold=True)
    running = pc.sbatch([], cwd=str(wd), user="herdtest1", script="#!/bin/sh\nexec sleep 120\n")
    pc.wait_state(running, "RUNNING")
    return {"done": done, "done2": done2, "mine": mine, "theirs": theirs, "running": running}


def ids_in(text):
    return set(int(w) for w in text.replace("|", " ").split() if w.isdigit())


def test_private_squeue_scontrol_sprio(pc, two_jobs):
    c, j = pc, two_jobs
    cp = c.run(["squeue", "-h", "-t", "all", "-o", "%i"], user="herdtest2")
    assert ids_in(cp.stdout) == {j["theirs"], j["done2"]}, cp.stdout
    cp = c.run(["scontrol", "show", "job", str(j["mine"])], user="herdtest2", check=False)
    assert cp.returncode == 1 and "Invalid job id specified" in cp.stderr, cp
    cp = c.run(["sprio", "-h", "-o", "%i"], user="herdtest2", check=False)
    assert str(j["mine"]) not in cp.stdout.split(), cp.stdout
    # root sees all
    cp = c.run(["squeue", "-h", "-t", "all", "-o", "%i"])
    assert {j["mine"], j["theirs"]} <= ids_in(cp.stdout), cp.stdout


def test_private_sacct(pc, two_jobs):
    """sacct -a / -u / -j by a user: their own records only (slurm.conf's
    PrivateData=jobs: 'Prevents users from viewing job records belonging to
    other users' in sacct as well)."""
    c, j = pc, two_jobs
    for args in (["-a"], ["-u", "herdtest1"], ["-j", f"{j['done']},{j['mine']}"], ["-a", "-D"]):
        cp = c.run(["sacct", "-X", "-n", "-P", "-o", "JobID", "-S", "2000-01-01"] + args,
                   user="herdtest2")
        got = ids_in(cp.stdout)
        assert not got & {j["done"], j["mine"]}, (args, cp.stdout)
    cp = c.run(["sacct", "-X", "-n", "-P", "-o", "JobID", "-a", "-S", "2000-01-01"],
               user="herdtest2")
    assert j["done2"] in ids_in(cp.stdout), cp.stdout
    cp = c.run(["sacct", "-X", "-n", "-P", "-o", "JobID", "-a", "-S", "2000-01-01"])
    assert {j["done"], j["done2"]} <= ids_in(cp.stdout), cp.stdout


def test_private_rest_routes(pc, two_jobs):
    """slurmrestd's routes (and /v1's) hide the job as squeue does."""
    c, j = pc, two_jobs
    other = j["mine"]
    for path in ("/slurm/v0.0.40/jobs", "/slurmdb/v0.0.40/jobs", "/v1/jobs",
                 f"/v1/accounting?ids={j['done']},{other}", f"/v1/jobs?ids={other}"):
        st, body = user_get(c, "herdtest2", path)
        assert st in (200, 404), (path, st, body[:300])
        assert f'"job_id":{other},' not in body.replace(" ", "") and \
            f'"job_id":{j["done"]},' not in body.replace(" ", ""), (path, body[:500])
    for path in (f"/slurm/v0.0.40/job/{other}", f"/slurmdb/v0.0.40/job/{j['done']}",
                 f"/v1/jobs/{other}", f"/v1/jobs/{other}/wait?timeout=1"):
        st, body = user_get(c, "herdtest2", path)
        assert SECRET not in body and "herdtest1" not in body, (path, st, body[:500])
        assert st != 200 or '"jobs":[]' in body.replace(" ", ""), (path, st, body[:500])
    # the owner still sees theirs
    st, body = user_get(c, "herdtest1", f"/slurm/v0.0.40/job/{other}")
    assert st == 200 and f'"job_id":{other}' in body.replace(" ", ""), body[:300]


def test_private_sstat(pc, two_jobs):
    c, j = pc, two_jobs
    run = str(j["running"])
    cp = c.run(["sstat", "-n", "-P", "-o", "JobID,MaxRSS", "-j", run], user="herdtest1")
    assert cp.stdout.startswith(run), cp
    cp = c.run(["sstat", "-n", "-P", "-o", "JobID,MaxRSS", "-j", run], user="herdtest2",
               check=False)
    assert run not in cp.stdout, cp


def test_private_coordinator_sees_their_accounts_jobs(pc, tmp_path_factory):
    """PrivateData=jobs, as Slurm: a coordinator of an account reads the
    jobs of that account (and of the accounts below it) through squeue,
    scontrol, sprio, sacct and slurmrestd; not the same user's jobs in
    other accounts, and the user they coordinate still reads only theirs."""
    from helpers import open_dir
    c = pc
    wd = tmp_path_factory.mktemp("private-coord")
    open_dir(wd)
    mgr = ["sacctmgr", "-i"]
    c.run(mgr + ["add", "account", "optics"])
    c.run(mgr + ["add", "account", "lasers", "parent=optics"])
    c.run(mgr + ["add", "user", "herdtest1", "account=lasers"])
    c.run(mgr + ["add", "account", "chemlab"])
    c.run(mgr + ["add", "account", "coordhome"])
    c.run(mgr + ["add", "user", "herdtest2", "account=coordhome"])
    c.run(mgr + ["add", "user", "herdtest1", "account=chemlab"])
    c.run(mgr + ["add", "coordinator", "account=optics", "names=herdtest2"])
    try:
        inside = c.sbatch(["--hold", "-A", "lasers"], cwd=str(wd), user="herdtest1",
                          script="#!/bin/sh\ntrue\n")
        outside = c.sbatch(["--hold", "-A", "chemlab"], cwd=str(wd), user="herdtest1",
                           script="#!/bin/sh\ntrue\n")
        done = c.sbatch(["-A", "lasers"], cwd=str(wd), user="herdtest1",
                        script="#!/bin/sh\ntrue\n")
        c.wait_state(done, "COMPLETED", timeout=60)
        cp = c.run(["squeue", "-h", "-t", "all", "-o", "%i"], user="herdtest2")
        got = ids_in(cp.stdout)
        assert {inside, done} <= got and outside not in got, cp.stdout
        cp = c.run(["scontrol", "show", "job", str(inside)], user="herdtest2")
        assert f"JobId={inside} " in cp.stdout
        cp = c.run(["scontrol", "show", "job", str(outside)], user="herdtest2", check=False)
        assert cp.returncode == 1 and "Invalid job id specified" in cp.stderr, cp
        cp = c.run(["sprio", "-h", "-o", "%i"], user="herdtest2")
        assert str(inside) in cp.stdout.split() and str(outside) not in cp.stdout.split()
        cp = c.run(["sacct", "-X", "-n", "-P", "-o", "JobID", "-a", "-S", "2000-01-01"],
                   user="herdtest2")
        got = ids_in(cp.stdout)
        # (a held job never became eligible: sacct leaves it out, as Slurm's)
        assert done in got and outside not in got, cp.stdout
        st, body = user_get(c, "herdtest2", f"/slurmdb/v0.0.40/job/{done}")
        assert st == 200 and f'"job_id":{done}' in body.replace(" ", ""), body[:300]
        st, body = user_get(c, "herdtest2", "/slurm/v0.0.40/jobs")
        flat = body.replace(" ", "")
        assert f'"job_id":{inside},' in flat and f'"job_id":{outside},' not in flat
        # the user they coordinate sees nothing of herdtest2's
        cp = c.run(["squeue", "-h", "-t", "all", "-o", "%u"], user="herdtest1")
        assert "herdtest2" not in cp.stdout.split(), cp.stdout
        for j in (inside, outside):
            c.run(["scancel", str(j)])
    finally:
        c.run(mgr + ["delete", "coordinator", "account=optics", "names=herdtest2"], check=False)
    # no longer a coordinator: back to their own jobs
    cp = c.run(["squeue", "-h", "-t", "all", "-o", "%i"], user="herdtest2")
    assert inside not in ids_in(cp.stdout), cp.stdout
