/*
 * ctld: the controller's state and its one owner. herdctld runs one event
 * loop; every handler, timer and RPC callback gets the struct ctld and is the
 * only code touching it while it runs, so nothing is locked.
 *
 * Files, by what they own:
 * - start and time: main.c (start-up, the loop, and the table of who hears
 *   of job changes), clock.c (the clock: clock.h), health.c (the
 *   once-a-second timer: silent nodes, purges).
 * - the job aggregate: job.c (the record, the job table and its iterator;
 *   every state change, told to the listeners by job_changed), job_spec.c
 *   (a job's spec as kept), job_state.h (the states, as stored),
 *   job_count.c (MaxJobCount), array.c (job arrays, and the one cancel
 *   engine: one id, many ids, an array's tasks), depend.c (dependencies),
 *   step.c (job steps), job_gpus.c (GPUs asked per task), job_runs.c (the
 *   runs a requeue ends, for sacct -D).
 * - nodes: node.c (the registry, and the nodes as the scheduling core sees
 *   them), node_down.c (a node falls, drains or returns, and its jobs),
 *   node_fail_firm.c (when a NODE_FAIL assumed for a silent node stands),
 *   node_state.c (admin states kept across restarts), launch.c (RPCs to
 *   node agents).
 * - scheduling glue (ctld_sched_*): sched_glue.c (configuration, passes),
 *   sched_snap.c (the snapshot a pass plans on), sched_worker.c (the pass's
 *   thread), prio_glue.c (priority inputs), usage.c and assoc.c (fair share).
 * - preemption (preempt.h): preempt_snap.c (who may preempt whom, as a
 *   pass's snapshot says it), preempt.c (victims signalled, killed at the
 *   end of their grace, requeued or ended PREEMPTED), preempt_conf.c (which
 *   QOS, partition or cluster setting holds for a job), suspend.c
 *   (PreemptMode=SUSPEND: suspend.h).
 * - accounting entities (acctdb.h): acctdb.c (the document), acctdb_seed.c
 *   (herd-assoc.conf, once), acctdb_edit.c, acctdb_set.c, acctdb_delete.c
 *   and acctdb_coord.c (sacctmgr's changes).
 * - suspend and resume (suspend.h): suspend.c (scontrol suspend/resume,
 *   preemption by suspension, the agents told, the time a job was suspended),
 *   api_suspend.c (their routes).
 * - limits (limits.h): limits.c (the pass's table), limits_src.c (which
 *   limits a job counts against), limits_admit.c and limits_submit.c (at
 *   submission), limits_words.c (Slurm's reason names, the words).
 * - the store: store.c (SQLite, group commit; the only SQL; rows in and out,
 *   no job objects), store_runs.c (past runs' rows).
 * - advance reservations (resv.h): resv.c (the table, its clock), resv_parse.c
 *   (scontrol's keys), resv_place.c (nodes and GPUs held, busy, overlaps),
 *   resv_json.c (API object, record), resv_jobs.c (--reservation, what a
 *   pass is told), api_resv.c (the routes), store_resv.c (its rows).
 * - routes: api.c (the one route table), api_check.c (the checks job
 *   requests share, the answer sent after commit), api_viewer.c (whose
 *   jobs a caller reads under PrivateData=jobs), api_jobs.c (submit,
 *   show, cancel), api_admin.c (scontrol's changes), api_nodes.c (node
 *   agents' calls), api_acct.c (sacct), api_prio.c (sprio, sshare),
 *   api_acctmgr.c (sacctmgr), api_wait.c (sbatch --wait), api_diag.c (sdiag), job_list.c (squeue's
 *   table), api_metrics.c (Slurm's plain-HTTP metrics and probes).
 * - metrics (metrics.h): metrics.c (RPC and commit latency, GPU-seconds
 *   per user, kept between scrapes), metrics_jobs.c (jobs, users and
 *   accounts), metrics_nodes.c (nodes, partitions), metrics_sched.c
 *   (the scheduler's figures).
 */
#ifndef HERD_CTLD_H
#define HERD_CTLD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctld/clock.h"
#include "ctld/intern.h"
#include "ctld/job_state.h"
#include "sched/sched.h"

struct conf;
struct event;
struct event_base;
struct http_server;
struct job_array;
struct job_deps;
struct job_step;
struct resv_table;
struct store;
struct waiter;
struct acct_stream;

