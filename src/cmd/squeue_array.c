/*
 * squeue -r: a pending job array is one record in the controller's answer,
 * its waiting tasks in "array_task_str" ("4-15%8", "1,3,5-7", "0-15:4");
 * Slurm's -r prints one line per task, so the record is split here.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/squeue.h"

static json_t *task_record(const json_t *job, long task)
{
    json_t *t = json_copy((json_t *)job);
    json_object_del(t, "array_task_str");
    json_object_set_new(t, "array_task_id", json_integer(task));
    return t;
}

/* Appends the tasks of one "A", "A-B" or "A-B:S" item; false when it is
 * not one. */
static bool expand_item(json_t *out, const json_t *job, const char *item)
{
    char *end;
    long first = strtol(item, &end, 10), last = first, step = 1;
    if (end == item || first < 0)
        return false;
    if (*end == '-')
        last = strtol(end + 1, &end, 10);
    if (*end == ':')
        step = strtol(end + 1, &end, 10);
    if ((*end && *end != '%') || last < first || step <= 0)
        return false;
    for (long t = first; t <= last; t += step)
        json_array_append_new(out, task_record(job, t));
    return true;
}

static void expand_job(json_t *out, const json_t *job, const char *tasks)
{
    size_t before = json_array_size(out);
    struct strlist items = {0};
    strlist_split(&items, tasks);
    for (size_t i = 0; i < items.n; i++) {
        if (!expand_item(out, job, items.items[i])) {
            /* what Slurm would not send: show the record as it came */
            while (json_array_size(out) > before)
                json_array_remove(out, json_array_size(out) - 1);
            json_array_append(out, (json_t *)job);
            break;
        }
    }
    strlist_clear(&items);
}

json_t *squeue_expand_arrays(const json_t *jobs)
{
    json_t *out = json_array();
    size_t i;
    json_t *job;
    json_array_foreach(jobs, i, job) {
        const char *tasks = jget_str(job, "array_task_str", NULL);
        if (tasks && *tasks && jget_int(job, "array_job_id", 0) > 0)
            expand_job(out, job, tasks);
        else
            json_array_append(out, job);
    }
    return out;
}
