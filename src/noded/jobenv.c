#include "noded/jobenv.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fname.h"
#include "common/xmalloc.h"
#include "noded/jobspec.h"

/* The search path of a root script: Slurm sets none; Herd sets one a user
 * cannot change, so that scripts calling plain "id" keep working. */
#define ROOT_SCRIPT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

struct envb {
    char **v;
    size_t n, cap;
};

static void envb_put(struct envb *e, char *entry)
{
    size_t klen = strcspn(entry, "=");
    for (size_t i = 0; i < e->n; i++) {
        if (strncmp(e->v[i], entry, klen) == 0 && e->v[i][klen] == '=') {
            free(e->v[i]);
            e->v[i] = entry;
            return;
        }
    }
    if (e->n + 2 > e->cap) {
        e->cap = e->cap ? e->cap * 2 : 64;
        e->v = xrealloc(e->v, e->cap * sizeof *e->v);
    }
    e->v[e->n++] = entry;
    e->v[e->n] = NULL;
}

static void envb_set(struct envb *e, const char *key, const char *val)
{
    envb_put(e, xasprintf("%s=%s", key, val));
}

static void envb_seti(struct envb *e, const char *key, int64_t val)
{
    envb_put(e, xasprintf("%s=%" PRId64, key, val));
}

static char *gpu_list(const struct job_spec *js)
{
    char *s = xstrdup("");
    for (size_t i = 0; i < js->ngpus; i++) {
        char *t = xasprintf("%s%s%d", s, i ? "," : "", js->gpus[i]);
        free(s);
        s = t;
    }
    return s;
}

static void set_gpus(struct envb *e, const struct job_spec *js)
{
    if (!js->ngpus)
        return;
    char *list = gpu_list(js);
    envb_seti(e, "SLURM_GPUS_ON_NODE", (int64_t)js->ngpus);
    envb_set(e, "SLURM_JOB_GPUS", list);
    envb_set(e, "CUDA_VISIBLE_DEVICES", list);
    envb_set(e, "GPU_DEVICE_ORDINAL", list);
    free(list);
}

/* "[TYPE:]N" of a GPU count the job asked, when it did. */
static void set_gpu_count(struct envb *e, const char *key, const char *type, int64_t n)
{
    if (n && *type)
        envb_put(e, xasprintf("%s=%s:%" PRId64, key, type, n));
    else if (n)
        envb_seti(e, key, n);
}

/* What the job asked of GPUs (--gpus, --gpus-per-*, per GPU, --gpu-bind),
 * as Slurm passes it on to the script and, through srun, to the steps. */
static void set_gpu_request(struct envb *e, const struct job_spec *js)
{
    set_gpu_count(e, "SLURM_GPUS", js->gpu_type, js->gpus_total);
    if (!js->gpus_per_node_gres)
        set_gpu_count(e, "SLURM_GPUS_PER_NODE", js->gpu_type, js->gpus_per_node);
    set_gpu_count(e, "SLURM_GPUS_PER_SOCKET", js->gpu_type, js->gpus_per_socket);
    set_gpu_count(e, "SLURM_GPUS_PER_TASK", js->gpu_type, js->gpus_per_task);
    if (js->ntasks_per_gpu)
        envb_seti(e, "SLURM_NTASKS_PER_GPU", js->ntasks_per_gpu);
    if (js->gpu_bind[0])
        envb_set(e, "SLURM_GPU_BIND", js->gpu_bind);
    if (js->cpus_per_gpu)
        envb_seti(e, "SLURM_CPUS_PER_GPU", js->cpus_per_gpu);
    if (js->mem_per_gpu_mb)
        envb_seti(e, "SLURM_MEM_PER_GPU", js->mem_per_gpu_mb);
}

/* Slurm's per-node counts: "4", or "4(x2)" when every node has the same. */
static void set_counts(struct envb *e, const char *key, int64_t per_node, int64_t nodes)
{
    if (nodes > 1)
        envb_put(e, xasprintf("%s=%" PRId64 "(x%" PRId64 ")", key, per_node, nodes));
    else
        envb_seti(e, key, per_node);
}

static void set_job(struct envb *e, const struct job_spec *js)
{
    envb_seti(e, "SLURM_JOB_ID", js->job_id);
    envb_seti(e, "SLURM_JOBID", js->job_id);
    envb_set(e, "SLURM_JOB_NAME", js->name);
    envb_set(e, "SLURM_JOB_NODELIST", js->node_list[0] ? js->node_list : js->node_name);
    envb_set(e, "SLURM_NODELIST", js->node_list[0] ? js->node_list : js->node_name);
    envb_seti(e, "SLURM_NNODES", js->num_nodes);
    envb_seti(e, "SLURM_JOB_NUM_NODES", js->num_nodes);
    envb_seti(e, "SLURM_NTASKS", js->ntasks);
    envb_seti(e, "SLURM_NPROCS", js->ntasks);
    if (js->cpus_per_task_set)
        envb_seti(e, "SLURM_CPUS_PER_TASK", js->cpus_per_task);
    envb_seti(e, "SLURM_CPUS_ON_NODE", js->node_cpus);
    set_counts(e, "SLURM_JOB_CPUS_PER_NODE", js->node_cpus, js->num_nodes);
    if (js->tasks_per_node[0])
        envb_set(e, "SLURM_TASKS_PER_NODE", js->tasks_per_node);
    else if (js->num_nodes <= 1)
        envb_seti(e, "SLURM_TASKS_PER_NODE", js->ntasks);
    if (js->ntasks_per_node > 0)
        envb_seti(e, "SLURM_NTASKS_PER_NODE", js->ntasks_per_node);
    envb_set(e, "SLURM_SUBMIT_DIR", js->submit_dir);
    envb_set(e, "SLURM_SUBMIT_HOST", js->submit_host);
    envb_set(e, "SLURM_JOB_PARTITION", js->partition);
    envb_set(e, "SLURM_CLUSTER_NAME", js->cluster_name);
    if (js->start_time > 0) {
        envb_seti(e, "SLURM_JOB_START_TIME", js->start_time);
        if (js->time_limit > 0)
            envb_seti(e, "SLURM_JOB_END_TIME", js->start_time + js->time_limit * 60);
    }
}

