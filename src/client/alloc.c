/*
 * alloc: creating, waiting for and ending srun's and salloc's allocations.
 * See alloc.h.
 */
#include "client/alloc.h"
#include "client/paths.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/sbatch_opts.h"
#include "common/conf.h"

/* sbatch's parser speaks as sbatch; srun and salloc say it, line by line,
 * as themselves. */
static void print_as(const char *prog, const char *err)
{
    while (*err) {
        size_t len = strcspn(err, "\n");
        const char *p = strncmp(err, "sbatch:", 7) == 0 ? err + 7 : err;
        fprintf(stderr, "%s:%.*s\n", prog, (int)(len - (size_t)(p - err)), p);
        err += len + (err[len] == '\n');
    }
}

static json_t *alloc_spec(const char *prog, int argc, char **argv, const char *name)
{
    struct sbatch_opts o;
    char err[1024], cwd[4096], host[256] = "";
    int idx;
    sbatch_opts_init(&o);
    int rc = sbatch_opts_parse_argv(&o, argc, argv, &idx, err, sizeof err);
    if (rc < 0 || sbatch_opts_finish(&o, err, sizeof err) < 0) {
        print_as(prog, err);
        sbatch_opts_free(&o);
        /* Slurm's srun and salloc end here on their fatal path, with 255 */
        if (rc == SBATCH_OPT_FATAL)
            exit(255);
        return NULL;
    }
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/tmp");
    gethostname(host, sizeof host - 1);
    mode_t mask = umask(0);
    umask(mask);
    char *none[] = { NULL };
    struct sbatch_env env = { .default_name = name, .environ = none, .cwd = cwd, .host = host,
                              .umask = (int)mask };
    json_t *spec = sbatch_opts_to_json(&o, &env);
    sbatch_opts_free(&o);
    json_object_set_new(spec, "allocation", json_true());
    /* Slurm's input variables, when no option names one */
    const char *resv = getenv(strcmp(prog, "salloc") == 0 ? "SALLOC_RESERVATION"
                                                          : "SLURM_RESERVATION");
    if (resv && *resv && !json_object_get(spec, "reservation"))
        json_object_set_new(spec, "reservation", json_string(resv));
    json_object_del(spec, "environment");
    return spec;
}

