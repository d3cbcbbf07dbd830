/*
 * node: the registry of compute nodes as the controller sees them: the
 * configured shape, whether the agent has registered, answers, or went DOWN,
 * and the state words sinfo shows (derived from what running jobs hold).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"

void nodes_init(struct ctld *c)
{
    c->nnodes = c->conf->nnodes;
    c->nodes = xcalloc(c->nnodes, sizeof *c->nodes);
    for (size_t i = 0; i < c->nnodes; i++) {
        struct node *n = &c->nodes[i];
        n->conf = &c->conf->nodes[i];
        const char *st = n->conf->state;
        if (st && (strcasecmp(st, "DOWN") == 0 || strcasecmp(st, "DRAIN") == 0)) {
            n->down = strcasecmp(st, "DOWN") == 0;
            n->drain = !n->down;
            n->reason = xstrdup("set in slurm.conf");
        }
    }
}

void parts_init(struct ctld *c)
{
    size_t np = c->conf->nparts;
    c->sparts = xcalloc(np ? np : 1, sizeof *c->sparts);
    c->spart_nodes = xcalloc(np ? np : 1, sizeof *c->spart_nodes);
    for (size_t p = 0; p < np; p++) {
        const struct conf_part *cp = &c->conf->parts[p];
        c->spart_nodes[p] = xcalloc(cp->nnodes ? cp->nnodes : 1, sizeof(size_t));
        for (size_t k = 0; k < cp->nnodes; k++)
            c->spart_nodes[p][k] = (size_t)(conf_node_find(c->conf, cp->nodes[k]) -
                                            c->conf->nodes);
        c->sparts[p] = (struct sched_part){ cp->name, c->spart_nodes[p], cp->nnodes,
                                            cp->max_time_min, cp->up };
    }
}

struct node *node_find(struct ctld *c, const char *name)
{
    for (size_t i = 0; name && i < c->nnodes; i++)
        if (strcmp(c->nodes[i].conf->name, name) == 0)
            return &c->nodes[i];
    return NULL;
}

size_t node_index(const struct ctld *c, const struct node *n)
{
    return (size_t)(n - c->nodes);
}

struct node_usage *node_usage_get(const struct ctld *c)
{
    struct node_usage *u = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *u);
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        for (size_t k = 0; k < j->nallocs; k++) {
            const struct sched_alloc *a = &j->allocs[k];
            /* a suspended job's CPUs are free to others, as the core sees them */
            u[a->node].cpus += j->state == JOB_SUSPENDED ? 0 : a->cpus;
            u[a->node].mem_mb += a->mem_mb;
            u[a->node].gpus += __builtin_popcountll(a->gpu_mask);
            u[a->node].gpu_mask |= a->gpu_mask;
        }
    }
    return u;
}

static const char *state_word(const struct node *n, const struct node_usage *u)
{
    if (n->down)
        return "DOWN";
    if (!n->registered)
        return "UNKNOWN";
    if (u->cpus >= n->conf->cpus)
        return "ALLOCATED";
    if (u->cpus > 0 || u->gpus > 0)
        return "MIXED";
    return "IDLE";
}

/* By index, not name: it runs for every node of a GET /v1/nodes, and a
 * name compare per partition member made that quadratic in strcmp (5,000
 * nodes: docs/emulator.md). */
static json_t *node_parts(const struct ctld *c, size_t node)
{
    json_t *a = json_array();
    for (size_t p = 0; p < c->conf->nparts; p++) {
        const struct conf_part *cp = &c->conf->parts[p];
        const size_t *idx = c->spart_nodes[p];
        for (size_t k = 0; k < cp->nnodes; k++)
            if (idx[k] == node) {
                json_array_append_new(a, json_string(cp->name));
                break;
            }
    }
    return a;
}

