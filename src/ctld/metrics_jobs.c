/*
 * metrics_jobs: GET /metrics/jobs and /metrics/jobs-users-accts, Slurm
 * 25.11's job families (counted as its statistics.c counts them: a pending
 * array job as its waiting tasks, held jobs among the pending, allocations
 * of running and suspended jobs), plus herd_jobs_pending_by_reason, the
 * running jobs' per-GPU figures (metrics_gpu.c), herd_user_gpu_seconds_total
 * and the limits' headroom (metrics_limits.c). States Herd has no counterpart of (BootFail,
 * Configuring, Deadline, ...) are 0, as no job is ever in them.
 */
#include <event2/buffer.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/openmetrics.h"
#include "common/xmalloc.h"
#include "ctld/metrics.h"
#include "ctld/prio.h"

#define F(f) offsetof(struct jtally, f)

static const struct jfam {
    const char *name;      /* after "slurm_" (and "user_"/"account_") */
    const char *help;      /* Slurm's words */
    size_t off;
} jfams[] = {
    { "jobs_bootfail", "Number of jobs in BootFail state", F(bootfail) },
    { "jobs_cancelled", "Number of jobs in Cancelled state", F(cancelled) },
    { "jobs_completed", "Number of jobs in Completed state", F(completed) },
    { "jobs_completing", "Number of jobs in Completing state", F(completing) },
    { "jobs_configuring", "Number of jobs in Configuring state", F(configuring) },
    { "jobs_cpus_alloc", "Total number of Cpus allocated by jobs", F(cpus_alloc) },
    { "jobs_deadline", "Number of jobs in Deadline state", F(deadline) },
    { "jobs_expediting", "Number of jobs in Expediting state", F(expediting) },
    { "jobs_failed", "Number of jobs in Failed state", F(failed) },
    { "jobs_fed_requeued", "Number of jobs requeued in a federation", F(fed_requeued) },
    { "jobs_finished", "Number of finished jobs", F(finished) },
    { "jobs_gpus_alloc", "Total number of GPUs allocated by jobs", F(gpus_alloc) },
    { "jobs_hold", "Number of jobs in Hold state", F(hold) },
    { "jobs", "Total number of jobs", F(jobs) },
    { "jobs_memory_alloc", "Total memory bytes allocated by jobs", F(memory_alloc) },
    { "jobs_node_failed", "Number of jobs in Node Failed state", F(node_failed) },
    { "jobs_nodes_alloc", "Total number of nodes allocated by jobs", F(nodes_alloc) },
    { "jobs_outofmemory", "Number of jobs in Out of Memory state", F(oom) },
    { "jobs_pending", "Number of jobs in Pending state", F(pending) },
    { "jobs_powerup_node", "Number of jobs in PowerUp Node state", F(powerup_node) },
    { "jobs_preempted", "Number of jobs in Preempted state", F(preempted) },
    { "jobs_requeued", "Number of jobs in Requeued state", F(requeued) },
    { "jobs_resizing", "Number of jobs in Resizing state", F(resizing) },
    { "jobs_revoked", "Number of jobs revoked", F(revoked) },
    { "jobs_running", "Number of jobs in Running state", F(running) },
    { "jobs_signaling", "Number of jobs being signaled", F(signaling) },
    { "jobs_stageout", "Number of jobs in StageOut state", F(stageout) },
    { "jobs_started", "Number of started jobs", F(started) },
    { "jobs_suspended", "Number of jobs in Suspended state", F(suspended) },
    { "jobs_timeout", "Number of jobs in Timeout state", F(timeout) },
};
#define NJFAMS (sizeof jfams / sizeof *jfams)

static uint64_t get(const struct jtally *t, size_t off)
{
    return *(const uint64_t *)((const char *)t + off);
}

static bool is_held(const struct ctld *c, const struct job *j)
{
    const char *r = job_reason_name(c, j);
    return strncmp(r, "JobHeld", 7) == 0 || strcmp(r, "job_requeued_in_held_state") == 0;
}

