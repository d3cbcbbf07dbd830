#!/bin/sh
# Builds bench/sched against the -O2 objects and prints one line per
# configuration: a full pass (every pending job tested) for each policy.
set -e
cd "$(dirname "$0")/../.."
make -s build/lib/libherdsched.a build/lib/libherdcommon.a
mkdir -p build/bench
cc -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -O2 -g -Isrc -o build/bench/sched \
    bench/sched/bench.c build/lib/libherdsched.a build/lib/libherdcommon.a -lm
for nodes in 1000 10000; do
    for pending in 10000 50000 100000; do
        for policy in ${POLICIES:-easy herd conservative}; do
            timeout ${BENCH_TIMEOUT:-120} build/bench/sched $nodes $pending $policy ||
                echo "$policy nodes $nodes pending $pending: over ${BENCH_TIMEOUT:-120} s"
        done
    done
done
