/*
 * feasible: whether a job could ever run in its partition, judged on the
 * cluster with nothing running and every node up. The pass uses the same
 * test so that a job that can never fit does not block its partition.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

enum sched_reason sched_check_static(struct sched_ctx *c, const struct sched_free *empty,
                                     const struct sched_job *j)
{
    const struct sched_input *in = c->in;
    const struct sched_part *p;

    if (j->part >= in->nparts)
        return SCHED_BAD_CONSTRAINTS;
    p = &in->parts[j->part];
    if (j->time_limit_min >= 0 && p->max_time_min >= 0 && j->time_limit_min > p->max_time_min)
        return SCHED_PART_TIME_LIMIT;
    if (sched_check_req(c, empty, j) == SCHED_REQ_BAD)
        return SCHED_BAD_CONSTRAINTS;
    return SCHED_NONE;
}

enum sched_reason sched_feasible(const struct sched_input *in, const struct sched_job *j)
{
    struct sched_ctx c;
    struct sched_free *empty = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*empty));
    enum sched_reason r;

    sched_ctx_init(&c, in);
    sched_free_empty(in, empty);
    r = sched_check_static(&c, empty, j);
    if (r == SCHED_NONE && !sched_place(&c, empty, j))
        r = SCHED_BAD_CONSTRAINTS;
    sched_ctx_fini(&c);
    free(empty);
    return r;
}
