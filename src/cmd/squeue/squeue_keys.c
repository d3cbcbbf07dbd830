/*
 * squeue_keys: the job fields a format reads, so that squeue asks the
 * controller for those alone (GET /v1/jobs?fields=...): with 10,000 jobs
 * the whole records are megabytes to write, send and parse for a listing
 * that shows a few columns. A code not listed here, and --json, make squeue
 * ask for every field it knows (squeue_rows.h).
 */
#include <string.h>

#include "cmd/squeue/squeue.h"
#include "common/xmalloc.h"

/* What sorting, filtering, arrays and --start read, whatever the format. */
#define BASE_KEYS "job_id,state,user_id,user_name,name,partition,priority,array_job_id," \
                  "array_task_id,array_task_str,start_estimate"

static const struct {
    char code;
    const char *keys;
} code_keys[] = {
    {'A', ""}, {'B', "node_list"}, {'C', "num_cpus"}, {'D', "num_nodes"},
    {'E', "dependency"}, {'F', ""}, {'G', "group_id"}, {'K', ""},
    {'L', "time_limit,start_time,end_time,suspended_s,pre_suspend_s"},
    {'M', "start_time,end_time,suspended_s,pre_suspend_s"},
    {'N', "node_list"}, {'O', ""}, {'P', ""}, {'Q', "reason"}, {'R', "reason,node_list"},
    {'S', "start_time"}, {'T', ""}, {'U', ""}, {'V', "submit_time"}, {'Y', "sched_nodes"},
    {'Z', "work_dir"}, {'a', "account"}, {'b', "gpus_per_node,gpu_type"},
    {'c', "cpus_per_task"}, {'e', "end_time,time_limit,start_time,suspended_s"}, {'f', "constraint"},
    {'g', "group_id"}, {'h', "exclusive"}, {'i', ""}, {'j', ""}, {'k', "comment"},
    {'l', "time_limit"}, {'m', "mem_per_node_mb,mem_per_cpu_mb"}, {'n', "req_nodes"},
    {'o', "command"}, {'p', "reason"}, {'q', "qos"}, {'r', "reason"}, {'t', ""}, {'u', ""},
    {'v', "reservation"}, {'w', "wckey"}, {'x', "exc_nodes"}, {'y', "nice"},
    {'H', ""}, {'I', ""}, {'J', ""}, {'W', ""}, {'X', ""}, {'d', ""}, {'z', ""},   /* constants */
    {SQUEUE_CODE_EXIT_CODE, "exit_code,exit_signal"}, {SQUEUE_CODE_RESTARTS, "restarts"},
    {SQUEUE_CODE_TRES_PER_TASK, "gpus_per_task,gpu_type"}, {SQUEUE_CODE_TRES_PER_JOB, "gpus,gpu_type"},
    {SQUEUE_CODE_TRES_PER_SOCKET, "gpus_per_socket,gpu_type"}, {SQUEUE_CODE_TRES_BIND, "gpu_bind"},
    {SQUEUE_CODE_CPUS_PER_TRES, "cpus_per_gpu"}, {SQUEUE_CODE_MEM_PER_TRES, "mem_per_gpu_mb"},
    {SQUEUE_CODE_GPU_IDLE, "gpu_idle_flagged_at"}, {SQUEUE_CODE_GPU_UTIL, "gpu_util"},
};

static const char *keys_of(char code)
{
    for (size_t i = 0; i < sizeof code_keys / sizeof *code_keys; i++)
        if (code_keys[i].code == code)
            return code_keys[i].keys;
    return NULL;
}

static char *all_keys(void)
{
    char *out = xstrdup(sq_key_names[0]);
    for (int k = 1; k < SQ_NKEYS; k++) {
        char *t = xasprintf("%s,%s", out, sq_key_names[k]);
        free(out);
        out = t;
    }
    return out;
}

char *squeue_fields_param(const struct fmt *f)
{
    if (!f)
        return all_keys();
    char *out = xstrdup(BASE_KEYS);
    for (size_t i = 0; i < f->ncols; i++) {
        if (!f->cols[i].code)
            continue;
        const char *k = keys_of(f->cols[i].code->code);
        if (!k) {
            free(out);
            return all_keys();
        }
        if (*k) {
            char *t = xasprintf("%s,%s", out, k);
            free(out);
            out = t;
        }
    }
    return out;
}
