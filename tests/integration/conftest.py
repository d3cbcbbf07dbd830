"""Fixtures of the integration tests. Most tests share one 2-node x 4-GPU
cluster (session scope); destructive tests start their own. Every cluster is
stopped with `herd down` in teardown, failure or not, and no process of its
directory may be left."""

import os
import shutil
import signal
import subprocess
import time

import pytest

import helpers
from helpers import FINAL_STATES, cluster_fixture, open_dir, wait_for

SESSION_UP = ["--nodes", "2", "--gpus-per-node", "4", "--cpus-per-node", "8",
              "--mem-per-node", "8000", "--set", "SlurmdTimeout=6", "--set", "KillWait=2",
              # a requeued job starts again after cred_expire + 1 s (Slurm: 121 s)
              "--set", "AuthInfo=cred_expire=5",
              # the late time limit test must still see its job however slow the suite
              "--set", "MinJobAge=1800"]
USERS = ("herdtest1", "herdtest2")


def pytest_configure(config):
    """`timeout N pytest ...` sends SIGTERM: turn it into an interrupt so that
    the fixtures' teardown still runs `herd down` and no cluster is left."""
    config.addinivalue_line(
        "markers", "waits: idles a minute or more on the wall clock (a time limit, a "
        "dependency's delay, a reservation's recurrence); scripts/run-integration.sh runs "
        "these beside the others")
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, interrupt)


@pytest.fixture(autouse=True)
def tmp_stays_shared():
    """A test that loosens its parents' modes must not take /tmp's sticky,
    world-writable bits: every later job that writes there (Open MPI's
    session directory) would fail. Put /tmp back and fail the test that did it."""
    before = os.stat("/tmp").st_mode & 0o7777
    yield
    after = os.stat("/tmp").st_mode & 0o7777
    if after != before:
        os.chmod("/tmp", before)
        pytest.fail(f"the test changed /tmp's mode from {before:o} to {after:o}")


@pytest.fixture(scope="session", autouse=True)
def herd_bin_snapshot(tmp_path_factory):
    """The binaries as they were when the session began: a rebuild of
    HERD_BIN while the suite runs must not make commands vanish under it."""
    src = helpers.HERD_BIN
    if not os.path.isfile(os.path.join(src, "herd")):
        return src          # Cluster.up reports what is missing
    dst = tmp_path_factory.mktemp("bin")
    for name in os.listdir(src):
        p = os.path.join(src, name)
        if os.path.islink(p):
            os.symlink(os.readlink(p), dst / name)
        elif os.path.isfile(p):
            shutil.copy2(p, dst / name)
    open_dir(dst, 0o755)
    helpers.HERD_BIN = str(dst)
    return str(dst)


@pytest.fixture(scope="session")
def users():
    for u in USERS:
        if subprocess.run(["id", u], capture_output=True).returncode != 0:
            # the run beside this one (run-integration.sh) may make it
            # meanwhile (9) or hold the passwd lock (10)
            for _ in range(50):
                cp = subprocess.run(["useradd", "-m", u], capture_output=True, text=True)
                if cp.returncode != 10:
                    break
                time.sleep(0.2)
            assert cp.returncode in (0, 9), f"useradd {u}: {cp.stderr}"
    return USERS


@pytest.fixture(scope="session")
def session_cluster(tmp_path_factory, users):
    gen = cluster_fixture(tmp_path_factory, "session", SESSION_UP)
    c = next(gen)
    try:
        # What the freshly started cluster shows, before any job takes a node.
        c.initial = {args: c.run(list(args), check=False)
                     for args in (("sinfo",), ("sinfo", "-h", "-o", "%D,%T"), ("sinfo", "-N"))}
        # The time limit job (-t 1) starts now so that its minute overlaps the
        # other tests; test_zz_timeout.py checks how it ended.
        c.timeout_job = None
        c.timeout_error = None
        wd = tmp_path_factory.mktemp("timeout-job")
        open_dir(wd)
        c.timeout_dir = str(wd)
        c.timeout_submitted = time.monotonic()
        try:
            c.timeout_job = c.sbatch(["-t", "1", "-J", "tlimit"], cwd=str(wd),
                                     script="#!/bin/sh\necho started\nexec /bin/sleep 600\n")
        except (Exception, pytest.fail.Exception) as e:
            c.timeout_error = str(e)
        yield c
    finally:
        for _ in gen:
            pass


@pytest.fixture(scope="session", autouse=True)
def start_session_cluster_early(herd_bin_snapshot, request):
    """Starts the shared cluster (and the time limit job) before the first
    test, whichever it is; a failure here is reported by the tests using it."""
    try:
        request.getfixturevalue("session_cluster")
    except (Exception, pytest.fail.Exception):
        pass


@pytest.fixture
def cluster(session_cluster):
    """The shared cluster; jobs a test leaves behind are cancelled after it."""
    yield session_cluster
    keep = {session_cluster.timeout_job}
    left = session_cluster.cancel_all(keep=keep)
    if left:
        def done():
            return all(session_cluster.state(i) in FINAL_STATES | {""} for i in left)
        try:
            wait_for(done, 20, f"leftover jobs {left} to end after scancel")
        except pytest.fail.Exception:
            pass


@pytest.fixture
def workdir(tmp_path):
    """A submit directory any user may write to."""
    open_dir(tmp_path)
    return str(tmp_path)
