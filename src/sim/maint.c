/*
 * Maintenance windows: whole-machine MAINT reservations, every node held
 * whole, [t0 + start + k*period, + duration). A pass gets the windows not
 * over yet (at most 16: a job that could span more was refused, being
 * longer than the time between two windows). A window's end is an event of
 * its own, since the jobs it kept out can start then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/engine.h"

#define MAINT_AHEAD (sizeof(((struct sim *)0)->resv) / sizeof(((struct sim *)0)->resv[0]))

static int parse_num(const char *p, char **end, int64_t *v)
{
    errno = 0;
    *v = strtoll(p, end, 10);
    return *end == p || errno ? -1 : 0;
}

int sim_maint_parse(const char *s, struct sim_maint *m, char **err)
{
    int64_t v[3] = { 0, 0, 0 };
    int n = 0;
    const char *p = s;
    char *end;

    while (n < 3) {
        if (parse_num(p, &end, &v[n]) < 0)
            break;
        n++;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    if (*p || n < 2) {
        *err = xasprintf("bad --maint '%s': START,DURATION[,PERIOD] in seconds", s);
        return -1;
    }
    if (v[0] < 0 || v[1] <= 0 || (n == 3 && v[2] <= v[1])) {
        *err = xasprintf("bad --maint '%s': START must be >= 0, DURATION > 0 and "
                         "PERIOD longer than DURATION", s);
        return -1;
    }
    m->start = v[0];
    m->duration = v[1];
    m->period = n == 3 ? v[2] : 0;
    return 0;
}

bool sim_maint_never_fits(const struct sim_maint *m, int64_t est)
{
    return m->duration > 0 && m->period > 0 && est > m->period - m->duration;
}

static int64_t win_start(const struct sim *s, int64_t k)
{
    return s->t0 + s->o->maint.start + k * s->o->maint.period;
}

/* The first window that ends after x; -1 if none. */
static int64_t win_after(const struct sim *s, int64_t x)
{
    int64_t end0 = win_start(s, 0) + s->o->maint.duration;

    if (x < end0)
        return 0;
    if (s->o->maint.period <= 0)
        return -1;
    return (x - end0) / s->o->maint.period + 1;
}

void sim_maint_init(struct sim *s)
{
    if (s->o->maint.duration <= 0)
        return;
    s->holds = xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*s->holds));
    for (size_t i = 0; i < s->nnodes; i++)
        s->holds[i] = (struct sched_alloc){ .node = i, .cpus = s->cpn };
}

void sim_maint_fini(struct sim *s)
{
    xfree(s->holds);
}

void sim_maint_refresh(struct sim *s, int64_t now)
{
    int64_t k = win_after(s, now);

    s->nresv = 0;
    if (k < 0)
        return;
    for (; s->nresv < MAINT_AHEAD; k++) {
        int64_t ws = win_start(s, k);
        s->resv[s->nresv++] = (struct sched_resv){ .start = ws, .end = ws + s->o->maint.duration,
                                                   .holds = s->holds, .nholds = s->nnodes,
                                                   .maint = true };
        if (s->o->maint.period <= 0)
            break;
    }
}

int64_t sim_maint_next_end(const struct sim *s, int64_t after)
{
    int64_t k = after == INT64_MIN ? 0 : win_after(s, after);

    return k < 0 ? INT64_MAX : win_start(s, k) + s->o->maint.duration;
}

bool sim_maint_overlaps(const struct sim *s, int64_t start, int64_t end)
{
    if (s->o->maint.duration <= 0 || end <= start)
        return false;
    int64_t k = win_after(s, start);
    return k >= 0 && win_start(s, k) < end;
}

size_t sim_maint_count(const struct sim *s)
{
    int64_t last = INT64_MIN;
    size_t c = 0;

    if (s->o->maint.duration <= 0)
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->jobs[i].end > last)
            last = s->jobs[i].end;
    for (int64_t k = 0; win_start(s, k) < last; k++) {
        c++;
        if (s->o->maint.period <= 0)
            break;
    }
    return c;
}
