/*
 * array: job arrays' meta jobs, their tasks, and how they are started,
 * stored, shown and cancelled. See array.h for the model.
 */
#include "ctld/array.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/taskset.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/depend.h"
#include "ctld/store.h"
#include "common/slurm_errno.h"

/* A pass gets at most this many entries of one array: enough to fill a big
 * node with small tasks, few enough that a huge array stays cheap to plan. */
#define ARRAY_SNAP_MAX 1024

int array_parse(struct ctld *c, struct job *j, json_t *spec, bool submit, char *err,
                size_t errlen)
{
    j->array_task_id = -1;
    json_t *v = json_object_get(spec, "array");
    if (!v || json_is_null(v))
        return 0;
    int throttle;
    struct taskset *t = json_is_string(v) ? taskset_parse(json_string_value(v), &throttle, err,
                                                          errlen) : NULL;
    if (!t) {
        snprintf(err, errlen, "Invalid job array specification");
        return -1;
    }
    if (submit && taskset_last(t) >= c->conf->max_array_size) {
        taskset_free(t);
        snprintf(err, errlen, "Invalid job array specification");
        return -1;
    }
    struct job_array *a = xcalloc(1, sizeof *a);
    a->pending = t;
    a->throttle = throttle;
    a->count = taskset_count(t);
    a->min = (uint32_t)taskset_first(t);
    a->max = (uint32_t)taskset_last(t);
    a->step = taskset_step(t);
    j->array = a;
    j->array_job_id = j->id;
    return 0;
}

void array_free(struct job_array *a)
{
    if (!a)
        return;
    taskset_free(a->pending);
    free(a);
}

bool array_is_meta(const struct job *j)
{
    return j->array && j->array->pending;
}

/* "4-15%8": the pending tasks as squeue folds them. Caller frees. */
static char *pending_str(const struct job *j)
{
    char *s = taskset_fmt(j->array->pending);
    if (!j->array->throttle)
        return s;
    char *t = xasprintf("%s%%%d", s, j->array->throttle);
    free(s);
    return t;
}

void array_record_add(const struct job *j, json_t *rec)
{
    if (!j->array)
        return;
    json_object_set_new(rec, "array_job_id", json_integer((json_int_t)j->array_job_id));
    if (j->array->pending) {
        char *s = taskset_fmt(j->array->pending);
        json_object_set_new(rec, "array_pending", json_string(s));
        free(s);
        s = pending_str(j);
        json_object_set_new(rec, "array_task_str", json_string(s));
        free(s);
    } else {
        json_object_set_new(rec, "array_task_id", json_integer(j->array_task_id));
    }
}

/* Makes j task `task` of array array_id, with no pending set of its own. */
static void make_task(struct job *j, uint64_t array_id, uint32_t task)
{
    taskset_free(j->array->pending);
    j->array->pending = NULL;
    j->array_job_id = array_id;
    j->array_task_id = task;
}

void array_record_read(struct job *j, json_t *rec)
{
    if (!j->array)
        return;
    json_t *tid = json_object_get(rec, "array_task_id");
    json_t *aid = json_object_get(rec, "array_job_id");
    if (json_is_integer(tid)) {
        make_task(j, json_is_integer(aid) ? (uint64_t)json_integer_value(aid) : j->id,
                  (uint32_t)json_integer_value(tid));
        return;
    }
    const char *pend = json_string_value(json_object_get(rec, "array_pending"));
    int throttle;
    char err[64];
    struct taskset *t = pend ? taskset_parse(pend, &throttle, err, sizeof err) : NULL;
    if (t) {
        taskset_free(j->array->pending);
        j->array->pending = t;
    }
    /* an array whose every waiting task was cancelled by name: none left */
    for (int64_t id; pend && !*pend && (id = taskset_first(j->array->pending)) >= 0;)
        taskset_del(j->array->pending, (uint32_t)id);
}

void array_json_add(const struct job *j, json_t *o)
{
    const struct job_array *a = j->array;
    if (!a)
        return;
    json_object_set_new(o, "array_job_id", json_integer((json_int_t)j->array_job_id));
    if (a->pending) {
        char *s = pending_str(j);
        json_object_set_new(o, "array_task_str", json_string(s));
        free(s);
    } else {
        json_object_set_new(o, "array_task_id", json_integer(j->array_task_id));
    }
    json_object_update_new(o, json_pack("{s:I, s:I, s:I, s:I}", "array_task_count",
                                        (json_int_t)a->count, "array_task_min",
                                        (json_int_t)a->min, "array_task_max",
                                        (json_int_t)a->max, "array_task_step",
                                        (json_int_t)a->step));
}

static size_t running_tasks(const struct ctld *c, uint64_t array_id)
{
    size_t n = 0;
    const struct job *j;
    JOB_FOREACH_FROM(c, j, array_id)
        n += j->array_job_id == array_id && job_holds_alloc(j);
    return n;
}

