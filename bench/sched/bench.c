/*
 * bench/sched: one full scheduling pass with backfill on a synthetic GPU
 * cluster (nodes of 8 GPUs, 64 CPUs, 512 GiB), three quarters busy with
 * running jobs ending over the next day, and a queue of mixed jobs (1/8 to
 * 8 nodes' worth of GPUs, some CPU-only, limits from 10 minutes to 2 days).
 * Prints the time per pass and the peak memory. With USERS, every job
 * belongs to one of that many users, each held to 16 GPUs and 8 running
 * jobs (a QOS's MaxTRESPerUser and MaxJobsPerUser), the running jobs
 * counted against them: the cost of limits (LOOSE=1 in the environment:
 * caps no job reaches, so that the same jobs start and only the checks
 * cost). With PREEMPT=1, every other running job is scavenger work (a
 * preemptable class) and every pending job may preempt it: the cost of
 * choosing victims.
 * Usage: bench NODES PENDING POLICY [MAX_JOB_TEST [USERS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/xmalloc.h"
#include "sched/sched.h"

static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void make_job(struct sched_job *j, uint64_t id)
{
    static const int64_t limits[] = { 10, 30, 60, 120, 240, 720, 1440, 2880 };
    int kind = (int)(rnd() % 8);

    memset(j, 0, sizeof(*j));
    j->job_id = id;
    j->time_limit_min = limits[rnd() % 8];
    if (kind == 0) {                       /* CPU only */
        j->ntasks = 1 + (int)(rnd() % 32);
        j->mem_per_cpu_mb = 2048;
    } else if (kind <= 5) {                /* part of one node */
        j->gpus_per_node = 1 << (rnd() % 4);
        j->ntasks = j->gpus_per_node;
        j->cpus_per_task = 8;
        j->mem_per_gpu_mb = 32768;
    } else {                               /* whole nodes */
        j->min_nodes = 1 << (rnd() % 4);
        j->gpus_per_node = 8;
        j->ntasks_per_node = 8;
        j->cpus_per_task = 8;
        j->exclusive = kind == 7;
    }
}

/* One limit per user, what the running jobs leave of it; each pending job
 * counts against its user's. */
static struct sched_limit *user_limits(size_t users, const struct sched_running *run,
                                       size_t nrun, struct sched_job *pend, size_t np,
                                       uint32_t **owner)
{
    struct sched_limit *l = xcalloc(users, sizeof(*l));
    for (size_t u = 0; u < users; u++) {
        for (int r = 0; r < SCHED_RES_N; r++)
            l[u].left[r] = l[u].per_job[r] = -1;
        /* LOOSE=1: caps no job reaches, to time the checks alone */
        l[u].left[SCHED_RES_GPU] = getenv("LOOSE") ? 1000000 : 16;
        l[u].left[SCHED_RES_JOBS] = getenv("LOOSE") ? 1000000 : 8;
    }
    for (size_t i = 0; i < nrun; i++) {
        struct sched_limit *x = &l[rnd() % users];
        int64_t g = __builtin_popcountll(run[i].allocs[0].gpu_mask);
        x->left[SCHED_RES_GPU] = x->left[SCHED_RES_GPU] > g ? x->left[SCHED_RES_GPU] - g : 0;
        x->left[SCHED_RES_JOBS] = x->left[SCHED_RES_JOBS] > 0 ? x->left[SCHED_RES_JOBS] - 1 : 0;
    }
    *owner = xcalloc(np, sizeof(**owner));
    for (size_t i = 0; i < np; i++) {
        (*owner)[i] = (uint32_t)(rnd() % users);
        pend[i].limits = &(*owner)[i];
        pend[i].nlimits = 1;
    }
    return l;
}

