/* Unit tests of the controller's list of jobs holding an allocation
 * (src/ctld/job_holding.c): what sinfo, a node's registration and each
 * scheduler pass walk instead of every pending job. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctld/ctld.h"

static struct job *job(uint64_t id, enum job_state st)
{
    struct job *j = calloc(1, sizeof *j);
    j->id = id;
    j->state = st;
    return j;
}

static void set(struct ctld *c, struct job *j, enum job_state st)
{
    j->state = st;
    job_holding_note(c, j);
}

/* The ids a walk sees, into out; how many. */
static size_t walk(struct ctld *c, uint64_t *out)
{
    size_t n = 0;
    struct job *j;
    JOB_FOREACH_HOLDING(c, j)
        out[n++] = j->id;
    return n;
}

static void test_running_and_suspended_by_id(void **st)
{
    (void)st;
    struct ctld c = {0};
    struct job *js[] = { job(7, JOB_PENDING), job(3, JOB_PENDING), job(9, JOB_PENDING),
                         job(5, JOB_PENDING) };
    for (size_t i = 0; i < 4; i++)
        job_holding_note(&c, js[i]);
    uint64_t ids[8];
    assert_int_equal(walk(&c, ids), 0);   /* pending jobs hold nothing */
    set(&c, js[0], JOB_RUNNING);
    set(&c, js[1], JOB_RUNNING);
    set(&c, js[2], JOB_RUNNING);
    set(&c, js[3], JOB_RUNNING);
    set(&c, js[1], JOB_SUSPENDED);        /* still holds its GPUs and memory */
    set(&c, js[2], JOB_RUNNING);          /* noted twice, listed once */
    assert_int_equal(walk(&c, ids), 4);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 5);
    assert_int_equal(ids[2], 7);
    assert_int_equal(ids[3], 9);
    set(&c, js[3], JOB_COMPLETED);
    set(&c, js[1], JOB_PENDING);          /* requeued */
    assert_int_equal(walk(&c, ids), 2);
    assert_int_equal(ids[0], 7);
    assert_int_equal(ids[1], 9);
    job_holding_clear(&c);
    for (size_t i = 0; i < 4; i++)
        free(js[i]);
}

/* A node going down ends its jobs from inside the walk: none is skipped. */
static void test_walk_survives_ending_jobs(void **st)
{
    (void)st;
    struct ctld c = {0};
    struct job *js[6];
    for (size_t i = 0; i < 6; i++) {
        js[i] = job(10 + i, JOB_PENDING);
        set(&c, js[i], JOB_RUNNING);
    }
    size_t seen = 0;
    struct job *j;
    JOB_FOREACH_HOLDING(&c, j) {
        seen++;
        set(&c, j, JOB_NODE_FAIL);
    }
    assert_int_equal(seen, 6);
    assert_int_equal(c.nholding, 0);
    job_holding_clear(&c);
    for (size_t i = 0; i < 6; i++)
        free(js[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_running_and_suspended_by_id),
        cmocka_unit_test(test_walk_survives_ending_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
