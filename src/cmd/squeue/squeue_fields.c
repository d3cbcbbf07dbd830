/*
 * squeue's format codes, with the headers, the values and the cutting rules
 * of Slurm's squeue/print.c: times and node lists are never cut.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/jobstate.h"
#include "cmd/squeue/squeue.h"
#include "common/hostlist.h"
#include "common/taskset.h"
#include "common/timefmt.h"

#define UNUSED __attribute__((unused))
/* Codes of the fields only -O names; not characters -o can be given. */
#define CODE_EXIT_CODE SQUEUE_CODE_EXIT_CODE
#define CODE_RESTARTS SQUEUE_CODE_RESTARTS

#define FIELD(fn)                                                                          \
    static const char *fn(UNUSED const void *rec, UNUSED const void *ctx, UNUSED bool *cut, \
                          UNUSED struct fmt_buf *b)

static const char *job_state(const struct sq_row *job)
{
    return sq_str(job, SQ_STATE, "UNKNOWN");
}

static bool job_is(const struct sq_row *job, const char *state)
{
    return !strcmp(job_state(job), state);
}

static int64_t ctx_now(const void *ctx)
{
    return ((const struct squeue_ctx *)ctx)->now;
}

/* Slurm's job_time_used: 0 while pending, up to now while running, what
 * it ran before while suspended; the time suspended left out. */
static int64_t job_time_used(const struct sq_row *job, int64_t now)
{
    int64_t start = sq_int(job, SQ_START_TIME, 0), end = sq_int(job, SQ_END_TIME, 0);
    if (start == 0 || job_is(job, "PENDING"))
        return 0;
    if (job_is(job, "SUSPENDED"))
        return sq_int(job, SQ_PRE_SUSPEND_S, 0);
    if (job_is(job, "RUNNING") || end == 0)
        end = now;
    return end - start - sq_int(job, SQ_SUSPENDED_S, 0);
}

static const char *str_or_null(const struct sq_row *job, enum sq_key key)
{
    return sq_str(job, key, "(null)");
}

/* The cell as it came when the controller wrote it as %lld would: no
 * conversion and back. */
static const char *int_field(const struct sq_row *job, enum sq_key key, struct fmt_buf *b)
{
    const char *t = sq_int_text(job, key);
    if (t)
        return t;
    fmt_buf_int(b, sq_int(job, key, 0));
    return fmt_buf_text(b);
}

static const char *time_field(int64_t t, struct fmt_buf *b)
{
    char buf[64];
    if (t == 0)
        return "N/A";
    timefmt_iso(t, buf, sizeof buf);
    fmt_buf_str(b, buf);
    return fmt_buf_text(b);
}

static const char *elapsed_field(int64_t secs, struct fmt_buf *b)
{
    char buf[64];
    if (secs == 0)   /* every pending job: timefmt_elapsed's "0:00" without its printf */
        return "0:00";
    timefmt_elapsed(secs, buf, sizeof buf);
    fmt_buf_str(b, buf);
    return fmt_buf_text(b);
}

#define SQ_ID_MAX 31

/* The id as Slurm's %i prints it: "123", an array task "123_4", a pending
 * array's record "123_[4-15%8]". */
FIELD(f_job_id)
{
    int64_t array_id = sq_int(rec, SQ_ARRAY_JOB_ID, 0);
    const char *tasks = sq_str(rec, SQ_ARRAY_TASK_STR, NULL);
    if (array_id <= 0 || (!(tasks && *tasks) && !sq_is_int(rec, SQ_ARRAY_TASK_ID)))
        return int_field(rec, SQ_JOB_ID, b);
    fmt_buf_int(b, array_id);
    if (tasks && *tasks) {
        char *show = taskset_show(tasks);
        fmt_buf_str(b, "_[");
        fmt_buf_str(b, show);
        fmt_buf_str(b, "]");
        free(show);
        if (b->n > SQ_ID_MAX)   /* Slurm composes the id in a 32-byte buffer */
            b->n = SQ_ID_MAX;
    } else {
        fmt_buf_str(b, "_");
        fmt_buf_int(b, sq_int(rec, SQ_ARRAY_TASK_ID, 0));
    }
    return fmt_buf_text(b);
}

