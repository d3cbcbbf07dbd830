/*
 * usage: fair share's memory of who used what. An association's usage is
 * billing-seconds (its partition's TRESBillingWeights times what the job
 * holds, so that GPU time counts), halving every PriorityDecayHalfLife and
 * zeroed when a PriorityUsageResetPeriod begins. The store keeps it with
 * the time it is valid for, so a restart charges the gap exactly once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/store.h"

/* Herd's default where a partition sets no TRESBillingWeights: a CPU costs
 * 1, a GPU what the CPUs that come with it cost, and never less than 16
 * CPUs, so that GPU-hours dominate fair share on GPU partitions. */
#define GPU_MIN_WEIGHT 16.0

static void default_billing(const struct ctld *c, size_t part, struct sched_billing *b)
{
    const struct sched_part *sp = &c->sparts[part];
    memset(b, 0, sizeof(*b));
    b->cpu = 1.0;
    for (size_t i = 0; i < sp->nnodes; i++) {
        const struct conf_node *cn = &c->conf->nodes[sp->nodes[i]];
        double ratio = cn->gpus > 0 ? (double)cn->cpus / cn->gpus : 0.0;
        if (cn->gpus > 0 && b->gpu < GPU_MIN_WEIGHT)
            b->gpu = GPU_MIN_WEIGHT;
        if (ratio > b->gpu)
            b->gpu = ratio;
    }
}

static void load_doc(const struct ctld *c, struct prio *p, json_t *doc)
{
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(doc, "usage"), key, v) {
        const char *colon = strchr(key, ':');
        if (!colon || !json_is_number(v))
            continue;
        char *account = xstrndup(key, (size_t)(colon - key));
        size_t i = assocs_user(&p->as, colon + 1, account);
        p->as.a[i].usage = json_number_value(v);
        free(account);
    }
    p->last = json_integer_value(json_object_get(doc, "last"));
    json_t *spent = json_object_get(doc, "spent");
    if (json_is_object(spent))
        json_object_update(p->spent, spent);
    (void)c;
}

void usage_init(const struct ctld *c, struct prio *p)
{
    char err[256];
    p->spent = json_object();
    p->bill = xcalloc(c->conf->nparts ? c->conf->nparts : 1, sizeof(*p->bill));
    for (size_t i = 0; i < c->conf->nparts; i++) {
        const char *w = c->conf->parts[i].tres_billing_weights;
        if (!w)
            default_billing(c, i, &p->bill[i]);
        else if (sched_billing_parse(w, &p->bill[i], err, sizeof err) < 0) {
            log_warnx("%s: partition %s: %s; using the default", c->conf->path,
                      c->conf->parts[i].name, err);
            default_billing(c, i, &p->bill[i]);
        }
    }
    const char *reset = c->conf->prio_usage_reset;
    json_t *doc = c->store ? store_doc_load(c->store, "fairshare") : NULL;
    if (doc && !(reset && !strcasecmp(reset, "NOW")))
        load_doc(c, p, doc);
    json_decref(doc);
}

/* Which reset period t falls in; -1: usage is never reset. */
static int64_t reset_period(const char *kind, int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!kind || !strcasecmp(kind, "NONE") || !strcasecmp(kind, "NOW"))
        return -1;
    localtime_r(&tt, &tm);
    int64_t y = tm.tm_year + 1900;
    if (!strcasecmp(kind, "DAILY"))
        return y * 400 + tm.tm_yday;
    if (!strcasecmp(kind, "WEEKLY"))
        return (t / 86400 + 3) / 7;    /* 1970-01-01 was a Thursday: weeks begin Monday */
    if (!strcasecmp(kind, "MONTHLY"))
        return y * 12 + tm.tm_mon;
    if (!strcasecmp(kind, "QUARTERLY"))
        return y * 4 + tm.tm_mon / 3;
    if (!strcasecmp(kind, "YEARLY"))
        return y;
    return -1;
}

double usage_job_rate(const struct ctld *c, const struct prio *p, const struct job *j)
{
    int64_t cpus = 0, gpus = 0;
    uint64_t mem = 0;
    for (size_t i = 0; i < j->nallocs; i++) {
        cpus += j->allocs[i].cpus;
        mem += j->allocs[i].mem_mb;
        gpus += __builtin_popcountll(j->allocs[i].gpu_mask);
    }
    (void)c;
    return sched_billing_rate(&p->bill[j->part], cpus, mem, gpus, (int64_t)j->nallocs);
}

int64_t usage_req_billing(const struct ctld *c, const struct job *j)
{
    struct sched_tres t;
    const struct prio *p = prio_get(c);
    sched_job_tres(&j->req, &t);
    return (int64_t)(sched_billing_rate(&p->bill[j->part], t.cpus, (uint64_t)t.mem_mb, t.gpus,
                                        t.nodes) + 0.5);
}

