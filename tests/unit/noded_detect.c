/* Unit tests of herdd's resource detection and the spool's records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "noded/detect.h"
#include "noded/spool.h"

static void test_gpu_type(void **state)
{
    (void)state;
    char name[] = "NVIDIA H100 80GB HBM3";
    detect_gpu_type(name);
    assert_string_equal(name, "nvidia_h100_80gb_hbm3");
    char t4[] = "Tesla T4";
    detect_gpu_type(t4);
    assert_string_equal(t4, "tesla_t4");
}

static void test_no_nvml(void **state)
{
    (void)state;
    setenv("HERD_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    struct detect d;
    detect_run(&d);
    assert_true(d.cpus >= 1);
    assert_true(d.mem_mb >= 1);
    assert_int_equal(d.ngpus, 0);
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    detect_print(f, "n1", &d);
    fclose(f);
    char want[128];
    snprintf(want, sizeof want, "NodeName=n1 CPUs=%d Boards=1 SocketsPerBoard=1 CoresPerSocket=%d"
             " ThreadsPerCore=1 RealMemory=", d.cpus, d.cpus);
    assert_memory_equal(buf, want, strlen(want));
    assert_null(strstr(buf, "Gres="));
    assert_non_null(strstr(buf, "\nUpTime="));
    detect_clear(&d);
    unsetenv("HERD_NVML_LIBRARY");
}

static void test_print_gres(void **state)
{
    (void)state;
    char *types[] = { "a100", "a100", "t4" };
    struct detect d = { .cpus = 4, .mem_mb = 1000, .uptime_s = 90061, .ngpus = 3,
                        .gpu_types = types };
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    detect_print(f, "g1", &d);
    fclose(f);
    assert_string_equal(buf, "NodeName=g1 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4"
                        " ThreadsPerCore=1 RealMemory=1000 Gres=gpu:a100:2,gpu:t4:1\n"
                        "UpTime=1-01:01:01\n");
}

static void test_spool_records(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/noded-test-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char *dir = spool_job_dir(tmpl, 12);
    assert_int_equal(spool_parse_name(strrchr(dir, '/') + 1), 12);
    assert_int_equal(spool_parse_name("job"), -1);
    assert_int_equal(spool_parse_name("jobx1"), -1);
    assert_int_equal(spool_parse_name("job0"), -1);
    assert_int_equal(spool_mkdirs(dir, 0700), 0);
    struct job_result r = { .state = "TIMEOUT", .exit_code = 0, .exit_signal = 15,
                            .end_time = 1234 }, back;
    assert_int_equal(spool_result_read(dir, &back), -1);
    assert_int_equal(spool_result_write(dir, &r), 0);
    assert_int_equal(spool_result_read(dir, &back), 0);
    assert_string_equal(back.state, "TIMEOUT");
    assert_int_equal(back.exit_signal, 15);
    assert_int_equal(back.end_time, 1234);
    assert_int_equal(spool_read_pid(dir, SPOOL_SUP_PID), -1);
    assert_int_equal(spool_write_pid(dir, SPOOL_SUP_PID, 4242), 0);
    assert_int_equal(spool_read_pid(dir, SPOOL_SUP_PID), 4242);
    assert_int_equal(spool_rmtree(tmpl), 0);
    struct stat st;
    assert_int_equal(stat(tmpl, &st), -1);
    free(dir);
}

static ino_t inode_of(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

/* A finished job's directory becomes a slot with its files (inodes kept),
 * its result and pids emptied; one holding other files is removed. */
static void test_spool_pool(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/noded-test-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    int nfree = 7;
    spool_pool_reset(tmpl, &nfree);
    assert_int_equal(nfree, 0);
    char *a = spool_job_dir(tmpl, 1), *b = spool_job_dir(tmpl, 2), *c = spool_job_dir(tmpl, 3);
    assert_null(spool_pool_take(tmpl, &nfree));
    assert_int_equal(spool_mkdirs(a, 0711), 0);
    struct job_result r = { .state = "COMPLETED", .end_time = 1 }, back;
    assert_int_equal(spool_result_write(a, &r), 0);
    assert_int_equal(spool_write_pid(a, SPOOL_SUP_PID, 4242), 0);
    assert_int_equal(spool_write(a, SPOOL_JOB_JSON, "{}", 0600), 0);
    ino_t json_ino = inode_of(a, SPOOL_JOB_JSON);
    assert_int_equal(spool_pool_put(tmpl, &nfree, a), 0);
    assert_int_equal(nfree, 1);
    struct stat st;
    assert_int_equal(stat(a, &st), -1);          /* gone whole, result and all */
    char *slot = spool_pool_take(tmpl, &nfree);
    assert_non_null(slot);
    assert_int_equal(nfree, 0);
    assert_int_equal(rename(slot, b), 0);
    free(slot);
    assert_int_equal(spool_result_read(b, &back), -1);
    assert_int_equal(spool_read_pid(b, SPOOL_SUP_PID), -1);
    assert_int_equal(spool_write(b, SPOOL_JOB_JSON, "{\"a\":1}", 0600), 0);
    assert_int_equal(inode_of(b, SPOOL_JOB_JSON), json_ino);
    assert_int_equal(spool_mkdirs(c, 0711), 0);
    assert_int_equal(spool_write(c, "other", "x", 0600), 0);
    assert_int_equal(spool_pool_put(tmpl, &nfree, c), 0);
    assert_int_equal(nfree, 0);
    assert_int_equal(stat(c, &st), -1);
    assert_int_equal(spool_rmtree(tmpl), 0);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_type),
        cmocka_unit_test(test_no_nvml),
        cmocka_unit_test(test_print_gres),
        cmocka_unit_test(test_spool_records),
        cmocka_unit_test(test_spool_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
