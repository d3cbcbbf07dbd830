/*
 * profile: the general backfill model. Each node's use (CPUs, memory, GPU
 * indices, exclusive holders) is known now; a time-ordered list of events
 * says what running jobs give back and what reservations take and give back
 * later. A job fits from time t for d seconds if it can be placed on the
 * use at t plus everything reserved to start before t + d: a little
 * pessimistic (it ignores what ends within the window) but never lets a job
 * overlap a reservation.
 *
 * A job's earliest start is found by one sweep over the events: the view
 * (what each node can take from t for d seconds) is kept up to date as t
 * moves from one give-back to the next, each event touching only its node,
 * and placement is tried only where the free totals and the count of
 * nodes that fit the job's smallest slot say it might succeed. Between
 * sweeps the view is that of now, and a sweep puts back only the nodes it
 * touched. A sweep so costs the events it passes, plus the nodes once if
 * it looks past now; not the nodes at every candidate time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct prof_use {
    int64_t cpus;
    uint64_t mem_mb;
    uint64_t gpus;                 /* mask of used indices: those held at least once */
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

/* One job's sweep: the view is the base, plus every take before end,
 * minus every give-back up to t (those of the skip classes left out). */
struct sweep {
    const struct sched_job *j;
    const struct sched_job *except; /* its own reservation left out (room) */
    int64_t t, end, dur;
    size_t gidx, widx;             /* next give-back to pass; next take to count */
    uint64_t skip;
    bool counted;                  /* least and fit are set up */
    struct sched_shape sh;
    const struct sched_slot *least;/* the smallest slot; NULL: no count kept */
    size_t fit;                    /* eligible nodes the smallest slot fits */
    int64_t free_cpus, free_gpus;  /* on available nodes */
};

struct prof {
    const struct sched_input *in;
    struct sched_ctx *ctx;
    int64_t now, horizon;
    int res;
    struct prof_use *base, *cur;   /* now; the sweep's view */
    uint16_t *bcnt, *ccnt;         /* holders of each GPU index, base and sweep */
    size_t *goff;                  /* node i's indices start at goff[i] */
    uint64_t *cstamp, stamp;       /* node i is the sweep's (cur, ccnt, view) if
                                      cstamp[i] == stamp, else the base's */
    size_t *touched, ntouched;     /* the sweep's nodes */
    uint8_t *elig;                 /* node may be chosen for the sweep's job */
    struct sched_free *view;
    int64_t free_cpus, free_gpus;  /* in the view of now, on available nodes */
    struct prof_ev *ev;            /* by time, give-backs first */
    size_t nev, cap;
    uint64_t classes;              /* the preempt classes running jobs are of,
                                      never class 0 (not preemptable) */
};

static int node_gpus(const struct sched_node *n)
{
    return n->gpus < 0 ? 0 : n->gpus > SCHED_MAX_GPUS ? SCHED_MAX_GPUS : n->gpus;
}

/* Applies one holder's allocation to use u, whose GPU holders are cnt. */
static void use_apply(struct prof_use *u, uint16_t *cnt, int ngpus, const struct sched_alloc *a,
                      bool excl, bool take)
{
    int sign = take ? 1 : -1;
    uint64_t m = a->gpu_mask & sched_gpu_full(ngpus);

    u->cpus += sign * a->cpus;
    u->mem_mb += take ? a->mem_mb : -a->mem_mb;
    u->nused += sign;
    u->nexcl += excl ? sign : 0;
    for (; m; m &= m - 1) {
        int b = __builtin_ctzll(m);
        if (take && cnt[b]++ == 0)
            u->gpus |= UINT64_C(1) << b;
        else if (!take && cnt[b] > 0 && --cnt[b] == 0)
            u->gpus &= ~(UINT64_C(1) << b);
    }
}

static void view_node(const struct prof *p, size_t i);