FIELD(f_job_id_plain) { return int_field(rec, SQ_JOB_ID, b); }

FIELD(f_array_job_id)
{
    return sq_int(rec, SQ_ARRAY_JOB_ID, 0) > 0 ? int_field(rec, SQ_ARRAY_JOB_ID, b)
                                               : int_field(rec, SQ_JOB_ID, b);
}

FIELD(f_array_task_id)
{
    const char *tasks = sq_str(rec, SQ_ARRAY_TASK_STR, NULL);
    if (tasks && *tasks) {
        char *show = taskset_show(tasks);
        fmt_buf_str(b, show);
        free(show);
        return fmt_buf_text(b);
    }
    if (sq_int(rec, SQ_ARRAY_JOB_ID, 0) > 0 && sq_is_int(rec, SQ_ARRAY_TASK_ID))
        return int_field(rec, SQ_ARRAY_TASK_ID, b);
    return "N/A";
}
FIELD(f_partition) { return sq_str(rec, SQ_PARTITION, ""); }
FIELD(f_name) { return sq_str(rec, SQ_NAME, ""); }
FIELD(f_uid) { return int_field(rec, SQ_USER_ID, b); }
FIELD(f_gid) { return int_field(rec, SQ_GROUP_ID, b); }
FIELD(f_state) { return job_state(rec); }
FIELD(f_state_short) { return jobstate_short(job_state(rec)); }
FIELD(f_nodes) { return int_field(rec, SQ_NUM_NODES, b); }
FIELD(f_cpus) { return int_field(rec, SQ_NUM_CPUS, b); }
FIELD(f_node_list) { return sq_str(rec, SQ_NODE_LIST, ""); }
FIELD(f_reason) { return sq_str(rec, SQ_REASON, "None"); }
/* A held job's priority is 0 in Slurm: what holding it does. */
static bool job_held(const struct sq_row *job)
{
    const char *r = sq_str(job, SQ_REASON, "");
    return job_is(job, "PENDING") && (!strcmp(r, "JobHeldUser") || !strcmp(r, "JobHeldAdmin"));
}

FIELD(f_priority) { return job_held(rec) ? "0" : int_field(rec, SQ_PRIORITY, b); }
FIELD(f_work_dir) { return str_or_null(rec, SQ_WORK_DIR); }
FIELD(f_comment) { return str_or_null(rec, SQ_COMMENT); }
FIELD(f_account) { return str_or_null(rec, SQ_ACCOUNT); }
FIELD(f_req_nodes) { return sq_str(rec, SQ_REQ_NODES, ""); }
FIELD(f_exc_nodes) { return sq_str(rec, SQ_EXC_NODES, ""); }

FIELD(f_min_cpus)
{
    const char *t = sq_int_text(rec, SQ_CPUS_PER_TASK);
    if (t)
        return t;
    fmt_buf_int(b, sq_int(rec, SQ_CPUS_PER_TASK, 1));
    return fmt_buf_text(b);
}

FIELD(f_submit) { return time_field(sq_int(rec, SQ_SUBMIT_TIME, 0), b); }
/* A pending job's start is the scheduler's expected one (N/A when it has
 * none), as in Slurm. */
FIELD(f_start)
{
    if (!job_is(rec, "PENDING"))
        return time_field(sq_int(rec, SQ_START_TIME, 0), b);
    int64_t t = sq_int(rec, SQ_START_ESTIMATE, -1);
    return time_field(t > 0 && t < INT64_MAX / 8 ? t : 0, b);
}
FIELD(f_sched_nodes) { return str_or_null(rec, SQ_SCHED_NODES); }
FIELD(f_qos) { return sq_str(rec, SQ_QOS, "normal"); }
FIELD(f_nice) { return sq_str(rec, SQ_NICE, "0"); }
FIELD(f_dependency) { return str_or_null(rec, SQ_DEPENDENCY); }
FIELD(f_wckey) { return str_or_null(rec, SQ_WCKEY); }
FIELD(f_features) { return str_or_null(rec, SQ_CONSTRAINT); }
FIELD(f_reservation)
{
    const char *v = sq_str(rec, SQ_RESERVATION, "");
    return *v ? v : "(null)";
}
/* Herd's: when the idle-GPU policy flagged the job (N/A: it has not), and
 * its GPUs' utilization at the last sample, the mean over them. */
