/*
 * sched: the pure scheduling core. No I/O, no clock, no globals, no threads:
 * the caller passes a snapshot of the cluster (nodes, partitions, running
 * allocations, pending jobs in priority order) and `now`, and gets one
 * decision per pending job back: start it now on these nodes, cores' worth of
 * CPUs, memory and GPU indices, or the reason it waits. The controller and the
 * simulator drive the same code; tests drive it directly.
 *
 * The input is borrowed for the duration of the call; the output is owned by
 * the caller and freed with sched_output_free().
 */
#ifndef HERD_SCHED_H
#define HERD_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCHED_MAX_GPUS 64          /* GPU indices per node fit one uint64_t mask */

enum sched_reason {
    SCHED_NONE = 0,                /* starts now (or: feasible) */
    SCHED_RESOURCES,               /* "Resources": not enough free now */
    SCHED_PRIORITY,                /* "Priority": a higher-priority job waits first */
    SCHED_HELD_USER,               /* "JobHeldUser" */
    SCHED_HELD_ADMIN,              /* "JobHeldAdmin" */
    SCHED_PART_DOWN,               /* "PartitionDown" */
    SCHED_PART_TIME_LIMIT,         /* "PartitionTimeLimit": limit over MaxTime */
    SCHED_REQ_NODE_NOT_AVAIL,      /* "ReqNodeNotAvail": a -w node is down/drained */
    SCHED_BAD_CONSTRAINTS,         /* "BadConstraints": no node of the partition could ever fit */
    SCHED_LIMIT,                   /* over one of its limits (sched_limit); the caller names
                                      it from sched_decision.limit and .limit_res */
    /* Set by the controller before a pass, never by sched_plan: */
    SCHED_BEGIN_TIME,              /* "BeginTime": --begin is in the future */
    SCHED_DEPENDENCY,              /* "Dependency": waits for other jobs */
    SCHED_DEP_NEVER,               /* "DependencyNeverSatisfied" */
    /* Reservations (sched_resv): */
    SCHED_RESERVATION,             /* "Reservation": its reservation has not begun, or
                                      holds nothing free for it now */
    SCHED_RESV_MAINT,              /* "ReqNodeNotAvail, Reserved for maintenance": it would
                                      run into a MAINT reservation it may not use */
    SCHED_RESV_DELETED,            /* "ReservationDeleted": set by the controller */
    SCHED_RESV_OTHER,              /* "ReqNodeNotAvail, May be reserved for other job": as
                                      SCHED_RESV_MAINT, for a reservation without MAINT */
};

/* Slurm's name for the reason, as squeue prints it ("Resources", ...). */
const char *sched_reason_name(enum sched_reason r);

struct sched_node {
    const char *name;
    int cpus;
    uint64_t mem_mb;
    int gpus;                      /* GPU indices 0..gpus-1 */
    const char *gpu_type;          /* NULL or "" when untyped */
    bool avail;                    /* up and not drained: may take new jobs */
    int weight;                    /* Weight: lower is chosen first (0 and 1 the same rank) */
    const char *features;          /* Features: "a,b"; NULL none */
};

struct sched_part {
    const char *name;
    const size_t *nodes;           /* indices into sched_input.nodes */
    size_t nnodes;
    int64_t max_time_min;          /* < 0: UNLIMITED */
    bool up;
};

/* What one job holds (or will hold) on one node. */
struct sched_alloc {
    size_t node;
    int cpus;
    uint64_t mem_mb;
    uint64_t gpu_mask;             /* bit i set: GPU index i */
};

struct sched_running {
    uint64_t job_id;
    const struct sched_alloc *allocs;
    size_t nallocs;
    bool exclusive;                /* no other job may share its nodes */
    int64_t end_time;              /* expected end (start + time limit); < 0 unknown */
    int64_t start_time;            /* when it started: the work a preemption loses */
    int preempt_class;             /* 1..63: pending jobs whose `preempts` has bit
                                      (1 << class) may preempt it; 0: none may (exempt) */
    bool preempting;               /* already chosen as a victim (in its GraceTime): its
                                      resources count as free to a job that may preempt it */
    bool suspend;                  /* its preemption suspends it (PreemptMode=SUSPEND): that
                                      frees its CPUs only; its GPUs and memory stay held */
    bool suspended;                /* SUSPENDED now: holds its GPUs and memory, not its CPUs */
};


