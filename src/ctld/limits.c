/*
 * limits: the table of limits a scheduling pass plans with (limits.h). Each
 * limit a job counts against is found by a key (the QOS and user, the QOS
 * and account, the QOS, an association); the running jobs are counted
 * first, then each pending job gets the indices of its limits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/limits.h"
#include "ctld/limits_int.h"
#include "ctld/prio.h"
#include "ctld/sched_snap.h"

static size_t table_add(struct limit_table *t, enum limit_kind kind, const char *name,
                        const char *holder)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->lim = xrealloc(t->lim, t->cap * sizeof *t->lim);
        t->info = xrealloc(t->info, t->cap * sizeof *t->info);
    }
    struct sched_limit *l = &t->lim[t->n];
    for (int r = 0; r < SCHED_RES_N; r++)
        l->left[r] = l->per_job[r] = -1;
    t->info[t->n] = (struct limit_info){ kind, xstrdup(name), holder ? xstrdup(holder) : NULL,
                                         { 0 }, 0, 0, { 0 } };
    return t->n++;
}

/* The limit the key names, made from obj's settings the first time. */
static size_t table_get(const struct ctld *c, struct limit_table *t, json_t *index,
                        const struct limit_src *src)
{
    char key[512];
    snprintf(key, sizeof key, "%d\x1f%s\x1f%s\x1f%s", (int)src->kind, src->name,
             src->holder ? src->holder : "", src->gpu_type ? src->gpu_type : "");
    json_t *v = json_object_get(index, key);
    if (v)
        return (size_t)json_integer_value(v);
    size_t i = table_add(t, src->kind, src->name, src->holder);
    limits_caps(src, &t->lim[i]);
    memcpy(t->info[i].cap, t->lim[i].left, sizeof t->info[i].cap);
    for (int r = 0; r < SCHED_RES_N; r++)
        if (t->lim[i].per_job[r] >= 0)
            t->info[i].cap[r] = t->lim[i].per_job[r];
    limits_spent(c, src, &t->lim[i], &t->info[i]);
    json_object_set_new(index, key, json_integer((json_int_t)i));
    return i;
}

/* A running job counts what it holds, and the run-minutes left to it. */
static void count_running(const struct ctld *c, struct limit_table *t, size_t i,
                          const struct job *j, int64_t now)
{
    int64_t v[SCHED_RES_N];
    sched_job_amounts(&j->req, v);
    v[SCHED_RES_BILLING] = (int64_t)(usage_job_rate(c, prio_get(c), j) + 0.5);
    if (j->time_limit >= 0) {
        int64_t left = (j->start_time + j->time_limit * 60 - now + 59) / 60;
        left = left > 0 ? left : 0;
        v[SCHED_RES_CPU_MIN] = v[SCHED_RES_CPU] * left;
        v[SCHED_RES_GPU_MIN] = v[SCHED_RES_GPU] * left;
    }
    struct sched_limit *l = &t->lim[i];
    for (int r = 0; r < SCHED_RES_WALL; r++)
        if (l->left[r] >= 0)
            l->left[r] = l->left[r] > v[r] ? l->left[r] - v[r] : 0;
    int64_t end = j->time_limit >= 0 ? j->start_time + j->time_limit * 60 : -1;
    struct limit_info *li = &t->info[i];
    if (end >= 0 && (!li->next_job || end < li->next_end)) {
        li->next_job = j->id;
        li->next_end = end;
    }
}

struct walk {
    const struct ctld *c;
    struct limit_table *t;
    json_t *index;
    const struct job *j;
    bool running;
    int64_t now;
};

static void on_limit(const struct limit_src *src, void *arg)
{
    struct walk *w = arg;
    size_t i = table_get(w->c, w->t, w->index, src);
    if (w->running) {
        count_running(w->c, w->t, i, w->j, w->now);
        return;
    }
    struct limit_table *t = w->t;
    if (t->npool == t->cappool) {
        t->cappool = t->cappool ? t->cappool * 2 : 64;
        t->pool = xrealloc(t->pool, t->cappool * sizeof *t->pool);
    }
    t->pool[t->npool++] = (uint32_t)i;
}

void limits_snap(const struct ctld *c, struct sched_snap *s)
{
    if (!(c->conf->acct_enforce & (ENFORCE_LIMITS | ENFORCE_SAFE)))
        return;
    struct limit_table *t = &s->limits;
    struct walk w = { c, t, json_object(), NULL, true, s->now };
    usage_update(c, prio_get(c), s->now);   /* what groups spent, for GrpTRESMins/GrpWall */
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j) {   /* a suspended job keeps its GPUs */
        w.j = j;
        limits_of_job(c, j, on_limit, &w);
    }
    w.running = false;
    size_t *start = xcalloc(s->in.npending + 1, sizeof *start);
    struct sched_job *pend = (struct sched_job *)s->in.pending;
    for (size_t k = 0; k < s->in.npending; k++) {
        start[k] = t->npool;
        w.j = job_find((struct ctld *)c, s->metas[k] ? s->metas[k] : pend[k].job_id);
        if (!w.j)
            continue;
        limits_of_job(c, w.j, on_limit, &w);
        if (t->npool > start[k])
            pend[k].billing = usage_req_billing(c, w.j);
    }
    start[s->in.npending] = t->npool;
    for (size_t k = 0; k < s->in.npending; k++) {
        pend[k].limits = t->pool + start[k];
        pend[k].nlimits = start[k + 1] - start[k];
    }
    free(start);
    json_decref(w.index);
    s->in.limits = t->lim;
    s->in.nlimits = t->n;
}

void limits_table_free(struct limit_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->info[i].name);
        free(t->info[i].holder);
    }
    free(t->lim);
    free(t->info);
    free(t->pool);
    memset(t, 0, sizeof *t);
}
