/*
 * paths: the protocol's routes as the commands call them, each written once
 * (docs/protocol.md says what each takes and answers). A route with an id in
 * it is a macro of the id's printf conversion, so that the caller keeps its
 * own id type and the compiler still checks the format:
 *     snprintf(path, sizeof path, PATH_JOB_CANCEL("%lld"), (long long)id);
 * A query ("?fields=...") is appended by the caller.
 */
#ifndef HERD_CLIENT_PATHS_H
#define HERD_CLIENT_PATHS_H

/* The controller's */
#define PATH_PING              "/v1/ping"
#define PATH_JOBS              "/v1/jobs"               /* GET: list; POST: submit */
#define PATH_JOBS_CANCEL       "/v1/jobs/cancel"        /* POST: the jobs a filter picks */
#define PATH_JOB(id)           "/v1/jobs/" id
#define PATH_JOB_CANCEL(id)    "/v1/jobs/" id "/cancel"
#define PATH_JOB_WAIT(id)      "/v1/jobs/" id "/wait"
#define PATH_JOB_COMPLETE(id)  "/v1/jobs/" id "/complete" /* an allocation's end */
#define PATH_JOB_UPDATE(id)    "/v1/jobs/" id "/update"
/* POST: ACTION is hold, release or requeue (scontrol) */
#define PATH_JOB_ACTION(id, action) "/v1/jobs/" id "/" action
#define PATH_JOB_STEPS(id)     "/v1/jobs/" id "/steps"  /* POST: a step's layout */
#define PATH_JOB_STEP_COMPLETE(id, step) "/v1/jobs/" id "/steps/" step "/complete"
#define PATH_NODES             "/v1/nodes"
#define PATH_NODES_UPDATE      "/v1/nodes/update"
#define PATH_PARTITIONS        "/v1/partitions"
#define PATH_PARTITIONS_UPDATE "/v1/partitions/update"
#define PATH_ACCOUNTING        "/v1/accounting"
#define PATH_PRIORITIES        "/v1/priorities"
#define PATH_SHARES            "/v1/shares"
#define PATH_ACCTDB            "/v1/acctdb"             /* GET: sacctmgr show; POST: a change */
#define PATH_DIAG              "/v1/diag"
#define PATH_DIAG_RESET        "/v1/diag/reset"
#define PATH_RECONFIGURE       "/v1/reconfigure"
#define PATH_TOKEN             "/v1/token"
#define PATH_RESERVATIONS      "/v1/reservations"       /* GET: active and future ones */

/* A node agent's, for srun's steps (src/noded/step.h) */
#define PATH_STEPS             "/v1/steps"              /* POST: start; the stream */
#define PATH_STEPS_SIGNAL      "/v1/steps/signal"
#define PATH_STEPS_STDIN       "/v1/steps/stdin"
#define PATH_STEPS_PMI         "/v1/steps/pmi"

#endif
