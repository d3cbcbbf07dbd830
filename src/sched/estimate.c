/*
 * estimate: a start time for every waiting job the plan left without one.
 * EASY-style policies reserve nodes for the first blocked job of each
 * partition only, yet users ask "when will mine start?" of every job, and
 * `squeue --start` answers for each. Here each partition is one pool of CPUs
 * and GPUs: what holds them (running jobs, jobs started now) gives them back
 * at its expected end, and the waiting jobs take them in priority order, first
 * come first served, no earlier than a reservation the plan made. O(n log n)
 * in the jobs. It is optimistic about how jobs pack onto nodes and
 * pessimistic about backfill, so it is an estimate, as Slurm's are.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct release {
    int64_t t;
    int64_t cpus, gpus;
};

struct pool_sim {
    struct release *h;             /* min-heap by t */
    size_t n;
    int64_t free_cpus, free_gpus;
    int64_t cap_cpus, cap_gpus;
    int max_node_cpus;
};

static void heap_push(struct pool_sim *s, struct release r)
{
    size_t i = s->n++;
    while (i > 0 && s->h[(i - 1) / 2].t > r.t) {
        s->h[i] = s->h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->h[i] = r;
}

static struct release heap_pop(struct pool_sim *s)
{
    struct release top = s->h[0], last = s->h[--s->n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= s->n)
            break;
        if (k + 1 < s->n && s->h[k + 1].t < s->h[k].t)
            k++;
        if (s->h[k].t >= last.t)
            break;
        s->h[i] = s->h[k];
        i = k;
    }
    if (s->n)
        s->h[i] = last;
    return top;
}

/* Holds from now until `end` (never given back when end < 0 or FOREVER). */
static void hold(struct pool_sim *s, const struct sched_alloc *a, size_t n, const bool *inpart,
                 int64_t end)
{
    struct release r = { end, 0, 0 };
    for (size_t k = 0; k < n; k++) {
        if (!inpart[a[k].node])
            continue;
        r.cpus += a[k].cpus;
        r.gpus += __builtin_popcountll(a[k].gpu_mask);
    }
    s->free_cpus -= r.cpus;
    s->free_gpus -= r.gpus;
    if (end >= 0 && end < SCHED_FOREVER && (r.cpus || r.gpus))
        heap_push(s, r);
}

static void need_of(const struct pool_sim *s, const struct sched_job *j, int64_t *cpus,
                    int64_t *gpus)
{
    int64_t nodes = j->min_nodes > 0 ? j->min_nodes : 1;
    int64_t per_node = j->ntasks_per_node > 0 ? j->ntasks_per_node : 1;
    int64_t tasks = j->ntasks > 0 ? j->ntasks : nodes * per_node;
    *cpus = tasks * (j->cpus_per_task > 0 ? j->cpus_per_task : 1);
    if (j->exclusive && *cpus < nodes * s->max_node_cpus)
        *cpus = nodes * s->max_node_cpus;
    *gpus = j->gpus > 0 ? j->gpus : (int64_t)j->gpus_per_node * nodes;
}

static void sim_init(struct pool_sim *s, const struct sched_input *in, const bool *inpart,
                     int64_t now, const struct sched_output *out)
{
    for (size_t i = 0; i < in->nnodes; i++) {
        if (!inpart[i] || !in->nodes[i].avail)
            continue;
        s->cap_cpus += in->nodes[i].cpus;
        s->cap_gpus += in->nodes[i].gpus;
        if (in->nodes[i].cpus > s->max_node_cpus)
            s->max_node_cpus = in->nodes[i].cpus;
    }
    s->free_cpus = s->cap_cpus;
    s->free_gpus = s->cap_gpus;
    for (size_t i = 0; i < in->nrunning; i++) {
        const struct sched_running *r = &in->running[i];
        int64_t end = r->end_time < 0 ? -1 : r->end_time > now ? r->end_time : now;
        hold(s, r->allocs, r->nallocs, inpart, end);
    }
    for (size_t i = 0; i < out->n; i++) {
        const struct sched_decision *d = &out->d[i];
        if (d->reason == SCHED_NONE && d->nallocs)
            hold(s, d->allocs, d->nallocs, inpart, now + sched_job_dur(in, &in->pending[i]));
    }
}

/* The earliest time from t on when the pool has cpus and gpus free; -1 if
 * nothing holding them will ever give them back. */
