/*
 * backfill: the pass that plans ahead. Jobs are taken in priority order and
 * planned on a model of the cluster over time (the expected ends of running
 * jobs, the reservations made so far). A job starts now only where it delays
 * no reservation. BACKFILL reserves every tested job (so each gets a start
 * estimate); EASY and HERD reserve each partition's first blocked job and
 * then only start what fits around it, HERD trying first the job whose
 * expansion factor on its predicted run is largest, and giving jobs that
 * have waited past the age bound EASY's treatment (priority order, the
 * first age_resv of them a reservation): docs/scheduling.md.
 */
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct bf {
    const struct sched_input *in;
    int64_t now;
    struct sched_ctx ctx;          /* set up only when placement needs it */
    bool ready;
    struct sched_free *empty;      /* the cluster with nothing running, all up */
    struct sched_free *cur;        /* what is free now, for ReqNodeNotAvail */
    struct sched_model model;
    bool *reserved;                /* per partition: its first blocked job has a reservation */
    size_t *aged;                  /* per partition: HERD's guard reservations made */
    bool *guarded;                 /* per pending job: planned by the guard's pre-pass */
    struct bf_memo *memo;
    uint64_t gen;                  /* bumped whenever the model changes */
    size_t tested;                 /* jobs tested since the first blocked one */
    bool any_blocked;
    struct sched_limits limits;
    struct sched_free *nowv;       /* free now, this pass's starts taken out: for the
                                      jobs of reservations and preemption; NULL if neither */
    struct sched_free *tmp;        /* a reservation's job's own view */
    struct sched_preempt *pp;      /* NULL: no pending job may preempt */
};

/* Failed "start now" tries, by job shape: a job whose shape failed with a
 * run of d seconds also fails with any run of d or more until the model
 * changes (a start or a reservation), since a longer run only meets more
 * reservations. Large queues hold few distinct shapes, so most tries are
 * answered here without looking at a node. A cache: collisions overwrite. */
#define BF_MEMO_SIZE 4096

struct bf_memo {
    const struct sched_job *shape; /* a job of that shape; NULL: empty */
    uint64_t gen;
    int64_t min_fail_dur;
};

struct bf_defer {
    size_t i;
    double key;                    /* the order: expansion factor, largest first, */
    int64_t pred;                  /* then the shortest predicted run */
};

int64_t sched_job_dur(const struct sched_input *in, const struct sched_job *j)
{
    int64_t d;

    if (j->time_est_s > 0)
        d = j->time_est_s;
    else if (j->time_limit_min >= 0)
        d = j->time_limit_min * 60;
    else if (in->parts[j->part].max_time_min >= 0)
        d = in->parts[j->part].max_time_min * 60;
    else
        return SCHED_FOREVER;
    return d > 0 ? d : 1;
}

/* The pool model needs neither placement nor views, so a pass on it sets up
 * nothing per node unless a job asks for -w nodes or can never run. */
static void bf_ready(struct bf *b)
{
    size_t nn = b->in->nnodes ? b->in->nnodes : 1;

    if (b->ready)
        return;
    b->ready = true;
    sched_ctx_init(&b->ctx, b->in);
    b->empty = xcalloc(nn, sizeof(*b->empty));
    b->cur = xcalloc(nn, sizeof(*b->cur));
    sched_free_empty(b->in, b->empty);
    sched_free_current(b->in, b->cur);
}

/* Reasons that need no planning: held, partition down, never runnable,
 * a -w node down. SCHED_NONE: plan it. */
static enum sched_reason bf_static(struct bf *b, const struct sched_job *j)
{
    enum sched_reason r;

