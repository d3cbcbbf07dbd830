/*
 * engine: the event loop on simulated time. The pending and running lists
 * are kept as the arrays struct sched_input borrows, so a pass costs no
 * copying: arrivals append (submit order is priority order), starts are
 * compacted out, ends are swap-removed. Within one second, ends come first,
 * then arrivals, then one scheduling pass. Per-user limits (a QOS's
 * MaxTRESPerUser=cpu and MaxJobsPerUser) are one sched_limit per user,
 * refreshed from the running jobs before each pass.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/sim.h"

struct sim {
    struct sim_job *jobs;
    size_t n;
    enum sched_policy pol;
    struct sched_node *nodes;
    size_t nnodes;
    int cpn;
    struct sched_part part;
    size_t *part_nodes;
    struct sched_job *pend;
    size_t *pend_job, npend;
    struct sched_running *run;
    size_t *run_job, nrun;
    size_t *run_pos;               /* per job: its index in run */
    int64_t *plan_run;             /* per job: the run time planned on */
    size_t *heap, nheap;           /* running jobs by end */
    struct sched_predict *pred;
    size_t busy;                   /* nodes held by running jobs */
    struct sim_limits lim;
    uint32_t *job_user;            /* per job: its user's index into users and limits */
    int64_t (*users)[2];           /* per user: processors and jobs running */
    struct sched_limit *limits;
    size_t nusers;
};

static bool heap_less(const struct sim *s, size_t a, size_t b)
{
    return s->jobs[s->heap[a]].end < s->jobs[s->heap[b]].end;
}

static void heap_swap(struct sim *s, size_t a, size_t b)
{
    size_t t = s->heap[a];
    s->heap[a] = s->heap[b];
    s->heap[b] = t;
}

static void heap_push(struct sim *s, size_t job)
{
    size_t i = s->nheap++;

    s->heap[i] = job;
    while (i > 0 && heap_less(s, i, (i - 1) / 2)) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static size_t heap_pop(struct sim *s)
{
    size_t top = s->heap[0], i = 0;

    s->heap[0] = s->heap[--s->nheap];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && heap_less(s, l, m))
            m = l;
        if (r < s->nheap && heap_less(s, r, m))
            m = r;
        if (m == i)
            break;
        heap_swap(s, i, m);
        i = m;
    }
    return top;
}

static void sim_end(struct sim *s, size_t job)
{
    size_t pos = s->run_pos[job], last = s->nrun - 1;

    free((void *)s->run[pos].allocs);
    s->busy -= s->run[pos].nallocs;
    if (s->nusers) {
        s->users[s->job_user[job]][0] -= s->jobs[job].procs;
        s->users[s->job_user[job]][1]--;
    }
    if (pos != last) {
        s->run[pos] = s->run[last];
        s->run_job[pos] = s->run_job[last];
        s->run_pos[s->run_job[pos]] = pos;
    }
    s->nrun--;
    if (s->pred)
        sched_predict_done(s->pred, (uint64_t)s->jobs[job].user, s->jobs[job].run);
}

static void sim_arrive(struct sim *s, size_t job)
{
    const struct sim_job *sj = &s->jobs[job];
    struct sched_job *j = &s->pend[s->npend];
    int64_t est = sj->est;

    memset(j, 0, sizeof(*j));
    j->job_id = sj->id;
    j->min_nodes = (int)((sj->procs + s->cpn - 1) / s->cpn);
    j->ntasks = (int)sj->procs;
    j->time_limit_min = (est + 59) / 60;
    j->time_est_s = est;
    if (s->pred)
        j->predict_s = sched_predict_run(s->pred, (uint64_t)sj->user, est);
    s->plan_run[job] = est;
    if (s->nusers) {
        j->limits = &s->job_user[job];
        j->nlimits = 1;
    }
    s->pend_job[s->npend++] = job;
}

static void sim_start(struct sim *s, size_t job, int64_t now, struct sched_decision *d)
{
    struct sim_job *sj = &s->jobs[job];
    struct sched_running *r = &s->run[s->nrun];

    sj->start = now;
    sj->end = now + sj->run;
    r->job_id = sj->id;
    r->allocs = d->allocs;         /* taken over from the output */
    r->nallocs = d->nallocs;
    s->busy += d->nallocs;
    if (s->nusers) {
        s->users[s->job_user[job]][0] += sj->procs;
        s->users[s->job_user[job]][1]++;
    }
    r->exclusive = false;
    r->end_time = now + s->plan_run[job];
    d->allocs = NULL;
    s->run_job[s->nrun] = job;
    s->run_pos[job] = s->nrun++;
    heap_push(s, job);
}

static void sim_pass(struct sim *s, int64_t now)
{
    struct sched_input in = { .nodes = s->nodes, .nnodes = s->nnodes, .parts = &s->part,
                              .nparts = 1, .running = s->run, .nrunning = s->nrun,
                              .pending = s->pend, .npending = s->npend, .policy = s->pol,
                              .limits = s->limits, .nlimits = s->nusers };
    struct sched_output out = { 0 };
    size_t k = 0;

    for (size_t u = 0; u < s->nusers; u++) {
        int64_t *left = s->limits[u].left;
        for (int r = 0; r < SCHED_RES_N; r++)
            left[r] = s->limits[u].per_job[r] = -1;
        if (s->lim.procs_per_user)
            left[SCHED_RES_CPU] = s->lim.procs_per_user - s->users[u][0];
        if (s->lim.jobs_per_user)
            left[SCHED_RES_JOBS] = s->lim.jobs_per_user - s->users[u][1];
    }
    sched_plan(&in, now, &out);
    for (size_t i = 0; i < out.n; i++) {
        if (out.d[i].reason == SCHED_NONE && out.d[i].nallocs > 0) {
            sim_start(s, s->pend_job[i], now, &out.d[i]);
            continue;
        }
        s->pend[k] = s->pend[i];
        s->pend_job[k++] = s->pend_job[i];
    }
    s->npend = k;
    sched_output_free(&out);
}

