/*
 * pasttime: the time specifications sacct -S/-E and sreport's start=/end=
 * take, read as Slurm's
 * parse_time() reads them with "past" set: a date without a year is this
 * year's, or last year's when its month is still to come; a time of day
 * without a date is today's.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/pasttime.h"

struct tspec {
    int hour, min, sec;    /* hour -1: none given */
    int mon, mday, year;   /* mon -1: none given; year -1: none given (tm_year) */
};

static const struct {
    const char *name;
    int secs;
} delta_units[] = {
    {"seconds", 1}, {"second", 1}, {"minutes", 60}, {"minute", 60}, {"hours", 3600},
    {"hour", 3600}, {"days", 86400}, {"day", 86400}, {"weeks", 604800}, {"week", 604800},
};

/* "+N[unit]" or "-N[unit]" after "now": the signed number of seconds. */
static int parse_delta(const char **p, long *delta)
{
    int sign = **p == '-' ? -1 : 1;
    const char *s = *p + 1;
    long n = 0;
    int digits = 0;
    for (; *s; s++) {
        if (isspace((unsigned char)*s))
            continue;
        if (isdigit((unsigned char)*s)) {
            n = n * 10 + (*s - '0');
            digits++;
            continue;
        }
        size_t i;
        for (i = 0; i < sizeof delta_units / sizeof *delta_units; i++) {
            size_t len = strlen(delta_units[i].name);
            if (!strncasecmp(s, delta_units[i].name, len)) {
                n *= delta_units[i].secs;
                s += len;
                break;
            }
        }
        if (i < sizeof delta_units / sizeof *delta_units)
            break;
        return -1;
    }
    if (!digits)
        return -1;
    *delta = sign * n;
    *p = s;
    return 0;
}

static int two_digits(const char **p, int *v)
{
    if (!isdigit((unsigned char)(*p)[0]))
        return -1;
    *v = (*p)[0] - '0';
    (*p)++;
    if (isdigit((unsigned char)**p)) {
        *v = *v * 10 + (**p - '0');
        (*p)++;
    }
    return 0;
}

/* "HH:MM[:SS] [AM|PM]" */
static int parse_clock(const char **p, struct tspec *t)
{
    int h, m, sec = 0;
    if (two_digits(p, &h) < 0 || h > 23 || **p != ':')
        return -1;
    (*p)++;
    if (!isdigit((unsigned char)(*p)[0]) || !isdigit((unsigned char)(*p)[1]))
        return -1;
    m = ((*p)[0] - '0') * 10 + (*p)[1] - '0';
    *p += 2;
    if (m > 59)
        return -1;
    if (**p == ':') {
        if (!isdigit((unsigned char)(*p)[1]) || !isdigit((unsigned char)(*p)[2]))
            return -1;
        sec = ((*p)[1] - '0') * 10 + (*p)[2] - '0';
        *p += 3;
        if (sec > 59)
            return -1;
    }
    const char *q = *p;
    while (isspace((unsigned char)*q))
        q++;
    if (!strncasecmp(q, "pm", 2)) {
        h = h == 12 ? 12 : h + 12;
        if (h > 23)
            return -1;
        *p = q + 2;
    } else if (!strncasecmp(q, "am", 2)) {
        if (h > 12)
            return -1;
        h = h == 12 ? 0 : h;
        *p = q + 2;
    }
    t->hour = h, t->min = m, t->sec = sec;
    return 0;
}

/* "YYYY-MM-DD", or "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]" */
static int parse_date(const char **p, struct tspec *t)
{
    const char *s = *p;
    int mon, day, yr = -1;
    if (strlen(s) >= 8 && s[4] == '-' && s[7] == '-') {
        for (int i = 0; i < 4; i++)
            if (!isdigit((unsigned char)s[i]))
                return -1;
        yr = atoi(s) - 1900;
        s += 5;
        if (two_digits(&s, &mon) < 0 || *s != '-')
            return -1;
        s++;
        if (two_digits(&s, &day) < 0)
            return -1;
    } else {
        if (two_digits(&s, &mon) < 0)
            return -1;
        if (*s == '.' || *s == '/')
            s++;
        if (two_digits(&s, &day) < 0)
            return -1;
        if (*s == '.' || *s == '/')
            s++;
        if (isdigit((unsigned char)*s)) {
            if (!isdigit((unsigned char)s[1]))
                return -1;
            yr = 100 + (s[0] - '0') * 10 + (s[1] - '0');
            s += 2;
        }
    }
    if (mon < 1 || mon > 12 || day < 1 || day > 31)
        return -1;
    t->mon = mon - 1, t->mday = day;
    if (yr >= 0)
        t->year = yr;
    *p = s;
    return 0;
}