static void free_count(const struct sched_free *f, int sign, int64_t *cpus, int64_t *gpus)
{
    if (!f->avail)
        return;
    *cpus += sign * (f->cpus > 0 ? f->cpus : 0);
    *gpus += sign * __builtin_popcountll(f->gpus);
}

/* Outside a sweep only. */
static void base_apply(struct prof *p, const struct sched_alloc *a, bool excl)
{
    size_t n = a->node;

    use_apply(&p->base[n], p->bcnt + p->goff[n], node_gpus(&p->in->nodes[n]), a, excl, true);
    free_count(&p->view[n], -1, &p->free_cpus, &p->free_gpus);
    p->cur[n] = p->base[n];
    view_node(p, n);
    free_count(&p->view[n], 1, &p->free_cpus, &p->free_gpus);
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

static void view_node(const struct prof *p, size_t i)
{
    const struct sched_node *n = &p->in->nodes[i];
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

/* Node i's share of the sweep's totals and fit count: sign 1 adds it, -1
 * takes it out. */
static void sweep_count(const struct prof *p, struct sweep *s, size_t i, int sign)
{
    const struct sched_free *f = &p->view[i];

    free_count(f, sign, &s->free_cpus, &s->free_gpus);
    if (s->least && p->elig[i] && f->avail &&
        sched_free_fits(f, &p->in->nodes[i], &s->sh, s->least))
        s->fit += sign;
}

static void sweep_apply(struct prof *p, struct sweep *s, const struct sched_alloc *a, bool excl,
                        bool take)
{
    size_t n = a->node;
    uint16_t *cnt = p->ccnt + p->goff[n];

    if (p->cstamp[n] != p->stamp) {
        memcpy(cnt, p->bcnt + p->goff[n], (p->goff[n + 1] - p->goff[n]) * sizeof(*cnt));
        p->cstamp[n] = p->stamp;
        p->touched[p->ntouched++] = n;
    }
    sweep_count(p, s, n, -1);
    use_apply(&p->cur[n], cnt, node_gpus(&p->in->nodes[n]), a, excl, take);
    view_node(p, n);
    sweep_count(p, s, n, 1);
}

/* Counts every take that starts before the window's end. */
static void sweep_takes(struct prof *p, struct sweep *s)
{
    for (; s->widx < p->nev && p->ev[s->widx].t < s->end; s->widx++) {
        const struct prof_ev *e = &p->ev[s->widx];
        if (e->take && !(s->except && e->owner == s->except))
            sweep_apply(p, s, &e->a, e->excl, true);
    }
}

static int64_t window_end(int64_t t, int64_t dur)
{
    return dur >= SCHED_FOREVER - t ? SCHED_FOREVER : t + dur;
}

/* Puts the nodes the sweep touched back to the view of now. */
static void sweep_end(struct prof *p)
{
    for (size_t k = 0; k < p->ntouched; k++) {
        size_t n = p->touched[k];
        p->cur[n] = p->base[n];
        view_node(p, n);
    }
    p->ntouched = 0;
    p->stamp++;
}

/* The view from now for dur seconds for j (except: that job's own
 * reservation is left out). */
static void sweep_begin(struct prof *p, struct sweep *s, const struct sched_job *j, int64_t dur,
                        const struct sched_job *except)
{
    memset(s, 0, sizeof(*s));
    s->j = j;
    s->except = except;
    s->t = p->now;
    s->dur = dur;
    s->end = window_end(p->now, dur);
    s->free_cpus = p->free_cpus;
    s->free_gpus = p->free_gpus;
    sched_shape_init(&s->sh, j, 0);
    sweep_takes(p, s);
}

/* Sets up the count of nodes that fit the smallest slot, for a sweep that
 * looks past now; -w nodes change the node count and so the slots: no
 * count then. */
static void sweep_fit_count(struct prof *p, struct sweep *s)
{
    s->counted = true;
    if (s->j->nreq_nodes || !s->sh.nruns)
        return;
    sched_place_eligible(p->ctx, s->j, p->elig);
    s->least = &s->sh.runs[s->sh.nruns - 1].slot;
    for (size_t i = 0; i < p->in->nnodes; i++)
        if (p->elig[i] && sched_free_fits(&p->view[i], &p->in->nodes[i], &s->sh, s->least))
            s->fit++;
}

/* Moves the sweep to the next give-back; false if there is none within
 * the window. */
static bool sweep_next(struct prof *p, struct sweep *s)
{
    if (!s->counted)
        sweep_fit_count(p, s);
    while (s->gidx < p->nev && (p->ev[s->gidx].take || p->ev[s->gidx].t <= s->t))
        s->gidx++;
    if (s->gidx == p->nev || p->ev[s->gidx].t > p->horizon)
        return false;
    s->t = p->ev[s->gidx].t;
    s->end = window_end(s->t, s->dur);
    for (; s->gidx < p->nev && p->ev[s->gidx].t <= s->t; s->gidx++) {
        const struct prof_ev *e = &p->ev[s->gidx];
        if (!e->take && !((s->skip >> e->cls) & 1))
            sweep_apply(p, s, &e->a, e->excl, false);
    }
    sweep_takes(p, s);
    return true;
}

/* Cheap tests that placement would fail: too few free CPUs or GPUs in
 * all, or too few nodes that take even the smallest slot. */
static bool sweep_may_fit(const struct sweep *s)
{
    int64_t cpus = 0, gpus = 0;

    for (size_t r = 0; r < s->sh.nruns; r++) {
        cpus += s->sh.runs[r].slot.cpus * (int64_t)s->sh.runs[r].len;
        gpus += s->sh.runs[r].slot.gpus * (int64_t)s->sh.runs[r].len;
    }
    if (s->free_cpus < cpus || s->free_gpus < gpus)
        return false;
    return !s->least || s->fit >= s->sh.nnodes;
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
    }
    sweep_end(p);
    for (size_t i = 0; i < c->npicks; i++) {
        if (t == p->now)
            base_apply(p, &allocs[i], j->exclusive);
        else
            ev_add(p, t, &allocs[i], j->exclusive, true)->owner = j;
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

/* To a job that may preempt the running jobs of the classes in mask, what
 * they hold is free, later as well as now: given back at once, and their
 * ends skipped. */
static void sweep_preempt(struct prof *p, struct sweep *s, uint64_t mask)
{
    const struct sched_input *in = p->in;

    s->skip = mask;
    for (size_t r = 0; r < in->nrunning; r++) {
        const struct sched_running *run = &in->running[r];
        int c = run_class(run);
        for (size_t k = 0; c && ((mask >> c) & 1) && k < run->nallocs; k++) {
            struct sched_alloc a = sched_run_held(run, k);
            if (a.node < in->nnodes)
                sweep_apply(p, s, &a, run->exclusive, false);
        }
    }
}

/* The earliest start of j. A job that may preempt is reserved where only
 * what it may not take keeps it out (the backfill plan counts preemptable
 * jobs as free to it); it starts now only without victims: those it needs
 * now are chosen by the pass (sched_preempt_find). */
static int64_t prof_plan(void *m, const struct sched_job *j, int64_t dur, bool reserve,
                         struct sched_decision *d)
{
    struct prof *p = m;
    struct sweep s;

    sweep_begin(p, &s, j, dur, NULL);
    for (;;) {
        if (!(s.skip && s.t == p->now) && sweep_may_fit(&s) && sched_place(p->ctx, p->view, j)) {
            prof_commit(p, j, s.t, sched_round_up(s.end, p->now, p->res), d);
            return s.t;
        }
        if (!reserve)
            break;
        if (!s.skip && s.t == p->now && (j->preempts & p->classes))
            sweep_preempt(p, &s, j->preempts & p->classes);
        if (!sweep_next(p, &s))
            break;
    }
    sweep_end(p);
    return -1;
}

/* Whether j may take claim now until dur without running into what the
 * model has reserved for others, the running jobs it may preempt gone. */
static bool prof_room(void *m, const struct sched_job *j, int64_t dur,
                      const struct sched_decision *claim)
{
    struct prof *p = m;
    struct sweep s;

    bool ok = true;

    sweep_begin(p, &s, j, dur, j);
    if (j->preempts & p->classes)
        sweep_preempt(p, &s, j->preempts & p->classes);
    for (size_t i = 0; ok && i < claim->nallocs; i++) {
        const struct sched_alloc *a = &claim->allocs[i];
        const struct sched_free *v = &p->view[a->node];
        ok = !(v->excl || (j->exclusive && v->used) || v->cpus < a->cpus ||
               v->mem_mb < a->mem_mb || (a->gpu_mask & ~v->gpus));
    }
    sweep_end(p);
    return ok;
}

static void prof_destroy(void *m)
{
    struct prof *p = m;

    if (!p)
        return;
    free(p->base);
    free(p->cur);
    free(p->bcnt);
    free(p->ccnt);
    free(p->goff);
    free(p->cstamp);
    free(p->touched);
    free(p->elig);
    free(p->view);
    free(p->ev);
    free(p);
}

/* Held from now until end (SCHED_FOREVER: for good). */
static void prof_hold_now(struct prof *p, const struct sched_alloc *a, bool excl, int64_t end)
{
    if (a->node >= p->in->nnodes)
        return;
    base_apply(p, a, excl);
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
            struct sched_alloc a = sched_run_held(run, k);
            if (a.node >= in->nnodes)
                continue;
            base_apply(p, &a, run->exclusive);
            if (end >= 0)
                ev_add(p, end, &a, run->exclusive, false)->cls = run_class(run);
        }
    }
}

void sched_profile_new(const struct sched_input *in, int64_t now, struct sched_ctx *ctx,
                       struct sched_model *out)
{
    struct prof *p = xcalloc(1, sizeof(*p));
    size_t nn = in->nnodes ? in->nnodes : 1, ng;

    p->in = in;
    p->ctx = ctx;
    p->now = now;
    p->res = in->bf_resolution_s > 0 ? in->bf_resolution_s : 1;
    p->horizon = in->bf_window_s > 0 ? now + in->bf_window_s : SCHED_FOREVER;
    p->base = xcalloc(nn, sizeof(*p->base));
    p->cur = xcalloc(nn, sizeof(*p->cur));
    p->view = xcalloc(nn, sizeof(*p->view));
    p->elig = xcalloc(nn, 1);
    p->cstamp = xcalloc(nn, sizeof(*p->cstamp));
    p->touched = xcalloc(nn, sizeof(*p->touched));
    p->stamp = 1;
    p->goff = xcalloc(nn + 1, sizeof(*p->goff));
    for (size_t i = 0; i < in->nnodes; i++)
        p->goff[i + 1] = p->goff[i] + (size_t)node_gpus(&in->nodes[i]);
    ng = p->goff[in->nnodes] ? p->goff[in->nnodes] : 1;
    p->bcnt = xcalloc(ng, sizeof(*p->bcnt));
    p->ccnt = xcalloc(ng, sizeof(*p->ccnt));
    for (size_t r = 0; r < in->nrunning; r++)
        p->classes |= UINT64_C(1) << run_class(&in->running[r]);
    p->classes &= ~UINT64_C(1);
    for (size_t i = 0; i < in->nnodes; i++) {
        view_node(p, i);
        free_count(&p->view[i], 1, &p->free_cpus, &p->free_gpus);
    }
    prof_running(p);
    prof_holds(p);
    out->plan = prof_plan;
    out->take = prof_take;
    out->room = prof_room;
    out->destroy = prof_destroy;
    out->m = p;
}
