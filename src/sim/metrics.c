/*
 * The figures of a replay, as the literature defines them. Waits and
 * slowdowns are the owners' (every job's when there are no scavengers);
 * utilization counts completed work only, `busy` adds the runs that
 * preemption cut short.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/sim.h"

struct by_end {
    int64_t end;
    size_t i;
};

static int by_end_cmp(const void *a, const void *b)
{
    const struct by_end *x = a, *y = b;

    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static double bsld(const struct sim_job *j)
{
    double wait = (double)(j->start - j->submit), run = (double)j->run;
    double v = (wait + run) / (run > SIM_TAU_S ? run : SIM_TAU_S);

    return v > 1 ? v : 1;
}

static void scav_metrics(const struct sim_job *jobs, size_t n, struct sim_scav_result *sr)
{
    double wait = 0;

    for (size_t i = 0; i < n; i++) {
        const struct sim_job *j = &jobs[i];
        if (!j->scav)
            continue;
        sr->jobs++;
        sr->preemptions += j->preemptions;
        sr->instant += j->instant;
        sr->lost_ps += (double)j->lost;
        if (j->cancelled) {
            sr->cancelled++;
        } else if (j->start >= 0) {
            sr->completed++;
            sr->done_ps += (double)j->run * (double)j->procs;
            wait += (double)(j->start - j->submit);
        }
    }
    sr->avg_wait_s = sr->completed ? wait / (double)sr->completed : 0;
}

/* The owners' waits and slowdowns, the first `warmup` of them by end left out. */
static void owner_metrics(const struct sim_job *jobs, size_t n, double warmup,
                          struct sim_result *r)
{
    struct by_end *order = xcalloc(n ? n : 1, sizeof(*order));
    size_t no = 0, skip;
    double wait = 0, sl = 0;

    for (size_t i = 0; i < n; i++)
        if (!jobs[i].scav && jobs[i].start >= 0)
            order[no++] = (struct by_end){ .end = jobs[i].end, .i = i };
    qsort(order, no, sizeof(*order), by_end_cmp);
    skip = warmup > 0 ? (size_t)(warmup * (double)no) : 0;
    for (size_t k = skip; k < no; k++) {
        const struct sim_job *j = &jobs[order[k].i];
        int64_t w = j->start - j->submit;
        wait += (double)w;
        sl += bsld(j);
        if (w > r->max_wait_s)
            r->max_wait_s = w;
    }
    r->owners = no;
    r->averaged = no > skip ? no - skip : 0;
    r->avg_wait_s = r->averaged ? wait / (double)r->averaged : 0;
    r->avg_bsld = r->averaged ? sl / (double)r->averaged : 0;
    free(order);
}

void sim_metrics(const struct sim_job *jobs, size_t n, int64_t procs, double warmup,
                 struct sim_result *r)
{
    int64_t first = n ? jobs[0].submit : 0, last = first;
    double area = 0, lost = 0;

    r->jobs = n;
    r->procs = procs;
    r->max_wait_s = 0;
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].start >= 0 && !jobs[i].cancelled)
            area += (double)jobs[i].run * (double)jobs[i].procs;
        lost += (double)jobs[i].lost;
        if (jobs[i].end > last)
            last = jobs[i].end;
    }
    owner_metrics(jobs, n, warmup, r);
    memset(&r->scav, 0, sizeof(r->scav));
    scav_metrics(jobs, n, &r->scav);
    r->makespan_s = last - first;
    r->utilization = r->makespan_s > 0 ? area / ((double)procs * (double)r->makespan_s) : 0;
    r->busy = r->makespan_s > 0 ? (area + lost) / ((double)procs * (double)r->makespan_s) : 0;
}
