/*
 * profile: the general backfill model. Each node's use (CPUs, memory, GPU
 * indices, exclusive holders) is known now; a time-ordered list of events
 * says what running jobs give back and what reservations take and give back
 * later. A job fits from time t for d seconds if it can be placed on the
 * use at t plus everything reserved to start before t + d: a little
 * pessimistic (it ignores what ends within the window) but never lets a job
 * overlap a reservation.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct prof_use {
    int64_t cpus;
    uint64_t mem_mb;
    uint64_t gpus;                 /* mask of used indices */
    int nused, nexcl;
};

struct prof_ev {
    int64_t t;
    struct sched_alloc a;
    bool excl;
    bool take;                     /* false: gives back */
};

struct prof {
    const struct sched_input *in;
    struct sched_ctx *ctx;
    int64_t now, horizon;
    int res;
    struct prof_use *base, *cur;   /* now; the sweep's time */
    struct sched_free *view;
    struct prof_ev *ev;            /* by time, give-backs first */
    size_t nev, cap;
    int64_t total_cpus, total_gpus, cur_cpus, cur_gpus;   /* used on available nodes */
};

static void use_apply(struct prof *p, struct prof_use *u, const struct prof_ev *e, bool aggr)
{
    struct prof_use *x = &u[e->a.node];
    int sign = e->take ? 1 : -1;
    int64_t g = __builtin_popcountll(e->a.gpu_mask);

    x->cpus += sign * e->a.cpus;
    x->mem_mb += e->take ? e->a.mem_mb : -e->a.mem_mb;
    x->gpus = e->take ? x->gpus | e->a.gpu_mask : x->gpus & ~e->a.gpu_mask;
    x->nused += sign;
    x->nexcl += e->excl ? sign : 0;
    if (aggr && p->in->nodes[e->a.node].avail) {
        p->cur_cpus += sign * e->a.cpus;
        p->cur_gpus += sign * g;
    }
}

static bool ev_before(const struct prof_ev *a, const struct prof_ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    return !a->take && b->take;
}

