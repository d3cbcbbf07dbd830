"""make install and make deb (packaging/): the installed tree, its systemd
units (systemd-analyze verify), the package's fields and contents, lintian
on it, and a one-node cluster run from the installed commands. Uses the
release build (make builds it if it is missing); `make deb` runs once."""

import os
import re
import shutil
import subprocess

import pytest

from helpers import REPO, Cluster, install_tree, make, open_dir

VERSION = re.search(r'HERD_VERSION "([^"]+)"',
                    open(os.path.join(REPO, "src/client/version.h")).read()).group(1)
LINKS = re.findall(r"^HERD_CMD\(([a-z]+),", open(os.path.join(REPO, "src/cmd/commands.def")).read(),
                   re.M)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return install_tree(tmp_path_factory)


@pytest.fixture(scope="module")
def deb():
    make("deb")
    path = os.path.join(REPO, "build", f"herd_{VERSION}_amd64.deb")
    assert os.path.isfile(path)
    return path


def test_tree(root):
    assert os.access(root / "usr/bin/herd", os.X_OK)
    assert os.access(root / "usr/bin/herd-sim", os.X_OK)
    for d in ("herdctld", "herdd"):
        assert os.access(root / "usr/sbin" / d, os.X_OK)
    assert LINKS and "sbatch" in LINKS
    for link in LINKS:
        assert os.readlink(root / "usr/bin" / link) == "herd", link
        assert (root / "usr/share/man/man1" / f"{link}.1").is_file(), link
    for f in ("lib/systemd/system/herdctld.service", "lib/systemd/system/herdd.service",
              "etc/logrotate.d/herd", "usr/lib/tmpfiles.d/herd.conf",
              "usr/share/herd/examples/slurm.conf", "usr/share/herd/examples/cgroup.conf",
              "usr/share/herd/examples/gres.conf", "usr/share/doc/herd/install.md",
              "usr/share/doc/herd/README.md", "usr/share/man/man8/herdctld.8",
              "usr/share/man/man1/herd.1"):
        assert (root / f).is_file(), f
    ctld = (root / "lib/systemd/system/herdctld.service").read_text()
    assert "User=herd" in ctld and "Type=notify" in ctld
    agent = (root / "lib/systemd/system/herdd.service").read_text()
    for want in ("Delegate=yes", "KillMode=process", "LimitMEMLOCK=infinity", "Type=notify"):
        assert want in agent, want
    assert "User=" not in agent


def test_units_verify(root, tmp_path):
    if not shutil.which("systemd-analyze"):
        pytest.skip("systemd-analyze missing (apt-get install systemd)")
    # ExecStart names /usr/sbin: point it at the DESTDIR tree, which is
    # what verify checks to be there and executable
    units = []
    for u in ("herdctld.service", "herdd.service"):
        text = (root / "lib/systemd/system" / u).read_text()
        (tmp_path / u).write_text(text.replace("/usr/sbin/", f"{root}/usr/sbin/"))
        units.append(str(tmp_path / u))
    cp = subprocess.run(["systemd-analyze", "verify"] + units, capture_output=True, text=True)
    assert cp.returncode == 0 and not cp.stdout.strip() and not cp.stderr.strip(), cp.stderr


def test_deb_fields(deb):
    info = subprocess.run(["dpkg-deb", "-I", deb], capture_output=True, text=True,
                          check=True).stdout
    assert f"Version: {VERSION}" in info
    dep = re.search(r"^ Depends: (.*)$", info, re.M).group(1)
    for lib in ("libevent-2.1-7", "libjansson4", "libmunge2", "libsqlite3-0", "libjwt0",
                "munge", "adduser"):
        assert re.search(r"(^|, )" + re.escape(lib) + r"( |,|$)", dep), f"{lib} in {dep}"
    assert "postinst" in info and "postrm" in info
    contents = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True,
                              check=True).stdout
    for f in ("./usr/bin/sbatch -> herd", "./usr/sbin/herdctld", "./lib/systemd/system/herdd.service",
              "./usr/share/herd/examples/slurm.conf", "./usr/share/doc/herd/copyright"):
        assert f in contents, f
    # services are not enabled by the package: no wants links, no enable call
    assert "multi-user.target.wants" not in contents
    with subprocess.Popen(["dpkg-deb", "--ctrl-tarfile", deb], stdout=subprocess.PIPE) as p:
        ctrl = subprocess.run(["tar", "-xO", "./postinst"], stdin=p.stdout, capture_output=True,
                              text=True).stdout
    assert "adduser --system" in ctrl
    for call in ("systemctl enable", "systemctl start", "deb-systemd-helper enable",
                 "deb-systemd-invoke"):
        assert call not in ctrl, call


def test_lintian(deb):
    if not shutil.which("lintian"):
        pytest.skip("lintian missing (apt-get install lintian)")
    cp = subprocess.run(["lintian", "--no-cfg", deb], capture_output=True, text=True, timeout=300)
    tags = [l for l in cp.stdout.splitlines() if re.match(r"[EW]: ", l)]
    errors = [l for l in tags if l.startswith("E: ")]
    assert not errors, "\n".join(errors)
    doc = open(os.path.join(REPO, "docs/install.md")).read()
    undocumented = [l for l in tags if l.split()[2] not in doc]
    assert not undocumented, "lintian warnings not explained in docs/install.md:\n" + \
        "\n".join(undocumented)


def test_installed_cluster(root, tmp_path, users):
    """herd up from the installed tree (it finds herdctld and herdd in
    ../sbin) and a job through the installed sbatch."""
    import helpers
    saved = helpers.HERD_BIN
    helpers.HERD_BIN = str(root / "usr/bin")   # the commands of base_env's PATH
    open_dir(tmp_path, 0o755)
    c = Cluster(tmp_path / "c", [])
    try:
        c.started = True
        cp = helpers.run([str(root / "usr/bin/herd"), "up", "-D", c.dir, "--nodes", "1",
                          "--cpus-per-node", "2", "--mem-per-node", "2000"],
                         env=helpers.base_env(), check=False, timeout=120)
        assert cp.returncode == 0, helpers.fmt_result(cp) + c.log_tail()
        wd = tmp_path / "wd"
        wd.mkdir()
        open_dir(wd)
        job = c.sbatch(["-t", "1"], cwd=str(wd), script="#!/bin/sh\necho installed-ok\n")
        c.wait_state(job, "COMPLETED", timeout=60)
        assert "installed-ok" in (wd / f"slurm-{job}.out").read_text()
    finally:
        problems = c.stop_and_check()
        helpers.HERD_BIN = saved
        assert not problems, "\n".join(problems)
