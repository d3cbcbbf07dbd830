/*
 * sreport_gpu_print: the GPUUtilization reports' rows (sreport_gpu.h) in
 * sreport's layout (banner, right-justified columns, -n, -p, -P) or, with
 * --json, one document with the period and the rows in seconds and hours
 * whatever -t says, so that scripts need not parse units.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sreport/sreport_gpu.h"
#include "common/xmalloc.h"

#define NCOLS_MAX 11

/* The word the time columns' headers carry: -t's unit. */
static const char *unit_word(const struct sreport *r)
{
    switch (r->unit) {
    case U_SECONDS: case U_SECPER: return "Secs";
    case U_MINUTES: case U_MINPER: return "Mins";
    case U_PERCENT: return "Pct";
    default: return "Hours";
    }
}

/* A time column's value: hours with two decimals (GPU jobs are often
 * shorter than an hour, and sreport's whole hours would read 0), else as
 * the other reports print -t's unit. */
static char *gpu_time(const struct sreport *r, double secs)
{
    if (r->unit == U_HOURS)
        return xasprintf("%.2lf", secs / 3600);
    return sr_value(r, secs, r->cap[T_GPU]);
}

/* Each cell of a row, as text; blank is what "nothing sampled" prints. */
static void cells(const struct sreport *r, const struct sr_gpu_report *g,
                  const struct sr_gpu_row *w, const char *blank, char **out)
{
    size_t c = 0;
    double util = sr_gpu_util(&w->s);
    out[c++] = xstrdup(r->cluster);
    if (!g->by_account) {
        char proper[128];
        sr_proper_name(w->user, proper, sizeof proper);
        out[c++] = xstrdup(w->user);
        out[c++] = xstrdup(proper);
    }
    out[c++] = xstrdup(w->account);
    out[c++] = gpu_time(r, w->s.gpu_secs);
    out[c++] = gpu_time(r, w->s.sampled_secs);
    out[c++] = util < 0 ? xstrdup(blank) : xasprintf("%.2lf%%", util);
    out[c++] = util < 0 ? xstrdup(blank) : gpu_time(r, w->s.idle_secs);
    out[c++] = w->s.mem_max_mb < 0 ? xstrdup(blank) : xasprintf("%lldM",
                                                                (long long)w->s.mem_max_mb);
    out[c++] = xasprintf("%ld", w->s.jobs);
    out[c] = xasprintf("%ld", w->s.idle_cancelled);
}

static void print_table(const struct sreport *r, const struct sr_gpu_report *g)
{
    const char *u = unit_word(r);
    char h_used[32], h_sampled[32], h_idle[32];
    snprintf(h_used, sizeof h_used, "GPU-%s", u);
    snprintf(h_sampled, sizeof h_sampled, "Sampled GPU-%s", u);
    snprintf(h_idle, sizeof h_idle, "Idle GPU-%s", u);
    const char *names[NCOLS_MAX];
    int widths[NCOLS_MAX];
    size_t n = 0;
    names[n++] = "Cluster";
    if (!g->by_account) {
        names[n++] = "Login";
        names[n++] = "Proper Name";
    }
    const char *rest[] = { "Account", h_used, h_sampled, "Util%", h_idle, "Max GPU Mem", "Jobs",
                           "IdleCancelled" };
    for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
        names[n++] = rest[i];
    char **text = xcalloc(g->n * n + 1, sizeof *text);
    for (size_t i = 0; i < n; i++)
        widths[i] = i == 0 ? 9 : (int)strlen(names[i]);
    for (size_t k = 0; k < g->n; k++) {
        cells(r, g, &g->rows[k], r->parsable ? "" : "n/a", text + k * n);
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(text[k * n + i]) > widths[i])
                widths[i] = (int)strlen(text[k * n + i]);
    }
    struct sr_table t = { r, names, widths, n };
    sr_banner(r, g->by_account ? "GPU Utilization by Account" : "GPU Utilization by User", true,
              "Usage");
    sr_header(&t);
    for (size_t k = 0; k < g->n; k++)
        for (size_t i = 0; i < n; i++)
            sr_put(&t, i, text[k * n + i], false);
    for (size_t k = 0; k < g->n * n; k++)
        free(text[k]);
    free(text);
}

static json_t *row_json(const struct sr_gpu_report *g, const struct sr_gpu_row *w)
{
    double util = sr_gpu_util(&w->s);
    json_t *o = json_object();
    if (!g->by_account) {
        char proper[128];
        sr_proper_name(w->user, proper, sizeof proper);
        json_object_set_new(o, "login", json_string(w->user));
        json_object_set_new(o, "proper_name", json_string(proper));
    }
    json_object_set_new(o, "account", json_string(w->account));
    json_object_update_new(o, json_pack(
        "{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:i, s:i}",
        "gpu_seconds", w->s.gpu_secs, "gpu_hours", w->s.gpu_secs / 3600,
        "sampled_gpu_seconds", w->s.sampled_secs, "sampled_gpu_hours", w->s.sampled_secs / 3600,
        "util_pct", util < 0 ? json_null() : json_real(util),
        "idle_gpu_seconds", util < 0 ? json_null() : json_real(w->s.idle_secs),
        "idle_gpu_hours", util < 0 ? json_null() : json_real(w->s.idle_secs / 3600),
        "max_gpu_mem_mb", w->s.mem_max_mb < 0 ? json_null() : json_integer(w->s.mem_max_mb),
        "jobs", (int)w->s.jobs, "idle_cancelled_jobs", (int)w->s.idle_cancelled));
    return o;
}

static void print_json(const struct sreport *r, const struct sr_gpu_report *g)
{
    json_t *rows = json_array();
    for (size_t k = 0; k < g->n; k++)
        json_array_append_new(rows, row_json(g, &g->rows[k]));
    json_t *doc = json_pack("{s:s, s:s, s:I, s:I, s:f, s:i, s:o}", "report",
                            g->by_account ? "account GPUUtilization" : "user GPUUtilization",
                            "cluster", r->cluster, "start", (json_int_t)r->start, "end",
                            (json_int_t)r->end, "capacity_gpu_seconds", r->cap[T_GPU],
                            "idle_threshold_pct", g->idle_pct, "rows", rows);
    char *s = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s)
        puts(s);
    free(s);
    json_decref(doc);
}

void sr_gpu_print(const struct sreport *r, const struct sr_gpu_report *g)
{
    if (r->json)
        print_json(r, g);
    else
        print_table(r, g);
}
