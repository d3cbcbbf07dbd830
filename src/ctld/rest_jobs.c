/*
 * rest_jobs: slurmrestd's job endpoints of the controller: GET
 * /slurm/v0.0.40/jobs and /job/{id}, DELETE /job/{id} (scancel). The
 * lookups, rights and cancel are the /v1 handlers' (api_check.c,
 * api_cancel_job); only the shapes are slurmrestd's.
 */
#include <event2/buffer.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/rest.h"
#include "ctld/rest_int.h"
#include "ctld/store.h"

#define MSG_INVALID_JOB "Invalid job id specified"

static json_t *list_resp(json_t *jobs)
{
    return json_pack("{s:o, s:o, s:o}", "jobs", jobs, "last_backfill", rest_noval_unset(),
                     "last_update", rest_noval(ctld_now()));
}

/* GET /slurm/v0.0.40/jobs: every job still in memory (as squeue), written
 * job by job, as /v1's list, so that a long queue never becomes one tree. */
void rest_jobs(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct evbuffer *items = evbuffer_new();
    struct job *j;
    struct api_viewer v;   /* PrivateData=jobs: what squeue shows the caller */
    api_viewer_init(r, &v);
    JOB_FOREACH(c, j) {
        if (!api_viewer_sees_job(c, &v, j))
            continue;
        json_t *o = job_to_json(c, j);
        rest_list_add(items, rest_job_info(c, o));
        json_decref(o);
    }
    rest_reply_list(r, "jobs", items, json_pack("{s:o, s:o}", "last_backfill",
                                                rest_noval_unset(), "last_update",
                                                rest_noval(ctld_now())));
    evbuffer_free(items);
    api_viewer_free(&v);
}

/* The path's job id, or 0 when it is not one. */
static uint64_t path_id(const char *s)
{
    char *end;
    unsigned long long id = s && *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
    return id && !*end ? (uint64_t)id : 0;
}

/* The job the path names, or NULL once slurmrestd's error is answered. */
static struct job *path_job(struct http_req *r, const char *source)
{
    uint64_t id = path_id(r->args[0]);
    struct job *j = id ? job_find(r->ctx, id) : NULL;
    if (!j)
        rest_error(r, ESLURM_INVALID_JOB_ID, MSG_INVALID_JOB, source, "Unable to query JobId=%s",
                   r->args[0]);
    return j;
}

/* GET /slurm/v0.0.40/job/{id}: the job; an array's id, its every task too. */
void rest_job(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = path_job(r, "_handle_job_get");
    if (!j)
        return;
    if (api_job_hidden(r, j)) {   /* PrivateData=jobs: as if there were none */
        rest_error(r, ESLURM_INVALID_JOB_ID, MSG_INVALID_JOB, "_handle_job_get",
                   "Unable to query JobId=%s", r->args[0]);
        return;
    }
    json_t *v1 = json_pack("[o]", job_to_json(c, j)), *o;
    array_tasks_append(c, j, v1);
    json_t *jobs = json_array();
    size_t i;
    json_array_foreach(v1, i, o)
        json_array_append_new(jobs, rest_job_info(c, o));
    json_decref(v1);
    rest_reply(r, list_resp(jobs), NULL);
}

/* ?signal=: a name ("SIGTERM", "TERM") or number; absent: cancel (0). -1: bad. */
static int signal_arg(struct http_req *r)
{
    char *s = http_query_get(r, "signal");
    int sig = 0;
    if (s && *s) {
        const char *name = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
        char *end;
        long n = strtol(s, &end, 10);
        sig = !*end ? (n >= 1 && n <= 64 ? (int)n : -1) : -1;
        for (int k = 1; sig < 0 && k < NSIG; k++)
            if (sigabbrev_np(k) && strcasecmp(sigabbrev_np(k), name) == 0)
                sig = k;
    }
    free(s);
    return sig;
}

static void deleted(void *arg)
{
    rest_reply(arg, json_object(), NULL);
}

/* DELETE /slurm/v0.0.40/job/{id}[?signal=SIG]: cancel, or signal, a job
 * of the caller's (root's, a coordinator's: api_may_act). */
void rest_job_delete(struct http_req *r)
{
    struct ctld *c = r->ctx;
    int sig = signal_arg(r);
    if (sig < 0) {
        rest_error(r, 9001, "Unable to parse query", "_handle_job_delete",
                   "Unknown signal given");
        return;
    }
    struct job *j = path_job(r, "_handle_job_delete");
    if (!j)
        return;
    if (!api_may_act(r, j)) {
        rest_error(r, ESLURM_ACCESS_DENIED, API_MSG_DENIED, "slurm_kill_job()",
                   "unable to send signal %d to JobId=%s", sig ? sig : SIGKILL, r->args[0]);
        return;
    }
    bool pending = j->state == JOB_PENDING;
    int code = 0;
    const char *why = api_cancel_job(c, j, r, sig, &code);
    if (why) {
        rest_error(r, code, why, "slurm_kill_job()", "unable to send signal %d to JobId=%s",
                   sig ? sig : SIGKILL, r->args[0]);
        return;
    }
    if (!sig)
        log_info("job %s cancelled by uid %u (REST)", r->args[0], (unsigned)r->who.uid);
    if (pending)   /* ended here: answered once its end is stored, as /v1 */
        store_after_commit(c->store, deleted, r);
    else
        rest_reply(r, json_object(), NULL);
}
