/*
 * sreport_gpu: the GPUUtilization reports (user GPUUtilization, account
 * GPUUtilization): per user in an account, or per account, the GPU time
 * held in the period, how much of it NVML sampled, the mean utilization,
 * the time of GPUs that sat idle, the most memory one GPU used, the jobs
 * and how many the idle-GPU policy ended. sreport_gpu.c gathers the rows
 * from the job records (and the live figures of running jobs);
 * sreport_gpu_print.c prints them as a table, -p/-P or --json.
 */
#ifndef HERD_CMD_SREPORT_GPU_H
#define HERD_CMD_SREPORT_GPU_H

#include "cmd/sreport/sreport.h"
#include "cmd/sreport/sreport_gpuagg.h"

struct sr_gpu_row {
    char *user;                /* NULL in the account report */
    char *account;
    struct sr_gpu_sum s;
};

struct sr_gpu_report {
    bool by_account;
    int idle_pct;              /* IdleGPUPolicy's threshold (5 without one) */
    struct sr_gpu_row *rows;   /* most GPU time first */
    size_t n;
};

/* 0, or 1 after printing an error. */
int sr_gpu_collect(const struct sreport *r, struct sr_gpu_report *g);
void sr_gpu_report_free(struct sr_gpu_report *g);
void sr_gpu_print(const struct sreport *r, const struct sr_gpu_report *g);

#endif
