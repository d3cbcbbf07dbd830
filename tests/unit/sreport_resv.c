/* Unit tests of sreport reservation Utilization: which reservations and
 * TRES it lists, what counts as allocated and idle, in Slurm 22.05's
 * layout (slurm-ref's output for the same shapes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/sreport/sreport.h"

/* 1796457600 = 2026-12-05T08:00:00 UTC; the period is 08:00-09:00. */
#define T0 1796457600

static const char *resvs_fixture =
    "{\"reservations\": ["
    /* 60 s on 64 CPUs, a job of 2 CPUs ran 20 s in it (slurm-ref's rv_short) */
    "{\"id\": 4, \"name\": \"rv_short\", \"start_time\": 1796460467, \"end_time\": 1796460527,"
    " \"tres\": \"cpu=64\", \"state\": \"INACTIVE\"},"
    /* deleted before it started: never held anything */
    "{\"id\": 1, \"name\": \"root_1\", \"start_time\": 1796464480, \"end_time\": 1796468080,"
    " \"tres\": \"cpu=64\", \"deleted\": true, \"deleted_time\": 1796460885},"
    /* GPUs too; deleted after 93 s */
    "{\"id\": 2, \"name\": \"root_2\", \"start_time\": 1796460285, \"end_time\": 1796463885,"
    " \"tres\": \"cpu=64,gres/gpu=8\", \"deleted\": true, \"deleted_time\": 1796460378},"
    /* after the period */
    "{\"id\": 5, \"name\": \"later\", \"start_time\": 1796464800, \"end_time\": -1,"
    " \"tres\": \"cpu=8\"}"
    "]}";

static const char *jobs_fixture =
    "{\"now\": 1796461000, \"jobs\": ["
    "{\"job_id\": 1152, \"record\": {\"start_time\": 1796460467, \"end_time\": 1796460487,"
    " \"reservation\": \"rv_short\", \"reservation_id\": 4,"
    " \"allocs\": [{\"cpus\": 2, \"gpu_mask\": 0}]}},"
    /* began before root_2 and ran past its end: only its time inside counts */
    "{\"job_id\": 1147, \"record\": {\"start_time\": 1796460200, \"end_time\": 1796460400,"
    " \"spec\": {\"reservation\": \"root_2\"}, \"allocs\": [{\"cpus\": 4, \"gpu_mask\": 3}]}},"
    /* in no reservation */
    "{\"job_id\": 1149, \"record\": {\"start_time\": 1796460300, \"end_time\": 1796460400,"
    " \"allocs\": [{\"cpus\": 64, \"gpu_mask\": 255}]}}"
    "]}";

static char *report(struct sreport *r)
{
    json_t *list = json_loads(resvs_fixture, 0, NULL);
    r->answer = json_loads(jobs_fixture, 0, NULL);
    r->cluster = "bench";
    r->start = T0;
    r->end = T0 + 3600;
    assert_non_null(list);
    assert_non_null(r->answer);
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(1);
    dup2(fileno(tmp), 1);
    sr_resv_print(r, json_object_get(list, "reservations"));
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    long len = ftell(tmp);
    char *buf = calloc(1, (size_t)len + 1);
    rewind(tmp);
    assert_int_equal(fread(buf, 1, (size_t)len, tmp), (size_t)len);
    fclose(tmp);
    json_decref(list);
    json_decref(r->answer);
    return buf;
}

#define HEAD                                                                               \
    "  Cluster      Name               Start                 End      TRES Name"          \
    "            Allocated                 Idle \n"                                        \
    "--------- --------- ------------------- ------------------- -------------- "          \
    "-------------------- -------------------- \n"

static void test_seconds(void **state)
{
    (void)state;
    struct sreport r = { .unit = U_SECONDS, .ntres = 1, .tres = { T_CPU } };
    char *got = report(&r);
    assert_string_equal(got,
        "--------------------------------------------------------------------------------\n"
        "Reservation Utilization 2026-12-05T08:00:00 - 2026-12-05T08:59:59\n"
        "Usage reported in TRES Seconds\n"
        "--------------------------------------------------------------------------------\n"
        HEAD
        "    bench    root_2 2026-12-05T08:44:45 2026-12-05T08:46:18            cpu"
        "                  372                 5580 \n"
        "    bench  rv_short 2026-12-05T08:47:47 2026-12-05T08:48:47            cpu"
        "                   40                 3800 \n");
    free(got);
}

static void test_gpu_percent_parsable(void **state)
{
    (void)state;
    /* -T gres/gpu: only what reserved GPUs; 2 GPUs for 93 s of 8 */
    struct sreport r = { .unit = U_PERCENT, .ntres = 1, .tres = { T_GPU }, .noheader = true,
                         .parsable = 2 };
    char *got = report(&r);
    assert_string_equal(got,
        "bench|root_2|2026-12-05T08:44:45|2026-12-05T08:46:18|gres/gpu|25.00%|75.00%\n");
    free(got);
}

static void test_hourper_width(void **state)
{
    (void)state;
    /* "N(P%)" columns are 29 wide (slurm-ref: -t hourper) */
    struct sreport r = { .unit = U_HOURPER, .ntres = 1, .tres = { T_CPU }, .noheader = false };
    char *got = report(&r);
    assert_non_null(strstr(got,
        "Usage reported in TRES Hours/Percentage of Total\n"));
    assert_non_null(strstr(got,
        "            cpu                      0(6.25%)                     2(93.75%) \n"));
    assert_non_null(strstr(got, " ----------------------------- ----------------------------- \n"));
    free(got);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seconds),
        cmocka_unit_test(test_gpu_percent_parsable),
        cmocka_unit_test(test_hourper_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