/* What a limit counts. CPU_MIN and GPU_MIN are run-minutes (what a job
 * holds times its time limit; a running job counts what is left of it).
 * WALL is a time limit's minutes, per job only. The *_SPENT ones are
 * what a group may still spend of its GrpTRESMins or GrpWall: a job asks
 * what it would spend by its time limit (TRES times minutes), and starts
 * take nothing from them (the caller gives a group under its limit an
 * unbounded amount unless AccountingStorageEnforce has "safe", and none
 * once it is reached). */
enum sched_res {
    SCHED_RES_JOBS, SCHED_RES_CPU, SCHED_RES_MEM, SCHED_RES_NODE, SCHED_RES_GPU,
    SCHED_RES_BILLING, SCHED_RES_CPU_MIN, SCHED_RES_GPU_MIN, SCHED_RES_WALL,
    SCHED_RES_CPU_SPENT, SCHED_RES_GPU_SPENT, SCHED_RES_BILLING_SPENT, SCHED_RES_WALL_SPENT,
    SCHED_RES_N
};

/* A limit jobs count against (a QOS's or an association's: per user, per
 * account, for a group, per job). left: what the running jobs leave of it
 * for new starts (jobs, CPUs, MB, nodes, GPUs); per_job: the most one job
 * may ask for. < 0: no limit. A job over one of its limits waits with
 * SCHED_LIMIT: it holds nothing in the plan and blocks no other job. */
struct sched_limit {
    int64_t left[SCHED_RES_N];
    int64_t per_job[SCHED_RES_N];
};

/* What a job asks for in all, as limits count it. */
struct sched_tres {
    int64_t cpus, mem_mb, nodes, gpus;
};

struct sched_job {
    uint64_t job_id;
    size_t part;                   /* index into sched_input.parts */
    int min_nodes;                 /* -N; 0 means 1 */
    int ntasks;                    /* -n; 0 means 1 */
    int cpus_per_task;             /* -c; 0 means 1 */
    int ntasks_per_node;           /* 0: any */
    uint64_t mem_per_node_mb;      /* --mem; at most one of the three is nonzero */
    uint64_t mem_per_cpu_mb;       /* --mem-per-cpu */
    uint64_t mem_per_gpu_mb;       /* --mem-per-gpu */
    int gpus;                      /* --gpus: total over the job, 0 none */
    int gpus_per_node;             /* --gres=gpu:N, --gpus-per-node */
    const char *gpu_type;          /* NULL or "": any type */
    bool exclusive;
    bool held_user, held_admin;
    const size_t *req_nodes;       /* -w: the job must get every one of these */
    size_t nreq_nodes;
    const size_t *excl_nodes;      /* -x: never these */
    size_t nexcl_nodes;
    int64_t time_limit_min;        /* < 0: UNLIMITED */
    int64_t time_est_s;            /* run time to plan with, in seconds; <= 0: the time limit */
    int64_t predict_s;             /* predicted run time: HERD's backfill order (shortest
                                      first); <= 0: the planned one */
    int64_t waited_s;              /* how long it has waited so far (the caller's now minus
                                      its submission or eligibility): HERD's starvation
                                      guard; 0: just arrived or unknown */
    const char *constraint;        /* -C: "a&b" (or "a,b") all of them, "a|b" either; NULL none */
    const uint32_t *limits;        /* indices into sched_input.limits it counts against */
    size_t nlimits;
    int64_t billing;               /* the billing TRES it counts (its partition's weights) */
    uint64_t preempts;             /* bit c: may preempt running jobs of preempt_class c */
    size_t resv;                   /* --reservation: 1 + its index in sched_input.resvs;
                                      0: none */
};

