#include "common/resv_flags.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"

static const struct {
    const char *word;
    uint32_t flag;
} flag_words[] = {
    { "MAINT", RESV_MAINT },           { "FLEX", RESV_FLEX },
    { "OVERLAP", RESV_OVERLAP },       { "IGNORE_JOBS", RESV_IGNORE_JOBS },
    { "HOURLY", RESV_HOURLY },         { "DAILY", RESV_DAILY },
    { "WEEKDAY", RESV_WEEKDAY },       { "WEEKEND", RESV_WEEKEND },
    { "WEEKLY", RESV_WEEKLY },         { "SPEC_NODES", RESV_SPEC_NODES },
    { "ALL_NODES", RESV_ALL_NODES },   { "ANY_NODES", RESV_ANY_NODES },
    { "PURGE_COMP", RESV_PURGE_COMP }, { "NO_HOLD_JOBS_AFTER_END", RESV_NO_HOLD_JOBS_AFTER },
};
#define NWORDS (sizeof flag_words / sizeof *flag_words)

/* One word of the list, n bytes long; false when it is not a flag. */
static bool one_flag(const char *w, size_t n, uint32_t *set, uint32_t *clear, int64_t *purge_s)
{
    bool minus = n > 0 && *w == '-';
    if (minus) {
        w++;
        n--;
    }
    const char *eq = memchr(w, '=', n);
    size_t klen = eq ? (size_t)(eq - w) : n;
    /* Slurm takes NO_HOLD_JOBS_AFTER for NO_HOLD_JOBS_AFTER_END */
    if (klen == 18 && !strncasecmp(w, "NO_HOLD_JOBS_AFTER", 18))
        klen = 22, w = "NO_HOLD_JOBS_AFTER_END";
    for (size_t i = 0; i < NWORDS; i++) {
        if (strlen(flag_words[i].word) != klen || strncasecmp(w, flag_words[i].word, klen))
            continue;
        if (eq && flag_words[i].flag != RESV_PURGE_COMP)
            return false;
        if (eq) {
            char t[32];
            int64_t min;
            snprintf(t, sizeof t, "%.*s", (int)(n - klen - 1), eq + 1);
            if (timefmt_parse_limit(t, &min) < 0 || min < 0)
                return false;
            *purge_s = min * 60;
        }
        *(minus ? clear : set) |= flag_words[i].flag;
        return true;
    }
    return false;
}

int resv_flags_parse(const char *s, uint32_t *set, uint32_t *clear, int64_t *purge_s,
                     const char **bad, size_t *badlen)
{
    *set = *clear = 0;
    while (s && *s) {
        size_t n = strcspn(s, ",");
        if (n && !one_flag(s, n, set, clear, purge_s)) {
            *bad = s;
            *badlen = n;
            return -1;
        }
        s += n;
        if (*s == ',')
            s++;
    }
    return 0;
}

void resv_duration_str(int64_t s, char *buf, size_t len)
{
    if (s >= 86400)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60), (long long)(s % 60));
    else
        snprintf(buf, len, "%02lld:%02lld:%02lld", (long long)(s / 3600),
                 (long long)(s % 3600 / 60), (long long)(s % 60));
}

void resv_flags_str(uint32_t flags, int64_t purge_s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NWORDS && at < len; i++) {
        if (!(flags & flag_words[i].flag))
            continue;
        at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "", flag_words[i].word);
        if (flag_words[i].flag == RESV_PURGE_COMP && purge_s > 0 && at < len) {
            char t[32];
            resv_duration_str(purge_s, t, sizeof t);
            at += (size_t)snprintf(buf + at, len - at, "=%s", t);
        }
    }
}