enum launch_state {
    LAUNCH_NONE,           /* not sent (or unknown after a restart) */
    LAUNCH_INFLIGHT,
    LAUNCH_ACKED,          /* the node agent has started its supervisor */
};

/* A controller holds one per job it knows: the members are ordered so that
 * no padding falls between them (4-byte members in pairs, the flags last). */
struct job {
    uint64_t id;
    char *spec;            /* a spec set and not yet saved, as compact JSON text; NULL
                            * once job_save has stored it: read it with job_spec() */
    /* the strings jobs share are interned (intern.h): released, not freed */
    const char *account, *qos;   /* from the spec, NULL if not given: read by every pass */
    int64_t nice;          /* --nice as asked */
    uid_t uid;
    gid_t gid;
    const char *user_name;
    const char *name;
    size_t part;           /* index into ctld.conf->parts */
    enum job_state state;
    enum sched_reason reason;
    int64_t start_estimate;    /* pending: when the last plan expects it to start; -1 unknown */
    uint32_t priority;         /* multifactor: as of the last pass; 0 not computed */
    uint32_t resv_id;          /* --reservation: its ResvID (resv.h); 0 none */
    int64_t submit_time, start_time, end_time;
    int64_t time_limit;    /* minutes, -1 UNLIMITED (partition default applied) */
    struct sched_job req;  /* the shape the scheduler sees; its node lists are the job's
                            * (freed with it), its constraint and GPU type interned */
    struct sched_alloc *allocs;    /* while running; first = batch host */
    size_t nallocs;
    int exit_code, exit_signal;
    json_t *usage;         /* what the node agent measured (elapsed, CPU time, RSS...) */
    enum launch_state launch;
    int restarts;          /* times requeued */
    int64_t acked_at;      /* when the node answered the launch */
    int64_t begin_time;    /* --begin: not eligible before (0: now) */
    int64_t deadline;      /* --deadline (0: none); stored and shown */
    uid_t cancelled_by;    /* who cancelled it, for state CANCELLED (sacct "by UID") */
    unsigned spec_gen;     /* bumped when the spec changes: a pass planned on the old one */
    char *reason_text;     /* pending: the last pass's reason in plain words; NULL none */
    const char *limit_reason;  /* reason SCHED_LIMIT: Slurm's name of the limit (static) */
    struct job_array *array;   /* sbatch --array: array.h; NULL for a plain job */
    uint64_t array_job_id;     /* an array's job (its meta job's id); 0 for a plain job */
    int64_t array_task_id;     /* a task split off (or the last one); -1 otherwise */
    struct job_deps *deps;     /* sbatch --dependency: depend.h; NULL for none */
    struct job_step *steps;    /* srun's steps while it runs, newest first: step.h */
    int next_step;             /* the next step's id (stored: ids are not reused) */
    int end_node;              /* the node whose agent reported its last end; -1 none */
    json_t *step_recs;         /* the steps as accounting keeps them (sacct 123.0); NULL none */
    int64_t stale_kill_at;     /* when its silent node came back still running it and was
                                * told to kill it: a later end is that kill's (stored) */
    struct job_gpu *gpu;       /* its use as the agents report it, the idle-GPU
                                * policy's flag: gpu_live.h; NULL until either */
    struct job_preempt *preempt;   /* chosen as a victim, until its run ends: preempt.h;
                                    * NULL otherwise */
    /* suspend.c: scontrol suspend/resume and PreemptMode=SUSPEND (stored) */
    int64_t suspend_time;      /* SuspendTime: its last suspend or resume; 0: never */
    int64_t pre_suspend_s;     /* SecsPreSuspend: its run time when last suspended */
    int64_t suspended_s;       /* seconds suspended, over ended suspensions: its time
                                * limit and run time leave them out */
    uint64_t yielded_to;       /* suspended by a preemption: the preemptor, whose end
                                * resumes it; SUSPEND_YIELD_DONE: that one is gone */
    bool requeue;
    bool cancel_sent;
    bool requeue_pending;  /* scontrol requeue: back to the queue when its end arrives */
    bool requeue_held;     /* scontrol requeuehold: its hold's reason says so (stored) */
    bool alloc_only;           /* srun/salloc's allocation: no batch script, ended by its
                                * owner (POST .../complete), a cancel or its time limit */
    bool end_assumed;          /* ended NODE_FAIL because its node fell silent, and not yet
                                * firm: the agent's late report of its real end may replace
                                * that, and afterok/afternotok wait (stored) */
    bool extern_step;          /* started under PrologFlags=Contain: accounting shows its
                                * ID.extern step, as Slurm's (stored) */
    bool suspend_acked;        /* the agents answered its last suspend or resume (not
                                * stored: after a restart it is sent again) */
};

