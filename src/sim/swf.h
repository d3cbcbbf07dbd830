/*
 * swf: reading a job log in the Standard Workload Format of the Parallel
 * Workloads Archive (18 numeric fields a line, `;` header lines with
 * MaxProcs), plain or gzip-compressed, and cleaning it into the jobs the
 * simulator replays.
 */
#ifndef HERD_SIM_SWF_H
#define HERD_SIM_SWF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct swf_job {
    uint64_t id;
    int64_t submit, wait, run;
    int64_t alloc_procs, req_procs, req_time;
    int64_t user;
};

struct swf_trace {
    struct swf_job *jobs;
    size_t n, cap;
    int64_t max_procs;             /* from the header; 0 if absent */
};

/* 0, or -1 with *err ("FILE:LINE: reason", to free) set. */
int swf_read(const char *path, struct swf_trace *t, char **err);
void swf_free(struct swf_trace *t);

/* A job as the simulator replays it. */
struct sim_job {
    uint64_t id;
    int64_t submit, run, est, procs, user;
    int64_t start, end;            /* filled by the simulation: its last run */
    bool scav;                     /* a scavenger: owners' jobs may preempt it */
    bool cancelled;                /* preempted with CANCEL: its last run did no work */
    bool stopping;                 /* a victim: its run ends at its grace's end */
    uint32_t seq;                  /* runs cut short: an end event of an earlier run is stale */
    uint32_t preemptions;
    uint32_t instant;              /* of them, runs preempted in the second they started */
    int64_t lost;                  /* processor-seconds its preempted runs lost */
};

/* Cleans t for a machine of `procs` processors (the rules of `herd sim`,
 * strict ones if truncate) into *out sorted by submit time. */
void swf_clean(const struct swf_trace *t, int64_t procs, bool truncate,
               struct sim_job **out, size_t *n);

#endif
