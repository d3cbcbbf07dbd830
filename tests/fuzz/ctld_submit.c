/*
 * Fuzzes the controller's submission, POST /v1/jobs: the body as the
 * handler reads it, one job spec ({"script", "partition", "nodes", "gpus",
 * "array", "dependency", "reservation", ...}) or many ({"jobs": [...],
 * "defaults": {...}}, each job the defaults with its own keys over them),
 * built with job_from_spec and checked by limits_admit as api_jobs.c does,
 * against the controller of ctld_fixture.h. A job built is shown
 * (job_to_json), recorded (job_record) and freed: none joins the table.
 * The caller is uid 1000 or, for inputs of odd length, root.
 */
#include "ctld/limits.h"
#include "ctld_fixture.h"

static void submit_one(struct ctld *c, json_t *spec, uint64_t id, uid_t uid)
{
    int status = 400, code = 0;
    char err[512];
    struct job *j = job_from_spec(c, spec, id, uid, uid, &status, &code, err, sizeof err);
    if (j && limits_admit(c, j, &status, &code, err, sizeof err) == 0) {
        (void)job_count_of(j);
        json_decref(job_to_json(c, j));
        json_decref(job_record(c, j));
    }
    job_destroy(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ctld *c = fixture_ctld();
    json_t *body = fixture_body(data, size);
    if (!body)
        return 0;
    uid_t uid = size & 1 ? 0 : 1000;
    json_t *many = json_object_get(body, "jobs");
    json_t *defs = json_object_get(body, "defaults");
    if (!json_is_array(many)) {
        submit_one(c, body, c->next_job_id, uid);
    } else if (!defs || json_is_object(defs)) {   /* else refused: not an object */
        json_t *spec;
        size_t i;
        json_array_foreach(many, i, spec) {
            json_t *m = defs ? json_copy(defs) : json_incref(spec);
            if (defs && json_is_object(spec))
                json_object_update(m, spec);
            submit_one(c, m, c->next_job_id + i, uid);
            json_decref(m);
        }
    }
    c->ndep_jobs = 0;
    json_decref(body);
    return 0;
}
