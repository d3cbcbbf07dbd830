/*
 * The simulator's state, shared by the files of its event loop (engine.c,
 * heap.c, preempt.c, scav.c, maint.c); nothing outside src/sim sees it.
 *
 * The pending and running lists are kept as the arrays struct sched_input
 * borrows. Pending is in priority order: owners by submission, then
 * scavengers by submission (a requeued one at the end).
 */
#ifndef HERD_SIM_ENGINE_H
#define HERD_SIM_ENGINE_H

#include "sim/sim.h"

struct sim_ev {                    /* a run's end: natural, or its grace's */
    int64_t t;
    size_t job;
    uint32_t seq;                  /* the job's seq when pushed */
};

struct sim {
    struct sim_job *jobs;          /* the trace's, then a stream's (grown) */
    size_t n, cap, ntrace;
    const struct sim_opts *o;
    enum sched_policy pol;
    struct sched_node *nodes;
    size_t nnodes;
    int cpn;
    struct sched_part part;
    size_t *part_nodes;
    struct sched_job *pend;
    size_t *pend_job, npend;
    size_t npend_owner;            /* pend[0, npend_owner) are owners' */
    struct sched_running *run;
    size_t *run_job, nrun;
    size_t *run_pos;               /* per job: its index in run */
    int64_t *plan_run;             /* per job: the run time planned on */
    struct sim_ev *heap;
    size_t nheap, heapcap;
    struct sched_predict *pred;
    size_t busy;                   /* nodes held by running jobs */
    struct sim_limits lim;
    uint32_t *job_user;            /* per trace job: its user's index into users and limits */
    int64_t (*users)[2];           /* per user: processors and jobs running */
    struct sched_limit *limits;
    size_t nusers;
    /* scavenger stream */
    uint64_t rng;
    uint64_t next_id;
    int64_t stream_end;            /* no new stream job after the last owner submits */
    size_t npend_scav_stream;
    /* maintenance windows */
    struct sched_alloc *holds;     /* every node, whole */
    struct sched_resv resv[16];    /* the windows not over yet, soonest first */
    size_t nresv;
    int64_t t0;                    /* the trace's first submission */
    struct sim_result *r;
};

/* heap.c */
void sim_heap_push(struct sim *s, int64_t t, size_t job);
struct sim_ev sim_heap_pop(struct sim *s);
bool sim_heap_live(const struct sim *s, const struct sim_ev *e);

/* engine.c */
void sim_arrive(struct sim *s, size_t job);
size_t sim_add_job(struct sim *s, const struct sim_job *j);
void sim_run_remove(struct sim *s, size_t job);

/* preempt.c: carries out one decision's victims; how many were removed
 * at once (their resources are free for another pass at now). */
size_t sim_preempt(struct sim *s, const struct sched_decision *d, int64_t now);
/* A victim's run stops at now: requeued or cancelled. */
void sim_preempt_stop(struct sim *s, size_t job, int64_t now);

/* scav.c: the stream's jobs while owners still arrive; how many added. */
size_t sim_stream_topup(struct sim *s, int64_t now);

/* maint.c */
void sim_maint_init(struct sim *s);
void sim_maint_fini(struct sim *s);
void sim_maint_refresh(struct sim *s, int64_t now);
int64_t sim_maint_next_end(const struct sim *s, int64_t after);
bool sim_maint_overlaps(const struct sim *s, int64_t start, int64_t end);
size_t sim_maint_count(const struct sim *s);

#endif
