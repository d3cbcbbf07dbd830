"""`herd setup controller|node|login` (issue 23 item 4), run with --root in a
scratch directory: the controller makes the MUNGE key (1024 bytes, munged's
user, 0400) or puts an existing one's owner and mode right without changing
it, writes a configless slurm.conf with this machine's node line from
`herdd -C` on which herdctld starts and sinfo shows the node, and never
replaces an administrator's file without --force; a node without the key
exits 1 printing the scp line and with it writes /etc/default/herdd; a login
host fetches the configuration from a running configless controller."""

import os
import pwd
import signal
import socket
import stat
import subprocess

import pytest

import helpers
from helpers import base_env, cluster_fixture, read, wait_for


def herd_setup(*args, env=None):
    return subprocess.run([os.path.join(helpers.HERD_BIN, "herd"), "setup", *args],
                          capture_output=True, text=True, timeout=60,
                          env=env or base_env())


def munge_ids():
    try:
        pw = pwd.getpwnam("munge")
        return pw.pw_uid, pw.pw_gid
    except KeyError:
        return 0, 0


def short_host():
    return socket.gethostname().split(".")[0]


def herdd_line(name):
    out = subprocess.run([os.path.join(helpers.HERD_BIN, "herdd"), "-C", "-N", name],
                         capture_output=True, text=True, timeout=30).stdout
    return next(l for l in out.splitlines() if l.startswith("NodeName="))


def put_key(root, data=b"k" * 64, mode=0o400):
    d = root / "etc" / "munge"
    d.mkdir(parents=True, exist_ok=True)
    key = d / "munge.key"
    key.write_bytes(data)
    os.chmod(key, mode)
    return key


def test_controller_key_conf_and_next_steps(tmp_path):
    root = tmp_path / "root"
    cp = herd_setup("controller", "--root", str(root))
    assert cp.returncode == 0, cp.stderr
    key = root / "etc" / "munge" / "munge.key"
    st = os.stat(key)
    assert stat.S_IMODE(st.st_mode) == 0o400 and st.st_size == 1024
    assert (st.st_uid, st.st_gid) == munge_ids()
    conf = read(str(root / "etc" / "herd" / "slurm.conf"))
    host = short_host()
    assert f"SlurmctldHost={host}\n" in conf
    assert "SlurmctldParameters=enable_configless\n" in conf
    assert herdd_line(host) + "\n" in conf
    assert "PartitionName=main Nodes=ALL Default=YES" in conf
    assert stat.S_IMODE(os.stat(root / "etc" / "herd" / "slurm.conf").st_mode) == 0o644
    assert stat.S_IMODE(os.stat(root / "var" / "spool" / "herd" / "ctld").st_mode) == 0o700
    assert os.path.isdir(root / "var" / "log" / "herd")
    out = cp.stdout
    assert "systemctl enable --now munge herdctld" in out
    assert f"scp {host}:/etc/munge/munge.key /etc/munge/munge.key" in out
    assert f"herd setup node --conf-server {host}:6817" in out
    assert f"herd setup login --conf-server {host}:6817" in out
    assert "systemctl restart herdctld" in out

    # again: the key is the same and the edited slurm.conf stays
    keybytes = key.read_bytes()
    with open(root / "etc" / "herd" / "slurm.conf", "a") as f:
        f.write("# the admin's edit\n")
    cp = herd_setup("controller", "--root", str(root))
    assert cp.returncode == 0, cp.stderr
    assert key.read_bytes() == keybytes
    assert "the admin's edit" in read(str(root / "etc" / "herd" / "slurm.conf"))
    assert "stays as it is" in cp.stdout and "--force" in cp.stdout

    # --force writes the nodes given, and herd's parser counts them
    cp = herd_setup("controller", "--root", str(root), "--force", "--cluster", "lab",
                    "--port", "7000", "--node",
                    "NodeName=gpu[01-02] CPUs=8 RealMemory=1000 Gres=gpu:a100:2")
    assert cp.returncode == 0, cp.stderr
    conf = read(str(root / "etc" / "herd" / "slurm.conf"))
    assert "the admin's edit" not in conf and "ClusterName=lab\n" in conf
    assert "2 nodes (16 CPUs, 4 GPUs)" in cp.stdout, cp.stdout
    assert f"herd setup node --conf-server {host}:7000" in cp.stdout
    assert key.read_bytes() == keybytes


def test_existing_key_put_right_not_replaced(tmp_path):
    root = tmp_path / "root"
    key = put_key(root, b"x" * 100, 0o644)
    cp = herd_setup("controller", "--root", str(root), "--node", "NodeName=n1 CPUs=1")
    assert cp.returncode == 0, cp.stderr
    st = os.stat(key)
    assert key.read_bytes() == b"x" * 100
    assert stat.S_IMODE(st.st_mode) == 0o400 and (st.st_uid, st.st_gid) == munge_ids()
    assert "had mode 0644" in cp.stdout


