/*
 * jobspec: the job a controller asks this node to run (POST /v1/launch), read
 * from its JSON with every field's type checked, since the body comes off the
 * network. The same parse serves herdd (to validate and answer 400) and the
 * supervisor (which reads the job.json that herdd saved).
 */
#ifndef HERD_NODED_JOBSPEC_H
#define HERD_NODED_JOBSPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct job_spec {
    int64_t job_id;
    char *name;
    char *partition;
    char *node_name;       /* this node's name */
    char *node_list;       /* the whole allocation, compressed */
    char *script;
    char *user_name;
    char *work_dir;
    char *submit_dir;
    char *submit_host;
    char *std_out;         /* patterns; "" = default */
    char *std_err;
    char *std_in;
    char *cluster_name;
    char *account;         /* the job's record's; "" unknown */
    char **environment;    /* "K=V" entries */
    size_t nenv;
    char **argv;
    size_t nargv;
    char **rlimits;        /* "NOFILE=1024": the submitter's soft limits ("-1": unlimited) */
    size_t nrlimits;
    int64_t uid;
    int64_t gid;
    int64_t node_cpus;
    int64_t node_mem_mb;
    int *gpus;             /* this node's GPU indices */
    size_t ngpus;
    int64_t time_limit;    /* minutes, -1 none */
    int64_t start_time;
    int64_t num_nodes;
    int64_t ntasks;
    int64_t cpus_per_task;
    int64_t ntasks_per_node;   /* --ntasks-per-node; 0 not given */
    int64_t gpus_per_task, cpus_per_gpu, mem_per_gpu_mb;   /* 0: not given */
    int64_t gpus_total, gpus_per_node, gpus_per_socket, ntasks_per_gpu;   /* as asked */
    bool gpus_per_node_gres;   /* that per-node count was --gres: no SLURM_GPUS_PER_NODE */
    char *gpu_type;        /* "" any */
    char *gpu_bind;        /* --gpu-bind; "" none */
    char *tasks_per_node;  /* SLURM_TASKS_PER_NODE, "2(x2)"; "" unknown */
    bool cpus_per_task_set;
    int64_t umask;         /* -1: none given */
    char *open_mode;       /* "append", "truncate" or "" (truncate) */
    char *signal;          /* sbatch --signal "[{R|B}:]SIG[@secs]"; "" none */
    int *cpu_ids;          /* "herd_cpus": this node's CPU indices, chosen by herdd */
    size_t ncpu_ids;
    char **gpu_devs;       /* "herd_gpu_devs": "c MAJ:MIN" of each GPU of the node, by index */
    size_t ngpu_devs;
    int64_t array_job_id;  /* a job array's task: its array (0: not one) */
    int64_t array_task_id; /* -1: not an array task */
    int64_t array_task_count, array_task_min, array_task_max, array_task_step;
    int64_t restart_count; /* times the job was requeued before this run (0: first run) */
};

/* NULL with a message in err naming the bad field. */
struct job_spec *job_spec_from_json(const json_t *o, char *err, size_t errlen);
void job_spec_destroy(struct job_spec *js);      /* NULL is a no-op */

#endif
