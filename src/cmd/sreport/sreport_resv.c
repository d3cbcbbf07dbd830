/*
 * sreport reservation Utilization: for each reservation that held
 * resources during the period, and each TRES it reserved that -T asks for,
 * what the jobs that ran in it used (Allocated) and the rest of what it
 * held (Idle), both inside the period and its own start and end. The
 * reservations come from GET /v1/reservations?all=1 (ended and deleted
 * ones too), the jobs from the period's accounting records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/cmdutil.h"
#include "client/resv.h"
#include "cmd/sreport/sreport.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

/* Slurm's columns for this report: Allocated and Idle are 20 wide (29 with
 * the "N(P%)" formats), whatever the values. */
#define RESV_VALUE_WIDTH 20
#define RESV_VALUE_WIDTH_COMBINED 29

struct resv_use {
    const json_t *resv;
    int64_t from, to;              /* its time inside the period */
    double held[T_N];              /* what it reserved, per TRES; < 0: not reserved */
    double alloc[T_N];             /* TRES-seconds its jobs used in [from, to) */
};

/* "250G" as MB, as a TRES string writes memory; a plain count otherwise. */
static double tres_amount(const char *v, bool mem)
{
    char *end;
    double x = strtod(v, &end);
    if (!mem)
        return x;
    switch (*end) {
    case 'K': case 'k': return x / 1024;
    case 'G': case 'g': return x * 1024;
    case 'T': case 't': return x * 1024 * 1024;
    default: return x;
    }
}

static void parse_tres(const char *s, double held[T_N])
{
    for (int k = 0; k < T_N; k++)
        held[k] = -1;
    char *copy = xstrdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq)
            continue;
        *eq = '\0';
        for (int k = 0; k < T_N; k++)
            if (!strcasecmp(t, sr_tres_names[k]))
                held[k] = tres_amount(eq + 1, k == T_MEM);
    }
    free(copy);
}

/* A deleted reservation ended when it was deleted. */
static int64_t resv_last(const json_t *resv)
{
    int64_t end = resv_end(resv), del = jget_int(resv, "deleted_time", 0);
    return jget_bool(resv, "deleted", false) && del > 0 && del < end ? del : end;
}

static bool job_in(const json_t *rec, const json_t *resv)
{
    int64_t id = jget_int(rec, "reservation_id", 0);
    if (id > 0)
        return id == jget_int(resv, "id", -1);
    const char *name = jget_str(rec, "reservation", NULL);
    if (!name)
        name = jget_str(json_object_get(rec, "spec"), "reservation", "");
    return *name && !strcmp(name, jget_str(resv, "name", ""));
}

static void add_jobs(struct resv_use *u, const json_t *jobs, int64_t now)
{
    size_t i;
    const json_t *j;
    json_array_foreach(jobs, i, j) {
        const json_t *rec = json_object_get(j, "record");
        int64_t s = jget_int(rec, "start_time", 0), e = jget_int(rec, "end_time", 0);
        if (s <= 0 || !job_in(rec, u->resv))
            continue;
        e = e > 0 ? e : now;
        int64_t secs = (e < u->to ? e : u->to) - (s > u->from ? s : u->from);
        if (secs <= 0)
            continue;
        size_t k;
        const json_t *a;
        double held[T_N] = { 0 };
        json_array_foreach(json_object_get(rec, "allocs"), k, a) {
            held[T_CPU] += (double)jget_int(a, "cpus", 0);
            held[T_MEM] += (double)jget_int(a, "mem_mb", 0);
            held[T_NODE] += 1;
            held[T_GPU] += __builtin_popcountll((unsigned long long)jget_int(a, "gpu_mask", 0));
        }
        held[T_BILLING] = held[T_CPU];
        for (int t = 0; t < T_N; t++)
            u->alloc[t] += held[t] * (double)secs;
    }
}

/* The reservations that held something in the period, by start. */
static struct resv_use *resv_uses(const struct sreport *r, const json_t *list, size_t *n)
{
    int64_t now = jget_int(r->answer, "now", 0);
    struct resv_use *out = xcalloc(json_array_size(list) + 1, sizeof *out);
    size_t i;
    const json_t *resv;
    *n = 0;
    json_array_foreach(list, i, resv) {
        struct resv_use u = { .resv = resv };
        int64_t s = jget_int(resv, "start_time", 0), e = resv_last(resv);
        u.from = s > r->start ? s : r->start;
        u.to = e < r->end ? e : r->end;
        u.to = now > 0 && now < u.to ? now : u.to;
        if (u.to <= u.from)
            continue;
        parse_tres(jget_str(resv, "tres", ""), u.held);
        add_jobs(&u, json_object_get(r->answer, "jobs"), now);
        size_t k = (*n)++;
        while (k > 0 && jget_int(out[k - 1].resv, "start_time", 0) > s) {
            out[k] = out[k - 1];
            k--;
        }
        out[k] = u;
    }
    return out;
}

static void put_row(const struct sr_table *t, const struct sreport *r,
                    const struct resv_use *u, int tres)
{
    char start[32], end[32];
    timefmt_iso(jget_int(u->resv, "start_time", 0), start, sizeof start);
    timefmt_iso(resv_last(u->resv), end, sizeof end);
    double total = u->held[tres] * (double)(u->to - u->from);
    double alloc = u->alloc[tres], idle = total > alloc ? total - alloc : 0;
    const char *fixed[] = { r->cluster, jget_str(u->resv, "name", ""), start, end,
                            sr_tres_names[tres] };
    for (size_t i = 0; i < 5; i++)
        sr_put(t, i, fixed[i], false);
    char *a = sr_value(r, alloc, total), *b = sr_value(r, idle, total);
    sr_put(t, 5, a, false);
    sr_put(t, 6, b, false);
    free(a);
    free(b);
}

void sr_resv_print(const struct sreport *r, const json_t *list)
{
    size_t n;
    struct resv_use *uses = resv_uses(r, list, &n);
    bool combined = r->unit == U_MINPER || r->unit == U_SECPER || r->unit == U_HOURPER;
    int vw = combined ? RESV_VALUE_WIDTH_COMBINED : RESV_VALUE_WIDTH;
    const char *names[] = { "Cluster", "Name", "Start", "End", "TRES Name", "Allocated", "Idle" };
    int widths[] = { 9, 9, 19, 19, 14, vw, vw };
    struct sr_table t = { r, names, widths, 7 };
    /* this report always speaks of TRES, -T or not */
    struct sreport banner = *r;
    banner.tres_given = true;
    sr_banner(&banner, "Reservation Utilization", false, "Usage");
    sr_header(&t);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < r->ntres; k++)
            if (uses[i].held[r->tres[k]] >= 0)
                put_row(&t, r, &uses[i], r->tres[k]);
    free(uses);
}

int sr_resv_utilization(const struct sreport *r)
{
    json_t *owner;
    const json_t *list = resv_fetch(PROG, "sreport: error", 1, &owner);
    if (list)
        sr_resv_print(r, list);
    json_decref(owner);
    return list ? 0 : 1;
}