/* An advance reservation: from start to end it holds what `holds` lists
 * (a whole node: all its CPUs, memory and GPU indices; a TRES=gres/gpu=N
 * one: those GPU indices) for the jobs that ask for it. Other jobs plan
 * around it as future busy time; its own jobs run only inside it (FLEX:
 * anywhere, at any time, the reservation's resources included). */
struct sched_resv {
    int64_t start, end;            /* [start, end) */
    const struct sched_alloc *holds;
    size_t nholds;
    bool maint;                    /* MAINT: jobs it keeps out wait with SCHED_RESV_MAINT */
    bool flex;                     /* FLEX */
    bool handover;                 /* the core's own (resv_net.c): what a running job
                                      hands to a reservation when it ends; the input's
                                      reservations never set it */
};

void sched_job_tres(const struct sched_job *j, struct sched_tres *out);
/* What the job counts against a limit of each kind (a time limit of
 * UNLIMITED asks for unbounded run-minutes). */
void sched_job_amounts(const struct sched_job *j, int64_t v[SCHED_RES_N]);
#define SCHED_SPEND_UNBOUNDED (INT64_MAX / 2)   /* more than any job asks */

/* How a pass orders and starts jobs. FIFO is the main scheduler alone:
 * strict priority order per partition, nothing jumps a blocked job. The
 * others plan ahead from the expected ends of running jobs: BACKFILL
 * (Slurm's sched/backfill, "conservative") gives every tested job a
 * reservation and starts a job early only if it delays none of them; EASY
 * reserves only each partition's first blocked job; HERD is EASY whose
 * backfill candidates go largest expansion factor (wait + predicted run) /
 * predicted run first, with a starvation guard (age_bound_s). */
enum sched_policy {
    SCHED_POLICY_FIFO = 0,
    SCHED_POLICY_BACKFILL,
    SCHED_POLICY_EASY,
    SCHED_POLICY_HERD,
};

/* "fifo", "conservative" (or "backfill"), "easy", "herd"; false if unknown. */
bool sched_policy_parse(const char *name, enum sched_policy *out);
const char *sched_policy_name(enum sched_policy p);

/* The starvation guard's defaults (herdctld's herd_age_bound= and
 * herd_age_resv=, herd sim's --age-bound and --age-resv). */
#define SCHED_AGE_BOUND_DEFAULT_S (72 * 3600)
#define SCHED_AGE_RESV_DEFAULT 1

struct sched_input {
    const struct sched_node *nodes;
    size_t nnodes;
    const struct sched_part *parts;
    size_t nparts;
    const struct sched_running *running;
    size_t nrunning;
    const struct sched_job *pending;   /* in priority order, highest first */
    size_t npending;
    enum sched_policy policy;
    int64_t bf_window_s;           /* reservations only this far ahead; 0: no limit */
    int bf_resolution_s;           /* planned times round up to this; 0: 1 s */
    size_t bf_max_job_test;        /* jobs tested past the first blocked; 0: all */
    int64_t age_bound_s;           /* HERD's starvation guard: a job that has waited this
                                      long is planned as under EASY (tried in priority
                                      order, before any shorter predicted job), and the
                                      first age_resv of them per partition get a
                                      reservation on time limits, which nothing started
                                      later can push back; 0: no guard */
    size_t age_resv;
    const struct sched_limit *limits;
    size_t nlimits;
    const struct sched_resv *resvs;
    size_t nresvs;
    int32_t utc_offset_s;          /* local time's offset east of UTC at the pass's now:
                                      the reason text's times are shown in it (the core
                                      reads no time zone; 0: UTC) */
};

struct sched_decision {
    uint64_t job_id;
    enum sched_reason reason;      /* SCHED_NONE: start now with allocs */
    struct sched_alloc *allocs;    /* owned by the output; first is where the batch script runs */
    size_t nallocs;
    int64_t start_estimate;        /* now if it starts; planned start; -1 unknown */
    bool forecast;                 /* start_estimate is a forecast (estimate.c), not a
                                      reservation the plan keeps */
    uint32_t limit;                /* SCHED_LIMIT: the index of the limit it is over */
    enum sched_res limit_res;      /* and what of it */
    uint64_t *preempt;             /* the running jobs to preempt now so that it can start
                                      once they are gone (the fewest GPU-seconds lost, then
                                      the youngest; never more than it needs); owned by the
                                      output. It waits meanwhile (SCHED_RESOURCES). */
    size_t npreempt;
};

