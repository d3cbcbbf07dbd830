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

#endif