static uint64_t *state_counter(struct jtally *t, enum job_state s)
{
    switch (s) {
    case JOB_PENDING: return &t->pending;
    case JOB_RUNNING: return &t->running;
    case JOB_COMPLETED: return &t->completed;
    case JOB_FAILED: return &t->failed;
    case JOB_CANCELLED: return &t->cancelled;
    case JOB_TIMEOUT: return &t->timeout;
    case JOB_NODE_FAIL: return &t->node_failed;
    case JOB_OUT_OF_MEMORY: return &t->oom;
    case JOB_PREEMPTED: return &t->preempted;
    case JOB_SUSPENDED: return &t->suspended;
    }
    return NULL;
}

static void tally_pending(const struct ctld *c, struct jtally *t, const struct job *j,
                          uint64_t n)
{
    uint64_t nodes = j->req.min_nodes > 0 ? (uint64_t)j->req.min_nodes : 1;
    t->pending += n - 1;   /* the state's own count added one */
    if (t->min_nodes < nodes)
        t->min_nodes = nodes;
    if (t->max_nodes < nodes)
        t->max_nodes = nodes;
    if (is_held(c, j)) {
        t->hold += n;
        return;
    }
    if (t->min_nodes_nohold < nodes)
        t->min_nodes_nohold = nodes;
    if (t->max_nodes_nohold < nodes)
        t->max_nodes_nohold = nodes;
}

void metrics_tally(const struct ctld *c, struct jtally *t, const struct job *j)
{
    uint64_t n = job_count_of(j);
    uint64_t *st = state_counter(t, j->state);
    if (n == 0)
        return;            /* an array whose tasks have all been split off */
    if (st)
        (*st)++;
    t->jobs += n;
    if (j->state == JOB_PENDING)
        tally_pending(c, t, j, n);
    else
        t->started++;
    if (job_is_finished(j))
        t->finished++;
    else
        t->active++;
    if (j->state != JOB_RUNNING && j->state != JOB_SUSPENDED)
        return;
    for (size_t k = 0; k < j->nallocs; k++) {
        t->cpus_alloc += (uint64_t)j->allocs[k].cpus;
        t->memory_alloc += j->allocs[k].mem_mb * 1024 * 1024;
        t->gpus_alloc += (uint64_t)__builtin_popcountll(j->allocs[k].gpu_mask);
    }
}

/* Marks the nodes a running job holds in bits (one byte a node); counts
 * those marked first. */
static void mark_nodes(uint8_t *bits, const struct job *j, uint64_t *count)
{
    if (j->state != JOB_RUNNING && j->state != JOB_SUSPENDED)
        return;
    for (size_t k = 0; k < j->nallocs; k++)
        if (!bits[j->allocs[k].node]++)
            (*count)++;
}

/* The pending jobs by the reason squeue shows: a handful of Slurm's reason
 * names, each a static string, so the walk compares pointers first. */
#define MAX_REASONS 64
struct reasons {
    const char *name[MAX_REASONS];
    uint64_t n[MAX_REASONS];
    size_t len;
};

static void reason_add(struct reasons *r, const char *name, uint64_t n)
{
    for (size_t i = 0; i < r->len; i++)
        if (r->name[i] == name || strcmp(r->name[i], name) == 0) {
            r->n[i] += n;
            return;
        }
    if (r->len == MAX_REASONS) {
        r->n[MAX_REASONS - 1] += n;
        return;
    }
    /* never with Slurm's list of reasons; keeps the series bounded */
    r->name[r->len] = r->len == MAX_REASONS - 1 ? "other" : name;
    r->n[r->len++] = n;
}

static void write_reasons(const struct reasons *r, struct evbuffer *b)
{
    om_family(b, "herd_jobs_pending_by_reason",
              "Pending jobs (array tasks counted) by the reason squeue shows", "gauge");
    for (size_t i = 0; i < r->len; i++)
        om_u64(b, "herd_jobs_pending_by_reason", "reason", r->name[i], r->n[i]);
}