struct sched_output {
    struct sched_decision *d;      /* one per pending job, in input order */
    size_t n;
};

/* One scheduling pass. Decisions never overlap each other or a running
 * allocation: no GPU index is given twice, no node's CPUs or memory are
 * overcommitted. Deterministic for a given input. */
void sched_plan(const struct sched_input *in, int64_t now, struct sched_output *out);
void sched_output_free(struct sched_output *out);

/* Could this job ever run in its partition, on an empty cluster with every
 * node up? SCHED_NONE if so, SCHED_PART_TIME_LIMIT or SCHED_BAD_CONSTRAINTS if
 * not. Used to refuse a submission that can never run. */
enum sched_reason sched_feasible(const struct sched_input *in, const struct sched_job *j);

/* Run time predictions from history (Tsafrir, Etsion and Feitelson, 2007:
 * the mean of the last two completed runs), trusted only where they have
 * predicted well. Each user, and each job class of a user (cls > 0: e.g.
 * the requested time, one script), keeps the moving error of the history's
 * prediction and of the user's estimate on the runs seen so far; the
 * prediction is the class's history, else the user's, where that error is
 * the smaller (after two scored runs), else the estimate. Never more than
 * the estimate. The HERD policy orders backfill candidates by them
 * (sched_job.predict_s) but plans on time limits, so that a wrong
 * prediction can reorder jobs but never push a reservation back, never
 * shorten a time limit and never change a start the plan promises.
 * State the caller owns; no globals. */
enum sched_predict_src { SCHED_PREDICT_ESTIMATE, SCHED_PREDICT_USER, SCHED_PREDICT_CLASS };
struct sched_predict;
struct sched_predict *sched_predict_new(void);
void sched_predict_free(struct sched_predict *p);
/* src (may be NULL): where the prediction came from. */
int64_t sched_predict_job(const struct sched_predict *p, uint64_t user, int64_t cls,
                          int64_t estimate_s, enum sched_predict_src *src);
/* The history's prediction, trusted or not (EASY++ as published). */
int64_t sched_predict_history(const struct sched_predict *p, uint64_t user, int64_t cls,
                              int64_t estimate_s);
/* A completed run of a job of that user and class, with its estimate. */
void sched_predict_learn(struct sched_predict *p, uint64_t user, int64_t cls, int64_t run_s,
                         int64_t estimate_s);
/* Correction on expiry: the prediction for a job still running after
 * elapsed_s that was predicted_s: grown by Tsafrir's standard steps (1, 5,
 * 15, 30 min, 1, 2, 5, 10, 20, 50, 100 h) until it lies ahead, and never
 * past the estimate while the estimate lies ahead. */
int64_t sched_predict_expired(int64_t predicted_s, int64_t elapsed_s, int64_t estimate_s);

/* Does a node with these Features (comma-separated) satisfy a -C
 * constraint? '&' and ',' are AND, '|' is OR (AND binds tighter); NULL or
 * "" constraint: yes. */
bool sched_features_match(const char *features, const char *constraint);

/* ---- Multifactor priority (Slurm's priority/multifactor) ----
 * priority = Wage*age + Wassoc*assoc + Wfs*fairshare + Wsize*job_size
 *          + Wpart*partition + Wqos*qos - (nice), at least 1,
 * each factor in [0, 1]. Pure: every input is passed in. */
struct sched_prio_weights {
    uint32_t age, assoc, fairshare, job_size, partition, qos;
    int64_t max_age_s;             /* PriorityMaxAge: the age factor is 1.0 from here */
    bool favor_small;              /* PriorityFavorSmall */
    int64_t cluster_nodes;         /* for the job size factor */
    int64_t cluster_cpus;
};

