#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/timefmt.h"

static void check_limit(const char *s, int64_t want)
{
    int64_t m = -12345;
    if (timefmt_parse_limit(s, &m) != 0)
        fail_msg("'%s' did not parse", s);
    if (m != want)
        fail_msg("'%s': got %lld minutes, want %lld", s, (long long)m, (long long)want);
}

static void check_limit_bad(const char *s)
{
    int64_t m = 777;
    if (timefmt_parse_limit(s, &m) != -1)
        fail_msg("'%s' parsed", s ? s : "(null)");
    assert_int_equal(m, 777);
}

static void test_parse_limit(void **state)
{
    (void)state;
    check_limit("0", 0);
    check_limit("10", 10);
    check_limit("10:30", 11);
    check_limit("10:00", 10);
    check_limit("0:01", 1);
    check_limit("1:00:00", 60);
    check_limit("2:03:04", 124);
    check_limit("2-0", 2880);
    check_limit("2-1:30", 2970);
    check_limit("1-00:00:01", 1441);
    check_limit("1-02:03:04", 1440 + 120 + 4);
    check_limit("90", 90);
    check_limit("UNLIMITED", TIME_INFINITE);
    check_limit("unlimited", TIME_INFINITE);
    check_limit("INFINITE", TIME_INFINITE);
    check_limit("-1", TIME_INFINITE);
}

static void test_parse_limit_bad(void **state)
{
    (void)state;
    check_limit_bad("abc");
    check_limit_bad("1:xx");
    check_limit_bad("");
    check_limit_bad(NULL);
    check_limit_bad("1:2:3:4");
    check_limit_bad("1-2:3:4:5");
    check_limit_bad("1-");
    check_limit_bad("-5");
    check_limit_bad("1--2");
    check_limit_bad("1-2-3");
    check_limit_bad("1:");
    check_limit_bad(":1");
    check_limit_bad("10 ");
    check_limit_bad("99999999999999");
}

static void check_elapsed(int64_t secs, const char *want)
{
    char buf[32];
    timefmt_elapsed(secs, buf, sizeof buf);
    assert_string_equal(buf, want);
}

static void test_elapsed(void **state)
{
    (void)state;
    check_elapsed(0, "0:00");
    check_elapsed(307, "5:07");
    check_elapsed(3599, "59:59");
    check_elapsed(3600, "1:00:00");
    check_elapsed(2 * 3600 + 3 * 60 + 4, "2:03:04");
    check_elapsed(86400, "1-00:00:00");
    check_elapsed(86400 + 2 * 3600 + 3 * 60 + 4, "1-02:03:04");
    check_elapsed(12 * 86400, "12-00:00:00");
    check_elapsed(-1, "INVALID");

    char small[4];
    timefmt_elapsed(86400, small, sizeof small);
    assert_string_equal(small, "1-0");
}

static void test_limit(void **state)
{
    (void)state;
    char buf[32];
    timefmt_limit(TIME_INFINITE, buf, sizeof buf);
    assert_string_equal(buf, "UNLIMITED");
    timefmt_limit(0, buf, sizeof buf);
    assert_string_equal(buf, "0:00");
    timefmt_limit(30, buf, sizeof buf);
    assert_string_equal(buf, "30:00");
    timefmt_limit(60, buf, sizeof buf);
    assert_string_equal(buf, "1:00:00");
    timefmt_limit(2970, buf, sizeof buf);
    assert_string_equal(buf, "2-01:30:00");
    timefmt_limit(-5, buf, sizeof buf);
    assert_string_equal(buf, "INVALID");
    timefmt_limit(INT64_MAX, buf, sizeof buf);
    assert_string_equal(buf, "INVALID");
}

static void check_size(const char *s, uint64_t want)
{
    uint64_t mb = 999999;
    if (sizefmt_parse_mb(s, &mb) != 0)
        fail_msg("'%s' did not parse", s);
    if (mb != want)
        fail_msg("'%s': got %llu MB, want %llu", s, (unsigned long long)mb,
                 (unsigned long long)want);
}

static void check_size_bad(const char *s)
{
    uint64_t mb = 42;
    if (sizefmt_parse_mb(s, &mb) != -1)
        fail_msg("'%s' parsed", s ? s : "(null)");
    assert_int_equal(mb, 42);
}

static void test_size(void **state)
{
    (void)state;
    check_size("0", 0);
    check_size("100", 100);
    check_size("100M", 100);
    check_size("100m", 100);
    check_size("4G", 4096);
    check_size("4g", 4096);
    check_size("1T", 1024 * 1024);
    check_size("1024K", 1);
    check_size("1025K", 2);
    check_size("1k", 1);
    check_size("0K", 0);
    check_size("1.5G", 1536);
    check_size("0.5", 1);
    check_size("2.25g", 2304);
    check_size("1.", 1);
}

static void test_size_bad(void **state)
{
    (void)state;
    check_size_bad("");
    check_size_bad(NULL);
    check_size_bad("abc");
    check_size_bad("G");
    check_size_bad("10X");
    check_size_bad("10GB");
    check_size_bad("-1");
    check_size_bad("1.2.3");
    check_size_bad(".");
    check_size_bad("10 ");
    check_size_bad("99999999999999999999");
    check_size_bad("99999999999999T");
}

static void test_iso(void **state)
{
    (void)state;
    char buf[32], want[32];
    timefmt_iso(0, buf, sizeof buf);
    assert_string_equal(buf, "Unknown");

    setenv("TZ", "UTC", 1);
    tzset();
    timefmt_iso(1796236200, buf, sizeof buf);
    assert_string_equal(buf, "2026-12-02T18:30:00");

    /* Local time, whatever the zone. */
    setenv("TZ", "Europe/Paris", 1);
    tzset();
    time_t t = 1796236200;
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%S", &tm);
    timefmt_iso(1796236200, buf, sizeof buf);
    assert_string_equal(buf, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_limit),
        cmocka_unit_test(test_parse_limit_bad),
        cmocka_unit_test(test_elapsed),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_size_bad),
        cmocka_unit_test(test_iso),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