FIELD(f_gpu_idle) { return time_field(sq_int(rec, SQ_GPU_IDLE, 0), b); }
FIELD(f_gpu_util)
{
    const char *v = sq_str(rec, SQ_GPU_UTIL, "");
    if (!*v)
        return "N/A";
    fmt_buf_int(b, (long long)(strtod(v, NULL) + 0.5));
    fmt_buf_add(b, "%", 1);
    return fmt_buf_text(b);
}
/* What Herd does not track, as Slurm 22.05 prints it unset (Open OnDemand
 * asks for all of these). */
FIELD(f_tmp_disk) { return "0"; }
FIELD(f_any) { return "*"; }
FIELD(f_licenses) { return "(null)"; }
FIELD(f_core_spec) { return "N/A"; }
FIELD(f_sct) { return "*:*:*"; }
FIELD(f_contiguous) { return "0"; }
FIELD(f_oversubscribe) { return sq_bool(rec, SQ_EXCLUSIVE, false) ? "NO" : "OK"; }
FIELD(f_restarts) { return int_field(rec, SQ_RESTARTS, b); }

FIELD(f_exit_code)
{
    fmt_buf_int(b, sq_int(rec, SQ_EXIT_CODE, 0));
    fmt_buf_add(b, ":", 1);
    fmt_buf_int(b, sq_int(rec, SQ_EXIT_SIGNAL, 0));
    return fmt_buf_text(b);
}

/* Slurm's convert_num_unit with CONVERT_NUM_UNIT_EXACT: MB up to the
 * largest unit that divides the value; --noconvert keeps MB. */
FIELD(f_min_memory)
{
    static const char units[] = "MGTP";
    int64_t mb = sq_int(rec, SQ_MEM_PER_NODE_MB, 0);
    if (mb <= 0)
        mb = sq_int(rec, SQ_MEM_PER_CPU_MB, 0);
    if (mb <= 0)
        return "0";
    int u = 0;
    while (!((const struct squeue_ctx *)ctx)->noconvert && u < 3 && mb % 1024 == 0) {
        mb /= 1024;
        u++;
    }
    fmt_buf_int(b, mb);
    fmt_buf_add(b, &units[u], 1);
    return fmt_buf_text(b);
}

FIELD(f_user)
{
    const char *name = sq_str(rec, SQ_USER_NAME, NULL);
    if (name && *name)
        return name;
    struct passwd *pw = getpwuid((uid_t)sq_int(rec, SQ_USER_ID, 0));
    if (!pw)
        return int_field(rec, SQ_USER_ID, b);
    fmt_buf_str(b, pw->pw_name);
    return fmt_buf_text(b);
}

FIELD(f_group)
{
    struct group *gr = getgrgid((gid_t)sq_int(rec, SQ_GROUP_ID, 0));
    if (!gr || !gr->gr_name[0])
        return int_field(rec, SQ_GROUP_ID, b);
    fmt_buf_str(b, gr->gr_name);
    return fmt_buf_text(b);
}

FIELD(f_command)
{
    return sq_str(rec, SQ_COMMAND, "(null)");   /* a --wrap or stdin script has none */
}

FIELD(f_priority_frac)
{
    char buf[64];
    double prio = job_held(rec) ? 0 : (double)sq_int(rec, SQ_PRIORITY, 0) / (double)0xffffffffu;
    snprintf(buf, sizeof buf, "%16.14f", prio);
    fmt_buf_str(b, buf);
    return fmt_buf_text(b);
}

