/*
 * Fuzzes the bodies of the controller's job changes, against the
 * controller of ctld_fixture.h: `scontrol update job` (POST
 * /v1/jobs/{id}/update: {"time_limit", "partition", "nodes", "gres",
 * "name", "nice", "dependency", "reservation", ...}) on a pending job of
 * uid 1000 built afresh for each input, as api_job_update applies it
 * (resv_job_update_check, api_job_update_spec, job_respec), by its owner
 * and by root; and the cancel and signal bodies (POST /v1/jobs/{id}/cancel
 * and /v1/jobs/cancel: {"signal", "batch", "full", "array_tasks",
 * "job_ids"}) as far as they are read: api_signal_arg, sig_to_of,
 * array_body_tasks and the ids looked up. No job is cancelled: that is
 * the job lifecycle's, beyond the body.
 */
#include "common/taskset.h"
#include "ctld/api.h"
#include "ctld/array.h"
#include "ctld_fixture.h"

static const char pending_spec[] =
    "{\"script\": \"#!/bin/sh\\nsrun hostname\\n\", \"name\": \"train\", \"partition\": \"gpu\","
    " \"nodes\": 1, \"ntasks\": 4, \"gpus_per_node\": 2, \"time_limit\": 120,"
    " \"environment\": [\"PATH=/bin\"]}";

static void update_as(struct ctld *c, json_t *body, uid_t by)
{
    int status = 400, code = 0;
    char err[256];
    const char *why = NULL;
    json_t *spec = json_loads(pending_spec, 0, NULL);
    struct job *j = job_from_spec(c, spec, 100, 1000, 1000, &status, &code, err, sizeof err);
    json_decref(spec);
    if (!j)
        abort();   /* the fixture's job must be valid */
    if (resv_job_update_check(c, j, body, &code, err, sizeof err) == 0 &&
        (spec = api_job_update_spec(c, j, body, by == 0, &status, &code, &why))) {
        if (job_respec(c, j, spec, &status, &code, err, sizeof err) == 0) {
            json_decref(job_to_json(c, j));
            json_decref(job_record(c, j));
        }
        json_decref(spec);
    }
    job_destroy(j);
    c->ndep_jobs = 0;
}

static void cancel_body(struct ctld *c, json_t *body)
{
    (void)api_signal_arg(body);
    (void)sig_to_of(body);
    bool bad;
    struct taskset *t = array_body_tasks(body, &bad);
    if (t)
        free(taskset_fmt(t));
    taskset_free(t);
    json_t *ids = json_object_get(body, "job_ids"), *v;
    size_t i;
    json_array_foreach(ids, i, v) {
        json_int_t id = json_is_integer(v) ? json_integer_value(v) : 0;
        (void)(id > 0 ? job_find(c, (uint64_t)id) : NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ctld *c = fixture_ctld();
    json_t *body = fixture_body(data, size);
    if (!body)
        return 0;
    update_as(c, body, 1000);
    update_as(c, body, 0);
    cancel_body(c, body);
    json_decref(body);
    return 0;
}
