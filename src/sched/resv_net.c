/*
 * resv_net: running jobs inside reservations counted once (sched_int.h).
 * Without it a job already running on a held node (one that started before
 * the reservation was made, IGNORE_JOBS, or the reservation's own) would
 * count twice in the view of now, as busy and as held, and a node's free
 * CPUs would go below zero.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct net {
    struct sched_input in;
    int64_t now;
    struct sched_resv *resvs;
    size_t nresvs, cap;
};

static struct sched_alloc overlap(const struct sched_alloc *held, const struct sched_alloc *a,
                                  bool exclusive)
{
    struct sched_alloc o = *held;

    if (exclusive)   /* it holds the whole node: all of the hold is its */
        return o;
    o.cpus = a->cpus < held->cpus ? a->cpus : held->cpus;
    o.mem_mb = a->mem_mb < held->mem_mb ? a->mem_mb : held->mem_mb;
    o.gpu_mask = a->gpu_mask & held->gpu_mask;
    return o;
}

static void less(struct sched_alloc *h, const struct sched_alloc *o)
{
    h->cpus -= o->cpus;
    h->mem_mb -= o->mem_mb;
    h->gpu_mask &= ~o->gpu_mask;
}

static void add_handover(struct net *n, size_t ri, int64_t from, const struct sched_alloc *o)
{
    int64_t end = n->resvs[ri].end;   /* read before the array may move */
    bool maint = n->resvs[ri].maint;
    struct sched_alloc *h = xmalloc(sizeof(*h));

    *h = *o;
    if (n->nresvs == n->cap) {
        n->cap *= 2;
        n->resvs = xrealloc(n->resvs, n->cap * sizeof(*n->resvs));
    }
    n->resvs[n->nresvs++] = (struct sched_resv){ .start = from, .end = end, .holds = h,
                                                 .nholds = 1, .maint = maint,
                                                 .handover = true };
}

/* The running jobs' allocations on each node, as lists through x[]. */
struct by_node {
    size_t *first;                 /* per node: an index into x, SIZE_MAX none */
    struct { size_t run, k, next; } *x;
};

/* Takes from r's hold on node h->node what the jobs running there inside
 * its window use; hands it back at each one's end. */
static void net_hold(struct net *n, size_t ri, struct sched_alloc *h, const struct by_node *b)
{
    for (size_t x = b->first[h->node]; x != SIZE_MAX; x = b->x[x].next) {
        const struct sched_running *run = &n->in.running[b->x[x].run];
        int64_t start = n->resvs[ri].start, end = n->resvs[ri].end;
        if (run->end_time >= 0 && run->end_time <= start)
            continue;
        struct sched_alloc a = sched_run_held(run, b->x[x].k);
        struct sched_alloc o = overlap(h, &a, run->exclusive);
        if (!o.cpus && !o.mem_mb && !o.gpu_mask)
            continue;
        less(h, &o);
        /* a job past its expected end is busy until the next pass at least */
        int64_t from = run->end_time > n->now ? run->end_time : n->now + 1;
        if (run->end_time >= 0 && from < end)
            add_handover(n, ri, from, &o);
    }
}

static void by_node_build(const struct sched_input *in, struct by_node *b)
{
    size_t nn = in->nnodes ? in->nnodes : 1, nx = 0;

    for (size_t r = 0; r < in->nrunning; r++)
        nx += in->running[r].nallocs;
    b->first = xmalloc(nn * sizeof(*b->first));
    b->x = xmalloc((nx ? nx : 1) * sizeof(*b->x));
    memset(b->first, 0xff, nn * sizeof(*b->first));
    nx = 0;
    for (size_t r = 0; r < in->nrunning; r++)
        for (size_t k = 0; k < in->running[r].nallocs; k++) {
            size_t node = in->running[r].allocs[k].node;
            if (node >= in->nnodes)
                continue;
            b->x[nx].run = r;
            b->x[nx].k = k;
            b->x[nx].next = b->first[node];
            b->first[node] = nx++;
        }
}

struct sched_input *sched_resv_net(const struct sched_input *in, int64_t now)
{
    if (in->nresvs == 0)
        return NULL;
    struct net *n = xcalloc(1, sizeof(*n));
    struct by_node b;

    n->in = *in;
    n->now = now;
    n->cap = 2 * in->nresvs;
    n->resvs = xmalloc(n->cap * sizeof(*n->resvs));
    by_node_build(in, &b);
    for (size_t i = 0; i < in->nresvs; i++) {
        struct sched_alloc *h = xmalloc((in->resvs[i].nholds + 1) * sizeof(*h));
        memcpy(h, in->resvs[i].holds, in->resvs[i].nholds * sizeof(*h));
        n->resvs[n->nresvs++] = in->resvs[i];
        n->resvs[i].holds = h;
        for (size_t k = 0; k < in->resvs[i].nholds; k++)
            if (h[k].node < in->nnodes)
                net_hold(n, i, &h[k], &b);
    }
    free(b.first);
    free(b.x);
    n->in.resvs = n->resvs;
    n->in.nresvs = n->nresvs;
    return &n->in;
}

void sched_resv_net_free(struct sched_input *net)
{
    struct net *n = (struct net *)net;

    if (!n)
        return;
    for (size_t i = 0; i < n->nresvs; i++)
        free((void *)n->resvs[i].holds);
    free(n->resvs);
    free(n);
}
