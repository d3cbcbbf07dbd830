/*
 * metrics_limits: the herd_*_headroom families of /metrics/jobs-users-accts:
 * what each QOS and association limit that is set leaves to those it binds,
 * in jobs, CPUs, nodes and GPUs (the limit less what their running and
 * suspended jobs hold, as the scheduling pass counts it: limits.c). A limit
 * has a series only when some job, running or pending, counts against it,
 * so the series are as many as the users and accounts with jobs.
 *
 * Each job's limits are found as a scheduling pass finds them
 * (limits_of_job), so a scrape costs about what a pass's snapshot of the
 * limits does. Nothing is written when the limits are not enforced
 * (AccountingStorageEnforce without limits or safe): they bind nobody.
 */
#include <event2/buffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/openmetrics.h"
#include "common/xmalloc.h"
#include "ctld/limits_int.h"
#include "ctld/metrics.h"
#include "ctld/prio.h"

/* What is shown of a limit, with the resource label's word ("gres/gpu"
 * becomes "gres/gpu:TYPE" for a typed limit). */
static const struct {
    enum sched_res r;
    const char *word;
} shown[] = {
    { SCHED_RES_JOBS, "jobs" }, { SCHED_RES_CPU, "cpu" }, { SCHED_RES_NODE, "node" },
    { SCHED_RES_GPU, "gres/gpu" },
};
#define NSHOWN (sizeof shown / sizeof *shown)

struct hlim {
    enum limit_kind kind;
    const char *name, *holder, *gpu_type;   /* borrowed: valid while the scrape renders */
    int64_t cap[NSHOWN];       /* -1: not set */
    int64_t used[NSHOWN];
};

struct htab {
    struct hlim *v;
    size_t n, cap;
    json_t *index;             /* key -> position in v */
};

struct walk {
    struct htab *t;
    int64_t amount[SCHED_RES_N];   /* the job's, when it holds an allocation */
    bool holds;
};

static void key_of(char *key, size_t len, enum limit_kind kind, const char *name,
                   const char *holder, const char *type)
{
    snprintf(key, len, "%d\x1f%s\x1f%s\x1f%s", (int)kind, name, holder ? holder : "",
             type ? type : "");
}

static struct hlim *find(const struct htab *t, const char *key)
{
    json_t *v = json_object_get(t->index, key);
    return v ? &t->v[json_integer_value(v)] : NULL;
}

static void on_limit(const struct limit_src *src, void *arg)
{
    struct walk *w = arg;
    if (src->kind == LK_QOS_JOB)
        return;    /* per-job limits leave nothing to share */
    struct sched_limit l;
    for (int r = 0; r < SCHED_RES_N; r++)
        l.left[r] = l.per_job[r] = -1;
    limits_caps(src, &l);
    bool any = false;
    for (size_t s = 0; s < NSHOWN; s++)
        any |= l.left[shown[s].r] >= 0;
    if (!any)
        return;
    struct htab *t = w->t;
    char key[512];
    key_of(key, sizeof key, src->kind, src->name, src->holder, src->gpu_type);
    struct hlim *h = find(t, key);
    if (!h) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 16;
            t->v = xrealloc(t->v, t->cap * sizeof *t->v);
        }
        h = &t->v[t->n];
        *h = (struct hlim){ src->kind, src->name, src->holder, src->gpu_type, { 0 }, { 0 } };
        for (size_t s = 0; s < NSHOWN; s++)
            h->cap[s] = l.left[shown[s].r];
        json_object_set_new(t->index, key, json_integer((json_int_t)t->n++));
    }
    for (size_t s = 0; w->holds && s < NSHOWN; s++)
        h->used[s] += w->amount[shown[s].r];
}

static int64_t left(const struct hlim *h, size_t s)
{
    return h->cap[s] > h->used[s] ? h->cap[s] - h->used[s] : 0;
}

/* A user association's MaxJobs binds the same jobs as a GrpJobs set on that
 * association: one series for both, the lesser headroom. The entry of the
 * other kind with h's association, or NULL. */
static struct hlim *twin(const struct htab *t, const struct hlim *h, enum limit_kind kind)
{
    char key[512];
    key_of(key, sizeof key, kind, h->name, h->holder, h->gpu_type);
    return find(t, key);
}

