"""`herd doctor` (issue 23 item 4) on a real cluster: each check passes on a
healthy host and says, in plain words, what is wrong on a broken one: a
MUNGE key that differs from the controller's (a second munged with its own
key), a missing key file, a controller that does not answer, a slurm.conf
that differs from the controller's, a spool directory others may write, a
port held by another program, GPUs declared without NVML, and a clock off
from the controller's (the one case answered by a stand-in controller: the
host clock cannot be moved under a running test)."""

import http.server
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from helpers import NVML_STUB_SRC, cluster_fixture, run, wait_for


@pytest.fixture(scope="module")
def dc(tmp_path_factory, users):
    yield from cluster_fixture(tmp_path_factory, "doctor",
                               ["--nodes", "1", "--gpus-per-node", "2",
                                "--set", "SlurmctldParameters=enable_configless"])


def doctor(c, *args, socket_path=None, conf=None, extra=None):
    env = {"HERD_MUNGE_SOCKET": socket_path or os.path.join(c.dir, "munge", "munge.socket")}
    env.update(extra or {})
    cp = run(["herd", "doctor"] + list(args), conf=conf or c.conf, check=False,
             extra_env=env, timeout=60)
    assert "ERROR: AddressSanitizer" not in cp.stderr and "LeakSanitizer" not in cp.stderr, \
        cp.stderr
    return cp


def lines(cp, verdict):
    return [l for l in cp.stdout.splitlines() if l.split(" ", 1)[0] == verdict]


def test_healthy_node_and_controller(dc):
    cp = doctor(dc, "-N", "node1", extra=stub_env(dc, 2))
    assert cp.returncode == 0, cp.stdout + cp.stderr
    assert not lines(cp, "FAIL"), cp.stdout
    for check in ("munged", "controller", "clock", "config", "spool dir", "port", "cgroups",
                  "nvml"):
        assert any(l.split(None, 1)[1].startswith(check) for l in lines(cp, "ok")), \
            f"no ok line for {check}:\n{cp.stdout}"
    assert "herdd (pid" in cp.stdout and "sees 2 GPUs" in cp.stdout, cp.stdout
    cp = doctor(dc, "--role", "controller")
    assert cp.returncode == 0, cp.stdout
    assert "herdctld (pid" in cp.stdout and "state dir" in cp.stdout, cp.stdout


def test_munge_key_differs(dc, tmp_path):
    d = tmp_path / "munge2"
    d.mkdir()
    key = d / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o400)
    sock = d / "munge.socket"
    subprocess.run(["/usr/sbin/munged", f"--socket={sock}", f"--key-file={key}",
                    f"--pid-file={d / 'munged.pid'}", f"--log-file={d / 'munged.log'}",
                    f"--seed-file={d / 'munged.seed'}", "--force"], check=True, timeout=30)
    try:
        cp = doctor(dc, "-N", "node1", "--munge-key", str(key), socket_path=str(sock))
        assert cp.returncode == 1, cp.stdout
        bad = lines(cp, "FAIL")
        assert any("MUNGE key differs from the controller's" in l for l in bad), cp.stdout
        assert "ok    munged" in cp.stdout, cp.stdout   # munged itself is fine
    finally:
        pid = int((d / "munged.pid").read_text())
        os.kill(pid, 15)


def test_missing_key_file(dc, tmp_path):
    cp = doctor(dc, "--munge-key", str(tmp_path / "nokey"))
    assert cp.returncode == 1
    assert any("nokey is missing: copy it from the controller" in l
               for l in lines(cp, "FAIL")), cp.stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_controller_unreachable(dc):
    port = free_port()
    cp = doctor(dc, "--conf-server", f"127.0.0.1:{port}")
    assert cp.returncode == 1
    assert any(f"cannot reach 127.0.0.1:{port}" in l for l in lines(cp, "FAIL")), cp.stdout


