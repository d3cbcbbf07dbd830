/*
 * plan: one pass of the main scheduler (Slurm's, without backfill: the other
 * policies plan ahead in backfill.c). Pending
 * jobs are taken in priority order; the first one of a partition that cannot
 * start blocks every later job of that partition, which then waits with
 * reason Priority. Held jobs, jobs of a down partition and jobs that can
 * never run are skipped without blocking anything.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct plan {
    const struct sched_input *in;
    struct sched_ctx ctx;
    struct sched_free *free;       /* what each node can still take in this pass */
    struct sched_free *empty;      /* the cluster with nothing running, all up */
    bool *blocked;                 /* per partition: a job waits for resources */
    struct sched_limits limits;
};

static void plan_init(struct plan *p, const struct sched_input *in)
{
    size_t nn = in->nnodes ? in->nnodes : 1;

    p->in = in;
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
    sched_limits_fini(&p->limits);
}

/* Gives the job the nodes placement chose and takes them out of the view. */
static void plan_start(struct plan *p, const struct sched_job *j, struct sched_decision *d)
{
    struct sched_ctx *c = &p->ctx;
    struct sched_shape sh;

    sched_shape_init(&sh, j, c->nreq);
    d->allocs = xcalloc(c->npicks, sizeof(*d->allocs));
    d->nallocs = c->npicks;
    for (size_t i = 0; i < c->npicks; i++) {
        size_t n = c->picks[i].node;
        struct sched_alloc *a = &d->allocs[i];
        a->node = n;
        sched_free_alloc(&p->free[n], &p->in->nodes[n], &sh, &c->picks[i].slot, a);
        sched_free_take(&p->free[n], a, j->exclusive);
    }
}

static enum sched_reason plan_job(struct plan *p, const struct sched_job *j,
                                  struct sched_decision *d)
{
    enum sched_reason r;

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
    if (p->blocked[j->part])
        return SCHED_PRIORITY;
    if (sched_check_req(&p->ctx, p->free, j) == SCHED_REQ_DOWN) {
        p->blocked[j->part] = true;
        return SCHED_REQ_NODE_NOT_AVAIL;
    }
    if (sched_place(&p->ctx, p->free, j)) {
        plan_start(p, j, d);
        sched_limits_take(&p->limits, j);
        return SCHED_NONE;
    }
    if (!sched_place(&p->ctx, p->empty, j))
        return SCHED_BAD_CONSTRAINTS;
    p->blocked[j->part] = true;
    return SCHED_RESOURCES;
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
    if (in->policy != SCHED_POLICY_FIFO) {
        sched_backfill(in, now, out);
    } else {
        plan_init(&p, in);
        for (size_t i = 0; i < in->npending; i++) {
            out->d[i].reason = plan_job(&p, &in->pending[i], &out->d[i]);
            if (out->d[i].reason == SCHED_NONE)
                out->d[i].start_estimate = now;
        }
        plan_fini(&p);
    }
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
