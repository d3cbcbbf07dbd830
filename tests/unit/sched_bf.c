/* Unit tests of backfill in the scheduling core: hand-checked scenarios on
 * both models (general nodes with GPUs, a pool of 1-CPU nodes), and replays
 * in which every job runs exactly its time limit, so that the plan's start
 * estimates must come true and no reservation may ever slip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"

#define MAXN 32
#define MAXJ 64

struct cl {
    struct sched_node nodes[MAXN];
    size_t nnodes, part_nodes[MAXN];
    struct sched_part part;
    struct sched_running run[MAXJ];
    struct sched_alloc run_alloc[MAXJ][MAXN];
    size_t nrun;
    struct sched_job jobs[MAXJ];
    size_t njobs;
    struct sched_input in;
    struct sched_output out;
};

static void cl_init(struct cl *c, size_t nnodes, int cpus, int gpus, enum sched_policy pol)
{
    sched_output_free(&c->out);
    memset(c, 0, sizeof(*c));
    c->nnodes = nnodes;
    for (size_t i = 0; i < nnodes; i++) {
        c->nodes[i] = (struct sched_node){ "n", cpus, 0, gpus, NULL, true, 1, NULL };
        c->part_nodes[i] = i;
    }
    c->part = (struct sched_part){ "p", c->part_nodes, nnodes, -1, true };
    c->in.policy = pol;
}

/* A running job holding `cpus` and GPU mask on each of nodes [first, first+n). */
static void cl_running(struct cl *c, size_t first, size_t n, int cpus, uint64_t mask, int64_t end)
{
    struct sched_running *r = &c->run[c->nrun];
    for (size_t i = 0; i < n; i++)
        c->run_alloc[c->nrun][i] = (struct sched_alloc){ first + i, cpus, 0, mask };
    r->job_id = 900 + c->nrun;
    r->allocs = c->run_alloc[c->nrun];
    r->nallocs = n;
    r->end_time = end;
    c->nrun++;
}

static struct sched_job *cl_job(struct cl *c, int nodes, int ntasks, int gpn, int64_t limit_s)
{
    struct sched_job *j = &c->jobs[c->njobs];
    memset(j, 0, sizeof(*j));
    j->job_id = c->njobs + 1;
    j->min_nodes = nodes;
    j->ntasks = ntasks;
    j->gpus_per_node = gpn;
    j->time_limit_min = (limit_s + 59) / 60;
    j->time_est_s = limit_s;
    c->njobs++;
    return j;
}

static void cl_plan(struct cl *c, int64_t now)
{
    sched_output_free(&c->out);
    c->in.nodes = c->nodes;
    c->in.nnodes = c->nnodes;
    c->in.parts = &c->part;
    c->in.nparts = 1;
    c->in.running = c->run;
    c->in.nrunning = c->nrun;
    c->in.pending = c->jobs;
    c->in.npending = c->njobs;
    sched_plan(&c->in, now, &c->out);
    assert_int_equal(c->out.n, c->njobs);
}

#define D(c, i) (&(c)->out.d[(i)])

/* 4 one-CPU nodes, node 0 busy until 100. J1 (4 nodes) is reserved at 100;
 * J2 (1 node, 200 s) would delay it; J3 (2 nodes, 100 s) and J4 (1 node,
 * 50 s) fit in front of it. */
static void easy_scenario(struct cl *c, enum sched_policy pol, int gpus)
{
    cl_init(c, 4, 1, gpus, pol);
    cl_running(c, 0, 1, 1, 0, 100);
    cl_job(c, 4, 4, 0, 100);
    cl_job(c, 1, 1, 0, 200);
    cl_job(c, 2, 2, 0, 100);
    cl_job(c, 1, 1, 0, 50);
    cl_plan(c, 0);
}