static void set_array(struct envb *e, const struct job_spec *js)
{
    if (js->array_task_id < 0)
        return;
    envb_seti(e, "SLURM_ARRAY_JOB_ID", js->array_job_id);
    envb_seti(e, "SLURM_ARRAY_TASK_ID", js->array_task_id);
    envb_seti(e, "SLURM_ARRAY_TASK_COUNT", js->array_task_count);
    envb_seti(e, "SLURM_ARRAY_TASK_MIN", js->array_task_min);
    envb_seti(e, "SLURM_ARRAY_TASK_MAX", js->array_task_max);
    envb_seti(e, "SLURM_ARRAY_TASK_STEP", js->array_task_step);
}

static void set_task(struct envb *e, const struct job_spec *js, pid_t task_pid)
{
    envb_set(e, "SLURMD_NODENAME", js->node_name);
    envb_set(e, "SLURM_TOPOLOGY_ADDR", js->node_name);
    envb_seti(e, "SLURM_NODEID", 0);
    envb_seti(e, "SLURM_PROCID", 0);
    envb_seti(e, "SLURM_LOCALID", 0);
    envb_set(e, "SLURM_GTIDS", "0");
    envb_seti(e, "SLURM_TASK_PID", task_pid);
    envb_set(e, "SLURM_JOB_USER", js->user_name);
    envb_seti(e, "SLURM_JOB_UID", js->uid);
    envb_seti(e, "SLURM_JOB_GID", js->gid);
}

char **jobenv_build(const struct job_spec *js, const char *conf_path, pid_t task_pid)
{
    struct envb e = { 0 };
    for (size_t i = 0; i < js->nenv; i++)
        envb_put(&e, xstrdup(js->environment[i]));
    set_job(&e, js);
    set_array(&e, js);
    set_task(&e, js, task_pid);
    set_gpus(&e, js);
    set_gpu_request(&e, js);
    if (js->restart_count > 0)
        envb_seti(&e, "SLURM_RESTART_COUNT", js->restart_count);
    if (conf_path)
        envb_set(&e, "SLURM_CONF", conf_path);
    envb_set(&e, "ENVIRONMENT", "BATCH");
    return e.v;
}

char **jobenv_root_script(const struct job_spec *js, const char *conf_path, const char *context)
{
    /* Nothing of the job's own environment: it is the user's choice, and
     * this runs as root (BASH_ENV, LD_PRELOAD, PATH would run their code). */
    struct envb e = { 0 };
    envb_set(&e, "PATH", ROOT_SCRIPT_PATH);
    envb_set(&e, "SLURM_SCRIPT_CONTEXT", context);
    envb_seti(&e, "SLURM_JOB_ID", js->job_id);
    envb_seti(&e, "SLURM_JOBID", js->job_id);
    envb_set(&e, "SLURM_JOB_NAME", js->name);
    envb_set(&e, "SLURM_JOB_USER", js->user_name);
    envb_seti(&e, "SLURM_JOB_UID", js->uid);
    envb_seti(&e, "SLURM_JOB_GID", js->gid);
    envb_set(&e, "SLURM_JOB_NODELIST", js->node_list[0] ? js->node_list : js->node_name);
    envb_set(&e, "SLURM_JOB_PARTITION", js->partition);
    if (js->account[0])
        envb_set(&e, "SLURM_JOB_ACCOUNT", js->account);
    envb_set(&e, "SLURM_CLUSTER_NAME", js->cluster_name);
    envb_set(&e, "SLURMD_NODENAME", js->node_name);
    if (conf_path)
        envb_set(&e, "SLURM_CONF", conf_path);
    set_array(&e, js);
    if (js->ngpus) {
        char *list = gpu_list(js);
        envb_set(&e, "SLURM_JOB_GPUS", list);
        envb_set(&e, "CUDA_VISIBLE_DEVICES", list);
        envb_set(&e, "GPU_DEVICE_ORDINAL", list);
        free(list);
    }
    return e.v;
}

void jobenv_free(char **env)
{
    for (size_t i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

static struct fname_vals vals_of(const struct job_spec *js)
{
    return (struct fname_vals){
        .job_id = js->job_id, .array_job_id = js->array_job_id,
        .array_task_id = js->array_task_id, .step_id = FNAME_BATCH_STEP,
        .node_name = js->node_name, .user_name = js->user_name, .job_name = js->name,
    };
}

char *jobenv_expand(const char *pattern, const struct job_spec *js)
{
    struct fname_vals v = vals_of(js);
    return fname_expand(pattern, &v);
}

const char *jobenv_default_out(const struct job_spec *js)
{
    struct fname_vals v = vals_of(js);
    return fname_default(&v);
}

char *jobenv_path(const char *pattern, const char *def, const struct job_spec *js)
{
    char *name = jobenv_expand(pattern && pattern[0] ? pattern : def, js);
    if (name[0] == '/')
        return name;
    const char *wd = js->work_dir;
    char *path = xasprintf("%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/", name);
    free(name);
    return path;
}
