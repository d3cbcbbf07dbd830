/*
 * metrics_nodes: GET /metrics/nodes and /metrics/partitions, Slurm 25.11's
 * node and partition families, plus herd_gpus_idle. A node's base state is
 * the one sinfo shows (node.c: DOWN, UNKNOWN before it registers, ALLOCATED
 * when its CPUs are all taken, MIXED when some CPUs or GPUs are, IDLE);
 * DRAIN splits as Slurm's into draining (jobs still on it) and drained.
 * Flags Herd has no counterpart of (CLOUD, FUTURE, power saving, reboot,
 * reservations) are 0. The nodes' free memory, which Herd's agents do not
 * report, is left out rather than shown as 0.
 */
#include <event2/buffer.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/openmetrics.h"
#include "common/xmalloc.h"
#include "ctld/metrics.h"

struct nagg {
    uint64_t total, alloc, blocked, cg, cloud, down, drain, drained, draining, dyn_future;
    uint64_t dyn_normal, external, fail, future, idle, invalid_reg, maint, mixed, no_resp;
    uint64_t planned, power_down, power_up, powered_down, powering_down, powering_up;
    uint64_t reboot_issued, reboot_requested, resv, unknown;
    uint64_t cpus, cpus_alloc, cpus_idle, gpus, mem_alloc, mem_total;
};

static void node_add(struct nagg *a, const struct node *n, const struct node_usage *u)
{
    const struct conf_node *cn = n->conf;
    bool busy = u->cpus > 0 || u->gpus > 0;
    a->total++;
    if (n->down)
        a->down++;
    else if (!n->registered)
        a->unknown++;
    else if (u->cpus >= cn->cpus)
        a->alloc++;
    else if (busy)
        a->mixed++;
    else
        a->idle++;
    if (n->drain && busy)
        a->draining++;
    else if (n->drain)
        a->drain++;
    a->drained += n->drain && !busy;
    a->no_resp += n->registered && !n->responding;
    a->cg += n->cleaning;      /* its agent still kills jobs the controller ended */
    a->cpus += (uint64_t)cn->cpus;
    a->cpus_alloc += (uint64_t)u->cpus;
    a->cpus_idle += (uint64_t)(cn->cpus > u->cpus ? cn->cpus - u->cpus : 0);
    a->gpus += (uint64_t)cn->gpus;
    a->mem_alloc += u->mem_mb * 1024 * 1024;
    a->mem_total += cn->mem_mb * 1024 * 1024;
}

#define A(f) offsetof(struct nagg, f)
static const struct nfam {
    const char *name, *help;
    size_t off;
} nfams[] = {
    { "nodes", "Total number of nodes", A(total) },
    { "nodes_alloc", "Number of nodes in Allocated state", A(alloc) },
    { "nodes_blocked", "Number of nodes in Blocked state", A(blocked) },
    { "nodes_completing", "Number of nodes with Completing flag", A(cg) },
    { "nodes_cloud", "Number of Cloud nodes", A(cloud) },
    { "nodes_down", "Number of nodes in Down state", A(down) },
    { "nodes_drain", "Number of nodes with Drain flag", A(drain) },
    { "nodes_drained", "Number of drained nodes", A(drained) },
    { "nodes_draining", "Number of nodes in draining condition (Drain state with active jobs)",
      A(draining) },
    { "nodes_dyn_future", "Number of future dynamic nodes", A(dyn_future) },
    { "nodes_dyn_normal", "Number of dynamic nodes", A(dyn_normal) },
    { "nodes_external", "Number of external nodes", A(external) },
    { "nodes_fail", "Number of nodes with Fail flag", A(fail) },
    { "nodes_future", "Number of nodes in Future state", A(future) },
    { "nodes_idle", "Number of nodes in Idle state", A(idle) },
    { "nodes_invalid_reg", "Number of nodes with Invalid Registration flag", A(invalid_reg) },
    { "nodes_maint", "Number of nodes with Maintenance flag", A(maint) },
    { "nodes_mixed", "Number of nodes in Mixed state", A(mixed) },
    { "nodes_noresp", "Number of nodes with Not Responding flag", A(no_resp) },
    { "nodes_planned", "Number of nodes with Planned flag", A(planned) },
    { "nodes_power_down", "Number of nodes marked to be powered down", A(power_down) },
    { "nodes_power_up", "Number of nodes marked to be powered up", A(power_up) },
    { "nodes_powered_down", "Number of nodes powered down", A(powered_down) },
    { "nodes_powering_up", "Number of nodes powering up", A(powering_up) },
    { "nodes_reboot_issued", "Number of nodes with Reboot Issued flag", A(reboot_issued) },
    { "nodes_reboot_req", "Number of nodes with Reboot Requested flag", A(reboot_requested) },
    { "nodes_resv", "Number of nodes with Reserved flag", A(resv) },
    { "nodes_unknown", "Number of nodes in Unknown state", A(unknown) },
};