void metrics_jobs(const struct ctld *c, struct evbuffer *b)
{
    struct jtally t = { 0 };
    struct reasons rs = { .len = 0 };
    uint8_t *nodes = xcalloc(c->nnodes ? c->nnodes : 1, 1);
    struct job_gpu_rows gr;
    metrics_job_gpus_begin(&gr);
    const struct job *j;
    JOB_FOREACH(c, j) {
        metrics_tally(c, &t, j);
        metrics_job_gpus_add(&gr, j);
        mark_nodes(nodes, j, &t.nodes_alloc);
        if (j->state == JOB_PENDING && job_count_of(j))
            reason_add(&rs, job_reason_name(c, j), job_count_of(j));
    }
    free(nodes);
    char name[96];
    for (size_t i = 0; i < NJFAMS; i++) {
        snprintf(name, sizeof name, "slurm_%s", jfams[i].name);
        om_gauge(b, name, jfams[i].help, get(&t, jfams[i].off));
    }
    write_reasons(&rs, b);
    metrics_job_gpus_end(&gr, b);
}

/* ---- users and accounts ---- */

struct ua {
    const char *name;      /* borrowed from the jobs: valid for the walk */
    struct jtally t;
    uint8_t *nodes;
};

struct ua_tab {
    struct ua *v;
    size_t n, cap;
    size_t *slot;          /* open addressing: index + 1, 0 empty */
    size_t nslot;
    size_t nnodes;
};

static size_t hash(const char *s)
{
    size_t h = 5381;
    while (*s)
        h = h * 33 + (unsigned char)*s++;
    return h;
}

static void ua_grow(struct ua_tab *t)
{
    free(t->slot);
    t->nslot = t->nslot ? t->nslot * 2 : 64;
    t->slot = xcalloc(t->nslot, sizeof *t->slot);
    for (size_t i = 0; i < t->n; i++) {
        size_t h = hash(t->v[i].name) & (t->nslot - 1);
        while (t->slot[h])
            h = (h + 1) & (t->nslot - 1);
        t->slot[h] = i + 1;
    }
}

static struct ua *ua_get(struct ua_tab *t, const char *name)
{
    if ((t->n + 1) * 2 > t->nslot)
        ua_grow(t);
    size_t h = hash(name) & (t->nslot - 1);
    for (; t->slot[h]; h = (h + 1) & (t->nslot - 1))
        if (strcmp(t->v[t->slot[h] - 1].name, name) == 0)
            return &t->v[t->slot[h] - 1];
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->slot[h] = t->n + 1;
    struct ua *u = &t->v[t->n++];
    *u = (struct ua){ .name = name, .nodes = xcalloc(t->nnodes ? t->nnodes : 1, 1) };
    return u;
}

static void ua_free(struct ua_tab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->v[i].nodes);
    free(t->v);
    free(t->slot);
}

static int ua_cmp(const void *a, const void *b)
{
    return strcmp(((const struct ua *)a)->name, ((const struct ua *)b)->name);
}

/* Slurm's families for one table: slurm_<pfx>_<name>{<key>="..."} */
static void ua_write(struct ua_tab *t, const char *pfx, const char *key, struct evbuffer *b)
{
    char name[96];
    qsort(t->v, t->n, sizeof *t->v, ua_cmp);   /* the hash slots are stale from here */
    for (size_t i = 0; i < NJFAMS && t->n; i++) {
        snprintf(name, sizeof name, "slurm_%s_%s", pfx, jfams[i].name);
        om_family(b, name, jfams[i].help, "gauge");
        for (size_t k = 0; k < t->n; k++)
            om_u64(b, name, key, t->v[k].name, get(&t->v[k].t, jfams[i].off));
    }
}

static void ua_add(struct ua_tab *t, const struct ctld *c, const struct job *j,
                   const char *name)
{
    struct ua *u = ua_get(t, name);
    metrics_tally(c, &u->t, j);
    mark_nodes(u->nodes, j, &u->t.nodes_alloc);
}

void metrics_users_accts(const struct ctld *c, struct evbuffer *b)
{
    struct ua_tab users = { .nnodes = c->nnodes }, accts = { .nnodes = c->nnodes };
    const struct job *j;
    JOB_FOREACH(c, j) {
        const char *acct = prio_job_account(c, j);
        ua_add(&users, c, j, j->user_name ? j->user_name : "");
        if (acct)
            ua_add(&accts, c, j, acct);
    }
    ua_write(&users, "user", "username", b);
    ua_write(&accts, "account", "account", b);
    ua_free(&users);
    ua_free(&accts);
    metrics_write_gpu_seconds(c->metrics, b, ctld_now());
    metrics_write_headroom(c, b);
}
