/*
 * squeue_rows: the jobs as squeue reads them. The controller answers
 * GET /v1/jobs?fields=K,...&format=tsv with a table (src/ctld/job_list.h):
 *
 *   now<TAB>1796300061
 *   job_id<TAB>state<TAB>...           the fields, in the order asked
 *   12<TAB>PENDING<TAB>...             one line per job
 *
 * where a cell escapes backslash, tab, newline and CR (\\ \t \n \r) and \N
 * stands for a field the job does not have. The answer is split in place:
 * a row is its line and, per column asked for, the cell's offset in it (two
 * bytes), so that 10,000 jobs cost no allocation per field (a JSON tree of
 * them cost most of squeue's time) and little memory to fault in: a
 * pointer per column was 16 MB at 100,000 jobs, a third of squeue's page
 * faults; a pointer for every field squeue knows was worse still.
 */
#ifndef HERD_SQUEUE_ROWS_H
#define HERD_SQUEUE_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SQ_KEYS(X)                                                                            \
    X(JOB_ID, "job_id") X(STATE, "state") X(USER_ID, "user_id") X(USER_NAME, "user_name")     \
    X(NAME, "name") X(PARTITION, "partition") X(PRIORITY, "priority")                         \
    X(ARRAY_JOB_ID, "array_job_id") X(ARRAY_TASK_ID, "array_task_id")                         \
    X(ARRAY_TASK_STR, "array_task_str") X(START_ESTIMATE, "start_estimate")                   \
    X(NODE_LIST, "node_list") X(NUM_CPUS, "num_cpus") X(NUM_NODES, "num_nodes")               \
    X(DEPENDENCY, "dependency") X(GROUP_ID, "group_id") X(TIME_LIMIT, "time_limit")           \
    X(START_TIME, "start_time") X(END_TIME, "end_time") X(REASON, "reason")                   \
    X(SUBMIT_TIME, "submit_time") X(SCHED_NODES, "sched_nodes") X(WORK_DIR, "work_dir")       \
    X(ACCOUNT, "account") X(GPUS_PER_NODE, "gpus_per_node") X(GPU_TYPE, "gpu_type")           \
    X(CPUS_PER_TASK, "cpus_per_task") X(CONSTRAINT, "constraint") X(EXCLUSIVE, "exclusive")   \
    X(COMMENT, "comment") X(MEM_PER_NODE_MB, "mem_per_node_mb")                               \
    X(MEM_PER_CPU_MB, "mem_per_cpu_mb") X(REQ_NODES, "req_nodes") X(COMMAND, "command")       \
    X(QOS, "qos") X(WCKEY, "wckey") X(EXC_NODES, "exc_nodes") X(NICE, "nice")                 \
    X(EXIT_CODE, "exit_code") X(EXIT_SIGNAL, "exit_signal") X(RESTARTS, "restarts")         \
    X(GPUS, "gpus") X(GPUS_PER_TASK, "gpus_per_task") X(GPUS_PER_SOCKET, "gpus_per_socket")   \
    X(CPUS_PER_GPU, "cpus_per_gpu") X(MEM_PER_GPU_MB, "mem_per_gpu_mb") X(GPU_BIND, "gpu_bind") \
    X(REASON_TEXT, "reason_text") X(SUSPENDED_S, "suspended_s")                               \
    X(PRE_SUSPEND_S, "pre_suspend_s") X(RESERVATION, "reservation")                   \
    X(GPU_IDLE, "gpu_idle_flagged_at") X(GPU_UTIL, "gpu_util")

#define SQ_ENUM(id, name) SQ_##id,
enum sq_key { SQ_KEYS(SQ_ENUM) SQ_NKEYS };
#undef SQ_ENUM

extern const char *const sq_key_names[SQ_NKEYS];

#define SQ_NONE 0xffff         /* an offset: the job has no such cell */

struct sq_row {
    const char *line;          /* the row's line in the answer, its cells' base; NULL for
                                * a row of its own (sq_rows_copy), whose cells are pointers */
    const void *cells;         /* line: a uint16_t offset per column (SQ_NONE: the job has
                                * none); else a const char * per column (NULL: none) */
    const signed char *col;    /* a key's column, -1 when not asked for */
};

struct sq_rows {
    char *text;                /* the answer, split in place */
    struct sq_row *rows;
    size_t n;
    int64_t now;
    signed char col[SQ_NKEYS];
    size_t ncols;
    void **owned;              /* what rows point to beside text: cells, -r's ids */
    size_t nowned;
};

/* Takes text (len bytes, NUL-terminated); 0, or -1 when it is no table.
 * The array keys always have a column, for squeue -r to fill. */
int sq_rows_parse(struct sq_rows *r, char *text, size_t len);
void sq_rows_free(struct sq_rows *r);
/* A copy of row with cells of its own, which r frees. */
struct sq_row sq_rows_copy(struct sq_rows *r, const struct sq_row *row);
/* A row more, at the end (squeue -r's tasks). */
void sq_rows_append(struct sq_rows *r, struct sq_row row);
/* p is freed with r. */
void sq_rows_own(struct sq_rows *r, void *p);
/* Cell k of row (one of its own: see sq_rows_copy) set to v. */
void sq_row_put(struct sq_row *row, enum sq_key k, const char *v);

/* The accessors are inline: squeue calls them ~20 times per job. */
/* Column c's cell of row; NULL when the job has none. */
static inline const char *sq_col_cell(const struct sq_row *row, int c)
{
    if (!row->line)
        return ((const char *const *)row->cells)[c];
    uint16_t off = ((const uint16_t *)row->cells)[c];
    return off == SQ_NONE ? NULL : row->line + off;
}

static inline const char *sq_cell(const struct sq_row *row, enum sq_key k)
{
    int c = row->col[k];
    return c < 0 ? NULL : sq_col_cell(row, c);
}

static inline const char *sq_str(const struct sq_row *row, enum sq_key k, const char *def)
{
    const char *v = sq_cell(row, k);
    return v ? v : def;
}

int64_t sq_int_slow(const char *v, int64_t def);   /* strtoll's reading */

/* A cell's integer, def when it has none or is no integer. What the
 * controller writes ("-1", "4294901759") is read in one pass, without
 * strtoll's locale; anything else as strtoll reads it. */
static inline int64_t sq_int(const struct sq_row *row, enum sq_key k, int64_t def)
{
    const char *v = sq_cell(row, k), *d;
    if (!v)
        return def;
    d = v + (*v == '-');
    int64_t x = 0;
    size_t n = 0;
    while (d[n] >= '0' && d[n] <= '9' && n < 18)
        x = x * 10 + (d[n++] - '0');
    if (d[n] || !n || (*d == '0' && n > 1))
        return sq_int_slow(v, def);
    return *v == '-' ? -x : x;
}

bool sq_bool(const struct sq_row *row, enum sq_key k, bool def);
bool sq_is_int(const struct sq_row *row, enum sq_key k);
/* The cell itself when it reads as the text %lld would print for its
 * sq_int (what the controller sends), so that printing it needs no
 * conversion; NULL otherwise. */
const char *sq_int_text(const struct sq_row *row, enum sq_key k);

#endif
