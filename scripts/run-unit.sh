#!/bin/sh
# Runs every unit test program in DIR; fails if any fails.
dir=${1:-build/asan/tests}
pass=0; fail=0
for t in "$dir"/*; do
    [ -x "$t" ] || continue
    if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $t"; fi
done
echo "unit programs: $pass passed, $fail failed"
[ "$fail" = 0 ]
