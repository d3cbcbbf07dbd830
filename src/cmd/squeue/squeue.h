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

#include "client/cmdutil.h"
#include "client/format.h"
#include "cmd/squeue/squeue_rows.h"

#define SQUEUE_FORMAT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQUEUE_FORMAT_LONG "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define SQUEUE_FORMAT_START "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"

struct hostlist;

#define SQUEUE_MAX_SORT 16

struct squeue_sort {
    enum sq_key key;
    bool number;               /* compared as a number, else as text */
    bool desc;
};

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
    const char *resv;          /* -R: only the jobs of this reservation */
    uid_t *uids;               /* -u, --me */
    size_t nuids;
    bool users_given;          /* -u was given (even if none of its names exist) */
    struct hostlist *nodes;    /* -w */
    const char *long_format;   /* -O */
    bool array;                /* -r: one line per array task */
    bool noconvert;            /* --noconvert: memory in MB as given */
    bool json;                 /* --json */
    bool steps;                /* -s: the running jobs' steps */
    struct strlist step_list;  /* -s=12.0,13.batch: only these */
    struct strlist accounts;   /* -A */
    struct strlist qos;        /* -q */
    struct squeue_sort sort[SQUEUE_MAX_SORT];   /* -S; none: Slurm's "P,t,-p" */
    int nsort;
};

/* What the field functions get as ctx besides the job. */
struct squeue_ctx {
    int64_t now;
    bool noconvert;
};

void squeue_opts_clear(struct squeue_opts *o);

/* Whether a job passes the filters. */
bool squeue_job_matches(const struct sq_row *job, const struct squeue_opts *o);

/* Codes of the fields only -O names; not characters -o can be given. */
#define SQUEUE_CODE_EXIT_CODE '\x01'
#define SQUEUE_CODE_RESTARTS '\x02'
#define SQUEUE_CODE_TRES_PER_TASK '\x03'
#define SQUEUE_CODE_TRES_PER_JOB '\x04'
#define SQUEUE_CODE_TRES_PER_SOCKET '\x05'
#define SQUEUE_CODE_TRES_BIND '\x06'
#define SQUEUE_CODE_CPUS_PER_TRES '\x07'
#define SQUEUE_CODE_MEM_PER_TRES '\x08'
#define SQUEUE_CODE_GPU_IDLE '\x09'
#define SQUEUE_CODE_GPU_UTIL '\x0a'

/* squeue_sort.c: -S LIST into o->sort; the fields it reads (",k1,k2", to
 * append to the fields asked for; caller frees); the order it gives. */
void squeue_sort_parse(struct squeue_opts *o, const char *spec);
char *squeue_sort_fields(const struct squeue_opts *o);
int squeue_sort_cmp(const struct sq_row *x, const struct sq_row *y,
                    const struct squeue_opts *o);

/* The format the options ask for (NULL: an error was printed). */
struct fmt *squeue_format(const struct squeue_opts *o, const char *prog);
/* squeue_keys.c: "job_id,state,..." that format reads (NULL: --json's),
 * every field squeue knows when a code is not listed there. */
char *squeue_fields_param(const struct fmt *f);

/* Prints the jobs as squeue does; -1 (after saying why) for a -O naming an
 * unknown field. */
int squeue_print(FILE *out, struct sq_rows *jobs, const struct squeue_opts *o,
                 const char *prog);

/* The job format codes and the -O names for them (squeue_fields.c); ctx
 * is a const struct squeue_ctx *. */
extern const struct fmt_code squeue_codes[];
extern const struct fmt_name squeue_names[];

/* -r: each pending array record split into one row per task. */
void squeue_expand_arrays(struct sq_rows *jobs);

/* The rows the filters choose from: split by -r, and with a row for each
 * pending task that -j names ("123_14"). */
void squeue_jobs(struct sq_rows *jobs, const struct squeue_opts *o);

/* --json: the jobs that pass o's filters, in the shape of Slurm's
 * data_parser, written job by job (squeue_json.c). */
void squeue_print_json(FILE *out, struct sq_rows *jobs, const struct squeue_opts *o);

/* -s: the steps of the jobs that pass o's filters (squeue_steps.c); the
 * exit code. */
int squeue_steps(const struct squeue_opts *o, const char *prog);

#endif
