/*
 * pool: the backfill model for a cluster of identical nodes without GPUs
 * whose jobs all take whole nodes (a processor-count trace on nodes of one
 * CPU each is the common case). Which nodes a job gets then does not matter
 * to the future, only how many are free when: a step profile of free node
 * counts answers "earliest start for n nodes for d seconds" in one sweep.
 * Any count-feasible plan is realizable because nodes need not be adjacent.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct pool_step {
    int64_t t;                     /* from t until the next step's t */
    int64_t free;
};

struct pool {
    const struct sched_input *in;
    int64_t now, horizon;
    int res;
    int cpus;                      /* every node's */
    bool *busy;
    size_t scan;                   /* no free node below this index */
    struct pool_step *s;
    size_t n, cap;
};

struct pool_end {
    int64_t t;
    int64_t nodes;
};

static bool pool_job_ok(const struct sched_job *j, int cpus)
{
    struct sched_shape sh;

    if (j->gpus || j->gpus_per_node || j->mem_per_node_mb || j->mem_per_cpu_mb ||
        j->mem_per_gpu_mb || j->nreq_nodes || j->nexcl_nodes || (j->constraint && *j->constraint))
        return false;
    /* One task of one CPU per node on nodes of one CPU: the trace's case. */
    if (cpus == 1 && j->cpus_per_task <= 1 && j->ntasks_per_node <= 1 &&
        j->ntasks <= (j->min_nodes > 0 ? j->min_nodes : 1))
        return true;
    sched_shape_init(&sh, j, 0);
    if (sh.nruns != 1)
        return false;
    return sh.runs[0].slot.cpus == cpus || (j->exclusive && sh.runs[0].slot.cpus <= cpus);
}

static bool pool_part_identity(const struct sched_part *p, size_t nnodes)
{
    if (p->nnodes != nnodes)
        return false;
    for (size_t k = 0; k < nnodes; k++)
        if (p->nodes[k] != k)
            return false;
    return true;
}

static bool pool_parts_ok(const struct sched_input *in, bool *seen)
{
    for (size_t p = 0; p < in->nparts; p++) {
        size_t distinct = 0;
        if (pool_part_identity(&in->parts[p], in->nnodes))
            continue;
        memset(seen, 0, in->nnodes * sizeof(*seen));
        for (size_t k = 0; k < in->parts[p].nnodes; k++) {
            size_t n = in->parts[p].nodes[k];
            if (n < in->nnodes && !seen[n]) {
                seen[n] = true;
                distinct++;
            }
        }
        if (distinct != in->nnodes)
            return false;
    }
    return true;
}

/* Marks busy nodes; false if a running job holds part of a node. */
static bool pool_running_ok(const struct sched_input *in, int cpus, bool *busy)
{
    memset(busy, 0, in->nnodes * sizeof(*busy));
    for (size_t r = 0; r < in->nrunning; r++)
        for (size_t k = 0; k < in->running[r].nallocs; k++) {
            const struct sched_alloc *a = &in->running[r].allocs[k];
            if (a->node >= in->nnodes || busy[a->node] || a->gpu_mask ||
                (a->cpus != cpus && !in->running[r].exclusive))
                return false;
            busy[a->node] = true;
        }
    return true;
}

static bool pool_eligible(const struct sched_input *in, bool *busy)
{
    int cpus;

    if (in->nnodes == 0 || in->nresvs > 0)   /* holds are per node: the profile's */
        return false;
    uint64_t classes = 0;
    for (size_t r = 0; r < in->nrunning; r++) {
        if (in->running[r].suspended)
            return false;
        classes |= UINT64_C(1) << (in->running[r].preempt_class & 63);
    }
    classes &= ~UINT64_C(1);
    cpus = in->nodes[0].cpus;
    for (size_t i = 0; i < in->nnodes; i++)
        if (in->nodes[i].cpus != cpus || in->nodes[i].gpus != 0 || !in->nodes[i].avail ||
            in->nodes[i].weight > 1)   /* weights rank nodes: the count model cannot */
            return false;
    for (size_t i = 0; i < in->npending; i++)   /* a preemptor's plan: the profile's */
        if (!pool_job_ok(&in->pending[i], cpus) || (in->pending[i].preempts & classes))
            return false;
    return pool_parts_ok(in, busy) && pool_running_ok(in, cpus, busy);
}

static int end_cmp(const void *a, const void *b)
{
    const struct pool_end *x = a, *y = b;

    return x->t < y->t ? -1 : x->t > y->t;
}

static void pool_push(struct pool *p, int64_t t, int64_t free)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->s = xrealloc(p->s, p->cap * sizeof(*p->s));
    }
    p->s[p->n].t = t;
    p->s[p->n].free = free;
    p->n++;
}

