/*
 * gpu_usage: what a job did with its GPUs, from NVML samples. herdd keeps
 * one accumulator per job on its node (gpu_usage_add each sampling round,
 * JobAcctGatherFrequency or the job's --acctg-freq apart) and sends it as
 * JSON; the controller merges the nodes' (gpu_usage_summary) into the one
 * object that sacct, sstat, seff, sreport and the idle-GPU policy read.
 *
 * Utilization is in percent and memory in MiB, as NVML gives them. The
 * job's figures are Slurm's gres/gpuutil and gres/gpumem: sums over its
 * GPUs (two GPUs at 100 % read 200), the average of each GPU's samples
 * summed, and the largest round's sum.
 *
 * Per-node JSON: {"samples", "sampled_at", "idle_since", "util_max",
 * "mem_max_mb", "gpus": [{"index", "samples", "util_ave", "util_max",
 * "util_last", "mem_ave_mb", "mem_max_mb", "mem_last_mb", "mem_total_mb"}]}.
 * The summary adds "util_ave" and "mem_ave_mb" and a "node" to each GPU.
 */
#ifndef HERD_GPU_USAGE_H
#define HERD_GPU_USAGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct gpu_one {
    int index;                 /* the node's GPU index */
    int64_t samples;
    double util_sum;           /* of the samples, % */
    int util_max, util_last;
    double mem_sum_mb;
    int64_t mem_max_mb, mem_last_mb, mem_total_mb;
};

struct gpu_usage {
    int64_t samples;           /* rounds */
    int64_t sampled_at;        /* the last round's time; 0: none yet */
    int64_t idle_since;        /* the first of the rounds since which every GPU stayed
                                * under the idle threshold; 0: not idle */
    double util_max;           /* the largest round's sum over the GPUs */
    int64_t mem_max_mb;
    size_t ngpus;
    struct gpu_one *g;
};

/* One reading of one GPU; util < 0: NVML could not read it this round. */
struct gpu_reading {
    int util;
    int64_t mem_used_mb, mem_total_mb;
};

/* n GPUs, the node indices idx. */
void gpu_usage_init(struct gpu_usage *u, const int *idx, size_t n);
void gpu_usage_free(struct gpu_usage *u);
/* A round at now: r[i] for GPU i of the job. A GPU whose utilization is
 * under idle_pct (percent) counts as idle; the job is idle when all are. */
void gpu_usage_add(struct gpu_usage *u, int64_t now, const struct gpu_reading *r, int idle_pct);
/* Per-node JSON; a new reference. */
json_t *gpu_usage_json(const struct gpu_usage *u);
/* Back from gpu_usage_json's (a restarted herdd's); u must be initialized
 * with the job's GPUs: only those indices are taken. */
void gpu_usage_restore(struct gpu_usage *u, const json_t *o);

/* The job's summary from {node name: per-node JSON}; NULL when no node has
 * a sample. "idle_since" is the latest of the nodes' when every node is
 * idle, else 0. A new reference. */
json_t *gpu_usage_summary(const json_t *by_node);

#endif
