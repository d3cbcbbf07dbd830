/*
 * array: job arrays (sbatch --array), as Slurm keeps them. The submitted
 * record is the array's meta job: its id is the array job id, and while
 * tasks wait it holds only the set of their ids, so a 100,000-task array is
 * one record. A pass starts a task by splitting it off the meta job as a job
 * of its own (a new id, array_job_id = the meta's, array_task_id = N); the
 * last task to start takes over the meta record itself.
 */
#ifndef HERD_CTLD_ARRAY_H
#define HERD_CTLD_ARRAY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ctld/ctld.h"
#include "common/slurm_errno.h"

struct http_req;
struct taskset;

struct job_array {
    struct taskset *pending;   /* the meta job: tasks not split off yet; NULL on a task */
    int throttle;              /* %N: at most N tasks running at once; 0 no limit */
    uint32_t count, min, max, step;   /* the whole array as submitted: SLURM_ARRAY_TASK_* */
};

/* From the spec's "array" (none: not an array job). At submission (submit)
 * the ids are checked against MaxArraySize. -1 with Slurm's message. */
int array_parse(struct ctld *c, struct job *j, json_t *spec, bool submit, char *err,
                size_t errlen);
void array_free(struct job_array *a);   /* NULL is a no-op */

/* The array's fields in the stored record, and back at start-up. */
void array_record_add(const struct job *j, json_t *rec);
void array_record_read(struct job *j, json_t *rec);
/* "array_job_id", "array_task_id" (a task) or "array_task_str" (the meta
 * job's pending tasks, "4-15%8"), and the SLURM_ARRAY_TASK_* numbers. */
void array_json_add(const struct job *j, json_t *o);

/* How many of a pending job's entries a pass may start: 1 for a plain job;
 * for a meta job its pending tasks, within the throttle, at most 1024. */
size_t array_snap_slots(const struct ctld *c, const struct job *j);

/* Whether a meta job's throttle (--array 4-15%8) holds its pending tasks:
 * as many of its tasks run as it allows. */
bool array_throttled(const struct ctld *c, const struct job *j);
bool array_is_meta(const struct job *j);
/* Splits the lowest pending task off a meta job (stored); the meta job
 * itself when it is the last. NULL when none may start now. */
struct job *array_split(struct ctld *c, struct job *meta);

/* POST /v1/jobs/{id}/cancel for an array: the whole array (the meta id), or
 * the tasks of {"array_tasks": "1-3"}. false when the request is not about an
 * array and the plain cancel applies; true when it was answered. */
bool array_cancel_request(struct http_req *r);
/* A cancel body's "array_tasks" ("1-3,7"), or NULL (*bad when it does not
 * parse, or has a throttle); caller frees. */
struct taskset *array_body_tasks(json_t *body, bool *bad);
/* The one cancel: cancels (sig 0) or signals the one record j, on behalf of
 * uid by (checked by the caller): a job, a task, or an array's meta record,
 * which is its waiting tasks alone (as Slurm cancels a record a filter
 * picked). *hit is 1, *acted 1 when it was not finished already (nor, for a
 * signal, pending). POST /v1/jobs/ID/cancel, the bulk cancel and an array's
 * cancel all end here. */
void array_cancel_record(struct ctld *c, struct job *j, uid_t by, int sig, enum sig_to to,
                         size_t *hit, size_t *acted);

/* When j is an array's meta job (or its last task, which took the meta
 * record over): the array's other tasks, appended to jobs as job JSON. */
void array_tasks_append(struct ctld *c, const struct job *j, json_t *jobs);

/* For dependencies: task `task` of array array_id as its own job, or the
 * meta job while the task still waits there (array_is_meta). NULL when
 * there is no such task (or it was purged). */
const struct job *array_task_job(const struct ctld *c, uint64_t array_id, uint32_t task);

/* For dependencies on a whole array: its tasks in memory, by what they do. */
struct array_summary {
    bool found;
    size_t waiting;        /* not started (in the meta job, or split off and pending) */
    size_t running;
    size_t failed;         /* ended other than COMPLETED (a meta cancelled whole counts) */
    size_t assumed;        /* ended NODE_FAIL, not yet firm (node_fail_firm.c) */
    int64_t last_start;
};
void array_summary(const struct ctld *c, uint64_t array_id, struct array_summary *s);

#endif
