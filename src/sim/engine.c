/*
 * engine: the event loop on simulated time. The pending and running lists
 * are kept as the arrays struct sched_input borrows, so a pass costs no
 * copying: arrivals are inserted (owners before scavengers, each by
 * submission), starts are compacted out, ends are swap-removed. Within one
 * second, ends come first, then arrivals, then scheduling passes: another
 * one at once when the last removed victims or started a generated
 * scavenger, as the controller schedules again after a change. Per-user
 * limits (a QOS's MaxTRESPerUser=cpu and MaxJobsPerUser) are one
 * sched_limit per user, refreshed from the running jobs before each pass.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/engine.h"

void sim_run_remove(struct sim *s, size_t job)
{
    size_t pos = s->run_pos[job], last = s->nrun - 1;

    free((void *)s->run[pos].allocs);
    s->busy -= s->run[pos].nallocs;
    if (s->nusers && job < s->ntrace) {
        s->users[s->job_user[job]][0] -= s->jobs[job].procs;
        s->users[s->job_user[job]][1]--;
    }
    if (pos != last) {
        s->run[pos] = s->run[last];
        s->run_job[pos] = s->run_job[last];
        s->run_pos[s->run_job[pos]] = pos;
    }
    s->nrun--;
}

static void sim_complete(struct sim *s, size_t job, int64_t now)
{
    sim_run_remove(s, job);
    s->jobs[job].end = now;
    if (sim_maint_overlaps(s, s->jobs[job].start, now))
        s->r->maint_overlaps++;
    if (s->pred)
        sched_predict_learn(s->pred, (uint64_t)s->jobs[job].user,
                            s->o->predict == SIM_PREDICT_CLASS ? s->jobs[job].est : 0,
                            s->jobs[job].run, s->jobs[job].est);
}

static void pend_insert(struct sim *s, size_t at, const struct sched_job *j, size_t job)
{
    memmove(&s->pend[at + 1], &s->pend[at], (s->npend - at) * sizeof(*s->pend));
    memmove(&s->pend_job[at + 1], &s->pend_job[at], (s->npend - at) * sizeof(*s->pend_job));
    s->pend[at] = *j;
    s->pend_job[at] = job;
    s->npend++;
}

static int64_t sim_predict(struct sim *s, const struct sim_job *sj)
{
    switch (s->o->predict) {
    case SIM_PREDICT_CLASS:
        return sched_predict_job(s->pred, (uint64_t)sj->user, sj->est, sj->est, NULL);
    case SIM_PREDICT_USER:
        return sched_predict_job(s->pred, (uint64_t)sj->user, 0, sj->est, NULL);
    case SIM_PREDICT_EASYPP:
        return sched_predict_history(s->pred, (uint64_t)sj->user, 0, sj->est);
    case SIM_PREDICT_ESTIMATE:
        break;
    }
    return sj->est;
}

void sim_arrive(struct sim *s, size_t job)
{
    const struct sim_job *sj = &s->jobs[job];
    struct sched_job j = { 0 };
    int64_t est = sj->est;

    j.job_id = sj->id;
    j.min_nodes = (int)((sj->procs + s->cpn - 1) / s->cpn);
    j.ntasks = (int)sj->procs;
    j.time_limit_min = (est + 59) / 60;
    j.time_est_s = est;
    if (s->pred)
        j.predict_s = sim_predict(s, sj);
    s->plan_run[job] = est;
    if (s->pred && s->o->plan_predicted && j.predict_s > 0) {
        j.time_est_s = j.predict_s;
        s->plan_run[job] = j.predict_s;
    }
    if (s->nusers && job < s->ntrace) {
        j.limits = &s->job_user[job];
        j.nlimits = 1;
    }
    if (sj->scav) {
        pend_insert(s, s->npend, &j, job);
        return;
    }
    if (s->o->scav.preempt != SIM_PREEMPT_OFF)
        j.preempts = (uint64_t)1 << SIM_SCAV_CLASS;
    pend_insert(s, s->npend_owner++, &j, job);
}

static void sim_start(struct sim *s, size_t job, int64_t now, struct sched_decision *d)
{
    struct sim_job *sj = &s->jobs[job];
    struct sched_running *r = &s->run[s->nrun];

    sj->start = now;
    sj->end = now + sj->run;
    memset(r, 0, sizeof(*r));
    r->job_id = sj->id;
    r->allocs = d->allocs;         /* taken over from the output */
    r->nallocs = d->nallocs;
    s->busy += d->nallocs;
    if (s->nusers && job < s->ntrace) {
        s->users[s->job_user[job]][0] += sj->procs;
        s->users[s->job_user[job]][1]++;
    }
    r->end_time = now + s->plan_run[job];
    r->start_time = now;
    r->preempt_class = sj->scav ? SIM_SCAV_CLASS : 0;
    d->allocs = NULL;
    s->run_job[s->nrun] = job;
    s->run_pos[job] = s->nrun++;
    sim_heap_push(s, sj->end, job);
}

