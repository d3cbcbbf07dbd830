/*
 * depend: parsing, settling and showing job dependencies. See depend.h.
 */
#include "ctld/depend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/taskset.h"
#include "common/xmalloc.h"
#include "ctld/array.h"

/* How many waiting tasks of an aftercorr array are looked at to say why the
 * array waits: its reason, not a plan. */
#define CORR_SCAN_MAX 1024

static const struct {
    const char *name;
    enum dep_type type;
} dep_names[] = {
    { "after", DEP_AFTER },           { "afterany", DEP_AFTERANY },
    { "afterok", DEP_AFTEROK },       { "afternotok", DEP_AFTERNOTOK },
    { "aftercorr", DEP_AFTERCORR },   { "singleton", DEP_SINGLETON },
    { "afterburstbuffer", DEP_AFTERANY },   /* no burst buffers: the job's end is the point */
};

static const char *type_name(enum dep_type t)
{
    for (size_t i = 0; i < sizeof dep_names / sizeof *dep_names; i++)
        if (dep_names[i].type == t)
            return dep_names[i].name;
    return "?";
}

static int type_parse(const char *s, size_t n, enum dep_type *t)
{
    for (size_t i = 0; i < sizeof dep_names / sizeof *dep_names; i++)
        if (strlen(dep_names[i].name) == n && strncmp(dep_names[i].name, s, n) == 0) {
            *t = dep_names[i].type;
            return 0;
        }
    return -1;
}

void depend_free(struct job_deps *d)
{
    if (!d)
        return;
    free(d->v);
    free(d);
}

static struct dep *dep_add(struct job_deps *d, enum dep_type t)
{
    d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
    struct dep *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    x->type = t;
    x->task = -1;
    return x;
}

/* "ID[_TASK][+MIN]" of type t. */
static int ref_parse(struct job_deps *d, enum dep_type t, const char *s, size_t n)
{
    char buf[64], *end;
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    struct dep *x = dep_add(d, t);
    x->job_id = strtoull(buf, &end, 10);
    if (end == buf || x->job_id == 0)
        return -1;
    if (*end == '_') {
        char *p = end + 1;
        x->task = strtoll(p, &end, 10);
        if (end == p || x->task < 0 || x->task > TASKSET_ID_MAX)
            return -1;
    }
    if (*end == '+' && t == DEP_AFTER) {
        char *p = end + 1;
        long m = strtol(p, &end, 10);
        if (end == p || m < 0 || m > 525600L * 10)
            return -1;
        x->minutes = (int)m;
    }
    return *end == '\0' ? 0 : -1;
}

/* "TYPE:REF[:REF...]" or "singleton". */
static int item_parse(struct job_deps *d, const char *s, size_t n)
{
    const char *colon = memchr(s, ':', n);
    enum dep_type t;
    if (type_parse(s, colon ? (size_t)(colon - s) : n, &t) < 0)
        return -1;
    if (t == DEP_SINGLETON) {
        if (colon)
            return -1;
        dep_add(d, t);
        return 0;
    }
    if (!colon)
        return -1;
    for (const char *p = colon + 1, *end = s + n; p <= end;) {
        const char *q = memchr(p, ':', (size_t)(end - p));
        size_t len = q ? (size_t)(q - p) : (size_t)(end - p);
        if (ref_parse(d, t, p, len) < 0)
            return -1;
        p += len + 1;
    }
    return 0;
}

static struct job_deps *list_parse(const char *s)
{
    bool and = strchr(s, ',') != NULL, or = strchr(s, '?') != NULL;
    if (!*s || (and && or))
        return NULL;   /* Slurm takes one kind of separator, not both */
    struct job_deps *d = xcalloc(1, sizeof *d);
    d->any = or;
    char sep = or ? '?' : ',';
    for (const char *p = s;;) {
        size_t n = strcspn(p, or ? "?" : ",");
        if (item_parse(d, p, n) < 0) {
            depend_free(d);
            return NULL;
        }
        if (p[n] != sep)
            break;
        p += n + 1;
    }
    return d;
}

