#include "common/openmetrics.h"

#include <event2/buffer.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Seconds: from a fast GET (half a millisecond) to a commit stuck on a slow
 * disk; le values are written as %g of these. */
static const double hist_bounds[OM_HIST_BOUNDS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
};

void om_family(struct evbuffer *b, const char *name, const char *help, const char *type)
{
    evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void om_escape(struct evbuffer *b, const char *val)
{
    const char *run = val;
    for (const char *p = val; *p; p++) {
        const char *esc = *p == '\\' ? "\\\\" : *p == '"' ? "\\\"" : *p == '\n' ? "\\n" : NULL;
        if (!esc)
            continue;
        evbuffer_add(b, run, (size_t)(p - run));
        evbuffer_add(b, esc, 2);
        run = p + 1;
    }
    evbuffer_add(b, run, strlen(run));
}

static void labels(struct evbuffer *b, const struct om_label *l, size_t nl)
{
    if (nl == 0)
        return;
    evbuffer_add(b, "{", 1);
    for (size_t i = 0; i < nl; i++) {
        evbuffer_add_printf(b, "%s%s=\"", i ? "," : "", l[i].key);
        om_escape(b, l[i].val);
        evbuffer_add(b, "\"", 1);
    }
    evbuffer_add(b, "}", 1);
}

static void value(struct evbuffer *b, double v)
{
    /* integers (counts, bytes) print whole, as Slurm's do */
    if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v)
        evbuffer_add_printf(b, " %.0f\n", v);
    else
        evbuffer_add_printf(b, " %.6f\n", v);
}

void om_sample(struct evbuffer *b, const char *name, const struct om_label *l, size_t nl,
               double v)
{
    evbuffer_add(b, name, strlen(name));
    labels(b, l, nl);
    value(b, v);
}

void om_u64(struct evbuffer *b, const char *name, const char *key, const char *val, uint64_t v)
{
    struct om_label l = { key, val };
    evbuffer_add(b, name, strlen(name));
    labels(b, &l, key ? 1 : 0);
    evbuffer_add_printf(b, " %" PRIu64 "\n", v);
}

void om_gauge(struct evbuffer *b, const char *name, const char *help, uint64_t v)
{
    om_family(b, name, help, "gauge");
    om_u64(b, name, NULL, NULL, v);
}

void om_end(struct evbuffer *b)
{
    evbuffer_add(b, "# EOF\n", 6);
}

void om_hist_observe(struct om_hist *h, int64_t us)
{
    double s = (double)(us < 0 ? 0 : us) / 1e6;
    size_t i = 0;
    while (i < OM_HIST_BOUNDS && s > hist_bounds[i])
        i++;
    h->buckets[i]++;
    h->count++;
    h->sum_s += s;
}

void om_hist_write(struct evbuffer *b, const char *name, const struct om_label *l, size_t nl,
                   const struct om_hist *h)
{
    struct om_label all[4];
    char le[32], series[128];
    if (nl > 3)
        nl = 3;
    if (nl)
        memcpy(all, l, nl * sizeof *l);
    uint64_t cum = 0;
    snprintf(series, sizeof series, "%s_bucket", name);
    for (size_t i = 0; i <= OM_HIST_BOUNDS; i++) {
        cum += h->buckets[i];
        if (i < OM_HIST_BOUNDS)
            snprintf(le, sizeof le, "%g", hist_bounds[i]);
        else
            snprintf(le, sizeof le, "+Inf");
        all[nl] = (struct om_label){ "le", le };
        om_sample(b, series, all, nl + 1, (double)cum);
    }
    snprintf(series, sizeof series, "%s_sum", name);
    om_sample(b, series, l, nl, h->sum_s);
    snprintf(series, sizeof series, "%s_count", name);
    om_sample(b, series, l, nl, (double)h->count);
}