    if (j->held_admin)
        return SCHED_HELD_ADMIN;
    if (j->held_user)
        return SCHED_HELD_USER;
    if (j->part < b->in->nparts && !b->in->parts[j->part].up)
        return SCHED_PART_DOWN;
    if (j->nreq_nodes > 0)
        bf_ready(b);
    r = sched_check_static(&b->ctx, b->empty, j);
    if (r != SCHED_NONE)
        return r;
    if (j->nreq_nodes > 0 && sched_check_req(&b->ctx, b->cur, j) == SCHED_REQ_DOWN)
        return SCHED_REQ_NODE_NOT_AVAIL;
    return SCHED_NONE;
}

static bool str_eq(const char *a, const char *b)
{
    if (!a || !*a || !b || !*b)
        return (!a || !*a) && (!b || !*b);
    return strcmp(a, b) == 0;
}

static bool same_shape(const struct sched_job *x, const struct sched_job *y)
{
    return x->part == y->part && x->min_nodes == y->min_nodes && x->ntasks == y->ntasks &&
           x->cpus_per_task == y->cpus_per_task && x->ntasks_per_node == y->ntasks_per_node &&
           x->mem_per_node_mb == y->mem_per_node_mb && x->mem_per_cpu_mb == y->mem_per_cpu_mb &&
           x->mem_per_gpu_mb == y->mem_per_gpu_mb && x->gpus == y->gpus &&
           x->gpus_per_node == y->gpus_per_node && x->exclusive == y->exclusive &&
           str_eq(x->gpu_type, y->gpu_type) && str_eq(x->constraint, y->constraint);
}

static size_t shape_hash(const struct sched_job *j)
{
    uint64_t h = FNV1A_OFFSET;   /* FNV-1a over the words, not the bytes */
    const int64_t v[] = { (int64_t)j->part, j->min_nodes, j->ntasks, j->cpus_per_task,
                          j->ntasks_per_node, (int64_t)j->mem_per_node_mb,
                          (int64_t)j->mem_per_cpu_mb, (int64_t)j->mem_per_gpu_mb, j->gpus,
                          j->gpus_per_node, j->exclusive };
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        h = (h ^ (uint64_t)v[i]) * FNV1A_PRIME;
    return (size_t)(h & (BF_MEMO_SIZE - 1));
}

/* The memo's slot for j, or NULL when j is not memoizable (-w, -x). */
static struct bf_memo *bf_memo_slot(struct bf *b, const struct sched_job *j)
{
    if (j->nreq_nodes || j->nexcl_nodes)
        return NULL;
    if (!b->memo)
        b->memo = xcalloc(BF_MEMO_SIZE, sizeof(*b->memo));
    return &b->memo[shape_hash(j)];
}

static bool bf_depth_left(struct bf *b)
{
    if (!b->any_blocked || b->in->bf_max_job_test == 0)
        return true;
    return b->tested++ < b->in->bf_max_job_test;
}

static void bf_started(struct bf *b, const struct sched_job *j, const struct sched_decision *d)
{
    if (b->nowv)
        sched_free_take_all(b->nowv, d, j->exclusive);
}

static int64_t bf_end(const struct bf *b, int64_t dur)
{
    return dur >= SCHED_FOREVER - b->now ? SCHED_FOREVER : b->now + dur;
}

/* A job of a reservation: placed on what its reservation holds, and then
 * busy time in the model like any start. */
static void bf_member(struct bf *b, const struct sched_job *j, struct sched_decision *d)
{
    int64_t dur = sched_job_dur(b->in, j);

    d->reason = sched_resv_member(&b->ctx, b->nowv, b->tmp, j, b->now, dur, d);
    if (d->reason != SCHED_NONE)
        return;
    sched_alloc_picks(&b->ctx, b->tmp, j, d);
    d->start_estimate = b->now;
    b->model.take(b->model.m, d, j->exclusive,
                  sched_round_up(bf_end(b, dur), b->now, b->in->bf_resolution_s));
    b->gen++;
    bf_started(b, j, d);
    sched_limits_take(&b->limits, j);
}

/* A job that cannot start now: kept out by a reservation, or waiting for
 * the jobs it preempts. */
