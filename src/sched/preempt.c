/*
 * preempt: choosing the running jobs a waiting job may preempt. The job
 * must fit once every job it may preempt is gone (else nothing is done);
 * then, node by node, victims are added cheapest first (fewest GPU-seconds
 * run, then CPU-seconds, then the youngest) until the job fits, and any
 * that turn out not to be needed are dropped, so no more work is lost than
 * the job needs. A job whose nodes all need the same share goes to the
 * nodes where that costs least (each node costed alone); others to the
 * nodes placement picks with every preemptable job gone. The job's claim
 * (what it will take) is kept from later jobs of the pass.
 * Jobs already being preempted (in their GraceTime) cost nothing: their
 * resources are counted free to the first job that may take them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct pp_ref {
    size_t run, alloc;             /* running job, and its allocation on the node */
};

struct sched_preempt {
    const struct sched_input *in;
    bool *chosen;                  /* per running job: taken by a job of this pass */
    uint64_t *mark, gen;           /* mark[r] == gen: picked in the current trial */
    size_t *first;                 /* refs of node n: ref[first[n] .. first[n + 1]) */
    struct pp_ref *ref;
    struct sched_free *hv, *mv;    /* now with the holds; and with every victim gone */
    struct pp_ref *cand;           /* scratch: one node's candidates */
    size_t tries;
};

#define PP_MAX_TRIES 256           /* searches per pass: a queue of preemptors stays linear */

struct sched_preempt *sched_preempt_new(const struct sched_input *in)
{
    struct sched_preempt *pp = xcalloc(1, sizeof(*pp));
    size_t nn = in->nnodes, nrefs = 0, nr = in->nrunning ? in->nrunning : 1;

    pp->in = in;
    pp->chosen = xcalloc(nr, sizeof(*pp->chosen));
    pp->mark = xcalloc(nr, sizeof(*pp->mark));
    pp->first = xcalloc(nn + 1, sizeof(*pp->first));
    for (size_t r = 0; r < in->nrunning; r++)
        for (size_t k = 0; k < in->running[r].nallocs; k++)
            if (in->running[r].allocs[k].node < nn) {
                pp->first[in->running[r].allocs[k].node + 1]++;
                nrefs++;
            }
    for (size_t n = 0; n < nn; n++)
        pp->first[n + 1] += pp->first[n];
    pp->ref = xcalloc(nrefs ? nrefs : 1, sizeof(*pp->ref));
    pp->cand = xcalloc(nrefs ? nrefs : 1, sizeof(*pp->cand));
    size_t *fill = xcalloc(nn ? nn : 1, sizeof(*fill));
    for (size_t r = 0; r < in->nrunning; r++)
        for (size_t k = 0; k < in->running[r].nallocs; k++) {
            size_t n = in->running[r].allocs[k].node;
            if (n < nn)
                pp->ref[pp->first[n] + fill[n]++] = (struct pp_ref){ r, k };
        }
    free(fill);
    pp->hv = xcalloc(nn ? nn : 1, sizeof(*pp->hv));
    pp->mv = xcalloc(nn ? nn : 1, sizeof(*pp->mv));
    return pp;
}

void sched_preempt_free(struct sched_preempt *pp)
{
    if (!pp)
        return;
    free(pp->chosen);
    free(pp->mark);
    free(pp->first);
    free(pp->ref);
    free(pp->cand);
    free(pp->hv);
    free(pp->mv);
    free(pp);
}

static bool may_take(const struct sched_preempt *pp, const struct sched_job *j, size_t r)
{
    const struct sched_running *run = &pp->in->running[r];
    int c = run->preempt_class;

    return c >= 1 && c <= 63 && ((j->preempts >> c) & 1) && !run->suspended &&
           !pp->chosen[r];
}