/* Whether the job a dependency names is known, and whether it is an array. */
static int resolve(struct ctld *c, const struct job *j, struct dep *x)
{
    if (x->type == DEP_SINGLETON)
        return 0;
    if (x->job_id == j->id)
        return -1;
    if (x->task >= 0)
        return array_task_job(c, x->job_id, (uint32_t)x->task) ? 0 : -1;
    const struct job *t = job_find(c, x->job_id);
    if (!t)
        return -1;
    x->whole_array = t->array && t->array_job_id == t->id;
    return 0;
}

int depend_parse(struct ctld *c, struct job *j, json_t *spec, bool submit, char *err,
                 size_t errlen)
{
    json_t *v = json_object_get(spec, "dependency");
    if (!v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v)))
        return 0;
    struct job_deps *d = json_is_string(v) ? list_parse(json_string_value(v)) : NULL;
    for (size_t i = 0; d && submit && i < d->n; i++)
        if (resolve(c, j, &d->v[i]) < 0) {
            depend_free(d);
            d = NULL;
        }
    if (!d) {
        snprintf(err, errlen, "Job dependency problem");
        return -1;
    }
    json_t *kill = json_object_get(spec, "kill_on_invalid_dep");
    const char *params = c->conf->dependency_params;
    d->kill = kill ? json_is_true(kill) : params && strstr(params, "kill_invalid_depend");
    j->deps = d;
    return 0;
}

void depend_record_add(const struct job *j, json_t *rec)
{
    if (!j->deps)
        return;
    json_t *a = json_array();
    for (size_t i = 0; i < j->deps->n; i++) {
        const struct dep *x = &j->deps->v[i];
        json_array_append_new(a, json_pack("[i, I, b, b]", (int)x->state, (json_int_t)x->met_at,
                                           x->seen_fail, x->whole_array));
    }
    json_object_set_new(rec, "depend_state", a);
}

void depend_record_read(struct ctld *c, struct job *j, json_t *rec)
{
    (void)c;
    json_t *a = json_object_get(rec, "depend_state");
    if (!j->deps || json_array_size(a) != j->deps->n)
        return;   /* settled again after the load: depend_notify(c, NULL) */
    for (size_t i = 0; i < j->deps->n; i++) {
        struct dep *x = &j->deps->v[i];
        int st = 0, seen = 0, whole = 0;
        json_int_t met = 0;
        if (json_unpack(json_array_get(a, i), "[i, I, b, b]", &st, &met, &seen, &whole) < 0 ||
            st < DEP_WAIT || st > DEP_FAILED)
            continue;
        x->state = (enum dep_state)st;
        x->met_at = met;
        x->seen_fail = seen;
        x->whole_array = whole;
    }
}

/* ---- what a job's state means for a dependency on it ---- */

static enum dep_state by_state(enum dep_type t, enum job_state st)
{
    bool ended = st != JOB_PENDING && st != JOB_RUNNING && st != JOB_SUSPENDED;
    switch (t) {
    case DEP_AFTER: return st != JOB_PENDING ? DEP_MET : DEP_WAIT;
    case DEP_AFTERANY: return ended ? DEP_MET : DEP_WAIT;
    case DEP_AFTEROK:
    case DEP_AFTERCORR: return !ended ? DEP_WAIT : st == JOB_COMPLETED ? DEP_MET : DEP_FAILED;
    case DEP_AFTERNOTOK: return !ended ? DEP_WAIT : st == JOB_COMPLETED ? DEP_FAILED : DEP_MET;
    case DEP_SINGLETON: break;
    }
    return DEP_WAIT;
}

/* Whether the dependency asks how the job ended, not only that it did: such
 * a one waits while a NODE_FAIL is only assumed (node_fail_firm.c). */
static bool asks_outcome(enum dep_type t)
{
    return t == DEP_AFTEROK || t == DEP_AFTERNOTOK || t == DEP_AFTERCORR;
}

static enum dep_state by_job(enum dep_type type, const struct job *t)
{
    return t->end_assumed && asks_outcome(type) ? DEP_WAIT : by_state(type, t->state);
}

/* One job, or one task (a task still waiting in its meta job has the meta's
 * state: pending, or cancelled with it). Gone: lifted, as Slurm. */
