/*
 * gpu_live: what running jobs do with what they hold, as their node agents
 * report it (POST /v1/node/usage after each sampling round: CPU time, peak
 * memory and the GPU accumulator of common/gpu_usage.h). It is what sstat,
 * squeue --json and /metrics show of a running job, and what the idle-GPU
 * policy (idle_gpu.c) acts on; at the job's end (or requeue) the nodes'
 * accumulators become usage.gpu in its record, for sacct, seff and sreport.
 *
 * Live figures are not stored: after a controller restart they come back
 * with the agents' next round (the agents keep the accumulators). The
 * policy's flag and its action are stored with the job.
 */
#ifndef HERD_CTLD_GPU_LIVE_H
#define HERD_CTLD_GPU_LIVE_H

#include <jansson.h>
#include <stdint.h>

struct ctld;
struct job;
struct http_req;

struct job_gpu {
    json_t *live;              /* {node: {"at", "cpu_ms", "max_rss_kb", "gpu"}}, this run's */
    int64_t flagged_at;        /* the idle-GPU policy flagged it; 0: not */
    int64_t acted_at;          /* the policy's action was taken (or said, dry_run) */
    char *end_reason;          /* "IdleGPU": the policy ended it (sacct Reason) */
    char *note;                /* what the policy did, in words (sacct AdminComment) */
};

/* POST /v1/node/usage, from the agents. */
void api_node_usage(struct http_req *r);
/* An agent's job_end brought usage.gpu: taken into the live map under the
 * node, as its last round. */
void gpu_live_take_end(struct ctld *c, struct job *j, const char *node);
/* The run ends (ended or requeued): usage.gpu becomes the summary of every
 * node's accumulator; the live map is emptied. */
void gpu_live_finish(struct job *j);
/* The job's JSON for clients: "usage_live" for a running job, "gpu_util" (squeue's GpuUtil),
 * "gpu_idle_flagged_at" while flagged, "admin_comment" and "end_reason" once set. */
void gpu_live_json(const struct job *j, json_t *o);
/* The live summary ("usage_live"'s shape); NULL when none. New reference. */
json_t *gpu_live_summary(const struct job *j);
/* A requeued job's next run: no flag, no note, no end reason (the run
 * kept for sacct -D has them). */
void gpu_live_next_run(struct job *j);
void gpu_live_record_add(const struct job *j, json_t *rec);
void gpu_live_record_read(struct job *j, const json_t *rec);
void gpu_live_free(struct job *j);

/* idle_gpu.c: the policy, after each report of a running job. */
void idle_gpu_check(struct ctld *c, struct job *j, int64_t now);

#endif
