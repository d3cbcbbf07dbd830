/* Unit tests of fname (src/common/fname.h): every code of Slurm's file name
 * patterns, zero padding and its cap, the batch step, array defaults,
 * literal patterns and unknown codes, as Slurm 22.05 expands them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/fname.h"

static const struct fname_vals plain = {
    .job_id = 1, .array_job_id = 0, .array_task_id = -1, .step_id = FNAME_BATCH_STEP,
    .node_index = 0, .task_id = 0, .node_name = "vm", .user_name = "root", .job_name = "s.sh",
};

static const struct fname_vals task = {
    .job_id = 14, .array_job_id = 12, .array_task_id = 7, .step_id = 3,
    .node_index = 1, .task_id = 5, .node_name = "gpu2", .user_name = "ann", .job_name = "t",
};

static void expect(const char *pattern, const struct fname_vals *v, const char *want)
{
    char *got = fname_expand(pattern, v);
    assert_string_equal(got, want);
    free(got);
}

/* What slurm-ref's sbatch wrote for this very pattern. */
static void test_batch_step_codes(void **state)
{
    (void)state;
    expect("x-%A_%a_%j_%J_%s_%N_%n_%t_%u_%x_%%_%4a_%5j_%12j.out", &plain,
           "x-1_4294967294_1_1_batch_vm_0_0_root_s.sh_%_4294967294_00001_0000000001.out");
}

static void test_array_task_codes(void **state)
{
    (void)state;
    expect("%A_%a.%j", &task, "12_7.14");
    expect("%J|%s|%n|%t|%N|%u|%x", &task, "14.3|3|1|5|gpu2|ann|t");
    expect("%4a-%3A-%2t-%3N", &task, "0007-012-05-gpu2");
}

static void test_defaults(void **state)
{
    (void)state;
    assert_string_equal(fname_default(&plain), "slurm-%j.out");
    assert_string_equal(fname_default(&task), "slurm-%A_%a.out");
    expect(fname_default(&task), &task, "slurm-12_7.out");
}

static void test_literal_and_unknown(void **state)
{
    (void)state;
    expect("out\\_%j.txt", &task, "out_%j.txt");
    expect("a%qb%", &task, "a%qb%");
    expect("%%j", &task, "%j");
    expect("", &task, "");
}

/* slurm-ref's scontrol show job for -o '%A_%a_%j_%J_%s_%N_%n_%t_%u_%x_%5j'. */
static void test_show_subset(void **state)
{
    (void)state;
    char *got = fname_show("%A_%a_%j_%J_%s_%N_%n_%t_%u_%x_%5j", &plain);
    assert_string_equal(got, "1_4294967294_1_%J_%s_%N_%n_%t_root_s.sh_%5j");
    free(got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_step_codes),
        cmocka_unit_test(test_array_task_codes),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_literal_and_unknown),
        cmocka_unit_test(test_show_subset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