int main(int argc, char **argv)
{
    size_t nn = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    size_t np = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
    enum sched_policy pol = SCHED_POLICY_BACKFILL;
    struct sched_node *nodes = xcalloc(nn, sizeof(*nodes));
    size_t *pn = xcalloc(nn, sizeof(*pn)), nrun = 0;
    struct sched_running *run = xcalloc(nn * 8, sizeof(*run));
    struct sched_alloc *ra = xcalloc(nn * 8, sizeof(*ra));
    struct sched_job *pend = xcalloc(np, sizeof(*pend));
    struct sched_part part = { "gpu", pn, nn, -1, true };
    struct sched_input in = { 0 };
    struct sched_output out = { 0 };
    struct rusage ru;
    size_t started = 0, estimated = 0, preempted = 0;
    double t0, t1;

    if (argc > 3 && !sched_policy_parse(argv[3], &pol))
        return fprintf(stderr, "bench: unknown policy %s\n", argv[3]), 1;
    for (size_t i = 0; i < nn; i++) {
        nodes[i] = (struct sched_node){ "n", 64, 524288, 8, "h100", true, 1, NULL };
        pn[i] = i;
        /* Three quarters of the nodes run 1, 2, 4 or 8 one-GPU-per-8-CPU jobs. */
        if (i % 4 == 3)
            continue;
        int k = 1 << (rnd() % 4), g = 8 / k;
        for (int s = 0; s < k; s++, nrun++) {
            ra[nrun] = (struct sched_alloc){ i, 8 * g, (uint64_t)g * 32768,
                                             ((UINT64_C(1) << g) - 1) << (s * g) };
            run[nrun] = (struct sched_running){ .job_id = 1000000 + nrun, .allocs = &ra[nrun],
                                                .nallocs = 1, .end_time = (int64_t)(60 + rnd() % 86400),
                                                .start_time = -(int64_t)(rnd() % 86400),
                                                .preempt_class = getenv("PREEMPT") && nrun % 2 };
        }
    }
    for (size_t i = 0; i < np; i++) {
        make_job(&pend[i], i + 1);
        pend[i].preempts = getenv("PREEMPT") ? UINT64_C(1) << 1 : 0;
    }
    size_t users = argc > 5 ? strtoul(argv[5], NULL, 10) : 0;
    uint32_t *owner = NULL;
    struct sched_limit *lim = users ? user_limits(users, run, nrun, pend, np, &owner) : NULL;
    in = (struct sched_input){ .nodes = nodes, .nnodes = nn, .parts = &part, .nparts = 1,
                               .running = run, .nrunning = nrun, .pending = pend, .npending = np,
                               .policy = pol,
                               .bf_max_job_test = argc > 4 ? strtoul(argv[4], NULL, 10) : 0,
                               .limits = lim, .nlimits = users };
    /* GUARD=1: as herdctld runs herd, each pending job predicted from a
     * history of 1,000 users (20 runs each, half of them predictable) and
     * waiting i * 30 s, so that the guard acts (past 72 h: the oldest 13 %
     * of 10,000); the predictions are made inside the timed pass, as the
     * controller makes them for each pass's snapshot. */
    struct sched_predict *pred = getenv("GUARD") ? sched_predict_new() : NULL;
    if (pred) {
        for (int k = 0; k < 20; k++)
            for (uint64_t u = 0; u < 1000; u++)
                sched_predict_learn(pred, u, 3600, u % 2 ? 600 + k : (int64_t)(rnd() % 3600),
                                    3600);
        in.age_bound_s = SCHED_AGE_BOUND_DEFAULT_S;
        in.age_resv = SCHED_AGE_RESV_DEFAULT;
    }
    t0 = now_s();
    if (pred)
        for (size_t i = 0; i < np; i++) {
            pend[i].predict_s = sched_predict_job(pred, i % 1000, 3600,
                                                  pend[i].time_limit_min * 60, NULL);
            pend[i].waited_s = (int64_t)(np - i) * 30;
        }
    sched_plan(&in, 0, &out);
    t1 = now_s();
    sched_predict_free(pred);
    for (size_t i = 0; i < out.n; i++) {
        started += out.d[i].reason == SCHED_NONE;
        estimated += out.d[i].start_estimate > 0;
        preempted += out.d[i].npreempt;
    }
    getrusage(RUSAGE_SELF, &ru);
    printf("%-12s nodes %6zu  pending %7zu  running %6zu  users %4zu  pass %8.3f s  "
           "started %5zu  estimated %7zu  preempted %5zu  maxrss %6ld MiB\n", sched_policy_name(pol),
           nn, np, nrun, users, t1 - t0, started, estimated, preempted, ru.ru_maxrss / 1024);
    free(lim);
    free(owner);
    sched_output_free(&out);
    free(nodes);
    free(pn);
    free(run);
    free(ra);
    free(pend);
    return 0;
}
