"""Job dependencies (sbatch --dependency): each type, "," and "?", the
reasons Dependency and DependencyNeverSatisfied, what squeue %E and scontrol
show, --kill-on-invalid-dep, arrays, and Slurm's refusal of a job id that is
not known."""

import pytest

from helpers import wait_for

OK = "#!/bin/sh\nexit 0\n"
FAIL = "#!/bin/sh\nexit 3\n"
SLEEP = "#!/bin/sh\nexec /bin/sleep 60\n"


def sub(c, workdir, args, script=OK):
    return c.sbatch(list(args), cwd=workdir, script=script)


def reason(c, job):
    return c.field(job, "%r")


def wait_reason(c, job, want, timeout=20):
    wait_for(lambda: reason(c, job) == want, timeout, f"job {job} reason {want}")


def test_afterok_waits_then_runs(cluster, workdir):
    c = cluster
    a = sub(c, workdir, ["--hold"])
    b = sub(c, workdir, [f"--dependency=afterok:{a}"])
    assert c.state(b) == "PENDING"
    assert reason(c, b) == "Dependency"
    assert c.field(b, "%E") == f"afterok:{a}(unfulfilled)"
    show = c.run(["scontrol", "show", "job", str(b)]).stdout
    assert f"Reason=Dependency Dependency=afterok:{a}(unfulfilled)" in show, show
    c.run(["scontrol", "release", str(a)])
    c.wait_state(a, "COMPLETED")
    c.wait_state(b, "COMPLETED")
    assert c.field(b, "%E") == "(null)"


def test_afterok_on_failure_never_satisfied(cluster, workdir):
    c = cluster
    a = sub(c, workdir, [], script=FAIL)
    c.wait_state(a, "FAILED")
    b = sub(c, workdir, ["-d", f"afterok:{a}"])
    notok = sub(c, workdir, ["-d", f"afternotok:{a}"])
    anyd = sub(c, workdir, ["-d", f"afterany:{a}"])
    wait_reason(c, b, "DependencyNeverSatisfied")
    assert c.state(b) == "PENDING"
    assert c.field(b, "%E") == f"afterok:{a}(failed)"
    c.wait_state(notok, "COMPLETED")
    c.wait_state(anyd, "COMPLETED")
    # a dependency that can never hold ends its job when asked to
    k = sub(c, workdir, ["-d", f"afterok:{a}", "--kill-on-invalid-dep=yes"])
    c.wait_state(k, "CANCELLED")
    assert c.state(b) == "PENDING", "without --kill-on-invalid-dep the job stays"


def test_failure_after_submission(cluster, workdir):
    c = cluster
    a = sub(c, workdir, ["--hold"], script=FAIL)
    ok = sub(c, workdir, ["-d", f"afterok:{a}"])
    notok = sub(c, workdir, ["-d", f"afternotok:{a}", "--kill-on-invalid-dep=yes"])
    k = sub(c, workdir, ["-d", f"afterok:{a}", "--kill-on-invalid-dep=yes"])
    c.run(["scontrol", "release", str(a)])
    c.wait_state(a, "FAILED")
    c.wait_state(notok, "COMPLETED")
    c.wait_state(k, "CANCELLED")
    wait_reason(c, ok, "DependencyNeverSatisfied")


def test_after_start_and_any_of(cluster, workdir):
    c = cluster
    a = sub(c, workdir, ["--hold"], script=SLEEP)
    b = sub(c, workdir, ["-d", f"after:{a}"])
    never = sub(c, workdir, ["--hold"], script=FAIL)
    either = sub(c, workdir, ["-d", f"afterok:{never}?afterany:{a}"])
    assert c.field(either, "%E") == f"afterok:{never}(unfulfilled)?afterany:{a}(unfulfilled)"
    assert reason(c, b) == "Dependency"
    c.run(["scontrol", "release", str(a)])
    c.wait_state(a, "RUNNING")
    c.wait_state(b, "COMPLETED")          # after: its start is enough
    assert c.state(either) == "PENDING"   # afterany waits for the end
    c.run(["scancel", str(a)])
    c.wait_state(either, "COMPLETED")
    # all of: one failed is enough to never run
    both = sub(c, workdir, ["-d", f"afterany:{a},afterok:{a}"])
    wait_reason(c, both, "DependencyNeverSatisfied")
    c.run(["scancel", str(never), str(both)])