static void bf_after(struct bf *b, const struct sched_job *j, struct sched_decision *d)
{
    int64_t dur;
    enum sched_reason r = SCHED_NONE;

    if (!b->nowv || (d->reason != SCHED_RESOURCES && d->reason != SCHED_PRIORITY))
        return;
    dur = sched_job_dur(b->in, j);
    if (b->in->nresvs)
        r = sched_resv_blocks(&b->ctx, b->nowv, j, b->now, dur);
    if (r != SCHED_NONE) {
        d->reason = r;
        return;
    }
    /* The partition's first blocked job has the model's reservation: any
     * later one may preempt only where that delays none. */
    const struct sched_model *gate = d->reason == SCHED_RESOURCES ? NULL : &b->model;
    if (gate && !gate->room)
        return;
    struct sched_decision claim = { 0 };
    if (!b->pp || !sched_preempt_find(b->pp, &b->ctx, b->nowv, j, b->now, dur, gate, d, &claim))
        return;
    d->reason = SCHED_RESOURCES;
    sched_free_take_all(b->nowv, &claim, j->exclusive);
    b->model.take(b->model.m, &claim, j->exclusive,
                  sched_round_up(bf_end(b, dur), b->now, b->in->bf_resolution_s));
    b->gen++;
    free(claim.allocs);
}

/* A job planned with a reservation (BACKFILL: every one; EASY: the first
 * blocked of its partition). */
static void bf_reserve(struct bf *b, const struct sched_job *j, struct sched_decision *d)
{
    int64_t t = b->model.plan(b->model.m, j, sched_job_dur(b->in, j), true, d);

    if (t >= 0)
        b->gen++;
    d->start_estimate = t;
    if (t == b->now) {
        d->reason = SCHED_NONE;
        bf_started(b, j, d);
        return;
    }
    if (t < 0)
        bf_ready(b);
    if (t < 0 && !sched_place(&b->ctx, b->empty, j)) {
        d->reason = SCHED_BAD_CONSTRAINTS;
        return;
    }
    d->reason = b->reserved[j->part] ? SCHED_PRIORITY : SCHED_RESOURCES;
    b->reserved[j->part] = true;
    b->any_blocked = true;
}

static void bf_try_now(struct bf *b, const struct sched_job *j, int64_t dur,
                       struct sched_decision *d)
{
    struct bf_memo *m = bf_memo_slot(b, j);
    int64_t t;

    if (m && m->shape && m->gen == b->gen && dur >= m->min_fail_dur && same_shape(m->shape, j)) {
        d->start_estimate = -1;
        d->reason = SCHED_PRIORITY;
        return;
    }
    t = b->model.plan(b->model.m, j, dur, false, d);
    if (t == b->now) {
        b->gen++;
        bf_started(b, j, d);
    } else if (m) {
        bool same = m->shape && m->gen == b->gen && same_shape(m->shape, j);
        if (!same || dur < m->min_fail_dur)
            *m = (struct bf_memo){ j, b->gen, dur };
    }
    d->start_estimate = t;
    d->reason = t == b->now ? SCHED_NONE : SCHED_PRIORITY;
}