struct node {
    const struct conf_node *conf;
    bool registered;       /* ever since start-up */
    bool responding;
    bool down;             /* DOWN: not responding for SlurmdTimeout */
    bool drain;            /* DRAIN: no new work (a failed prolog, an admin) */
    bool cleaning;         /* its agent runs jobs the controller does not hold there: no new
                            * work until their kill has cleared them (api_nodes.c) */
    char *reason;          /* why DOWN/DRAIN, NULL otherwise */
    int64_t last_seen;
    int64_t reason_time;   /* when an admin set reason (0: the controller did) */
    uid_t reason_uid;
};

/* What happened to a job, as its listeners hear it (job_listen). */
enum job_event {
    JOB_SUBMITTED,         /* accepted and saved: pending, held or waiting */
    JOB_STARTED,
    JOB_ENDED,
    JOB_REQUEUED,          /* back in the queue */
    JOB_UPDATED,           /* still pending; its request, hold or eligibility changed */
    JOB_STOPPED,           /* suspended: holds its GPUs and memory, not its CPUs */
    JOB_RESUMED,           /* running again after a suspension */
};
struct ctld;
typedef void (*job_listener_fn)(struct ctld *c, struct job *j, enum job_event ev);
struct job_listener {
    const char *name;
    job_listener_fn fn;
};

/* What sdiag shows: counters since start-up, pass times in microseconds. */
struct ctld_stats {
    int64_t since;
    uint64_t submitted, started, completed, canceled, failed;
    uint64_t cycles;
    int64_t cycle_last_us, cycle_max_us, cycle_sum_us;
    uint64_t depth_sum;        /* pending jobs planned, over all passes */
    size_t queue_len;          /* pending jobs the last pass planned */
};

/* ctld_life.c: the event base's priorities (0 urgent, 1 default:
 * requests, 2 deferred: commit, scheduling); ctld_setup brings the state up
 * from StateSaveLocation and serves it (exits on failure, as at start-up);
 * ctld_teardown frees it all. c->conf and c->base are the caller's to set. */
#define CTLD_NPRIO 3
struct ctld;
void ctld_setup(struct ctld *c);
void ctld_teardown(struct ctld *c);

struct call_ctx;
struct ctld {
    struct conf *conf;
    struct event_base *base;
    struct call_ctx *launch_waits;   /* launches to send again: launch.c */
    struct http_server *http;
    struct store *store;
    struct job **jobs;     /* by id, ascending; finished ones until MinJobAge */
    size_t njobs, capjobs;
    struct job **holding;  /* those running or suspended, by id: job_holding.c */
    size_t nholding, capholding;
    uint64_t next_job_id;
    struct node *nodes;    /* parallel to conf->nodes */
    size_t nnodes;
    struct sched_part *sparts;  /* partitions as the scheduler sees them */
    size_t **spart_nodes;
    struct event *sched_ev;     /* coalesced scheduling pass */
    int64_t last_pass_ms;       /* monotonic start of the last pass */
    int64_t pass_start_us;      /* the same, finer: for the pass's time in sdiag */
    int64_t pass_loop_us;       /* what the last pass took of the event loop's time (its
                                 * snapshot and applying its decisions): sched_glue.c */
    enum sched_policy policy;   /* from SchedulerType / SchedulerParameters */
    int64_t bf_window_s;
    int bf_resolution_s;
    size_t bf_max_job_test;
    int64_t age_bound_s;        /* herd_age_bound= (hours in slurm.conf; 0: no guard) */
    size_t age_resv;            /* herd_age_resv= */
    struct sched_predict *pred; /* run time history of ended jobs (memory only) */
    int bf_interval_s;          /* a pass at least this often (bf_interval) */
    int64_t last_tick_s;        /* the health tick's last look at the queue */
    int64_t last_periodic_s;    /* the last pass asked for by bf_interval */
    struct event *tick_ev;      /* 1 s: node health, purge, launch retries */
    struct prio *prio;          /* multifactor priority and fair share: prio.h */
    struct sched_worker *worker;   /* the pass in flight on its own thread: sched_worker.c */
    bool sched_again;           /* a pass was asked for while one was in flight */
    struct ctld_stats stats;
    int64_t boot_time;          /* when this herdctld started (scontrol show config) */
    struct waiter *waiters;     /* GET /v1/jobs/{id}/wait in progress: api_wait.c */
    struct acct_stream *acct_streams;   /* GET /v1/accounting answers streaming: api_acct.c */
    uint64_t *dep_jobs;         /* ids of pending jobs with dependencies: depend.c */
    size_t ndep_jobs, capdep_jobs;
    uint64_t *meta_jobs;        /* ids of array meta jobs, for MaxJobCount: job_count.c */
    struct job_listener listeners[8];   /* who hears of job changes: job_listen */
    size_t nlisteners;
    size_t nmeta_jobs, capmeta_jobs;
    struct resv_table *resvs;   /* advance reservations: resv.h */
    struct metrics *metrics;    /* what /metrics serves between scrapes: metrics.h */
    struct token_key *token;    /* auth/jwt's key; NULL: tokens off (token.h) */
    char *conf_hash;            /* of the files configless nodes fetch; NULL: not served */
};

