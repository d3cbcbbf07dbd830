/*
 * conf: slurm.conf (and gres.conf beside it), the one configuration of a
 * Herd cluster, in Slurm's syntax: "Key=Value" pairs, case-insensitive keys,
 * '#' comments, a trailing '\' continues a line, `Include FILE` (relative to
 * the including file's directory), hostlist expressions in NodeName=,
 * PartitionName= Nodes=. NodeName=DEFAULT / PartitionName=DEFAULT set defaults
 * for the lines after them, as in Slurm.
 *
 * A malformed line is an error "FILE:LINE: what is wrong"; an unknown key is a
 * warning (logged with log_warnx, same FILE:LINE: prefix) and otherwise ignored.
 */
#ifndef HERD_CONF_H
#define HERD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf_node {
    char *name;
    char *addr;            /* NodeAddr; default: the name */
    int port;              /* Port; default: the SlurmdPort */
    int cpus;              /* CPUs; default 1 */
    uint64_t mem_mb;       /* RealMemory; default 1 */
    int gpus;              /* from Gres=gpu[:type]:N (sum of gpu entries) */
    char *gpu_type;        /* NULL when untyped */
    char **gpu_files;      /* from gres.conf File=, ngpus entries or NULL */
    char *state;           /* State=; default "UNKNOWN" (CLOUD, FUTURE, DOWN, DRAIN ...) */
    int weight;            /* Weight; default 1 */
    char *features;        /* Features=; NULL when none */
};

struct conf_part {
    char *name;
    char **nodes;          /* expanded names, each one of conf.nodes */
    size_t nnodes;
    bool is_default;       /* Default=YES */
    int64_t max_time_min;  /* MaxTime; TIME_INFINITE (-1) by default */
    int64_t default_time_min; /* DefaultTime; -1: MaxTime */
    bool up;               /* State=UP (default) vs DOWN/INACTIVE/DRAIN */
    int priority_job_factor;   /* PriorityJobFactor; default 1 */
    char *tres_billing_weights; /* TRESBillingWeights; NULL: Herd's default (docs/scheduling.md) */
    char *qos;             /* QOS: a QOS whose limits every job of the partition has too */
    int priority_tier;     /* PriorityTier; default 1: preempt/partition_prio's rank */
    int grace_time;        /* GraceTime seconds; default 0 */
    int preempt_mode;      /* PreemptMode: CONF_PM_* bits; CONF_PM_UNSET: the cluster's */
};

/* PreemptType (conf_preempt.c). */
enum conf_preempt_type { CONF_PT_NONE, CONF_PT_QOS, CONF_PT_PARTITION_PRIO };
/* PreemptMode: OFF is 0; GANG, WITHIN and PRIORITY combine with one of the
 * others ("SUSPEND,GANG"). */
enum {
    CONF_PM_OFF = 0, CONF_PM_SUSPEND = 1, CONF_PM_REQUEUE = 2, CONF_PM_CANCEL = 4,
    CONF_PM_GANG = 8, CONF_PM_WITHIN = 16, CONF_PM_PRIORITY = 32,
    CONF_PM_UNSET = -1,
};
/* PreemptParameters flags. */
enum { CONF_PP_YOUNGEST_FIRST = 1, CONF_PP_STRICT_ORDER = 2, CONF_PP_SEND_USER_SIGNAL = 4 };

/* IdleGPUPolicy=threshold=5,flag_after=60,action=cancel,action_after=60,
 * exempt_qos=a:b,exempt_accounts=..,exempt_users=..,notify=PATH,dry_run
 * (Herd's own key): a running job whose GPUs all stay under threshold %
 * for flag_after is flagged and its user told; action_after later it is
 * cancelled or requeued (dry_run: said, not done). */
enum { CONF_IDLE_NONE, CONF_IDLE_CANCEL, CONF_IDLE_REQUEUE };
#define CONF_IDLE_DEFAULT_PCT 5
struct conf_idle_gpu {
    int threshold_pct;         /* a GPU under it is idle; default 5 (also without the key:
                                  herdd marks idle jobs for /metrics) */
    int64_t flag_after_s;      /* 0: the policy is off */
    int action;                /* CONF_IDLE_* */
    int64_t action_after_s;    /* from the flag */
    char *exempt_qos, *exempt_accounts, *exempt_users;   /* comma lists; NULL none */
    char *notify;              /* a program run on each flag and action; NULL none */
    bool dry_run;
};