/* sinfo's GresUsed shows which GPUs are held: "gpu:a100:2(IDX:0-1)". */
static json_t *gpu_indices(uint64_t mask)
{
    json_t *a = json_array();
    for (int b = 0; b < 64; b++)
        if (mask & (1ULL << b))
            json_array_append_new(a, json_integer(b));
    return a;
}

json_t *node_to_json(const struct ctld *c, size_t i, const struct node_usage *u)
{
    const struct node *n = &c->nodes[i];
    const struct conf_node *cn = n->conf;
    char state[48];
    /* Slurm's '*': registered once, silent now */
    snprintf(state, sizeof state, "%s%s%s", state_word(n, &u[i]), n->drain ? "+DRAIN" : "",
             n->registered && !n->responding ? "*" : "");
    json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s, s:i, s:i, s:I, s:I, s:i, s:s, s:i, s:o, s:I,"
                     " s:b, s:s}",
                     "name", cn->name, "addr", cn->addr, "port", cn->port, "state",
                     state, "reason", n->reason ? n->reason : "", "cpus",
                     cn->cpus, "alloc_cpus", u[i].cpus, "mem_mb", (json_int_t)cn->mem_mb,
                     "alloc_mem_mb", (json_int_t)u[i].mem_mb, "gpus", cn->gpus, "gpu_type",
                     cn->gpu_type ? cn->gpu_type : "", "alloc_gpus", u[i].gpus, "partitions",
                     node_parts(c, i), "last_seen", (json_int_t)n->last_seen,
                     "responding", n->responding || !n->registered, "features",
                     cn->features ? cn->features : "");
    /* scontrol show node: Reason=... [user@time], Weight= */
    json_object_set_new(o, "reason_time", json_integer(n->reason_time));
    json_object_set_new(o, "reason_uid", json_integer((json_int_t)n->reason_uid));
    json_object_set_new(o, "weight", json_integer(cn->weight));
    json_object_set_new(o, "alloc_gpu_ids", gpu_indices(u[i].gpu_mask));
    resv_node_json(c, i, o);
    return o;
}

json_t *part_to_json(const struct ctld *c, size_t i)
{
    const struct conf_part *cp = &c->conf->parts[i];
    struct hostlist *hl = hostlist_create("");
    json_t *names = json_array();
    int cpus = 0;
    for (size_t k = 0; k < cp->nnodes; k++) {
        hostlist_push(hl, cp->nodes[k]);
        json_array_append_new(names, json_string(cp->nodes[k]));
        cpus += c->conf->nodes[c->spart_nodes[i][k]].cpus;   /* main.c: build_sparts */
    }
    char *ranged = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    json_t *o = json_pack("{s:s, s:b, s:b, s:I, s:I, s:s, s:o, s:i}", "name", cp->name,
                          "default", cp->is_default, "up", cp->up, "max_time",
                          (json_int_t)cp->max_time_min, "default_time",
                          (json_int_t)cp->default_time_min, "nodes", ranged, "node_names",
                          names, "total_cpus", cpus);
    free(ranged);
    return o;
}

bool node_avail(const struct node *n)
{
    return n->registered && n->responding && !n->down && !n->drain && !n->cleaning;
}

/* The nodes and partitions as the core sees them, pointing into the
 * controller's state: for checks made at once, not for a pass (sched_snap.c
 * copies what a pass reads). */
void ctld_sched_input_fill(const struct ctld *c, struct sched_input *in)
{
    memset(in, 0, sizeof *in);
    struct sched_node *nodes = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *nodes);
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct conf_node *cn = c->nodes[i].conf;
        nodes[i] = (struct sched_node){ cn->name, cn->cpus, cn->mem_mb, cn->gpus, cn->gpu_type,
                                        node_avail(&c->nodes[i]), cn->weight, cn->features };
    }
    in->nodes = nodes;
    in->nnodes = c->nnodes;
    in->parts = c->sparts;
    in->nparts = c->conf->nparts;
}

void ctld_sched_input_free(struct sched_input *in)
{
    free((void *)in->nodes);
}
