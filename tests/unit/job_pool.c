/* Unit tests of the controller's job slabs (src/ctld/job_pool.c): every job
 * handed out is zeroed and distinct, a job given back is handed out again,
 * and slabs go back once their jobs are gone, but for one spare. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctld/ctld.h"
#include "ctld/job_pool.h"

static bool zeroed(const struct job *j)
{
    static const struct job zero;
    return memcmp(j, &zero, sizeof zero) == 0;
}

/* 2,000 jobs (several slabs), each written whole, then given back in an
 * order that empties slabs from the middle: the rest keep what was
 * written, and every slab but one goes back at the end. */
static void test_many_in_and_out(void **st)
{
    (void)st;
    enum { N = 2000 };
    struct job **j = calloc(N, sizeof *j);
    for (int i = 0; i < N; i++) {
        j[i] = job_pool_get();
        assert_true(zeroed(j[i]));
        memset(j[i], 0xa5, sizeof *j[i]);
        j[i]->id = (uint64_t)i;
    }
    size_t full = job_pool_slabs();
    assert_true(full >= 2);
    for (int i = 0; i < N; i++)
        for (int k = i + 1; k < N && k < i + 3; k++)
            assert_ptr_not_equal(j[i], j[k]);
    for (int i = N / 4; i < 3 * N / 4; i++) {
        job_pool_put(j[i]);
        j[i] = NULL;
    }
    assert_true(job_pool_slabs() < full);
    for (int i = 0; i < N; i++)
        if (j[i])
            assert_int_equal(j[i]->id, (uint64_t)i);
    /* the room given back is used before any new slab */
    size_t now = job_pool_slabs();
    for (int i = N / 4; i < N / 2; i++) {
        j[i] = job_pool_get();
        assert_true(zeroed(j[i]));
        j[i]->id = (uint64_t)i;
    }
    assert_true(job_pool_slabs() <= now + 1);
    for (int i = 0; i < N; i++)
        job_pool_put(j[i]);
    assert_int_equal(job_pool_slabs(), 1);
    job_pool_put(NULL);
    free(j);
}

/* One job made and destroyed in turn keeps one slab, not a slab each time. */
static void test_churn_keeps_one_slab(void **st)
{
    (void)st;
    for (int i = 0; i < 10000; i++) {
        struct job *j = job_pool_get();
        assert_true(zeroed(j));
        j->id = 1;
        job_pool_put(j);
        assert_int_equal(job_pool_slabs(), 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_in_and_out),
        cmocka_unit_test(test_churn_keeps_one_slab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
