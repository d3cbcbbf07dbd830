/*
 * depend: job dependencies (sbatch --dependency), as Slurm defines them:
 * after, afterany, afterok, afternotok, aftercorr and singleton, joined by
 * "," (all must hold) or "?" (any may). A dependency on another job is
 * settled when that job starts or ends (depend_notify), once: a failed one
 * stays failed even if its job is requeued and later succeeds, as Slurm. The
 * settled states are stored with the job, so a restart keeps them. Singleton
 * and aftercorr are looked at whenever asked; they depend on what runs now.
 */
#ifndef HERD_CTLD_DEPEND_H
#define HERD_CTLD_DEPEND_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctld/ctld.h"
#include "common/slurm_errno.h"

enum dep_type { DEP_AFTER, DEP_AFTERANY, DEP_AFTEROK, DEP_AFTERNOTOK, DEP_AFTERCORR,
                DEP_SINGLETON };
enum dep_state { DEP_WAIT, DEP_MET, DEP_FAILED };

struct dep {
    enum dep_type type;
    uint64_t job_id;       /* 0 for singleton */
    int64_t task;          /* ID_T: task T of array ID; -1: the job, or every task of the array */
    bool whole_array;      /* ID is an array's id: every task of it */
    int minutes;           /* after:ID+MIN */
    enum dep_state state;
    int64_t met_at;        /* after: when it holds (start + MIN) */
    bool seen_fail;        /* a task of the array ended other than COMPLETED */
};

struct job_deps {
    struct dep *v;
    size_t n;
    bool any;              /* "?": one dependency that holds is enough */
    bool kill;             /* --kill-on-invalid-dep=yes (or DependencyParameters) */
};

/* The spec's "dependency" into j->deps (none: NULL). On a submission
 * (submit) every job named must be known now. -1 with Slurm's message. */
int depend_parse(struct ctld *c, struct job *j, json_t *spec, bool submit, char *err,
                 size_t errlen);
void depend_free(struct job_deps *d);   /* NULL is a no-op */

/* The settled states in the stored record, and back at start-up. */
void depend_record_add(const struct job *j, json_t *rec);
void depend_record_read(struct ctld *c, struct job *j, json_t *rec);

/* What still holds the job back, as Slurm shows it ("afterok:12(unfulfilled)");
 * NULL when nothing does. Caller frees. */
char *depend_str(const struct ctld *c, const struct job *j, int64_t now);

/* SCHED_NONE, SCHED_DEPENDENCY or SCHED_DEP_NEVER. */
enum sched_reason depend_reason(const struct ctld *c, const struct job *j, int64_t now);
/* For a job array waiting on aftercorr: whether its task `task` may start. */
bool depend_task_ready(const struct ctld *c, const struct job *j, uint32_t task);
bool depend_per_task(const struct job *j);

/* Job `changed` started or ended: the dependencies on it are settled, those
 * that can never hold end their job where asked to. */
void depend_notify(struct ctld *c, const struct job *changed);
/* Whether a pending job waits to learn how `ended` ended (afterok,
 * afternotok, aftercorr on it, or on its array). */
bool depend_awaits_outcome(struct ctld *c, const struct job *ended);
/* A job with dependencies came in, loaded or split off: tracked. */
void depend_track(struct ctld *c, const struct job *j);
/* The listener of job changes (job_listen): a start or an end settles the
 * dependencies on the job (depend_notify); a submission is tracked and
 * settled on what is known already, which may end it. */
void depend_on_job(struct ctld *c, struct job *j, enum job_event ev);
/* scontrol update Dependency=: the spec's new list, checked as a
 * submission's and for a cycle through j, replaces j's. -1 with Slurm's
 * message ("Job dependency problem", "Circular dependency"). */
int depend_change(struct ctld *c, struct job *j, json_t *spec, char *err, size_t errlen);

/* Whether an after:ID+MIN delay ran out in (since, now]: a pass is due. */
bool depend_due(const struct ctld *c, int64_t since, int64_t now);

#endif
