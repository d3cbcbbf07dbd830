/* The figures of a replay, as the literature defines them. */
#include <stdlib.h>

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

void sim_metrics(const struct sim_job *jobs, size_t n, int64_t procs, double warmup,
                 struct sim_result *r)
{
    struct by_end *order = xcalloc(n ? n : 1, sizeof(*order));
    size_t skip;
    int64_t first = n ? jobs[0].submit : 0, last = first;
    double area = 0, wait = 0, sl = 0;

    r->jobs = n;
    r->procs = procs;
    r->max_wait_s = 0;
    for (size_t i = 0; i < n; i++) {
        order[i].end = jobs[i].end;
        order[i].i = i;
        area += (double)jobs[i].run * (double)jobs[i].procs;
        if (jobs[i].end > last)
            last = jobs[i].end;
    }
    qsort(order, n, sizeof(*order), by_end_cmp);
    skip = warmup > 0 ? (size_t)(warmup * (double)n) : 0;
    for (size_t k = skip; k < n; k++) {
        const struct sim_job *j = &jobs[order[k].i];
        int64_t w = j->start - j->submit;
        wait += (double)w;
        sl += bsld(j);
        if (w > r->max_wait_s)
            r->max_wait_s = w;
    }
    r->averaged = n > skip ? n - skip : 0;
    r->makespan_s = last - first;
    r->utilization = r->makespan_s > 0 ? area / ((double)procs * (double)r->makespan_s) : 0;
    r->avg_wait_s = r->averaged ? wait / (double)r->averaged : 0;
    r->avg_bsld = r->averaged ? sl / (double)r->averaged : 0;
    free(order);
}
