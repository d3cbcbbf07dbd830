/*
 * sim: `herd sim`, replaying a workload trace (SWF) through the real
 * scheduling core on simulated time, and the figures the literature reports
 * on it (wait, bounded slowdown, utilization). A program of its own, herd-sim
 * (main.c), which `herd sim` runs: the commands link no scheduler.
 */
#ifndef HERD_SIM_H
#define HERD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"
#include "sim/swf.h"

struct sim_opts {
    const char *path;
    enum sched_policy policy;
    int64_t procs;                 /* machine size; 0: the header's MaxProcs */
    int cpus_per_node;             /* 0: 1 */
    double warmup;                 /* first fraction of jobs, by end time, not averaged */
    bool truncate;                 /* the strict cleaning; runs cut at the estimate */
    struct sim_limits {            /* a QOS's per-user limits; 0: none */
        int64_t procs_per_user;    /* MaxTRESPerUser=cpu=N: processors running at once */
        int64_t jobs_per_user;     /* MaxJobsPerUser=N */
    } limits;
};

struct sim_result {
    size_t jobs, averaged, passes;
    size_t refused;                /* jobs over a per-user limit alone: refused, as at submit */
    int64_t procs, nodes;
    int64_t makespan_s, max_wait_s;
    double utilization, avg_wait_s, avg_bsld;
};

#define SIM_TAU_S 10               /* bounded slowdown's floor on the run time */

/* 0, or -1 with *err set (to free). */
int sim_run(const struct sim_opts *o, struct sim_result *r, char **err);

/* Replays cleaned jobs (sorted by submit) on nodes of cpn CPUs making up
 * procs processors; fills each job's start and end. Returns the passes. */
size_t sim_replay(struct sim_job *jobs, size_t n, int64_t procs, int cpn, enum sched_policy pol,
                  const struct sim_limits *lim);
void sim_metrics(const struct sim_job *jobs, size_t n, int64_t procs, double warmup,
                 struct sim_result *r);

int cmd_herd_sim(int argc, char **argv);

#endif
