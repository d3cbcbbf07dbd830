/*
 * api: the route table of herdctld. Users may call the first group; the
 * node agents (uid 0 with a MUNGE credential) the second; anyone the third
 * (Slurm's plain-HTTP metrics and probes: api_metrics.c decides who reads;
 * the dashboard's static files, which hold no data: api_ui.c).
 * The slurmrestd-compatible subset (rest.h) sits with the users' routes;
 * its lists answer with or without slurmrestd's trailing slash.
 */
#include "ctld/api.h"
#include "ctld/gpu_live.h"
#include "ctld/token.h"

#include "common/conf.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/metrics.h"
#include "ctld/prio.h"
#include "ctld/rest.h"
#include "ctld/store.h"
#include "ctld/step.h"

static const struct http_route routes[] = {
    { "POST", "/v1/jobs", api_submit, HTTP_ROLE_USER },
    { "GET", "/v1/jobs", api_list, HTTP_ROLE_USER },
    { "GET", "/v1/jobs/{}", api_show, HTTP_ROLE_USER },
    { "GET", "/v1/jobs/{}/wait", api_job_wait, HTTP_ROLE_USER },
    { "GET", "/v1/jobs/{}/output", api_job_output, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/cancel", api_cancel_many, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/cancel", api_cancel, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/steps", api_step_create, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/complete", api_alloc_complete, HTTP_ROLE_USER },
    { "GET", "/v1/jobs/{}/steps/{}", api_step_show, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/steps/{}/complete", api_step_complete, HTTP_ROLE_USER },
    { "GET", "/v1/nodes", api_nodes, HTTP_ROLE_USER },
    { "GET", "/v1/partitions", api_partitions, HTTP_ROLE_USER },
    { "GET", "/v1/ping", api_ping, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/hold", api_job_hold, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/release", api_job_release, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/requeue", api_job_requeue, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/suspend", api_job_suspend, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/resume", api_job_resume, HTTP_ROLE_USER },
    { "POST", "/v1/jobs/{}/update", api_job_update, HTTP_ROLE_USER },
    { "POST", "/v1/nodes/update", api_node_update, HTTP_ROLE_USER },
    { "POST", "/v1/partitions/update", api_part_update, HTTP_ROLE_USER },
    { "POST", "/v1/reconfigure", api_reconfigure, HTTP_ROLE_USER },
    { "GET", "/v1/priorities", api_priorities, HTTP_ROLE_USER },
    { "GET", "/v1/shares", api_shares, HTTP_ROLE_USER },
    { "GET", "/v1/acctdb", api_acctdb, HTTP_ROLE_USER },
    { "POST", "/v1/acctdb", api_acctdb_edit, HTTP_ROLE_USER },
    { "GET", "/v1/accounting", api_accounting, HTTP_ROLE_USER },
    { "GET", "/v1/diag", api_diag, HTTP_ROLE_USER },
    { "POST", "/v1/diag/reset", api_diag_reset, HTTP_ROLE_USER },
    { "GET", "/v1/reservations", api_resv_list, HTTP_ROLE_USER },
    { "GET", "/v1/reservations/{}", api_resv_show, HTTP_ROLE_USER },
    { "POST", "/v1/reservations", api_resv_create, HTTP_ROLE_USER },
    { "POST", "/v1/reservations/{}", api_resv_update, HTTP_ROLE_USER },
    { "DELETE", "/v1/reservations/{}", api_resv_delete, HTTP_ROLE_USER },

    { "GET", "/slurm/v0.0.40/ping", rest_ping, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/ping/", rest_ping, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/diag", rest_diag, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/diag/", rest_diag, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/jobs", rest_jobs, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/jobs/", rest_jobs, HTTP_ROLE_USER },
    { "POST", "/slurm/v0.0.40/job/submit", rest_job_submit, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/job/{}", rest_job, HTTP_ROLE_USER },
    { "DELETE", "/slurm/v0.0.40/job/{}", rest_job_delete, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/nodes", rest_nodes, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/nodes/", rest_nodes, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/node/{}", rest_node, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/partitions", rest_partitions, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/partitions/", rest_partitions, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/partition/{}", rest_partition, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/reservations", rest_reservations, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/reservations/", rest_reservations, HTTP_ROLE_USER },
    { "GET", "/slurm/v0.0.40/reservation/{}", rest_reservation, HTTP_ROLE_USER },
    { "GET", "/slurmdb/v0.0.40/jobs", rest_db_jobs, HTTP_ROLE_USER },
    { "GET", "/slurmdb/v0.0.40/jobs/", rest_db_jobs, HTTP_ROLE_USER },
    { "GET", "/slurmdb/v0.0.40/job/{}", rest_db_job, HTTP_ROLE_USER },
    { "GET", "/openapi/v3", rest_openapi, HTTP_ROLE_USER },
    { "GET", "/openapi.json", rest_openapi, HTTP_ROLE_USER },

    { "POST", "/v1/node/register", api_node_register, HTTP_ROLE_ROOT },
    { "POST", "/v1/node/job_end", api_node_job_end, HTTP_ROLE_ROOT },
    { "POST", "/v1/node/usage", api_node_usage, HTTP_ROLE_ROOT },
    { "POST", "/v1/token", api_token, HTTP_ROLE_USER },
    { "GET", "/v1/config", api_config, HTTP_ROLE_USER },

    { "GET", "/", api_http_root, HTTP_ROLE_ANON },
    { "GET", "/readyz", api_probe, HTTP_ROLE_ANON },
    { "GET", "/livez", api_probe, HTTP_ROLE_ANON },
    { "GET", "/healthz", api_probe, HTTP_ROLE_ANON },
    { "GET", "/metrics", api_metrics_index, HTTP_ROLE_ANON },
    { "GET", "/metrics/jobs", api_metrics_jobs, HTTP_ROLE_ANON },
    { "GET", "/metrics/nodes", api_metrics_nodes, HTTP_ROLE_ANON },
    { "GET", "/metrics/partitions", api_metrics_partitions, HTTP_ROLE_ANON },
    { "GET", "/metrics/jobs-users-accts", api_metrics_users_accts, HTTP_ROLE_ANON },
    { "GET", "/metrics/scheduler", api_metrics_sched, HTTP_ROLE_ANON },
    { "GET", "/ui", api_ui_redirect, HTTP_ROLE_ANON },
    { "GET", "/ui/", api_ui_index, HTTP_ROLE_ANON },
    { "GET", "/ui/{}", api_ui_file, HTTP_ROLE_ANON },
};

void api_register_routes(struct ctld *c)
{
    size_t n = sizeof routes / sizeof *routes;
    c->http = http_server_create(c->base, routes, n, c, c->conf->munge_socket);
    c->metrics = metrics_create(c, routes, n);
    struct http_observer obs = { metrics_rpc_start, metrics_rpc_end, c->metrics };
    http_server_observe(c->http, &obs);
    store_on_commit(c->store, metrics_commit_seen, c->metrics);
}
