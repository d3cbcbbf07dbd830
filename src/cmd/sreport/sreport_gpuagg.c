/*
 * sreport_gpuagg: GPU time, sampled time, utilization and idle time of the
 * GPUUtilization reports (sreport_gpuagg.h).
 */
#include "cmd/sreport/sreport_gpuagg.h"

bool sr_gpu_add(struct sr_gpu_sum *s, const struct sr_gpu_job *j, time_t start, time_t end,
                int idle_pct)
{
    time_t from = j->start > start ? j->start : start, to = j->end < end ? j->end : end;
    if (j->start <= 0 || j->gpus <= 0 || to <= from)
        return false;
    double secs = (double)(to - from);
    s->gpu_secs += secs * j->gpus;
    /* more sampled GPUs than held would be a record from another run: the
     * held ones bound what is counted */
    size_t n = j->nsampled < (size_t)j->gpus ? j->nsampled : (size_t)j->gpus;
    for (size_t i = 0; i < n; i++) {
        s->sampled_secs += secs;
        s->util_secs += j->util[i] * secs;
        if (j->util[i] < idle_pct)
            s->idle_secs += secs;
    }
    if (n && j->mem_max_mb > s->mem_max_mb)
        s->mem_max_mb = j->mem_max_mb;
    s->jobs++;
    s->idle_cancelled += j->idle_cancelled;
    return true;
}

double sr_gpu_util(const struct sr_gpu_sum *s)
{
    return s->sampled_secs > 0 ? s->util_secs / s->sampled_secs : -1;
}
