/*
 * job_gpus: a job's GPUs asked per task (--gpus-per-task, --ntasks-per-gpu)
 * and its CPUs asked per GPU (--cpus-per-gpu), turned into what the
 * scheduling core counts: GPUs per node or over the job, CPUs per task.
 * The spec keeps what the user asked (scontrol shows TresPerTask, not a
 * per-node count); only the request the core reads changes.
 */
#include <jansson.h>

#include "ctld/ctld.h"

static int64_t spec_int(const json_t *spec, const char *key)
{
    json_t *v = json_object_get(spec, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : 0;
}

/* --ntasks-per-gpu: the tasks follow the GPUs, or the GPUs the tasks. */
static void tasks_per_gpu(struct sched_job *r, int64_t ntpg)
{
    if (!r->ntasks && r->gpus)
        r->ntasks = (int)(r->gpus * ntpg);
    else if (!r->ntasks_per_node && r->gpus_per_node)
        r->ntasks_per_node = (int)(r->gpus_per_node * ntpg);
    else if (r->ntasks && !r->gpus && !r->gpus_per_node)
        r->gpus = (int)((r->ntasks + ntpg - 1) / ntpg);
}

/* --gpus-per-task: each node holds that many for each of its tasks. With
 * -n over several nodes, the core gives the first nodes one task more
 * (ntasks % nodes of them): every node holds enough for the most tasks one
 * gets, or a step's tasks on the fuller nodes would find too few. */
static void gpus_per_task(struct sched_job *r, int64_t gpt)
{
    int64_t nodes = r->min_nodes > 0 ? r->min_nodes : 1;
    if (r->gpus || r->gpus_per_node)
        return;
    if (r->ntasks_per_node)
        r->gpus_per_node = (int)(gpt * r->ntasks_per_node);
    else if (r->ntasks)
        r->gpus_per_node = (int)(gpt * ((r->ntasks + nodes - 1) / nodes));
    else
        r->gpus_per_node = (int)gpt;   /* one task per node */
}

/* --cpus-per-gpu: a task's CPUs are those of its GPUs; without
 * --gpus-per-task, a node's GPUs' CPUs shared by its tasks. */
static void cpus_per_gpu(struct sched_job *r, int64_t gpt, int64_t cpg)
{
    if (gpt) {
        r->cpus_per_task = (int)(gpt * cpg);
        return;
    }
    int nodes = r->min_nodes > 0 ? r->min_nodes : 1;
    int64_t gpn = r->gpus_per_node ? r->gpus_per_node : (r->gpus + nodes - 1) / nodes;
    int64_t tpn = r->ntasks_per_node ? r->ntasks_per_node
                : r->ntasks ? (r->ntasks + nodes - 1) / nodes : 1;
    int64_t cpt = (gpn * cpg + tpn - 1) / tpn;
    if (cpt > r->cpus_per_task)
        r->cpus_per_task = (int)cpt;
}

void job_gpus_shape(struct sched_job *r, const json_t *spec)
{
    const int64_t big = 1 << 20;
    int64_t gpt = spec_int(spec, "gpus_per_task"), cpg = spec_int(spec, "cpus_per_gpu");
    int64_t ntpg = spec_int(spec, "ntasks_per_gpu");
    if (gpt > big || cpg > big || ntpg > big)
        return;
    if (ntpg)
        tasks_per_gpu(r, ntpg);
    if (gpt)
        gpus_per_task(r, gpt);
    if (cpg)
        cpus_per_gpu(r, gpt, cpg);
}
