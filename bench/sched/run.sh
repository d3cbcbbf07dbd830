#!/bin/sh
# Builds bench/sched against the -O2 objects and prints one line per
# configuration: a full pass (every pending job tested) for each policy,
# without per-user limits and with 1000 users held by them (USERS=...).
set -e
cd "$(dirname "$0")/../.."
make -s build/lib/libherdsched.a build/lib/libherdcommon.a
mkdir -p build/bench
cc -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -O2 -g -Isrc -o build/bench/sched \
    bench/sched/bench.c build/lib/libherdsched.a build/lib/libherdcommon.a -lm
for nodes in 1000 10000; do
    for pending in 2000 10000 50000 100000; do
        for policy in ${POLICIES:-easy herd conservative}; do
            for users in 0 ${USERS:-1000} loose; do
                if [ $users = loose ]; then
                    LOOSE=1 timeout ${BENCH_TIMEOUT:-120} build/bench/sched $nodes $pending \
                        $policy 0 ${USERS:-1000} | sed 's/$/  (caps never reached)/'
                else
                    timeout ${BENCH_TIMEOUT:-120} build/bench/sched $nodes $pending $policy 0 $users
                fi || echo "$policy nodes $nodes pending $pending users $users: over ${BENCH_TIMEOUT:-120} s"
            done
        done
    done
done
