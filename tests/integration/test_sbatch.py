"""sbatch: submission, directives, output files, working directory, --export,
and the requests it must refuse with Slurm's messages."""

import os
import re

import pytest

from helpers import read

HELLO = "#!/bin/sh\necho hello from $SLURM_JOB_ID\n"


def out_of(c, job, workdir, name=None):
    c.wait_state(job, "COMPLETED")
    path = os.path.join(workdir, name or f"slurm-{job}.out")
    assert os.path.exists(path), f"{path} missing; {workdir} holds {sorted(os.listdir(workdir))}"
    return read(path)


def test_submitted_batch_job_increasing_ids(cluster, workdir):
    script = os.path.join(workdir, "s.sh")
    with open(script, "w") as f:
        f.write(HELLO)
    ids = []
    for _ in range(2):
        cp = cluster.run(["sbatch", script], cwd=workdir)
        m = re.fullmatch(r"Submitted batch job (\d+)\n", cp.stdout)
        assert m, f"sbatch printed {cp.stdout!r}"
        ids.append(int(m.group(1)))
    assert ids[1] > ids[0]
    for j in ids:
        assert out_of(cluster, j, workdir) == f"hello from {j}\n"


def test_parsable_prints_only_the_id(cluster, workdir):
    cp = cluster.run(["sbatch", "--parsable", "--wrap", "true"], cwd=workdir)
    assert re.fullmatch(r"\d+(;\S+)?\n", cp.stdout), repr(cp.stdout)
    cluster.wait_state(int(cp.stdout.split(";")[0]), "COMPLETED")


def test_script_from_stdin(cluster, workdir):
    cp = cluster.run(["sbatch", "--parsable"], input=HELLO, cwd=workdir)
    job = int(cp.stdout.strip())
    assert out_of(cluster, job, workdir) == f"hello from {job}\n"


def test_wrap(cluster, workdir):
    job = cluster.sbatch(["--wrap", "echo wrapped $SLURM_JOB_NAME"], cwd=workdir)
    assert out_of(cluster, job, workdir) == "wrapped wrap\n"


def test_directives_honoured_and_command_line_wins(cluster, workdir):
    script = ("#!/bin/sh\n#SBATCH -J fromdirective\n#SBATCH --output=dir-%j.txt\n"
              "echo name=$SLURM_JOB_NAME\n")
    job = cluster.sbatch(["-J", "fromcli"], cwd=workdir, script=script)
    assert out_of(cluster, job, workdir, f"dir-{job}.txt") == "name=fromcli\n"
    assert cluster.field(job, "%j") == "fromcli"
    assert not os.path.exists(os.path.join(workdir, f"slurm-{job}.out"))


def test_directive_after_first_command_ignored(cluster, workdir):
    script = "#!/bin/sh\n#SBATCH -J first\necho name=$SLURM_JOB_NAME\n#SBATCH -J ignored\n"
    job = cluster.sbatch([], cwd=workdir, script=script)
    assert out_of(cluster, job, workdir) == "name=first\n"


def test_script_without_shebang_refused(cluster, workdir):
    path = os.path.join(workdir, "noshebang.sh")
    with open(path, "w") as f:
        f.write("echo no interpreter line\n")
    cp = cluster.run(["sbatch", path], cwd=workdir, check=False)
    assert cp.returncode != 0, cp.stdout
    assert "sbatch: error: This does not look like a batch script" in cp.stderr, cp.stderr
    assert "Submitted" not in cp.stdout


def test_output_file_in_submit_dir(cluster, workdir):
    job = cluster.sbatch([], cwd=workdir, script="#!/bin/sh\necho out-line\necho err-line >&2\n")
    # stderr goes to the same file when -e is not given.
    assert out_of(cluster, job, workdir) == "out-line\nerr-line\n"


