/*
 * step: job steps (srun inside an allocation). The controller lays a step
 * out over the job's nodes (which nodes, how many tasks each, which task
 * ids, which GPUs each task sees) and keeps it with the job while the job
 * runs; srun then asks each node's agent to start its part, and the agent
 * takes the layout from the controller (GET .../steps/{s}), never from srun,
 * so a user can only start tasks where their running job holds resources.
 *
 * As on Slurm since 20.11, a step holds its CPUs (tasks x cpus-per-task on
 * each node) and, with --gpus-per-task, its GPUs, until it ends: a step
 * that does not fit beside the running ones is refused as busy (srun asks
 * again) unless it asks to --overlap; one that could never fit in the
 * allocation is refused outright.
 */
#ifndef HERD_CTLD_STEP_H
#define HERD_CTLD_STEP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

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
    int *cpus;             /* CPUs it holds on each step node (0 with --overlap) */
    uint64_t *gpus;        /* GPUs it sees on each step node; held with --gpus-per-task */
    bool ended;            /* srun (or a node, srun gone) said so: what it held is free */
    char *name;
    struct job_step *next;
};

void step_free_all(struct job_step *s);   /* the whole list; NULL is a no-op */
/* Slurm's compressed per-node counts ("2(x3),1"), as SLURM_TASKS_PER_NODE. */
char *step_counts_str(const int *v, size_t n);

/* The step records of j still running, as squeue -s and scontrol show
 * step list them: a new array holding them. */
json_t *step_running_json(const struct job *j);

/* The job ended: its steps still running in the records end with it. */
void step_records_close(struct job *j);
/* POST /v1/jobs/{id}/steps/{step}/complete {"exit_code", "signal",
 * "cancelled": srun ended it}: srun's
 * word on how the step ended, for accounting. */
void api_step_complete(struct http_req *r);

/* sig to every task of every running step of j, through the node agents,
 * but those on node skip_node (SIZE_MAX: none). */
void step_signal_all(struct ctld *c, const struct job *j, int sig, size_t skip_node);

/* POST /v1/jobs/{id}/complete {"exit_code"}: the owner of an allocation
 * (srun, salloc) ends it: COMPLETED, or FAILED with a non-zero code. */
void api_alloc_complete(struct http_req *r);

/* POST /v1/jobs/{id}/steps {"ntasks", "nodes", "ntasks_per_node", "cpus_per_task",
 * "gpus_per_task", "nodelist", "name", "overlap"} -> the layout, with each
 * node's address; 409 "Requested nodes are busy" while running steps hold
 * what it needs. */
void api_step_create(struct http_req *r);
/* GET /v1/jobs/{id}/steps/{step}: the layout, for the node agents. */
void api_step_show(struct http_req *r);

#endif
