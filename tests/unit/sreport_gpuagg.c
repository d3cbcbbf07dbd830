/* Unit tests of the GPUUtilization reports' arithmetic (sreport_gpuagg.h):
 * the period's cut, sampled against unsampled GPUs, the time-weighted
 * utilization per GPU, idle GPU time and the idle-cancelled count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cmd/sreport/sreport_gpuagg.h"

#define T0 1796457600   /* the period is T0 .. T0 + 3600 */
#define END (T0 + 3600)

static void test_two_gpus_one_busy(void **state)
{
    (void)state;
    const double util[] = { 90, 0 };
    struct sr_gpu_job j = { T0 + 100, T0 + 400, 2, util, 2, 2048, false };
    struct sr_gpu_sum s = SR_GPU_SUM_INIT;
    assert_true(sr_gpu_add(&s, &j, T0, END, 5));
    assert_float_equal(s.gpu_secs, 600, 1e-9);
    assert_float_equal(s.sampled_secs, 600, 1e-9);
    assert_float_equal(sr_gpu_util(&s), 45, 1e-9);
    assert_float_equal(s.idle_secs, 300, 1e-9);   /* GPU 1's */
    assert_int_equal(s.mem_max_mb, 2048);
    assert_int_equal(s.jobs, 1);
    assert_int_equal(s.idle_cancelled, 0);
}

/* Utilization is weighted by GPU time: a long idle job outweighs a short
 * busy one; an unsampled job adds GPU time only. */
static void test_weighting_and_unsampled(void **state)
{
    (void)state;
    const double busy[] = { 100 }, idle[] = { 0, 0, 0 };
    struct sr_gpu_job a = { T0, T0 + 100, 1, busy, 1, 100, false };
    struct sr_gpu_job b = { T0, T0 + 300, 3, idle, 3, 10, true };
    struct sr_gpu_job c = { T0, T0 + 1000, 4, NULL, 0, -1, false };
    struct sr_gpu_sum s = SR_GPU_SUM_INIT;
    assert_true(sr_gpu_add(&s, &a, T0, END, 5));
    assert_true(sr_gpu_add(&s, &b, T0, END, 5));
    assert_true(sr_gpu_add(&s, &c, T0, END, 5));
    assert_float_equal(s.gpu_secs, 100 + 900 + 4000, 1e-9);
    assert_float_equal(s.sampled_secs, 1000, 1e-9);
    assert_float_equal(sr_gpu_util(&s), 100.0 * 100 / 1000, 1e-9);
    assert_float_equal(s.idle_secs, 900, 1e-9);
    assert_int_equal(s.mem_max_mb, 100);
    assert_int_equal(s.jobs, 3);
    assert_int_equal(s.idle_cancelled, 1);
}

/* Only the part inside the period counts; no GPU or no overlap: nothing. */
static void test_period_cut_and_nothing(void **state)
{
    (void)state;
    const double util[] = { 50 };
    struct sr_gpu_job across = { T0 - 600, T0 + 600, 1, util, 1, 1, false };
    struct sr_gpu_job before = { T0 - 600, T0, 1, util, 1, 1, false };
    struct sr_gpu_job cpu_only = { T0, T0 + 600, 0, NULL, 0, -1, false };
    struct sr_gpu_job unstarted = { 0, 0, 1, NULL, 0, -1, false };
    struct sr_gpu_sum s = SR_GPU_SUM_INIT;
    assert_true(sr_gpu_add(&s, &across, T0, END, 5));
    assert_false(sr_gpu_add(&s, &before, T0, END, 5));
    assert_false(sr_gpu_add(&s, &cpu_only, T0, END, 5));
    assert_false(sr_gpu_add(&s, &unstarted, T0, END, 5));
    assert_float_equal(s.gpu_secs, 600, 1e-9);
    assert_float_equal(sr_gpu_util(&s), 50, 1e-9);
    assert_int_equal(s.jobs, 1);
    struct sr_gpu_sum none = SR_GPU_SUM_INIT;
    assert_float_equal(sr_gpu_util(&none), -1, 1e-9);
    assert_int_equal(none.mem_max_mb, -1);
}

/* Half its GPUs sampled (one node without NVML): the sampled half alone
 * makes the utilization; the threshold is "under". */
static void test_partly_sampled_threshold(void **state)
{
    (void)state;
    const double util[] = { 5 };
    struct sr_gpu_job j = { T0, T0 + 100, 2, util, 1, 7, false };
    struct sr_gpu_sum s = SR_GPU_SUM_INIT;
    assert_true(sr_gpu_add(&s, &j, T0, END, 5));
    assert_float_equal(s.gpu_secs, 200, 1e-9);
    assert_float_equal(s.sampled_secs, 100, 1e-9);
    assert_float_equal(sr_gpu_util(&s), 5, 1e-9);
    assert_float_equal(s.idle_secs, 0, 1e-9);   /* 5 % is not under 5 % */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_gpus_one_busy),
        cmocka_unit_test(test_weighting_and_unsampled),
        cmocka_unit_test(test_period_cut_and_nothing),
        cmocka_unit_test(test_partly_sampled_threshold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
