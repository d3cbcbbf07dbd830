/*
 * resv_place: what a reservation holds. Nodes= names them (ALL: every node,
 * of PartitionName when given); NodeCnt= and TRES= without Nodes= choose
 * them from PartitionName (or the default partition, or all), with the
 * Features= asked, idle nodes first. A whole-node reservation holds all of each node; CoreCnt= and
 * TRES=gres/gpu=N hold that many CPUs and GPU indices, spread over as few
 * nodes as it takes. Placing is tried with everything that stands in the
 * way; when it fails, again without running jobs and then without other
 * reservations, so that the error names what was in the way, as Slurm's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/resv_flags.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"

/* What stands in the way on each node during the reservation's time. */
struct taken {
    int cpus;
    uint64_t gpu_mask;
    bool whole;                /* a job or another reservation holds some of it */
};

enum { SEE_JOBS = 1, SEE_RESVS = 2 };

static bool times_overlap(const struct resv *a, const struct resv *b)
{
    return a->start < b->end && b->start < a->end;
}

/* Running jobs that will still run when r begins. */
static void taken_by_jobs(const struct ctld *c, const struct resv *r, struct taken *t)
{
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        if (j->state != JOB_RUNNING || (j->resv_id && j->resv_id == r->id))
            continue;
        if (j->time_limit >= 0 && j->start_time + j->time_limit * 60 <= r->start)
            continue;
        for (size_t a = 0; a < j->nallocs; a++) {
            struct taken *n = &t[j->allocs[a].node];
            n->cpus += j->allocs[a].cpus;
            n->gpu_mask |= j->allocs[a].gpu_mask;
            n->whole = true;   /* a whole-node reservation wants it empty */
        }
    }
}

/* Other reservations at the same time; MAINT and OVERLAP ones may share. */
static void taken_by_resvs(const struct ctld *c, const struct resv *r, const struct resv *skip,
                           int64_t now, struct taken *t)
{
    if (r->flags & (RESV_MAINT | RESV_OVERLAP))
        return;
    for (size_t i = 0; i < c->resvs->n; i++) {
        const struct resv *o = c->resvs->v[i];
        if (o == skip || o->id == r->id || !resv_live(o, now) || (o->flags & RESV_MAINT) ||
            !times_overlap(r, o))
            continue;
        for (size_t k = 0; k < o->nholds; k++) {
            struct taken *n = &t[o->holds[k].node];
            n->cpus += o->holds[k].cpus;
            n->gpu_mask |= o->holds[k].gpu_mask;
            n->whole = true;
        }
    }
}

static bool in_partition(const struct conf_part *p, const char *name)
{
    for (size_t i = 0; i < p->nnodes; i++)
        if (strcmp(p->nodes[i], name) == 0)
            return true;
    return false;
}

static const struct conf_part *resv_part(const struct ctld *c, const struct resv *r)
{
    for (size_t i = 0; i < c->conf->nparts; i++) {
        const struct conf_part *p = &c->conf->parts[i];
        if (r->partition ? strcmp(p->name, r->partition) == 0 : p->is_default)
            return p;
    }
    return NULL;
}

/* The nodes it may take, in the order to try them; -1 on an unknown name. */
static int candidates(const struct ctld *c, struct resv *r, size_t *out, size_t *n)
{
    *n = 0;
    bool all = r->node_expr && strcasecmp(r->node_expr, "ALL") == 0;
    const struct conf_part *part = r->node_expr && !all ? NULL : resv_part(c, r);
    if (r->node_expr && !all) {
        struct hostlist *hl = hostlist_create(r->node_expr);
        if (!hl)
            return -1;
        /* each node once, in the list's order: out has room for each node
         * once ("g1,g1,..." overflowed it) */
        bool *seen = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *seen);
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < hostlist_count(hl); i++) {
            struct node *nd = node_find((struct ctld *)c, hostlist_nth(hl, i));
            if (!nd)
                rc = -1;
            else if (!seen[node_index(c, nd)]) {
                seen[node_index(c, nd)] = true;
                out[(*n)++] = node_index(c, nd);
            }
        }
        free(seen);
        hostlist_destroy(hl);
        return rc;
    }
    for (size_t i = 0; i < c->nnodes; i++)
        if ((!part || (all && !r->partition) || in_partition(part, c->conf->nodes[i].name)) &&
            (all || sched_features_match(c->conf->nodes[i].features, r->features)))
            out[(*n)++] = i;
    return 0;
}

/* The GPU indices of node i it may take: of the asked type, not taken. */
static uint64_t gpus_free(const struct ctld *c, const struct resv *r, size_t i,
                          const struct taken *t)
{
    const struct conf_node *cn = &c->conf->nodes[i];
    if (r->gpu_type && *r->gpu_type && (!cn->gpu_type || strcmp(cn->gpu_type, r->gpu_type)))
        return 0;
    uint64_t all = cn->gpus >= 64 ? ~0ULL : (1ULL << cn->gpus) - 1;
    return all & ~t[i].gpu_mask;
}

