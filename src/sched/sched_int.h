/*
 * sched_int: the pieces the scheduling pass is built from, shared by the files
 * of src/sched only. A job's request becomes a shape (what it needs on each of
 * its nodes); each node has a free-resource view (what it can still take);
 * placement matches one against the other. Backfill will reuse the same
 * pieces on views projected to a later time.
 */
#ifndef HERD_SCHED_INT_H
#define HERD_SCHED_INT_H

#include "sched/sched.h"

/* What a job needs on one of its nodes. */
struct sched_slot {
    int64_t cpus;
    uint64_t mem_mb;
    int64_t gpus;
};

/* A run of consecutive node positions that need the same slot. Block
 * distribution gives the first positions the extra task or GPU, so a job has
 * at most three runs, largest first. */
struct sched_run {
    struct sched_slot slot;
    size_t len;
};

#define SCHED_MAX_RUNS 3

struct sched_shape {
    size_t nnodes;
    int64_t ntasks;
    int64_t tasks_per_node;        /* 0: spread ntasks evenly */
    int64_t cpus_per_task;
    int64_t gpus_per_node;         /* 0: spread gpus evenly */
    int64_t gpus;
    uint64_t mem_per_node_mb, mem_per_cpu_mb, mem_per_gpu_mb;
    const char *gpu_type;          /* NULL: any */
    bool exclusive;
    struct sched_run runs[SCHED_MAX_RUNS];
    size_t nruns;
};

/* nreq: distinct -w nodes, which raise the node count. */
void sched_shape_init(struct sched_shape *s, const struct sched_job *j, size_t nreq);
void sched_shape_slot(const struct sched_shape *s, size_t pos, struct sched_slot *out);

/* What one node can still take. */
struct sched_free {
    int64_t cpus;
    uint64_t mem_mb;
    uint64_t gpus;                 /* mask of free GPU indices */
    bool used;                     /* something runs or was placed here */
    bool excl;                     /* an exclusive job holds it */
    bool avail;                    /* may take new jobs */
};

uint64_t sched_gpu_full(int gpus);
/* What a running job holds of its k-th allocation now: a suspended one keeps
 * its GPUs and memory but not its CPUs. */
struct sched_alloc sched_run_held(const struct sched_running *r, size_t k);
/* f has in->nnodes entries. */
void sched_free_empty(const struct sched_input *in, struct sched_free *f);
void sched_free_current(const struct sched_input *in, struct sched_free *f);
bool sched_free_fits(const struct sched_free *f, const struct sched_node *n,
                     const struct sched_shape *sh, const struct sched_slot *s);
void sched_free_alloc(const struct sched_free *f, const struct sched_node *n,
                      const struct sched_shape *sh, const struct sched_slot *s,
                      struct sched_alloc *a);
void sched_free_take(struct sched_free *f, const struct sched_alloc *a, bool exclusive);

/* A node chosen for the job under placement, and what it gets there. */
struct sched_pick {
    size_t node;
    struct sched_slot slot;
};

struct sched_cand {
    int w;                         /* node Weight: lower first */
    uint64_t k1;                   /* best-fit keys: smaller is tighter */
    int64_t k2;
    size_t node;
};

/* Scratch space for placing jobs one after another without reallocating:
 * node marks are generation stamps, so nothing is cleared between jobs. */
struct sched_ctx {
    const struct sched_input *in;
    uint64_t gen;
    uint64_t *cand;                /* cand[i] == gen: node i may be chosen */
    uint64_t *taken;               /* taken[i] == gen: node i is chosen */
    size_t *req;                   /* the job's distinct -w nodes */
    size_t nreq;
    struct sched_cand *list;
    struct sched_pick *picks;      /* the result, sorted by node */
    size_t npicks;
};

void sched_ctx_init(struct sched_ctx *c, const struct sched_input *in);
void sched_ctx_fini(struct sched_ctx *c);

enum sched_req_state { SCHED_REQ_OK, SCHED_REQ_BAD, SCHED_REQ_DOWN };

/* Are the job's -w nodes in its partition, not excluded (else BAD), and
 * available in f (else DOWN)? The job's partition index must be valid. */
enum sched_req_state sched_check_req(struct sched_ctx *c, const struct sched_free *f,
                                     const struct sched_job *j);

/* Chooses nodes for j in the view f; true with c->picks filled, or false if
 * it does not fit. The job's partition and -w nodes must be valid. */
bool sched_place(struct sched_ctx *c, const struct sched_free *f, const struct sched_job *j);

/* Marks in elig (in->nnodes entries) the nodes sched_place may choose for
 * j before looking at what is free: its partition's available nodes that
 * match -C, minus -x. */
void sched_place_eligible(struct sched_ctx *c, const struct sched_job *j, uint8_t *elig);

/* Reasons that depend only on the job and its partition, not on the nodes'
 * state: bad partition index, PartitionTimeLimit, invalid -w nodes. */
enum sched_reason sched_check_static(struct sched_ctx *c, const struct sched_free *empty,
                                     const struct sched_job *j);

/* Backfill plans on a model of the cluster over time. Two implement it: the
 * general one (each node's CPUs, memory and GPU indices; profile.c) and a
 * count of identical whole nodes (pool.c), which processor-count traces use.
 * A model is set up from the input and holds the running jobs, the jobs
 * started in this pass and the reservations made so far. */
