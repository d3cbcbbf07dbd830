/*
 * sched_snap: a copy of everything one scheduling pass reads, owned by the
 * pass. The pass runs on its own thread (sched_worker.c) while the event loop
 * goes on changing jobs: a job may end, be cancelled, re-specified or purged
 * meanwhile, so nothing in the snapshot may point into a job. Node names,
 * types and features point into the configuration, which lives as long as
 * the process and is never reshaped.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/resv.h"
#include "ctld/sched_snap.h"
#include "ctld/suspend.h"

/* The copies of the pending jobs' lists and strings: a few blocks instead
 * of one allocation per job. */
struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    max_align_t data[];
};

#define ARENA_BLOCK (64 * 1024)

static void *arena_dup(struct arena_block **head, const void *p, size_t n)
{
    if (!p)
        return NULL;
    size_t need = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    struct arena_block *b = *head;
    if (!b || b->cap - b->used < need) {
        size_t cap = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        b = xmalloc(sizeof *b + cap);
        b->next = *head;
        b->used = 0;
        b->cap = cap;
        *head = b;
    }
    char *dst = (char *)b->data + b->used;
    memcpy(dst, p, n);
    b->used += need;
    return dst;
}

static const char *arena_str(struct arena_block **head, const char *s)
{
    return s ? arena_dup(head, s, strlen(s) + 1) : NULL;
}

static void copy_job(struct sched_snap *s, const struct ctld *c, struct sched_job *dst,
                     const struct job *j)
{
    *dst = j->req;
    if (c->policy == SCHED_POLICY_HERD && c->pred) {
        int64_t limit_s = j->req.time_limit_min > 0 ? j->req.time_limit_min * 60 : 0;
        int64_t since = j->begin_time > j->submit_time ? j->begin_time : j->submit_time;
        dst->predict_s = sched_predict_job(c->pred, (uint64_t)j->uid, limit_s, limit_s, NULL);
        dst->waited_s = since > 0 && s->now > since ? s->now - since : 0;
    }
    dst->req_nodes = arena_dup(&s->arena, j->req.req_nodes, j->req.nreq_nodes * sizeof(size_t));
    dst->excl_nodes = arena_dup(&s->arena, j->req.excl_nodes,
                                j->req.nexcl_nodes * sizeof(size_t));
    dst->gpu_type = arena_str(&s->arena, j->req.gpu_type);
    dst->constraint = arena_str(&s->arena, j->req.constraint);
}

static void copy_running(struct sched_snap *s, const struct ctld *c)
{
    size_t nrun = 0, nallocs = 0;
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        nrun++;
        nallocs += j->nallocs;
    }
    struct sched_running *run = xcalloc(nrun ? nrun : 1, sizeof *run);
    s->allocs = xcalloc(nallocs ? nallocs : 1, sizeof *s->allocs);
    size_t r = 0, a = 0;
    JOB_FOREACH_HOLDING(c, j) {
        memcpy(s->allocs + a, j->allocs, j->nallocs * sizeof *s->allocs);
        run[r] = (struct sched_running){
            .job_id = j->id, .allocs = s->allocs + a, .nallocs = j->nallocs,
            .exclusive = j->req.exclusive,
            .end_time = suspend_end_time(j, s->now),
            .start_time = j->start_time };
        suspend_snap_mark(c, j, &run[r++]);
        a += j->nallocs;
    }
    s->in.running = run;
    s->in.nrunning = nrun;
}

/* Ids of the entries that stand for an array's next tasks: above any real
 * job id, distinct per entry. */
#define SNAP_TASK_ID_BASE (1ULL << 62)

/* The pending jobs the pass may start, in priority order, each with the
 * spec generation it was planned on. A job array's meta job comes as many
 * entries as tasks it may start now (array.c), so one pass starts many. */
static void copy_pending(struct sched_snap *s, const struct ctld *c)
{
    /* not calloc: zeroing a slot per job (held ones too) kept a page per
     * 28 jobs resident after the pass */
    struct sched_job *pend = xmalloc((c->njobs ? c->njobs : 1) * sizeof *pend);
    size_t n = 0, total = 0;
    const struct job *j;
    JOB_FOREACH(c, j) {
        if (j->state == JOB_PENDING && job_wait_reason(c, j, s->now) == SCHED_NONE)
            pend[n++] = j->req;   /* shallow until sorted */
    }
    prio_sort_pending(c, pend, n);
    size_t *slots = xcalloc(n ? n : 1, sizeof *slots);
    for (size_t i = 0; i < n; i++)
        total += slots[i] = array_snap_slots(c, job_find((struct ctld *)c, pend[i].job_id));
    struct sched_job *out = xcalloc(total ? total : 1, sizeof *out);
    s->gens = xcalloc(total ? total : 1, sizeof *s->gens);
    s->metas = xcalloc(total ? total : 1, sizeof *s->metas);
    for (size_t i = 0, k = 0; i < n; i++) {
        const struct job *j = job_find((struct ctld *)c, pend[i].job_id);
        for (size_t e = 0; e < slots[i]; e++, k++) {
            s->gens[k] = j->spec_gen;
            copy_job(s, c, &out[k], j);
            if (array_is_meta(j)) {
                s->metas[k] = j->id;
                out[k].job_id = SNAP_TASK_ID_BASE + k;
            }
        }
    }
    free(slots);
    free(pend);
    s->in.pending = out;
    s->in.npending = total;
}

struct sched_snap *ctld_sched_snap_take(const struct ctld *c, int64_t now)
{
    struct sched_snap *s = xcalloc(1, sizeof *s);
    s->now = now;
    ctld_sched_input_fill(c, &s->in);
    s->in.utc_offset_s = ctld_utc_offset(now);   /* the core reads no time zone */
    size_t np = c->conf->nparts;
    s->parts = xcalloc(np ? np : 1, sizeof *s->parts);
    memcpy(s->parts, c->sparts, np * sizeof *s->parts);   /* State and MaxTime may change */
    s->in.parts = s->parts;
    copy_running(s, c);
    copy_pending(s, c);
    limits_snap(c, s);
    preempt_snap(c, s);
    resv_snap(c, s);
    s->in.policy = c->policy;
    s->in.bf_window_s = c->bf_window_s;
    s->in.bf_resolution_s = c->bf_resolution_s;
    s->in.bf_max_job_test = c->bf_max_job_test;
    s->in.age_bound_s = c->age_bound_s;
    s->in.age_resv = c->age_resv;
    return s;
}

void ctld_sched_snap_free(struct sched_snap *s)
{
    if (!s)
        return;
    while (s->arena) {
        struct arena_block *next = s->arena->next;
        free(s->arena);
        s->arena = next;
    }
    free((void *)s->in.nodes);
    free((void *)s->in.running);
    free((void *)s->in.pending);
    free(s->parts);
    free(s->allocs);
    free(s->gens);
    free(s->metas);
    free(s->resvs);
    free(s->resv_holds);
    limits_table_free(&s->limits);
    if (s->words)
        for (size_t i = 0; i < s->out.n; i++)
            free(s->words[i]);
    free(s->words);
    sched_output_free(&s->out);
    free(s);
}