/* Whether a pass could start anything. Skipping one that could not is only
 * a shortcut: with no job ended, the plan is the last pass's except for the
 * new arrivals (the smallest needs `need` nodes), unless a running job has
 * outlived its planned end, which moves the plan. */
static bool sim_may_start(const struct sim *s, int64_t now, bool ended, int64_t need)
{
    size_t nfree = s->nnodes - s->busy;

    if (nfree == 0)
        return false;
    if (ended || need <= (int64_t)nfree)
        return true;
    for (size_t i = 0; i < s->nrun; i++)
        if (s->run[i].end_time <= now)
            return true;
    return false;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Dense user indices for the per-user limits: the trace's user ids sorted. */
static void sim_users(struct sim *s)
{
    int64_t *ids = xcalloc(s->n ? s->n : 1, sizeof *ids);
    size_t nu = 0;
    for (size_t i = 0; i < s->n; i++)
        ids[i] = s->jobs[i].user;
    qsort(ids, s->n, sizeof *ids, cmp_i64);
    for (size_t i = 0; i < s->n; i++)
        if (nu == 0 || ids[nu - 1] != ids[i])
            ids[nu++] = ids[i];
    s->job_user = xcalloc(s->n ? s->n : 1, sizeof *s->job_user);
    for (size_t i = 0; i < s->n; i++) {
        int64_t *at = bsearch(&s->jobs[i].user, ids, nu, sizeof *ids, cmp_i64);
        s->job_user[i] = (uint32_t)(at - ids);
    }
    s->users = xcalloc(nu ? nu : 1, sizeof *s->users);
    s->limits = xcalloc(nu ? nu : 1, sizeof *s->limits);
    s->nusers = nu;
    free(ids);
}

static void sim_init(struct sim *s, struct sim_job *jobs, size_t n, int64_t procs, int cpn,
                     enum sched_policy pol)
{
    memset(s, 0, sizeof(*s));
    s->jobs = jobs;
    s->n = n;
    s->pol = pol;
    s->cpn = cpn > 0 ? cpn : 1;
    s->nnodes = (size_t)((procs + s->cpn - 1) / s->cpn);
    s->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->nodes));
    s->part_nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->part_nodes));
    for (size_t i = 0; i < s->nnodes; i++) {
        s->nodes[i] = (struct sched_node){ .name = "sim", .cpus = s->cpn, .avail = true };
        s->part_nodes[i] = i;
    }
    s->part = (struct sched_part){ .name = "sim", .nodes = s->part_nodes,
                                   .nnodes = s->nnodes, .max_time_min = -1, .up = true };
    s->pend = xcalloc(n ? n : 1, sizeof(*s->pend));
    s->pend_job = xcalloc(n ? n : 1, sizeof(*s->pend_job));
    s->run = xcalloc(n ? n : 1, sizeof(*s->run));
    s->run_job = xcalloc(n ? n : 1, sizeof(*s->run_job));
    s->run_pos = xcalloc(n ? n : 1, sizeof(*s->run_pos));
    s->plan_run = xcalloc(n ? n : 1, sizeof(*s->plan_run));
    s->heap = xcalloc(n ? n : 1, sizeof(*s->heap));
    if (pol == SCHED_POLICY_HERD)
        s->pred = sched_predict_new();
}

static void sim_fini(struct sim *s)
{
    for (size_t i = 0; i < s->nrun; i++)
        free((void *)s->run[i].allocs);
    free(s->nodes);
    free(s->part_nodes);
    free(s->pend);
    free(s->pend_job);
    free(s->run);
    free(s->run_job);
    free(s->run_pos);
    free(s->plan_run);
    free(s->heap);
    free(s->job_user);
    free(s->users);
    free(s->limits);
    sched_predict_free(s->pred);
}

size_t sim_replay(struct sim_job *jobs, size_t n, int64_t procs, int cpn, enum sched_policy pol,
                  const struct sim_limits *lim)
{
    struct sim s;
    size_t next = 0, passes = 0;

    sim_init(&s, jobs, n, procs, cpn, pol);
    if (lim && (lim->procs_per_user || lim->jobs_per_user)) {
        s.lim = *lim;
        sim_users(&s);
    }
    while (next < n || s.nheap > 0) {
        int64_t t = INT64_MAX, need = INT64_MAX;
        bool ended = false;
        if (next < n)
            t = jobs[next].submit;
        if (s.nheap > 0 && jobs[s.heap[0]].end < t)
            t = jobs[s.heap[0]].end;
        while (s.nheap > 0 && jobs[s.heap[0]].end <= t) {
            sim_end(&s, heap_pop(&s));
            ended = true;
        }
        while (next < n && jobs[next].submit <= t) {
            sim_arrive(&s, next++);
            if (s.pend[s.npend - 1].min_nodes < need)
                need = s.pend[s.npend - 1].min_nodes;
        }
        if (s.npend > 0 && sim_may_start(&s, t, ended, need)) {
            sim_pass(&s, t);
            passes++;
        }
    }
    sim_fini(&s);
    return passes;
}
