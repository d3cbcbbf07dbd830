/*
 * squeue's parts below its main: which jobs to show (filters, decided on
 * the client from GET /v1/jobs) and how to print them (Slurm's -o codes,
 * sorted as Slurm sorts: partition, state, then priority descending).
 */
#ifndef HERD_SQUEUE_H
#define HERD_SQUEUE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "cmd/cmdutil.h"
#include "cmd/format.h"

#define SQUEUE_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQUEUE_FORMAT_LONG "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define SQUEUE_FORMAT_START "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"

struct hostlist;

struct squeue_opts {
    const char *format;        /* NULL: SQUEUE_FORMAT or, with long_list, _LONG */
    bool long_list;            /* -l: the date line first and the long format */
    bool start;                /* --start: pending jobs by expected start */
    bool noheader;
    bool all_states;           /* -t all */
    struct strlist states;     /* -t, long names */
    struct strlist jobs;       /* -j, ids as given */
    struct strlist parts;      /* -p */
    struct strlist names;      /* -n, case-insensitive */
    uid_t *uids;               /* -u, --me */
    size_t nuids;
    bool users_given;          /* -u was given (even if none of its names exist) */
    struct hostlist *nodes;    /* -w */
};

void squeue_opts_clear(struct squeue_opts *o);

/* Whether a job passes the filters. */
bool squeue_job_matches(const json_t *job, const struct squeue_opts *o);

/* Prints the answer of GET /v1/jobs as squeue does. */
void squeue_print(FILE *out, const json_t *answer, const struct squeue_opts *o,
                  const char *prog);

/* The job format codes (squeue_fields.c); ctx is a const int64_t *now. */
extern const struct fmt_code squeue_codes[];

#endif
