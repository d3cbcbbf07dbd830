/*
 * job_list: a job as the JSON text GET /v1/jobs?fields=K,... answers, only
 * those keys, each with the value job_to_json gives it; with &format=tsv
 * (what squeue asks for) a table instead: "now<TAB>T", the keys, then one
 * line per job of tab-separated cells, each with backslash, tab, newline
 * and CR escaped (\\ \t \n \r), \N for a key the job has not, true/false,
 * numbers as digits, other values as their JSON text.
 */
#ifndef HERD_CTLD_JOB_LIST_H
#define HERD_CTLD_JOB_LIST_H

#include "ctld/ctld.h"

struct evbuffer;
struct job_keys;

struct job_keys *job_keys_parse(const char *fields);   /* "a,b,c"; unknown keys are kept */
void job_keys_free(struct job_keys *k);                 /* NULL is a no-op */
void job_list_write(struct evbuffer *b, const struct ctld *c, const struct job *j,
                    const struct job_keys *k);
void job_list_tsv_head(struct evbuffer *b, const struct job_keys *k, int64_t now);
void job_list_write_tsv(struct evbuffer *b, const struct ctld *c, const struct job *j,
                        const struct job_keys *k);

#endif
