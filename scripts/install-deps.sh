#!/bin/sh
# Installs the Debian packages Herd builds and tests with, only those missing.
set -e
pkgs="build-essential libevent-dev libjansson-dev libsqlite3-dev sqlite3 munge libmunge-dev
      libcmocka-dev python3-pytest zlib1g-dev procps passwd snakemake openmpi-bin libopenmpi-dev
      mpich libmpich-dev iproute2 libjwt-dev dpkg-dev
      libpam0g-dev pamtester clang"
# Without their recommends: python3-torch's and toil's would bring much that no test uses;
# prometheus (promtool and the server the metrics test scrapes with) needs none of its own;
# lintian and systemd (systemd-analyze) check the package and units (test_install.py).
# chromium (headless, for the dashboard test) none of its desktop recommends.
lean="python3-torch toil prometheus lintian systemd chromium"
missing_of() {
    for p in $1; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || printf ' %s' "$p"
    done
}
missing=$(missing_of "$pkgs")
missing_lean=$(missing_of "$lean")
[ -z "$missing$missing_lean" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing$missing_lean (run as root, or install them)" >&2
    exit 1
fi
echo "install-deps: installing$missing$missing_lean"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
[ -z "$missing" ] || apt-get install -y -qq $missing
[ -z "$missing_lean" ] || apt-get install -y -qq --no-install-recommends $missing_lean