def test_config_differs(dc, tmp_path):
    conf = tmp_path / "slurm.conf"
    shutil.copy(dc.conf, conf)
    with open(conf, "a") as f:
        f.write("# an edit the controller has not seen\n")
    cp = doctor(dc, conf=str(conf))
    assert cp.returncode == 1
    assert any(l.split(None, 1)[1].startswith("config") and "differs from the controller's" in l
               for l in lines(cp, "FAIL")), cp.stdout


def test_configless_host_fetches(dc, tmp_path):
    """No slurm.conf on the host: the controller's is fetched for the run."""
    cp = doctor(dc, "--conf-server", f"127.0.0.1:{dc.ctld_port()}", "-N", "node1",
                "--role", "node", conf=str(tmp_path / "absent.conf"),
                extra=stub_env(dc, 2))
    assert "the controller serves it (configless)" in cp.stdout, cp.stdout
    assert "herdd (pid" in cp.stdout and cp.returncode == 0, cp.stdout


def test_spool_open_to_others(dc):
    spool = os.path.join(dc.dir, "spool", "node1")
    mode = os.stat(spool).st_mode & 0o7777
    os.chmod(spool, 0o777)
    try:
        cp = doctor(dc, "-N", "node1")
    finally:
        os.chmod(spool, mode)
    assert cp.returncode == 1
    assert any("is writable by others" in l and spool in l for l in lines(cp, "FAIL")), cp.stdout


def test_port_held_by_another_program(dc, tmp_path):
    """A node whose SlurmdPort another program holds: that program is named."""
    port = free_port()
    holder = subprocess.Popen(["python3", "-c", "import socket,time\n"
                               f"s=socket.socket(); s.bind(('127.0.0.1',{port})); s.listen()\n"
                               "time.sleep(60)"])
    try:
        wait_for(lambda: port_listening(port), 10, "the holder to listen")
        conf = tmp_path / "slurm.conf"
        text = open(dc.conf).read()
        conf.write_text(_node_port(text, port))
        cp = doctor(dc, "-N", "node1", conf=str(conf))
    finally:
        holder.kill()
        holder.wait()
    assert any(f"{port} (SlurmdPort) is taken by python3" in l for l in lines(cp, "FAIL")), \
        cp.stdout


def _node_port(text, port):
    out = []
    for l in text.splitlines():
        if l.startswith("NodeName=node1 "):
            l = " ".join(w for w in l.split() if not w.startswith("Port=")) + f" Port={port}"
        out.append(l)
    return "\n".join(out) + "\n"


def port_listening(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def stub_env(c, gpus):
    return {"HERD_NVML_LIBRARY": stub_lib(c), "HERD_NVML_STUB_COUNT": str(gpus)}


def stub_lib(c):
    path = os.path.join(c.dir, "libnvidia-ml-stub.so")
    if not os.path.exists(path):
        subprocess.run(["cc", "-shared", "-fPIC", "-o", path, NVML_STUB_SRC], check=True)
    return path


def test_gpus_without_nvml(dc, tmp_path):
    cp = doctor(dc, "-N", "node1", extra={"HERD_NVML_LIBRARY": str(tmp_path / "none.so")})
    assert cp.returncode == 1
    assert any(l.split(None, 1)[1].startswith("nvml") and "install the NVIDIA driver" in l
               for l in lines(cp, "FAIL")), cp.stdout
    cp = doctor(dc, "-N", "node1", extra=stub_env(dc, 1))
    assert any("sees 1 GPU, slurm.conf gives this node 2" in l for l in lines(cp, "FAIL")), \
        cp.stdout


class SkewedPing(http.server.BaseHTTPRequestHandler):
    skew = 300

    def do_GET(self):
        body = json.dumps({"cluster": "skewed", "next_job_id": 1, "boot_time": 0,
                           "now": int(time.time()) + self.skew}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_clock_skew(dc):
    srv = http.server.HTTPServer(("127.0.0.1", 0), SkewedPing)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        cp = doctor(dc, "--conf-server", f"127.0.0.1:{srv.server_address[1]}")
    finally:
        srv.shutdown()
    assert cp.returncode == 1
    assert any(l.split(None, 1)[1].startswith("clock") and "behind the controller's" in l
               for l in lines(cp, "FAIL")), cp.stdout