static uint64_t at(const void *base, size_t off)
{
    return *(const uint64_t *)((const char *)base + off);
}

/* The per-node families: one family, every node's sample. */
enum nval { NV_CPUS, NV_CPUS_ALLOC, NV_CPUS_EFF, NV_CPUS_IDLE, NV_GPUS, NV_GPUS_ALLOC,
            NV_MEM_ALLOC, NV_MEM_EFF, NV_MEM };
static const struct {
    const char *name, *help;
} pernode[] = {
    [NV_CPUS] = { "slurm_node_cpus", "Total number of cpus in the node" },
    [NV_CPUS_ALLOC] = { "slurm_node_cpus_alloc", "Allocated cpus in the node" },
    [NV_CPUS_EFF] = { "slurm_node_cpus_effective",
                      "CPUs allocatable to jobs not reserved for system usage" },
    [NV_CPUS_IDLE] = { "slurm_node_cpus_idle", "Idle cpus in the node" },
    [NV_GPUS] = { "slurm_node_gpus", "Total number of GPUs in the node" },
    [NV_GPUS_ALLOC] = { "slurm_node_gpus_alloc",
                        "Number of GPUs currently allocated by jobs on the node" },
    [NV_MEM_ALLOC] = { "slurm_node_memory_alloc_bytes", "Bytes allocated to jobs in the node" },
    [NV_MEM_EFF] = { "slurm_node_memory_effective_bytes",
                     "Memory allocatable to jobs not reserved for system usage" },
    [NV_MEM] = { "slurm_node_memory_bytes", "Total memory in bytes of the node" },
};

static uint64_t node_val(const struct conf_node *cn, const struct node_usage *u, enum nval v)
{
    switch (v) {
    case NV_CPUS:
    case NV_CPUS_EFF: return (uint64_t)cn->cpus;
    case NV_CPUS_ALLOC: return (uint64_t)u->cpus;
    case NV_CPUS_IDLE: return (uint64_t)(cn->cpus > u->cpus ? cn->cpus - u->cpus : 0);
    case NV_GPUS: return (uint64_t)cn->gpus;
    case NV_GPUS_ALLOC: return (uint64_t)u->gpus;
    case NV_MEM_ALLOC: return u->mem_mb * 1024 * 1024;
    case NV_MEM_EFF:
    case NV_MEM: return cn->mem_mb * 1024 * 1024;
    }
    return 0;
}

uint64_t metrics_gpus_idle(const struct ctld *c, const struct node_usage *u)
{
    uint64_t idle = 0;
    for (size_t i = 0; i < c->nnodes; i++)
        if (node_avail(&c->nodes[i]) && c->nodes[i].conf->gpus > u[i].gpus)
            idle += (uint64_t)(c->nodes[i].conf->gpus - u[i].gpus);
    return idle;
}