FIELD(f_time_used) { return elapsed_field(job_time_used(rec, ctx_now(ctx)), b); }

FIELD(f_time_limit)
{
    char buf[64];
    timefmt_limit(sq_int(rec, SQ_TIME_LIMIT, TIME_INFINITE), buf, sizeof buf);
    fmt_buf_str(b, buf);
    return fmt_buf_text(b);
}

FIELD(f_time_left)
{
    int64_t limit = sq_int(rec, SQ_TIME_LIMIT, TIME_INFINITE);
    if (limit == TIME_INFINITE)
        return "UNLIMITED";
    return elapsed_field(limit * 60 - job_time_used(rec, ctx_now(ctx)), b);
}

/* A running job's end is its start plus its limit, as the controller sets
 * it in Slurm; an unlimited one has none yet. */
FIELD(f_end)
{
    int64_t end = sq_int(rec, SQ_END_TIME, 0), limit = sq_int(rec, SQ_TIME_LIMIT, -1);
    int64_t start = sq_int(rec, SQ_START_TIME, 0), now = ctx_now(ctx);
    bool running = job_is(rec, "RUNNING") || job_is(rec, "SUSPENDED");
    if (running && end == 0 && start && limit != TIME_INFINITE)
        end = start + limit * 60 + sq_int(rec, SQ_SUSPENDED_S, 0);
    if (limit == TIME_INFINITE && (end > now || (running && end == 0)))
        return "NONE";
    return time_field(end, b);
}

FIELD(f_reason_list)
{
    const char *st = job_state(rec);
    if (!strcmp(st, "PENDING") || !strcmp(st, "TIMEOUT") || !strcmp(st, "FAILED")) {
        *cut = true;
        fmt_buf_add(b, "(", 1);
        fmt_buf_str(b, sq_str(rec, SQ_REASON, "None"));
        fmt_buf_add(b, ")", 1);
        return fmt_buf_text(b);
    }
    return sq_str(rec, SQ_NODE_LIST, "");
}

/* "gres:gpu[:TYPE]:N", N/A without N: 22.05's form (23.02 writes "gres/gpu:"). */
static const char *gres_cell(struct fmt_buf *b, int64_t n, const char *type)
{
    if (n <= 0)
        return "N/A";
    fmt_buf_str(b, "gres:gpu:");
    if (*type) {
        fmt_buf_str(b, type);
        fmt_buf_add(b, ":", 1);
    }
    fmt_buf_int(b, n);
    return fmt_buf_text(b);
}

FIELD(f_tres_per_node)
{
    return gres_cell(b, sq_int(rec, SQ_GPUS_PER_NODE, 0), sq_str(rec, SQ_GPU_TYPE, ""));
}

FIELD(f_tres_per_task)
{
    return gres_cell(b, sq_int(rec, SQ_GPUS_PER_TASK, 0), sq_str(rec, SQ_GPU_TYPE, ""));
}

FIELD(f_tres_per_job)
{
    return gres_cell(b, sq_int(rec, SQ_GPUS, 0), sq_str(rec, SQ_GPU_TYPE, ""));
}

FIELD(f_tres_per_socket)
{
    return gres_cell(b, sq_int(rec, SQ_GPUS_PER_SOCKET, 0), sq_str(rec, SQ_GPU_TYPE, ""));
}

FIELD(f_cpus_per_tres)
{
    return gres_cell(b, sq_int(rec, SQ_CPUS_PER_GPU, 0), "");
}

FIELD(f_mem_per_tres)
{
    return gres_cell(b, sq_int(rec, SQ_MEM_PER_GPU_MB, 0), "");
}

FIELD(f_tres_bind)
{
    const char *v = sq_str(rec, SQ_GPU_BIND, "");
    if (!*v)
        return "N/A";
    fmt_buf_str(b, "gpu:");
    fmt_buf_str(b, v);
    return fmt_buf_text(b);
}

