/*
 * squeue --json: the jobs in the shape Slurm 22.05 prints (its openapi
 * v0.0.38 job record: plain numbers, "job_state" a string, 4294967295 for
 * an unlimited time), {"meta": ..., "errors": [], "jobs": [...]}. Each job
 * is built with jansson and written at once, so that a queue of 100,000
 * never becomes one tree in memory.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/squeue/squeue.h"
#include "common/taskset.h"

/* Slurm's INFINITE and NO_VAL as its JSON writes them. */
#define SLURM_INFINITE 4294967295LL

static json_t *opt_str(const struct sq_row *job, enum sq_key key, const char *def)
{
    const char *s = sq_str(job, key, def);
    return json_string(s ? s : "");
}

static json_t *job_array_fields(const struct sq_row *job)
{
    int64_t array_id = sq_int(job, SQ_ARRAY_JOB_ID, 0);

    const char *tasks = sq_str(job, SQ_ARRAY_TASK_STR, NULL);
    /* the fold squeue prints, "3,5,7,9%2" (slurm-ref) */
    char *show = tasks && *tasks ? taskset_show(tasks) : NULL;
    json_t *o = json_pack("{s:I, s:o, s:s}", "array_job_id", (json_int_t)array_id,
                          "array_task_id",
                          array_id > 0 && sq_is_int(job, SQ_ARRAY_TASK_ID)
                              ? json_integer(sq_int(job, SQ_ARRAY_TASK_ID, 0))
                              : json_null(),
                          "array_task_string", show ? show : "");
    free(show);
    const char *pct = tasks ? strchr(tasks, '%') : NULL;
    json_object_set_new(o, "array_max_tasks", json_integer(pct ? atoi(pct + 1) : 0));
    return o;
}

static json_t *job_record(const struct sq_row *job)
{
    int64_t limit = sq_int(job, SQ_TIME_LIMIT, -1);
    json_t *o = json_pack(
        "{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:o, s:I, s:I, s:o, s:I, s:I,"
        " s:I, s:s, s:I, s:I, s:s, s:o}",
        "account", opt_str(job, SQ_ACCOUNT, ""), "command", opt_str(job, SQ_COMMAND, ""),
        "comment", opt_str(job, SQ_COMMENT, ""), "current_working_directory",
        opt_str(job, SQ_WORK_DIR, ""), "cpus", (json_int_t)sq_int(job, SQ_NUM_CPUS, 0),
        "end_time", (json_int_t)sq_int(job, SQ_END_TIME, 0), "exit_code",
        (json_int_t)sq_int(job, SQ_EXIT_CODE, 0), "group_id",
        (json_int_t)sq_int(job, SQ_GROUP_ID, 0), "job_id",
        (json_int_t)sq_int(job, SQ_JOB_ID, 0), "job_state", sq_str(job, SQ_STATE, "UNKNOWN"),
        "name", sq_str(job, SQ_NAME, ""), "nodes", opt_str(job, SQ_NODE_LIST, ""), "node_count",
        (json_int_t)sq_int(job, SQ_NUM_NODES, 0), "priority",
        (json_int_t)sq_int(job, SQ_PRIORITY, 0), "qos", opt_str(job, SQ_QOS, "normal"),
        "restart_cnt", (json_int_t)sq_int(job, SQ_RESTARTS, 0), "start_time",
        (json_int_t)sq_int(job, SQ_START_TIME, 0), "submit_time",
        (json_int_t)sq_int(job, SQ_SUBMIT_TIME, 0), "state_reason",
        sq_str(job, SQ_REASON, "None"), "time_limit",
        (json_int_t)(limit < 0 ? SLURM_INFINITE : limit), "user_id",
        (json_int_t)sq_int(job, SQ_USER_ID, 0), "user_name", sq_str(job, SQ_USER_NAME, ""),
        "partition", opt_str(job, SQ_PARTITION, ""));
    /* Slurm 22.05's key; "" for none */
    json_object_set_new(o, "resv_name", opt_str(job, SQ_RESERVATION, ""));
    json_t *arr = job_array_fields(job);
    json_object_update(o, arr);
    json_decref(arr);
    const char *why = sq_str(job, SQ_REASON_TEXT, "");
    if (*why)   /* Herd's words for why it waits; a key Slurm does not have */
        json_object_set_new(o, "reason_text", json_string(why));
    return o;
}

void squeue_print_json(FILE *out, struct sq_rows *jobs, const struct squeue_opts *o)
{
    size_t n = 0;
    squeue_jobs(jobs, o);
    cmd_json_meta(out);
    fputs("  \"jobs\": [", out);
    for (size_t i = 0; i < jobs->n; i++)
        if (squeue_job_matches(&jobs->rows[i], o))
            cmd_json_item(out, job_record(&jobs->rows[i]), n++ == 0);
    fputs("\n  ]\n}\n", out);
}