@pytest.mark.waits
def test_after_with_delay(cluster, workdir):
    c = cluster
    a = sub(c, workdir, [], script="#!/bin/sh\nexec /bin/sleep 300\n")
    c.wait_state(a, "RUNNING")
    b = sub(c, workdir, ["-d", f"after:{a}+1"])
    assert c.field(b, "%E") == f"after:{a}+1(unfulfilled)"
    assert reason(c, b) == "Dependency"
    c.wait_state(b, "COMPLETED", timeout=90)   # a minute after a started
    assert c.state(a) == "RUNNING"
    c.run(["scancel", str(a)])


def test_singleton(cluster, workdir):
    c = cluster
    first = sub(c, workdir, ["-J", "single1", "-d", "singleton"], script=SLEEP)
    c.wait_state(first, "RUNNING")
    second = sub(c, workdir, ["-J", "single1", "--dependency=singleton"])
    other = sub(c, workdir, ["-J", "single2", "-d", "singleton"])
    c.wait_state(other, "COMPLETED")
    assert reason(c, second) == "Dependency"
    assert c.field(second, "%E") == "singleton(unfulfilled)"
    c.run(["scancel", str(first)])
    c.wait_state(second, "COMPLETED")


def test_array_dependencies(cluster, workdir):
    c = cluster
    arr = sub(c, workdir, ["--hold", "--array=0-2"])
    whole = sub(c, workdir, ["-d", f"afterok:{arr}"])
    one = sub(c, workdir, ["-d", f"afterok:{arr}_1"])
    assert c.field(whole, "%E") == f"afterok:{arr}_*(unfulfilled)"
    assert c.field(one, "%E") == f"afterok:{arr}_1(unfulfilled)"
    corr = sub(c, workdir, ["--array=0-2", "-d", f"aftercorr:{arr}"])
    assert reason(c, whole) == "Dependency"
    c.run(["scontrol", "release", str(arr)])
    c.wait_state(whole, "COMPLETED", timeout=30)
    c.wait_state(one, "COMPLETED")
    want = {f"{corr}_{t}": "COMPLETED" for t in range(3)}

    def tasks():
        out = c.run(["squeue", "-h", "-t", "all", "-j", str(corr), "-o", "%i %T"]).stdout
        return dict(line.split() for line in out.splitlines() if line.strip())
    wait_for(lambda: tasks() == want, 30, f"the tasks of {corr} to complete")


def test_unknown_or_malformed_refused(cluster, workdir):
    c = cluster
    for dep in ("afterok:999999", "afterok", "afterok:", "bogus:1", "afterok:1,afterok:2?afterok:3",
                "afterok:x", "afterany:1+5"):
        cp = c.run(["sbatch", f"--dependency={dep}"], input=OK, cwd=workdir, check=False)
        assert cp.returncode == 1, (dep, cp.stdout)
        assert cp.stderr.strip() == \
            "sbatch: error: Batch job submission failed: Job dependency problem", (dep, cp.stderr)
    bad = c.run(["sbatch", "--kill-on-invalid-dep=perhaps"], input=OK, cwd=workdir, check=False)
    assert bad.returncode == 255 and "--kill-on-invalid-dep" in bad.stderr   # as Slurm


def test_update_dependency(cluster, workdir):
    c = cluster
    a = sub(c, workdir, ["--hold"])
    b = sub(c, workdir, ["--hold"])
    x = sub(c, workdir, ["-d", f"afterok:{a}"])
    assert c.field(x, "%E") == f"afterok:{a}(unfulfilled)"
    c.run(["scontrol", "update", f"JobId={x}", f"Dependency=afterany:{b}"])
    assert c.field(x, "%E") == f"afterany:{b}(unfulfilled)"
    cycle = c.run(["scontrol", "update", f"JobId={b}", f"Dependency=afterok:{x}"], check=False)
    assert cycle.returncode == 1
    assert cycle.stderr.strip() == "slurm_update error: Circular dependency", cycle.stderr
    bad = c.run(["scontrol", "update", f"JobId={x}", "Dependency=afterok:999999"], check=False)
    assert bad.stderr.strip() == "slurm_update error: Job dependency problem"
    assert c.field(x, "%E") == f"afterany:{b}(unfulfilled)", "a refused update changes nothing"
    c.run(["scontrol", "update", f"JobId={x}", "Dependency="])
    assert c.field(x, "%E") == "(null)"
    c.wait_state(x, "COMPLETED")
    c.run(["scancel", str(a), str(b)])