struct sched_prio_job {
    int64_t age_s;                 /* how long it has been eligible */
    double fairshare;              /* the association's Fair Tree factor, [0, 1] */
    double assoc;                  /* [0, 1] */
    double partition;              /* PriorityJobFactor / the largest of any partition */
    double qos;                    /* QOS priority / the largest of any QOS */
    int64_t nodes, cpus;           /* requested */
    int64_t nice;                  /* --nice, -2147483645..2147483645 */
};

struct sched_prio_factors {
    double age, assoc, fairshare, job_size, partition, qos;     /* normalized, [0, 1] */
    double w_age, w_assoc, w_fairshare, w_job_size, w_partition, w_qos;   /* weighted */
    int64_t nice;
    uint32_t priority;
};

void sched_prio_job(const struct sched_prio_weights *w, const struct sched_prio_job *j,
                    struct sched_prio_factors *out);
/* The age factor alone: min(age / max_age, 1); 0 when max_age <= 0. */
double sched_prio_age(int64_t age_s, int64_t max_age_s);

/* ---- Fair share: Slurm's Fair Tree ----
 * An association tree (accounts, with users as leaves). Entry 0 is the root;
 * every other entry's parent comes before it. Each level's siblings are
 * ranked by Level Fairshare LF = S / U (S: shares over the siblings' shares,
 * U: usage over the siblings' usage; no usage: infinite), depth first;
 * accounts with equal LF are ranked together, users with equal LF get equal
 * rank. A user's factor is rank / users, the best-ranked getting 1.0. */
#define SCHED_ASSOC_NONE SIZE_MAX

struct sched_assoc {
    size_t parent;                 /* SCHED_ASSOC_NONE for the root */
    bool user;
    uint32_t shares;               /* FairShare= (raw shares) */
    double usage;                  /* users: their decayed usage (billing-seconds) */
    const char *name;              /* ties broken by name, for determinism */
    /* filled by sched_fairtree(): */
    double usage_tree;             /* accounts: the sum below them; users: usage */
    double norm_shares;            /* shares / siblings' shares */
    double eff_usage;              /* usage_tree / parent's usage_tree */
    double level_fs;               /* LF; HUGE_VAL with no usage */
    double fs_factor;              /* users: the fair share factor; accounts: 0 */
};

void sched_fairtree(struct sched_assoc *a, size_t n);

/* ---- Usage: what a running job costs per second, and decay ---- */
struct sched_billing {
    double cpu;                    /* per CPU */
    double mem_mb;                 /* per MB of memory */
    double gpu;                    /* per GPU (GRES/gpu) */
    double node;                   /* per node */
};

/* TRESBillingWeights ("CPU=1.0,Mem=0.25G,GRES/gpu=2.0"): 0 or -1 with err.
 * Unknown TRES are accepted and cost nothing. */
int sched_billing_parse(const char *s, struct sched_billing *out, char *err, size_t errlen);
double sched_billing_rate(const struct sched_billing *b, int64_t cpus, uint64_t mem_mb,
                          int64_t gpus, int64_t nodes);
/* usage * 2^(-dt / half_life); unchanged when half_life <= 0. */
double sched_usage_decay(double usage, int64_t dt_s, int64_t half_life_s);

/* ---- Plain words for a pending reason ----
 * Why j waits, from the input's current state: for Resources, what it needs
 * on each node and the most of the scarcest resource that any of its
 * partition's nodes has free ("needs 4 GPUs on one node of partition gpu;
 * the most free on any node is 2"). Writes a NUL-terminated text into buf. */
void sched_explain(const struct sched_input *in, const struct sched_job *j, enum sched_reason r,
                   char *buf, size_t len);
/* The running job whose end a planned start waits for: the one ending last
 * at or before `start` on a node of the job's partition; 0 if none. */
uint64_t sched_explain_waits_for(const struct sched_input *in, const struct sched_job *j,
                                 int64_t start);
/* The words for a pass's decision on a waiting job: the reason, then the
 * expected start and the job it waits for when the plan has one. The start
 * is local time by in->utc_offset_s: the same input gives the same text
 * whatever the process's TZ. */
void sched_explain_decision(const struct sched_input *in, const struct sched_job *j,
                            const struct sched_decision *d, int64_t now, char *buf, size_t len);

#endif
