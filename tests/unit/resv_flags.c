/* resv_flags: scontrol's Flags= words in, Slurm's print order out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/resv_flags.h"

static void test_parse_and_print(void **state)
{
    (void)state;
    uint32_t set, clear;
    int64_t purge = 0;
    const char *bad;
    size_t blen;
    char buf[256];
    assert_int_equal(resv_flags_parse("weekly,ignore_jobs,MAINT,PURGE_COMP=10", &set, &clear,
                                      &purge, &bad, &blen), 0);
    assert_int_equal(clear, 0);
    assert_int_equal(purge, 600);
    resv_flags_str(set | RESV_SPEC_NODES, purge, buf, sizeof buf);
    /* Slurm's order, not the typed one */
    assert_string_equal(buf, "MAINT,IGNORE_JOBS,WEEKLY,SPEC_NODES,PURGE_COMP=00:10:00");
    assert_int_equal(resv_flags_parse("-MAINT,FLEX", &set, &clear, &purge, &bad, &blen), 0);
    assert_int_equal(set, RESV_FLEX);
    assert_int_equal(clear, RESV_MAINT);
    resv_flags_str(0, 0, buf, sizeof buf);
    assert_string_equal(buf, "");
}

static void test_bad_words(void **state)
{
    (void)state;
    uint32_t set, clear;
    int64_t purge = 0;
    const char *bad = NULL;
    size_t blen = 0;
    const char *s = "MAINT,BOGUS,DAILY";
    assert_int_equal(resv_flags_parse(s, &set, &clear, &purge, &bad, &blen), -1);
    assert_ptr_equal(bad, s + 6);
    assert_int_equal(blen, 5);
    /* only PURGE_COMP takes a value */
    assert_int_equal(resv_flags_parse("MAINT=5", &set, &clear, &purge, &bad, &blen), -1);
    assert_int_equal(resv_flags_parse("PURGE_COMP=soon", &set, &clear, &purge, &bad, &blen), -1);
}

static void test_duration(void **state)
{
    (void)state;
    char buf[32];
    resv_duration_str(600, buf, sizeof buf);
    assert_string_equal(buf, "00:10:00");
    resv_duration_str(86400, buf, sizeof buf);
    assert_string_equal(buf, "1-00:00:00");
    resv_duration_str(365 * 86400, buf, sizeof buf);
    assert_string_equal(buf, "365-00:00:00");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_print),
        cmocka_unit_test(test_bad_words),
        cmocka_unit_test(test_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
