/*
 * rest_int: what the rest_*.c files share and nothing else uses.
 */
#ifndef HERD_CTLD_REST_INT_H
#define HERD_CTLD_REST_INT_H

#include <jansson.h>

struct ctld;

/* rest_job_info.c: a job object of GET /v1/jobs (job_to_json) as
 * slurmrestd's v0.0.40_job_info (new). */
json_t *rest_job_info(const struct ctld *c, json_t *job);

/* Readers of the /v1 objects the REST shapes are made from: an integer
 * (dflt when absent or not one) and a string ("" when absent). */
static inline json_int_t rest_num(const json_t *o, const char *key, json_int_t dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static inline const char *rest_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

#endif
