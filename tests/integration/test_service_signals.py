"""What a service manager relies on (packaging/systemd): SIGUSR2 reopens
each daemon's log after logrotate moved it, SIGHUP reconfigures (the
controller as `scontrol reconfigure`), and a controller run in the
foreground as an unprivileged SlurmUser says READY=1 / RELOADING=1 /
STOPPING=1 on $NOTIFY_SOCKET and exits 0 when stopped."""

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess

import pytest

from helpers import HERD_BIN, cluster_fixture, conf_value, open_dir, wait_file, wait_for

UP = ["--nodes", "1", "--cpus-per-node", "2", "--mem-per-node", "2000", "--set", "KillWait=2"]


@pytest.fixture(scope="module")
def scluster(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "signals", UP)


def rotate_and_reopen(path, pid):
    os.rename(path, path + ".1")
    os.kill(pid, signal.SIGUSR2)
    wait_file(path, timeout=10, contains="log reopened (SIGUSR2)")
    with open(path + ".1") as f:
        assert "log reopened" not in f.read()


def test_sigusr2_reopens_logs(scluster):
    c = scluster
    log = os.path.join(c.dir, "log")
    rotate_and_reopen(os.path.join(log, "herdctld.log"), c.ctld_pid())
    rotate_and_reopen(os.path.join(log, "herdd-node1.log"), c.herdd_pid("node1"))
    assert oct(os.stat(os.path.join(log, "herdctld.log")).st_mode & 0o777) == "0o600"
    # the daemons still serve after it
    assert "node1" in c.run(["sinfo", "-h", "-o", "%N"]).stdout


def test_sighup_reconfigures(scluster):
    c = scluster
    text = c.conf_text()
    with open(c.conf, "w") as f:
        f.write(re.sub(r"^KillWait=\d+", "KillWait=7", text, flags=re.M))
    try:
        os.kill(c.ctld_pid(), signal.SIGHUP)
        wait_file(os.path.join(c.dir, "log", "herdctld.log"), timeout=10,
                  contains="reconfigured from")
        wait_for(lambda: "= 7 sec" in c.run(["scontrol", "show", "config"]).stdout
                 or None, 10, "KillWait 7 after SIGHUP")
        os.kill(c.herdd_pid("node1"), signal.SIGHUP)
        wait_file(os.path.join(c.dir, "log", "herdd-node1.log"), timeout=10,
                  contains="reconfigure (SIGHUP)")
    finally:
        with open(c.conf, "w") as f:
            f.write(text)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ctld_as_slurm_user_notifies(scluster, tmp_path):
    """A second controller on a copy of the configuration, run as the
    unprivileged user herdtest1 named by SlurmUser, as herdctld.service does."""
    c = scluster
    user = pwd.getpwnam("herdtest1")
    d = tmp_path / "ctld"
    d.mkdir()
    open_dir(tmp_path, 0o755)      # and o+x on its parents, nothing taken away
    os.chown(d, user.pw_uid, user.pw_gid)
    conf = d / "slurm.conf"
    text = c.conf_text()
    for key, val in (("StateSaveLocation", d / "state"), ("SlurmctldPort", free_port()),
                     ("SlurmctldLogFile", d / "herdctld.log"),
                     ("SlurmctldPidFile", d / "herdctld.pid"), ("SlurmUser", "herdtest1")):
        if conf_value(text, key) is not None:
            text = re.sub(r"^\s*" + key + r"\s*=.*$", f"{key}={val}", text, flags=re.M | re.I)
        else:
            text += f"{key}={val}\n"
    # the JWT key, as any file the controller reads, must be SlurmUser's
    m = re.search(r"jwt_key=([^,\s]+)", text)
    if m:
        key = d / "jwt_hs256.key"
        shutil.copy(m.group(1), key)
        os.chown(key, user.pw_uid, user.pw_gid)
        text = text.replace(m.group(1), str(key))
    conf.write_text(text)
    gres = os.path.join(c.dir, "gres.conf")
    if os.path.exists(gres):
        shutil.copy(gres, d / "gres.conf")
    sock_path = str(d / "notify")
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(sock_path)
    os.chmod(sock_path, 0o666)
    ns.settimeout(30)

    def drop():
        os.setgid(user.pw_gid)
        os.setgroups([])
        os.setuid(user.pw_uid)

    env = dict(os.environ, NOTIFY_SOCKET=sock_path)
    p = subprocess.Popen([os.path.join(HERD_BIN, "herdctld"), "-D", "-f", str(conf)],
                         env=env, preexec_fn=drop, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        try:
            first = ns.recv(256)
        except TimeoutError:
            p.kill()
            pytest.fail("no READY=1 from herdctld -D:\n" + p.communicate()[0].decode(errors="replace"))
        assert first == b"READY=1"
        st = os.stat(d / "state" / "herd.db")
        assert st.st_uid == user.pw_uid
        p.send_signal(signal.SIGHUP)
        assert ns.recv(256) == b"RELOADING=1"
        assert ns.recv(256) == b"READY=1"
        p.send_signal(signal.SIGTERM)
        assert ns.recv(256) == b"STOPPING=1"
        assert p.wait(timeout=30) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        ns.close()
    out = p.stdout.read().decode(errors="replace")
    assert "ERROR: AddressSanitizer" not in out and "runtime error" not in out, out
    log = (d / "herdctld.log").read_text()
    assert "herdctld started" in log and "reconfigured from" in log, log
