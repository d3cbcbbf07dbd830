"""Configless nodes and login hosts (issue 23 item 3) on real daemons: the
controller serves its files with SlurmctldParameters=enable_configless;
node2's agent is restarted with only --conf-server, fetches slurm.conf and
cgroup.conf into its cache, registers, and runs its part of a 2-node srun
job; after the controller's slurm.conf changes and `scontrol reconfigure`,
the agent fetches the new files and starts anew with them. A login host's
`herd conf-fetch` gives the commands a slurm.conf; a controller without
enable_configless refuses, saying why."""

import os
import signal
import subprocess

import pytest

from helpers import base_env, cluster_fixture, pid_alive, read, wait_for


@pytest.fixture(scope="module")
def cc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "configless",
                               ["--nodes", "2", "--set",
                                "SlurmctldParameters=enable_configless"])


def env_of(c):
    env = base_env(c.conf)
    env["HERD_MUNGE_SOCKET"] = os.path.join(c.dir, "munge", "munge.socket")
    return env


def herdd_path():
    import helpers
    return os.path.join(helpers.HERD_BIN, "herdd")


def responding(c, node):
    out = c.run(["sinfo", "-h", "-N", "-n", node, "-o", "%T"]).stdout.strip()
    return out if out in ("idle", "mixed", "allocated") else None


def test_node_runs_from_the_controllers_files(cc, tmp_path):
    c = cc
    pid = c.herdd_pid("node2")
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not pid_alive(pid), 20, "node2's agent to stop")
    cache = os.path.join(c.dir, "cache-node2")
    errf = os.path.join(c.dir, "herdd-node2.stderr")
    with open(errf, "w") as err:   # the daemon keeps what it inherits: no pipes
        cp = subprocess.run([herdd_path(), "--conf-server", f"127.0.0.1:{c.ctld_port()}",
                             "--conf-cache", cache, "-N", "node2"], env=env_of(c),
                            stdin=subprocess.DEVNULL, stdout=err, stderr=err, timeout=30)
    assert cp.returncode == 0, read(errf)
    assert read(os.path.join(cache, "slurm.conf")) == read(c.conf)
    assert os.path.exists(os.path.join(cache, "cgroup.conf")) == \
        os.path.exists(os.path.join(c.dir, "cgroup.conf"))
    wait_for(lambda: responding(c, "node2"), 30, "node2 to register")
    os.chmod(tmp_path, 0o777)
    out = c.run(["srun", "-N2", "-l", "hostname"], user="herdtest1", cwd=str(tmp_path),
                timeout=60).stdout
    assert sorted(l.split(":")[0] for l in out.splitlines()) == ["0", "1"], out

    # the controller's files change: the agent fetches them and starts anew
    with open(c.conf, "a") as f:
        f.write("# edited for test_configless\n")
    c.run(["scontrol", "reconfigure"])
    wait_for(lambda: "edited for test_configless" in read(os.path.join(cache, "slurm.conf")),
             40, "the agent to fetch the edited slurm.conf")
    log = os.path.join(c.dir, "log", "herdd-node2.log")
    wait_for(lambda: "starts anew" in read(log), 20, "the agent to say it starts anew")
    wait_for(lambda: responding(c, "node2"), 30, "node2 to answer after starting anew")
    out = c.run(["srun", "-N2", "-l", "true"], user="herdtest1", cwd=str(tmp_path), timeout=60)
    assert out.returncode == 0
    # herd down knows its own agents by their command line: this one goes here
    pid = c.herdd_pid("node2")
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not pid_alive(pid), 20, "the configless agent to stop")


def test_login_host_fetches_for_the_commands(cc, tmp_path):
    c = cc
    cache = str(tmp_path / "login")
    herd = os.path.join(os.path.dirname(herdd_path()), "herd")
    cp = subprocess.run([herd, "conf-fetch", "--conf-server", f"127.0.0.1:{c.ctld_port()}",
                         "--conf-cache", cache], env=env_of(c), capture_output=True, text=True,
                        timeout=30)
    assert cp.returncode == 0, cp.stderr
    env = env_of(c)
    env["SLURM_CONF"] = os.path.join(cache, "slurm.conf")
    sinfo = subprocess.run([os.path.join(os.path.dirname(herd), "sinfo"), "-h", "-o", "%P"],
                           env=env, capture_output=True, text=True, timeout=30)
    assert sinfo.stdout.strip() == "debug*", sinfo


def test_bad_server_and_not_enabled(tmp_path_factory, users):
    herd = os.path.join(os.path.dirname(herdd_path()), "herd")
    cp = subprocess.run([herd, "conf-fetch", "--conf-server", "host:notaport"],
                        capture_output=True, text=True, timeout=30)
    assert cp.returncode == 1 and "HOST or HOST:PORT" in cp.stderr
    gen = cluster_fixture(tmp_path_factory, "notconfigless", ["--nodes", "1"])
    c = next(gen)
    try:
        cp = subprocess.run([herd, "conf-fetch", "--conf-server", f"127.0.0.1:{c.ctld_port()}",
                             "--conf-cache", os.path.join(c.dir, "x")], env=env_of(c),
                            capture_output=True, text=True, timeout=30)
        assert cp.returncode == 1
        assert "enable_configless" in cp.stderr, cp.stderr
    finally:
        for _ in gen:
            pass