static void eval_one(struct dep *x, const struct job *t)
{
    if (!t) {
        x->state = DEP_MET;
        return;
    }
    x->state = by_job(x->type, t);
    if (x->state == DEP_MET && x->type == DEP_AFTER)
        x->met_at = (t->start_time ? t->start_time : t->end_time) + (int64_t)x->minutes * 60;
}

static void eval_array(struct ctld *c, struct dep *x)
{
    struct array_summary s;
    array_summary(c, x->job_id, &s);
    if (!s.found) {
        x->state = DEP_MET;
        return;
    }
    x->seen_fail |= s.failed > 0;
    bool active = s.waiting + s.running > 0 || (s.assumed > 0 && asks_outcome(x->type));
    switch (x->type) {
    case DEP_AFTER:
        x->state = s.waiting ? DEP_WAIT : DEP_MET;
        x->met_at = s.last_start + (int64_t)x->minutes * 60;
        break;
    case DEP_AFTERANY: x->state = active ? DEP_WAIT : DEP_MET; break;
    case DEP_AFTEROK:
    case DEP_AFTERCORR:
        x->state = x->seen_fail ? DEP_FAILED : active ? DEP_WAIT : DEP_MET;
        break;
    case DEP_AFTERNOTOK:
        x->state = active ? DEP_WAIT : x->seen_fail ? DEP_MET : DEP_FAILED;
        break;
    case DEP_SINGLETON: break;
    }
}

/* aftercorr of an array on an array: task by task, never settled. */
static bool corr_per_task(const struct job *j, const struct dep *x)
{
    return x->type == DEP_AFTERCORR && x->whole_array && j->array;
}

bool depend_per_task(const struct job *j)
{
    for (size_t i = 0; j->deps && i < j->deps->n; i++)
        if (corr_per_task(j, &j->deps->v[i]))
            return true;
    return false;
}

static enum dep_state corr_task(const struct ctld *c, const struct dep *x, uint32_t task)
{
    const struct job *t = array_task_job(c, x->job_id, task);
    if (!t)
        return DEP_MET;   /* no such task there: nothing to wait for */
    if (array_is_meta(t) && t->state == JOB_PENDING)
        return DEP_WAIT;
    return by_job(DEP_AFTEROK, t);
}

/* A meta job: met when one waiting task may go, failed when none ever can. */
static enum dep_state corr_meta(const struct ctld *c, const struct job *j, const struct dep *x)
{
    const struct taskset *p = j->array->pending;
    bool all_failed = true;
    size_t seen = 0;
    for (int64_t id = taskset_first(p); id >= 0 && seen < CORR_SCAN_MAX;
         id = taskset_next(p, (uint32_t)id + 1), seen++) {
        enum dep_state st = corr_task(c, x, (uint32_t)id);
        if (st == DEP_MET)
            return DEP_MET;
        all_failed &= st == DEP_FAILED;
    }
    return all_failed && seen ? DEP_FAILED : DEP_WAIT;
}

/* Another job of the same user and name runs, or waits with a lower id. */
static bool singleton_blocked(const struct ctld *c, const struct job *j)
{
    const struct job *o;
    JOB_FOREACH(c, o) {
        if (o == j || o->uid != j->uid || strcmp(o->name, j->name) != 0)
            continue;
        if (job_holds_alloc(o) || (o->state == JOB_PENDING && o->id < j->id))
            return true;
    }
    return false;
}

/* The dependency's state now; task >= 0 asks about one task of an array. */
static enum dep_state dep_now(const struct ctld *c, const struct job *j, const struct dep *x,
                              int64_t now, int64_t task)
{
    if (x->type == DEP_SINGLETON)
        return singleton_blocked(c, j) ? DEP_WAIT : DEP_MET;
    if (corr_per_task(j, x)) {
        if (task < 0 && array_is_meta(j))
            return corr_meta(c, j, x);
        return corr_task(c, x, (uint32_t)(task >= 0 ? task : j->array_task_id));
    }
    if (x->state == DEP_MET && x->met_at > now)
        return DEP_WAIT;
    return x->state;
}