void metrics_nodes(const struct ctld *c, struct evbuffer *b)
{
    struct node_usage *u = node_usage_get(c);
    struct nagg a = { 0 };
    for (size_t i = 0; i < c->nnodes; i++)
        node_add(&a, &c->nodes[i], &u[i]);
    for (size_t v = 0; v < sizeof pernode / sizeof *pernode; v++) {
        om_family(b, pernode[v].name, pernode[v].help, "gauge");
        for (size_t i = 0; i < c->nnodes; i++)
            om_u64(b, pernode[v].name, "node", c->nodes[i].conf->name,
                   node_val(c->nodes[i].conf, &u[i], (enum nval)v));
    }
    char name[96];
    for (size_t f = 0; f < sizeof nfams / sizeof *nfams; f++) {
        snprintf(name, sizeof name, "slurm_%s", nfams[f].name);
        om_gauge(b, name, nfams[f].help, at(&a, nfams[f].off));
    }
    om_gauge(b, "herd_gpus_idle",
             "GPUs on nodes that may take work (not DOWN, DRAIN or silent) that no job holds",
             metrics_gpus_idle(c, u));
    metrics_write_idle(c, b);
    free(u);
}

/* ---- partitions ---- */

struct pstat {
    struct jtally j;
    struct nagg n;
};

#define PJ(f) offsetof(struct pstat, j) + offsetof(struct jtally, f)
#define PN(f) offsetof(struct pstat, n) + offsetof(struct nagg, f)
static const struct nfam pfams[] = {
    { "jobs", "Number of jobs in this partition", PJ(active) },
    { "jobs_bootfail", "Number of jobs in BootFail state", PJ(bootfail) },
    { "jobs_cancelled", "Number of jobs in Cancelled state", PJ(cancelled) },
    { "jobs_completed", "Number of jobs in Completed state", PJ(completed) },
    { "jobs_completing", "Number of jobs in Completing state", PJ(completing) },
    { "jobs_configuring", "Number of jobs in Configuring state", PJ(configuring) },
    { "jobs_cpus_alloc", "Total number of Cpus allocated by jobs", PJ(cpus_alloc) },
    { "jobs_gpus_alloc", "Total number of GPUs allocated by jobs", PJ(gpus_alloc) },
    { "jobs_deadline", "Number of jobs in Deadline state", PJ(deadline) },
    { "jobs_expediting", "Number of jobs in Expediting state", PJ(expediting) },
    { "jobs_failed", "Number of jobs in Failed state", PJ(failed) },
    { "jobs_fed_requeued", "Number of jobs requeued in a federation", PJ(fed_requeued) },
    { "jobs_finished", "Number of jobs in Finished", PJ(finished) },
    { "jobs_hold", "Number of jobs in Hold state", PJ(hold) },
    { "jobs_max_job_nodes", "Max of the max_nodes required of all pending jobs in that partition",
      PJ(max_nodes) },
    { "jobs_max_job_nodes_nohold", "Max of the max_nodes required of all pending jobs in that "
      "partition excluding Held jobs", PJ(max_nodes_nohold) },
    { "jobs_memory_alloc", "Total memory bytes allocated by jobs", PJ(memory_alloc) },
    { "jobs_min_job_nodes", "Max of the min_nodes required of all pending jobs in that partition",
      PJ(min_nodes) },
    { "jobs_min_job_nodes_nohold", "Max of the min_nodes required of all pending jobs in that "
      "partition excluding Held jobs", PJ(min_nodes_nohold) },
    { "jobs_node_failed", "Number of jobs in Node Failed state", PJ(node_failed) },
    { "jobs_outofmemory", "Number of jobs in Out of Memory state", PJ(oom) },
    { "jobs_pending", "Number of jobs in Pending state", PJ(pending) },
    { "jobs_powerup_node", "Number of jobs in PowerUp Node state", PJ(powerup_node) },
    { "jobs_preempted", "Number of jobs in Preempted state", PJ(preempted) },
    { "jobs_requeued", "Number of jobs in Requeued state", PJ(requeued) },
    { "jobs_resizing", "Number of jobs in Resizing state", PJ(resizing) },
    { "jobs_revoked", "Number of revoked jobs", PJ(revoked) },
    { "jobs_running", "Number of jobs in Running state", PJ(running) },
    { "jobs_signaling", "Number of jobs in Signaling state", PJ(signaling) },
    { "jobs_stageout", "Number of jobs in StageOut state", PJ(stageout) },
    { "jobs_started", "Number of jobs started", PJ(started) },
    { "jobs_suspended", "Number of jobs in Suspended state", PJ(suspended) },
    { "jobs_timeout", "Number of jobs in Timeout state", PJ(timeout) },
    { "nodes_alloc", "Nodes allocated", PN(alloc) },
    { "nodes_blocked", "Nodes blocked", PN(blocked) },
    { "nodes_cg", "Nodes in completing state", PN(cg) },
    { "nodes_cloud", "Cloud nodes", PN(cloud) },
    { "nodes_cpus_efctv", "Number of effective CPUs on all nodes, excludes CoreSpec", PN(cpus) },
    { "nodes_cpus_idle", "Number of idle CPUs on all nodes", PN(cpus_idle) },
    { "nodes_cpus_alloc", "Number of allocated cpus", PN(cpus_alloc) },
    { "nodes_down", "Nodes in Down state", PN(down) },
    { "nodes_drain", "Nodes in Drain state", PN(drain) },
    { "nodes_drained", "Nodes in Drained state", PN(drained) },
    { "nodes_draining", "Number of nodes in draining condition (Drain state with active jobs)",
      PN(draining) },
    { "nodes_fail", "Nodes in Fail state", PN(fail) },
    { "nodes_future", "Nodes in Future state", PN(future) },
    { "nodes_idle", "Nodes in Idle state", PN(idle) },
    { "nodes_maint", "Nodes in maintenance state", PN(maint) },
    { "nodes_mem_alloc", "Amount of allocated memory of all nodes", PN(mem_alloc) },
    { "nodes_mem_avail", "Amount of available memory of all nodes", PN(mem_total) },
    { "nodes_mem_tot", "Total amount of memory of all nodes", PN(mem_total) },
    { "nodes_mixed", "Nodes in Mixed state", PN(mixed) },
    { "nodes_no_resp", "Nodes in Not Responding state", PN(no_resp) },
    { "nodes_planned", "Nodes in Planned state", PN(planned) },
    { "nodes_resv", "Nodes with Reserved flag", PN(resv) },
    { "nodes_unknown", "Nodes in Unknown state", PN(unknown) },
    { "cpus", "Partition total cpus", PN(cpus) },
    { "gpus", "Partition total gpus", PN(gpus) },
    { "nodes", "Partition total nodes", PN(total) },
};

