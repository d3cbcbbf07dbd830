/*
 * gpumon: herdd's watch over its jobs' GPUs. NVML stays open for herdd's
 * life; each running job is sampled every JobAcctGatherFrequency seconds
 * (its own --acctg-freq when given): its GPUs' utilization and memory into
 * a gpu_usage accumulator, and its cgroup's CPU time and peak memory. The
 * accumulator is written to the job's spool directory (a restarted herdd
 * goes on from it), goes to the controller after each round
 * (POST /v1/node/usage, for sstat and the idle-GPU policy) and with the
 * job's end. The node's own GPUs are read when /metrics is asked.
 */
#ifndef HERD_NODED_GPUMON_H
#define HERD_NODED_GPUMON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/gpu_usage.h"

struct agent;
struct ajob;
struct evbuffer;

#define SPOOL_GPU_USAGE "gpu_usage"

/* What herdd knows of one job's use so far. */
struct jobmon {
    int freq_s;                /* sampling period; 0: never */
    int64_t next_at;           /* next round */
    struct gpu_usage gpu;      /* ngpus 0: the job has none here */
    int64_t cpu_ms, max_rss_kb;    /* from its cgroup; -1 unknown */
    char user[64];             /* for /metrics' labels */
};

/* At herdd's start: NVML and the node's GPUs; a node without them samples
 * CPU and memory only. Stop releases it. */
void gpumon_start(struct agent *a);
void gpumon_stop(struct agent *a);

/* A job starting or found in the spool: its GPUs and period from job.json
 * (dir's), and what an earlier herdd gathered. */
void gpumon_job_init(struct agent *a, struct ajob *j, const char *dir);
void gpumon_job_free(struct ajob *j);

/* gpumon_steps.c: a step of job_id (run by uid) started here with this
 * node's share of the layout (its "gpus"); a job whose batch runs on
 * another node is sampled here from now on, while a step of it runs. */
void gpumon_step_started(struct agent *a, int64_t job_id, uid_t uid, const json_t *node);

/* Each second: the rounds that are due, and one report of them. */
void gpumon_tick(struct agent *a);

/* The job's "gpu" object for its end message; NULL when it has no sample. */
json_t *gpumon_job_json(const struct ajob *j);

/* GET /metrics on herdd's port: each GPU's utilization, memory, power and
 * temperature, and which job holds it. */
void gpumon_metrics(struct agent *a, struct evbuffer *b);

#endif