/* The lowest pending task from `from` on that may start now, or -1: any
 * of them, unless the array waits task by task (aftercorr). */
static int64_t next_ready(const struct ctld *c, const struct job *meta, uint32_t from)
{
    const struct taskset *p = meta->array->pending;
    if (!depend_per_task(meta))
        return taskset_next(p, from);
    for (int64_t id = taskset_next(p, from); id >= 0; id = taskset_next(p, (uint32_t)id + 1))
        if (depend_task_ready(c, meta, (uint32_t)id))
            return id;
    return -1;
}

static size_t ready_tasks(const struct ctld *c, const struct job *meta, size_t max)
{
    if (!depend_per_task(meta))
        return taskset_count(meta->array->pending);
    size_t n = 0;
    for (int64_t id = next_ready(c, meta, 0); id >= 0 && n < max;
         id = next_ready(c, meta, (uint32_t)id + 1))
        n++;
    return n;
}

size_t array_snap_slots(const struct ctld *c, const struct job *j)
{
    if (!array_is_meta(j))
        return 1;
    size_t k = ready_tasks(c, j, ARRAY_SNAP_MAX);
    if (j->array->throttle) {
        size_t run = running_tasks(c, j->id), lim = (size_t)j->array->throttle;
        k = run >= lim ? 0 : (lim - run < k ? lim - run : k);
    }
    return k < ARRAY_SNAP_MAX ? k : ARRAY_SNAP_MAX;
}

/* A new pending job for task `task`, a copy of the meta job, stored and
 * inserted; the task leaves the meta's pending set. */
static struct job *split_off(struct ctld *c, struct job *meta, uint32_t task)
{
    char err[256];
    json_t *rec = job_record(c, meta);
    json_object_del(rec, "array_pending");
    struct job *t = job_from_record(c, rec, c->next_job_id, err, sizeof err);
    json_decref(rec);
    if (!t) {
        log_warnx("array %llu: task %u not split off: %s", (unsigned long long)meta->id, task,
                  err);
        return NULL;
    }
    taskset_del(meta->array->pending, task);
    make_task(t, meta->id, task);
    c->next_job_id++;
    store_set_next_id(c->store, c->next_job_id);
    job_insert(c, t);
    depend_track(c, t);
    job_save(c, meta);
    job_save(c, t);
    return t;
}

/* Task `task` (pending in meta) as a job of its own: split off, or the
 * meta job itself when it is the last. */
static struct job *take_task(struct ctld *c, struct job *meta, uint32_t task)
{
    if (taskset_count(meta->array->pending) > 1)
        return split_off(c, meta, task);
    make_task(meta, meta->id, task);
    job_save(c, meta);
    return meta;
}

bool array_throttled(const struct ctld *c, const struct job *j)
{
    return array_is_meta(j) && j->array->throttle &&
           running_tasks(c, j->id) >= (size_t)j->array->throttle;
}

struct job *array_split(struct ctld *c, struct job *meta)
{
    if (!array_is_meta(meta) || meta->state != JOB_PENDING)
        return NULL;
    if (meta->array->throttle && running_tasks(c, meta->id) >= (size_t)meta->array->throttle)
        return NULL;
    int64_t task = next_ready(c, meta, 0);
    return task < 0 ? NULL : take_task(c, meta, (uint32_t)task);
}

/* ---- cancel ---- */

struct cancel {
    struct ctld *c;
    uid_t by;
    int sig;          /* 0: cancel */
    enum sig_to to;
    size_t hit;       /* jobs or pending tasks named */
    size_t acted;     /* of them, not finished already */
};

static void cancel_job(struct cancel *x, struct job *j)
{
    x->hit++;
    if (job_is_finished(j) || (x->sig && j->state == JOB_PENDING))
        return;
    x->acted++;
    if (j->state == JOB_PENDING) {
        j->cancelled_by = x->by;
        job_end(x->c, j, JOB_CANCELLED, 0, 0, 0);
        return;
    }
    if (!x->sig) {
        j->cancel_sent = true;
        j->cancelled_by = x->by;
    }
    launch_signal(x->c, j, x->sig ? x->sig : SIGTERM, !x->sig, x->to);
}

static void cancel_all(struct cancel *x, uint64_t array_id)
{
    struct job *j;
    JOB_FOREACH_FROM(x->c, j, array_id)   /* cancelling adds no job */
        if (j->array_job_id == array_id)
            cancel_job(x, j);
}

void array_cancel_record(struct ctld *c, struct job *j, uid_t by, int sig, enum sig_to to,
                         size_t *hit, size_t *acted)
{
    struct cancel x = { c, by, sig, to, 0, 0 };
    cancel_job(&x, j);
    *hit = x.hit;
    *acted = x.acted;
}

static struct job *find_task(const struct ctld *c, uint64_t array_id, uint32_t task)
{
    struct job *j;
    JOB_FOREACH_FROM(c, j, array_id) {
        if (j->array_job_id == array_id && !array_is_meta(j) && j->array_task_id == task)
            return j;
    }
    return NULL;
}

