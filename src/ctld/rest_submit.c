/*
 * rest_submit: POST /slurm/v0.0.40/job/submit, {"script", "job": {...}}
 * as slurmrestd takes it, submitted through the one path POST /v1/jobs
 * uses (api_submit_spec) for the authenticated caller, and answered once
 * the job is stored, as /v1's.
 */
#include <stdlib.h>

#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/rest.h"
#include "ctld/store.h"

/* slurmrestd's codes for a request body it cannot use */

struct rest_submitted {
    struct http_req *r;
    json_t *answer, *warnings;
};

static void submitted(void *arg)
{
    struct rest_submitted *s = arg;
    rest_reply(s->r, s->answer, s->warnings);
    free(s);
}

void rest_job_submit(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char err[512];
    json_t *desc = json_object_get(r->body, "job");
    if (!desc || json_object_get(r->body, "jobs")) {
        rest_error(r, ESLURM_REST_INVALID_JOBS_DESC, "Invalid job description",
                   "job_submit", "%s", desc ? "HetJobs (\"jobs\") are not supported by Herd"
                                            : "Request body has no \"job\"");
        return;
    }
    json_t *warnings = json_array();
    json_t *spec = rest_job_desc_spec(desc, json_object_get(r->body, "script"), warnings, err,
                                      sizeof err);
    if (!spec) {
        json_decref(warnings);
        rest_error(r, ESLURM_REST_INVALID_JOBS_DESC, "Invalid job description", "job_submit",
                   "%s", err);
        return;
    }
    int status = 400, code = SLURM_ERROR;
    uint64_t id = api_submit_spec(r, spec, &status, &code, err, sizeof err);
    json_decref(spec);
    if (!id) {
        json_decref(warnings);
        rest_error(r, code, err, "slurm_submit_batch_job()", "Job submission failed");
        return;
    }
    struct rest_submitted *s = xmalloc(sizeof *s);
    json_t *result = json_pack("{s:I, s:s, s:i, s:s, s:s}", "job_id", (json_int_t)id, "step_id",
                               "batch", "error_code", 0, "error", "", "job_submit_user_msg", "");
    s->r = r;
    s->answer = json_pack("{s:I, s:s, s:s, s:o}", "job_id", (json_int_t)id, "step_id", "batch",
                          "job_submit_user_msg", "", "result", result);
    s->warnings = warnings;
    store_after_commit(c->store, submitted, s);
}
