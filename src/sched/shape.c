/*
 * shape: a job's request turned into what it needs on each of its nodes.
 * Tasks and GPUs are block-distributed: the first node positions get the
 * remainder, so slots never grow from one position to the next.
 */
#include "sched/sched_int.h"

static int64_t at_least_one(int v)
{
    return v > 0 ? v : 1;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* Share of `total` at position pos out of n, first positions get the extra. */
static int64_t block_share(int64_t total, size_t n, size_t pos)
{
    int64_t base = total / (int64_t)n, extra = total % (int64_t)n;
    return (int64_t)pos < extra ? base + 1 : base;
}

void sched_shape_slot(const struct sched_shape *s, size_t pos, struct sched_slot *out)
{
    int64_t tasks = s->tasks_per_node > 0 ? s->tasks_per_node
                                          : block_share(s->ntasks, s->nnodes, pos);
    /* Every node of the job runs at least one task's worth, as in Slurm. */
    if (tasks < 1)
        tasks = 1;
    out->cpus = tasks * s->cpus_per_task;
    if (s->gpus_per_node > 0)
        out->gpus = s->gpus_per_node;
    else if (s->gpus > 0)
        out->gpus = block_share(s->gpus, s->nnodes, pos);
    else
        out->gpus = 0;
    if (s->mem_per_node_mb > 0)
        out->mem_mb = s->mem_per_node_mb;
    else if (s->mem_per_cpu_mb > 0)
        out->mem_mb = mul_sat(s->mem_per_cpu_mb, (uint64_t)out->cpus);
    else if (s->mem_per_gpu_mb > 0)
        out->mem_mb = mul_sat(s->mem_per_gpu_mb, (uint64_t)out->gpus);
    else
        out->mem_mb = 0;
}

static bool slot_eq(const struct sched_slot *a, const struct sched_slot *b)
{
    return a->cpus == b->cpus && a->mem_mb == b->mem_mb && a->gpus == b->gpus;
}

/* Slots change only where a remainder ends, so walking the (at most two)
 * boundaries gives the runs. */
static void shape_runs(struct sched_shape *s)
{
    size_t bounds[2], nb = 0, start = 0;

    if (s->tasks_per_node == 0 && s->ntasks % (int64_t)s->nnodes != 0)
        bounds[nb++] = (size_t)(s->ntasks % (int64_t)s->nnodes);
    if (s->gpus_per_node == 0 && s->gpus % (int64_t)s->nnodes != 0)
        bounds[nb++] = (size_t)(s->gpus % (int64_t)s->nnodes);
    if (nb == 2 && bounds[0] > bounds[1]) {
        size_t t = bounds[0];
        bounds[0] = bounds[1];
        bounds[1] = t;
    }
    s->nruns = 0;
    for (size_t i = 0; i <= nb; i++) {
        size_t end = i < nb ? bounds[i] : s->nnodes;
        struct sched_slot slot;
        if (end <= start)
            continue;
        sched_shape_slot(s, start, &slot);
        if (s->nruns > 0 && slot_eq(&s->runs[s->nruns - 1].slot, &slot)) {
            s->runs[s->nruns - 1].len += end - start;
        } else {
            s->runs[s->nruns].slot = slot;
            s->runs[s->nruns].len = end - start;
            s->nruns++;
        }
        start = end;
    }
}

void sched_shape_init(struct sched_shape *s, const struct sched_job *j, size_t nreq)
{
    size_t n = (size_t)at_least_one(j->min_nodes);

    if (n < nreq)
        n = nreq;
    s->nnodes = n;
    s->tasks_per_node = j->ntasks_per_node > 0 ? j->ntasks_per_node : 0;
    if (j->ntasks > 0)
        s->ntasks = j->ntasks;
    else if (s->tasks_per_node > 0)
        s->ntasks = s->tasks_per_node * (int64_t)n;
    else
        s->ntasks = 1;
    s->cpus_per_task = at_least_one(j->cpus_per_task);
    s->gpus_per_node = j->gpus_per_node > 0 ? j->gpus_per_node : 0;
    s->gpus = j->gpus > 0 ? j->gpus : 0;
    s->mem_per_node_mb = j->mem_per_node_mb;
    s->mem_per_cpu_mb = j->mem_per_cpu_mb;
    s->mem_per_gpu_mb = j->mem_per_gpu_mb;
    s->gpu_type = j->gpu_type && j->gpu_type[0] ? j->gpu_type : NULL;
    s->exclusive = j->exclusive;
    shape_runs(s);
}