def test_output_error_patterns(cluster, workdir):
    script = "#!/bin/sh\necho to-stdout\necho to-stderr >&2\n"
    job = cluster.sbatch(["-J", "pat", "-o", "%x-%j-%u-%N.out", "-e", "%x-%j.err"],
                         cwd=workdir, script=script)
    cluster.wait_state(job, "COMPLETED")
    node = cluster.field(job, "%N")
    assert node in ("node1", "node2")
    files = sorted(os.listdir(workdir))
    out = os.path.join(workdir, f"pat-{job}-root-{node}.out")
    err = os.path.join(workdir, f"pat-{job}.err")
    assert os.path.exists(out), files
    assert os.path.exists(err), files
    assert read(out) == "to-stdout\n"
    assert read(err) == "to-stderr\n"


def test_workdir_option(cluster, workdir):
    sub = os.path.join(workdir, "elsewhere")
    os.mkdir(sub)
    job = cluster.sbatch(["-D", sub], cwd=workdir, script="#!/bin/sh\npwd\n")
    # A relative output file is relative to the job's working directory.
    assert out_of(cluster, job, sub).strip() == sub
    assert not os.path.exists(os.path.join(workdir, f"slurm-{job}.out"))


def test_export_none(cluster, workdir):
    script = "#!/bin/sh\necho FOO=${FOO-unset} ID=${SLURM_JOB_ID-unset}\n"
    job = cluster.sbatch(["--export=NONE"], cwd=workdir, script=script,
                         extra_env={"FOO": "fromsubmit"})
    assert out_of(cluster, job, workdir) == f"FOO=unset ID={job}\n"


def test_export_list(cluster, workdir):
    script = "#!/bin/sh\necho FOO=${FOO-unset} OTHER=${OTHER-unset}\n"
    job = cluster.sbatch(["--export=FOO=bar"], cwd=workdir, script=script,
                         extra_env={"FOO": "fromsubmit", "OTHER": "x"})
    assert out_of(cluster, job, workdir) == "FOO=bar OTHER=unset\n"


def test_export_default_all(cluster, workdir):
    script = "#!/bin/sh\necho MYVAR=${MYVAR-unset}\n"
    job = cluster.sbatch([], cwd=workdir, script=script, extra_env={"MYVAR": "arrives"})
    assert out_of(cluster, job, workdir) == "MYVAR=arrives\n"


# --- refused at submit --------------------------------------------------

def refused(c, args, workdir, script=HELLO):
    path = os.path.join(workdir, "refused.sh")
    with open(path, "w") as f:
        f.write(script)
    before = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    cp = c.run(["sbatch"] + args + [path], cwd=workdir, check=False)
    assert cp.returncode != 0, f"sbatch {args} was accepted: {cp.stdout!r}"
    assert "Submitted" not in cp.stdout
    after = c.run(["squeue", "-h", "-t", "all", "-o", "%i"]).stdout.split()
    assert set(after) <= set(before), f"a job was created: {set(after) - set(before)}"
    return cp.stderr


def test_too_many_gpus_refused(cluster, workdir):
    err = refused(cluster, ["--gres=gpu:5"], workdir)
    assert "sbatch: error: Batch job submission failed: Requested node configuration " \
           "is not available" in err, err


def test_unknown_partition_refused(cluster, workdir):
    err = refused(cluster, ["-p", "nosuchpart"], workdir)
    assert "sbatch: error: Batch job submission failed: Invalid partition name specified" \
           in err, err


def test_malformed_time_refused(cluster, workdir):
    err = refused(cluster, ["-t", "abc"], workdir)
    assert err.startswith("sbatch: error:") and re.search(r"time", err, re.I), err


@pytest.mark.parametrize("directive,names", [
    ("#SBATCH --no-such-option", ("no-such-option",)),
    ("#SBATCH --time=xyz", ("time", "xyz")),
    ("#SBATCH --nodes=abc", ("node", "abc")),
])
def test_malformed_directive_refused(cluster, workdir, directive, names):
    err = refused(cluster, [], workdir, script=f"#!/bin/sh\n{directive}\necho hi\n")
    assert err.startswith("sbatch:"), err
    assert any(n in err.lower() for n in names), f"error names none of {names}: {err!r}"
