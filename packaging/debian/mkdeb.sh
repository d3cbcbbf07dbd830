#!/bin/sh
# mkdeb.sh ROOT VERSION OUTDIR: turns an install tree (make install
# PREFIX=/usr DESTDIR=ROOT) into OUTDIR/herd_VERSION_ARCH.deb with dpkg-deb
# alone: no debhelper, no network. What debhelper would do is done here:
# binaries stripped, manual pages and changelog compressed, the copyright
# file, md5sums, and Depends from dpkg-shlibdeps (declared by hand where
# it is missing).
set -e
root=$(cd "$1" && pwd) version=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
doc=$root/usr/share/doc/herd

for f in "$root"/usr/bin/herd "$root"/usr/bin/herd-sim "$root"/usr/sbin/herdctld "$root"/usr/sbin/herdd \
         "$root"/lib/*/security/*.so; do
    [ -f "$f" ] && strip --strip-unneeded --remove-section=.comment --remove-section=.note "$f"
done
find "$root/usr/share/man" -type f -name '*.[18]' -exec gzip -9n {} +
install -m 0644 "$here/copyright" "$doc/copyright"
gzip -9n < "$here/changelog" > "$doc/changelog.gz"
chmod 0644 "$doc/changelog.gz"
# docs are read, not run; README.md stays as the entry point
find "$root" -type d -exec chmod 0755 {} +

# Depends: the shared libraries the programs load (herdd and the commands
# link libevent, jansson and libmunge statically), plus munged itself and
# adduser for postinst.
shlibs=
if command -v dpkg-shlibdeps >/dev/null 2>&1; then
    tmp=$(mktemp -d)
    mkdir "$tmp/debian"
    printf 'Source: herd\n\nPackage: herd\nArchitecture: any\n' > "$tmp/debian/control"
    bins=$(cd "$root" && ls usr/bin/herd usr/bin/herd-sim usr/sbin/herdctld usr/sbin/herdd lib/*/security/*.so 2>/dev/null || true)
    shlibs=$(cd "$tmp" && for b in $bins; do echo "$root/$b"; done |
             xargs dpkg-shlibdeps -O 2>"$tmp/err" | sed -n 's/^shlibs:Depends=//p')
    rm -rf "$tmp"
fi
[ -n "$shlibs" ] || shlibs="libc6 (>= 2.36), libevent-2.1-7 (>= 2.1.8-stable), libjansson4 (>= 2.14), libjwt0 (>= 1.10), libmunge2 (>= 0.5.8), libsqlite3-0 (>= 3.35), zlib1g (>= 1:1.2.0)"
depends="$shlibs, munge, adduser"

mkdir -p "$root/DEBIAN"
size=$(du -k -s --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" \
    -e "s/@SIZE@/$size/" "$here/control.in" > "$root/DEBIAN/control"
install -m 0755 "$here/postinst" "$here/postrm" "$root/DEBIAN/"
install -m 0644 "$here/conffiles" "$root/DEBIAN/"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
     xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"
mkdir -p "$out"
deb=$out/herd_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
