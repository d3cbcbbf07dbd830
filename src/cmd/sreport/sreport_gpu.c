/*
 * sreport_gpu: the rows of the GPUUtilization reports (sreport_gpu.h) from
 * r->answer's job records. A finished job's GPU figures are its record's
 * usage.gpu; a running job has none there, so its live ones ("usage_live"
 * of GET /v1/jobs) stand in, for the part of its run up to now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/sreport/sreport_gpu.h"
#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/xmalloc.h"

/* {job id: usage_live.gpu} of the running jobs, asked for only when a
 * record in the period is of one (by state, not by id: the ids of a busy
 * cluster's running jobs would make a very long URL); NULL after printing
 * an error. */
static json_t *live_gpu(const struct sreport *r)
{
    bool running = false;
    size_t i;
    json_t *j, *out = json_object();
    json_array_foreach(json_object_get(r->answer, "jobs"), i, j) {
        const json_t *rec = json_object_get(j, "record");
        running |= jget_int(rec, "start_time", 0) > 0 && jget_int(rec, "end_time", 0) <= 0;
    }
    if (!running)
        return out;
    char err[256];
    json_t *answer = NULL;
    int status = client_call(PROG, "GET", PATH_JOBS "?states=RUNNING,SUSPENDED", NULL, &answer,
                             err, sizeof err);
    if (status != 200) {
        fprintf(stderr, "sreport: error: %s\n",
                status < 0 ? err : client_error_text(answer, status));
        json_decref(answer);
        json_decref(out);
        return NULL;
    }
    json_array_foreach(json_object_get(answer, "jobs"), i, j) {
        json_t *gpu = json_object_get(json_object_get(j, "usage_live"), "gpu");
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)jget_int(j, "job_id", 0));
        if (gpu)
            json_object_set(out, key, gpu);
    }
    json_decref(answer);
    return out;
}

static struct sr_gpu_row *row_of(struct sr_gpu_report *g, const char *user, const char *account)
{
    for (size_t i = 0; i < g->n; i++)
        if ((!user || !strcmp(g->rows[i].user, user)) && !strcmp(g->rows[i].account, account))
            return &g->rows[i];
    g->rows = xrealloc(g->rows, (g->n + 1) * sizeof *g->rows);
    g->rows[g->n] = (struct sr_gpu_row){ user ? xstrdup(user) : NULL, xstrdup(account),
                                         SR_GPU_SUM_INIT };
    return &g->rows[g->n++];
}

/* One record into its row; gpu: usage.gpu, or the live one. */
static void add_record(const struct sreport *r, struct sr_gpu_report *g, const json_t *rec,
                       const json_t *gpu, time_t now)
{
    const char *user = jget_str(rec, "user_name", "?");
    const char *acct = jget_str(json_object_get(rec, "spec"), "account", "root");
    if (!acct_list_wants(r->users, user) || !acct_list_wants(r->accounts, acct))
        return;
    struct sr_gpu_job job = { (time_t)jget_int(rec, "start_time", 0),
                              (time_t)jget_int(rec, "end_time", 0), 0, NULL, 0, -1, false };
    if (job.end <= 0)
        job.end = now;
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(rec, "allocs"), i, a)
        job.gpus += __builtin_popcountll((unsigned long long)jget_int(a, "gpu_mask", 0));
    const json_t *each = json_object_get(gpu, "gpus");
    double *util = xcalloc(json_array_size(each) + 1, sizeof *util);
    json_array_foreach(each, i, a) {
        if (jget_int(a, "samples", 0) <= 0)
            continue;
        util[job.nsampled++] = json_number_value(json_object_get(a, "util_ave"));
        int64_t mem = jget_int(a, "mem_max_mb", -1);
        job.mem_max_mb = mem > job.mem_max_mb ? mem : job.mem_max_mb;
    }
    job.util = util;
    job.idle_cancelled = !strcmp(jget_str(rec, "end_reason", ""), "IdleGPU");
    struct sr_gpu_sum one = SR_GPU_SUM_INIT;
    /* a row only for those who held GPUs in the period */
    if (sr_gpu_add(&one, &job, r->start, r->end, g->idle_pct))
        sr_gpu_add(&row_of(g, g->by_account ? NULL : user, acct)->s, &job, r->start, r->end,
                   g->idle_pct);
    free(util);
}

static int by_gpu_time(const void *a, const void *b)
{
    const struct sr_gpu_row *x = a, *y = b;
    if (x->s.gpu_secs != y->s.gpu_secs)
        return x->s.gpu_secs < y->s.gpu_secs ? 1 : -1;
    int c = strcmp(x->user ? x->user : "", y->user ? y->user : "");
    return c ? c : strcmp(x->account, y->account);
}

int sr_gpu_collect(const struct sreport *r, struct sr_gpu_report *g)
{
    const struct conf *conf = client_conf(PROG);
    g->idle_pct = conf ? conf->idle_gpu.threshold_pct : CONF_IDLE_DEFAULT_PCT;
    json_t *live = live_gpu(r);
    if (!live)
        return 1;
    time_t now = (time_t)jget_int(r->answer, "now", 0);
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(r->answer, "jobs"), i, j) {
        const json_t *rec = json_object_get(j, "record");
        const json_t *gpu = json_object_get(json_object_get(rec, "usage"), "gpu");
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)jget_int(j, "job_id", 0));
        if (!gpu)
            gpu = json_object_get(live, key);
        add_record(r, g, rec, gpu, now);
    }
    json_decref(live);
    qsort(g->rows, g->n, sizeof *g->rows, by_gpu_time);
    return 0;
}

void sr_gpu_report_free(struct sr_gpu_report *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->rows[i].user);
        free(g->rows[i].account);
    }
    free(g->rows);
    g->rows = NULL;
    g->n = 0;
}

int sr_gpu_utilization(const struct sreport *r, bool by_account)
{
    struct sr_gpu_report g = { .by_account = by_account };
    int rc = sr_gpu_collect(r, &g);
    if (rc == 0)
        sr_gpu_print(r, &g);
    sr_gpu_report_free(&g);
    return rc;
}
