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
/* Is the caller root or the job's owner: steps and the batch script are
 * theirs alone. */
bool api_is_owner(const struct http_req *r, const struct job *j);
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
/* A reconfigure's new Metrics* and PrivateData keys: swapped into dst. */
struct conf;
void metrics_conf_take(struct conf *dst, struct conf *src);

/* api_jobs.c */
void api_submit(struct http_req *r);
void api_list(struct http_req *r);
void api_show(struct http_req *r);
void api_cancel(struct http_req *r);
void api_cancel_many(struct http_req *r);
void api_ping(struct http_req *r);

/* api_wait.c: answers when a job ends or starts (sbatch --wait) */
void api_job_wait(struct http_req *r);

/* api_diag.c (sdiag) */
void api_diag(struct http_req *r);
void api_diag_reset(struct http_req *r);

/* api_acct.c */
void api_accounting(struct http_req *r);

/* api_acctmgr.c (sacctmgr) */
void api_acctdb(struct http_req *r);
void api_acctdb_edit(struct http_req *r);

/* api_admin.c (scontrol) */
void api_job_hold(struct http_req *r);
void api_job_release(struct http_req *r);
void api_job_requeue(struct http_req *r);
void api_job_update(struct http_req *r);
void api_node_update(struct http_req *r);
void api_part_update(struct http_req *r);
void api_reconfigure(struct http_req *r);

/* api_suspend.c (scontrol suspend, resume) */
void api_job_suspend(struct http_req *r);
void api_job_resume(struct http_req *r);
/* api_resv.c (scontrol's reservations) */
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