/* job.c */
const char *job_state_name(enum job_state s);
bool job_is_finished(const struct job *j);
/* Running or suspended: it holds an allocation (a suspended one its GPUs
 * and memory; its CPUs are free to others, as for the scheduling core). */
bool job_holds_alloc(const struct job *j);
/* The job table: every job held, by ascending id (finished ones until
 * MinJobAge). It is walked with JOB_FOREACH, or JOB_FOREACH_FROM the first
 * id >= from (an array's tasks all follow its meta job); the body may change
 * a job but neither add nor remove one: only job_insert and job_purge do. */
struct job *job_find(struct ctld *c, uint64_t id);
size_t job_first_at(const struct ctld *c, uint64_t from);
#define JOB_WALK_(c, j, start)                                              \
    for (size_t j##_at_ = (start); j##_at_ < (c)->njobs && ((j) = (c)->jobs[j##_at_], 1); \
         j##_at_++)
#define JOB_FOREACH(c, j) JOB_WALK_(c, j, 0)
#define JOB_FOREACH_FROM(c, j, from) JOB_WALK_(c, j, job_first_at((c), (from)))
/* job_holding.c: the jobs that hold an allocation, walked by ascending id
 * with JOB_FOREACH_HOLDING; its body may end, requeue or start jobs (each
 * step looks up the next id after the last). job_holding_note follows a
 * job's change of state; job_holding_clear empties the list. */
struct job *job_holding_after(const struct ctld *c, uint64_t after);
#define JOB_FOREACH_HOLDING(c, j) \
    for ((j) = job_holding_after((c), 0); (j); (j) = job_holding_after((c), (j)->id))
void job_holding_note(struct ctld *c, struct job *j);
void job_holding_clear(struct ctld *c);
void job_insert(struct ctld *c, struct job *j);   /* ids ascend: appended */
void job_purge(struct ctld *c, int64_t ended_before);   /* finished before then: freed */
void job_destroy_all(struct ctld *c);
void job_destroy(struct job *j);
/* Builds a job from a submission; NULL with an HTTP status, Slurm's message
 * and code on a request that is malformed or can never run. */
struct job *job_from_spec(struct ctld *c, json_t *spec, uint64_t id, uid_t uid, gid_t gid,
                          int *status, int *code, char *err, size_t errlen);
json_t *job_to_json(const struct ctld *c, const struct job *j);
/* job_spec.c: the spec set (from a submitted one: script and environment
 * left out, the fields a pass reads copied out; kept in j->spec until
 * job_save stores it) and read back as a new tree, from the store once
 * saved. */
void job_spec_set(struct job *j, json_t *spec);
json_t *job_spec(const struct ctld *c, const struct job *j);
void job_spec_free(struct job *j);
/* Two of its fields, for job_list.c: where it runs ("node[1-2]", "" while
 * pending; caller frees) and the reason squeue shows ("JobHeldUser"). */
char *job_node_list(const struct ctld *c, const struct job *j);
const char *job_reason_name(const struct ctld *c, const struct job *j);
/* The record the store keeps, and the job rebuilt from it at start-up. */
json_t *job_record(const struct ctld *c, const struct job *j);
struct job *job_from_record(struct ctld *c, json_t *rec, uint64_t id, char *err, size_t errlen);
void job_save(struct ctld *c, struct job *j);   /* into the open transaction */
/* The job's state changes here and nowhere else: each transition sets the
 * record, saves it, and then tells the listeners registered with job_listen
 * (main.c: scheduler, node agents, waiters, dependencies), in their order.
 * A pending job starts on the nodes a pass gave it (copied). */
void job_listen(struct ctld *c, const char *name, job_listener_fn fn);
/* A job accepted (built by job_from_spec): saved, held, listeners told. */
void job_submitted(struct ctld *c, struct job *j);
/* A pending job whose request, hold or eligibility changed: saved, listeners told. */
void job_updated(struct ctld *c, struct job *j);
/* Every job kept in the store (not finished, or finished after since),
 * rebuilt and held, and the next job id: at start-up. */
void job_load_all(struct ctld *c, int64_t since);
void job_start(struct ctld *c, struct job *j, const struct sched_alloc *allocs, size_t nallocs);
/* Ends a job: state, time, exit codes; its allocation stays to say where it ran. */
void job_end(struct ctld *c, struct job *j, enum job_state st, int exit_code, int exit_signal,
             int64_t when);
void job_requeue(struct ctld *c, struct job *j);
/* A running job suspended (its processes stop), and a suspended one
 * running again; yielded_to says whether a preemption did it. */
void job_suspended(struct ctld *c, struct job *j);
void job_resumed(struct ctld *c, struct job *j);
/* job_runs.c, from job_requeue: the run that ends kept for sacct -D, and
 * the job made ready for the next (SubmitTime, BeginTime, steps cleared). */
void job_run_keep(struct ctld *c, struct job *j);
void job_run_next(struct ctld *c, struct job *j);
/* Replaces a pending job's spec (scontrol update): the job is rebuilt from it
 * as a submission would be; on a spec that could never run, -1 with an HTTP
 * status, Slurm's message and code, and the job unchanged. */
int job_respec(struct ctld *c, struct job *j, json_t *spec, int *status, int *code, char *err,
               size_t errlen);
int job_state_parse(const char *s);   /* -1 unknown */
/* Why a pending job may not be considered by a pass at all (holds, --begin,
 * dependencies); SCHED_NONE when it is eligible. */
enum sched_reason job_wait_reason(const struct ctld *c, const struct job *j, int64_t now);

/* job_gpus.c: --gpus-per-task, --ntasks-per-gpu and --cpus-per-gpu of the
 * spec, as the GPUs per node (or over the job) and CPUs per task that r,
 * already read from it, asks of the core. */
void job_gpus_shape(struct sched_job *r, const json_t *spec);

/* job_count.c: MaxJobCount. What a job counts for (an array meta job: its
 * waiting tasks), what the controller holds now, and whether more fit. */
size_t job_count_of(const struct job *j);
void job_count_note(struct ctld *c, const struct job *j);   /* from job_insert */
size_t job_count_held(struct ctld *c);
bool job_count_allows(struct ctld *c, size_t more);

/* node.c: the registry */
void nodes_init(struct ctld *c);
/* The partitions as the scheduler sees them (c->sparts), after nodes_init. */
void parts_init(struct ctld *c);
/* Registered, answering, not DOWN, DRAIN or cleaning: may take new work. */
bool node_avail(const struct node *n);
struct node *node_find(struct ctld *c, const char *name);
size_t node_index(const struct ctld *c, const struct node *n);
struct node_usage {
    int cpus;
    uint64_t mem_mb;
    int gpus;
    uint64_t gpu_mask;      /* the GPU indices running jobs hold */
};
/* What running jobs hold on each node: an array of c->nnodes; caller frees. */
struct node_usage *node_usage_get(const struct ctld *c);
json_t *node_to_json(const struct ctld *c, size_t i, const struct node_usage *u);
json_t *part_to_json(const struct ctld *c, size_t i);
/* node_down.c: a node falls, drains or returns, and its jobs with it.
 * assumed: the node fell silent, so its jobs' ends are assumed, not known */
void node_mark_down(struct ctld *c, struct node *n, const char *reason, bool assumed);
/* A DOWN node whose agent registers: back in service as ReturnToService says. */
void node_return(struct ctld *c, struct node *n, bool was_silent);
/* A NODE_FAIL the controller assumed becomes firm: no late report replaces
 * it, and the dependencies that waited on it settle. */
void node_fail_firm(struct ctld *c, struct job *j, const char *why);
void node_fail_firm_due(struct ctld *c, struct job *j, int64_t now);
void node_fail_firm_unlisted(struct ctld *c, struct node *n, json_t *jobs);
void nodes_expect_running(struct ctld *c);
void node_drain(struct ctld *c, struct node *n, const char *reason);
/* node_state.c: DRAIN and DOWN survive a restart */
void nodes_save_state(struct ctld *c);
void nodes_load_state(struct ctld *c);
/* A partition's State (up -1: unchanged), MaxTime, DefaultTime (-2: unchanged) now;
 * scontrol's changes noted in the store until a reconfigure clears them,
 * and applied again at start-up (after the scheduler's partitions exist). */
void part_set(struct ctld *c, size_t i, int up, int64_t max_time, int64_t def_time);
void parts_state_note(struct ctld *c, const char *name, int up, int64_t max_time,
                      int64_t def_time);
void parts_state_clear(struct ctld *c);
void parts_load_state(struct ctld *c);

/* Listeners of job changes, registered by main.c in this order (job_listen):
 * a pass is asked for (sched_glue.c), a started job is sent to its node
 * (launch.c), a suspend or resume too and preemptors' ends resume what
 * yielded to them (suspend.c), sbatch --wait's waiters answered
 * (api_wait.c), dependencies settled (depend.c). */
void ctld_sched_on_job(struct ctld *c, struct job *j, enum job_event ev);
void launch_on_job(struct ctld *c, struct job *j, enum job_event ev);
void api_wait_on_job(struct ctld *c, struct job *j, enum job_event ev);
void api_wait_free_all(struct ctld *c);
/* The accounting answers still streaming at shutdown, dropped (api_acct.c). */
void api_acct_streams_free(struct ctld *c);

/* api_jobs.c, api_nodes.c: route handlers */
void api_register_routes(struct ctld *c);

/* sched_glue.c */
/* Reads SchedulerType and SchedulerParameters; -1 with err on a bad value. */
int ctld_sched_configure(struct ctld *c, char *err, size_t errlen);
void ctld_sched_request(struct ctld *c);              /* a pass soon, coalesced */
void ctld_sched_pass(struct ctld *c);
/* Every second: a pass when bf_interval is due or a --begin time came. */
void ctld_sched_tick(struct ctld *c, int64_t now);
/* node.c: the nodes and partitions as the core sees them, pointing into the
 * controller's state: for checks made at once (a submission that could
 * never run), not for a pass (sched_snap.c copies what a pass reads). */
void ctld_sched_input_fill(const struct ctld *c, struct sched_input *in);
void ctld_sched_input_free(struct sched_input *in);

/* launch.c */
void launch_job(struct ctld *c, struct job *j);
/* The launches waiting to be sent again to a busy node, freed unsent (at teardown). */
void launch_waits_free(struct ctld *c);
/* batch: the batch shell alone (scancel -b), not every process of the job */
/* Who a signal (not a cancel) reaches, as scancel's -b/-f say: by default
 * the job's steps only, as Slurm 22.05; -b the batch shell; -f both. */
enum sig_to { SIG_STEPS, SIG_BATCH, SIG_FULL };
enum sig_to sig_to_of(json_t *body);   /* {"batch": true} or {"full": true} */
void launch_signal(struct ctld *c, struct job *j, int sig, bool cancel, enum sig_to to);
/* A job a node's agent runs that the controller does not hold as running
 * there (the node was silent while the job ended or moved): killed. */
void launch_kill_stale(struct ctld *c, const struct node *n, uint64_t job_id);
/* A running job's new time limit, to its batch node's agent. */
void launch_time_limit(struct ctld *c, struct job *j);

/* health.c */
void health_start(struct ctld *c);

#endif