def test_bad_input_writes_nothing(tmp_path):
    root = tmp_path / "root"
    cp = herd_setup("controller", "--root", str(root), "--node", "n1 CPUs=4")
    assert cp.returncode == 1 and "NodeName=" in cp.stderr
    assert not os.path.exists(root)
    for args, said in ((["node", "--root", str(root)], "--conf-server"),
                       (["node", "--conf-server", "h", "--cluster", "x"], "--cluster"),
                       (["login", "--conf-server", "h:port"], "HOST:PORT"),
                       (["controller", "--port", "0"], "--port"),
                       (["controller", "--user", "nosuchuser", "--root", str(root)],
                        "nosuchuser"),
                       (["nosuchrole"], "nosuchrole"),
                       ([], "controller, node or login")):
        cp = herd_setup(*args)
        assert cp.returncode == 1 and said in cp.stderr, (args, cp.stderr)
    assert not os.path.exists(root)
    cp = herd_setup("--help")
    assert cp.returncode == 0 and "herd setup node --conf-server" in cp.stdout


def test_written_conf_starts_a_controller(tmp_path):
    """The file as written, with its /var and /run paths moved under the
    scratch directory and a free port: herdctld starts on it and sinfo shows
    this machine as the one node of the default partition."""
    root = tmp_path / "root"
    cp = herd_setup("controller", "--root", str(root), "--user", "root")
    assert cp.returncode == 0, cp.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    conf = read(str(root / "etc" / "herd" / "slurm.conf"))
    conf = conf.replace("=/var/", f"={root}/var/").replace("=/run/", f"={root}/run/")
    conf = conf.replace("SlurmctldPort=6817", f"SlurmctldPort={port}")
    os.makedirs(root / "run" / "herd")
    test_conf = tmp_path / "slurm.conf"
    test_conf.write_text(conf)
    env = base_env(str(test_conf))
    errf = tmp_path / "herdctld.err"
    with open(errf, "w") as err:
        ctld = subprocess.Popen([os.path.join(helpers.HERD_BIN, "herdctld"), "-D", "-f",
                                 str(test_conf)], env=env, stdin=subprocess.DEVNULL,
                                stdout=err, stderr=err)
    try:
        def shown():
            cp = subprocess.run([os.path.join(helpers.HERD_BIN, "sinfo"), "-h", "-N", "-o",
                                 "%N %P"], env=env, capture_output=True, text=True, timeout=30)
            return cp.stdout.strip() if cp.returncode == 0 else None
        assert wait_for(shown, 30, "herdctld to answer on the written slurm.conf") == \
            f"{short_host()} main*", read(str(errf))
    finally:
        ctld.send_signal(signal.SIGTERM)
        try:
            ctld.wait(timeout=20)
        except subprocess.TimeoutExpired:
            ctld.kill()
            ctld.wait(timeout=10)
    assert "runtime error" not in read(str(errf)) and "Sanitizer" not in read(str(errf))


def test_node_needs_the_key_then_writes_defaults(tmp_path):
    root = tmp_path / "root"
    cp = herd_setup("node", "--root", str(root), "--conf-server", "head:7000")
    assert cp.returncode == 1
    assert f"scp head:/etc/munge/munge.key {root}/etc/munge/munge.key" in cp.stderr
    assert "systemctl restart munge" in cp.stderr
    defaults = root / "etc" / "default" / "herdd"
    assert not defaults.exists()

    put_key(root)
    cp = herd_setup("node", "--root", str(root), "--conf-server", "head:7000", "-N", "gpu07")
    assert cp.returncode == 0, cp.stderr
    assert 'HERDD_OPTIONS="--conf-server head:7000 -N gpu07"\n' in read(str(defaults))
    assert herdd_line("gpu07") in cp.stdout
    assert "systemctl restart herdctld" in cp.stdout
    assert "systemctl enable --now munge herdd" in cp.stdout

    # an edited file stays without --force; --force writes it anew
    defaults.write_text('HERDD_OPTIONS="-v"\n')
    cp = herd_setup("node", "--root", str(root), "--conf-server", "head")
    assert cp.returncode == 0 and read(str(defaults)) == 'HERDD_OPTIONS="-v"\n'
    assert "stays as it is" in cp.stdout
    cp = herd_setup("node", "--root", str(root), "--conf-server", "head", "--force")
    assert cp.returncode == 0
    assert 'HERDD_OPTIONS="--conf-server head:6817"\n' in read(str(defaults))


@pytest.fixture(scope="module")
def cc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "setup-login",
                               ["--nodes", "1", "--set",
                                "SlurmctldParameters=enable_configless"])


def test_login_fetches_the_configuration(cc, tmp_path):
    root = tmp_path / "root"
    env = base_env()
    env["HERD_MUNGE_SOCKET"] = os.path.join(cc.dir, "munge", "munge.socket")
    server = f"127.0.0.1:{cc.ctld_port()}"
    cp = herd_setup("login", "--root", str(root), "--conf-server", server, env=env)
    assert cp.returncode == 1 and "scp 127.0.0.1:/etc/munge/munge.key" in cp.stderr
    assert not (root / "run").exists()

    put_key(root)
    cp = herd_setup("login", "--root", str(root), "--conf-server", server, env=env)
    assert cp.returncode == 0, cp.stderr
    assert read(str(root / "run" / "herd" / "conf" / "slurm.conf")) == read(cc.conf)
    assert f"@reboot root {os.path.join(helpers.HERD_BIN, 'herd')} conf-fetch " \
           f"--conf-server {server}" in cp.stdout, cp.stdout

    # a controller that is not there: the reason, exit 1
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    cp = herd_setup("login", "--root", str(root), "--conf-server", f"127.0.0.1:{free}",
                    env=env)
    assert cp.returncode == 1 and f"127.0.0.1:{free}" in cp.stderr
