"""A job's paths against a hostile owner (issue 24 item 3): its output and
error files, and the notes the supervisor adds to them, are opened as the
user, after root is given up, so that a symbolic or hard link the user
planted (even one swapped in while the job runs) never makes root write a
file; --chdir into a directory the user cannot enter leaves the job in
/tmp as the user, as slurmstepd does."""

import os
import pwd
import shutil

import pytest

from helpers import FINAL_STATES, read, wait_file, wait_for

VICTIM_TEXT = "root's file\n"


@pytest.fixture
def rootdir(tmp_path_factory):
    """A directory of root's (0755) with a file of root's (0644) in it: a
    user may read it, never write it."""
    d = tmp_path_factory.mktemp("rootonly")
    os.chmod(d, 0o755)
    victim = d / "victim"
    victim.write_text(VICTIM_TEXT)
    os.chmod(victim, 0o644)
    yield str(d)
    shutil.rmtree(d, ignore_errors=True)


def chown_user(path, user="herdtest1"):
    pw = pwd.getpwnam(user)
    os.lchown(path, pw.pw_uid, pw.pw_gid)


def wait_end(c, job):
    return wait_for(lambda: (s := c.state(job)) in FINAL_STATES and s, 30, f"job {job} to end")


def test_output_and_error_links_never_written_as_root(cluster, workdir, rootdir, users):
    """-o and -e naming a symbolic link, and -o naming a hard link, to a
    file of root's: the job cannot open them as its user, so it ends
    without running, and root's file is untouched."""
    c = cluster
    victim = os.path.join(rootdir, "victim")
    sym = os.path.join(workdir, "sym.out")
    os.symlink(victim, sym)
    chown_user(sym)
    # fs.protected_hardlinks stops a user from making this link; a node
    # where it is off lets them, so root makes it for the test
    hard = os.path.join(workdir, "hard.out")
    os.link(victim, hard)
    ok = os.path.join(workdir, "ok.out")
    script = "#!/bin/sh\necho pwned\necho pwned >&2\n"
    jobs = [c.sbatch(["-o", sym], cwd=workdir, user="herdtest1", script=script),
            c.sbatch(["-o", ok, "-e", sym], cwd=workdir, user="herdtest1", script=script),
            c.sbatch(["-o", hard], cwd=workdir, user="herdtest1", script=script),
            c.sbatch(["-o", ok, "-e", hard, "--open-mode=append"], cwd=workdir,
                     user="herdtest1", script=script)]
    for job in jobs:
        assert wait_end(c, job) != "COMPLETED", f"job {job} ran with a root-owned output file"
    assert read(victim) == VICTIM_TEXT
    st = os.stat(victim)
    assert (st.st_uid, st.st_mode & 0o777) == (0, 0o644)
    assert not os.path.exists(ok) or "pwned" not in read(ok)


def test_cancel_note_never_follows_a_swapped_directory(cluster, workdir, rootdir, users):
    """The supervisor's 'CANCELLED' note goes to the job's output path by
    name, after the job has run a while: the user swaps a directory of that
    path for a link into root's directory, holding a file of the same name.
    The note is written as the user, so root's file stays as it was."""
    c = cluster
    sub = os.path.join(workdir, "d")
    os.mkdir(sub)
    chown_user(sub)
    shutil.copy(os.path.join(rootdir, "victim"), os.path.join(rootdir, "job.out"))
    started = os.path.join(workdir, "started")
    job = c.sbatch(["-o", os.path.join(sub, "job.out")], cwd=workdir, user="herdtest1",
                   script=f"#!/bin/sh\ntouch {started}\nexec sleep 120\n")
    c.wait_state(job, "RUNNING")
    wait_file(started)
    os.rename(sub, sub + ".old")
    os.symlink(rootdir, sub)
    chown_user(sub)
    c.run(["scancel", str(job)], user="herdtest1")
    c.wait_state(job, "CANCELLED", timeout=30)
    # the note has been written, or not, by the time the job is CANCELLED
    # in its node's report; give a slow supervisor a moment more
    wait_for(lambda: c.field(job, "%T") == "CANCELLED", 10, "the end")
    assert read(os.path.join(rootdir, "job.out")) == VICTIM_TEXT, \
        "the supervisor's note went into root's file"


def test_chdir_into_a_root_only_directory(cluster, workdir, users):
    """--chdir to a directory the user may not enter: slurmstepd's
    'couldn't chdir ... going to /tmp instead', as the user; the job's
    relative writes land in /tmp, nothing in root's directory."""
    c = cluster
    closed = os.path.join(workdir, "closed")
    os.mkdir(closed, 0o700)
    out = os.path.join(workdir, "chdir.out")
    name = f"herd-chdir-marker-{os.getpid()}"
    job = c.sbatch([f"--chdir={closed}", "-o", out], cwd=workdir, user="herdtest1",
                   script=f"#!/bin/sh\npwd\nid -u\ntouch {name}\n")
    c.wait_state(job, "COMPLETED")
    lines = read(out).splitlines()
    assert f"slurmstepd: error: couldn't chdir to `{closed}': Permission denied: " \
           "going to /tmp instead" in lines, lines
    assert lines[-2:] == ["/tmp", str(pwd.getpwnam("herdtest1").pw_uid)], lines
    assert os.listdir(closed) == []
    marker = os.path.join("/tmp", name)
    assert os.stat(marker).st_uid == pwd.getpwnam("herdtest1").pw_uid
    os.unlink(marker)


def test_srun_chdir_into_a_root_only_directory(cluster, workdir, users):
    c = cluster
    closed = os.path.join(workdir, "closed-srun")
    os.mkdir(closed, 0o700)
    cp = c.run(["srun", f"--chdir={closed}", "sh", "-c", "pwd; id -u"], user="herdtest1",
               cwd=workdir)
    assert cp.stdout.splitlines() == ["/tmp", str(pwd.getpwnam("herdtest1").pw_uid)], cp
    assert f"couldn't chdir to `{closed}': Permission denied" in cp.stderr, cp.stderr