static void sim_refresh_limits(struct sim *s)
{
    for (size_t u = 0; u < s->nusers; u++) {
        int64_t *left = s->limits[u].left;
        for (int r = 0; r < SCHED_RES_N; r++)
            left[r] = s->limits[u].per_job[r] = -1;
        if (s->lim.procs_per_user)
            left[SCHED_RES_CPU] = s->lim.procs_per_user - s->users[u][0];
        if (s->lim.jobs_per_user)
            left[SCHED_RES_JOBS] = s->lim.jobs_per_user - s->users[u][1];
    }
}

struct sim_pass_res {
    size_t started, started_scav, removed;
};

static struct sim_pass_res sim_pass(struct sim *s, int64_t now)
{
    struct sched_input in = { .nodes = s->nodes, .nnodes = s->nnodes, .parts = &s->part,
                              .nparts = 1, .running = s->run, .nrunning = s->nrun,
                              .pending = s->pend, .npending = s->npend, .policy = s->pol,
                              .limits = s->limits, .nlimits = s->nusers };
    struct sched_output out = { 0 };
    struct sim_pass_res pr = { 0 };
    size_t k = 0, owners = 0;

    sim_refresh_limits(s);
    if (s->pred && s->o->plan_predicted)
        for (size_t i = 0; i < s->nrun; i++) {
            struct sched_running *r = &s->run[i];
            if (r->end_time <= now)   /* expired: Tsafrir's next step */
                r->end_time = r->start_time +
                              sched_predict_expired(r->end_time - r->start_time,
                                                    now - r->start_time,
                                                    s->jobs[s->run_job[i]].est);
        }
    if (s->pol == SCHED_POLICY_HERD) {
        in.age_bound_s = s->o->age_bound_s < 0 ? 0
                         : s->o->age_bound_s ? s->o->age_bound_s : SCHED_AGE_BOUND_DEFAULT_S;
        in.age_resv = s->o->age_resv < 0 ? 0
                      : s->o->age_resv ? (size_t)s->o->age_resv : SCHED_AGE_RESV_DEFAULT;
        for (size_t i = 0; i < s->npend; i++)
            s->pend[i].waited_s = now - s->jobs[s->pend_job[i]].submit;
    }
    if (s->o->maint.duration > 0) {
        sim_maint_refresh(s, now);
        in.resvs = s->resv;
        in.nresvs = s->nresv;
    }
    sched_plan(&in, now, &out);
    for (size_t i = 0; i < out.n; i++) {
        size_t job = s->pend_job[i];
        if (out.d[i].reason == SCHED_NONE && out.d[i].nallocs > 0) {
            sim_start(s, job, now, &out.d[i]);
            pr.started++;
            pr.started_scav += s->jobs[job].scav;
            continue;
        }
        owners += !s->jobs[job].scav;
        s->pend[k] = s->pend[i];
        s->pend_job[k++] = job;
    }
    s->npend = k;
    s->npend_owner = owners;
    /* After the compaction: a requeued victim joins the pending list. */
    for (size_t i = 0; i < out.n; i++)
        if (out.d[i].npreempt > 0)
            pr.removed += sim_preempt(s, &out.d[i], now);
    sched_output_free(&out);
    return pr;
}

/* Whether a pass could start anything. Skipping one that could not is only
 * a shortcut: with no job ended, the plan is the last pass's except for the
 * new arrivals (the smallest needs `need` nodes), unless a running job has
 * outlived its planned end, which moves the plan, or an owner waits while
 * a scavenger it may preempt runs. */
static bool sim_may_start(const struct sim *s, int64_t now, bool ended, int64_t need)
{
    size_t nfree = s->nnodes - s->busy;

    if (s->o->scav.preempt != SIM_PREEMPT_OFF && s->npend_owner > 0)
        for (size_t i = 0; i < s->nrun; i++)
            if (s->run[i].preempt_class == SIM_SCAV_CLASS && !s->run[i].preempting)
                return true;
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

/* Room for one more job (a stream's); its index. */
size_t sim_add_job(struct sim *s, const struct sim_job *j)
{
    if (s->n == s->cap) {
        s->cap = 2 * s->cap;
        s->jobs = xrealloc(s->jobs, s->cap * sizeof(*s->jobs));
        s->pend = xrealloc(s->pend, s->cap * sizeof(*s->pend));
        s->pend_job = xrealloc(s->pend_job, s->cap * sizeof(*s->pend_job));
        s->run = xrealloc(s->run, s->cap * sizeof(*s->run));
        s->run_job = xrealloc(s->run_job, s->cap * sizeof(*s->run_job));
        s->run_pos = xrealloc(s->run_pos, s->cap * sizeof(*s->run_pos));
        s->plan_run = xrealloc(s->plan_run, s->cap * sizeof(*s->plan_run));
    }
    s->jobs[s->n] = *j;
    return s->n++;
}

static void sim_init(struct sim *s, struct sim_job *jobs, size_t n, int64_t procs,
                     const struct sim_opts *o)
{
    memset(s, 0, sizeof(*s));
    s->jobs = jobs;
    s->n = s->ntrace = n;
    s->cap = n ? n : 1;
    s->o = o;
    s->pol = o->policy;
    s->cpn = o->cpus_per_node > 0 ? o->cpus_per_node : 1;
    s->nnodes = (size_t)((procs + s->cpn - 1) / s->cpn);
    s->nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->nodes));
    s->part_nodes = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->part_nodes));
    for (size_t i = 0; i < s->nnodes; i++) {
        s->nodes[i] = (struct sched_node){ .name = "sim", .cpus = s->cpn, .avail = true };
        s->part_nodes[i] = i;
    }
    s->part = (struct sched_part){ .name = "sim", .nodes = s->part_nodes,
                                   .nnodes = s->nnodes, .max_time_min = -1, .up = true };
    s->pend = xcalloc(s->cap, sizeof(*s->pend));
    s->pend_job = xcalloc(s->cap, sizeof(*s->pend_job));
    s->run = xcalloc(s->cap, sizeof(*s->run));
    s->run_job = xcalloc(s->cap, sizeof(*s->run_job));
    s->run_pos = xcalloc(s->cap, sizeof(*s->run_pos));
    s->plan_run = xcalloc(s->cap, sizeof(*s->plan_run));
    if (s->pol == SCHED_POLICY_HERD)
        s->pred = sched_predict_new();
    s->t0 = n ? jobs[0].submit : 0;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].id >= s->next_id)
            s->next_id = jobs[i].id + 1;
        if (!jobs[i].scav)
            s->stream_end = jobs[i].submit;
    }
    s->rng = o->scav.seed;
    sim_maint_init(s);
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
    sim_maint_fini(s);
}

