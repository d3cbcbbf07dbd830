/*
 * resv: advance reservations in a pass. A reservation holds resources
 * from its start to its end; to every other job they are busy time in the
 * future (the backfill model adds them as events, the main scheduler and
 * preemption take them out of the view a job is placed on), so no job runs
 * into a reservation it may not use. Its own jobs run only on what it
 * holds, while it lasts (FLEX: also outside it, at any time).
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

bool sched_resv_active(const struct sched_resv *r, int64_t now)
{
    return r->start <= now && now < r->end;
}

static bool overlaps(const struct sched_resv *r, int64_t from, int64_t to)
{
    return r->start < to && from < r->end;
}

bool sched_resv_hold(const struct sched_input *in, struct sched_free *v, size_t skip,
                     int64_t from, int64_t to)
{
    bool any = false;

    for (size_t i = 0; i < in->nresvs; i++) {
        const struct sched_resv *r = &in->resvs[i];
        if (i + 1 == skip || r->handover || !overlaps(r, from, to))
            continue;
        for (size_t k = 0; k < r->nholds; k++)
            if (r->holds[k].node < in->nnodes)
                sched_free_take(&v[r->holds[k].node], &r->holds[k], false);
        any = true;
    }
    return any;
}

/* Only what the reservation holds: its nodes, and there only its GPUs. */
static void restrict_to(const struct sched_input *in, const struct sched_resv *r,
                        struct sched_free *v)
{
    uint64_t *gpus = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*gpus));
    bool *held = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*held));

    for (size_t k = 0; k < r->nholds; k++)
        if (r->holds[k].node < in->nnodes) {
            held[r->holds[k].node] = true;
            gpus[r->holds[k].node] |= r->holds[k].gpu_mask;
        }
    for (size_t n = 0; n < in->nnodes; n++) {
        v[n].avail = v[n].avail && held[n];
        v[n].gpus &= gpus[n];
    }
    free(gpus);
    free(held);
}

enum sched_reason sched_resv_member(struct sched_ctx *c, const struct sched_free *now_view,
                                    struct sched_free *tmp, const struct sched_job *j,
                                    int64_t now, int64_t dur, struct sched_decision *d)
{
    const struct sched_input *in = c->in;
    const struct sched_resv *r;

    if (j->resv > in->nresvs || in->resvs[j->resv - 1].handover)
        return SCHED_RESV_DELETED;
    r = &in->resvs[j->resv - 1];
    if (!r->flex && !sched_resv_active(r, now)) {
        d->start_estimate = r->start > now ? r->start : -1;
        return SCHED_RESERVATION;
    }
    memcpy(tmp, now_view, in->nnodes * sizeof(*tmp));
    if (!r->flex)
        restrict_to(in, r, tmp);
    sched_resv_hold(in, tmp, j->resv, now, dur >= SCHED_FOREVER - now ? SCHED_FOREVER : now + dur);
    if (sched_check_req(c, tmp, j) == SCHED_REQ_DOWN || !sched_place(c, tmp, j))
        return SCHED_RESERVATION;
    return SCHED_NONE;
}

/* The reason of the reservations overlapping [from, to): MAINT first. */
static enum sched_reason overlap_reason(const struct sched_input *in, int64_t from, int64_t to)
{
    enum sched_reason r = SCHED_NONE;

    for (size_t i = 0; i < in->nresvs; i++)
        if (!in->resvs[i].handover && overlaps(&in->resvs[i], from, to)) {
            if (in->resvs[i].maint)
                return SCHED_RESV_MAINT;
            r = SCHED_RESV_OTHER;
        }
    return r;
}

enum sched_reason sched_resv_blocks(struct sched_ctx *c, const struct sched_free *now_view,
                                    const struct sched_job *j, int64_t now, int64_t dur)
{
    int64_t to = dur >= SCHED_FOREVER - now ? SCHED_FOREVER : now + dur;
    enum sched_reason r;

    if (j->resv || (r = overlap_reason(c->in, now, to)) == SCHED_NONE)
        return SCHED_NONE;
    if (sched_check_req(c, now_view, j) != SCHED_REQ_OK || !sched_place(c, now_view, j))
        return SCHED_NONE;
    return r;
}