struct conf {
    char *path;
    char *cluster_name;        /* ClusterName; default "cluster" */
    char *slurm_user;          /* SlurmUser: may change accounts and QOS as root; NULL root */
    int acct_enforce;          /* AccountingStorageEnforce: ENFORCE_* bits (ctld/limits.h) */
    char *mpi_default;         /* MpiDefault: srun's --mpi when not given; NULL: none */
    char *ctld_host;           /* SlurmctldHost first value (name, "name(addr)" gives addr) */
    char *ctld_addr;           /* address to reach it; default the host name */
    int ctld_port;             /* SlurmctldPort; default 6817 */
    int slurmd_port;           /* SlurmdPort; default 6818 */
    char *state_save;          /* StateSaveLocation; default /var/spool/herd/ctld */
    char *spool_dir;           /* SlurmdSpoolDir; default /var/spool/herd/d; "%n" -> node name */
    char *log_file_ctld;       /* SlurmctldLogFile; NULL: stderr */
    char *log_file_d;          /* SlurmdLogFile; "%n" -> node name */
    char *pid_file_ctld;       /* SlurmctldPidFile */
    char *pid_file_d;          /* SlurmdPidFile; "%n" -> node name */
    char *gres_types;          /* GresTypes */
    char *munge_socket;        /* AuthInfo=socket=PATH; NULL: MUNGE's default */
    char *sched_type;          /* SchedulerType; default "sched/backfill" */
    char *sched_params;        /* SchedulerParameters; NULL when none */
    char *dependency_params;   /* DependencyParameters (kill_invalid_depend); NULL when none */
    char *ctld_params;         /* SlurmctldParameters (the controller's HTTP caps); NULL: none */
    char *slurmd_params;       /* SlurmdParameters (the node agents' HTTP caps); NULL: none */
    char *select_type;         /* SelectType; default "select/cons_tres" */
    int kill_wait;             /* KillWait seconds; default 30 */
    int cred_expire;           /* AuthInfo=cred_expire=S; default 120 */
    int slurmd_timeout;        /* SlurmdTimeout seconds; default 300 */
    int min_job_age;           /* MinJobAge seconds; default 300 */
    int msg_timeout;           /* MessageTimeout seconds; default 10: how long a command
                                  tries to reach the controller */
    int max_job_count;         /* MaxJobCount: jobs the controller holds; default 10000 */
    int return_to_service;     /* ReturnToService 0, 1, 2; default 0 (DOWN stays DOWN) */
    int max_array_size;        /* MaxArraySize: array task ids are below it; default 1001 */
    uint64_t def_mem_per_cpu;  /* DefMemPerCPU MB; 0 none */
    char *priority_type;       /* PriorityType; default "priority/multifactor" */
    int prio_weight_age, prio_weight_assoc, prio_weight_fairshare;   /* PriorityWeight*; 0 */
    int prio_weight_job_size, prio_weight_partition, prio_weight_qos;
    int64_t prio_max_age_min;  /* PriorityMaxAge; default 7-0 */
    int64_t prio_decay_half_life_min;  /* PriorityDecayHalfLife; default 7-0; 0 no decay */
    int64_t prio_calc_period_min;      /* PriorityCalcPeriod; default 5 */
    char *prio_usage_reset;    /* PriorityUsageResetPeriod; NULL: NONE */
    bool prio_favor_small;     /* PriorityFavorSmall */
    char *prio_flags;          /* PriorityFlags; NULL when none */
    bool prolog_contain;       /* PrologFlags has Contain (or X11): jobs get an extern step */
    int preempt_type;          /* PreemptType: enum conf_preempt_type; default none */
    int preempt_mode;          /* PreemptMode: CONF_PM_* bits; default OFF */
    int64_t preempt_exempt_s;  /* PreemptExemptTime seconds; default 0 */
    unsigned preempt_flags;    /* PreemptParameters: CONF_PP_* */
    int suspend_grace_s;       /* PreemptParameters=suspend_grace_time; default 2 */
    int64_t min_exempt_prio;   /* PreemptParameters=min_exempt_priority; default 0 (none) */
    bool job_requeue;          /* JobRequeue: batch jobs may be requeued unless
                                  --no-requeue; default 1 */
    char *metrics_type;        /* MetricsType (metrics/openmetrics); NULL: metrics off */
    char *metrics_auth_users;  /* MetricsAuthUsers: who may read them; NULL: see PrivateData */
    char *metrics_params;      /* MetricsParameters (ignore_private_data); NULL: none */
    char *private_data;        /* PrivateData; NULL: none (metrics readable by anyone) */
    char *auth_alt_types;      /* AuthAltTypes: "auth/jwt" turns tokens on; NULL none */
    char *auth_alt_params;     /* AuthAltParameters (jwt_key=PATH); NULL none */
    char *mail_prog;           /* MailProg; NULL: no mail (Herd mails only the idle-GPU
                                  policy's notices) */
    int acctg_freq;            /* JobAcctGatherFrequency's task period, seconds; default
                                  30; 0: jobs are not sampled */
    struct conf_idle_gpu idle_gpu;   /* IdleGPUPolicy; flag_after_s 0: off */
    struct conf_node *nodes;   /* one per node name, hostlists expanded */
    size_t nnodes;
    struct conf_part *parts;
    size_t nparts;
};