static void check_easy(struct cl *c, int64_t j2_estimate)
{
    assert_int_equal(D(c, 0)->reason, SCHED_RESOURCES);
    assert_int_equal(D(c, 0)->start_estimate, 100);
    assert_int_equal(D(c, 1)->reason, SCHED_PRIORITY);
    /* EASY reserves for J1 alone; J2 gets a forecast: after J1, at 200 */
    assert_int_equal(D(c, 1)->start_estimate, j2_estimate < 0 ? 200 : j2_estimate);
    assert_int_equal(D(c, 1)->forecast, j2_estimate < 0);
    assert_int_equal(D(c, 2)->reason, SCHED_NONE);
    assert_int_equal(D(c, 2)->start_estimate, 0);
    assert_int_equal(D(c, 2)->nallocs, 2);
    assert_int_equal(D(c, 3)->reason, SCHED_NONE);
    assert_int_equal(D(c, 3)->nallocs, 1);
    /* Nodes 1..3 between them, each once. */
    size_t seen = 0;
    for (size_t i = 2; i < 4; i++)
        for (size_t k = 0; k < D(c, i)->nallocs; k++) {
            size_t n = D(c, i)->allocs[k].node;
            assert_true(n >= 1 && n <= 3);
            assert_false(seen & (1u << n));
            seen |= 1u << n;
        }
}

static void test_easy_pool(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    easy_scenario(c, SCHED_POLICY_EASY, 0);
    check_easy(c, -1);
    sched_output_free(&c->out);
    test_free(c);
}

/* The same on nodes with a GPU each: the general model. */
static void test_easy_general(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    easy_scenario(c, SCHED_POLICY_EASY, 1);
    check_easy(c, -1);
    sched_output_free(&c->out);
    test_free(c);
}

/* Conservative: J2 gets a reservation too, after J1 (100 + 100). */
static void test_conservative_estimates(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    easy_scenario(c, SCHED_POLICY_BACKFILL, 0);
    check_easy(c, 200);
    easy_scenario(c, SCHED_POLICY_BACKFILL, 1);
    check_easy(c, 200);
    sched_output_free(&c->out);
    test_free(c);
}

/* FIFO (the zero policy) starts nothing behind a blocked job. */
static void test_fifo_unchanged(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    easy_scenario(c, SCHED_POLICY_FIFO, 0);
    assert_int_equal(D(c, 0)->reason, SCHED_RESOURCES);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(D(c, i)->reason, SCHED_PRIORITY);
    /* No reservations, but every job a forecast: J0 takes all 4 nodes when
     * the running job ends at 100, the others follow when it ends at 200. */
    assert_int_equal(D(c, 0)->start_estimate, 100);
    for (size_t i = 0; i < 4; i++)
        assert_true(D(c, i)->forecast);
    for (size_t i = 1; i < 4; i++)
        assert_int_equal(D(c, i)->start_estimate, 200);
    sched_output_free(&c->out);
    test_free(c);
}

/* GPU indices: 6 of 8 busy until 100. An 8-GPU job is reserved at 100; a
 * 2-GPU job of 200 s would delay it; one of 60 s gets GPUs 6 and 7 now. */
static void test_gpu_backfill(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    cl_init(c, 1, 64, 8, SCHED_POLICY_EASY);
    cl_running(c, 0, 1, 6, 0x3f, 100);
    cl_job(c, 1, 8, 8, 3600);
    cl_job(c, 1, 2, 2, 200);
    cl_job(c, 1, 2, 2, 60);
    cl_plan(c, 0);
    assert_int_equal(D(c, 0)->start_estimate, 100);
    assert_int_equal(D(c, 1)->reason, SCHED_PRIORITY);
    assert_int_equal(D(c, 2)->reason, SCHED_NONE);
    assert_int_equal(D(c, 2)->allocs[0].gpu_mask, 0xc0);
    sched_output_free(&c->out);
    test_free(c);
}

/* HERD tries the shortest candidate first: with one node free until a
 * reservation at 100, a 90 s job queued after a 50 s one loses to it... and
 * the 50 s job, queued later, goes first. */
