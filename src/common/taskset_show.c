/*
 * taskset_show: an array's waiting tasks as Slurm 22.05's squeue, scontrol
 * and sacct print them, which is not how they are kept (taskset_fmt). Slurm
 * folds the whole set into "a-b:s" only when it holds more than 5 ids over
 * a span of more than 10, evenly spaced ("0-20:4", but "3,5,7,9" and
 * "1,3,5,7,9,11"); otherwise it prints runs of consecutive ids ("1,3,5-7").
 * A list longer than fits Slurm's 64-byte buffer is cut after the last id
 * that leaves room for "...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskset.h"
#include "common/xmalloc.h"

#define SHOW_MAX 63    /* Slurm's buffer less its NUL */
#define SHOW_CUT 60    /* what is kept of a longer list, before "..." */

static bool stepped(const struct taskset *t)
{
    return taskset_count(t) > 5 && taskset_last(t) - taskset_first(t) > 10 &&
           taskset_step(t) > 1;
}

/* The runs of consecutive ids, cut as Slurm cuts them. */
static char *runs(const struct taskset *t)
{
    char *s = xmalloc(SHOW_MAX + 48);
    size_t len = 0, keep = 0;
    s[0] = '\0';
    for (int64_t a = taskset_first(t); a >= 0;) {
        int64_t z = a;
        while (taskset_has(t, (uint32_t)z + 1))
            z++;
        char piece[48];
        int n = z == a ? snprintf(piece, sizeof piece, "%s%lld", len ? "," : "", (long long)a)
                       : snprintf(piece, sizeof piece, "%s%lld-%lld", len ? "," : "",
                                  (long long)a, (long long)z);
        if (len + (size_t)n > SHOW_MAX) {
            strcpy(s + keep, "...");
            return s;
        }
        memcpy(s + len, piece, (size_t)n + 1);
        len += (size_t)n;
        if (len <= SHOW_CUT)
            keep = len;
        a = taskset_next(t, (uint32_t)z + 1);
    }
    return s;
}

char *taskset_show(const char *tasks)
{
    char err[128];
    int throttle = 0;
    struct taskset *t = taskset_parse(tasks, &throttle, err, sizeof err);
    if (!t)
        return xstrdup(tasks);
    char *s = stepped(t) ? xasprintf("%lld-%lld:%u", (long long)taskset_first(t),
                                     (long long)taskset_last(t), taskset_step(t))
                         : runs(t);
    taskset_free(t);
    if (throttle > 0) {
        char *w = xasprintf("%s%%%d", s, throttle);
        free(s);
        s = w;
    }
    return s;
}
