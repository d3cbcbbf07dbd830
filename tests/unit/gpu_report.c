/*
 * Unit tests of the GPU figures' text: sacct's TRESUsageIn* strings
 * (cmd/sacct/sacct_tres.c) and seff's report and sizes (cmd/seff_report.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/sacct/sacct.h"
#include "cmd/seff.h"

static const char *USAGE =
    "{\"total_cpu_ms\": 11000, \"max_rss_kb\": 712, \"gpu\": {\"samples\": 3,"
    " \"util_ave\": 90.0, \"util_max\": 90, \"mem_ave_mb\": 1024.4, \"mem_max_mb\": 2048,"
    " \"gpus\": [{\"node\": \"n1\", \"index\": 0, \"util_ave\": 90.0, \"mem_max_mb\": 2048,"
    " \"mem_total_mb\": 16384}, {\"node\": \"n1\", \"index\": 1, \"util_ave\": 0.0,"
    " \"mem_max_mb\": 0, \"mem_total_mb\": 16384}]}}";

static void test_tres_usage(void **state)
{
    (void)state;
    struct sacct_ctx x = { 0 };
    json_t *u = json_loads(USAGE, 0, NULL);
    char *s = sacct_tres_usage(u, SACCT_TRES_AVE, SACCT_TRES_VALUE, "n1", &x);
    assert_string_equal(s, "cpu=00:00:11,energy=0,fs/disk=0,gres/gpumem=1G,"
                           "gres/gpuutil=90,mem=712K,pages=0,vmem=0");
    free(s);
    s = sacct_tres_usage(u, SACCT_TRES_MAX, SACCT_TRES_VALUE, "n1", &x);
    assert_string_equal(s, "cpu=00:00:11,energy=0,fs/disk=0,gres/gpumem=2G,"
                           "gres/gpuutil=90,mem=712K,pages=0,vmem=0");
    free(s);
    s = sacct_tres_usage(u, SACCT_TRES_MAX, SACCT_TRES_NODE, "n1", &x);
    assert_string_equal(s, "cpu=n1,energy=n1,fs/disk=n1,gres/gpumem=n1,gres/gpuutil=n1,"
                           "mem=n1,pages=n1,vmem=n1");
    free(s);
    /* unknown CPU and no GPU samples: left out, not shown as 0 */
    json_t *v = json_pack("{s:i, s:i}", "total_cpu_ms", -1, "max_rss_kb", 2048);
    s = sacct_tres_usage(v, SACCT_TRES_AVE, SACCT_TRES_VALUE, "n1", &x);
    assert_string_equal(s, "energy=0,fs/disk=0,mem=2M,pages=0,vmem=0");
    free(s);
    assert_null(sacct_tres_usage(NULL, SACCT_TRES_AVE, SACCT_TRES_VALUE, "n1", &x));
    json_decref(v);
    json_decref(u);
}

static void test_kbytes(void **state)
{
    (void)state;
    char b[32];
    seff_kbytes(0, b, sizeof b);
    assert_string_equal(b, "0.00 MB");
    seff_kbytes(712, b, sizeof b);
    assert_string_equal(b, "712.00 KB");
    seff_kbytes(1.2 * 1024 * 1024, b, sizeof b);
    assert_string_equal(b, "1.20 GB");
    seff_kbytes(1024, b, sizeof b);             /* a unit starts at its first 1024 */
    assert_string_equal(b, "1.00 MB");
    seff_kbytes(0.5, b, sizeof b);
    assert_string_equal(b, "0.50 KB");
    seff_kbytes(3.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024, b, sizeof b);
    assert_string_equal(b, "3072.00 EB");       /* no unit past exabytes */
}

static char *report(const char *rec_text, int64_t now)
{
    json_t *rec = json_loads(rec_text, 0, NULL);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    seff_report(f, rec, 1234, "herd", "alice", now);
    fclose(f);
    json_decref(rec);
    return buf;
}

static void test_seff_report(void **state)
{
    (void)state;
    char rec[2048];
    snprintf(rec, sizeof rec,
             "{\"state\": \"COMPLETED\", \"exit_code\": 0, \"user_name\": \"alice\","
             " \"start_time\": 1000, \"end_time\": 4723, \"allocs\": [{\"node\": \"n1\","
             " \"cpus\": 8, \"mem_mb\": 8192, \"gpu_mask\": 3}], \"usage\": %s}", USAGE);
    char *out = report(rec, 5000);
    assert_string_equal(out,
        "Job ID: 1234\nCluster: herd\nUser/Group: alice/alice\n"
        "State: COMPLETED (exit code 0)\nNodes: 1\nCores per node: 8\n"
        "CPU Utilized: 00:00:11\nCPU Efficiency: 0.04% of 08:16:24 core-walltime\n"
        "Job Wall-clock time: 01:02:03\nMemory Utilized: 712.00 KB\n"
        "Memory Efficiency: 0.01% of 8.00 GB (8.00 GB/node)\nGPUs: 2\n"
        "GPU Utilization: 45.00% (mean of 2 GPUs; n1 GPU 0: 90.00%, GPU 1: 0.00%)\n"
        "GPU Memory Utilized: 2.00 GB (peak of all GPUs together; n1 GPU 0: 2.00 GB of "
        "16.00 GB, GPU 1: 0.00 MB of 16.00 GB)\n");
    free(out);
    out = report("{\"state\": \"COMPLETED\", \"allocs\": [{\"node\": \"n1\", \"cpus\": 1,"
                 " \"gpu_mask\": 1}], \"start_time\": 1, \"end_time\": 2}", 5);
    assert_non_null(strstr(out, "Cores: 1\n"));
    assert_non_null(strstr(out, "GPUs: 1\nGPU Utilization: not sampled"));
    free(out);
    out = report("{\"state\": \"PENDING\"}", 5);
    assert_string_equal(out, "Efficiency not available for jobs in the PENDING state.\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tres_usage),
        cmocka_unit_test(test_kbytes),
        cmocka_unit_test(test_seff_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
