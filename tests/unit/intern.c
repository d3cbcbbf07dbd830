/* Unit tests of the controller's interned strings (src/ctld/intern.c): one
 * copy per distinct string, counted, freed with its last holder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctld/intern.h"

static void test_one_copy_counted(void **st)
{
    (void)st;
    char a[] = "alice", b[] = "alice";
    const char *x = intern(a), *y = intern(b);
    assert_ptr_equal(x, y);                /* two jobs of alice: one string */
    assert_ptr_not_equal(x, a);
    assert_string_equal(x, "alice");
    assert_int_equal(intern_count(), 1);
    assert_null(intern(NULL));
    intern_release(x);
    assert_int_equal(intern_count(), 1);   /* the other job still holds it */
    assert_string_equal(y, "alice");
    intern_release(y);
    intern_release(NULL);
    assert_int_equal(intern_count(), 0);
}

/* Thousands of names in and half of them out, in an order that makes the
 * table grow and then close the gaps deletions leave in probe runs: every
 * name left is still found as the same copy. */
static void test_many_in_and_out(void **st)
{
    (void)st;
    enum { N = 3000 };
    const char **held = calloc(N, sizeof *held);
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "user%d", i);
        held[i] = intern(name);
    }
    assert_int_equal(intern_count(), N);
    for (int i = 0; i < N; i += 2)
        intern_release(held[i]);
    assert_int_equal(intern_count(), N / 2);
    for (int i = 1; i < N; i += 2) {
        snprintf(name, sizeof name, "user%d", i);
        const char *again = intern(name);
        assert_ptr_equal(again, held[i]);
        intern_release(again);
    }
    for (int i = 0; i < N; i += 2) {        /* the released ones come back new */
        snprintf(name, sizeof name, "user%d", i);
        held[i] = intern(name);
        assert_string_equal(held[i], name);
    }
    assert_int_equal(intern_count(), N);
    for (int i = 0; i < N; i++)
        intern_release(held[i]);
    assert_int_equal(intern_count(), 0);
    free(held);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_copy_counted),
        cmocka_unit_test(test_many_in_and_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