static void pool_build(struct pool *p)
{
    const struct sched_input *in = p->in;
    struct pool_end *e = xcalloc(in->nrunning ? in->nrunning : 1, sizeof(*e));
    size_t ne = 0;
    int64_t nfree = 0;

    for (size_t i = 0; i < in->nnodes; i++)
        nfree += !p->busy[i];
    for (size_t r = 0; r < in->nrunning; r++) {
        int64_t t = in->running[r].end_time;
        if (t < 0 || in->running[r].nallocs == 0)
            continue;
        e[ne].t = sched_round_up(t > p->now ? t : p->now + 1, p->now, p->res);
        e[ne].nodes = (int64_t)in->running[r].nallocs;
        ne++;
    }
    qsort(e, ne, sizeof(*e), end_cmp);
    pool_push(p, p->now, nfree);
    for (size_t k = 0; k < ne; k++) {
        nfree += e[k].nodes;
        if (p->s[p->n - 1].t == e[k].t)
            p->s[p->n - 1].free = nfree;
        else
            pool_push(p, e[k].t, nfree);
    }
    free(e);
}

/* Index of the step that holds time t, splitting one so that a step starts at t. */
static size_t pool_split(struct pool *p, int64_t t)
{
    size_t lo = 0, hi = p->n;

    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->s[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (p->s[lo].t == t)
        return lo;
    pool_push(p, 0, 0);
    memmove(&p->s[lo + 2], &p->s[lo + 1], (p->n - lo - 2) * sizeof(*p->s));
    p->s[lo + 1].t = t;
    p->s[lo + 1].free = p->s[lo].free;
    return lo + 1;
}

static void pool_take(struct pool *p, int64_t t, int64_t end, int64_t need)
{
    size_t i = pool_split(p, t);

    if (end < SCHED_FOREVER)
        pool_split(p, end);
    for (; i < p->n && p->s[i].t < end; i++)
        p->s[i].free -= need;
}

/* Earliest step start (only now unless reserve) from which `need` nodes stay
 * free for dur seconds; -1 if none within the horizon. */
static int64_t pool_find(const struct pool *p, int64_t need, int64_t dur, bool reserve)
{
    for (size_t i = 0; i < p->n; i++) {
        int64_t t = p->s[i].t, end;
        size_t k = i;
        if (t > p->horizon || (i > 0 && !reserve))
            return -1;
        end = dur >= SCHED_FOREVER - t ? SCHED_FOREVER : t + dur;
        while (k < p->n && p->s[k].t < end && p->s[k].free >= need)
            k++;
        if (k == p->n || p->s[k].t >= end)
            return t;
        i = k;                     /* every start up to step k overlaps it */
    }
    return -1;
}

static void pool_start(struct pool *p, int64_t need, struct sched_decision *d)
{
    d->allocs = xcalloc((size_t)need, sizeof(*d->allocs));
    d->nallocs = (size_t)need;
    for (size_t k = 0; k < (size_t)need; k++) {
        while (p->busy[p->scan])
            p->scan++;
        p->busy[p->scan] = true;
        d->allocs[k].node = p->scan;
        d->allocs[k].cpus = p->cpus;
    }
}

static int64_t pool_plan(void *m, const struct sched_job *j, int64_t dur, bool reserve,
                         struct sched_decision *d)
{
    struct pool *p = m;
    int64_t t, end, need = j->min_nodes > 0 ? j->min_nodes : 1;   /* no -w nodes here */

    t = pool_find(p, need, dur, reserve);
    if (t < 0)
        return -1;
    end = dur >= SCHED_FOREVER - t ? SCHED_FOREVER : sched_round_up(t + dur, p->now, p->res);
    pool_take(p, t, end, need);
    if (t == p->now)
        pool_start(p, need, d);
    return t;
}

/* A start outside the plan (a preemptor's claim): the nodes of it that are
 * free now are taken until end; the rest are its victims', still busy. */
static void pool_take_outside(void *m, const struct sched_decision *d, bool exclusive,
                              int64_t end)
{
    struct pool *p = m;
    int64_t n = 0;

    (void)exclusive;
    for (size_t i = 0; i < d->nallocs; i++)
        if (d->allocs[i].node < p->in->nnodes && !p->busy[d->allocs[i].node]) {
            p->busy[d->allocs[i].node] = true;
            n++;
        }
    if (n)
        pool_take(p, p->now, end, n);
}

static void pool_destroy(void *m)
{
    struct pool *p = m;

    if (!p)
        return;
    free(p->busy);
    free(p->s);
    free(p);
}

bool sched_pool_new(const struct sched_input *in, int64_t now, struct sched_model *out)
{
    struct pool *p = xcalloc(1, sizeof(*p));

    p->busy = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*p->busy));
    if (!pool_eligible(in, p->busy)) {
        pool_destroy(p);
        return false;
    }
    p->in = in;
    p->now = now;
    p->res = in->bf_resolution_s > 0 ? in->bf_resolution_s : 1;
    p->horizon = in->bf_window_s > 0 ? now + in->bf_window_s : SCHED_FOREVER;
    p->cpus = in->nodes[0].cpus;
    pool_build(p);
    out->plan = pool_plan;
    out->take = pool_take_outside;
    out->room = NULL;
    out->destroy = pool_destroy;
    out->m = p;
    return true;
}