static void give_back(const struct sched_node *n, const struct sched_running *run,
                      const struct sched_alloc *a, struct sched_free *f)
{
    if (run->exclusive) {
        bool avail = f->avail;
        *f = (struct sched_free){ n->cpus, n->mem_mb, sched_gpu_full(n->gpus), false, false,
                                  avail };
        return;
    }
    f->cpus += a->cpus;
    if (!run->suspend) {
        f->mem_mb += a->mem_mb;
        f->gpus |= a->gpu_mask;
    }
    if (f->cpus >= n->cpus && f->mem_mb >= n->mem_mb && f->gpus == sched_gpu_full(n->gpus))
        f->used = false;
}

/* Work a preemption loses: GPU-seconds, then CPU-seconds, then age. */
static int cost_cmp(const struct sched_running *x, const struct sched_running *y, int64_t now)
{
    int64_t gx = 0, gy = 0, cx = 0, cy = 0;

    if (x->preempting != y->preempting)
        return x->preempting ? -1 : 1;
    for (size_t k = 0; k < x->nallocs; k++) {
        gx += __builtin_popcountll(x->allocs[k].gpu_mask);
        cx += x->allocs[k].cpus;
    }
    for (size_t k = 0; k < y->nallocs; k++) {
        gy += __builtin_popcountll(y->allocs[k].gpu_mask);
        cy += y->allocs[k].cpus;
    }
    int64_t ax = now - x->start_time, ay = now - y->start_time;
    if (gx * ax != gy * ay)
        return gx * ax < gy * ay ? -1 : 1;
    if (cx * ax != cy * ay)
        return cx * ax < cy * ay ? -1 : 1;
    return x->start_time > y->start_time ? -1 : x->start_time < y->start_time;
}

static int64_t run_cost(const struct sched_running *r, int64_t now)
{
    int64_t g = 0;

    if (r->preempting)
        return 0;
    for (size_t k = 0; k < r->nallocs; k++)
        g += __builtin_popcountll(r->allocs[k].gpu_mask) * 1000000 + r->allocs[k].cpus;
    return g * (now - r->start_time + 1);
}


struct pp_sort {
    const struct sched_input *in;
    int64_t now;
};

static int ref_cmp(const void *a, const void *b, void *arg)
{
    const struct pp_sort *c = arg;
    const struct pp_ref *x = a, *y = b;
    int r = cost_cmp(&c->in->running[x->run], &c->in->running[y->run], c->now);

    return r ? r : x->run < y->run ? -1 : x->run > y->run;
}

/* Node n's view with the current trial's picks gone. */
static void node_base(const struct sched_preempt *pp, size_t n, struct sched_free *f)
{
    const struct sched_input *in = pp->in;

    *f = pp->hv[n];
    for (size_t i = pp->first[n]; i < pp->first[n + 1]; i++) {
        const struct pp_ref *x = &pp->ref[i];
        if (pp->mark[x->run] == pp->gen)
            give_back(&in->nodes[n], &in->running[x->run], &in->running[x->run].allocs[x->alloc],
                      f);
    }
}

/* Picks victims on node n, cheapest first, until the slot fits there, then
 * drops those it turns out not to need, costliest first. */
static bool node_pick(struct sched_preempt *pp, const struct sched_job *j,
                      const struct sched_shape *sh, const struct sched_slot *s, size_t n,
                      int64_t now)
{
    const struct sched_node *node = &pp->in->nodes[n];
    struct pp_sort ctx = { pp->in, now };
    struct sched_free f;
    size_t nc = 0, used = 0;

    node_base(pp, n, &f);
    if (sched_free_fits(&f, node, sh, s))
        return true;
    for (size_t i = pp->first[n]; i < pp->first[n + 1]; i++)
        if (may_take(pp, j, pp->ref[i].run) && pp->mark[pp->ref[i].run] != pp->gen)
            pp->cand[nc++] = pp->ref[i];
    qsort_r(pp->cand, nc, sizeof(*pp->cand), ref_cmp, &ctx);
    while (used < nc && !sched_free_fits(&f, node, sh, s)) {
        const struct pp_ref *x = &pp->cand[used++];
        const struct sched_running *run = &pp->in->running[x->run];
        pp->mark[x->run] = pp->gen;
        give_back(node, run, &run->allocs[x->alloc], &f);
    }
    bool fits = sched_free_fits(&f, node, sh, s);
    for (size_t i = used; i-- > 0;) {
        pp->mark[pp->cand[i].run] = 0;
        node_base(pp, n, &f);
        if (!fits || !sched_free_fits(&f, node, sh, s))
            pp->mark[pp->cand[i].run] = fits ? pp->gen : 0;
    }
    return fits;
}