FIELD(f_exec_host)
{
    struct hostlist *hl = hostlist_create(sq_str(rec, SQ_NODE_LIST, ""));
    const char *first = hl ? hostlist_nth(hl, 0) : NULL;
    fmt_buf_str(b, first ? first : "n/a");
    hostlist_destroy(hl);
    return fmt_buf_text(b);
}

const struct fmt_code squeue_codes[] = {
    {'A', "JOBID", 0, NULL, f_job_id_plain},
    {'B', "EXEC_HOST", 0, NULL, f_exec_host},
    {'C', "CPUS", 0, NULL, f_cpus},
    {'D', "NODES", 0, NULL, f_nodes},
    {'E', "DEPENDENCY", 0, NULL, f_dependency},
    {'F', "ARRAY_JOB_ID", 0, NULL, f_array_job_id},
    {'G', "GROUP", 0, NULL, f_gid},
    {'H', "SOCKETS_PER_NODE", 0, NULL, f_any},
    {'I', "CORES_PER_SOCKET", 0, NULL, f_any},
    {'J', "THREADS_PER_CORE", 0, NULL, f_any},
    {'K', "ARRAY_TASK_ID", 0, NULL, f_array_task_id},
    {'L', "TIME_LEFT", FMT_NOCUT, NULL, f_time_left},
    {'M', "TIME", FMT_NOCUT, NULL, f_time_used},
    {'N', "NODELIST", FMT_NOCUT | FMT_NOCUT_HEADER, NULL, f_node_list},
    {'O', "CONTIGUOUS", 0, NULL, f_contiguous},
    {'P', "PARTITION", 0, NULL, f_partition},
    {'Q', "PRIORITY", 0, NULL, f_priority},
    {'R', "NODELIST(REASON)", FMT_NOCUT | FMT_NOCUT_HEADER, NULL, f_reason_list},
    {'S', "START_TIME", 0, NULL, f_start},
    {'T', "STATE", 0, NULL, f_state},
    {'U', "UID", 0, NULL, f_uid},
    {'V', "SUBMIT_TIME", 0, NULL, f_submit},
    {'W', "LICENSES", 0, NULL, f_licenses},
    {'X', "CORE_SPEC", 0, NULL, f_core_spec},
    {'Y', "SCHEDNODES", 0, NULL, f_sched_nodes},
    {'Z', "WORK_DIR", 0, NULL, f_work_dir},
    {'a', "ACCOUNT", 0, NULL, f_account},
    {'b', "TRES_PER_NODE", 0, NULL, f_tres_per_node},
    {'c', "MIN_CPUS", 0, NULL, f_min_cpus},
    {'d', "MIN_TMP_DISK", 0, NULL, f_tmp_disk},
    {'e', "END_TIME", 0, NULL, f_end},
    {'f', "FEATURES", 0, NULL, f_features},
    {'g', "GROUP", 0, NULL, f_group},
    {'h', "OVER_SUBSCRIBE", 0, NULL, f_oversubscribe},
    {'i', "JOBID", 0, NULL, f_job_id},
    {'j', "NAME", 0, NULL, f_name},
    {'k', "COMMENT", 0, NULL, f_comment},
    {'l', "TIME_LIMIT", FMT_NOCUT, NULL, f_time_limit},
    {'m', "MIN_MEMORY", 0, NULL, f_min_memory},
    {'n', "REQ_NODES", 0, NULL, f_req_nodes},
    {'o', "COMMAND", 0, NULL, f_command},
    {'p', "PRIORITY", 0, NULL, f_priority_frac},
    {'q', "QOS", 0, NULL, f_qos},
    {'r', "REASON", 0, NULL, f_reason},
    {'t', "ST", 0, NULL, f_state_short},
    {'u', "USER", 0, NULL, f_user},
    {'v', "RESERVATION", 0, NULL, f_reservation},
    {'w', "WCKEY", 0, NULL, f_wckey},
    {'x', "EXC_NODES", 0, NULL, f_exc_nodes},
    {'y', "NICE", 0, NULL, f_nice},
    {'z', "S:C:T", 0, NULL, f_sct},
    /* -O only: no letter in Slurm's -o */
    {CODE_EXIT_CODE, "EXIT_CODE", 0, NULL, f_exit_code},
    {CODE_RESTARTS, "RESTARTCNT", 0, NULL, f_restarts},
    {SQUEUE_CODE_TRES_PER_TASK, "TRES_PER_TASK", 0, NULL, f_tres_per_task},
    {SQUEUE_CODE_TRES_PER_JOB, "TRES_PER_JOB", 0, NULL, f_tres_per_job},
    {SQUEUE_CODE_TRES_PER_SOCKET, "TRES_PER_SOCKET", 0, NULL, f_tres_per_socket},
    {SQUEUE_CODE_TRES_BIND, "TRES_BIND", 0, NULL, f_tres_bind},
    {SQUEUE_CODE_CPUS_PER_TRES, "CPUS_PER_TRES", 0, NULL, f_cpus_per_tres},
    {SQUEUE_CODE_MEM_PER_TRES, "MEM_PER_TRES", 0, NULL, f_mem_per_tres},
    {SQUEUE_CODE_GPU_IDLE, "GPU_IDLE_SINCE", 0, NULL, f_gpu_idle},
    {SQUEUE_CODE_GPU_UTIL, "GPU_UTIL", 0, NULL, f_gpu_util},
    {0, NULL, 0, NULL, NULL},
};