static struct pstat *parts_gather(const struct ctld *c)
{
    const struct conf *cf = c->conf;
    struct pstat *ps = xcalloc(cf->nparts ? cf->nparts : 1, sizeof *ps);
    struct node_usage *u = node_usage_get(c);
    for (size_t p = 0; p < cf->nparts; p++)
        for (size_t k = 0; k < cf->parts[p].nnodes; k++) {
            const struct conf_node *cn = conf_node_find(cf, cf->parts[p].nodes[k]);
            size_t i = cn ? (size_t)(cn - cf->nodes) : c->nnodes;
            if (i < c->nnodes)
                node_add(&ps[p].n, &c->nodes[i], &u[i]);
        }
    free(u);
    const struct job *j;
    JOB_FOREACH(c, j) {
        if (j->part < cf->nparts)
            metrics_tally(c, &ps[j->part].j, j);
    }
    return ps;
}

void metrics_partitions(const struct ctld *c, struct evbuffer *b)
{
    const struct conf *cf = c->conf;
    struct pstat *ps = parts_gather(c);
    char name[96];
    om_gauge(b, "slurm_partitions", "Total number of partitions", cf->nparts);
    for (size_t f = 0; f < sizeof pfams / sizeof *pfams; f++) {
        snprintf(name, sizeof name, "slurm_partition_%s", pfams[f].name);
        om_family(b, name, pfams[f].help, "gauge");
        for (size_t p = 0; p < cf->nparts; p++)
            om_u64(b, name, "partition", cf->parts[p].name, at(&ps[p], pfams[f].off));
    }
    free(ps);
}
