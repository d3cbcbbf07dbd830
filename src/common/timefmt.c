#include "common/timefmt.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Each field of a time limit stays below this, so sums cannot overflow. */
#define FIELD_MAX 1000000000LL

/* Reads an unsigned decimal field; *p advances past it. */
static bool read_field(const char **p, int64_t *v)
{
    const char *s = *p;
    int64_t n = 0;
    if (!isdigit((unsigned char)*s))
        return false;
    for (; isdigit((unsigned char)*s); s++) {
        n = n * 10 + (*s - '0');
        if (n >= FIELD_MAX)
            return false;
    }
    *v = n;
    *p = s;
    return true;
}

/* Splits "a:b:c" into up to three fields; returns how many, -1 if bad. */
static int read_colon_fields(const char *s, int64_t f[3])
{
    int n = 0;
    for (;;) {
        if (n == 3 || !read_field(&s, &f[n]))
            return -1;
        n++;
        if (*s == '\0')
            return n;
        if (*s++ != ':')
            return -1;
    }
}

static bool is_infinite(const char *s)
{
    return strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0 ||
           strcmp(s, "-1") == 0;
}

int timefmt_parse_secs(const char *s, int64_t *out)
{
    int64_t f[3], days = 0, secs;
    if (!s || !*s)
        return -1;
    const char *dash = strchr(s, '-');
    if (dash) {
        const char *p = s;
        if (!read_field(&p, &days) || p != dash)
            return -1;
        int n = read_colon_fields(dash + 1, f);
        if (n < 0)
            return -1;
        /* d-hh, d-hh:mm, d-hh:mm:ss */
        secs = f[0] * 3600 + (n > 1 ? f[1] * 60 : 0) + (n > 2 ? f[2] : 0);
    } else {
        int n = read_colon_fields(s, f);
        if (n < 0)
            return -1;
        /* mm, mm:ss, hh:mm:ss */
        if (n == 1)
            secs = f[0] * 60;
        else if (n == 2)
            secs = f[0] * 60 + f[1];
        else
            secs = f[0] * 3600 + f[1] * 60 + f[2];
    }
    *out = secs + days * 86400;
    return 0;
}

int timefmt_parse_limit(const char *s, int64_t *minutes)
{
    int64_t secs;
    if (s && is_infinite(s)) {
        *minutes = TIME_INFINITE;
        return 0;
    }
    if (timefmt_parse_secs(s, &secs) < 0)
        return -1;
    *minutes = (secs + 59) / 60;
    return 0;
}

void timefmt_elapsed(int64_t secs, char *buf, size_t n)
{
    if (secs < 0) {
        snprintf(buf, n, "INVALID");
        return;
    }
    long long s = secs % 60, m = (secs / 60) % 60, h = (secs / 3600) % 24;
    long long d = secs / 86400;
    if (d > 0)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
    else if (h > 0)
        snprintf(buf, n, "%lld:%02lld:%02lld", h, m, s);
    else
        snprintf(buf, n, "%lld:%02lld", m, s);
}

void timefmt_limit(int64_t minutes, char *buf, size_t n)
{
    if (minutes == TIME_INFINITE)
        snprintf(buf, n, "UNLIMITED");
    else if (minutes > INT64_MAX / 60)
        snprintf(buf, n, "INVALID");
    else
        timefmt_elapsed(minutes * 60, buf, n);
}

/* Multiplier of a size suffix, in KB; 0 when the suffix is unknown. */
static uint64_t suffix_kb(const char *s)
{
    if (s[0] == '\0')
        return 1024;
    if (s[1] != '\0')
        return 0;
    switch (toupper((unsigned char)s[0])) {
    case 'K': return 1;
    case 'M': return 1024;
    case 'G': return 1024 * 1024;
    case 'T': return 1024ULL * 1024 * 1024;
    default:  return 0;
    }
}

int sizefmt_parse_mb(const char *s, uint64_t *mb)
{
    uint64_t num = 0, den = 1;
    bool dot = false, any = false;
    if (!s)
        return -1;
    for (; isdigit((unsigned char)*s) || (*s == '.' && !dot); s++) {
        if (*s == '.') {
            dot = true;
            continue;
        }
        any = true;
        if (__builtin_mul_overflow(num, 10, &num) ||
            __builtin_add_overflow(num, (uint64_t)(*s - '0'), &num))
            return -1;
        if (dot && __builtin_mul_overflow(den, 10, &den))
            return -1;
    }
    uint64_t kb = suffix_kb(s);
    if (!any || kb == 0)
        return -1;
    /* mb = ceil(num / den * kb / 1024) */
    uint64_t top, bottom;
    if (__builtin_mul_overflow(num, kb, &top) ||
        __builtin_mul_overflow(den, 1024, &bottom))
        return -1;
    *mb = top / bottom + (top % bottom != 0);
    return 0;
}

void timefmt_iso(int64_t t, char *buf, size_t n)
{
    struct tm tm;
    time_t tt = (time_t)t;
    if (t == 0 || !localtime_r(&tt, &tm) ||
        strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf(buf, n, "Unknown");
}
