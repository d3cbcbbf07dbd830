/*
 * squeue -r: a pending job array is one record in the controller's answer,
 * its waiting tasks in "array_task_str" ("4-15%8", "1,3,5-7", "0-15:4");
 * Slurm's -r prints one line per task, so the record is split here: the
 * record becomes its first task, the others are added at the end (squeue
 * sorts them afterwards).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/squeue.h"
#include "common/xmalloc.h"

struct span {
    long first, last, step;
};

/* One "A", "A-B" or "A-B:S" item; false when it is not one. */
static bool parse_item(const char *item, struct span *sp)
{
    char *end;
    sp->first = strtol(item, &end, 10);
    sp->last = sp->first;
    sp->step = 1;
    if (end == item || sp->first < 0)
        return false;
    if (*end == '-')
        sp->last = strtol(end + 1, &end, 10);
    if (*end == ':')
        sp->step = strtol(end + 1, &end, 10);
    return (!*end || *end == '%') && sp->last >= sp->first && sp->step > 0;
}

static void expand_job(struct sq_rows *jobs, size_t at, const char *tasks)
{
    struct strlist items = {0};
    strlist_split(&items, tasks);
    struct span *sp = xcalloc(items.n + 1, sizeof *sp);
    bool ok = items.n > 0;
    for (size_t i = 0; ok && i < items.n; i++)
        ok = parse_item(items.items[i], &sp[i]);
    /* what Slurm would not send (ok false): the record stays as it came */
    struct sq_row base = jobs->rows[at];
    base.v[SQ_ARRAY_TASK_STR] = NULL;
    for (size_t i = 0, first = 1; ok && i < items.n; i++)
        for (long t = sp[i].first; t <= sp[i].last; t += sp[i].step) {
            char *id = xasprintf("%ld", t);
            if (first) {   /* the record itself becomes the first task */
                jobs->rows[at] = base;
                sq_rows_set(jobs, at, SQ_ARRAY_TASK_ID, id);
                first = 0;
            } else
                sq_rows_add(jobs, &base, SQ_ARRAY_TASK_ID, id);
        }
    free(sp);
    strlist_clear(&items);
}

void squeue_expand_arrays(struct sq_rows *jobs)
{
    for (size_t i = 0, n = jobs->n; i < n; i++) {
        const char *tasks = sq_str(&jobs->rows[i], SQ_ARRAY_TASK_STR, NULL);
        if (tasks && *tasks && sq_int(&jobs->rows[i], SQ_ARRAY_JOB_ID, 0) > 0)
            expand_job(jobs, i, tasks);
    }
}

/* Whether task t is one of the items of a pending record's tasks. */
static bool has_task(const char *tasks, long t)
{
    struct strlist items = {0};
    strlist_split(&items, tasks);
    bool hit = false;
    for (size_t i = 0; !hit && i < items.n; i++) {
        struct span sp;
        hit = parse_item(items.items[i], &sp) && t >= sp.first && t <= sp.last &&
              (t - sp.first) % sp.step == 0;
    }
    strlist_clear(&items);
    return hit;
}

void squeue_jobs(struct sq_rows *jobs, const struct squeue_opts *o)
{
    if (o->array) {
        squeue_expand_arrays(jobs);
        return;
    }
    for (size_t i = 0, n = jobs->n; i < n; i++) {
        const char *tasks = sq_str(&jobs->rows[i], SQ_ARRAY_TASK_STR, "");
        int64_t array = sq_int(&jobs->rows[i], SQ_ARRAY_JOB_ID, 0);
        for (size_t k = 0; *tasks && k < o->jobs.n; k++) {
            uint32_t a, t;
            if (!cmd_parse_task_id(o->jobs.items[k], &a, &t) || a != array || !has_task(tasks, t))
                continue;
            struct sq_row task = jobs->rows[i];
            task.v[SQ_ARRAY_TASK_STR] = NULL;
            sq_rows_add(jobs, &task, SQ_ARRAY_TASK_ID, xasprintf("%u", t));
        }
    }
}
