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
    for (size_t i = 0; i < c->njobs; i++) {
        const struct job *j = c->jobs[i];
        if (j->state != JOB_RUNNING)
            continue;
        for (size_t k = 0; k < j->nallocs; k++) {
            const struct sched_alloc *a = &j->allocs[k];
            u[a->node].cpus += a->cpus;
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

static json_t *node_parts(const struct ctld *c, const char *name)
{
    json_t *a = json_array();
    for (size_t p = 0; p < c->conf->nparts; p++) {
        const struct conf_part *cp = &c->conf->parts[p];
        for (size_t k = 0; k < cp->nnodes; k++)
            if (strcmp(cp->nodes[k], name) == 0) {
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
                     node_parts(c, cn->name), "last_seen", (json_int_t)n->last_seen,
                     "responding", n->responding || !n->registered, "features",
                     cn->features ? cn->features : "");
    /* scontrol show node: Reason=... [user@time], Weight= */
    json_object_set_new(o, "reason_time", json_integer(n->reason_time));
    json_object_set_new(o, "reason_uid", json_integer((json_int_t)n->reason_uid));
    json_object_set_new(o, "weight", json_integer(cn->weight));
    json_object_set_new(o, "alloc_gpu_ids", gpu_indices(u[i].gpu_mask));
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
        const struct conf_node *cn = conf_node_find(c->conf, cp->nodes[k]);
        cpus += cn ? cn->cpus : 0;
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

/* A node that stopped answering (assumed), or an admin set DOWN: no new
 * work, and its jobs end NODE_FAIL or go back to the queue when they asked
 * for --requeue. Kept across a restart of the controller (node_state.c). */
void node_mark_down(struct ctld *c, struct node *n, const char *reason, bool assumed)
{
    size_t idx = node_index(c, n);
    log_warnx("node %s is DOWN: %s", n->conf->name, reason);
    n->down = true;
    n->responding = false;
    free(n->reason);
    n->reason = xstrdup(reason);
    n->reason_time = ctld_now();
    n->reason_uid = 0;
    for (size_t i = 0; i < c->njobs; i++) {
        struct job *j = c->jobs[i];
        if (j->state != JOB_RUNNING)
            continue;
        bool here = false;
        for (size_t k = 0; k < j->nallocs && !here; k++)
            here = j->allocs[k].node == idx;
        if (!here)
            continue;
        if (j->requeue) {
            job_requeue(c, j);
            continue;
        }
        j->end_assumed = assumed && j->allocs[0].node == idx;
        job_end(c, j, JOB_NODE_FAIL, 0, 0, 0);
    }
    nodes_save_state(c);
}

/* Slurm's ReturnToService: 0, a DOWN node stays DOWN until an admin
 * resumes it; 1, one DOWN for not responding returns when its agent
 * registers; 2, one DOWN for any reason does. Herd's agents register at
 * every heartbeat, so only a registration after silence (or the first
 * since start-up) stands for slurmd's registration: an admin's DOWN on a
 * node that kept answering stays. */
void node_return(struct ctld *c, struct node *n, bool was_silent)
{
    int rts = c->conf->return_to_service;
    bool silent = n->reason && strcmp(n->reason, "Not responding") == 0;
    if (!n->down || !was_silent || rts == 0 || (rts == 1 && !silent))
        return;
    log_info("node %s returns to service (ReturnToService=%d)", n->conf->name, rts);
    n->down = false;
    if (!n->drain)
        xfree(n->reason);
    nodes_save_state(c);
}

/* After a restart, a node that runs jobs is expected back: it counts as
 * registered but silent, so that it goes DOWN (and its jobs fail) if it does
 * not report within SlurmdTimeout, and takes no new work until it does. */
void nodes_expect_running(struct ctld *c)
{
    for (size_t i = 0; i < c->njobs; i++) {
        const struct job *j = c->jobs[i];
        for (size_t k = 0; j->state == JOB_RUNNING && k < j->nallocs; k++) {
            struct node *n = &c->nodes[j->allocs[k].node];
            n->registered = true;
            n->responding = false;
            n->last_seen = ctld_now();
        }
    }
}

/* A node whose prolog failed takes no more work until an admin resumes it. */
void node_drain(struct ctld *c, struct node *n, const char *reason)
{
    log_warnx("node %s drained: %s", n->conf->name, reason);
    n->drain = true;
    free(n->reason);
    n->reason = xstrdup(reason);
    n->reason_time = ctld_now();
    n->reason_uid = 0;
    nodes_save_state(c);
}