static int64_t sim_wait(struct pool_sim *s, int64_t t, int64_t cpus, int64_t gpus)
{
    while (s->free_cpus < cpus || s->free_gpus < gpus) {
        if (s->n == 0)
            return -1;
        struct release r = heap_pop(s);
        s->free_cpus += r.cpus;
        s->free_gpus += r.gpus;
        if (r.t > t)
            t = r.t;
    }
    return t;
}

/* The first t' >= t at which [t', t' + dur) leaves the job enough of the
 * partition beside the reservations' holds (the pool sim knows nothing of
 * them: they are future busy time to a job outside them). */
static int64_t after_holds(const struct sched_input *in, const struct pool_sim *s,
                           const bool *inpart, int64_t t, int64_t dur, int64_t cpus,
                           int64_t gpus)
{
    for (size_t pass = 0; pass <= in->nresvs; pass++) {
        int64_t moved = t;
        for (size_t i = 0; i < in->nresvs; i++) {
            const struct sched_resv *r = &in->resvs[i];
            int64_t hc = 0, hg = 0;
            if (!(r->start < (dur >= SCHED_FOREVER - t ? SCHED_FOREVER : t + dur) && t < r->end))
                continue;
            for (size_t k = 0; k < r->nholds; k++)
                if (r->holds[k].node < in->nnodes && inpart[r->holds[k].node]) {
                    hc += r->holds[k].cpus;
                    hg += __builtin_popcountll(r->holds[k].gpu_mask);
                }
            if ((hc && s->cap_cpus - hc < cpus) || (hg && s->cap_gpus - hg < gpus))
                moved = r->end > moved ? r->end : moved;
        }
        if (moved == t)
            return t;
        t = moved;
    }
    return t;
}

static void estimate_part(const struct sched_input *in, size_t part, int64_t now,
                          struct sched_output *out, struct release *heap)
{
    const struct sched_part *p = &in->parts[part];
    bool *inpart = xcalloc(in->nnodes ? in->nnodes : 1, sizeof *inpart);
    for (size_t k = 0; k < p->nnodes; k++)
        inpart[p->nodes[k]] = true;
    struct pool_sim s = { .h = heap };
    sim_init(&s, in, inpart, now, out);
    int64_t t = now;
    for (size_t i = 0; i < in->npending && t >= 0; i++) {
        const struct sched_job *j = &in->pending[i];
        struct sched_decision *d = &out->d[i];
        if (j->part != part || (d->reason != SCHED_RESOURCES && d->reason != SCHED_PRIORITY))
            continue;
        int64_t cpus, gpus;
        need_of(&s, j, &cpus, &gpus);
        if (cpus > s.cap_cpus || gpus > s.cap_gpus)
            continue;
        if (d->start_estimate > t)
            t = d->start_estimate;   /* the plan's reservation: not before it */
        t = sim_wait(&s, t, cpus, gpus);
        if (t < 0)
            break;   /* the pool never frees enough: no estimate for the rest */
        if (d->start_estimate <= now) {
            int64_t tr = in->nresvs ? after_holds(in, &s, inpart, t, sched_job_dur(in, j), cpus,
                                                  gpus) : t;
            d->start_estimate = sched_round_up(tr, now, in->bf_resolution_s);
            d->forecast = true;
        }
        s.free_cpus -= cpus;
        s.free_gpus -= gpus;
        int64_t dur = sched_job_dur(in, j);
        if (dur < SCHED_FOREVER)
            heap_push(&s, (struct release){ t + dur, cpus, gpus });
    }
    xfree(inpart);
}

void sched_estimate_rest(const struct sched_input *in, int64_t now, struct sched_output *out)
{
    bool any = false;
    for (size_t i = 0; i < out->n && !any; i++)
        any = out->d[i].start_estimate < 0 &&
              (out->d[i].reason == SCHED_RESOURCES || out->d[i].reason == SCHED_PRIORITY);
    if (!any)
        return;
    size_t nallocs = in->npending + in->nrunning;
    for (size_t i = 0; i < out->n; i++)
        nallocs += out->d[i].nallocs ? 1 : 0;
    struct release *heap = xcalloc(nallocs ? nallocs : 1, sizeof *heap);
    for (size_t p = 0; p < in->nparts; p++)
        estimate_part(in, p, now, out, heap);
    xfree(heap);
}
