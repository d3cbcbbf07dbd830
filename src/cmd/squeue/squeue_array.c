/*
 * squeue -r: a pending job array is one record in the controller's answer,
 * its waiting tasks in "array_task_str" ("4-15%8", "1,3,5-7", "0-15:4");
 * Slurm's -r prints one line per task, so the record is split here: the
 * record becomes its first task, the others are added at the end (squeue
 * sorts them afterwards).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cmd/squeue/squeue.h"
#include "common/taskset.h"
#include "common/xmalloc.h"

/* Row as task t of its array, a row of its own: its id, no pending set. */
static struct sq_row task_row(struct sq_rows *jobs, const struct sq_row *row, int64_t t)
{
    struct sq_row task = sq_rows_copy(jobs, row);
    char *id = xasprintf("%lld", (long long)t);
    sq_rows_own(jobs, id);
    sq_row_put(&task, SQ_ARRAY_TASK_STR, NULL);
    sq_row_put(&task, SQ_ARRAY_TASK_ID, id);
    return task;
}

static void expand_job(struct sq_rows *jobs, size_t at, const char *tasks)
{
    char err[128];
    int throttle;
    struct taskset *set = taskset_parse(tasks, &throttle, err, sizeof err);
    /* what Slurm would not send (set NULL): the record stays as it came */
    if (!set)
        return;
    const struct sq_row record = jobs->rows[at];
    int64_t first = taskset_first(set);
    /* the record itself becomes the first task, the others go at the end */
    jobs->rows[at] = task_row(jobs, &record, first);
    for (int64_t t = taskset_next(set, (uint32_t)first + 1); t >= 0;
         t = taskset_next(set, (uint32_t)t + 1))
        sq_rows_append(jobs, task_row(jobs, &record, t));
    taskset_free(set);
}

void squeue_expand_arrays(struct sq_rows *jobs)
{
    for (size_t i = 0, n = jobs->n; i < n; i++) {
        const char *tasks = sq_str(&jobs->rows[i], SQ_ARRAY_TASK_STR, NULL);
        if (tasks && *tasks && sq_int(&jobs->rows[i], SQ_ARRAY_JOB_ID, 0) > 0)
            expand_job(jobs, i, tasks);
    }
}

/* Whether task t is one of a pending record's tasks ("4-15%8"). */
static bool has_task(const char *tasks, uint32_t t)
{
    char err[128];
    int throttle;
    struct taskset *set = taskset_parse(tasks, &throttle, err, sizeof err);
    bool hit = set && taskset_has(set, t);
    taskset_free(set);
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
            sq_rows_append(jobs, task_row(jobs, &jobs->rows[i], t));
        }
    }
}
