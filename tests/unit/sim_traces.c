/* `herd sim` against the literature: EASY on the Parallel Workloads
 * Archive traces in shared/data/traces must reproduce the published
 * figures, and the herd policy must beat EASY's bounded slowdown there.
 * The traces' directory is $HERD_TRACES (default /work/shared/data/traces);
 * without it the tests are skipped. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sim/sim.h"

static char *trace_path(const char *name)
{
    const char *dir = getenv("HERD_TRACES");
    static char buf[4096];

    snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "/work/shared/data/traces", name);
    if (access(buf, R_OK) != 0)
        return NULL;
    return buf;
}

static void run(const char *name, enum sched_policy pol, int64_t procs, double warmup,
                bool truncate, struct sim_result *r)
{
    struct sim_opts o = { .policy = pol, .procs = procs, .warmup = warmup, .truncate = truncate };
    char *err = NULL;

    o.path = trace_path(name);
    if (!o.path)
        skip();
    if (sim_run(&o, r, &err) != 0) {
        print_error("%s\n", err);
        free(err);
        fail();
    }
    print_message("%-34s %-5s P=%-4lld bsld %7.2f  wait %8.1f min  max wait %7.1f h\n", name,
                  sched_policy_name(pol), (long long)r->procs, r->avg_bsld, r->avg_wait_s / 60,
                  (double)r->max_wait_s / 3600);
}

static void near(double got, double want, double tol)
{
    if (got < want * (1 - tol) || got > want * (1 + tol)) {
        print_error("%.3f is not within %.0f %% of %.3f\n", got, tol * 100, want);
        fail();
    }
}

/* Gaussier et al. (pyss): runs cut at the estimate, all jobs, P = 338. */
static void test_ctc_pyss(void **state)
{
    struct sim_result e, h;
    (void)state;
    run("CTC-SP2-1996-3.1-cln.swf.gz", SCHED_POLICY_EASY, 338, 0, true, &e);
    near(e.avg_bsld, 49.57, 0.02);
    assert_int_equal(e.procs, 338);
    run("CTC-SP2-1996-3.1-cln.swf.gz", SCHED_POLICY_HERD, 338, 0, true, &h);
    assert_true(h.avg_bsld < e.avg_bsld);
    assert_true(h.max_wait_s < 1.5 * (double)e.max_wait_s);   /* nobody starves */
}

/* Tsafrir, Etsion, Feitelson: overruns not killed, first 1 % left out. */
static void tsafrir(const char *name, int64_t procs, double wait_min, double bsld, double tol)
{
    struct sim_result e, h;

    run(name, SCHED_POLICY_EASY, procs, 0.01, false, &e);
    near(e.avg_wait_s / 60, wait_min, tol);
    near(e.avg_bsld, bsld, tol);
    run(name, SCHED_POLICY_HERD, procs, 0.01, false, &h);
    assert_true(h.avg_bsld < e.avg_bsld);
    assert_true(h.avg_wait_s < e.avg_wait_s);
    assert_true(h.max_wait_s < 1.5 * (double)e.max_wait_s);
}

static void test_ctc_tsafrir(void **state)
{
    (void)state;
    tsafrir("CTC-SP2-1996-3.1-cln.swf.gz", 512, 21.3, 4.6, 0.03);
}

static void test_kth_tsafrir(void **state)
{
    (void)state;
    tsafrir("KTH-SP2-1996-2.1-cln.swf.gz", 0, 114.2, 89.9, 0.03);
}

/* The archive's SDSC-SP2 log is version 4.2; the paper's figures (363 min,
 * 99) come from an earlier cleaning, and EASY lands about 5 % above them. */
static void test_sdsc_tsafrir(void **state)
{
    (void)state;
    tsafrir("SDSC-SP2-1998-4.2-cln.swf.gz", 0, 363, 99, 0.07);
}

/* An independent reading of the format (bench/sim/easy_ref.py, sharing no
 * code): whole trace, runs not cut, P = MaxProcs, sizes from field 5. */
static void test_independent(void **state)
{
    struct sim_result r;
    (void)state;
    run("KTH-SP2-1996-2.1-cln.swf.gz", SCHED_POLICY_EASY, 0, 0, false, &r);
    near(r.avg_bsld, 91.62, 0.001);
    near(r.avg_wait_s, 6900.6, 0.001);
    run("SDSC-SP2-1998-4.2-cln.swf.gz", SCHED_POLICY_EASY, 0, 0, false, &r);
    near(r.avg_bsld, 103.39, 0.001);
    near(r.avg_wait_s, 22844.4, 0.001);
}

