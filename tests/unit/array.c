/* Unit tests of job array task sets: sbatch --array specs, and the folded
 * form squeue shows. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/taskset.h"

static struct taskset *parse(const char *spec, int *throttle)
{
    char err[128];
    struct taskset *t = taskset_parse(spec, throttle, err, sizeof err);
    assert_non_null(t);
    return t;
}

/* The folded form of spec after parsing it. */
static void assert_folds(const char *spec, const char *want)
{
    int throttle;
    struct taskset *t = parse(spec, &throttle);
    char *s = taskset_fmt(t);
    assert_string_equal(s, want);
    free(s);
    taskset_free(t);
}

static void test_range(void **state)
{
    (void)state;
    int throttle = -1;
    struct taskset *t = parse("0-15", &throttle);
    assert_int_equal(throttle, 0);
    assert_int_equal(taskset_count(t), 16);
    assert_int_equal(taskset_first(t), 0);
    assert_int_equal(taskset_last(t), 15);
    assert_int_equal(taskset_step(t), 1);
    assert_true(taskset_has(t, 7));
    assert_false(taskset_has(t, 16));
    taskset_free(t);
}

static void test_list(void **state)
{
    (void)state;
    int throttle;
    struct taskset *t = parse("1,3,5-7", &throttle);
    assert_int_equal(taskset_count(t), 5);
    assert_false(taskset_has(t, 2));
    assert_false(taskset_has(t, 4));
    assert_true(taskset_has(t, 6));
    assert_int_equal(taskset_step(t), 1);
    taskset_free(t);
}

static void test_step_and_throttle(void **state)
{
    (void)state;
    int throttle;
    struct taskset *t = parse("0-99:2", &throttle);
    assert_int_equal(taskset_count(t), 50);
    assert_int_equal(taskset_last(t), 98);
    assert_int_equal(taskset_step(t), 2);
    assert_false(taskset_has(t, 99));
    taskset_free(t);
    t = parse("0-999%8", &throttle);
    assert_int_equal(throttle, 8);
    assert_int_equal(taskset_count(t), 1000);
    taskset_free(t);
}

static void test_bad_specs(void **state)
{
    (void)state;
    const char *bad[] = { "", "-1", "a", "3-1", "1-", "1,,2", "1-5:0", "1-5:x", "1%", "1%a",
                          "1%2%3", "5 ", "0-4000001", "1,2,", NULL };
    char err[128];
    int throttle;
    for (int i = 0; bad[i]; i++) {
        struct taskset *t = taskset_parse(bad[i], &throttle, err, sizeof err);
        if (t)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_string_equal(err, "Invalid job array specification");
    }
}

static void test_fold(void **state)
{
    (void)state;
    assert_folds("0-15", "0-15");
    assert_folds("1,3,5-7", "1,3,5-7");
    assert_folds("0-99:2", "0-98:2");
    assert_folds("7", "7");
    assert_folds("5,1-3", "1-3,5");
    assert_folds("1-3,2-6", "1-6");
    assert_folds("1,2", "1-2");
    assert_folds("0-20:10", "0-20:10");
}

static void test_take_in_order(void **state)
{
    (void)state;
    int throttle;
    struct taskset *t = parse("4-15%8", &throttle);
    taskset_del(t, taskset_first(t));
    taskset_del(t, 9);
    char *s = taskset_fmt(t);
    assert_string_equal(s, "5-8,10-15");
    free(s);
    assert_int_equal(taskset_first(t), 5);
    assert_int_equal(taskset_count(t), 10);
    while (taskset_first(t) >= 0)
        taskset_del(t, (uint32_t)taskset_first(t));
    assert_int_equal(taskset_count(t), 0);
    s = taskset_fmt(t);
    assert_string_equal(s, "");
    free(s);
    taskset_free(t);
}

static void test_big_is_cheap(void **state)
{
    (void)state;
    int throttle;
    struct taskset *t = parse("0-99999", &throttle);
    struct taskset *c = taskset_copy(t);
    taskset_del(c, 50000);
    assert_int_equal(taskset_count(t), 100000);
    assert_int_equal(taskset_count(c), 99999);
    char *s = taskset_fmt(c);
    assert_string_equal(s, "0-49999,50001-99999");
    free(s);
    taskset_free(c);
    taskset_free(t);
}

static void test_common_and_covers(void **state)
{
    (void)state;
    int throttle;
    struct taskset *a = parse("0-9", &throttle), *b = parse("5-20", &throttle);
    struct taskset *c = parse("2-4", &throttle);
    assert_int_equal(taskset_common(a, b), 5);
    assert_int_equal(taskset_common(b, a), 5);
    assert_true(taskset_covers(a, c));
    assert_false(taskset_covers(c, a));
    assert_false(taskset_covers(a, b));
    taskset_free(a);
    taskset_free(b);
    taskset_free(c);
}

/* What slurm-ref's squeue printed for these --array specs. */
static void test_show_as_slurm(void **state)
{
    (void)state;
    const char *cases[][2] = {
        { "3-9:2", "3,5,7,9" }, { "1,4,7", "1,4,7" }, { "5-10%2", "5-10%2" },
        { "1,3-9:2,20", "1,3,5,7,9,20" }, { "0-98:2", "0-98:2" }, { "0-20:4%3", "0-20:4%3" },
        { "3-15:3", "3,6,9,12,15" }, { "0-15:3", "0-15:3" }, { "1-12:2", "1,3,5,7,9,11" },
        { "100-112:2", "100-112:2" }, { "10-30:5", "10,15,20,25,30" }, { "5,7-10%2", "5,7-10%2" },
        { "1-3,5,7,9", "1-3,5,7,9" }, { "7", "7" },
        { "1,0-300:2", "0-2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42..." },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *s = taskset_show(cases[i][0]);
        assert_string_equal(s, cases[i][1]);
        free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show_as_slurm),
        cmocka_unit_test(test_range),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_step_and_throttle),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_fold),
        cmocka_unit_test(test_take_in_order),
        cmocka_unit_test(test_big_is_cheap),
        cmocka_unit_test(test_common_and_covers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
