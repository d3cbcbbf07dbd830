/* Unit tests of Slurm's --begin / StartTime= time forms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "client/begintime.h"

static int64_t at(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                     .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
    return (int64_t)mktime(&tm);
}

static int64_t parse(const char *s, int64_t now)
{
    int64_t t = -1;
    assert_int_equal(begintime_parse(s, now, &t), 0);
    return t;
}

static void test_relative(void **state)
{
    (void)state;
    int64_t now = at(2026, 6, 1, 10, 0, 0);
    assert_int_equal(parse("now", now), now);
    assert_int_equal(parse("now+3", now), now + 3);
    assert_int_equal(parse("now+90seconds", now), now + 90);
    assert_int_equal(parse("now+2min", now), now + 120);
    assert_int_equal(parse("now+1hour", now), now + 3600);
    assert_int_equal(parse("now+1hours", now), now + 3600);
    assert_int_equal(parse("NOW+2days", now), now + 2 * 86400);
    assert_int_equal(parse("now+1week", now), now + 604800);
    int64_t t;   /* past any time there is: refused, not wrapped */
    assert_int_equal(begintime_parse("now+9223372036854775807", now, &t), -1);
    assert_int_equal(begintime_parse("now+99999999999999999weeks", now, &t), -1);
}

static void test_clock_and_words(void **state)
{
    (void)state;
    int64_t now = at(2026, 6, 1, 10, 0, 0);
    assert_int_equal(parse("16:00", now), at(2026, 6, 1, 16, 0, 0));
    assert_int_equal(parse("16:00:30", now), at(2026, 6, 1, 16, 0, 30));
    assert_int_equal(parse("09:00", now), at(2026, 6, 2, 9, 0, 0));   /* passed: tomorrow */
    assert_int_equal(parse("midnight", now), at(2026, 6, 2, 0, 0, 0));
    assert_int_equal(parse("noon", now), at(2026, 6, 1, 12, 0, 0));
    assert_int_equal(parse("teatime", now), at(2026, 6, 1, 16, 0, 0));
    assert_int_equal(parse("tomorrow", now), at(2026, 6, 2, 0, 0, 0));
}

static void test_dates(void **state)
{
    (void)state;
    int64_t now = at(2026, 6, 1, 10, 0, 0);
    assert_int_equal(parse("2026-12-24T08:00", now), at(2026, 12, 24, 8, 0, 0));
    assert_int_equal(parse("2026-12-24T08:00:05", now), at(2026, 12, 24, 8, 0, 5));
    assert_int_equal(parse("2026-12-24", now), at(2026, 12, 24, 0, 0, 0));
    assert_int_equal(parse("12/24", now), at(2026, 12, 24, 0, 0, 0));
    assert_int_equal(parse("01/02", now), at(2027, 1, 2, 0, 0, 0));
    assert_int_equal(parse("12/24/27", now), at(2027, 12, 24, 0, 0, 0));
}

static void test_bad(void **state)
{
    (void)state;
    int64_t t;
    const char *bad[] = { "", "soon", "now-5", "now+", "now+3x", "25:00", "2026-13-01",
                          "2026-12-24T", "2026-12-24T08", "12/24/", "16:00pm" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(begintime_parse(bad[i], 0, &t), -1);
    assert_int_equal(begintime_parse(NULL, 0, &t), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative),
        cmocka_unit_test(test_clock_and_words),
        cmocka_unit_test(test_dates),
        cmocka_unit_test(test_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
