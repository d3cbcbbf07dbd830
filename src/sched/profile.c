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
    int cls;                       /* the end of a running job a preemptor may take:
                                      its preempt_class; 0 otherwise */
    const struct sched_job *owner; /* the start of a job's reservation: that job */
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
    uint64_t classes;              /* the preempt classes running jobs are of */
    uint64_t disc_mask;            /* the classes disc was summed for; 0: none yet */
    struct prof_use *disc;         /* per node: what running jobs of those classes use */
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

static struct prof_ev *ev_add(struct prof *p, int64_t t, const struct sched_alloc *a, bool excl,
                              bool take)
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
    return &p->ev[lo];
}

/* The view from t for a job running until end (except: that job's own
 * reservation is left out). */
static void view_build(struct prof *p, int64_t t, int64_t end, size_t from,
                       const struct sched_job *except)
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
        if (p->ev[k].take && p->ev[k].t > t && (!except || p->ev[k].owner != except))
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
            ev_add(p, t, &allocs[i], j->exclusive, true)->owner = j;
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

/* A running job a preemptor of its class may take: not suspended, not
 * already being preempted (its end is near either way). */
static int run_class(const struct sched_running *run)
{
    int c = run->preempt_class;

    return c >= 1 && c <= 63 && !run->suspended && !run->preempting ? c : 0;
}

/* Takes out of cur what the running jobs of the classes in mask use: to a
 * job that may preempt them they are free, later as well as now. */
static void disc_apply(struct prof *p, uint64_t mask)
{
    const struct sched_input *in = p->in;

    if (p->disc_mask != mask) {
        memset(p->disc, 0, in->nnodes * sizeof(*p->disc));
        for (size_t r = 0; r < in->nrunning; r++) {
            const struct sched_running *run = &in->running[r];
            int c = run_class(run);
            for (size_t k = 0; c && ((mask >> c) & 1) && k < run->nallocs; k++) {
                struct prof_ev e = { .a = sched_run_held(run, k), .excl = run->exclusive,
                                     .take = true };
                if (e.a.node < in->nnodes)
                    use_apply(p, p->disc, &e, false);
            }
        }
        p->disc_mask = mask;
    }
    for (size_t n = 0; n < in->nnodes; n++) {
        const struct prof_use *d = &p->disc[n];
        struct prof_use *u = &p->cur[n];
        u->cpus -= d->cpus;
        u->mem_mb -= d->mem_mb;
        u->gpus &= ~d->gpus;
        u->nused -= d->nused;
        u->nexcl -= d->nexcl;
        if (in->nodes[n].avail) {
            p->cur_cpus -= d->cpus;
            p->cur_gpus -= __builtin_popcountll(d->gpus);
        }
    }
}

static void cur_reset(struct prof *p)
{
    memcpy(p->cur, p->base, p->in->nnodes * sizeof(*p->cur));
    p->cur_cpus = 0;
    p->cur_gpus = 0;
    /* Raw sums ignore exclusivity, so the free total is an upper bound. */
    for (size_t i = 0; i < p->in->nnodes; i++)
        if (p->in->nodes[i].avail) {
            p->cur_cpus += p->base[i].cpus;
            p->cur_gpus += __builtin_popcountll(p->base[i].gpus);
        }
}

static void sweep_to(struct prof *p, size_t *idx, int64_t t, uint64_t skip)
{
    for (; *idx < p->nev && p->ev[*idx].t <= t; (*idx)++)
        if (!((skip >> p->ev[*idx].cls) & 1))
            use_apply(p, p->cur, &p->ev[*idx], true);
}

/* The earliest start of j. A job that may preempt is reserved where only
 * what it may not take keeps it out (the backfill plan counts preemptable
 * jobs as free to it); it starts now only without victims: those it needs
 * now are chosen by the pass (sched_preempt_find). */
static int64_t prof_plan(void *m, const struct sched_job *j, int64_t dur, bool reserve,
                         struct sched_decision *d)
{
    struct prof *p = m;
    struct sched_shape sh;
    int64_t need_cpus, need_gpus, t = p->now;
    size_t idx = 0;
    uint64_t skip = 0;

    sched_shape_init(&sh, j, 0);
    job_totals(&sh, &need_cpus, &need_gpus);
    cur_reset(p);
    for (;;) {
        int64_t end = dur >= SCHED_FOREVER - t ? SCHED_FOREVER : t + dur;
        sweep_to(p, &idx, t, skip);
        if (p->total_cpus - p->cur_cpus >= need_cpus && p->total_gpus - p->cur_gpus >= need_gpus) {
            view_build(p, t, end, idx, NULL);
            if (!(skip && t == p->now) && sched_place(p->ctx, p->view, j)) {
                prof_commit(p, j, t, sched_round_up(end, p->now, p->res), d);
                return t;
            }
        }
        if (!reserve)
            return -1;
        if (!skip && t == p->now && (j->preempts & p->classes)) {
            skip = (j->preempts & p->classes) & ~UINT64_C(1);
            disc_apply(p, skip);
        }
        while (idx < p->nev && p->ev[idx].take)
            use_apply(p, p->cur, &p->ev[idx++], true);
        if (idx == p->nev || p->ev[idx].t > p->horizon)
            return -1;
        t = p->ev[idx].t;
    }
}

/* Whether j may take claim now until dur without running into what the
 * model has reserved for others, the running jobs it may preempt gone. */
static bool prof_room(void *m, const struct sched_job *j, int64_t dur,
                      const struct sched_decision *claim)
{
    struct prof *p = m;
    int64_t end = dur >= SCHED_FOREVER - p->now ? SCHED_FOREVER : p->now + dur;

    cur_reset(p);
    if (j->preempts & p->classes)
        disc_apply(p, (j->preempts & p->classes) & ~UINT64_C(1));
    view_build(p, p->now, end, 0, j);
    for (size_t i = 0; i < claim->nallocs; i++) {
        const struct sched_alloc *a = &claim->allocs[i];
        const struct sched_free *v = &p->view[a->node];
        if (v->excl || (j->exclusive && v->used) || v->cpus < a->cpus ||
            v->mem_mb < a->mem_mb || (a->gpu_mask & ~v->gpus))
            return false;
    }
    return true;
}

static void prof_destroy(void *m)
{
    struct prof *p = m;

    if (!p)
        return;
    free(p->base);
    free(p->cur);
    free(p->view);
    free(p->disc);
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
                ev_add(p, end, &e.a, run->exclusive, false)->cls = run_class(run);
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
    p->disc = xcalloc(nn, sizeof(*p->disc));
    for (size_t i = 0; i < in->nnodes; i++)
        if (in->nodes[i].avail) {
            p->total_cpus += in->nodes[i].cpus;
            p->total_gpus += in->nodes[i].gpus;
        }
    for (size_t r = 0; r < in->nrunning; r++)
        p->classes |= UINT64_C(1) << run_class(&in->running[r]);
    p->classes &= ~UINT64_C(1);
    prof_running(p);
    prof_holds(p);
    out->plan = prof_plan;
    out->take = prof_take;
    out->room = prof_room;
    out->destroy = prof_destroy;
    out->m = p;
}