int64_t alloc_create(const char *prog, int argc, char **argv, const char *default_name)
{
    json_t *spec = alloc_spec(prog, argc, argv, default_name), *answer = NULL;
    if (!spec)
        return 0;
    char err[256];
    int status = client_call(prog, "POST", PATH_JOBS, spec, &answer, err, sizeof err);
    json_decref(spec);
    int64_t id = status == 200 ? jget_int(answer, "job_id", 0) : 0;
    if (!id)
        fprintf(stderr, strcmp(prog, "salloc") == 0
                            ? "%s: error: Job submit/allocate failed: %s\n"
                            : "%s: error: Unable to allocate resources: %s\n",
                prog, status < 0 ? err : client_error_text(answer, status));
    json_decref(answer);
    return id;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Ctrl-C while the allocation waits gives it up, as Slurm's srun and salloc. */
static void give_up(const char *prog, int64_t id)
{
    char path[96], err[256];
    json_t *answer = NULL;
    snprintf(path, sizeof path, PATH_JOB_CANCEL("%lld"), (long long)id);
    client_call(prog, "POST", path, NULL, &answer, err, sizeof err);
    json_decref(answer);
    fprintf(stderr, "%s: Job allocation %lld has been revoked.\n", prog, (long long)id);
}

/* One wait of at most a second (so that Ctrl-C is heard): the job as it is
 * then, or NULL. */
static json_t *wait_once(const char *prog, int64_t id)
{
    char path[96], err[256];
    json_t *answer = NULL;
    snprintf(path, sizeof path, PATH_JOB_WAIT("%lld") "?until=running&timeout=1", (long long)id);
    int status = client_call(prog, "GET", path, NULL, &answer, err, sizeof err);
    json_t *job = status == 200 ? json_incref(json_array_get(json_object_get(answer, "jobs"), 0))
                                : NULL;
    if (!job)
        fprintf(stderr, "%s: error: %s\n", prog, status < 0 ? err : client_error_text(answer, status));
    json_decref(answer);
    return job;
}

static int wait_loop(const char *prog, int64_t id, json_t **out, bool salloc);

/* -Q: the waits, grants and releases go unsaid; errors are still said. */
static bool quiet;

void alloc_quiet(bool q)
{
    quiet = q;
}

int alloc_wait(const char *prog, int64_t id, json_t **out)
{
    bool salloc = strcmp(prog, "salloc") == 0;
    struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = wait_loop(prog, id, out, salloc);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

static int wait_loop(const char *prog, int64_t id, json_t **out, bool salloc)
{
    bool said = false;
    for (;;) {
        if (interrupted) {
            give_up(prog, id);
            return -1;
        }
        json_t *job = wait_once(prog, id);
        const char *st = job ? jget_str(job, "state", "") : "";
        if (job && strcmp(st, "PENDING") == 0) {
            if (!said && salloc && !quiet)
                fprintf(stderr, "%s: Pending job allocation %lld\n", prog, (long long)id);
            if (!said && !quiet)
                fprintf(stderr, "%s: job %lld queued and waiting for resources\n", prog,
                        (long long)id);
            said = true;
            json_decref(job);
            continue;
        }
        if (job && strcmp(st, "RUNNING") == 0) {
            if (said && !quiet)
                fprintf(stderr, "%s: job %lld has been allocated resources\n", prog, (long long)id);
            if (salloc && !quiet)
                fprintf(stderr, "%s: Granted job allocation %lld\n", prog, (long long)id);
            *out = job;
            return 0;
        }
        if (job)
            fprintf(stderr, "%s: Job allocation %lld has been revoked.\n", prog, (long long)id);
        json_decref(job);
        return -1;
    }
}

static void setenv_int(const char *k, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    setenv(k, buf, 1);
}

/* "[TYPE:]N" of a GPU count the allocation asked, when it did. */
static void setenv_gpus(const json_t *job, const char *env, const char *key)
{
    int64_t n = jget_int(job, key, 0);
    const char *type = jget_str(job, "gpu_type", "");
    char buf[160];
    if (n > 0) {
        snprintf(buf, sizeof buf, "%s%s%lld", type, *type ? ":" : "", (long long)n);
        setenv(env, buf, 1);
    }
}

/* What the allocation asked of GPUs, as Slurm's salloc sets it: srun inside
 * takes --gpus-per-task and --gpu-bind from it. */
static void alloc_setenv_gpus(const json_t *job)
{
    setenv_gpus(job, "SLURM_GPUS", "gpus");
    if (!jget_bool(job, "gpus_per_node_gres", false))
        setenv_gpus(job, "SLURM_GPUS_PER_NODE", "gpus_per_node");
    setenv_gpus(job, "SLURM_GPUS_PER_SOCKET", "gpus_per_socket");
    setenv_gpus(job, "SLURM_GPUS_PER_TASK", "gpus_per_task");
    if (jget_int(job, "ntasks_per_gpu", 0) > 0)
        setenv_int("SLURM_NTASKS_PER_GPU", jget_int(job, "ntasks_per_gpu", 0));
    if (*jget_str(job, "gpu_bind", ""))
        setenv("SLURM_GPU_BIND", jget_str(job, "gpu_bind", ""), 1);
    if (jget_int(job, "cpus_per_gpu", 0) > 0)
        setenv_int("SLURM_CPUS_PER_GPU", jget_int(job, "cpus_per_gpu", 0));
    if (jget_int(job, "mem_per_gpu_mb", 0) > 0)
        setenv_int("SLURM_MEM_PER_GPU", jget_int(job, "mem_per_gpu_mb", 0));
}

/* Slurm's per-node count: "4", or "4(x2)" when every node has the same;
 * nothing when the nodes differ (the job does not say how). */
static void setenv_per_node(const char *key, int64_t total, int64_t nodes)
{
    char v[48];
    if (nodes <= 1)
        snprintf(v, sizeof v, "%lld", (long long)total);
    else if (total % nodes == 0)
        snprintf(v, sizeof v, "%lld(x%lld)", (long long)(total / nodes), (long long)nodes);
    else
        return;
    setenv(key, v, 1);
}

/* What else Slurm's salloc exports, and srun's tasks then see: where and on
 * which cluster the allocation was asked for, and its per-node counts. */
static void setenv_origin(const char *prog, const json_t *job)
{
    char cwd[4096], host[256] = "";
    if (getcwd(cwd, sizeof cwd))
        setenv("SLURM_SUBMIT_DIR", cwd, 1);
    if (gethostname(host, sizeof host - 1) == 0 && host[0])
        setenv("SLURM_SUBMIT_HOST", host, 1);
    setenv("SLURM_CLUSTER_NAME", client_conf(prog)->cluster_name, 1);
    int64_t nodes = jget_int(job, "num_nodes", 1), cpus = jget_int(job, "num_cpus", 0);
    int64_t ntasks = jget_int(job, "ntasks", 0), per = jget_int(job, "ntasks_per_node", 0);
    if (cpus > 0)
        setenv_per_node("SLURM_JOB_CPUS_PER_NODE", cpus, nodes);
    /* a step's task sees its node's CPUs (salloc's command runs on no node) */
    if (cpus > 0 && cpus % nodes == 0 && strcmp(prog, "srun") == 0)
        setenv_per_node("SLURM_CPUS_ON_NODE", cpus / nodes, 1);
    setenv_per_node("SLURM_TASKS_PER_NODE", ntasks ? ntasks : (per ? per : 1) * nodes, nodes);
}

void alloc_setenv(const char *prog, const json_t *job)
{
    setenv_origin(prog, job);
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
    setenv("SLURM_JOB_ID", id, 1);
    setenv("SLURM_JOBID", id, 1);
    setenv("SLURM_JOB_NAME", jget_str(job, "name", ""), 1);
    setenv("SLURM_JOB_NODELIST", jget_str(job, "node_list", ""), 1);
    setenv("SLURM_NODELIST", jget_str(job, "node_list", ""), 1);
    setenv("SLURM_JOB_PARTITION", jget_str(job, "partition", ""), 1);
    setenv_int("SLURM_JOB_NUM_NODES", jget_int(job, "num_nodes", 1));
    setenv_int("SLURM_NNODES", jget_int(job, "num_nodes", 1));
    int64_t ntasks = jget_int(job, "ntasks", 0), per = jget_int(job, "ntasks_per_node", 0);
    if (ntasks || per) {
        setenv_int("SLURM_NTASKS", ntasks ? ntasks : per * jget_int(job, "num_nodes", 1));
        setenv_int("SLURM_NPROCS", ntasks ? ntasks : per * jget_int(job, "num_nodes", 1));
    }
    if (per)
        setenv_int("SLURM_NTASKS_PER_NODE", per);
    if (jget_bool(job, "cpus_per_task_set", false))
        setenv_int("SLURM_CPUS_PER_TASK", jget_int(job, "cpus_per_task", 1));
    alloc_setenv_gpus(job);
}

void alloc_release(const char *prog, int64_t id, int rc)
{
    char path[96], err[256];
    json_t *body = json_pack("{s:i}", "exit_code", rc > 255 ? 255 : rc < 0 ? 1 : rc), *answer = NULL;
    snprintf(path, sizeof path, PATH_JOB_COMPLETE("%lld"), (long long)id);
    if (strcmp(prog, "salloc") == 0 && !quiet)
        fprintf(stderr, "salloc: Relinquishing job allocation %lld\n", (long long)id);
    int status = client_call(prog, "POST", path, body, &answer, err, sizeof err);
    if (status != 200 && status != 400)   /* 400: it ended already (cancelled, timed out) */
        fprintf(stderr, "%s: error: %s\n", prog, status < 0 ? err : client_error_text(answer, status));
    json_decref(body);
    json_decref(answer);
}
