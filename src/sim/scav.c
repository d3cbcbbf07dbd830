/*
 * Which jobs are scavengers. Two ways, which may be combined:
 * - users: a seeded draw of users_pct % of the trace's users, all of whose
 *   jobs become scavengers (the rest of the trace is the owners' workload,
 *   alone with --owners-only);
 * - a stream: K generated 1-node jobs kept queued from the first
 *   submission to the last owner's, as a bag of checkpointable work would
 *   be (a sweep, a training run in chunks). Each runs a log-uniform time in
 *   [10 min, 2 h] and asks for that rounded up to the next 10 minutes.
 * Seeded with splitmix64, so a seed gives the same jobs everywhere.
 */
#include <math.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sim/engine.h"

#define STREAM_RUN_MIN 600
#define STREAM_RUN_MAX 7200
#define STREAM_EST_STEP 600

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *x)
{
    return (double)(splitmix64(x) >> 11) / (double)(1ULL << 53);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The chosen users, sorted; how many in *nchosen. */
static int64_t *scav_users(const struct sim_job *jobs, size_t n, const struct sim_scav *sc,
                           size_t *nchosen)
{
    int64_t *ids = xcalloc(n ? n : 1, sizeof(*ids));
    size_t nu = 0;
    uint64_t rng = sc->seed ^ 0x5ca7e9ULL;

    for (size_t i = 0; i < n; i++)
        ids[i] = jobs[i].user;
    qsort(ids, n, sizeof(*ids), cmp_i64);
    for (size_t i = 0; i < n; i++)
        if (nu == 0 || ids[nu - 1] != ids[i])
            ids[nu++] = ids[i];
    for (size_t i = nu; i > 1; i--) {           /* Fisher-Yates */
        size_t k = (size_t)(splitmix64(&rng) % i);
        int64_t t = ids[i - 1];
        ids[i - 1] = ids[k];
        ids[k] = t;
    }
    *nchosen = (size_t)llround(sc->users_pct / 100.0 * (double)nu);
    qsort(ids, *nchosen, sizeof(*ids), cmp_i64);
    return ids;
}

void sim_scav_mark(struct sim_job *jobs, size_t *n, const struct sim_scav *sc)
{
    size_t nchosen = 0, k = 0;
    int64_t *chosen;

    if (sc->users_pct <= 0)
        return;
    chosen = scav_users(jobs, *n, sc, &nchosen);
    for (size_t i = 0; i < *n; i++) {
        jobs[i].scav = bsearch(&jobs[i].user, chosen, nchosen, sizeof(*chosen), cmp_i64) != NULL;
        if (!(jobs[i].scav && sc->owners_only))
            jobs[k++] = jobs[i];
    }
    *n = k;
    free(chosen);
}

size_t sim_stream_topup(struct sim *s, int64_t now)
{
    size_t added = 0, want = (size_t)s->o->scav.stream;

    if (want == 0 || s->o->scav.owners_only || now > s->stream_end)
        return 0;
    while (s->npend - s->npend_owner < want) {
        double lo = log(STREAM_RUN_MIN), hi = log(STREAM_RUN_MAX);
        int64_t run = (int64_t)llround(exp(lo + uniform01(&s->rng) * (hi - lo)));
        struct sim_job j = {
            .id = s->next_id++, .submit = now, .run = run, .procs = s->cpn, .user = -1,
            .est = (run + STREAM_EST_STEP - 1) / STREAM_EST_STEP * STREAM_EST_STEP,
            .start = -1, .end = -1, .scav = true,
        };
        sim_arrive(s, sim_add_job(s, &j));
        added++;
    }
    return added;
}
