/*
 * sacct's parts below its main: Slurm's time specifications (-S/-E), the
 * field table (-o names, widths, values from the controller's job records),
 * the rows (a job, then its batch and extern steps) and their printing as a
 * table, parsable lines (-p/-P) or Slurm's --json.
 */
#ifndef HERD_SACCT_H
#define HERD_SACCT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define SACCT_FORMAT "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define SACCT_FORMAT_BRIEF "JobID,State,ExitCode"
#define SACCT_FORMAT_LONG                                                              \
    "JobID,JobIDRaw,JobName,Partition,MaxRSS,AllocCPUS,Elapsed,TotalCPU,State,"       \
    "ExitCode,DerivedExitCode,Submit,Start,End,NNodes,NodeList,ReqMem,AllocTRES,User"


enum sacct_row_kind { SACCT_JOB, SACCT_BATCH, SACCT_EXTERN, SACCT_STEP };

/* One printed line: a job or one of its steps. */
struct sacct_row {
    const json_t *rec;     /* the job's record, as the controller stores it; for an srun
                            * step its record in the job's "steps", of the same shape */
    uint64_t id;
    enum sacct_row_kind kind;
    int step;              /* SACCT_STEP: its id (123.0) */
    uint64_t array_id;     /* the job's array (0: none), for -j 123 and 123_4 */
    int64_t task;          /* its task in the array; -1 none or still pending */
};

struct sacct_ctx {
    int64_t now;
    char units;            /* --units: 'K', 'M', ...; 0 = Slurm's exact conversion */
    bool noconvert;
    const char *cluster;   /* ClusterName */
};

enum {
    SACCT_NOPLUS = 1 << 0, /* cut without Slurm's '+' marker (dates) */
    SACCT_NOCUT = 1 << 1,  /* never cut (numbers, elapsed times) */
};

struct sacct_field {
    const char *name;      /* as the header prints it */
    int width;             /* Slurm's default; negative = left-justified */
    unsigned flags;
    /* The value for the row, caller frees; NULL when it has none. */
    char *(*value)(const struct sacct_row *r, const struct sacct_ctx *x);
    /* The members of the job's record value reads, comma-separated
     * ("spec.account": a member of its spec), so that sacct asks the
     * controller for no more; NULL: the whole record. */
    const char *keys;
};

extern const struct sacct_field sacct_fields[];   /* ends with a NULL name */

/* The job's reservation name, "" for none (sacct_fields.c). */
const char *sacct_resv_name(const struct sacct_row *r);

/* The field whose name starts with s (any case), first in table order, as
 * Slurm matches -o names; NULL when none. */
const struct sacct_field *sacct_field_find(const char *s);

struct sacct_col {
    const struct sacct_field *f;
    int width;
};

struct sacct_out {
    struct sacct_col *cols;
    size_t ncols;
    bool noheader;
    int parsable;          /* 0, 1 (-p: trailing delimiter), 2 (-P: none) */
    const char *delim;     /* "|" unless --delimiter */
    bool allocations;      /* -X: no step rows */
};

/* Step selection of -j 123.batch: which rows of a job are wanted. */
struct sacct_want {
    uint64_t id;           /* a job, or with task >= 0 the array of that task */
    const char *step;      /* NULL: the job and all its steps */
    int64_t task;          /* -j 123_4: 4; -1 for a plain id */
};

/* What the rows of a job read of its record besides their fields' keys
 * (sacct_print.c): which rows it has, whether -j asked for them. */
#define SACCT_ROW_KEYS "allocs,start_time,state,array_job_id,array_task_id,array_task_str"
#define SACCT_STEP_KEYS "steps,extern_step,spec.allocation"

/* The job row of an answer's job ({"job_id", "record"}); rec NULL when
 * it has none. */
struct sacct_row sacct_job_row(const json_t *job);
/* Whether -j asked for this row (no -j: every row). */
bool sacct_wanted(const struct sacct_want *want, size_t nwant, const struct sacct_row *r);
/* Whether a started job has this row of its own: the extern step only
 * when it started under PrologFlags=Contain, as in Slurm. */
bool sacct_has_step(const json_t *rec, enum sacct_row_kind kind);
/* A pending array's record (its tasks not started yet, "6-9%2"). */
bool sacct_is_pending_array(const json_t *rec);

void sacct_print_header(FILE *out, const struct sacct_out *o);
/* The rows of one job record (the job, then its steps as -X and want say). */
void sacct_print_job(FILE *out, const struct sacct_out *o, const struct sacct_ctx *x,
                     const json_t *job, const struct sacct_want *want, size_t nwant);

/* --json: Slurm's data_parser shape {"jobs": [...]}. sacct_json_add puts
 * one job of the answer in jobs if -j asked for it; sacct_print_json
 * prints them all. */
void sacct_json_add(json_t *jobs, const json_t *job, const struct sacct_ctx *x,
                    const struct sacct_want *want, size_t nwant);
void sacct_print_json(FILE *out, json_t *jobs, const struct sacct_ctx *x);

/* Helpers shared by the field and JSON code (sacct_fields.c). */
const json_t *sacct_spec(const struct sacct_row *r);
int sacct_alloc_cpus(const json_t *rec);
int sacct_alloc_nodes(const json_t *rec);
int sacct_gpus(const json_t *rec);
/* The billing TRES: what the controller recorded (the partition's
 * TRESBillingWeights, as fair share charges it), else the CPUs. */
long long sacct_billing(const json_t *rec, int cpus);
uint64_t sacct_alloc_mem(const json_t *rec);
int64_t sacct_elapsed(const json_t *rec, int64_t now);
char *sacct_nodelist(const json_t *rec, bool first_only);
/* Slurm's convert_num_unit: num in unit orig (0 none, 1 K, 2 M...). */
void sacct_units(double num, int orig, const struct sacct_ctx *x, char *buf, size_t n);

/* TRESUsageIn{Ave,Max,Min,Tot}[Node|Task] (sacct_tres.c), from a usage
 * object {"total_cpu_ms", "max_rss_kb", "gpu": gpu_usage.h's summary}
 * (a key absent or -1: not known, left out). node: where the figures were
 * taken, for the Node variant. NULL for no usage; caller frees. */
enum sacct_tres_stat { SACCT_TRES_AVE, SACCT_TRES_MAX, SACCT_TRES_MIN, SACCT_TRES_TOT };
enum sacct_tres_what { SACCT_TRES_VALUE, SACCT_TRES_NODE, SACCT_TRES_TASK };
char *sacct_tres_usage(const json_t *usage, enum sacct_tres_stat st, enum sacct_tres_what what,
                       const char *node, const struct sacct_ctx *x);

/* Shared with sstat, which prints its own field table the same way
 * (sacct_print.c): -o parsing against a table (an unknown name is fatal,
 * as Slurm's), -e's list, and one row. */
const struct sacct_field *sacct_field_find_in(const struct sacct_field *table, const char *s);
int sacct_parse_format(struct sacct_out *out, const struct sacct_field *table, const char *prog,
                       const char *spec);
void sacct_helpformat(const struct sacct_field *table);
void sacct_print_row(FILE *out, const struct sacct_out *o, const struct sacct_ctx *x,
                     const struct sacct_row *r);

#endif