/* The next event's time: an arrival, a run's end, or (while jobs wait) a
 * maintenance window's end; INT64_MAX when nothing is left. The ends of
 * runs cut short are dropped here: they are no event. */
static int64_t sim_next_time(struct sim *s, size_t next, int64_t last, bool *window)
{
    int64_t t = INT64_MAX;

    while (s->nheap > 0 && !sim_heap_live(s, &s->heap[0]))
        sim_heap_pop(s);

    if (next < s->ntrace)
        t = s->jobs[next].submit;
    if (s->nheap > 0 && s->heap[0].t < t)
        t = s->heap[0].t;
    *window = false;
    if (s->npend > 0 && s->o->maint.duration > 0) {
        int64_t w = sim_maint_next_end(s, last);
        if (w <= t) {
            t = w;
            *window = true;
        }
    }
    return t;
}

/* Ends at t: completions, and victims whose grace is over. */
static bool sim_ends(struct sim *s, int64_t t)
{
    bool ended = false;

    while (s->nheap > 0 && s->heap[0].t <= t) {
        struct sim_ev e = sim_heap_pop(s);
        if (!sim_heap_live(s, &e))
            continue;
        if (s->jobs[e.job].stopping)
            sim_preempt_stop(s, e.job, t);
        else
            sim_complete(s, e.job, t);
        ended = true;
    }
    return ended;
}

/* The passes at t: again while the last freed or filled something that
 * another pass at the same second could use, but never more than
 * SIM_MAX_PASSES: a preemptor whose free resources a lower job takes in the
 * same pass chooses new victims in the next, for ever. */
#define SIM_MAX_PASSES 16

static size_t sim_passes(struct sim *s, int64_t t, bool ended, int64_t need)
{
    size_t passes = 0;

    for (; passes < SIM_MAX_PASSES; ) {
        if (sim_stream_topup(s, t) > 0)
            need = 1;
        if (s->npend == 0 || !sim_may_start(s, t, ended, need))
            break;
        struct sim_pass_res pr = sim_pass(s, t);
        passes++;
        if (pr.removed == 0 && (pr.started_scav == 0 || s->o->scav.stream == 0))
            break;
        ended = pr.removed > 0;
        need = INT64_MAX;
    }
    return passes;
}

void sim_replay(struct sim_job **jobs, size_t *n, int64_t procs, const struct sim_opts *o,
                struct sim_result *r)
{
    struct sim s;
    size_t next = 0, idle = 0;
    int64_t last = INT64_MIN;

    sim_init(&s, *jobs, *n, procs, o);
    s.r = r;
    if (o->limits.procs_per_user || o->limits.jobs_per_user) {
        s.lim = o->limits;
        sim_users(&s);
    }
    for (;;) {
        bool window;
        int64_t t = sim_next_time(&s, next, last, &window), need = INT64_MAX;
        if (t == INT64_MAX)
            break;
        bool ended = sim_ends(&s, t) || window;
        while (next < s.ntrace && s.jobs[next].submit <= t) {
            int64_t nodes = (s.jobs[next].procs + s.cpn - 1) / s.cpn;
            sim_arrive(&s, next++);
            if (nodes < need)
                need = nodes;
        }
        size_t running = s.nrun;
        r->passes += sim_passes(&s, t, ended, need);
        /* Jobs no window's end lets start (none should: they were refused)
         * would wait through every later window. */
        idle = window && next == s.ntrace && running == 0 && s.nrun == 0 ? idle + 1 : 0;
        if (idle > 2)
            break;
        last = t;
    }
    r->maint_windows = sim_maint_count(&s);
    sim_fini(&s);
    *jobs = s.jobs;
    *n = s.n;
}