/* Loads path (and gres.conf in the same directory, if present). On error,
 * NULL and err holds "FILE:LINE: message". */
struct conf *conf_load(const char *path, char *err, size_t errlen);
void conf_destroy(struct conf *c);                  /* NULL is a no-op */

const struct conf_node *conf_node_find(const struct conf *c, const char *name);
const struct conf_part *conf_part_find(const struct conf *c, const char *name);
const struct conf_part *conf_part_default(const struct conf *c); /* NULL if none */

/* SchedulerParameters=max_script_size=N: the largest batch script, in
 * bytes, the controller takes (Slurm's default, CONF_MAX_SCRIPT_SIZE,
 * when absent or not a number). */
#define CONF_MAX_SCRIPT_SIZE (4 * 1024 * 1024)
int64_t conf_max_script_size(const struct conf *c);

/* conf_preempt.c: the preemption keys' words, both ways. The parsers
 * return 0, or -1 on a value they do not know (err names it when given). */
int conf_preempt_type_parse(const char *s, int *out);

/* conf_gpu.c: "30" or "task=30,energy=0,..." (JobAcctGatherFrequency,
 * --acctg-freq): the task period into *task_s; 0, or -1 with err. */
int conf_acctg_freq_parse(const char *s, int *task_s, char *err, size_t errlen);
/* IdleGPUPolicy's value into p (cleared first); 0, or -1 with err. */
int conf_idle_gpu_parse(struct conf_idle_gpu *p, const char *s, char *err, size_t errlen);
void conf_idle_gpu_clear(struct conf_idle_gpu *p);
/* name is in the comma list (case-insensitive). */
bool conf_idle_gpu_listed(const char *list, const char *name);
const char *conf_preempt_type_name(int t);
int conf_preempt_mode_parse(const char *s, int *out, char *err, size_t errlen);
/* "OFF", "REQUEUE", "GANG,SUSPEND"; lower: sacctmgr's "requeue" (OFF: "cluster"). */
void conf_preempt_mode_name(int mode, bool lower, char *buf, size_t n);
int conf_preempt_params_parse(struct conf *c, const char *s, char *err, size_t errlen);
/* The keys together: a PreemptType other than none needs a PreemptMode
 * other than OFF, as Slurm's. -1 with err "FILE: message". */
int conf_preempt_check(const struct conf *c, char *err, size_t errlen);

/* The slurm.conf the commands use: $SLURM_CONF, else /etc/herd/slurm.conf, else
 * (a configless login host) the fetched copy in CONFLESS_CACHE. */
const char *conf_default_path(void);

/* Replaces %n in a path pattern with a node name; caller frees. */
char *conf_expand_node(const char *pattern, const char *node);

#endif
