#include <event2/buffer.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/openmetrics.h"
#include "noded/agent.h"
#include "noded/local.h"
#include "noded/step.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"
#include "common/slurm_errno.h"

static void on_launch(struct http_req *r)
{
    struct agent *a = r->ctx;
    if (a->stopping) {
        http_reply_error(r, 503, SLURM_ERROR, "Node %s is shutting down", a->node->name);
        return;
    }
    launch_job(a, r);
}

static void on_signal(struct http_req *r)
{
    struct agent *a = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id");
    json_t *jsig = json_object_get(r->body, "signal");
    json_t *jcancel = json_object_get(r->body, "cancel");
    if (!json_is_integer(jid) || (jsig && !json_is_integer(jsig))
        || (jcancel && !json_is_boolean(jcancel))) {
        http_reply_error(r, 400, SLURM_ERROR, "signal request needs job_id, signal, cancel");
        return;
    }
    bool cancel = json_is_true(jcancel);
    json_int_t sig = jsig ? json_integer_value(jsig) : SIGTERM;
    if (sig < 0 || sig >= NSIG || (cancel && sig == 0) || (!jsig && !cancel)) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid signal");
        return;
    }
    struct ajob *j = agent_job_find(a, json_integer_value(jid));
    if (!j) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    log_info("job %lld: %s %d", (long long)j->id, cancel ? "cancel, first signal" : "signal",
             (int)sig);
    bool batch = json_is_true(json_object_get(r->body, "batch"));
    if (cancel)
        agent_job_thaw_steps(a, j->id);   /* the supervisor thaws the job itself */
    if (cancel && json_is_true(json_object_get(r->body, "requeue")))
        sig |= SUP_SIG_REQUEUE;   /* travels with the signal to the supervisor */
    if (cancel && json_is_true(json_object_get(r->body, "preempt")))
        sig |= SUP_SIG_PREEMPT;
    if (j->starting)
        launch_defer_signal(j, (int)sig, cancel, batch);
    else if (!j->ended)
        agent_job_signal(j, (int)sig, cancel, batch);
    http_reply(r, 200, NULL);
}

/* A running job's new time limit (scontrol update TimeLimit=): the
 * supervisor keeps it, queued with SIGUSR2 (minutes; -1 unlimited). */
static void on_time_limit(struct http_req *r)
{
    struct agent *a = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id"), *jt = json_object_get(r->body, "time_limit");
    if (!json_is_integer(jid) || !json_is_integer(jt) || json_integer_value(jt) < -1 ||
        json_integer_value(jt) > INT32_MAX) {
        http_reply_error(r, 400, SLURM_ERROR, "time limit request needs job_id, time_limit");
        return;
    }
    struct ajob *j = agent_job_find(a, json_integer_value(jid));
    if (j && j->starting) {
        launch_defer_limit(j, (int)json_integer_value(jt));
        http_reply(r, 200, NULL);
        return;
    }
    if (!j || j->ended || j->sup_pid <= 1) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    union sigval v = { .sival_int = (int)json_integer_value(jt) };
    if (sys->sigqueue(j->sup_pid, SIGUSR2, v) < 0) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    log_info("job %lld: time limit now %d min", (long long)j->id, v.sival_int);
    http_reply(r, 200, NULL);
}

/* Anyone may read it, as the controller's: GPU figures and job ids, no
 * names of jobs, scripts or environments. */
static void on_metrics(struct http_req *r)
{
    struct evbuffer *b = evbuffer_new();
    gpumon_metrics(r->ctx, b);
    http_reply_buffer_type(r, 200, b, OM_CONTENT_TYPE);
    evbuffer_free(b);
}

const struct http_route agent_routes[] = {
    { "GET", "/metrics", on_metrics, HTTP_ROLE_ANON },
    { "POST", "/v1/timelimit", on_time_limit, HTTP_ROLE_ROOT },
    { "POST", "/v1/launch", on_launch, HTTP_ROLE_ROOT },
    { "POST", "/v1/signal", on_signal, HTTP_ROLE_ROOT },
    { "POST", "/v1/suspend", agent_job_suspend_req, HTTP_ROLE_ROOT },
    { "POST", "/v1/output", outtail_req, HTTP_ROLE_ROOT },
    { "POST", "/v1/steps", step_launch, HTTP_ROLE_USER },
    { "POST", "/v1/steps/signal", step_signal, HTTP_ROLE_USER },
    { "POST", "/v1/steps/pmi", step_pmi_fence, HTTP_ROLE_USER },
    { "POST", "/v1/steps/stdin", step_stdin, HTTP_ROLE_USER },
    { "GET", "/v1/local/jobs", local_jobs_req, HTTP_ROLE_ROOT },
    { "POST", "/v1/local/adopt", local_adopt_req, HTTP_ROLE_ROOT },
};
const size_t agent_nroutes = sizeof agent_routes / sizeof agent_routes[0];
