/*
 * avail: the free-resource view of each node (totals minus what is held),
 * the test whether a slot fits into it, and taking an allocation out of it.
 * Backfill will build the same view for a later time by giving back what the
 * jobs ending before then hold.
 */
#include <strings.h>

#include "sched/sched_int.h"

uint64_t sched_gpu_full(int gpus)
{
    if (gpus <= 0)
        return 0;
    if (gpus >= SCHED_MAX_GPUS)
        return UINT64_MAX;
    return (UINT64_C(1) << gpus) - 1;
}

static void free_reset(const struct sched_node *n, struct sched_free *f)
{
    f->cpus = n->cpus;
    f->mem_mb = n->mem_mb;
    f->gpus = sched_gpu_full(n->gpus);
    f->used = false;
    f->excl = false;
    f->avail = true;
}

void sched_free_empty(const struct sched_input *in, struct sched_free *f)
{
    for (size_t i = 0; i < in->nnodes; i++)
        free_reset(&in->nodes[i], &f[i]);
}

void sched_free_take(struct sched_free *f, const struct sched_alloc *a, bool exclusive)
{
    f->cpus -= a->cpus;
    f->mem_mb = f->mem_mb > a->mem_mb ? f->mem_mb - a->mem_mb : 0;
    f->gpus &= ~a->gpu_mask;
    f->used = true;
    if (exclusive) {
        f->excl = true;
        f->cpus = 0;
        f->mem_mb = 0;
        f->gpus = 0;
    }
}

struct sched_alloc sched_run_held(const struct sched_running *r, size_t k)
{
    struct sched_alloc a = r->allocs[k];

    if (r->suspended)
        a.cpus = 0;
    return a;
}

void sched_free_current(const struct sched_input *in, struct sched_free *f)
{
    sched_free_empty(in, f);
    for (size_t i = 0; i < in->nnodes; i++)
        f[i].avail = in->nodes[i].avail;
    for (size_t r = 0; r < in->nrunning; r++) {
        const struct sched_running *run = &in->running[r];
        for (size_t k = 0; k < run->nallocs; k++) {
            struct sched_alloc a = sched_run_held(run, k);
            if (a.node < in->nnodes)
                sched_free_take(&f[a.node], &a, run->exclusive);
        }
    }
}

void sched_free_take_all(struct sched_free *f, const struct sched_decision *d, bool exclusive)
{
    for (size_t i = 0; i < d->nallocs; i++)
        sched_free_take(&f[d->allocs[i].node], &d->allocs[i], exclusive);
}

static bool type_ok(const struct sched_node *n, const char *want)
{
    if (!want)
        return true;
    return n->gpu_type && strcasecmp(n->gpu_type, want) == 0;
}

bool sched_free_fits(const struct sched_free *f, const struct sched_node *n,
                     const struct sched_shape *sh, const struct sched_slot *s)
{
    if (!f->avail || f->excl || (sh->exclusive && f->used))
        return false;
    if (!type_ok(n, sh->gpu_type))
        return false;
    return f->cpus >= s->cpus && f->mem_mb >= s->mem_mb &&
           __builtin_popcountll(f->gpus) >= s->gpus;
}

/* The lowest free indices, so that what stays free stays contiguous. */
static uint64_t lowest_bits(uint64_t mask, int64_t n)
{
    uint64_t out = 0;

    while (n-- > 0 && mask) {
        uint64_t bit = mask & -mask;
        out |= bit;
        mask &= ~bit;
    }
    return out;
}

void sched_free_alloc(const struct sched_free *f, const struct sched_node *n,
                      const struct sched_shape *sh, const struct sched_slot *s,
                      struct sched_alloc *a)
{
    if (sh->exclusive) {
        a->cpus = n->cpus;
        a->mem_mb = n->mem_mb;
        a->gpu_mask = sched_gpu_full(n->gpus);
        return;
    }
    a->cpus = (int)s->cpus;
    a->mem_mb = s->mem_mb;
    a->gpu_mask = lowest_bits(f->gpus, s->gpus);
}
