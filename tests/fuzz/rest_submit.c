/*
 * Fuzzes the controller's REST submission body (POST
 * /slurm/v0.0.40/job/submit: {"job": job_desc_msg, "script": ...}, read
 * with the flags the HTTP layer uses) as rest_job_desc_spec turns it into
 * Herd's job spec: every mapped field, Slurm's {set, infinite, number}
 * numbers, TRES strings ("gres/gpu:a100:2"), node counts ("2-4").
 */
#include <jansson.h>

#include "ctld/rest.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *body = json_loadb((const char *)data, size, 0, NULL), *warnings = json_array();
    char err[512];
    json_t *desc = json_object_get(body, "job");
    if (desc) {
        json_t *spec = rest_job_desc_spec(desc, json_object_get(body, "script"), warnings, err,
                                          sizeof err);
        if (spec) {
            free(json_dumps(spec, JSON_COMPACT));
            json_decref(spec);
        }
    }
    json_decref(warnings);
    json_decref(body);
    return 0;
}