const struct fmt_name squeue_names[] = {
    {"Account", 'a'}, {"ArrayJobID", 'F'}, {"ArrayTaskID", 'K'}, {"BatchHost", 'B'},
    {"Command", 'o'}, {"Comment", 'k'}, {"Contiguous", 'O'}, {"CoreSpec", 'X'},
    {"CoresPerSocket", 'I'}, {"Dependency", 'E'}, {"Licenses", 'W'}, {"MinTmpDisk", 'd'},
    {"SCT", 'z'}, {"SocketsPerNode", 'H'}, {"ThreadsPerCore", 'J'},
    {"EndTime", 'e'}, {"exit_code", CODE_EXIT_CODE}, {"Feature", 'f'}, {"GroupID", 'G'},
    {"GroupName", 'g'}, {"JobArrayID", 'i'}, {"JobID", 'A'}, {"MinCpus", 'c'},
    {"MinMemory", 'm'}, {"Name", 'j'}, {"Nice", 'y'}, {"NodeList", 'N'}, {"NumCPUs", 'C'},
    {"NumNodes", 'D'}, {"OverSubscribe", 'h'}, {"Partition", 'P'}, {"Priority", 'p'},
    {"PriorityLong", 'Q'}, {"QOS", 'q'}, {"Reason", 'r'}, {"ReasonList", 'R'},
    {"ReqNodes", 'n'}, {"ExcNodes", 'x'}, {"Reservation", 'v'}, {"RestartCnt", CODE_RESTARTS},
    {"SchedNodes", 'Y'}, {"StartTime", 'S'}, {"State", 'T'}, {"StateCompact", 't'},
    {"SubmitTime", 'V'}, {"TimeLeft", 'L'}, {"TimeLimit", 'l'}, {"TimeUsed", 'M'},
    {"tres-per-node", 'b'}, {"Gres", 'b'}, {"UserID", 'U'}, {"UserName", 'u'},
    {"WCKey", 'w'}, {"WorkDir", 'Z'},
    {"tres-per-task", SQUEUE_CODE_TRES_PER_TASK}, {"tres-per-job", SQUEUE_CODE_TRES_PER_JOB},
    {"tres-per-socket", SQUEUE_CODE_TRES_PER_SOCKET}, {"tres-bind", SQUEUE_CODE_TRES_BIND},
    {"cpus-per-tres", SQUEUE_CODE_CPUS_PER_TRES}, {"mem-per-tres", SQUEUE_CODE_MEM_PER_TRES},
    {"GpuIdleSince", SQUEUE_CODE_GPU_IDLE}, {"GpuUtil", SQUEUE_CODE_GPU_UTIL},
    {NULL, 0},
};
