#!/bin/sh
# Installs the Debian packages Herd builds and tests with, only those missing.
set -e
pkgs="build-essential libevent-dev libjansson-dev libsqlite3-dev sqlite3 munge libmunge-dev
      libcmocka-dev python3-pytest zlib1g-dev procps passwd snakemake openmpi-bin libopenmpi-dev mpich libmpich-dev"
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing (run as root, or install them)" >&2
    exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || true
apt-get install -y -qq $missing
