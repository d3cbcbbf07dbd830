/*
 * alloc: the job allocation srun and salloc make when they run outside one.
 * Its resources are given with sbatch's own options (the same parser, so
 * -N, -n, -p, -t, --gres, --mem ... mean what they mean to sbatch); the job
 * has no batch script ("allocation": true) and ends when its maker says so
 * (POST /v1/jobs/{id}/complete), is cancelled, or reaches its time limit.
 */
#ifndef HERD_ALLOC_H
#define HERD_ALLOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* The options, sbatch style ("--nodes=2", ...); argv[0] is prog. The new
 * job's id, or 0 with the error printed as Slurm prints it. */
int64_t alloc_create(const char *prog, int argc, char **argv, const char *default_name);

/* Blocks until the job runs: 0 with *job its JSON (caller decrefs), or -1
 * when it ended first ("Job allocation N has been revoked."). Says that it
 * waits, as srun and salloc do. */
int alloc_wait(const char *prog, int64_t id, json_t **job);

/* With true (-Q), alloc_wait and alloc_release say nothing but errors. */
void alloc_quiet(bool quiet);

/* SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_JOB_NUM_NODES, SLURM_NTASKS ...
 * of the allocation, for what runs inside it. */
void alloc_setenv(const char *prog, const json_t *job);

/* Ends the allocation with the exit code of what ran in it. */
void alloc_release(const char *prog, int64_t id, int rc);

#endif