static int64_t node_cost(const struct sched_preempt *pp, size_t n, int64_t now, size_t *count)
{
    int64_t cost = 0;

    *count = 0;
    for (size_t i = pp->first[n]; i < pp->first[n + 1]; i++)
        if (pp->mark[pp->ref[i].run] == pp->gen) {
            cost += run_cost(&pp->in->running[pp->ref[i].run], now);
            (*count)++;
        }
    return cost;
}

static bool cand_node(const struct sched_preempt *pp, const struct sched_job *j, size_t n)
{
    if (n >= pp->in->nnodes || !pp->mv[n].avail)
        return false;
    if (j->constraint && *j->constraint &&
        !sched_features_match(pp->in->nodes[n].features, j->constraint))
        return false;
    for (size_t i = 0; i < j->nexcl_nodes; i++)
        if (j->excl_nodes[i] == n)
            return false;
    return true;
}

struct node_cost {
    int64_t cost;
    size_t count, node;
};

static int node_cost_cmp(const void *a, const void *b)
{
    const struct node_cost *x = a, *y = b;

    if (x->cost != y->cost)
        return x->cost < y->cost ? -1 : 1;
    if (x->count != y->count)
        return x->count < y->count ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* A job whose nodes all need the same slot: each node's victims are
 * costed alone, and the k cheapest nodes are taken. */
static bool pick_cheapest(struct sched_preempt *pp, const struct sched_job *j,
                          const struct sched_shape *sh, int64_t now, struct sched_pick *out)
{
    const struct sched_part *part = &pp->in->parts[j->part];
    struct node_cost *nc = xcalloc(part->nnodes ? part->nnodes : 1, sizeof(*nc));
    size_t n = 0, k = sh->nnodes;
    struct sched_slot s;
    bool ok = true;

    sched_shape_slot(sh, 0, &s);
    for (size_t i = 0; i < part->nnodes; i++) {
        size_t node = part->nodes[i];
        if (!cand_node(pp, j, node) ||
            !sched_free_fits(&pp->mv[node], &pp->in->nodes[node], sh, &s))
            continue;
        pp->gen++;
        if (!node_pick(pp, j, sh, &s, node, now))
            continue;
        nc[n].node = node;
        nc[n].cost = node_cost(pp, node, now, &nc[n].count);
        n++;
    }
    qsort(nc, n, sizeof(*nc), node_cost_cmp);
    pp->gen++;
    for (size_t i = 0; i < k && ok; i++) {
        ok = i < n && node_pick(pp, j, sh, &s, nc[i].node, now);
        out[i] = (struct sched_pick){ i < n ? nc[i].node : 0, s };
    }
    free(nc);
    return ok;
}

static bool pick_placed(struct sched_preempt *pp, struct sched_ctx *c, const struct sched_job *j,
                        const struct sched_shape *sh, int64_t now)
{
    pp->gen++;
    for (size_t i = 0; i < c->npicks; i++)
        if (!node_pick(pp, j, sh, &c->picks[i].slot, c->picks[i].node, now))
            return false;
    return true;
}

/* The max view: now, the holds taken out, every job j may preempt gone. */
static bool build_views(struct sched_preempt *pp, const struct sched_free *now_view,
                        const struct sched_job *j, int64_t now, int64_t dur)
{
    const struct sched_input *in = pp->in;
    bool any = false;

    memcpy(pp->hv, now_view, in->nnodes * sizeof(*pp->hv));
    sched_resv_hold(in, pp->hv, 0, now, dur >= SCHED_FOREVER - now ? SCHED_FOREVER : now + dur);
    memcpy(pp->mv, pp->hv, in->nnodes * sizeof(*pp->mv));
    for (size_t n = 0; n < in->nnodes; n++)
        for (size_t i = pp->first[n]; i < pp->first[n + 1]; i++) {
            const struct pp_ref *x = &pp->ref[i];
            if (!may_take(pp, j, x->run))
                continue;
            give_back(&in->nodes[n], &in->running[x->run], &in->running[x->run].allocs[x->alloc],
                      &pp->mv[n]);
            any = true;
        }
    return any;
}

/* The trial's picks become the pass's: named in d unless already going.
 * Returns how many there were. */
static size_t commit(struct sched_preempt *pp, struct sched_decision *d)
{
    const struct sched_input *in = pp->in;
    size_t n = 0;

    for (size_t r = 0; r < in->nrunning; r++) {
        if (pp->mark[r] != pp->gen || pp->chosen[r])
            continue;
        pp->chosen[r] = true;
        n++;
        if (in->running[r].preempting)
            continue;
        d->preempt = xrealloc(d->preempt, (d->npreempt + 1) * sizeof(*d->preempt));
        d->preempt[d->npreempt++] = in->running[r].job_id;
    }
    return n;
}

/* What the job will take once its victims are gone: for the rest of the
 * pass no other job may start on the free part of it. */
static void claim_fill(struct sched_preempt *pp, const struct sched_shape *sh, const struct sched_pick *picks, size_t n,
                       struct sched_decision *claim)
{
    claim->allocs = xcalloc(n ? n : 1, sizeof(*claim->allocs));
    claim->nallocs = n;
    for (size_t i = 0; i < n; i++) {
        struct sched_free f;
        size_t node = picks[i].node;
        node_base(pp, node, &f);
        claim->allocs[i].node = node;
        sched_free_alloc(&f, &pp->in->nodes[node], sh, &picks[i].slot, &claim->allocs[i]);
    }
}

bool sched_preempt_find(struct sched_preempt *pp, struct sched_ctx *c,
                        const struct sched_free *now_view, const struct sched_job *j,
                        int64_t now, int64_t dur, const struct sched_model *gate,
                        struct sched_decision *d, struct sched_decision *claim)
{
    struct sched_shape sh;
    bool ok;

    if (!j->preempts || j->resv || pp->in->nrunning == 0 || pp->tries >= PP_MAX_TRIES)
        return false;
    pp->tries++;
    if (!build_views(pp, now_view, j, now, dur))
        return false;
    if (sched_check_req(c, pp->mv, j) != SCHED_REQ_OK || !sched_place(c, pp->mv, j))
        return false;
    sched_shape_init(&sh, j, c->nreq);
    if (sh.nruns == 1 && j->nreq_nodes == 0) {
        struct sched_pick *picks = xcalloc(sh.nnodes ? sh.nnodes : 1, sizeof(*picks));
        ok = pick_cheapest(pp, j, &sh, now, picks);
        if (ok)
            claim_fill(pp, &sh, picks, sh.nnodes, claim);
        free(picks);
    } else {
        ok = pick_placed(pp, c, j, &sh, now);
        if (ok)
            claim_fill(pp, &sh, c->picks, c->npicks, claim);
    }
    if (ok && gate)
        ok = gate->room(gate->m, j, dur, claim);
    if (ok && commit(pp, d) > 0)
        return true;
    free(claim->allocs);
    claim->allocs = NULL;
    claim->nallocs = 0;
    return false;
}
