/*
 * step: job steps (srun inside an allocation). The controller lays a step
 * out over the job's nodes (which nodes, how many tasks each, which task
 * ids, which GPUs each task sees) and keeps it with the job while the job
 * runs; srun then asks each node's agent to start its part, and the agent
 * takes the layout from the controller (GET .../steps/{s}), never from srun,
 * so a user can only start tasks where their running job holds resources.
 */
#ifndef HERD_CTLD_STEP_H
#define HERD_CTLD_STEP_H

#include <jansson.h>

#include "common/http.h"

struct ctld;
struct job;

/* One step's layout, as created; the job owns its list. */
struct job_step {
    int id;
    int ntasks;
    size_t nnodes;
    size_t *alloc;         /* index into job->allocs, per step node */
    int *tasks;            /* tasks on each step node */
    int gpus_per_task;     /* 0: each task sees every GPU the job has on its node */
    int cpus_per_task;
    char *name;
    struct job_step *next;
};

void step_free_all(struct job_step *s);   /* the whole list; NULL is a no-op */
/* Slurm's compressed per-node counts ("2(x3),1"), as SLURM_TASKS_PER_NODE. */
char *step_counts_str(const int *v, size_t n);

/* The job ended: its steps still running in the records end with it. */
void step_records_close(struct job *j);
/* POST /v1/jobs/{id}/steps/{step}/complete {"exit_code", "signal",
 * "cancelled": srun ended it}: srun's
 * word on how the step ended, for accounting. */
void api_step_complete(struct http_req *r);

/* sig to every task of every step of j, through the node agents. */
void step_signal_all(struct ctld *c, const struct job *j, int sig);

/* POST /v1/jobs/{id}/complete {"exit_code"}: the owner of an allocation
 * (srun, salloc) ends it: COMPLETED, or FAILED with a non-zero code. */
void api_alloc_complete(struct http_req *r);

/* POST /v1/jobs/{id}/steps {"ntasks", "nodes", "ntasks_per_node", "cpus_per_task",
 * "gpus_per_task", "nodelist", "name"} -> the layout, with each node's address. */
void api_step_create(struct http_req *r);
/* GET /v1/jobs/{id}/steps/{step}: the layout, for the node agents. */
void api_step_show(struct http_req *r);

#endif
