/*
 * jobsteps: a running job's steps as Slurm 22.05 lists them (squeue -s,
 * scontrol show step), from the job object the controller sends: its
 * extern step when it started under PrologFlags=Contain, its batch step
 * unless it is an srun/salloc allocation, and srun's steps still running.
 */
#ifndef HERD_CLIENT_JOBSTEPS_H
#define HERD_CLIENT_JOBSTEPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jobstep_kind { JOBSTEP_SRUN, JOBSTEP_BATCH, JOBSTEP_EXTERN };

struct jobstep {
    char *id;                  /* "12.0", "12.batch", an array's task "10_3.extern" */
    enum jobstep_kind kind;
    int64_t num;               /* srun's step number; -1 batch or extern */
    const json_t *job;         /* the job it belongs to (borrowed) */
    const char *name;          /* "batch", "extern", or the step's */
    char *node_list;
    int64_t start;
    int ntasks, cpus, nnodes;
};

struct jobsteps {
    struct jobstep *v;
    size_t n;
};

/* Adds job's steps in the order scontrol lists them: extern, batch, then
 * srun's by number. A job not running has none. */
void jobsteps_add(struct jobsteps *s, const json_t *job);
/* squeue -s's order: partition, job id, then step (srun's, batch, extern). */
void jobsteps_sort(struct jobsteps *s);
void jobsteps_free(struct jobsteps *s);

#endif