static void ev_add(struct prof *p, int64_t t, const struct sched_alloc *a, bool excl, bool take)
{
    struct prof_ev e = { .t = t, .a = *a, .excl = excl, .take = take };
    size_t lo = 0, hi = p->nev;

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ev_before(&e, &p->ev[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    if (p->nev == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->ev = xrealloc(p->ev, p->cap * sizeof(*p->ev));
    }
    memmove(&p->ev[lo + 1], &p->ev[lo], (p->nev - lo) * sizeof(*p->ev));
    p->ev[lo] = e;
    p->nev++;
}

static void view_build(struct prof *p, int64_t t, int64_t end, size_t from)
{
    const struct sched_input *in = p->in;

    for (size_t i = 0; i < in->nnodes; i++) {
        const struct sched_node *n = &in->nodes[i];
        const struct prof_use *u = &p->cur[i];
        struct sched_free *f = &p->view[i];
        f->cpus = n->cpus - u->cpus;
        f->mem_mb = n->mem_mb > u->mem_mb ? n->mem_mb - u->mem_mb : 0;
        f->gpus = sched_gpu_full(n->gpus) & ~u->gpus;
        f->used = u->nused > 0;
        f->excl = u->nexcl > 0;
        f->avail = n->avail;
        if (f->excl)
            f->cpus = 0, f->mem_mb = 0, f->gpus = 0;
    }
    for (size_t k = from; k < p->nev && p->ev[k].t < end; k++)
        if (p->ev[k].take && p->ev[k].t > t)
            sched_free_take(&p->view[p->ev[k].a.node], &p->ev[k].a, p->ev[k].excl);
}

/* Total CPUs and GPUs the job asks; an upper bound test before placing. */
static void job_totals(const struct sched_shape *sh, int64_t *cpus, int64_t *gpus)
{
    *cpus = 0;
    *gpus = 0;
    for (size_t r = 0; r < sh->nruns; r++) {
        *cpus += sh->runs[r].slot.cpus * (int64_t)sh->runs[r].len;
        *gpus += sh->runs[r].slot.gpus * (int64_t)sh->runs[r].len;
    }
}

static void prof_commit(struct prof *p, const struct sched_job *j, int64_t t, int64_t end,
                        struct sched_decision *d)
{
    struct sched_ctx *c = p->ctx;
    struct sched_shape sh;
    struct sched_alloc *allocs = xcalloc(c->npicks ? c->npicks : 1, sizeof(*allocs));

    sched_shape_init(&sh, j, c->nreq);
    for (size_t i = 0; i < c->npicks; i++) {
        size_t n = c->picks[i].node;
        allocs[i].node = n;
        sched_free_alloc(&p->view[n], &p->in->nodes[n], &sh, &c->picks[i].slot, &allocs[i]);
        if (t == p->now) {
            struct prof_ev e = { .t = t, .a = allocs[i], .excl = j->exclusive, .take = true };
            use_apply(p, p->base, &e, false);
        } else {
            ev_add(p, t, &allocs[i], j->exclusive, true);
        }
        if (end < SCHED_FOREVER)
            ev_add(p, end, &allocs[i], j->exclusive, false);
    }
    if (t == p->now) {
        d->allocs = allocs;
        d->nallocs = c->npicks;
    } else {
        free(allocs);
    }
}

static int64_t prof_plan(void *m, const struct sched_job *j, int64_t dur, bool reserve,
                         struct sched_decision *d)
{
    struct prof *p = m;
    struct sched_shape sh;
    int64_t need_cpus, need_gpus, t = p->now;
    size_t idx = 0;

    sched_shape_init(&sh, j, 0);
    job_totals(&sh, &need_cpus, &need_gpus);
    memcpy(p->cur, p->base, p->in->nnodes * sizeof(*p->cur));
    p->cur_cpus = 0;
    p->cur_gpus = 0;
    /* Raw sums ignore exclusivity, so the free total is an upper bound. */
    for (size_t i = 0; i < p->in->nnodes; i++)
        if (p->in->nodes[i].avail) {
            p->cur_cpus += p->base[i].cpus;
            p->cur_gpus += __builtin_popcountll(p->base[i].gpus);
        }
    for (;;) {
        int64_t end = dur >= SCHED_FOREVER - t ? SCHED_FOREVER : t + dur;
        for (; idx < p->nev && p->ev[idx].t <= t; idx++)
            use_apply(p, p->cur, &p->ev[idx], true);
        if (p->total_cpus - p->cur_cpus >= need_cpus && p->total_gpus - p->cur_gpus >= need_gpus) {
            view_build(p, t, end, idx);
            if (sched_place(p->ctx, p->view, j)) {
                prof_commit(p, j, t, sched_round_up(end, p->now, p->res), d);
                return t;
            }
        }
        if (!reserve)
            return -1;
        while (idx < p->nev && p->ev[idx].take)
            use_apply(p, p->cur, &p->ev[idx++], true);
        if (idx == p->nev || p->ev[idx].t > p->horizon)
            return -1;
        t = p->ev[idx].t;
    }
}

static void prof_destroy(void *m)
{
    struct prof *p = m;

    if (!p)
        return;
    free(p->base);
    free(p->cur);
    free(p->view);
    free(p->ev);
    free(p);
}

/* Held from now until end (SCHED_FOREVER: for good). */
static void prof_hold_now(struct prof *p, const struct sched_alloc *a, bool excl, int64_t end)
{
    struct prof_ev e = { .t = p->now, .a = *a, .excl = excl, .take = true };

    if (a->node >= p->in->nnodes)
        return;
    use_apply(p, p->base, &e, false);
    if (end < SCHED_FOREVER)
        ev_add(p, end, a, excl, false);
}

/* A reservation's holds: busy time from its start (taken now if it has
 * begun) to its end, exact at the start so that nothing runs into it. */
static void prof_holds(struct prof *p)
{
    const struct sched_input *in = p->in;

    for (size_t i = 0; i < in->nresvs; i++) {
        const struct sched_resv *r = &in->resvs[i];
        int64_t end = r->end >= SCHED_FOREVER ? SCHED_FOREVER
                                              : sched_round_up(r->end, p->now, p->res);
        if (r->end <= p->now)
            continue;
        for (size_t k = 0; k < r->nholds; k++) {
            if (r->holds[k].node >= in->nnodes)
                continue;
            if (r->start <= p->now) {
                prof_hold_now(p, &r->holds[k], false, end);
                continue;
            }
            ev_add(p, r->start, &r->holds[k], false, true);
            if (end < SCHED_FOREVER)
                ev_add(p, end, &r->holds[k], false, false);
        }
    }
}

static void prof_take(void *m, const struct sched_decision *d, bool exclusive, int64_t end)
{
    for (size_t i = 0; i < d->nallocs; i++)
        prof_hold_now(m, &d->allocs[i], exclusive, end);
}

static void prof_running(struct prof *p)
{
    const struct sched_input *in = p->in;

    for (size_t r = 0; r < in->nrunning; r++) {
        const struct sched_running *run = &in->running[r];
        int64_t end = run->end_time;
        if (end >= 0)
            end = sched_round_up(end > p->now ? end : p->now + 1, p->now, p->res);
        for (size_t k = 0; k < run->nallocs; k++) {
            struct prof_ev e = { .t = p->now, .a = sched_run_held(run, k),
                                 .excl = run->exclusive, .take = true };
            if (e.a.node >= in->nnodes)
                continue;
            use_apply(p, p->base, &e, false);
            if (end >= 0)
                ev_add(p, end, &e.a, run->exclusive, false);
        }
    }
}

void sched_profile_new(const struct sched_input *in, int64_t now, struct sched_ctx *ctx,
                       struct sched_model *out)
{
    struct prof *p = xcalloc(1, sizeof(*p));
    size_t nn = in->nnodes ? in->nnodes : 1;

    p->in = in;
    p->ctx = ctx;
    p->now = now;
    p->res = in->bf_resolution_s > 0 ? in->bf_resolution_s : 1;
    p->horizon = in->bf_window_s > 0 ? now + in->bf_window_s : SCHED_FOREVER;
    p->base = xcalloc(nn, sizeof(*p->base));
    p->cur = xcalloc(nn, sizeof(*p->cur));
    p->view = xcalloc(nn, sizeof(*p->view));
    for (size_t i = 0; i < in->nnodes; i++)
        if (in->nodes[i].avail) {
            p->total_cpus += in->nodes[i].cpus;
            p->total_gpus += in->nodes[i].gpus;
        }
    prof_running(p);
    prof_holds(p);
    out->plan = prof_plan;
    out->take = prof_take;
    out->destroy = prof_destroy;
    out->m = p;
}