static void test_herd_shortest_first(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    cl_init(c, 2, 1, 0, SCHED_POLICY_HERD);
    cl_running(c, 0, 1, 1, 0, 100);
    cl_job(c, 2, 2, 0, 100);
    cl_job(c, 1, 1, 0, 90);
    cl_job(c, 1, 1, 0, 50);
    cl_plan(c, 0);
    assert_int_equal(D(c, 0)->start_estimate, 100);
    assert_int_equal(D(c, 1)->reason, SCHED_PRIORITY);
    assert_int_equal(D(c, 2)->reason, SCHED_NONE);
    c->in.policy = SCHED_POLICY_EASY;
    cl_plan(c, 0);
    assert_int_equal(D(c, 1)->reason, SCHED_NONE);
    assert_int_equal(D(c, 2)->reason, SCHED_PRIORITY);
    sched_output_free(&c->out);
    test_free(c);
}

/* A reservation bounded by the window, and depth. */
static void test_window_and_depth(void **state)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    (void)state;
    easy_scenario(c, SCHED_POLICY_BACKFILL, 1);
    c->in.bf_window_s = 150;         /* J1 at 100 fits in it, J2 at 200 does not */
    cl_plan(c, 0);
    assert_int_equal(D(c, 0)->start_estimate, 100);
    assert_false(D(c, 0)->forecast);
    assert_true(D(c, 1)->forecast);   /* no reservation past the window, a forecast */
    assert_int_equal(D(c, 2)->reason, SCHED_NONE);
    c->in.bf_window_s = 0;
    c->in.bf_max_job_test = 1;       /* J2 is tested, J3 and J4 are not */
    cl_plan(c, 0);
    assert_int_equal(D(c, 1)->start_estimate, 200);
    assert_int_equal(D(c, 2)->reason, SCHED_PRIORITY);
    assert_int_equal(D(c, 3)->reason, SCHED_PRIORITY);
    c->in.bf_max_job_test = 0;
    c->in.bf_resolution_s = 60;      /* 100 rounds up to 120 */
    cl_plan(c, 0);
    assert_int_equal(D(c, 0)->start_estimate, 120);
    sched_output_free(&c->out);
    test_free(c);
}

/* Replays: every job is submitted at 0 and runs exactly its limit. */
struct rp_job {
    struct sched_job req;
    struct sched_alloc alloc[MAXN];
    size_t nalloc;
    int64_t start, end, promised;
};

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return (*s >> 16) & 0x7fff;
}

static void rp_jobs(struct rp_job *jobs, size_t n, size_t nnodes, int gpus, uint32_t seed)
{
    for (size_t i = 0; i < n; i++) {
        struct sched_job *j = &jobs[i].req;
        int nodes = 1 + (int)(rnd(&seed) % (gpus ? 2 : nnodes));
        memset(&jobs[i], 0, sizeof(jobs[i]));
        j->job_id = i + 1;
        j->min_nodes = nodes;
        j->ntasks = gpus ? nodes * (1 + (int)(rnd(&seed) % 8)) : nodes;
        j->gpus_per_node = gpus ? (int)(rnd(&seed) % (unsigned)(gpus + 1)) : 0;
        j->time_est_s = 60 * (1 + rnd(&seed) % 20);
        j->time_limit_min = j->time_est_s / 60;
        jobs[i].start = jobs[i].end = jobs[i].promised = -1;
    }
}

/* No node's CPUs overcommitted, no GPU index given twice, at `now`. */
static void rp_check_use(struct cl *c, const struct rp_job *jobs, size_t n, int64_t now)
{
    int64_t cpus[MAXN] = { 0 };
    uint64_t gpus[MAXN] = { 0 };

    for (size_t i = 0; i < n; i++) {
        if (jobs[i].start < 0 || jobs[i].start > now || jobs[i].end <= now)
            continue;
        for (size_t k = 0; k < jobs[i].nalloc; k++) {
            const struct sched_alloc *a = &jobs[i].alloc[k];
            cpus[a->node] += a->cpus;
            assert_int_equal(gpus[a->node] & a->gpu_mask, 0);
            gpus[a->node] |= a->gpu_mask;
        }
    }
    for (size_t i = 0; i < c->nnodes; i++)
        assert_true(cpus[i] <= c->nodes[i].cpus);
}

/* A promise once made is kept. With counts of identical nodes (the pool)
 * every estimate comes true to the second. On the general model a job that
 * starts may pick other nodes than its reservation had (what was backfilled
 * meanwhile changes the best fit), which can push later reservations back,
 * as in Slurm; there the first blocked job's estimate only ever moves
 * earlier, and it starts no later than promised. */