/* The QOS's UsageFactor: how much of what its jobs use fair share charges
 * (0 free, 2 double). */
static double usage_factor(const struct prio *p, const char *qos)
{
    const json_t *f = json_object_get(json_object_get(json_object_get(p->db, "qos"), qos),
                                      "UsageFactor");
    return json_is_number(f) ? json_number_value(f) : 1.0;
}

/* What j ran in (from, to], in seconds. */
static int64_t ran_within(const struct job *j, int64_t from, int64_t to)
{
    if (j->nallocs == 0 || j->start_time <= 0)
        return 0;
    int64_t s = j->start_time > from ? j->start_time : from;
    int64_t e = to;
    if (j->state != JOB_RUNNING)
        e = j->end_time < to ? j->end_time : to;
    return e > s ? e - s : 0;
}

double usage_spent(const struct prio *p, const char *key, int what)
{
    return json_number_value(json_array_get(json_object_get(p->spent, key), (size_t)what)) / 60;
}

static void spent_decay(struct prio *p, double decay, bool zero)
{
    const char *key;
    json_t *v;
    json_object_foreach(p->spent, key, v)
        for (size_t i = 0; i < USAGE_SPENT_N; i++)
            json_array_set_new(v, i, json_real(zero ? 0.0 : json_number_value(
                                                               json_array_get(v, i)) * decay));
}

/* A job's dt seconds charged to its association's and its QOS's spending. */
static void spend(const struct ctld *c, struct prio *p, const struct job *j, double rate,
                  int64_t dt)
{
    int64_t cpus = 0, gpus = 0;
    for (size_t i = 0; i < j->nallocs; i++) {
        cpus += j->allocs[i].cpus;
        gpus += __builtin_popcountll(j->allocs[i].gpu_mask);
    }
    double add[USAGE_SPENT_N] = { (double)(cpus * dt), (double)(gpus * dt), rate * (double)dt,
                                  (double)dt };
    char *keys[2] = { xasprintf("a:%s:%s", prio_job_account(c, j), j->user_name),
                      xasprintf("q:%s", prio_job_qos(c, j)) };
    for (int k = 0; k < 2; k++) {
        json_t *v = json_object_get(p->spent, keys[k]);
        if (!v) {
            v = json_pack("[f, f, f, f]", 0.0, 0.0, 0.0, 0.0);
            json_object_set_new(p->spent, keys[k], v);
        }
        for (size_t i = 0; i < USAGE_SPENT_N; i++)
            json_array_set_new(v, i, json_real(json_number_value(json_array_get(v, i)) + add[i]));
        free(keys[k]);
    }
}

void usage_update(const struct ctld *c, struct prio *p, int64_t now)
{
    struct assocs *as = &p->as;
    const char *reset = c->conf->prio_usage_reset;
    if (p->last <= 0 || now <= p->last) {
        if (p->last <= 0)
            p->last = now;
        return;
    }
    bool zero = reset_period(reset, p->last) != reset_period(reset, now);
    double decay = sched_usage_decay(1.0, now - p->last, p->half_life_s);
    for (size_t i = 0; i < as->n; i++)
        as->a[i].usage = zero ? 0.0 : as->a[i].usage * decay;
    spent_decay(p, decay, zero);
    const struct job *j;
    JOB_FOREACH(c, j) {
        if (j->state != JOB_RUNNING && (!job_is_finished(j) || j->end_time <= p->last))
            continue;
        int64_t dt = ran_within(j, p->last, now);
        if (dt <= 0)
            continue;
        size_t a = assocs_user(as, j->user_name, prio_job_account(c, j));
        double rate = usage_job_rate(c, p, j) * usage_factor(p, prio_job_qos(c, j));
        as->a[a].usage += rate * (double)dt;
        spend(c, p, j, rate, dt);
    }
    as->dirty = true;
    p->last = now;
}

void usage_save(const struct ctld *c, struct prio *p)
{
    json_t *u = json_object();
    for (size_t i = 0; i < p->as.n; i++) {
        const struct assoc *a = &p->as.a[i];
        if (!a->user || a->usage <= 0)
            continue;
        char *k = xasprintf("%s:%s", a->account, a->user);
        json_object_set_new(u, k, json_real(a->usage));
        free(k);
    }
    json_t *doc = json_pack("{s:I, s:o, s:O}", "last", (json_int_t)p->last, "usage", u, "spent",
                            p->spent);
    if (c->store)
        store_doc_save(c->store, "fairshare", doc);
    json_decref(doc);
}
