/*
 * limits: the pass's view of the jobs' limits (sched_limit). A copy of what
 * the running jobs leave of each, lowered as the pass starts jobs, so no
 * pass starts more than a limit allows however many jobs it starts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

void sched_job_tres(const struct sched_job *j, struct sched_tres *out)
{
    struct sched_shape s;
    sched_shape_init(&s, j, j->nreq_nodes);
    int64_t nodes = (int64_t)s.nnodes, cpus = s.ntasks * s.cpus_per_task;
    int64_t gpus = s.gpus ? s.gpus : s.gpus_per_node * nodes;
    int64_t mem = s.mem_per_node_mb ? (int64_t)s.mem_per_node_mb * nodes
                : s.mem_per_cpu_mb  ? (int64_t)s.mem_per_cpu_mb * cpus
                                    : (int64_t)s.mem_per_gpu_mb * gpus;
    *out = (struct sched_tres){ cpus, mem, nodes, gpus };
}

#define RUN_MIN_UNBOUNDED (INT64_MAX / 4)

void sched_job_amounts(const struct sched_job *j, int64_t v[SCHED_RES_N])
{
    struct sched_tres t;
    sched_job_tres(j, &t);
    int64_t m = j->time_limit_min;
    v[SCHED_RES_JOBS] = 1;
    v[SCHED_RES_CPU] = t.cpus;
    v[SCHED_RES_MEM] = t.mem_mb;
    v[SCHED_RES_NODE] = t.nodes;
    v[SCHED_RES_GPU] = t.gpus;
    v[SCHED_RES_BILLING] = j->billing;
    v[SCHED_RES_CPU_MIN] = m < 0 ? RUN_MIN_UNBOUNDED : t.cpus * m;
    v[SCHED_RES_GPU_MIN] = m < 0 ? (t.gpus ? RUN_MIN_UNBOUNDED : 0) : t.gpus * m;
    v[SCHED_RES_WALL] = m;
    v[SCHED_RES_CPU_SPENT] = v[SCHED_RES_CPU_MIN];
    v[SCHED_RES_GPU_SPENT] = v[SCHED_RES_GPU_MIN];
    v[SCHED_RES_BILLING_SPENT] = m < 0 ? (j->billing ? RUN_MIN_UNBOUNDED : 0) : j->billing * m;
    v[SCHED_RES_WALL_SPENT] = m < 0 ? RUN_MIN_UNBOUNDED : m;
}

void sched_limits_init(struct sched_limits *l, const struct sched_input *in)
{
    memset(l, 0, sizeof *l);
    l->n = in->nlimits;
    l->left = xcalloc(l->n ? l->n : 1, sizeof *l->left);
    l->lim = in->limits;
    for (size_t i = 0; i < l->n; i++)
        memcpy(l->left[i], in->limits[i].left, sizeof l->left[i]);
    if (l->n) {   /* a job's amounts, worked out once: a pass may test it twice */
        l->pending = in->pending;
        l->npending = in->npending;
        l->amounts = xcalloc(in->npending ? in->npending : 1, sizeof *l->amounts);
        l->known = xcalloc(in->npending ? in->npending : 1, sizeof *l->known);
    }
}

void sched_limits_fini(struct sched_limits *l)
{
    xfree(l->left);
    xfree(l->amounts);
    xfree(l->known);
}

static const int64_t *amounts_of(const struct sched_limits *l, const struct sched_job *j,
                                 int64_t tmp[SCHED_RES_N])
{
    size_t i = (size_t)(j - l->pending);
    if (!l->amounts || j < l->pending || i >= l->npending) {
        sched_job_amounts(j, tmp);
        return tmp;
    }
    if (!l->known[i]) {
        sched_job_amounts(j, l->amounts[i]);
        l->known[i] = true;
    }
    return l->amounts[i];
}

bool sched_limits_fit(const struct sched_limits *l, const struct sched_job *j,
                      struct sched_decision *d)
{
    int64_t tmp[SCHED_RES_N];
    if (!j->nlimits)
        return true;
    const int64_t *v = amounts_of(l, j, tmp);
    for (size_t k = 0; k < j->nlimits; k++) {
        uint32_t i = j->limits[k];
        if (i >= l->n)
            continue;
        for (int r = 0; r < SCHED_RES_N; r++) {
            int64_t per = l->lim[i].per_job[r], left = l->left[i][r];
            bool wall_unlimited = r == SCHED_RES_WALL && v[r] < 0;
            if ((per >= 0 && (wall_unlimited || v[r] > per)) ||
                (r != SCHED_RES_WALL && left >= 0 && v[r] > left)) {
                d->limit = i;
                d->limit_res = (enum sched_res)r;
                return false;
            }
        }
    }
    return true;
}

void sched_limits_take(struct sched_limits *l, const struct sched_job *j)
{
    int64_t tmp[SCHED_RES_N];
    if (!j->nlimits)
        return;
    const int64_t *v = amounts_of(l, j, tmp);
    for (size_t k = 0; k < j->nlimits; k++) {
        uint32_t i = j->limits[k];
        for (int r = 0; i < l->n && r < SCHED_RES_WALL; r++)
            if (l->left[i][r] >= 0)
                l->left[i][r] = l->left[i][r] > v[r] ? l->left[i][r] - v[r] : 0;
    }
}
