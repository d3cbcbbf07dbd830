/*
 * sim: `herd sim`, replaying a workload trace (SWF) through the real
 * scheduling core on simulated time, and the figures the literature reports
 * on it (wait, bounded slowdown, utilization). A program of its own, herd-sim
 * (main.c), which `herd sim` runs: the commands link no scheduler.
 *
 * Files: main.c (the program), cmd.c (options), report.c (the report, text
 * or JSON), swf.c (the trace), engine.c (the event loop and the passes),
 * heap.c (run ends by time), preempt.c (carrying out a pass's victims:
 * requeue or cancel, at once or after the grace), scav.c (which jobs are
 * scavengers: chosen users, a generated stream), maint.c (maintenance
 * windows as MAINT reservations), metrics.c (the figures).
 */
#ifndef HERD_SIM_H
#define HERD_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"
#include "sim/swf.h"

enum sim_preempt {
    SIM_PREEMPT_OFF = 0,           /* scavengers are ordinary low-priority jobs */
    SIM_PREEMPT_REQUEUE,           /* a victim goes back to the queue, its run lost */
    SIM_PREEMPT_CANCEL,            /* a victim ends, its run lost */
};

/* Scavenger work: jobs that owners' jobs may preempt (preempt class 1).
 * Every scavenger waits behind every owner. */
struct sim_scav {
    double users_pct;              /* --scavenger-users: this % of the trace's users */
    int stream;                    /* --scavenger-stream: K generated 1-node jobs kept queued */
    bool owners_only;              /* --owners-only: leave the scavengers out (the baseline) */
    enum sim_preempt preempt;
    int64_t grace_s;               /* GraceTime: a victim stops this long after it is chosen */
    uint64_t seed;
};

/* Whole-machine MAINT reservations: [start + k*period, + duration), seconds
 * from the trace's first submission; period 0: one window. */
struct sim_maint {
    int64_t start, duration, period;
};

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
    struct sim_scav scav;
    struct sim_maint maint;        /* duration 0: none */
    const char *jobs_out;          /* --jobs-out: every job's schedule, one a line */
    int64_t age_bound_s;           /* --age-bound: herd's starvation guard; 0: the default
                                      (SCHED_AGE_BOUND_DEFAULT_S), < 0: none */
    int age_resv;                  /* --age-resv; 0: the default, < 0: none */
    enum sim_predict {             /* --predict: herd's predictor */
        SIM_PREDICT_CLASS = 0,     /* trusted history of the class (user, requested time),
                                      else the user's, else the estimate: the default */
        SIM_PREDICT_USER,          /* trusted history of the user, else the estimate */
        SIM_PREDICT_EASYPP,        /* the mean of the user's last two runs, always
                                      (EASY++, as before) */
        SIM_PREDICT_ESTIMATE,      /* the estimate: shortest requested time first */
    } predict;
    bool plan_predicted;           /* --plan-predicted (herd, an experiment, not what
                                      herdctld does): plan on the predictions too, as
                                      EASY++ does, running jobs corrected on expiry */
};

struct sim_scav_result {
    size_t jobs, completed, cancelled, preemptions;
    size_t instant;                /* preemptions of runs started that same second */
    double done_ps, lost_ps;       /* processor-seconds: completed runs, runs cut short */
    double avg_wait_s;             /* completed ones: last start - submit */
};

struct sim_result {
    size_t jobs, averaged, passes;
    size_t refused;                /* jobs over a per-user limit alone: refused, as at submit */
    int64_t procs, nodes;
    int64_t makespan_s, max_wait_s;
    double utilization, avg_wait_s, avg_bsld;   /* utilization: completed work only */
    double busy;                   /* utilization with the work preemption lost */
    size_t owners;                 /* jobs that are not scavengers (the averages are theirs) */
    struct sim_scav_result scav;
    size_t maint_windows;          /* windows that began before the last job ended */
    size_t maint_refused;          /* jobs longer than the time between two windows */
    size_t maint_overlaps;         /* runs that overlapped a window: 0 unless a bug */
};

#define SIM_TAU_S 10               /* bounded slowdown's floor on the run time */
#define SIM_SCAV_CLASS 1           /* scavengers' preempt class */

/* 0, or -1 with *err set (to free). */
int sim_run(const struct sim_opts *o, struct sim_result *r, char **err);

/* Replays cleaned jobs (sorted by submit) on nodes of cpn CPUs making up
 * procs processors; fills each job's start and end, appending the jobs a
 * scavenger stream generates to *jobs. Fills r's passes and maint_*. */
void sim_replay(struct sim_job **jobs, size_t *n, int64_t procs, const struct sim_opts *o,
                struct sim_result *r);
void sim_metrics(const struct sim_job *jobs, size_t n, int64_t procs, double warmup,
                 struct sim_result *r);

/* scav.c: marks the jobs of a seeded users_pct % of the users as
 * scavengers (and takes them out with owners_only). */
void sim_scav_mark(struct sim_job *jobs, size_t *n, const struct sim_scav *sc);

/* maint.c: "START,DURATION[,PERIOD]" in seconds; 0, or -1 with *err set. */
int sim_maint_parse(const char *s, struct sim_maint *m, char **err);
/* A job longer than the time between two windows could never run. */
bool sim_maint_never_fits(const struct sim_maint *m, int64_t est);

/* report.c */
void sim_print(const struct sim_opts *o, const struct sim_result *r, bool json);
/* The schedule, tab-separated with a header; 0, or -1 with *err set. */
int sim_write_jobs(const char *path, const struct sim_job *jobs, size_t n, char **err);
const char *sim_preempt_name(enum sim_preempt p);

int cmd_herd_sim(int argc, char **argv);

#endif
