/*
 * place: choosing a job's nodes. Candidates are the partition's available
 * nodes minus -x; -w nodes are chosen first, then each run of equal slots
 * takes the tightest nodes that fit it (lowest Weight, then fewest free
 * GPUs, then fewest free CPUs, then lowest index), which keeps whole nodes
 * free for big jobs. -C keeps only the nodes whose features satisfy it.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

void sched_ctx_init(struct sched_ctx *c, const struct sched_input *in)
{
    size_t n = in->nnodes ? in->nnodes : 1;

    c->in = in;
    c->gen = 0;
    c->cand = xcalloc(n, sizeof(*c->cand));
    c->taken = xcalloc(n, sizeof(*c->taken));
    c->req = xcalloc(n, sizeof(*c->req));
    c->nreq = 0;
    c->list = xcalloc(n, sizeof(*c->list));
    c->picks = xcalloc(n, sizeof(*c->picks));
    c->npicks = 0;
}

void sched_ctx_fini(struct sched_ctx *c)
{
    xfree(c->cand);
    xfree(c->taken);
    xfree(c->req);
    xfree(c->list);
    xfree(c->picks);
}

/* Marks the partition's nodes minus -x (and, if f, minus unavailable ones)
 * as candidates of a new generation; returns how many there are. */
static size_t mark_candidates(struct sched_ctx *c, const struct sched_free *f,
                              const struct sched_job *j)
{
    const struct sched_part *p = &c->in->parts[j->part];
    size_t count = 0;

    c->gen++;
    for (size_t i = 0; i < p->nnodes; i++) {
        size_t n = p->nodes[i];
        if (n >= c->in->nnodes || c->cand[n] == c->gen || (f && !f[n].avail))
            continue;
        if (j->constraint && *j->constraint &&
            !sched_features_match(c->in->nodes[n].features, j->constraint))
            continue;
        c->cand[n] = c->gen;
        count++;
    }
    for (size_t i = 0; i < j->nexcl_nodes; i++) {
        size_t n = j->excl_nodes[i];
        if (n < c->in->nnodes && c->cand[n] == c->gen) {
            c->cand[n] = 0;
            count--;
        }
    }
    return count;
}

void sched_place_eligible(struct sched_ctx *c, const struct sched_job *j, uint8_t *elig)
{
    mark_candidates(c, NULL, j);
    for (size_t n = 0; n < c->in->nnodes; n++)
        elig[n] = c->cand[n] == c->gen && c->in->nodes[n].avail;
}

enum sched_req_state sched_check_req(struct sched_ctx *c, const struct sched_free *f,
                                     const struct sched_job *j)
{
    enum sched_req_state st = SCHED_REQ_OK;

    if (j->nreq_nodes == 0)        /* the common case; marking costs a partition's length */
        return st;
    mark_candidates(c, NULL, j);
    for (size_t i = 0; i < j->nreq_nodes; i++) {
        size_t n = j->req_nodes[i];
        if (n >= c->in->nnodes || c->cand[n] != c->gen)
            return SCHED_REQ_BAD;
        if (!f[n].avail)
            st = SCHED_REQ_DOWN;
    }
    return st;
}

/* Collects the distinct -w nodes; false if one is not a candidate. */
static bool collect_req(struct sched_ctx *c, const struct sched_job *j)
{
    c->nreq = 0;
    for (size_t i = 0; i < j->nreq_nodes; i++) {
        size_t n = j->req_nodes[i];
        if (n >= c->in->nnodes || c->cand[n] != c->gen)
            return false;
        if (c->taken[n] == c->gen)
            continue;
        c->taken[n] = c->gen;
        c->req[c->nreq++] = n;
    }
    return true;
}

static void add_pick(struct sched_ctx *c, size_t node, const struct sched_slot *s)
{
    c->taken[node] = c->gen;
    c->picks[c->npicks].node = node;
    c->picks[c->npicks].slot = *s;
    c->npicks++;
}

/* Each -w node takes the largest remaining slot it fits. */
static bool place_req(struct sched_ctx *c, const struct sched_free *f,
                      struct sched_shape *sh, size_t *left)
{
    for (size_t i = 0; i < c->nreq; i++) {
        size_t n = c->req[i], r;
        for (r = 0; r < sh->nruns; r++)
            if (left[r] > 0 && sched_free_fits(&f[n], &c->in->nodes[n], sh, &sh->runs[r].slot))
                break;
        if (r == sh->nruns)
            return false;
        left[r]--;
        add_pick(c, n, &sh->runs[r].slot);
    }
    return true;
}