static enum sched_reason combine(const struct ctld *c, const struct job *j, int64_t now,
                                 int64_t task)
{
    bool wait = false, failed = false, met = false;
    for (size_t i = 0; i < j->deps->n; i++) {
        enum dep_state st = dep_now(c, j, &j->deps->v[i], now, task);
        met |= st == DEP_MET;
        wait |= st == DEP_WAIT;
        failed |= st == DEP_FAILED;
    }
    if (j->deps->any)
        return met ? SCHED_NONE : wait ? SCHED_DEPENDENCY : SCHED_DEP_NEVER;
    return failed ? SCHED_DEP_NEVER : wait ? SCHED_DEPENDENCY : SCHED_NONE;
}

enum sched_reason depend_reason(const struct ctld *c, const struct job *j, int64_t now)
{
    return j->deps ? combine(c, j, now, -1) : SCHED_NONE;
}

bool depend_task_ready(const struct ctld *c, const struct job *j, uint32_t task)
{
    return !j->deps || combine(c, j, ctld_now(), task) == SCHED_NONE;
}

char *depend_str(const struct ctld *c, const struct job *j, int64_t now)
{
    if (!j->deps)
        return NULL;
    char *out = xstrdup("");
    for (size_t i = 0; i < j->deps->n; i++) {
        const struct dep *x = &j->deps->v[i];
        enum dep_state st = dep_now(c, j, x, now, -1);
        if (st == DEP_MET && j->deps->any) {
            free(out);
            return NULL;   /* one holds: nothing waits any more */
        }
        if (st == DEP_MET)
            continue;
        char ref[96] = "";
        if (x->type != DEP_SINGLETON) {
            int n = snprintf(ref, sizeof ref, ":%llu", (unsigned long long)x->job_id);
            if (x->task >= 0)
                n += snprintf(ref + n, sizeof ref - (size_t)n, "_%lld", (long long)x->task);
            else if (x->whole_array)
                n += snprintf(ref + n, sizeof ref - (size_t)n, "_*");
            if (x->minutes)
                snprintf(ref + n, sizeof ref - (size_t)n, "+%d", x->minutes);
        }
        char *s = xasprintf("%s%s%s%s(%s)", out, *out ? (j->deps->any ? "?" : ",") : "",
                            type_name(x->type), ref, st == DEP_FAILED ? "failed" : "unfulfilled");
        free(out);
        out = s;
    }
    if (!*out) {
        free(out);
        return NULL;
    }
    return out;
}

/* ---- settling ---- */

void depend_track(struct ctld *c, const struct job *j)
{
    if (!j->deps)
        return;
    if (c->ndep_jobs == c->capdep_jobs) {
        c->capdep_jobs = c->capdep_jobs ? c->capdep_jobs * 2 : 64;
        c->dep_jobs = xrealloc(c->dep_jobs, c->capdep_jobs * sizeof *c->dep_jobs);
    }
    c->dep_jobs[c->ndep_jobs++] = j->id;
}

static bool names(const struct dep *x, const struct job *changed)
{
    return !changed || x->job_id == changed->id ||
           (changed->array_job_id && x->job_id == changed->array_job_id);
}

/* Settles j's dependencies on `changed` (NULL: on every job); true when one
 * changed state. */
static bool settle(struct ctld *c, struct job *j, const struct job *changed)
{
    bool moved = false;
    for (size_t i = 0; i < j->deps->n; i++) {
        struct dep *x = &j->deps->v[i];
        if (x->state != DEP_WAIT || x->type == DEP_SINGLETON || corr_per_task(j, x) ||
            !names(x, changed))
            continue;
        if (x->whole_array)
            eval_array(c, x);
        else if (x->task >= 0)
            eval_one(x, array_task_job(c, x->job_id, (uint32_t)x->task));
        else
            eval_one(x, job_find(c, x->job_id));
        moved |= x->state != DEP_WAIT;
    }
    return moved;
}

bool depend_awaits_outcome(struct ctld *c, const struct job *ended)
{
    for (size_t i = 0; i < c->ndep_jobs; i++) {
        const struct job *j = job_find(c, c->dep_jobs[i]);
        for (size_t k = 0; j && j->deps && j->state == JOB_PENDING && k < j->deps->n; k++) {
            const struct dep *x = &j->deps->v[k];
            if (asks_outcome(x->type) && names(x, ended) &&
                (x->state == DEP_WAIT || corr_per_task(j, x)))
                return true;
        }
    }
    return false;
}