/* A trace file of text at path, a mkstemp template the first time. */
static void trace_put(char *path, const char *text)
{
    int fd = strstr(path, "XXXXXX") ? mkstemp(path) : open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Field 5 (allocated) is the size, field 8 (requested) only where 5 is
 * missing; a run of -1 never ran; no requested time: planned on the run. */
static void test_swf_fields(void **state)
{
    char path[] = "/tmp/herd-sim-XXXXXX";
    struct sim_opts o = { .path = path, .policy = SCHED_POLICY_EASY };
    struct sim_result r;
    char *err = NULL;
    (void)state;
    /* 4 processors: job 1 asked for 1 but was given 4, so job 2 waits for
     * it; job 3 never ran; job 4 has no size in field 5 and asks for 1. */
    trace_put(path, "; MaxProcs: 4\n"
                    "1 0 0 100 4 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "2 0 0 10 1 -1 -1 1 -1 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "3 0 0 -1 -1 -1 -1 1 60 -1 5 1 -1 -1 -1 -1 -1 -1\n"
                    "4 200 0 10 -1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n");
    assert_int_equal(sim_run(&o, &r, &err), 0);
    assert_int_equal(r.jobs, 3);
    assert_int_equal(r.max_wait_s, 100);
    unlink(path);
}

static void test_bad_lines(void **state)
{
    char path[] = "/tmp/herd-sim-XXXXXX";
    struct sim_opts o = { .path = path, .policy = SCHED_POLICY_EASY };
    struct sim_result r;
    char *err = NULL, *want;
    (void)state;

    trace_put(path, "; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n1 2 3\n");
    assert_int_equal(sim_run(&o, &r, &err), -1);
    want = malloc(strlen(path) + 64);
    sprintf(want, "%s:3: fewer than 18 fields", path);
    assert_string_equal(err, want);
    free(want);
    free(err);
    trace_put(path, "; MaxProcs: 4\n1 0 0 10 x -1 -1 1 60 -1 1 1 -1 -1 -1 -1 -1 -1\n");
    assert_int_equal(sim_run(&o, &r, &err), -1);
    assert_non_null(strstr(err, ":2: a field is not a number"));
    free(err);
    /* A good one: two jobs of 1 and 4 processors on 4; the second waits. */
    trace_put(path, "; MaxProcs: 4\n1 0 0 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "2 10 0 50 4 -1 -1 4 60 -1 1 1 -1 -1 -1 -1 -1 -1\n");
    assert_int_equal(sim_run(&o, &r, &err), 0);
    assert_int_equal(r.jobs, 2);
    assert_int_equal(r.makespan_s, 150);
    assert_int_equal(r.max_wait_s, 90);
    near(r.avg_bsld, (1 + 140.0 / 50) / 2, 1e-9);
    unlink(path);
}

/* Per-user limits: user 1's four 1-processor jobs on 4 processors run two
 * at a time under MaxJobsPerUser=2 while user 2's starts at once; a job
 * over MaxTRESPerUser=cpu alone is refused. */
static void test_user_limits(void **state)
{
    char path[] = "/tmp/herd-sim-XXXXXX";
    struct sim_opts o = { .path = path, .policy = SCHED_POLICY_EASY };
    struct sim_result r;
    char *err = NULL;
    (void)state;
    trace_put(path, "; MaxProcs: 8\n"
                    "1 0 0 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "2 0 0 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "3 0 0 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "4 0 0 100 1 -1 -1 1 100 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                    "5 0 0 100 1 -1 -1 1 100 -1 1 2 -1 -1 -1 -1 -1 -1\n"
                    "6 0 0 100 3 -1 -1 3 100 -1 1 2 -1 -1 -1 -1 -1 -1\n");
    assert_int_equal(sim_run(&o, &r, &err), 0);
    assert_int_equal(r.max_wait_s, 0);
    o.limits.jobs_per_user = 2;
    assert_int_equal(sim_run(&o, &r, &err), 0);
    assert_int_equal(r.jobs, 6);
    assert_int_equal(r.max_wait_s, 100);
    near(r.avg_wait_s, 200.0 / 6, 1e-9);
    o.limits.procs_per_user = 2;
    assert_int_equal(sim_run(&o, &r, &err), 0);
    assert_int_equal(r.refused, 1);
    assert_int_equal(r.jobs, 5);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_user_limits),
        cmocka_unit_test(test_swf_fields),
        cmocka_unit_test(test_independent),
        cmocka_unit_test(test_ctc_pyss),
        cmocka_unit_test(test_ctc_tsafrir),
        cmocka_unit_test(test_kth_tsafrir),
        cmocka_unit_test(test_sdsc_tsafrir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
