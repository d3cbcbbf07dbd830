/*
 * features: matching a job's -C/--constraint against a node's Features.
 * Slurm's simple forms: "a&b" (and the older "a,b") need every feature,
 * "a|b" either; AND binds tighter than OR. Brackets and counts ("[a|b]",
 * "a*2") are not supported: such a constraint matches no node.
 */
#include <string.h>
#include <strings.h>

#include "sched/sched.h"

static bool has_feature(const char *features, const char *f, size_t flen)
{
    const char *p = features;

    while (p && *p) {
        size_t n = strcspn(p, ",");
        if (n == flen && strncasecmp(p, f, flen) == 0)
            return true;
        p += n;
        if (*p == ',')
            p++;
    }
    return false;
}

/* One alternative: every '&'/','-separated feature in [s, end). */
static bool all_of(const char *features, const char *s, const char *end)
{
    while (s < end) {
        size_t n = strcspn(s, "&,|");
        if (s + n > end)
            n = (size_t)(end - s);
        if (n > 0 && !has_feature(features, s, n))
            return false;
        s += n;
        if (s < end)
            s++;
    }
    return true;
}

bool sched_features_match(const char *features, const char *constraint)
{
    const char *s = constraint;

    if (!s || !*s)
        return true;
    if (strpbrk(s, "[]*()!"))
        return false;
    for (;;) {
        const char *bar = strchr(s, '|');
        const char *end = bar ? bar : s + strlen(s);
        if (all_of(features, s, end))
            return true;
        if (!bar)
            return false;
        s = bar + 1;
    }
}
