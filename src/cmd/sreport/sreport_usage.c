/*
 * sreport_usage: what each user used in each account during the period,
 * per TRES, from the job records: a job counts the part of its run inside
 * the period, times what it held (CPUs, memory, nodes, GPUs, and billing:
 * the rate fair share charged it, sacct's billing). The nodes' capacity over
 * the period is what percentages are of (billing has none: 0%).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/sreport/sreport.h"
#include "common/conf.h"
#include "common/xmalloc.h"

const char *const sr_tres_names[T_N] = { "cpu", "mem", "node", "billing", "gres/gpu" };

static json_t *get(const char *path)
{
    json_t *answer = NULL;
    char err[256];
    int status = client_call(PROG, "GET", path, NULL, &answer, err, sizeof err);
    if (status == 200)
        return answer;
    fprintf(stderr, "sreport: error: %s\n", status < 0 ? err : client_error_text(answer, status));
    json_decref(answer);
    return NULL;
}

static void capacity(struct sreport *r, const json_t *nodes)
{
    double secs = (double)(r->end - r->start);
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(nodes, "nodes"), i, n) {
        r->cap[T_CPU] += (double)jget_int(n, "cpus", 0) * secs;
        r->cap[T_MEM] += (double)jget_int(n, "mem_mb", 0) * secs;
        r->cap[T_NODE] += secs;
        r->cap[T_GPU] += (double)jget_int(n, "gpus", 0) * secs;
    }
}

static struct sr_use *use_of(struct sreport *r, const char *user, const char *account)
{
    for (size_t i = 0; i < r->nuse; i++)
        if (!strcmp(r->use[i].user, user) && !strcmp(r->use[i].account, account))
            return &r->use[i];
    r->use = xrealloc(r->use, (r->nuse + 1) * sizeof *r->use);
    r->use[r->nuse] = (struct sr_use){ xstrdup(user), xstrdup(account), { 0 } };
    return &r->use[r->nuse++];
}

static struct sr_size *size_of(struct sreport *r, const char *account)
{
    for (size_t i = 0; i < r->nsizes; i++)
        if (!strcmp(r->sizes[i].account, account))
            return &r->sizes[i];
    r->sizes = xrealloc(r->sizes, (r->nsizes + 1) * sizeof *r->sizes);
    r->sizes[r->nsizes] = (struct sr_size){ xstrdup(account), { 0 } };
    return &r->sizes[r->nsizes++];
}

static int size_bucket(double cpus)
{
    return cpus < 50 ? 0 : cpus < 250 ? 1 : cpus < 500 ? 2 : cpus < 1000 ? 3 : 4;
}

static void add_job(struct sreport *r, const json_t *rec, time_t now)
{
    time_t s = (time_t)jget_int(rec, "start_time", 0), e = (time_t)jget_int(rec, "end_time", 0);
    if (s <= 0)
        return;
    if (e <= 0)
        e = now;
    double secs = (double)((e < r->end ? e : r->end) - (s > r->start ? s : r->start));
    if (secs <= 0)
        return;
    double held[T_N] = { 0 };
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(rec, "allocs"), i, a) {
        held[T_CPU] += (double)jget_int(a, "cpus", 0);
        held[T_MEM] += (double)jget_int(a, "mem_mb", 0);
        held[T_NODE] += 1;
        held[T_GPU] += __builtin_popcountll((unsigned long long)jget_int(a, "gpu_mask", 0));
    }
    const json_t *bill = json_object_get(rec, "billing");   /* what fair share charged */
    held[T_BILLING] = json_is_number(bill) ? json_number_value(bill) : held[T_CPU];
    const char *acct = jget_str(json_object_get(rec, "spec"), "account", "root");
    struct sr_use *u = use_of(r, jget_str(rec, "user_name", "?"), acct);
    for (int t = 0; t < T_N; t++)
        u->secs[t] += held[t] * secs;
    size_of(r, acct)->secs[size_bucket(held[T_CPU])] += held[T_CPU] * secs;
}

int sreport_load(struct sreport *r)
{
    char path[256];
    json_t *nodes = get(PATH_NODES);
    r->db = nodes ? get(PATH_ACCTDB) : NULL;
    snprintf(path, sizeof path, PATH_ACCOUNTING "?start=%lld&end=%lld", (long long)r->start,
             (long long)r->end);
    r->answer = r->db ? get(path) : NULL;
    if (!r->answer) {
        json_decref(nodes);
        return 1;
    }
    r->cluster = jget_str(r->db, "cluster", client_conf(PROG)->cluster_name);
    capacity(r, nodes);
    json_decref(nodes);
    time_t now = (time_t)jget_int(r->answer, "now", 0);
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(r->answer, "jobs"), i, j)
        add_job(r, json_object_get(j, "record"), now);
    return 0;
}

void sreport_free(struct sreport *r)
{
    for (size_t i = 0; i < r->nuse; i++) {
        free(r->use[i].user);
        free(r->use[i].account);
    }
    for (size_t i = 0; i < r->nsizes; i++)
        free(r->sizes[i].account);
    free(r->use);
    free(r->sizes);
    json_decref(r->db);
    json_decref(r->answer);
    json_decref(r->users);
    json_decref(r->accounts);
}

/* Is account within (or) the subtree of top? */
static bool below(const json_t *db, const char *account, const char *top)
{
    for (int depth = 0; account && depth < 64; depth++) {
        if (!strcmp(account, top))
            return true;
        const json_t *parent = NULL;
        size_t i;
        json_t *a;
        json_array_foreach(json_object_get(db, "assocs"), i, a)
            if (!json_object_get(a, "user") && !strcmp(jget_str(a, "account", ""), account))
                parent = json_object_get(a, "Parent");
        account = parent ? json_string_value(parent) : strcmp(account, "root") ? "root" : NULL;
    }
    return false;
}

void sreport_account_total(const struct sreport *r, const char *account, double out[T_N])
{
    memset(out, 0, T_N * sizeof *out);
    for (size_t i = 0; i < r->nuse; i++)
        if (below(r->db, r->use[i].account, account))
            for (int t = 0; t < T_N; t++)
                out[t] += r->use[i].secs[t];
}
