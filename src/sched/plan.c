/*
 * plan: one pass of the main scheduler (Slurm's, without backfill: the other
 * policies plan ahead in backfill.c). Pending
 * jobs are taken in priority order; the first one of a partition that cannot
 * start blocks every later job of that partition, which then waits with
 * reason Priority. Held jobs, jobs of a down partition and jobs that can
 * never run are skipped without blocking anything.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct plan {
    const struct sched_input *in;
    struct sched_ctx ctx;
    struct sched_free *free;       /* what each node can still take in this pass */
    struct sched_free *empty;      /* the cluster with nothing running, all up */
    bool *blocked;                 /* per partition: a job waits for resources */
    struct sched_limits limits;
    int64_t now;
    struct sched_free *tmp;        /* a job's own view: reservations' holds taken out,
                                      or only its reservation's resources */
    struct sched_preempt *pp;      /* NULL: no pending job may preempt */
};

static bool any_preemptor(const struct sched_input *in)
{
    for (size_t i = 0; i < in->npending; i++)
        if (in->pending[i].preempts)
            return true;
    return false;
}

static void plan_init(struct plan *p, const struct sched_input *in, int64_t now)
{
    size_t nn = in->nnodes ? in->nnodes : 1;

    p->in = in;
    p->now = now;
    p->tmp = xcalloc(nn, sizeof(*p->tmp));
    p->pp = any_preemptor(in) ? sched_preempt_new(in) : NULL;
    sched_ctx_init(&p->ctx, in);
    p->free = xcalloc(nn, sizeof(*p->free));
    p->empty = xcalloc(nn, sizeof(*p->empty));
    p->blocked = xcalloc(in->nparts ? in->nparts : 1, sizeof(*p->blocked));
    sched_free_current(in, p->free);
    sched_free_empty(in, p->empty);
    sched_limits_init(&p->limits, in);
}

static void plan_fini(struct plan *p)
{
    sched_ctx_fini(&p->ctx);
    xfree(p->free);
    xfree(p->empty);
    xfree(p->blocked);
    xfree(p->tmp);
    sched_preempt_free(p->pp);
    sched_limits_fini(&p->limits);
}

/* Gives the job the nodes placement chose in view and takes them out of
 * what is free. */
static void plan_start(struct plan *p, const struct sched_free *view, const struct sched_job *j,
                       struct sched_decision *d)
{
    sched_alloc_picks(&p->ctx, view, j, d);
    sched_free_take_all(p->free, d, j->exclusive);
    sched_limits_take(&p->limits, j);
}

static int64_t plan_end(const struct plan *p, const struct sched_job *j)
{
    int64_t dur = sched_job_dur(p->in, j);

    return dur >= SCHED_FOREVER - p->now ? SCHED_FOREVER : p->now + dur;
}

/* What j may start on now: the free view less the reservations it would
 * run into. */
static const struct sched_free *plan_view(struct plan *p, const struct sched_job *j)
{
    if (p->in->nresvs == 0)
        return p->free;
    memcpy(p->tmp, p->free, p->in->nnodes * sizeof(*p->tmp));
    return sched_resv_hold(p->in, p->tmp, 0, p->now, plan_end(p, j)) ? p->tmp : p->free;
}

static enum sched_reason plan_member(struct plan *p, const struct sched_job *j,
                                     struct sched_decision *d)
{
    enum sched_reason r = sched_resv_member(&p->ctx, p->free, p->tmp, j, p->now,
                                            plan_end(p, j) - p->now, d);
    if (r == SCHED_NONE)
        plan_start(p, p->tmp, j, d);
    return r;
}

/* j cannot start now: a maintenance keeps it out, or it waits for the
 * jobs it preempts, or for resources. */
static enum sched_reason plan_blocked(struct plan *p, const struct sched_job *j,
                                      struct sched_decision *d)
{
    int64_t dur = plan_end(p, j) - p->now;
    enum sched_reason r = p->in->nresvs ? sched_resv_blocks(&p->ctx, p->free, j, p->now, dur)
                                        : SCHED_NONE;

    if (r != SCHED_NONE)   /* waiting for a window, not for resources: later jobs may fit */
        return r;
    p->blocked[j->part] = true;
    struct sched_decision claim = { 0 };
    if (p->pp && sched_preempt_find(p->pp, &p->ctx, p->free, j, p->now, dur, NULL, d, &claim)) {
        sched_free_take_all(p->free, &claim, j->exclusive);
        free(claim.allocs);
    }
    return SCHED_RESOURCES;
}

static enum sched_reason plan_job(struct plan *p, const struct sched_job *j,
                                  struct sched_decision *d)
{
    enum sched_reason r;
    const struct sched_free *v;

    if (j->held_admin)
        return SCHED_HELD_ADMIN;
    if (j->held_user)
        return SCHED_HELD_USER;
    if (j->part < p->in->nparts && !p->in->parts[j->part].up)
        return SCHED_PART_DOWN;
    r = sched_check_static(&p->ctx, p->empty, j);
    if (r != SCHED_NONE)
        return r;
    if (!sched_limits_fit(&p->limits, j, d))
        return SCHED_LIMIT;
    if (j->resv)
        return plan_member(p, j, d);
    if (p->blocked[j->part])
        return SCHED_PRIORITY;
    if (sched_check_req(&p->ctx, p->free, j) == SCHED_REQ_DOWN) {
        p->blocked[j->part] = true;
        return SCHED_REQ_NODE_NOT_AVAIL;
    }
    v = plan_view(p, j);
    if (sched_place(&p->ctx, v, j)) {
        plan_start(p, v, j, d);
        return SCHED_NONE;
    }
    if (!sched_place(&p->ctx, p->empty, j))
        return SCHED_BAD_CONSTRAINTS;
    return plan_blocked(p, j, d);
}

void sched_plan(const struct sched_input *in, int64_t now, struct sched_output *out)
{
    struct plan p;

    out->n = in->npending;
    out->d = xcalloc(in->npending ? in->npending : 1, sizeof(*out->d));
    for (size_t i = 0; i < in->npending; i++) {
        out->d[i].job_id = in->pending[i].job_id;
        out->d[i].start_estimate = -1;
    }
    struct sched_input *net = sched_resv_net(in, now);
    const struct sched_input *use = net ? net : in;
    if (in->policy != SCHED_POLICY_FIFO) {
        sched_backfill(use, now, out);
    } else {
        plan_init(&p, use, now);
        for (size_t i = 0; i < in->npending; i++) {
            out->d[i].reason = plan_job(&p, &in->pending[i], &out->d[i]);
            if (out->d[i].reason == SCHED_NONE)
                out->d[i].start_estimate = now;
        }
        plan_fini(&p);
    }
    sched_resv_net_free(net);
    sched_estimate_rest(in, now, out);
}

void sched_output_free(struct sched_output *out)
{
    if (!out)
        return;
    for (size_t i = 0; i < out->n; i++) {
        free(out->d[i].allocs);
        free(out->d[i].preempt);
    }
    xfree(out->d);
    out->n = 0;
}