static void write_one(struct evbuffer *b, const char *fam, const struct hlim *h,
                      const char *k1, const char *k2, const struct hlim *maxjobs)
{
    char word[128];
    for (size_t s = 0; s < NSHOWN; s++) {
        if (h->cap[s] < 0)
            continue;
        int64_t v = left(h, s);
        if (s == 0 && maxjobs && left(maxjobs, 0) < v)
            v = left(maxjobs, 0);
        if (shown[s].r == SCHED_RES_GPU && h->gpu_type)
            snprintf(word, sizeof word, "%s:%s", shown[s].word, h->gpu_type);
        else
            snprintf(word, sizeof word, "%s", shown[s].word);
        struct om_label l[3] = { { k1, h->name }, { "resource", word }, { NULL, NULL } };
        size_t nl = 2;
        if (k2) {
            l[1] = (struct om_label){ k2, h->holder ? h->holder : "" };
            l[2] = (struct om_label){ "resource", word };
            nl = 3;
        }
        om_sample(b, fam, l, nl, (double)v);
    }
}

static void write_family(struct evbuffer *b, const struct htab *t, const char *fam,
                         const char *help, enum limit_kind kind, const char *k1,
                         const char *k2)
{
    om_family(b, fam, help, "gauge");
    for (size_t i = 0; i < t->n; i++) {
        const struct hlim *h = &t->v[i], *other = NULL;
        if (kind == LK_ASSOC_GROUP && h->kind == LK_ASSOC_USER) {
            other = twin(t, h, LK_ASSOC_GROUP);
            if (!other || other->cap[0] < 0)
                write_one(b, fam, h, k1, k2, NULL);   /* else written with its twin */
            continue;
        }
        if (h->kind != kind)
            continue;
        if (kind == LK_ASSOC_GROUP && h->cap[0] >= 0)
            other = twin(t, h, LK_ASSOC_USER);
        write_one(b, fam, h, k1, k2, other);
    }
}

static bool streq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* A pending job only makes its limits known (it holds nothing): the next
 * one under the same limits adds nothing, and a user's pending jobs mostly
 * come one after another (arrays, bursts of submissions). */
static bool same_limits(const struct ctld *c, const struct job *j, const struct job *k)
{
    return j->part == k->part && streq(j->user_name, k->user_name) &&
           streq(j->req.gpu_type, k->req.gpu_type) &&
           streq(prio_job_account(c, j), prio_job_account(c, k)) &&
           streq(prio_job_qos(c, j), prio_job_qos(c, k));
}

void metrics_write_headroom(const struct ctld *c, struct evbuffer *b)
{
    if (!(c->conf->acct_enforce & (ENFORCE_LIMITS | ENFORCE_SAFE)))
        return;
    struct htab t = { .index = json_object() };
    struct walk w = { .t = &t };
    const struct job *j, *last = NULL;
    JOB_FOREACH(c, j) {
        w.holds = job_holds_alloc(j);
        if (!w.holds && (j->state != JOB_PENDING || !job_count_of(j)))
            continue;
        if (!w.holds) {
            if (last && same_limits(c, j, last))
                continue;
            last = j;
        }
        if (w.holds)
            sched_job_amounts(&j->req, w.amount);
        limits_of_job(c, j, on_limit, &w);
    }
    write_family(b, &t, "herd_qos_user_headroom",
                 "What a QOS's per-user limit (MaxTRESPerUser, MaxJobsPerUser) leaves the user",
                 LK_QOS_USER, "qos", "username");
    write_family(b, &t, "herd_qos_account_headroom",
                 "What a QOS's per-account limit (MaxTRESPerAccount, MaxJobsPerAccount) leaves "
                 "the account", LK_QOS_ACCOUNT, "qos", "account");
    write_family(b, &t, "herd_qos_headroom",
                 "What a QOS's group limit (GrpTRES, GrpJobs) leaves all its jobs", LK_QOS_GROUP,
                 "qos", NULL);
    write_family(b, &t, "herd_assoc_headroom",
                 "What an association's limit (GrpTRES, GrpJobs; a user's MaxJobs) leaves it",
                 LK_ASSOC_GROUP, "account", "username");
    free(t.v);
    json_decref(t.index);
}
