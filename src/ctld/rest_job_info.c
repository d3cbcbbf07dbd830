/*
 * rest_job_info: one job as slurmrestd v0.0.40's job_info, written from
 * the object GET /v1/jobs answers (job_to_json), so that both say the same
 * of a job. docs/rest.md lists the fields filled.
 */
#include <grp.h>
#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/rest.h"
#include "ctld/rest_int.h"

static void set_str(json_t *to, const char *key, json_t *from, const char *from_key)
{
    json_object_set_new(to, key, json_string(rest_str(from, from_key)));
}

/* The job's GPUs as a TRES request ("gres/gpu:a100:2"): per node or per job. */
static void gpu_tres(json_t *to, json_t *j)
{
    char buf[96];
    const char *type = rest_str(j, "gpu_type");
    json_int_t per_node = rest_num(j, "gpus_per_node", 0), total = rest_num(j, "gpus", 0);
    json_int_t n = per_node ? per_node : total;
    if (*type)
        snprintf(buf, sizeof buf, "gres/gpu:%s:%lld", type, (long long)n);
    else
        snprintf(buf, sizeof buf, "gres/gpu:%lld", (long long)n);
    json_object_set_new(to, "tres_per_node", json_string(per_node ? buf : ""));
    json_object_set_new(to, "tres_per_job", json_string(!per_node && total ? buf : ""));
}

/* Slurm's "cpu=4,mem=4000M,node=1,billing=4,gres/gpu=1" of what the job
 * asked for (or holds, for alloc). */
static void tres_strs(json_t *to, json_t *j, bool holds)
{
    json_int_t nodes = rest_num(j, "num_nodes", 1), cpus = rest_num(j, "num_cpus", 0);
    json_int_t mem = rest_num(j, "mem_per_node_mb", 0) * nodes;
    if (!mem)
        mem = rest_num(j, "mem_per_cpu_mb", 0) * cpus;
    json_int_t gpus = rest_num(j, "gpus", 0);
    if (!gpus)
        gpus = rest_num(j, "gpus_per_node", 0) * nodes;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "cpu=%lld,mem=%lldM,node=%lld,billing=%lld",
                     (long long)cpus, (long long)mem, (long long)nodes, (long long)cpus);
    if (gpus && n > 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, ",gres/gpu=%lld", (long long)gpus);
    json_object_set_new(to, "tres_req_str", json_string(buf));
    json_object_set_new(to, "tres_alloc_str", json_string(holds ? buf : ""));
}

static json_t *mem_noval(json_t *j, const char *key)
{
    json_int_t v = rest_num(j, key, 0);
    return v ? rest_noval(v) : rest_noval_unset();
}

/* Times and the array's ids. */
static void times(json_t *o, json_t *j)
{
    json_int_t submit = rest_num(j, "submit_time", 0), begin = rest_num(j, "begin_time", 0);
    json_object_set_new(o, "submit_time", rest_noval_time(submit));
    json_object_set_new(o, "eligible_time", rest_noval_time(begin > submit ? begin : submit));
    json_object_set_new(o, "accrue_time", rest_noval_time(begin > submit ? begin : submit));
    json_object_set_new(o, "start_time", rest_noval_time(rest_num(j, "start_time", 0)));
    json_object_set_new(o, "end_time", rest_noval_time(rest_num(j, "end_time", 0)));
    json_object_set_new(o, "suspend_time", rest_noval_time(rest_num(j, "suspend_time", 0)));
    json_object_set_new(o, "time_limit", rest_noval_minutes(rest_num(j, "time_limit", -1)));
    json_object_set_new(o, "deadline", rest_noval_time(rest_num(j, "deadline", 0)));
    json_int_t aid = rest_num(j, "array_job_id", 0), tid = rest_num(j, "array_task_id", -1);
    json_object_set_new(o, "array_job_id", rest_noval(aid));
    json_object_set_new(o, "array_task_id", aid && tid >= 0 ? rest_noval(tid) : rest_noval_unset());
    set_str(o, "array_task_string", j, "array_task_str");
}

json_t *rest_job_info(const struct ctld *c, json_t *j)
{
    const char *state = rest_str(j, "state");
    bool pending = !strcmp(state, "PENDING"), running = !strcmp(state, "RUNNING");
    bool ended = !pending && !running && strcmp(state, "SUSPENDED") != 0;
    struct group *gr = getgrgid((gid_t)rest_num(j, "group_id", 0));
    json_t *o = json_pack("{s:I, s:s, s:I, s:s, s:I, s:s, s:[s], s:s, s:s}", "job_id",
                          rest_num(j, "job_id", 0), "name", rest_str(j, "name"), "user_id",
                          rest_num(j, "user_id", 0), "user_name", rest_str(j, "user_name"),
                          "group_id", rest_num(j, "group_id", 0), "group_name", gr ? gr->gr_name : "",
                          "job_state", state, "partition", rest_str(j, "partition"), "cluster",
                          c->conf->cluster_name);
    set_str(o, "account", j, "account");
    set_str(o, "qos", j, "qos");
    set_str(o, "comment", j, "comment");
    set_str(o, "command", j, "command");
    set_str(o, "current_working_directory", j, "work_dir");
    set_str(o, "standard_output", j, "stdout");
    set_str(o, "standard_error", j, "stderr");
    set_str(o, "standard_input", j, "stdin");
    set_str(o, "state_reason", j, "reason");
    set_str(o, "state_description", j, "reason_text");
    set_str(o, "nodes", j, "node_list");
    set_str(o, "features", j, "constraint");
    set_str(o, "resv_name", j, "reservation");
    set_str(o, "wckey", j, "wckey");
    json_t *dep = json_object_get(j, "dependency");
    json_object_set_new(o, "dependency",
                        json_string(json_is_string(dep) ? json_string_value(dep) : ""));
    /* srun's and salloc's allocations are not batch jobs */
    json_object_set_new(o, "batch_flag",
                        json_boolean(!json_is_true(json_object_get(j, "allocation"))));
    json_object_set_new(o, "hold", json_boolean(json_is_true(json_object_get(j, "hold")) ||
                                                json_is_true(json_object_get(j, "held_admin"))));
    json_object_set_new(o, "requeue", json_boolean(json_is_true(json_object_get(j, "requeue"))));
    json_object_set_new(o, "restart_cnt", json_integer(rest_num(j, "restarts", 0)));
    json_object_set_new(o, "priority", rest_noval(rest_num(j, "priority", 0)));
    json_object_set_new(o, "nice", json_integer(rest_num(j, "nice", 0)));
    json_object_set_new(o, "node_count", rest_noval(rest_num(j, "num_nodes", 1)));
    json_object_set_new(o, "cpus", rest_noval(rest_num(j, "num_cpus", 0)));
    json_object_set_new(o, "cpus_per_task", rest_noval(rest_num(j, "cpus_per_task", 1)));
    json_object_set_new(o, "tasks", rest_noval(rest_num(j, "ntasks", rest_num(j, "num_nodes", 1))));
    json_object_set_new(o, "memory_per_node", mem_noval(j, "mem_per_node_mb"));
    json_object_set_new(o, "memory_per_cpu", mem_noval(j, "mem_per_cpu_mb"));
    json_object_set_new(o, "exit_code", rest_exit_code(ended, (int)rest_num(j, "exit_code", 0),
                                                       (int)rest_num(j, "exit_signal", 0)));
    times(o, j);
    gpu_tres(o, j);
    tres_strs(o, j, !pending);
    return o;
}
