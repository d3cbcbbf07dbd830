/*
 * suspend: jobs suspended and resumed. scontrol suspend/resume (root only)
 * and PreemptMode=SUSPEND stop a running job's processes on its nodes; a
 * suspended job keeps its GPUs and memory (Slurm: "Suspended jobs will not
 * release GRES"), leaves its CPUs to others, and its time limit waits: it
 * is moved on by the time the job was suspended. A job suspended by a
 * preemption is resumed when its preemptor ends, is cancelled or requeued,
 * once its CPUs are free again (Slurm's GANG, for preemption).
 */
#ifndef HERD_CTLD_SUSPEND_H
#define HERD_CTLD_SUSPEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctld/ctld.h"

/* Suspends victim, a running job, so that preemptor can start: 0, or -1
 * when it cannot be suspended (not running, already ending): the caller
 * then falls back to REQUEUE or CANCEL. */
int preempt_suspend(struct ctld *c, struct job *victim, struct job *preemptor);

/* Whether a preemption of j suspends it (PreemptMode=SUSPEND for its
 * partition or QOS): the snapshot marks such a job sched_running.suspend. */
bool preempt_suspends(const struct ctld *c, const struct job *j);

/* A yielded job's preemptor is gone: it resumes once its CPUs are free. */
#define SUSPEND_YIELD_DONE UINT64_MAX

/* scontrol suspend (stop) or resume of j: 0, or -1 with Slurm's error code
 * and message (the job is not running, not suspended, or has ended). */
int suspend_job(struct ctld *c, struct job *j, bool stop, int *code, const char **msg);

/* The listener (job_listen): a suspend or resume goes to the job's node
 * agents once stored; an end or requeue resumes the jobs that yielded to
 * the job, when their CPUs are free. */
void suspend_on_job(struct ctld *c, struct job *j, enum job_event ev);

/* A node registers listing j, which runs or is suspended there: the last
 * suspend or resume is sent again unless an agent answered it. */
void suspend_reconcile(struct ctld *c, struct job *j);

/* When a running or suspended job reaches its time limit, the time it was
 * suspended added (while suspended: as if it resumed now); -1: no limit. */
int64_t suspend_end_time(const struct job *j, int64_t now);

/* The scheduling core's view of a running or suspended job (sched_snap.c). */
void suspend_snap_mark(const struct ctld *c, const struct job *j, struct sched_running *r);

/* The record's fields, a requeue's new run (cleared), and the client's JSON
 * ("suspend_time", "pre_suspend_s", "suspended_s"). */
void suspend_clear(struct job *j);
void suspend_record_add(const struct job *j, json_t *rec);
void suspend_record_read(struct job *j, const json_t *rec);
void suspend_json_add(const struct job *j, json_t *o);

#endif