static void rp_promise(struct cl *c, struct rp_job *j, const struct sched_decision *d)
{
    bool pool = c->nodes[0].gpus == 0;

    if (d->start_estimate < 0 || d->forecast || (!pool && d->reason != SCHED_RESOURCES))
        return;
    if (j->promised < 0) {
        j->promised = d->start_estimate;
        return;
    }
    if (pool)
        assert_int_equal(d->start_estimate, j->promised);
    else
        assert_true(d->start_estimate <= j->promised);
    j->promised = d->start_estimate;
}

static void rp_pass(struct cl *c, struct rp_job *jobs, size_t n, int64_t now, size_t *idx)
{
    c->nrun = c->njobs = 0;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].start >= 0 && jobs[i].end > now) {
            c->run[c->nrun] = (struct sched_running){ .job_id = jobs[i].req.job_id, .allocs = jobs[i].alloc, .nallocs = jobs[i].nalloc, .exclusive = false, .end_time = jobs[i].end };
            c->nrun++;
        } else if (jobs[i].start < 0) {
            idx[c->njobs] = i;
            c->jobs[c->njobs++] = jobs[i].req;
        }
    }
    cl_plan(c, now);
    for (size_t k = 0; k < c->out.n; k++) {
        struct rp_job *j = &jobs[idx[k]];
        const struct sched_decision *d = D(c, k);
        if (d->reason != SCHED_NONE) {
            rp_promise(c, j, d);
            continue;
        }
        if (j->promised >= 0)
            assert_true(now <= j->promised);
        if (j->promised >= 0 && c->nodes[0].gpus == 0)
            assert_int_equal(now, j->promised);
        assert_true(d->nallocs <= MAXN);
        memcpy(j->alloc, d->allocs, d->nallocs * sizeof(*d->allocs));
        j->nalloc = d->nallocs;
        j->start = now;
        j->end = now + j->req.time_est_s;
    }
}