static void set_day(struct tspec *t, time_t when)
{
    struct tm tm;
    localtime_r(&when, &tm);
    t->mon = tm.tm_mon, t->mday = tm.tm_mday, t->year = tm.tm_year;
}

static const struct {
    const char *word;
    int hour;
} clock_words[] = {
    {"midnight", 0}, {"noon", 12}, {"elevenses", 11}, {"fika", 15}, {"teatime", 16},
};

/* One word at p ("today", "noon", "now-1hour"...); 1 taken, 0 none, -1 bad. */
static int parse_word(const char **p, struct tspec *t, time_t now)
{
    if (!strncasecmp(*p, "today", 5)) {
        set_day(t, now);
        *p += 5;
        return 1;
    }
    if (!strncasecmp(*p, "tomorrow", 8)) {
        set_day(t, now + 86400);
        *p += 8;
        return 1;
    }
    for (size_t i = 0; i < sizeof clock_words / sizeof *clock_words; i++) {
        size_t len = strlen(clock_words[i].word);
        if (!strncasecmp(*p, clock_words[i].word, len)) {
            t->hour = clock_words[i].hour, t->min = t->sec = 0;
            *p += len;
            return 1;
        }
    }
    if (strncasecmp(*p, "now", 3))
        return 0;
    const char *s = *p + 3;
    long delta = 0;
    while (isblank((unsigned char)*s))
        s++;
    if ((*s == '+' || *s == '-') && parse_delta(&s, &delta) < 0)
        return -1;
    if (*s && *s != '\n')
        return -1;
    time_t when = now + delta;
    struct tm tm;
    localtime_r(&when, &tm);
    set_day(t, when);
    t->hour = tm.tm_hour, t->min = tm.tm_min, t->sec = tm.tm_sec;
    *p = s;
    return 1;
}

static time_t resolve(struct tspec *t, time_t now)
{
    struct tm nowtm, tm = {0};
    localtime_r(&now, &nowtm);
    if (t->hour < 0)
        t->hour = t->min = t->sec = 0;
    if (t->mon < 0)
        set_day(t, now);
    if (t->year < 0)
        t->year = t->mon > nowtm.tm_mon ? nowtm.tm_year - 1 : nowtm.tm_year;
    tm.tm_sec = t->sec, tm.tm_min = t->min, tm.tm_hour = t->hour;
    tm.tm_mday = t->mday, tm.tm_mon = t->mon, tm.tm_year = t->year;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

int client_parse_past_time(const char *s, time_t now, time_t *out)
{
    if (!strncasecmp(s, "uts", 3)) {
        char *end;
        long v = strtol(s + 3, &end, 10);
        if (v < 1000000 || *end)
            return -1;
        *out = (time_t)v;
        return 0;
    }
    struct tspec t = { -1, 0, 0, -1, 0, -1 };
    const char *p = s;
    while (*p && *p != '\n') {
        if (isblank((unsigned char)*p) || *p == '-' || *p == 'T') {
            p++;
            continue;
        }
        int w = parse_word(&p, &t, now);
        if (w < 0)
            return -1;
        if (w > 0)
            continue;
        if (!isdigit((unsigned char)*p))
            return -1;
        if ((p[1] == ':' || (p[1] && p[2] == ':')) ? parse_clock(&p, &t) : parse_date(&p, &t))
            return -1;
    }
    if (t.hour < 0 && t.mon < 0)
        return -1;   /* Slurm returns 0 (the epoch) for an empty spec; refuse it */
    time_t v = resolve(&t, now);
    if (v == (time_t)-1)
        return -1;
    *out = v;
    return 0;
}
