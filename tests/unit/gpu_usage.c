/* Unit tests of the GPU accumulator (common/gpu_usage) and the GPU keys of
 * slurm.conf (common/conf_gpu). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/conf.h"
#include "common/gpu_usage.h"

static void rounds(struct gpu_usage *u, int64_t t0, int n, const struct gpu_reading *r)
{
    for (int i = 0; i < n; i++)
        gpu_usage_add(u, t0 + i, r, 5);
}

/* Slurm's gres/gpuutil and gpumem are sums over the job's GPUs. */
static void test_sums_over_gpus(void **state)
{
    (void)state;
    int idx[] = { 0, 1 };
    struct gpu_usage u;
    gpu_usage_init(&u, idx, 2);
    struct gpu_reading a[] = { { 90, 2048, 16384 }, { 0, 0, 16384 } };
    struct gpu_reading b[] = { { 70, 1024, 16384 }, { 10, 512, 16384 } };
    rounds(&u, 100, 1, a);
    rounds(&u, 101, 1, b);
    json_t *by = json_pack("{s:o}", "n1", gpu_usage_json(&u));
    json_t *s = gpu_usage_summary(by);
    assert_non_null(s);
    assert_true(json_real_value(json_object_get(s, "util_ave")) == 85.0);   /* 80 + 5 */
    assert_true(json_real_value(json_object_get(s, "util_max")) == 90.0);
    assert_true(json_real_value(json_object_get(s, "mem_ave_mb")) == 1536.0 + 256.0);
    assert_int_equal(json_integer_value(json_object_get(s, "mem_max_mb")), 2048);
    assert_int_equal(json_integer_value(json_object_get(s, "samples")), 2);
    json_t *g1 = json_array_get(json_object_get(s, "gpus"), 1);
    assert_string_equal(json_string_value(json_object_get(g1, "node")), "n1");
    assert_int_equal(json_integer_value(json_object_get(g1, "util_max")), 10);
    assert_int_equal(json_integer_value(json_object_get(s, "idle_since")), 0);
    json_decref(s);
    json_decref(by);
    gpu_usage_free(&u);
}

/* Idle from the first round all GPUs are under the threshold; one busy
 * round ends it; an unreadable GPU neither counts nor breaks the run. */
static void test_idle_since(void **state)
{
    (void)state;
    int idx[] = { 2, 3 };
    struct gpu_usage u;
    gpu_usage_init(&u, idx, 2);
    struct gpu_reading idle[] = { { 4, 0, 1 }, { 0, 0, 1 } };
    struct gpu_reading busy[] = { { 4, 0, 1 }, { 5, 0, 1 } };
    struct gpu_reading gone[] = { { -1, 0, 0 }, { -1, 0, 0 } };
    rounds(&u, 10, 3, idle);
    assert_int_equal(u.idle_since, 10);
    rounds(&u, 13, 1, gone);
    assert_int_equal(u.idle_since, 10);
    assert_int_equal(u.samples, 3);
    rounds(&u, 14, 1, busy);
    assert_int_equal(u.idle_since, 0);
    rounds(&u, 15, 2, idle);
    assert_int_equal(u.idle_since, 15);
    gpu_usage_free(&u);
}

/* A restarted herdd goes on from what it saved. */
static void test_restore(void **state)
{
    (void)state;
    int idx[] = { 1 };
    struct gpu_usage u, v;
    gpu_usage_init(&u, idx, 1);
    struct gpu_reading r[] = { { 50, 100, 200 } };
    rounds(&u, 1, 4, r);
    json_t *o = gpu_usage_json(&u);
    gpu_usage_init(&v, idx, 1);
    gpu_usage_restore(&v, o);
    struct gpu_reading z[] = { { 0, 0, 200 } };
    gpu_usage_add(&v, 5, z, 5);
    assert_int_equal(v.samples, 5);
    assert_true(v.g[0].util_sum == 200.0);
    assert_int_equal(v.g[0].mem_max_mb, 100);
    json_decref(o);
    gpu_usage_free(&u);
    gpu_usage_free(&v);
}

/* Nodes: the job is idle only when every node is; none sampled: NULL. */
static void test_summary_nodes(void **state)
{
    (void)state;
    json_t *by = json_pack("{s:{s:i, s:i, s:[]}, s:{s:i, s:i, s:[]}}", "a", "samples", 3,
                           "idle_since", 50, "gpus", "b", "samples", 3, "idle_since", 0, "gpus");
    json_t *s = gpu_usage_summary(by);
    assert_int_equal(json_integer_value(json_object_get(s, "idle_since")), 0);
    json_decref(s);
    json_object_set_new(json_object_get(by, "b"), "idle_since", json_integer(70));
    s = gpu_usage_summary(by);
    assert_int_equal(json_integer_value(json_object_get(s, "idle_since")), 70);
    json_decref(s);
    json_decref(by);
    by = json_pack("{s:{s:i}}", "a", "samples", 0);
    assert_null(gpu_usage_summary(by));
    json_decref(by);
}

static void test_acctg_freq(void **state)
{
    (void)state;
    char err[160];
    int t = -1;
    assert_int_equal(conf_acctg_freq_parse("15", &t, err, sizeof err), 0);
    assert_int_equal(t, 15);
    assert_int_equal(conf_acctg_freq_parse("energy=0,task=7,network=30", &t, err, sizeof err), 0);
    assert_int_equal(t, 7);
    assert_int_equal(conf_acctg_freq_parse("task=x", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "'x'"));
    assert_int_equal(conf_acctg_freq_parse("gpu=5", &t, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown data type 'gpu'"));
}

static void test_idle_policy(void **state)
{
    (void)state;
    char err[240];
    struct conf_idle_gpu p = { 0 };
    assert_int_equal(conf_idle_gpu_parse(&p, "threshold=10,flag_after=60,action=requeue,"
                                             "action_after=1:00:00,exempt_qos=long:debug,dry_run",
                                         err, sizeof err), 0);
    assert_int_equal(p.threshold_pct, 10);
    assert_int_equal(p.flag_after_s, 3600);
    assert_int_equal(p.action_after_s, 3600);
    assert_int_equal(p.action, CONF_IDLE_REQUEUE);
    assert_true(p.dry_run);
    assert_true(conf_idle_gpu_listed(p.exempt_qos, "DEBUG"));
    assert_false(conf_idle_gpu_listed(p.exempt_qos, "deb"));
    assert_int_equal(conf_idle_gpu_parse(&p, "action=cancel", err, sizeof err), -1);
    assert_non_null(strstr(err, "flag_after"));
    assert_int_equal(conf_idle_gpu_parse(&p, "flag_after=5,action=kill", err, sizeof err), -1);
    assert_non_null(strstr(err, "'kill'"));
    assert_int_equal(conf_idle_gpu_parse(&p, "flag_after=5,color=red", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown word 'color'"));
    assert_int_equal(p.threshold_pct, CONF_IDLE_DEFAULT_PCT);
    conf_idle_gpu_clear(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_over_gpus), cmocka_unit_test(test_idle_since),
        cmocka_unit_test(test_restore),        cmocka_unit_test(test_summary_nodes),
        cmocka_unit_test(test_acctg_freq),     cmocka_unit_test(test_idle_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
