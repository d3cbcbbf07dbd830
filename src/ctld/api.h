/*
 * api: the controller's handlers, reached from the one route table in api.c.
 * Each gets the request (req->ctx is the struct ctld) and replies exactly once.
 */
#ifndef HERD_CTLD_API_H
#define HERD_CTLD_API_H

#include "common/http.h"

/* api_check.c: the checks job requests share */
struct ctld;
struct job;
#define API_MSG_DENIED "Access/permission denied"
/* The job named by the path's {} segment; NULL once an error is answered. */
struct job *api_path_job(struct http_req *r);
/* May the caller act on the job (cancel, hold, release, requeue, update):
 * root, its owner, or a coordinator of its account (sacctmgr add
 * coordinator). */
bool api_may_act(const struct http_req *r, const struct job *j);
struct ctld;
/* Is the caller root or the job's owner: steps and the batch script are
 * theirs alone. */
bool api_is_owner(const struct http_req *r, const struct job *j);
/* root, SlurmUser, or AdminLevel Operator/Administrator: Slurm's operators. */
bool api_is_operator(const struct ctld *c, uid_t uid);
/* PrivateData=jobs holds for this caller (not an operator): every job
 * read (squeue's and scontrol's, sacct's, sprio's, slurmrestd's and
 * slurmdbd's routes) shows them their own jobs and those of the accounts
 * they coordinate only (struct api_viewer). */
bool api_jobs_private(const struct http_req *r);
/* Whose jobs a caller reads under PrivateData=jobs (api_viewer.c): their
 * own and, as Slurm, those of the accounts they coordinate. */
struct api_viewer {
    bool private;          /* PrivateData=jobs holds for this caller */
    uid_t uid;
    char *coord;           /* their user name when they coordinate an account; else NULL */
};
void api_viewer_init(const struct http_req *r, struct api_viewer *v);
void api_viewer_free(struct api_viewer *v);
/* account NULL: the owner's default account. */
bool api_viewer_sees(const struct ctld *c, const struct api_viewer *v, uid_t owner,
                     const char *account, const char *owner_name);
struct job;
bool api_viewer_sees_job(const struct ctld *c, const struct api_viewer *v, const struct job *j);
/* Whether PrivateData=jobs hides the job from this caller. */
bool api_job_hidden(const struct http_req *r, const struct job *j);
/* api_path_job's job unless PrivateData hides it; else NULL, answered 404
 * "Invalid job id specified" as if there were none. */
struct job *api_path_visible_job(struct http_req *r);
/* api_path_job's job when the caller may act on it; else NULL, answered
 * (404, or 403 Access/permission denied). */
struct job *api_path_own_job(struct http_req *r);
/* The same for its owner (or root) only. */
struct job *api_path_owner_job(struct http_req *r);
/* The body's "signal": 0 when absent, 1..64, or -1 when it is none
 * (the caller answers 400 "Invalid signal"). */
int api_signal_arg(const json_t *body);
/* For store_after_commit: 200 with no body, once what the request changed
 * is on disk. arg is the struct http_req. */
void api_reply_after_commit(void *arg);

/* api_metrics.c: GET /, /metrics, /metrics/..., /readyz, /livez, /healthz */
void api_http_root(struct http_req *r);
void api_metrics_index(struct http_req *r);
void api_metrics_jobs(struct http_req *r);
void api_metrics_nodes(struct http_req *r);
void api_metrics_partitions(struct http_req *r);
void api_metrics_users_accts(struct http_req *r);
void api_metrics_sched(struct http_req *r);
void api_probe(struct http_req *r);
/* api_ui.c: the dashboard's files (docs/dashboard.md) */
void api_ui_index(struct http_req *r);
void api_ui_file(struct http_req *r);
void api_ui_redirect(struct http_req *r);
/* api_output.c: a job's output tail, its owner and admins only */
void api_job_output(struct http_req *r);
/* A reconfigure's new Metrics* and PrivateData keys: swapped into dst. */
struct conf;
void metrics_conf_take(struct conf *dst, struct conf *src);