static int defer_cmp(const void *a, const void *b)
{
    const struct bf_defer *x = a, *y = b;

    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    if (x->pred != y->pred)
        return x->pred < y->pred ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* HERD's backfill order: the expansion factor (wait + p) / p, p the
 * predicted run (at least the bounded slowdown's 10 s): the job whose
 * slowdown grows fastest if it waits goes first. Among jobs that have just
 * arrived that is the shortest predicted first; a long job's factor grows
 * while it waits, so short jobs cannot keep it behind them for ever. */
static int64_t bf_predicted(const struct bf *b, const struct sched_job *j)
{
    return j->predict_s > 0 ? j->predict_s : sched_job_dur(b->in, j);
}

static double bf_xfactor(const struct bf *b, const struct sched_job *j)
{
    int64_t p = bf_predicted(b, j);
    double pd = p > 10 ? (double)p : 10.0;
    double w = j->waited_s > 0 ? (double)j->waited_s : 0.0;

    return (w + pd) / pd;
}

/* Jobs behind their partition's reservation, largest expansion factor first. */
static void bf_run_deferred(struct bf *b, struct bf_defer *df, size_t n, struct sched_output *out)
{
    qsort(df, n, sizeof(*df), defer_cmp);
    for (size_t k = 0; k < n; k++) {
        struct sched_decision *d = &out->d[df[k].i];
        const struct sched_job *j = &b->in->pending[df[k].i];
        if (!sched_limits_fit(&b->limits, j, d))
            d->reason = SCHED_LIMIT;
        else if (bf_depth_left(b))
            bf_try_now(b, j, sched_job_dur(b->in, j), d);
        else
            d->reason = SCHED_PRIORITY;
        if (d->reason == SCHED_NONE)
            sched_limits_take(&b->limits, j);
        bf_after(b, j, d);
    }
}

static bool bf_aged(const struct bf *b, const struct sched_job *j)
{
    return b->in->age_bound_s > 0 && j->waited_s >= b->in->age_bound_s;
}

static void bf_job(struct bf *b, size_t i, struct sched_output *out, struct bf_defer *df,
                   size_t *ndf)
{
    const struct sched_job *j = &b->in->pending[i];
    struct sched_decision *d = &out->d[i];
    enum sched_policy pol = b->in->policy;

    if (b->guarded && b->guarded[i]) {
        /* Reserved by the guard; if it is its partition's first blocked
         * job, that is its EASY reservation too. */
        if (d->reason == SCHED_RESOURCES || d->reason == SCHED_PRIORITY) {
            d->reason = b->reserved[j->part] ? SCHED_PRIORITY : SCHED_RESOURCES;
            b->reserved[j->part] = true;
            b->any_blocked = true;
            bf_after(b, j, d);     /* it may still preempt */
        }
        return;
    }
    d->reason = bf_static(b, j);
    if (d->reason == SCHED_NONE && !sched_limits_fit(&b->limits, j, d))
        d->reason = SCHED_LIMIT;
    if (d->reason != SCHED_NONE)
        return;
    if (j->resv) {
        bf_member(b, j, d);
        return;
    }
    if (pol == SCHED_POLICY_BACKFILL || !b->reserved[j->part]) {
        if (bf_depth_left(b))
            bf_reserve(b, j, d);
        else
            d->reason = SCHED_PRIORITY;
    } else if (pol == SCHED_POLICY_HERD && bf_aged(b, j)) {
        /* Past the age bound (beyond the guard's reservations): as under
         * EASY, tried in priority order, before every deferred job. */
        if (bf_depth_left(b))
            bf_try_now(b, j, sched_job_dur(b->in, j), d);
        else
            d->reason = SCHED_PRIORITY;
    } else if (pol == SCHED_POLICY_HERD) {
        df[*ndf].i = i;
        df[*ndf].key = bf_xfactor(b, j);
        df[*ndf].pred = bf_predicted(b, j);
        (*ndf)++;
    } else if (bf_depth_left(b)) {
        bf_try_now(b, j, sched_job_dur(b->in, j), d);
    } else {
        d->reason = SCHED_PRIORITY;
    }
    if (d->reason == SCHED_NONE && d->nallocs > 0)   /* started now, not deferred */
        sched_limits_take(&b->limits, j);
    bf_after(b, j, d);
}

struct bf_age {
    size_t i;
    int64_t waited;
};

static int age_cmp(const void *a, const void *b)
{
    const struct bf_age *x = a, *y = b;

    if (x->waited != y->waited)
        return x->waited > y->waited ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* HERD's starvation guard, before any other job is planned: the age_resv
 * longest-waiting jobs of each partition past the age bound get a
 * reservation on time limits. Planned first, it is never pushed back by a
 * job planned after it, whatever its priority or predicted run; the
 * partition's first blocked job in priority order keeps its own. */
static void bf_guard(struct bf *b, struct sched_output *out)
{
    const struct sched_input *in = b->in;
    struct bf_age *aged;
    size_t n = 0;

    if (in->policy != SCHED_POLICY_HERD || in->age_bound_s <= 0 || in->age_resv == 0)
        return;
    for (size_t i = 0; i < in->npending; i++)
        n += bf_aged(b, &in->pending[i]) && !in->pending[i].resv;
    if (n == 0)
        return;
    aged = xcalloc(n, sizeof(*aged));
    n = 0;
    for (size_t i = 0; i < in->npending; i++)
        if (bf_aged(b, &in->pending[i]) && !in->pending[i].resv)
            aged[n++] = (struct bf_age){ i, in->pending[i].waited_s };
    qsort(aged, n, sizeof(*aged), age_cmp);
    b->guarded = xcalloc(in->npending, sizeof(*b->guarded));
    for (size_t k = 0; k < n; k++) {
        const struct sched_job *j = &in->pending[aged[k].i];
        struct sched_decision *d = &out->d[aged[k].i];
        if (b->aged[j->part] >= in->age_resv)
            continue;
        d->reason = bf_static(b, j);
        if (d->reason == SCHED_NONE && !sched_limits_fit(&b->limits, j, d))
            d->reason = SCHED_LIMIT;
        if (d->reason != SCHED_NONE)
            continue;
        bool was = b->reserved[j->part];
        bf_reserve(b, j, d);
        b->reserved[j->part] = was;
        b->any_blocked = false;
        b->aged[j->part]++;
        b->guarded[aged[k].i] = true;
        if (d->reason == SCHED_NONE)
            sched_limits_take(&b->limits, j);
    }
    xfree(aged);
}

static bool any_preemptor(const struct sched_input *in)
{
    for (size_t i = 0; i < in->npending; i++)
        if (in->pending[i].preempts)
            return true;
    return false;
}

/* The views reservations and preemption need, when they are in play. */
static void bf_now_views(struct bf *b)
{
    const struct sched_input *in = b->in;
    size_t nn = in->nnodes ? in->nnodes : 1;
    bool pre = any_preemptor(in);

    if (in->nresvs == 0 && !pre)
        return;
    bf_ready(b);
    b->nowv = xcalloc(nn, sizeof(*b->nowv));
    b->tmp = xcalloc(nn, sizeof(*b->tmp));
    sched_free_current(in, b->nowv);
    b->pp = pre ? sched_preempt_new(in) : NULL;
}

void sched_backfill(const struct sched_input *in, int64_t now, struct sched_output *out)
{
    struct bf b = { .in = in, .now = now, .ctx.in = in };
    size_t ndf = 0;
    struct bf_defer *df = xcalloc(in->npending ? in->npending : 1, sizeof(*df));

    b.reserved = xcalloc(in->nparts ? in->nparts : 1, sizeof(*b.reserved));
    b.aged = xcalloc(in->nparts ? in->nparts : 1, sizeof(*b.aged));
    sched_limits_init(&b.limits, in);
    bf_now_views(&b);
    if (!sched_pool_new(in, now, &b.model)) {
        bf_ready(&b);
        sched_profile_new(in, now, &b.ctx, &b.model);
    }
    bf_guard(&b, out);
    for (size_t i = 0; i < in->npending; i++)
        bf_job(&b, i, out, df, &ndf);
    bf_run_deferred(&b, df, ndf, out);
    b.model.destroy(b.model.m);
    if (b.ready)
        sched_ctx_fini(&b.ctx);
    xfree(b.empty);
    xfree(b.cur);
    xfree(b.reserved);
    xfree(b.aged);
    xfree(b.guarded);
    xfree(b.memo);
    xfree(b.nowv);
    xfree(b.tmp);
    sched_preempt_free(b.pp);
    xfree(df);
    sched_limits_fini(&b.limits);
}
