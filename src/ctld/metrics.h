/*
 * metrics: what the GET /metrics/... endpoints serve (docs/metrics.md), Slurm 25.11's
 * families under their slurm_ names and Herd's own under herd_ names.
 *
 * Each endpoint is rendered into an evbuffer by one walk of the job table
 * (metrics_jobs.c, metrics_nodes.c, metrics_sched.c); nothing is allocated
 * per job, only per user, account, partition or node. The limits' headroom
 * (metrics_limits.c) is the exception: a second walk that finds each job's
 * limits as a scheduling pass does, only when limits are enforced. What cannot be read
 * off the tables at a scrape is kept here as it happens (metrics.c): RPC
 * counts and latency per route, the store's commit latency, and GPU-seconds
 * allocated per user since start-up.
 */
#ifndef HERD_CTLD_METRICS_H
#define HERD_CTLD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "ctld/ctld.h"

struct evbuffer;
struct http_route;

/* metrics.c: the counters kept between scrapes. metrics_create after the
 * jobs are loaded (running ones are charged from then on); the routes are
 * the server's table, for the route label. */
struct metrics *metrics_create(const struct ctld *c, const struct http_route *routes,
                               size_t nroutes);
void metrics_destroy(struct metrics *m);   /* NULL: no-op */
/* The HTTP server's observer (http_server_observe) and the store's commit
 * hook; arg is the struct metrics. */
int64_t metrics_rpc_start(void *arg);
void metrics_rpc_end(void *arg, int route, const char *method, int status, int64_t token);
void metrics_commit_seen(void *arg, int64_t us);
/* A job listener (job_listen): GPU-seconds charged as jobs start and end. */
void metrics_on_job(struct ctld *c, struct job *j, enum job_event ev);
/* herd_rpc_requests_total, herd_rpc_latency_seconds, herd_db_commit_seconds */
void metrics_write_rpc(const struct metrics *m, struct evbuffer *b);
/* Every second (health.c): herd_gpus_idle_seconds_total integrates the
 * idle GPUs seen at each tick over the second that follows. */
void metrics_tick(struct ctld *c);
/* herd_gpus_idle_seconds_total */
void metrics_write_idle(const struct ctld *c, struct evbuffer *b);
/* herd_user_gpu_seconds_total{username} */
void metrics_write_gpu_seconds(const struct metrics *m, struct evbuffer *b, int64_t now);

/* metrics_nodes.c: GPUs on nodes that may take work that no job holds
 * (u: node_usage_get's). */
uint64_t metrics_gpus_idle(const struct ctld *c, const struct node_usage *u);

/* metrics_gpu.c: the per-GPU figures of running jobs and the idle-GPU
 * policy's flags, for /metrics/jobs: begin, add each job during the walk,
 * end writes the families into b (and frees the rows). */
#define JOB_GPU_FAMS 4
struct job_gpu_rows {
    struct evbuffer *buf[JOB_GPU_FAMS];   /* each family's samples */
    uint64_t flagged;
};
void metrics_job_gpus_begin(struct job_gpu_rows *r);
void metrics_job_gpus_add(struct job_gpu_rows *r, const struct job *j);
void metrics_job_gpus_end(struct job_gpu_rows *r, struct evbuffer *b);

/* metrics_limits.c: herd_*_headroom, what the QOS and association limits
 * leave to each user, account and QOS with jobs (enforced limits only). */
void metrics_write_headroom(const struct ctld *c, struct evbuffer *b);

/* The endpoints' bodies (without "# EOF"). */
void metrics_jobs(const struct ctld *c, struct evbuffer *b);
void metrics_users_accts(const struct ctld *c, struct evbuffer *b);
void metrics_nodes(const struct ctld *c, struct evbuffer *b);
void metrics_partitions(const struct ctld *c, struct evbuffer *b);
void metrics_sched(const struct ctld *c, struct evbuffer *b);

/* metrics_jobs.c, for the partitions: what jobs hold and wait for, by state
 * as Slurm's statistics count them (a pending array counts its waiting
 * tasks). */
struct jtally {
    uint64_t bootfail, cancelled, completed, completing, configuring, deadline, expediting;
    uint64_t failed, fed_requeued, finished, hold, node_failed, oom, pending, powerup_node;
    uint64_t preempted, requeued, resizing, revoked, running, signaling, stageout, started;
    uint64_t suspended, timeout, jobs;
    uint64_t cpus_alloc, gpus_alloc, memory_alloc, nodes_alloc;
    uint64_t active;                  /* not finished (a partition's slurm_partition_jobs) */
    uint64_t max_nodes, min_nodes, max_nodes_nohold, min_nodes_nohold;   /* pending jobs' */
};
void metrics_tally(const struct ctld *c, struct jtally *t, const struct job *j);

#endif