/* api_jobs.c */
/* One job spec (its script and environment in it) submitted for the
 * caller, as POST /v1/jobs does: its id, saved in the open transaction
 * (answer once it commits: store_after_commit), or 0 with the refusal's
 * HTTP status, Slurm error code and message. */
uint64_t api_submit_spec(struct http_req *r, json_t *spec, int *status, int *code, char *err,
                         size_t errlen);
/* One record's cancel (sig 0) or signal, by the engine the bulk and array
 * cancels use (array.c), the caller's right to act checked already. NULL
 * when it acted; else why not, *code Slurm's. */
const char *api_cancel_job(struct ctld *c, struct job *j, const struct http_req *r, int sig,
                           int *code);
void api_submit(struct http_req *r);
void api_list(struct http_req *r);
void api_show(struct http_req *r);
void api_cancel(struct http_req *r);
void api_cancel_many(struct http_req *r);
void api_ping(struct http_req *r);

/* api_wait.c: answers when a job ends or starts (sbatch --wait) */
void api_job_wait(struct http_req *r);

/* api_diag.c (sdiag) */
/* The counters GET /v1/diag answers with. */
json_t *api_diag_json(const struct ctld *c);
void api_diag(struct http_req *r);
void api_diag_reset(struct http_req *r);

/* api_acct.c */
void api_accounting(struct http_req *r);
/* The query string's keys for an accounting query: /v1/accounting's, or
 * slurmrestd's /slurmdb names. users may hold user names as well as uids. */
struct api_acct_keys {
    const char *ids, *users, *names, *parts, *states, *start, *end, *nodes;
};
extern const struct api_acct_keys api_acct_v1_keys;
struct store_acct_filter;
typedef int (*api_acct_row_fn)(uint64_t id, const char *rec, void *arg);
/* Whether the viewer reads the stored record (its JSON text): false only
 * for a coordinator under PrivateData=jobs and a job outside their accounts. */
bool api_acct_row_visible(const struct ctld *c, const struct api_viewer *v, const char *rec);
/* Runs the query the request's query string asks for (keys named by k),
 * handing each record to fn in ascending id. 0; -1 with err (400: a bad
 * filter) or *status 500 (the store failed). */
int api_acct_run(struct http_req *r, const struct api_acct_keys *k, api_acct_row_fn fn,
                 void *arg, int *status, char *err, size_t errlen);

/* api_acctmgr.c (sacctmgr) */
void api_acctdb(struct http_req *r);
void api_acctdb_edit(struct http_req *r);

/* api_admin.c (scontrol) */
void api_job_hold(struct http_req *r);
void api_job_release(struct http_req *r);
void api_job_requeue(struct http_req *r);
void api_job_update(struct http_req *r);
/* api_job_update's fields ("time_limit", "partition", ...) of body over a
 * copy of j's spec (a caller not root is held to its own limits); NULL with
 * the refusal's HTTP status, Slurm's code and message (static text). */
json_t *api_job_update_spec(const struct ctld *c, const struct job *j, json_t *body, bool root,
                            int *status, int *code, const char **err);
void api_node_update(struct http_req *r);
void api_part_update(struct http_req *r);
void api_reconfigure(struct http_req *r);

/* api_suspend.c (scontrol suspend, resume) */
void api_job_suspend(struct http_req *r);
void api_job_resume(struct http_req *r);
/* api_resv.c (scontrol's reservations) */
/* The body's ReservationName, whatever case its key was typed in; NULL none. */
const char *api_resv_body_name(json_t *body);
void api_resv_list(struct http_req *r);
void api_resv_show(struct http_req *r);
void api_resv_create(struct http_req *r);
void api_resv_update(struct http_req *r);
void api_resv_delete(struct http_req *r);

/* api_nodes.c */
void api_nodes(struct http_req *r);
void api_partitions(struct http_req *r);
void api_node_register(struct http_req *r);
/* api_config.c: configless. GET /v1/config; whether SlurmctldParameters
 * has enable_configless; c->conf_hash anew (at start and reconfigure). */
void api_config(struct http_req *r);
bool config_served(const struct ctld *c);
void config_hash_refresh(struct ctld *c);
void api_node_job_end(struct http_req *r);

#endif
