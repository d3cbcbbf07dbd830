/*
 * sched_snap, sched_worker: one scheduling pass, planned on a private copy
 * of the controller's state by a thread of its own, then applied by the event
 * loop (sched_glue.c). While it plans, the loop keeps answering everyone;
 * at most one pass is in flight, and a pass asked for meanwhile follows it.
 */
#ifndef HERD_CTLD_SCHED_SNAP_H
#define HERD_CTLD_SCHED_SNAP_H

#include <stdbool.h>
#include <stdint.h>

#include "ctld/limits.h"
#include "sched/sched.h"

struct ctld;
struct arena_block;

struct sched_snap {
    struct sched_input in;     /* every pointer owned here or by the configuration */
    int64_t now;
    unsigned *gens;            /* per pending job: its spec_gen when copied */
    uint64_t *metas;           /* per pending entry: the array meta job whose next task it
                                  stands for (its job_id is then made up); 0 a plain job */
    struct sched_part *parts;
    struct sched_alloc *allocs;    /* the running jobs' allocations */
    struct arena_block *arena;
    struct limit_table limits; /* the limits the pending jobs count against */
    struct sched_resv *resvs;  /* the reservations that matter now: resv_jobs.c */
    struct sched_alloc *resv_holds;
    /* filled by the worker thread */
    struct sched_output out;
    char **words;              /* per decision: its reason in plain words; NULL none */
};

struct sched_snap *ctld_sched_snap_take(const struct ctld *c, int64_t now);
void ctld_sched_snap_free(struct sched_snap *s);

/* sched_worker.c. `done` runs on the event loop with the planned snapshot,
 * which it then owns. Returns -1 if a pass is already in flight. */
int ctld_sched_worker_run(struct ctld *c, struct sched_snap *s,
                     void (*done)(struct ctld *, struct sched_snap *));
bool ctld_sched_worker_busy(const struct ctld *c);
void ctld_sched_worker_stop(struct ctld *c);    /* waits for a pass in flight, drops it */

#endif
