/* Unit tests of squeue's reading of the controller's job table
 * (src/cmd/squeue/squeue_rows.h): cells unescaped in place, \N as no value,
 * unknown columns skipped, numbers (read fast, printed as they came) and
 * booleans, rows added for -r, and
 * an answer that is no table refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/squeue/squeue_rows.h"
#include "common/xmalloc.h"

static void test_table(void **state)
{
    (void)state;
    char *text = xstrdup("now\t1700000000\n"
                         "job_id\tname\tshiny_new_key\tstart_estimate\texclusive\tnode_list\n"
                         "7\ta\\tb\\\\c\\nd\tzzz\t\\N\ttrue\t\n"
                         "8\tplain\tzzz\t-1\tfalse\tnode[1-2]\n");
    struct sq_rows r;
    assert_int_equal(sq_rows_parse(&r, text, strlen(text)), 0);
    assert_int_equal(r.now, 1700000000);
    assert_int_equal(r.n, 2);
    assert_int_equal(sq_int(&r.rows[0], SQ_JOB_ID, 0), 7);
    assert_string_equal(sq_str(&r.rows[0], SQ_NAME, ""), "a\tb\\c\nd");
    assert_null(sq_str(&r.rows[0], SQ_START_ESTIMATE, NULL));
    assert_int_equal(sq_int(&r.rows[0], SQ_START_ESTIMATE, 42), 42);
    assert_true(sq_bool(&r.rows[0], SQ_EXCLUSIVE, false));
    assert_string_equal(sq_str(&r.rows[0], SQ_NODE_LIST, "x"), "");
    assert_null(sq_str(&r.rows[0], SQ_PARTITION, NULL));   /* not asked for */
    assert_int_equal(sq_int(&r.rows[1], SQ_START_ESTIMATE, 0), -1);
    assert_false(sq_bool(&r.rows[1], SQ_EXCLUSIVE, true));
    assert_false(sq_is_int(&r.rows[1], SQ_NAME));
    assert_string_equal(sq_str(&r.rows[1], SQ_NODE_LIST, ""), "node[1-2]");
    /* squeue -r: a copy with a task id of its own, the row it came from unchanged
     * (the array keys have columns although the answer had none) */
    struct sq_row task = sq_rows_copy(&r, &r.rows[1]);
    char *id = xstrdup("3");
    sq_rows_own(&r, id);
    sq_row_put(&task, SQ_ARRAY_TASK_ID, id);
    sq_rows_append(&r, task);
    assert_int_equal(r.n, 3);
    assert_int_equal(sq_int(&r.rows[2], SQ_ARRAY_TASK_ID, 0), 3);
    assert_string_equal(sq_str(&r.rows[2], SQ_NAME, ""), "plain");
    assert_null(sq_str(&r.rows[1], SQ_ARRAY_TASK_ID, NULL));
    sq_rows_free(&r);
}

/* A line too long for two-byte offsets (a job name of 70,000 bytes) is read
 * as well as the short ones around it. */
static void test_long_line(void **state)
{
    (void)state;
    enum { LONG = 70000 };
    char *name = xmalloc(LONG + 1);
    memset(name, 'x', LONG);
    name[LONG] = '\0';
    char *text = xasprintf("now\t1\njob_id\tname\tnode_list\n1\ta\tn1\n2\t%s\tn2\n3\t\\N\tn3\n",
                           name);
    struct sq_rows r;
    assert_int_equal(sq_rows_parse(&r, text, strlen(text)), 0);
    assert_int_equal(r.n, 3);
    assert_string_equal(sq_str(&r.rows[0], SQ_NAME, ""), "a");
    assert_string_equal(sq_str(&r.rows[1], SQ_NAME, ""), name);
    assert_string_equal(sq_str(&r.rows[1], SQ_NODE_LIST, ""), "n2");
    assert_int_equal(sq_int(&r.rows[1], SQ_JOB_ID, 0), 2);
    assert_null(sq_cell(&r.rows[2], SQ_NAME));
    assert_string_equal(sq_str(&r.rows[2], SQ_NODE_LIST, ""), "n3");
    struct sq_row copy = sq_rows_copy(&r, &r.rows[1]);   /* a copy of a long row too */
    assert_string_equal(sq_str(&copy, SQ_NODE_LIST, ""), "n2");
    sq_rows_free(&r);
    free(name);
}

/* Integers: what the controller writes read in one pass and printed as
 * they came (sq_int_text); anything else as strtoll reads it. */
static void test_ints(void **state)
{
    (void)state;
    static const struct { const char *cell; int64_t v; bool canonical; } cases[] = {
        { "0", 0, true }, { "-1", -1, true }, { "4294901759", 4294901759LL, true },
        { "123456789012345678", 123456789012345678LL, true },
        { "1234567890123456789", 1234567890123456789LL, false },   /* 19 digits */
        { "007", 7, false }, { "-0", 0, false }, { "+5", 5, false }, { " 5", 5, false },
        { "5x", 99, false }, { "", 99, false }, { "-", 99, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        signed char col[SQ_NKEYS];
        memset(col, -1, sizeof col);
        col[SQ_JOB_ID] = 0;
        const char *cells[] = { cases[i].cell };
        struct sq_row row = { NULL, cells, col };
        assert_int_equal(sq_int(&row, SQ_JOB_ID, 99), cases[i].v);
        if (cases[i].canonical)
            assert_string_equal(sq_int_text(&row, SQ_JOB_ID), cases[i].cell);
        else
            assert_null(sq_int_text(&row, SQ_JOB_ID));
    }
}

static void test_not_a_table(void **state)
{
    (void)state;
    const char *bad[] = { "", "{\"jobs\": []}", "now\t5" };
    for (size_t i = 0; i < 3; i++) {
        struct sq_rows r;
        char *text = xstrdup(bad[i]);
        assert_int_equal(sq_rows_parse(&r, text, strlen(text)), -1);
        sq_rows_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_long_line),
        cmocka_unit_test(test_not_a_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