struct sched_model {
    /* Starts j now for dur seconds if that delays no reservation (allocs
     * filled) and returns now; otherwise, if reserve, reserves its earliest
     * start within the window and returns it; -1 if neither. */
    int64_t (*plan)(void *m, const struct sched_job *j, int64_t dur, bool reserve,
                    struct sched_decision *d);
    /* Takes what a job started outside the model holds (a reservation's
     * member, placed on its own view) until end. */
    void (*take)(void *m, const struct sched_decision *d, bool exclusive, int64_t end);
    /* Whether a preemptor may take claim now for dur seconds without
     * running into a reservation of the model (its victims counted gone);
     * NULL: the model cannot tell, and only a partition's first blocked job
     * preempts. */
    bool (*room)(void *m, const struct sched_job *j, int64_t dur,
                 const struct sched_decision *claim);
    void (*destroy)(void *m);
    void *m;
};

/* Planned times round up to the resolution; never before now. */
int64_t sched_round_up(int64_t t, int64_t now, int res);
#define SCHED_FOREVER (INT64_MAX / 4)

/* false if the input does not fit the count model. */
bool sched_pool_new(const struct sched_input *in, int64_t now, struct sched_model *out);
void sched_profile_new(const struct sched_input *in, int64_t now, struct sched_ctx *ctx,
                       struct sched_model *out);

/* The pass with planning ahead (every policy but FIFO). */
void sched_backfill(const struct sched_input *in, int64_t now, struct sched_output *out);

/* limits.c: what the pass's starts leave of each limit. */
struct sched_limits {
    const struct sched_limit *lim;
    int64_t (*left)[SCHED_RES_N];
    size_t n;
    const struct sched_job *pending;   /* the pass's jobs, whose amounts are kept */
    size_t npending;
    int64_t (*amounts)[SCHED_RES_N];
    bool *known;
};
void sched_limits_init(struct sched_limits *l, const struct sched_input *in);
void sched_limits_fini(struct sched_limits *l);
/* Does j fit all its limits? If not, d says which and what. */
bool sched_limits_fit(const struct sched_limits *l, const struct sched_job *j,
                      struct sched_decision *d);
void sched_limits_take(struct sched_limits *l, const struct sched_job *j);
/* The run time a job is planned with: its estimate, else its time limit,
 * else its partition's MaxTime, else SCHED_FOREVER. */
int64_t sched_job_dur(const struct sched_input *in, const struct sched_job *j);
/* Fills d->allocs from the placement in c->picks, choosing GPU indices in
 * view; takes nothing. */
void sched_alloc_picks(struct sched_ctx *c, const struct sched_free *view,
                       const struct sched_job *j, struct sched_decision *d);
/* Takes a started job's allocations out of a view. */
void sched_free_take_all(struct sched_free *f, const struct sched_decision *d, bool exclusive);

/* ---- Running jobs inside reservations (resv_net.c) ----
 * A job that runs on what a reservation holds, inside its window, uses the
 * held resources rather than adding to them. The pass plans on a copy of
 * the input whose holds leave out what such jobs use, plus a "handover"
 * reservation from each job's end to the reservation's end for what it
 * then gives back to the reservation. A view of now (the job still busy in
 * it) skips handovers; the backfill model's time line counts them. NULL:
 * no reservations, plan on in itself. */
struct sched_input *sched_resv_net(const struct sched_input *in, int64_t now);
void sched_resv_net_free(struct sched_input *net);

/* ---- Reservations (resv.c) ----
 * Holds are future busy time to every job but the reservation's own. */
bool sched_resv_active(const struct sched_resv *r, int64_t now);
/* Takes out of v the holds of every reservation but skip (1 + index; 0:
 * none) that overlaps [from, to). False if none did (v unchanged). */
bool sched_resv_hold(const struct sched_input *in, struct sched_free *v, size_t skip,
                     int64_t from, int64_t to);
/* A job of a reservation (j->resv != 0): SCHED_NONE with c->picks set and
 * the view placed on left in tmp (in->nnodes entries), or why it waits. */
enum sched_reason sched_resv_member(struct sched_ctx *c, const struct sched_free *now_view,
                                    struct sched_free *tmp, const struct sched_job *j,
                                    int64_t now, int64_t dur, struct sched_decision *d);
/* Do only reservations keep j from starting now in now_view? SCHED_RESV_MAINT
 * if one of them has MAINT, SCHED_RESV_OTHER if not, SCHED_NONE if they
 * are not what keeps it. */
enum sched_reason sched_resv_blocks(struct sched_ctx *c, const struct sched_free *now_view,
                                    const struct sched_job *j, int64_t now, int64_t dur);

/* ---- Preemption (preempt.c) ----
 * Victims chosen in this pass are not chosen again. */
struct sched_preempt;
struct sched_preempt *sched_preempt_new(const struct sched_input *in);
void sched_preempt_free(struct sched_preempt *pp);
/* j cannot start now in now_view: if preempting running jobs would let it,
 * names the fewest-cost set in d->preempt and returns true (the set may
 * be empty when jobs already being preempted free enough), with what j
 * will take in claim->allocs (the caller's to free): the caller keeps it
 * from every later job of the pass, so that the preemptor's free part
 * does not go to a third job while its victims end. gate: the backfill
 * model, whose room() must accept the claim (a later job of a partition
 * may preempt only where that delays no earlier job's reservation); NULL:
 * no such check (the partition's first blocked job). */
bool sched_preempt_find(struct sched_preempt *pp, struct sched_ctx *c,
                        const struct sched_free *now_view, const struct sched_job *j,
                        int64_t now, int64_t dur, const struct sched_model *gate,
                        struct sched_decision *d, struct sched_decision *claim);

/* Start estimates for the waiting jobs the plan gave none (estimate.c). */
void sched_estimate_rest(const struct sched_input *in, int64_t now, struct sched_output *out);

#endif
