/*
 * sreport_gpuagg: the arithmetic of the GPUUtilization reports, apart from
 * where the figures come from and how they are printed, so that unit tests
 * can check it on made-up jobs.
 *
 * A job counts the part of its run inside the period. Its GPU time is that
 * part times the GPUs it held. The GPUs NVML sampled (usage.gpu's "gpus")
 * add their share to the sampled time, their mean utilization weighted by
 * that time to the utilization, and, when a GPU's mean is under the idle
 * threshold, its time to the idle time. A GPU whose node had no NVML is in
 * the GPU time only. Utilization is the job's mean over its whole run:
 * records keep no per-hour breakdown, so a job cut by the period's edge
 * counts its mean for the part inside.
 */
#ifndef HERD_CMD_SREPORT_GPUAGG_H
#define HERD_CMD_SREPORT_GPUAGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One job, as the report needs it. */
struct sr_gpu_job {
    time_t start, end;         /* end: now, for a running job */
    int gpus;                  /* allocated */
    const double *util;        /* each sampled GPU's mean utilization, % */
    size_t nsampled;
    int64_t mem_max_mb;        /* the most one of its GPUs used; -1: unknown */
    bool idle_cancelled;       /* the idle-GPU policy ended it */
};

/* A row of the report: a user in an account, or an account. */
struct sr_gpu_sum {
    double gpu_secs;           /* allocated GPU-seconds in the period */
    double sampled_secs;       /* of those, on GPUs NVML sampled */
    double util_secs;          /* utilization % times sampled seconds */
    double idle_secs;          /* sampled seconds of GPUs under the threshold */
    int64_t mem_max_mb;        /* -1: none sampled */
    long jobs, idle_cancelled;
};

#define SR_GPU_SUM_INIT { 0, 0, 0, 0, -1, 0, 0 }

/* Adds job j's part in [start, end); false (and nothing added) when it
 * held no GPU in the period. idle_pct: a GPU whose mean is under it is
 * idle. */
bool sr_gpu_add(struct sr_gpu_sum *s, const struct sr_gpu_job *j, time_t start, time_t end,
                int idle_pct);
/* The GPU-seconds-weighted mean utilization per GPU, %; -1 when nothing
 * was sampled. */
double sr_gpu_util(const struct sr_gpu_sum *s);

#endif
