/* Herd's Slurm error numbers (src/common/slurm_errno.h) against Slurm's own:
 * the table below was copied, as numbers, from slurm/slurm_errno.h of
 * Slurm 22.05 (Debian's libslurm-dev 22.05.8), where most values come from
 * an enum and cannot be read off one line. Tools that parse `--json` errors
 * see these numbers, so each must be Slurm's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/slurm_errno.h"

struct slurm_value {
    const char *name;
    int herd, slurm;
};

#define V(name, slurm) { #name, name, slurm }
static const struct slurm_value values[] = {
    V(SLURM_SUCCESS, 0),
    V(SLURM_ERROR, -1),
    V(ESLURM_INVALID_PARTITION_NAME, 2000),
    V(ESLURM_DEFAULT_PARTITION_NOT_SET, 2001),
    V(ESLURM_ACCESS_DENIED, 2002),
    V(ESLURM_REST_INVALID_JOBS_DESC, 9002),
    V(ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, 2007),
    V(ESLURM_JOB_SCRIPT_MISSING, 2009),
    V(ESLURM_PATHNAME_TOO_LONG, 2012),
    V(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, 2014),
    V(ESLURM_NODES_BUSY, 2016),
    V(ESLURM_INVALID_JOB_ID, 2017),
    V(ESLURM_INVALID_NODE_NAME, 2018),
    V(ESLURM_ALREADY_DONE, 2021),
    V(ESLURM_JOB_PENDING, 2024),
    V(ESLURM_INVALID_FEATURE, 2029),
    V(ESLURM_DEPENDENCY, 2038),
    V(ESLURM_INVALID_TIME_LIMIT, 2051),
    V(ESLURM_JOB_NOT_PENDING, 2073),
    V(ESLURM_INVALID_ARRAY, 2081),
    V(ESLURM_INVALID_NICE, 2123),
};

static void test_every_value_is_slurms(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        if (values[i].herd != values[i].slurm)
            fail_msg("%s is %d in Herd, %d in Slurm", values[i].name, values[i].herd,
                     values[i].slurm);
    }
}

/* Two names with one value would make a tool take one error for another
 * (ESLURM_INVALID_FEATURE once shared ESLURM_ACCESS_DENIED's 2002). */
static void test_values_distinct(void **state)
{
    (void)state;
    size_t n = sizeof values / sizeof values[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (values[i].herd == values[j].herd)
                fail_msg("%s and %s share %d", values[i].name, values[j].name, values[i].herd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_value_is_slurms),
        cmocka_unit_test(test_values_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
