#!/bin/sh
# The integration tests as two pytest runs at once: those marked `waits`
# (they idle a minute or more on the wall clock) beside all the others,
# which keep the CPUs busy, so that the idle minutes overlap the rest.
# Each run has its own base directory: no cluster shares a directory.
# Usage: scripts/run-integration.sh HERD_BIN [pytest args...]
set -u
bin=$1
shift
base=$(mktemp -d /tmp/herd-it.XXXXXX)
HERD_BIN=$bin /usr/bin/python3 -m pytest -q -m waits --basetemp="$base/w" "$@" \
    tests/integration >"$base/waits.log" 2>&1 &
waits=$!
HERD_BIN=$bin /usr/bin/python3 -m pytest -q --durations=25 -m "not waits" \
    --basetemp="$base/m" "$@" tests/integration
rc=$?
wait $waits
wrc=$?
echo "--- the tests marked waits, run beside the others:"
cat "$base/waits.log"
# pytest's 5 is "no test selected": a filter given in args may leave none in one run
[ $rc -eq 5 ] && [ $wrc -ne 5 ] && rc=0
[ $wrc -eq 5 ] && wrc=0
if [ $rc -eq 0 ] && [ $wrc -eq 0 ]; then
    rm -rf "$base"
    exit 0
fi
echo "integration: failed (others rc $rc, waits rc $wrc); clusters kept under $base"
exit 1