static void kill_invalid(struct ctld *c, uint64_t id)
{
    struct job *j = job_find(c, id);
    if (!j || j->state != JOB_PENDING)
        return;
    log_info("job %llu cancelled: its dependency can never be satisfied",
             (unsigned long long)id);
    j->cancelled_by = 0;
    job_end(c, j, JOB_CANCELLED, 0, 0, 0);
}

void depend_notify(struct ctld *c, const struct job *changed)
{
    uint64_t *kill = NULL;
    size_t nkill = 0, keep = 0;
    int64_t now = ctld_now();
    for (size_t i = 0; i < c->ndep_jobs; i++) {
        struct job *j = job_find(c, c->dep_jobs[i]);
        if (!j || j->state != JOB_PENDING || !j->deps)
            continue;   /* dropped from the list */
        c->dep_jobs[keep++] = j->id;
        if (!settle(c, j, changed))
            continue;
        enum sched_reason r = depend_reason(c, j, now);
        if (r != SCHED_DEP_NEVER)
            job_updated(c, j);   /* it may start now, or later than it waited for */
        else
            job_save(c, j);
        if (r == SCHED_DEP_NEVER && j->deps->kill) {
            kill = xrealloc(kill, (nkill + 1) * sizeof *kill);
            kill[nkill++] = j->id;
        }
    }
    c->ndep_jobs = keep;
    /* ending a job settles its own dependents: after the list is whole again */
    for (size_t i = 0; i < nkill; i++)
        kill_invalid(c, kill[i]);
    free(kill);
}

static void depend_submitted(struct ctld *c, struct job *j)
{
    if (!j->deps)
        return;
    depend_track(c, j);
    if (!settle(c, j, NULL))
        return;
    job_save(c, j);
    if (j->deps->kill && depend_reason(c, j, ctld_now()) == SCHED_DEP_NEVER)
        kill_invalid(c, j->id);
}

/* A start or an end settles the dependencies on the job; a submission its own. */
void depend_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    if (ev == JOB_STARTED || ev == JOB_ENDED)
        depend_notify(c, j);
    else if (ev == JOB_SUBMITTED)
        depend_submitted(c, j);
}

bool depend_due(const struct ctld *c, int64_t since, int64_t now)
{
    for (size_t i = 0; i < c->ndep_jobs; i++) {
        const struct job *j = job_find((struct ctld *)c, c->dep_jobs[i]);
        for (size_t k = 0; j && j->deps && j->state == JOB_PENDING && k < j->deps->n; k++) {
            const struct dep *x = &j->deps->v[k];
            if (x->state == DEP_MET && x->met_at > since && x->met_at <= now)
                return true;
        }
    }
    return false;
}

/* ---- scontrol update Dependency= ---- */

/* Whether following from's dependencies reaches job id `to`. */
static bool reaches(struct ctld *c, const struct job_deps *d, uint64_t to, int depth)
{
    for (size_t i = 0; d && depth < 64 && i < d->n; i++) {
        const struct dep *x = &d->v[i];
        if (x->type == DEP_SINGLETON)
            continue;
        if (x->job_id == to)
            return true;
        const struct job *t = job_find(c, x->job_id);
        if (t && t->state == JOB_PENDING && reaches(c, t->deps, to, depth + 1))
            return true;
    }
    return false;
}

int depend_change(struct ctld *c, struct job *j, json_t *spec, char *err, size_t errlen)
{
    struct job probe = { .id = j->id };
    if (depend_parse(c, &probe, spec, true, err, errlen) < 0)
        return -1;
    if (reaches(c, probe.deps, j->id, 0)) {
        depend_free(probe.deps);
        snprintf(err, errlen, "Circular dependency");
        return -1;
    }
    depend_free(j->deps);
    j->deps = probe.deps;
    depend_submitted(c, j);   /* tracked, settled on what is known, maybe ended */
    return 0;
}