static void replay(enum sched_policy pol, size_t nnodes, int cpus, int gpus, uint32_t seed)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    struct rp_job jobs[24];
    size_t idx[24], n = 24, done = 0;
    int64_t now = 0;

    cl_init(c, nnodes, cpus, gpus, pol);
    rp_jobs(jobs, n, nnodes, gpus, seed);
    while (done < n) {
        int64_t next = INT64_MAX;
        rp_pass(c, jobs, n, now, idx);
        rp_check_use(c, jobs, n, now);
        done = 0;
        for (size_t i = 0; i < n; i++) {
            if (jobs[i].start >= 0)
                done++;
            if (jobs[i].start >= 0 && jobs[i].end > now && jobs[i].end < next)
                next = jobs[i].end;
        }
        if (done < n) {
            assert_true(next != INT64_MAX);
            now = next;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (pol == SCHED_POLICY_BACKFILL && gpus == 0)
            assert_int_equal(jobs[i].start, jobs[i].promised >= 0 ? jobs[i].promised : 0);
    sched_output_free(&c->out);
    test_free(c);
}

static void test_replay_promises(void **state)
{
    enum sched_policy pols[] = { SCHED_POLICY_BACKFILL, SCHED_POLICY_EASY, SCHED_POLICY_HERD };
    (void)state;
    for (uint32_t seed = 1; seed <= 20; seed++)
        for (size_t p = 0; p < 3; p++) {
            replay(pols[p], 8, 1, 0, seed);      /* the pool model */
            replay(pols[p], 4, 8, 4, seed);      /* the general model */
        }
}

/* The predictor: the EASY++ history (mean of the last two runs, capped by
 * the estimate) where it has predicted better than the estimate, else the
 * estimate; the class's history before the user's. */
static void test_predict(void **state)
{
    struct sched_predict *p = sched_predict_new();
    enum sched_predict_src src;
    (void)state;
    assert_int_equal(sched_predict_job(p, 7, 0, 3600, &src), 3600);
    assert_int_equal(src, SCHED_PREDICT_ESTIMATE);
    /* User 7 repeats a job of about 100 s under a 1 h limit. */
    sched_predict_learn(p, 7, 0, 100, 3600);
    assert_int_equal(sched_predict_job(p, 7, 0, 3600, &src), 3600);   /* not scored yet */
    sched_predict_learn(p, 7, 0, 110, 3600);
    sched_predict_learn(p, 7, 0, 90, 3600);
    assert_int_equal(sched_predict_job(p, 7, 0, 3600, &src), 100);
    assert_int_equal(src, SCHED_PREDICT_USER);
    assert_int_equal(sched_predict_job(p, 7, 0, 60, NULL), 60);        /* never past the limit */
    assert_int_equal(sched_predict_history(p, 7, 0, 3600), 100);
    /* User 8's runs say nothing of the next one, and the estimates are
     * close: the estimate it is (the fallback). */
    static const int64_t runs[] = { 60, 6000, 300, 9000, 120, 4000, 30, 7000 };
    for (size_t i = 0; i < sizeof(runs) / sizeof(*runs); i++)
        sched_predict_learn(p, 8, 0, runs[i], runs[i] + runs[i] / 10);
    assert_int_equal(sched_predict_job(p, 8, 0, 500, &src), 500);
    assert_int_equal(src, SCHED_PREDICT_ESTIMATE);
    assert_int_equal(sched_predict_history(p, 8, 0, 100000), 3515);   /* what EASY++ says */
    /* User 9 alternates two scripts (the class: the requested time): the
     * user's history mixes them, each class's predicts its own. */
    for (int i = 0; i < 6; i++) {
        sched_predict_learn(p, 9, 1000, 100 + i, 1000);
        sched_predict_learn(p, 9, 50000, 40000 + i, 50000);
    }
    assert_int_equal(sched_predict_job(p, 9, 1000, 1000, &src), 105);
    assert_int_equal(src, SCHED_PREDICT_CLASS);
    assert_int_equal(sched_predict_job(p, 9, 50000, 50000, &src), 40005);
    assert_int_equal(src, SCHED_PREDICT_CLASS);
    /* The table grows. */
    for (uint64_t u = 100; u < 1100; u++)
        sched_predict_learn(p, u, 0, (int64_t)u, 2 * (int64_t)u);
    assert_int_equal(sched_predict_job(p, 7, 0, 3600, NULL), 100);
    assert_int_equal(sched_predict_job(p, 1099, 0, 5000, NULL), 5000);   /* one run: unscored */
    sched_predict_free(p);
    sched_predict_free(NULL);
}

/* Correction on expiry: Tsafrir's steps until the prediction lies ahead,
 * never past an estimate that lies ahead. */
static void test_predict_expired(void **state)
{
    (void)state;
    assert_int_equal(sched_predict_expired(100, 50, 3600), 100);    /* not expired */
    assert_int_equal(sched_predict_expired(100, 100, 3600), 160);
    assert_int_equal(sched_predict_expired(100, 160, 3600), 460);
    assert_int_equal(sched_predict_expired(100, 1000, 3600), 1360);
    assert_int_equal(sched_predict_expired(100, 2000, 3600), 3160);
    assert_int_equal(sched_predict_expired(100, 3200, 3600), 3600);  /* the estimate */
    assert_int_equal(sched_predict_expired(100, 5000, 3600), 6760);  /* overran it */
    assert_int_equal(sched_predict_expired(0, 0, 0), 1);
    for (int64_t e = 0; e < 200000; e += 977)
        assert_true(sched_predict_expired(30, e, 100000) > e);
}

/* The starvation guard: a 4-node job behind a stream of 1-node jobs of
 * higher priority (two every 10 s, 40 s each, on 4 nodes: the queue
 * grows, a short job is always the first blocked one) never starts
 * under EASY's single reservation; past the age bound it is reserved before
 * anything else, its planned start never recedes, and it starts by it. */
static void guard_run(int64_t bound, int64_t *l_start, bool *recedes, int64_t *first_est)
{
    struct cl *c = test_calloc(1, sizeof(*c));
    int64_t submit[512];
    uint64_t next_id = 2;
    cl_init(c, 4, 1, 0, SCHED_POLICY_HERD);
    c->in.age_bound_s = bound;
    c->in.age_resv = 1;
    cl_job(c, 4, 4, 0, 100);   /* job 1 */
    submit[1] = 0;
    *l_start = -1;
    *recedes = false;
    *first_est = -1;
    for (int64_t t = 0; t <= 500 && *l_start < 0; t += 10) {
        size_t k = 0;
        for (size_t r = 0; r < c->nrun; r++) {
            if (c->run[r].end_time <= t)
                continue;
            c->run[k] = c->run[r];
            memcpy(c->run_alloc[k], c->run_alloc[r], sizeof(c->run_alloc[k]));
            c->run[k].allocs = c->run_alloc[k];
            k++;
        }
        c->nrun = k;
        for (int a = 0; a < 2; a++) {
            assert_true(c->njobs < MAXJ && next_id < 512);
            memmove(&c->jobs[1], &c->jobs[0], c->njobs * sizeof(c->jobs[0]));
            c->njobs++;
            c->jobs[0] = (struct sched_job){ .job_id = next_id, .min_nodes = 1, .ntasks = 1,
                                             .time_limit_min = 1, .time_est_s = 40 };
            submit[next_id++] = t;
        }
        for (size_t i = 0; i < c->njobs; i++)
            c->jobs[i].waited_s = t - submit[c->jobs[i].job_id];
        cl_plan(c, t);
        k = 0;
        for (size_t i = 0; i < c->njobs; i++) {
            const struct sched_decision *d = D(c, i);
            struct sched_job *j = &c->jobs[i];
            if (d->reason == SCHED_NONE && d->nallocs > 0) {
                struct sched_running *r = &c->run[c->nrun];
                memset(r, 0, sizeof(*r));
                memcpy(c->run_alloc[c->nrun], d->allocs, d->nallocs * sizeof(*d->allocs));
                r->job_id = j->job_id;
                r->allocs = c->run_alloc[c->nrun];
                r->nallocs = d->nallocs;
                r->start_time = t;
                r->end_time = t + j->time_est_s;
                c->nrun++;
                if (j->job_id == 1)
                    *l_start = t;
                continue;
            }
            if (j->job_id == 1 && bound > 0 && j->waited_s >= bound) {
                assert_true(d->start_estimate >= t);
                if (*first_est < 0)
                    *first_est = d->start_estimate;
                else if (d->start_estimate > *first_est)
                    *recedes = true;
            }
            c->jobs[k++] = *j;
        }
        c->njobs = k;
    }
    sched_output_free(&c->out);
    test_free(c);
}

static void test_herd_age_guard(void **state)
{
    int64_t start, est;
    bool recedes;
    (void)state;
    guard_run(0, &start, &recedes, &est);
    assert_int_equal(start, -1);                 /* no guard: starved for 500 s */
    guard_run(200, &start, &recedes, &est);
    assert_false(recedes);
    assert_true(est >= 200 && est <= 200 + 40);  /* the running 40 s jobs end by then */
    assert_true(start >= 200 && start <= est);
}

static void test_policy_names(void **state)
{
    enum sched_policy p;
    (void)state;
    assert_true(sched_policy_parse("easy", &p) && p == SCHED_POLICY_EASY);
    assert_true(sched_policy_parse("fcfs", &p) && p == SCHED_POLICY_FIFO);
    assert_true(sched_policy_parse("conservative", &p) && p == SCHED_POLICY_BACKFILL);
    assert_true(sched_policy_parse("herd", &p) && p == SCHED_POLICY_HERD);
    assert_false(sched_policy_parse("nope", &p));
    assert_string_equal(sched_policy_name(SCHED_POLICY_HERD), "herd");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_easy_pool),
        cmocka_unit_test(test_easy_general),
        cmocka_unit_test(test_conservative_estimates),
        cmocka_unit_test(test_fifo_unchanged),
        cmocka_unit_test(test_gpu_backfill),
        cmocka_unit_test(test_herd_shortest_first),
        cmocka_unit_test(test_window_and_depth),
        cmocka_unit_test(test_replay_promises),
        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_predict_expired),
        cmocka_unit_test(test_herd_age_guard),
        cmocka_unit_test(test_policy_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