/* The tasks of `tasks` still waiting in meta. As in Slurm 22.05 they only
 * leave the waiting set: no record of their own, so squeue, sacct and show
 * job never list them. The last of them ends the meta job. */
static void cancel_waiting(struct cancel *x, struct job *meta, struct taskset *tasks)
{
    struct taskset *pend = meta->array->pending;
    if (meta->state != JOB_PENDING || x->sig) {
        x->hit += taskset_common(tasks, pend);   /* ended already, or a signal to a waiting one */
        return;
    }
    bool all = taskset_covers(tasks, pend);
    size_t gone = 0;
    for (int64_t id = taskset_first(tasks); id >= 0; id = taskset_next(tasks, (uint32_t)id + 1))
        if (taskset_has(pend, (uint32_t)id)) {
            taskset_del(pend, (uint32_t)id);
            gone++;
        }
    x->hit += gone;
    x->acted += gone;
    if (all && gone) {   /* the meta job ends with none waiting: Slurm shows it as "123" */
        x->hit--;
        x->acted--;
        cancel_job(x, meta);
    } else if (gone) {
        job_updated(x->c, meta);
    }
}

/* Each task of `tasks`, split off or still waiting in meta. */
static void cancel_tasks(struct cancel *x, struct job *meta, struct taskset *tasks)
{
    struct job *j;
    JOB_FOREACH_FROM(x->c, j, meta->id) {   /* cancelling split-off tasks adds no job */
        if (j->array_job_id == meta->id && !array_is_meta(j) && j->array_task_id >= 0 &&
            taskset_has(tasks, (uint32_t)j->array_task_id))
            cancel_job(x, j);
    }
    if (array_is_meta(meta))
        cancel_waiting(x, meta, tasks);
}

struct taskset *array_body_tasks(json_t *body, bool *bad)
{
    json_t *v = json_object_get(body, "array_tasks");
    int throttle;
    char err[64];
    *bad = false;
    if (!v)
        return NULL;
    struct taskset *t = json_is_string(v) ? taskset_parse(json_string_value(v), &throttle, err,
                                                          sizeof err) : NULL;
    *bad = !t || throttle;
    if (*bad) {
        taskset_free(t);
        t = NULL;
    }
    return t;
}

bool array_cancel_request(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char *end;
    uint64_t id = strtoull(r->args[0], &end, 10);
    struct job *meta = *end == '\0' ? job_find(c, id) : NULL;
    bool bad;
    struct taskset *tasks = array_body_tasks(r->body, &bad);
    if (!tasks && !bad && (!meta || !meta->array || meta->array_job_id != meta->id))
        return false;   /* a plain job, or one task by its own id */
    struct cancel x = { c, r->who.uid, api_signal_arg(r->body),
                        sig_to_of(r->body), 0, 0 };
    if (bad || !meta || !meta->array || meta->array_job_id != meta->id)
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
    else if (!api_may_act(r, meta))
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
    else if (x.sig < 0)
        http_reply_error(r, 400, SLURM_ERROR, "Invalid signal");
    else {
        if (tasks)
            cancel_tasks(&x, meta, tasks);
        else
            cancel_all(&x, meta->id);
        if (!x.hit)
            http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        else if (!x.acted)
            http_reply_error(r, 400, ESLURM_ALREADY_DONE,
                             "Job/step already completing or completed");
        else
            store_after_commit(c->store, api_reply_after_commit, r);
    }
    taskset_free(tasks);
    return true;
}

/* ---- lookups ---- */

void array_tasks_append(struct ctld *c, const struct job *j, json_t *jobs)
{
    if (!j->array || j->array_job_id != j->id)
        return;
    struct job *t;
    JOB_FOREACH_FROM(c, t, j->id + 1)
        if (t->array_job_id == j->id)
            json_array_append_new(jobs, job_to_json(c, t));
}

const struct job *array_task_job(const struct ctld *c, uint64_t array_id, uint32_t task)
{
    const struct job *j = find_task(c, array_id, task);
    if (j)
        return j;
    const struct job *meta = job_find((struct ctld *)c, array_id);
    if (meta && array_is_meta(meta) && taskset_has(meta->array->pending, task))
        return meta;
    return NULL;
}

void array_summary(const struct ctld *c, uint64_t array_id, struct array_summary *s)
{
    memset(s, 0, sizeof *s);
    const struct job *j;
    JOB_FOREACH_FROM(c, j, array_id) {
        if (j->array_job_id != array_id)
            continue;
        s->found = true;
        if (j->start_time > s->last_start && j->state != JOB_PENDING)
            s->last_start = j->start_time;
        if (j->state == JOB_PENDING)
            s->waiting += array_is_meta(j) ? taskset_count(j->array->pending) : 1;
        else if (job_holds_alloc(j))
            s->running++;
        else if (j->end_assumed)
            s->assumed++;
        else if (j->state != JOB_COMPLETED)
            s->failed++;
    }
}
