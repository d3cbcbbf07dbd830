/*
 * begintime: see begintime.h. Each form is one small parser; the first that
 * takes the whole text wins.
 */
#include "client/begintime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int64_t local_at(int64_t now, int day_offset, int h, int m, int s)
{
    time_t t = (time_t)now;
    struct tm tm;
    localtime_r(&t, &tm);
    tm.tm_mday += day_offset;
    tm.tm_hour = h;
    tm.tm_min = m;
    tm.tm_sec = s;
    tm.tm_isdst = -1;
    return (int64_t)mktime(&tm);
}

/* "now+90", "now+2hours", "now+1day"... */
static int parse_relative(const char *s, int64_t now, int64_t *out)
{
    static const struct { const char *unit; int64_t secs; } units[] = {
        { "seconds", 1 }, { "minutes", 60 }, { "hours", 3600 }, { "days", 86400 },
        { "weeks", 604800 },
    };
    if (strncasecmp(s, "now", 3) != 0)
        return -1;
    s += 3;
    if (!*s) {
        *out = now;
        return 0;
    }
    if (*s != '+')
        return -1;
    char *end;
    long long n = strtoll(s + 1, &end, 10);
    if (end == s + 1 || n < 0)
        return -1;
    int64_t mult = 1;
    if (*end) {
        size_t len = strlen(end);
        mult = 0;
        for (size_t i = 0; i < sizeof units / sizeof *units && !mult; i++)
            if (len <= strlen(units[i].unit) && strncasecmp(end, units[i].unit, len) == 0)
                mult = units[i].secs;
        if (!mult)
            return -1;
    }
    if (now < 0 || n > (INT64_MAX - now) / mult)
        return -1;   /* past any time there is (and signed overflow) */
    *out = now + n * mult;
    return 0;
}

static int parse_word(const char *s, int64_t now, int64_t *out)
{
    static const struct { const char *word; int day, hour; } words[] = {
        { "midnight", 1, 0 }, { "noon", 0, 12 }, { "fika", 0, 15 }, { "teatime", 0, 16 },
        { "today", 0, 0 }, { "tomorrow", 1, 0 },
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasecmp(s, words[i].word) == 0) {
            int64_t t = local_at(now, words[i].day, words[i].hour, 0, 0);
            if (t < now && words[i].hour)   /* noon, fika, teatime: the next one */
                t = local_at(now, 1, words[i].hour, 0, 0);
            *out = t;
            return 0;
        }
    return -1;
}

/* "16:00", "16:00:30": today, or tomorrow if that has passed. */
static int parse_clock(const char *s, int64_t now, int64_t *out)
{
    int h, m, sec = 0, n = 0;
    if (!(sscanf(s, "%2d:%2d:%2d%n", &h, &m, &sec, &n) == 3 && s[n] == '\0')) {
        n = 0;
        sec = 0;
        if (!(sscanf(s, "%2d:%2d%n", &h, &m, &n) == 2 && s[n] == '\0'))
            return -1;
    }
    if (h > 23 || m > 59 || sec > 59 || h < 0 || m < 0 || sec < 0)
        return -1;
    int64_t t = local_at(now, 0, h, m, sec);
    *out = t < now ? local_at(now, 1, h, m, sec) : t;
    return 0;
}

static int64_t make_date(int y, int mo, int d, int h, int mi, int s)
{
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                     .tm_min = mi, .tm_sec = s, .tm_isdst = -1 };
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59)
        return -1;
    return (int64_t)mktime(&tm);
}

/* "2026-12-24", "2026-12-24T08:00", "2026-12-24T08:00:30". */
static int parse_iso(const char *s, int64_t *out)
{
    int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
    if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
        return -1;
    const char *rest = s + n;
    if (*rest == 'T') {
        int k = 0;
        if (sscanf(rest + 1, "%2d:%2d:%2d%n", &h, &mi, &sec, &k) == 3 && rest[1 + k] == '\0')
            rest = "";
        else if (k = 0, sec = 0, sscanf(rest + 1, "%2d:%2d%n", &h, &mi, &k) == 2 &&
                 rest[1 + k] == '\0')
            rest = "";
        else
            return -1;
    }
    if (*rest)
        return -1;
    int64_t t = make_date(y, mo, d, h, mi, sec);
    if (t < 0)
        return -1;
    *out = t;
    return 0;
}

/* "12/24", "12/24/26": midnight of that day (this year's, or the next). */
static int parse_us_date(const char *s, int64_t now, int64_t *out)
{
    int mo, d, y = -1, n = 0;
    if (sscanf(s, "%2d/%2d/%2d%n", &mo, &d, &y, &n) == 3 && s[n] == '\0')
        y += 2000;
    else if (n = 0, y = -1, !(sscanf(s, "%2d/%2d%n", &mo, &d, &n) == 2 && s[n] == '\0'))
        return -1;
    time_t t = (time_t)now;
    struct tm tm;
    localtime_r(&t, &tm);
    int64_t v = make_date(y > 0 ? y : tm.tm_year + 1900, mo, d, 0, 0, 0);
    if (v >= 0 && y < 0 && v < local_at(now, 0, 0, 0, 0))
        v = make_date(tm.tm_year + 1901, mo, d, 0, 0, 0);
    if (v < 0)
        return -1;
    *out = v;
    return 0;
}

int begintime_parse(const char *s, int64_t now, int64_t *out)
{
    if (!s || !*s)
        return -1;
    if (parse_relative(s, now, out) == 0 || parse_word(s, now, out) == 0 ||
        parse_clock(s, now, out) == 0 || parse_iso(s, out) == 0 ||
        parse_us_date(s, now, out) == 0)
        return 0;
    return -1;
}
