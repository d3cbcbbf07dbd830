/*
 * rest: a slurmrestd-compatible subset (OpenAPI v0.0.40) on the
 * controller's HTTP port, for clients written against slurmrestd. Each
 * handler asks the controller what the /v1 handlers ask (job_to_json,
 * node_to_json, the accounting query, api_submit_spec, api_cancel_job) and
 * writes the answer in slurmrestd's shapes: numbers that may be unset or
 * infinite as {"set", "infinite", "number"}, states as arrays of words,
 * and every answer, errors included, with "meta", "errors" and "warnings".
 * docs/rest.md says what is filled; docs/openapi-v0.0.40.json describes it.
 */
#ifndef HERD_CTLD_REST_H
#define HERD_CTLD_REST_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/http.h"

/* rest.c: the envelope and the value shapes the others share */
json_t *rest_noval(int64_t n);             /* {"set": true, "infinite": false, "number": n} */
json_t *rest_noval_unset(void);            /* set false */
json_t *rest_noval_infinite(void);         /* infinite true */
json_t *rest_noval_time(int64_t t);        /* a Unix time; 0: unset */
json_t *rest_noval_minutes(int64_t min);   /* a time limit; < 0: infinite (UNLIMITED) */
/* A comma list as slurmrestd's csv_string (an array); NULL or "": []. */
json_t *rest_csv(const char *s);
/* Herd's state word ("PENDING", "IDLE+DRAIN*") as an array of flags. */
json_t *rest_state_words(const char *state);
/* {"status": [...], "return_code": noval, "signal": {"id", "name"}} */
json_t *rest_exit_code(bool ended, int code, int sig);
/* Replies 200 with body (stolen) and meta, errors ([]) and warnings (stolen; NULL []). */
void rest_reply(struct http_req *r, json_t *body, json_t *warnings);
/* Replies 200 with {key: [items...], the fields of rest (stolen), meta,
 * errors, warnings}: for lists too long to build as one tree (every job,
 * every accounting record), written item by item. */
struct evbuffer;
void rest_reply_list(struct http_req *r, const char *key, struct evbuffer *items, json_t *rest);
/* Appends item (stolen) to a list's items, a comma before all but the first. */
void rest_list_add(struct evbuffer *items, json_t *item);
/* Replies with the errors array form; the HTTP status as slurmrestd maps
 * the Slurm error code. error: Slurm's text for it; description: which
 * object, in fmt. */
void rest_error(struct http_req *r, int code, const char *error, const char *source,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The warnings entry slurmrestd writes for a field it ignores. */
json_t *rest_warning(const char *source, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* rest.c: GET .../ping, .../diag */
void rest_ping(struct http_req *r);
void rest_diag(struct http_req *r);

/* rest_jobs.c */
void rest_jobs(struct http_req *r);
void rest_job(struct http_req *r);
void rest_job_delete(struct http_req *r);
/* rest_submit.c */
void rest_job_submit(struct http_req *r);
/* rest_job_desc.c: slurmrestd's job_desc_msg as Herd's job spec (new);
 * NULL with err naming the field. Unknown or ignored fields are added to
 * warnings. */
json_t *rest_job_desc_spec(json_t *desc, json_t *script, json_t *warnings, char *err,
                           size_t errlen);

/* rest_nodes.c */
void rest_nodes(struct http_req *r);
void rest_node(struct http_req *r);
void rest_partitions(struct http_req *r);
void rest_partition(struct http_req *r);
void rest_reservations(struct http_req *r);
void rest_reservation(struct http_req *r);

/* rest_acct.c: /slurmdb/v0.0.40/jobs and /job/{id} */
void rest_db_jobs(struct http_req *r);
void rest_db_job(struct http_req *r);

/* rest_openapi.c: GET /openapi/v3, docs/openapi-v0.0.40.json */
void rest_openapi(struct http_req *r);

#endif