static void cand_key(const struct sched_free *f, const struct sched_node *n,
                     const struct sched_slot *s, size_t node, struct sched_cand *k)
{
    /* Lower Weight first, as in Slurm; 0 (unset) and 1 (the default) rank alike. */
    k->w = n->weight > 1 ? n->weight : 1;
    /* A job without GPUs goes to the nodes with fewest GPUs first. */
    k->k1 = s->gpus > 0 ? (uint64_t)__builtin_popcountll(f->gpus) : (uint64_t)n->gpus;
    k->k2 = f->cpus;
    k->node = node;
}

static int cand_cmp(const void *a, const void *b)
{
    const struct sched_cand *x = a, *y = b;

    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    if (x->k2 != y->k2)
        return x->k2 < y->k2 ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The `want` tightest free candidates that fit slot s. */
static bool place_run(struct sched_ctx *c, const struct sched_free *f,
                      const struct sched_shape *sh, const struct sched_slot *s, size_t want)
{
    size_t nfit = 0;

    for (size_t n = 0; n < c->in->nnodes; n++) {
        struct sched_cand k;
        if (c->cand[n] != c->gen || c->taken[n] == c->gen ||
            !sched_free_fits(&f[n], &c->in->nodes[n], sh, s))
            continue;
        cand_key(&f[n], &c->in->nodes[n], s, n, &k);
        if (want == 1 && nfit == 1) {
            if (cand_cmp(&k, &c->list[0]) < 0)
                c->list[0] = k;
        } else {
            c->list[nfit++] = k;
        }
    }
    if (nfit < want)
        return false;
    if (want > 1)
        qsort(c->list, nfit, sizeof(*c->list), cand_cmp);
    for (size_t i = 0; i < want; i++)
        add_pick(c, c->list[i].node, s);
    return true;
}

static int pick_cmp(const void *a, const void *b)
{
    const struct sched_pick *x = a, *y = b;

    return x->node < y->node ? -1 : x->node > y->node;
}

/* Sorted by node; where it still fits, the lowest-index node gets the first
 * position's slot (the remainder of a block distribution), as Slurm lays it. */
static void order_picks(struct sched_ctx *c, const struct sched_free *f,
                        const struct sched_shape *sh)
{
    size_t i = 0, pos = 0;

    qsort(c->picks, c->npicks, sizeof(*c->picks), pick_cmp);
    for (size_t r = 0; r < sh->nruns; r++)
        for (size_t k = 0; k < sh->runs[r].len; k++, pos++)
            if (!sched_free_fits(&f[c->picks[pos].node], &c->in->nodes[c->picks[pos].node],
                                 sh, &sh->runs[r].slot))
                return;
    for (size_t r = 0; r < sh->nruns; r++)
        for (size_t k = 0; k < sh->runs[r].len; k++)
            c->picks[i++].slot = sh->runs[r].slot;
}

bool sched_place(struct sched_ctx *c, const struct sched_free *f, const struct sched_job *j)
{
    struct sched_shape sh;
    size_t left[SCHED_MAX_RUNS];
    size_t ncand = mark_candidates(c, f, j);

    c->npicks = 0;
    if (!collect_req(c, j))
        return false;
    sched_shape_init(&sh, j, c->nreq);
    if (sh.nnodes > ncand)
        return false;
    for (size_t r = 0; r < sh.nruns; r++)
        left[r] = sh.runs[r].len;
    if (!place_req(c, f, &sh, left))
        return false;
    for (size_t r = 0; r < sh.nruns; r++)
        if (left[r] > 0 && !place_run(c, f, &sh, &sh.runs[r].slot, left[r]))
            return false;
    order_picks(c, f, &sh);
    return true;
}

void sched_alloc_picks(struct sched_ctx *c, const struct sched_free *view,
                       const struct sched_job *j, struct sched_decision *d)
{
    struct sched_shape sh;

    sched_shape_init(&sh, j, c->nreq);
    d->allocs = xcalloc(c->npicks ? c->npicks : 1, sizeof(*d->allocs));
    d->nallocs = c->npicks;
    for (size_t i = 0; i < c->npicks; i++) {
        size_t n = c->picks[i].node;
        d->allocs[i].node = n;
        sched_free_alloc(&view[n], &c->in->nodes[n], &sh, &c->picks[i].slot, &d->allocs[i]);
    }
}