/* Whole nodes: explicit ones all free, or NodeCnt of the free ones. */
static bool take_whole(const struct ctld *c, struct resv *r, const size_t *cand, size_t n,
                       const struct taken *t)
{
    bool listed = r->node_expr && strcasecmp(r->node_expr, "ALL") != 0;
    size_t want = !listed && r->node_cnt ? (size_t)r->node_cnt : n;
    for (size_t k = 0; k < n && r->nholds < want; k++) {
        size_t i = cand[k];
        if (t[i].whole || t[i].cpus || t[i].gpu_mask) {
            if (r->node_expr)
                return false;
            continue;
        }
        const struct conf_node *cn = &c->conf->nodes[i];
        r->holds[r->nholds++] = (struct sched_alloc){
            .node = i, .cpus = cn->cpus, .mem_mb = cn->mem_mb,
            .gpu_mask = cn->gpus >= 64 ? ~0ULL : (1ULL << cn->gpus) - 1 };
    }
    return r->nholds == want && want > 0;
}

/* Some CPUs and GPUs: as many as each node has free, in order. */
static bool take_part(const struct ctld *c, struct resv *r, const size_t *cand, size_t n,
                      const struct taken *t)
{
    int cpus_left = r->core_cnt, gpus_left = r->gpus;
    for (size_t k = 0; k < n && (cpus_left > 0 || gpus_left > 0); k++) {
        size_t i = cand[k];
        struct sched_alloc h = { .node = i };
        for (uint64_t m = gpus_free(c, r, i, t); m && gpus_left > 0; m &= m - 1, gpus_left--)
            h.gpu_mask |= m & -m;
        int cfree = c->conf->nodes[i].cpus - t[i].cpus;
        h.cpus = cfree < cpus_left ? (cfree > 0 ? cfree : 0) : cpus_left;
        cpus_left -= h.cpus;
        if (h.cpus || h.gpu_mask)
            r->holds[r->nholds++] = h;
    }
    return cpus_left <= 0 && gpus_left <= 0;
}

/* Idle nodes first (stable): those no running job uses. */
static void idle_first(size_t *cand, size_t n, const struct taken *jobs)
{
    size_t *tmp = xcalloc(n ? n : 1, sizeof *tmp), k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if ((jobs[cand[i]].cpus == 0) == (pass == 0))
                tmp[k++] = cand[i];
    memcpy(cand, tmp, n * sizeof *cand);
    free(tmp);
}

static bool try_place(const struct ctld *c, struct resv *r, const struct resv *skip, int64_t now,
                      const size_t *cand, size_t n, int see)
{
    struct taken *t = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *t);
    if ((see & SEE_JOBS) && !(r->flags & RESV_IGNORE_JOBS))
        taken_by_jobs(c, r, t);
    if (see & SEE_RESVS)
        taken_by_resvs(c, r, skip, now, t);
    r->nholds = 0;
    bool ok = resv_whole(r) ? take_whole(c, r, cand, n, t) : take_part(c, r, cand, n, t);
    free(t);
    return ok;
}

int resv_place(const struct ctld *c, struct resv *r, const struct resv *skip, int64_t now,
               int *code, char *err, size_t errlen)
{
    size_t *cand = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *cand), n;
    if (candidates(c, r, cand, &n) < 0) {
        free(cand);
        *code = ESLURM_INVALID_NODE_NAME;
        snprintf(err, errlen, "Invalid node name specified");
        return -1;
    }
    struct taken *jobs = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *jobs);
    taken_by_jobs(c, r, jobs);
    idle_first(cand, n, jobs);
    free(jobs);
    free(r->holds);
    r->holds = xcalloc(n ? n : 1, sizeof *r->holds);
    const struct conf_part *part = resv_part(c, r);
    if (!r->partition && part && (!r->node_expr || !resv_whole(r)))
        r->partition = xstrdup(part->name);   /* Slurm shows where it chose */
    r->flags &= ~(RESV_SPEC_NODES | RESV_ALL_NODES);
    if (r->node_expr)
        r->flags |= RESV_SPEC_NODES | (strcasecmp(r->node_expr, "ALL") ? 0 : RESV_ALL_NODES);
    const char *why = NULL;
    if (!try_place(c, r, skip, now, cand, n, SEE_JOBS | SEE_RESVS)) {
        if (try_place(c, r, skip, now, cand, n, SEE_RESVS))
            *code = ESLURM_NODES_BUSY, why = "Requested nodes are busy";
        else if (try_place(c, r, skip, now, cand, n, SEE_JOBS))
            *code = ESLURM_RESERVATION_OVERLAP,
            why = "Requested reservation overlaps with another reservation";
        else
            *code = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
            why = "Requested node configuration is not available";
        snprintf(err, errlen, "%s", why);
        r->nholds = 0;
    }
    free(cand);
    return why ? -1 : 0;
}

char *resv_nodes_str(const struct ctld *c, const struct resv *r)
{
    struct hostlist *hl = hostlist_create("");
    for (size_t k = 0; k < r->nholds; k++)
        hostlist_push(hl, c->conf->nodes[r->holds[k].node].name);
    char *s = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    return s;
}
