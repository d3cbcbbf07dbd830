#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostlist.h"
#include "common/xmalloc.h"

/* Expands expr and checks it against the space-separated names in want. */
static void check_expand(const char *expr, const char *want)
{
    struct hostlist *hl = hostlist_create(expr);
    assert_non_null(hl);
    char *copy = strdup(want), *save = NULL;
    size_t i = 0;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), i++) {
        assert_true(i < hostlist_count(hl));
        assert_string_equal(hostlist_nth(hl, i), w);
    }
    assert_int_equal(hostlist_count(hl), i);
    assert_null(hostlist_nth(hl, i));
    free(copy);
    hostlist_destroy(hl);
}

static void check_ranged(const char *expr, const char *want)
{
    struct hostlist *hl = hostlist_create(expr);
    assert_non_null(hl);
    char *s = hostlist_ranged_string(hl);
    assert_string_equal(s, want);
    free(s);
    hostlist_destroy(hl);
}

static void check_bad(const char *expr)
{
    errno = 0;
    assert_null(hostlist_create(expr));
    assert_int_equal(errno, EINVAL);
}

static void test_plain(void **state)
{
    (void)state;
    check_expand("node1", "node1");
    check_expand("a,b,c", "a b c");
    check_expand("a, b  c", "a b c");
    check_expand("", "");
    check_expand("a,,b,", "a b");
}

static void test_ranges(void **state)
{
    (void)state;
    check_expand("node[1-3]", "node1 node2 node3");
    check_expand("node[01-03,10]", "node01 node02 node03 node10");
    check_expand("node[8-11]", "node8 node9 node10 node11");
    check_expand("node[098-101]", "node098 node099 node100 node101");
    check_expand("n[7]", "n7");
    check_expand("n[007]", "n007");
    check_expand("rack[1-2]-ib", "rack1-ib rack2-ib");
    check_expand("a[1-2],b[3],c", "a1 a2 b3 c");
}

static void test_cartesian(void **state)
{
    (void)state;
    check_expand("gpu-[a-c][1-2]", "gpu-a1 gpu-a2 gpu-b1 gpu-b2 gpu-c1 gpu-c2");
    check_expand("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
    check_expand("[A-B]x", "Ax Bx");
}

static void test_malformed(void **state)
{
    (void)state;
    check_bad("node[1-");
    check_bad("node[3-1]");
    check_bad("a[]");
    check_bad("a[1,]");
    check_bad("a[,1]");
    check_bad("a]");
    check_bad("a[[1]]");
    check_bad("a[1-b]");
    check_bad("a[c-a]");
    check_bad("a[a-C]");
    check_bad("a[1 2]");
    check_bad("a[1-2-3]");
    check_bad("n[0-99999999]");
    check_bad("n[0-999][0-9999]");
    check_bad(NULL);
}

/* Under 2^20 names but past 64 MiB of them: refused before expanding. */
static void test_too_many_bytes(void **state)
{
    (void)state;
    char *word = xmalloc(1001);
    memset(word, 'x', 1000);
    word[1000] = '\0';
    char *expr = xasprintf("%s[0-299][0-299]", word);   /* 90,000 names of 1,006 bytes */
    check_bad(expr);
    free(expr);
    expr = xasprintf("%s[0-9][0-9]", word);   /* 100 of them: fine */
    struct hostlist *hl = hostlist_create(expr);
    assert_non_null(hl);
    assert_int_equal(hostlist_count(hl), 100);
    hostlist_destroy(hl);
    free(expr);
    free(word);
}

static void test_push_find(void **state)
{
    (void)state;
    struct hostlist *hl = hostlist_create("a[1-2]");
    assert_int_equal(hostlist_push(hl, "b,c[5]"), 0);
    assert_int_equal(hostlist_count(hl), 4);
    assert_int_equal(hostlist_find(hl, "c5"), 3);
    assert_int_equal(hostlist_find(hl, "a1"), 0);
    assert_int_equal(hostlist_find(hl, "zz"), -1);
    errno = 0;
    assert_int_equal(hostlist_push(hl, "d1,e[1-"), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(hostlist_count(hl), 4);
    assert_int_equal(hostlist_find(hl, "d1"), -1);
    hostlist_destroy(hl);
    hostlist_destroy(NULL);
    assert_int_equal(hostlist_count(NULL), 0);
    assert_null(hostlist_nth(NULL, 0));
}

static void test_uniq(void **state)
{
    (void)state;
    struct hostlist *hl = hostlist_create("n10,n2,b,n2,a1,n1,n10,a");
    hostlist_uniq(hl);
    const char *want[] = { "a", "a1", "b", "n1", "n2", "n10" };
    assert_int_equal(hostlist_count(hl), 6);
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(hostlist_nth(hl, i), want[i]);
    char *s = hostlist_ranged_string(hl);
    assert_string_equal(s, "a,a1,b,n[1-2,10]");
    free(s);
    hostlist_destroy(hl);
    hostlist_uniq(NULL);
}

static void test_ranged(void **state)
{
    (void)state;
    check_ranged("node1,node2,node3,node5", "node[1-3,5]");
    check_ranged("node1", "node1");
    check_ranged("", "");
    check_ranged("node[01-16,20]", "node[01-16,20]");
    check_ranged("node[8-11]", "node[8-11]");
    check_ranged("node[098-101]", "node[098-101]");
    check_ranged("gpu01,node1,node2", "gpu01,node[1-2]");
    check_ranged("a,b,c", "a,b,c");
    check_ranged("node3,node2,node1", "node[3,2,1]");
    /* Different widths do not share a bracket. */
    check_ranged("node1,node01", "node1,node01");
    check_ranged("node01,node1", "node01,node1");
    /* Only the last numeric run folds. */
    check_ranged("gpu-[a-b][1-2]", "gpu-a[1-2],gpu-b[1-2]");
    check_ranged("r1n1,r1n2,r2n1", "r1n[1-2],r2n1");
    check_ranged("rack[1-2]-ib", "rack1-ib,rack2-ib");
    /* Names not adjacent stay apart, as in Slurm. */
    check_ranged("n1,m1,n2", "n1,m1,n2");
}

/* Every ranged string expands back to the list it came from. */
static void test_roundtrip(void **state)
{
    (void)state;
    const char *exprs[] = {
        "node[01-16,20],gpu[1-3],login", "x[9-10],x[010-011]", "n[0-3,5,7-9]",
        "a1,a3,a2,b,b1",
    };
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        struct hostlist *a = hostlist_create(exprs[i]);
        char *s = hostlist_ranged_string(a);
        struct hostlist *b = hostlist_create(s);
        assert_non_null(b);
        assert_int_equal(hostlist_count(a), hostlist_count(b));
        for (size_t j = 0; j < hostlist_count(a); j++)
            assert_string_equal(hostlist_nth(a, j), hostlist_nth(b, j));
        free(s);
        hostlist_destroy(a);
        hostlist_destroy(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_cartesian),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_too_many_bytes),
        cmocka_unit_test(test_push_find),
        cmocka_unit_test(test_uniq),
        cmocka_unit_test(test_ranged),
        cmocka_unit_test(test_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
