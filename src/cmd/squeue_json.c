/*
 * squeue --json: the jobs in the shape Slurm 22.05 prints (its openapi
 * v0.0.38 job record: plain numbers, "job_state" a string, 4294967295 for
 * an unlimited time), {"meta": ..., "errors": [], "jobs": [...]}. Each job
 * is built with jansson and written at once, so that a queue of 100,000
 * never becomes one tree in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/squeue.h"

/* Slurm's INFINITE and NO_VAL as its JSON writes them. */
#define SLURM_INFINITE 4294967295LL

static json_t *opt_str(const json_t *job, const char *key, const char *def)
{
    const char *s = jget_str(job, key, def);
    return json_string(s ? s : "");
}

static json_t *job_array_fields(const json_t *job)
{
    int64_t array_id = jget_int(job, "array_job_id", 0);
    const json_t *task = json_object_get(job, "array_task_id");
    const char *tasks = jget_str(job, "array_task_str", NULL);
    return json_pack("{s:I, s:o, s:s}", "array_job_id", (json_int_t)array_id, "array_task_id",
                     array_id > 0 && json_is_integer(task) ? json_incref((json_t *)task)
                                                           : json_null(),
                     "array_task_string", tasks ? tasks : "");
}

static json_t *job_record(const json_t *job)
{
    int64_t limit = jget_int(job, "time_limit", -1);
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:o, s:I, s:I, s:o, s:I, s:I,"
        " s:I, s:s, s:I, s:I, s:s, s:o}",
        "account", opt_str(job, "account", ""), "command", opt_str(job, "command", ""),
        "comment", opt_str(job, "comment", ""), "current_working_directory",
        opt_str(job, "work_dir", ""), "cpus", (json_int_t)jget_int(job, "num_cpus", 0),
        "end_time", (json_int_t)jget_int(job, "end_time", 0), "exit_code",
        (json_int_t)jget_int(job, "exit_code", 0), "group_id",
        (json_int_t)jget_int(job, "group_id", 0), "job_id",
        (json_int_t)jget_int(job, "job_id", 0), "job_state", jget_str(job, "state", "UNKNOWN"),
        "name", jget_str(job, "name", ""), "nodes", opt_str(job, "node_list", ""), "node_count",
        (json_int_t)jget_int(job, "num_nodes", 0), "priority",
        (json_int_t)jget_int(job, "priority", 0), "qos", opt_str(job, "qos", "normal"),
        "restart_cnt", (json_int_t)jget_int(job, "restarts", 0), "start_time",
        (json_int_t)jget_int(job, "start_time", 0), "submit_time",
        (json_int_t)jget_int(job, "submit_time", 0), "state_reason",
        jget_str(job, "reason", "None"), "time_limit",
        (json_int_t)(limit < 0 ? SLURM_INFINITE : limit), "user_id",
        (json_int_t)jget_int(job, "user_id", 0), "user_name", jget_str(job, "user_name", ""),
        "partition", opt_str(job, "partition", ""));
    json_t *arr = job_array_fields(job);
    json_object_update(o, arr);
    json_decref(arr);
    return o;
}

void squeue_print_json(FILE *out, const json_t *answer, const struct squeue_opts *o)
{
    json_t *jobs = o->array ? squeue_expand_arrays(json_object_get(answer, "jobs"))
                            : json_incref(json_object_get(answer, "jobs"));
    size_t i, n = 0;
    json_t *job;
    cmd_json_meta(out);
    fputs("  \"jobs\": [", out);
    json_array_foreach(jobs, i, job)
        if (squeue_job_matches(job, o))
            cmd_json_item(out, job_record(job), n++ == 0);
    fputs("\n  ]\n}\n", out);
    json_decref(jobs);
}
