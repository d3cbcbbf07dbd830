/*
 * api_prio: what sprio and sshare show. GET /v1/priorities: every pending
 * job's priority factors, normalized and weighted, with the weights;
 * GET /v1/shares: the association tree in Fair Tree order with shares,
 * usage and fair-share factors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"

static json_t *factors_json(double age, double assoc, double fs, double size, double part,
                            double qos)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "age", age, "assoc", assoc, "fairshare",
                     fs, "job_size", size, "partition", part, "qos", qos);
}

static json_t *job_prio_json(const struct ctld *c, const struct job *j, int64_t now)
{
    struct sched_prio_factors f;
    prio_job(c, j, now, &f);
    return json_pack("{s:I, s:s, s:i, s:s, s:s, s:s, s:I, s:o, s:o, s:I, s:s}", "job_id",
                     (json_int_t)j->id, "user_name", j->user_name, "user_id", (int)j->uid,
                     "partition", c->conf->parts[j->part].name, "account",
                     prio_job_account(c, j), "qos", prio_job_qos(c, j), "priority",
                     (json_int_t)f.priority, "factors",
                     factors_json(f.age, f.assoc, f.fairshare, f.job_size, f.partition, f.qos),
                     "weighted",
                     factors_json(f.w_age, f.w_assoc, f.w_fairshare, f.w_job_size, f.w_partition,
                                  f.w_qos),
                     "nice", (json_int_t)f.nice, "tres", "");
}

void api_priorities(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct prio *p = prio_get(c);
    int64_t now = ctld_now();
    json_t *jobs = json_array();
    usage_update(c, p, now);
    struct job *j;
    struct api_viewer v;   /* PrivateData=jobs: sprio shows what squeue does, as slurmctld */
    api_viewer_init(r, &v);
    JOB_FOREACH(c, j)
        if (p->multifactor && j->state == JOB_PENDING && api_viewer_sees_job(c, &v, j))
            json_array_append_new(jobs, job_prio_json(c, j, now));
    api_viewer_free(&v);
    const struct sched_prio_weights *w = &p->w;
    json_t *weights = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "age", (int)w->age, "assoc",
                                (int)w->assoc, "fairshare", (int)w->fairshare, "job_size",
                                (int)w->job_size, "partition", (int)w->partition, "qos",
                                (int)w->qos);
    http_reply(r, 200, json_pack("{s:s, s:o, s:o, s:I}", "priority_type",
                                 c->conf->priority_type, "weights", weights, "jobs", jobs, "now",
                                 (json_int_t)now));
}

/* ---- shares ---- */

struct walk {
    const struct assocs *as;
    const struct sched_assoc *t;
    json_t *out;
};

static int lf_order(const struct sched_assoc *t, const struct assocs *as, size_t x, size_t y)
{
    if (t[x].level_fs != t[y].level_fs)
        return t[x].level_fs > t[y].level_fs ? -1 : 1;
    const char *nx = as->a[x].user ? as->a[x].user : as->a[x].account;
    const char *ny = as->a[y].user ? as->a[y].user : as->a[y].account;
    return strcmp(nx, ny);
}

static json_t *assoc_json(const struct walk *w, size_t i, int depth)
{
    const struct assoc *a = &w->as->a[i];
    const struct sched_assoc *t = &w->t[i];
    double total = w->t[0].usage_tree;
    return json_pack("{s:s, s:s?, s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:o}", "account", a->account,
                     "user", a->user, "depth", depth, "raw_shares", (json_int_t)a->shares,
                     "norm_shares", t->norm_shares, "raw_usage", t->usage_tree, "norm_usage",
                     total > 0 ? t->usage_tree / total : 0.0, "eff_usage", t->eff_usage,
                     "fairshare", t->fs_factor, "level_fs",
                     isinf(t->level_fs) ? json_null() : json_real(t->level_fs));
}

static void walk_tree(struct walk *w, size_t node, int depth)
{
    size_t n = 0, *list = xcalloc(w->as->n, sizeof(*list));
    json_array_append_new(w->out, assoc_json(w, node, depth));
    for (size_t i = 1; i < w->as->n; i++)
        if (w->as->a[i].parent == node)
            list[n++] = i;
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && lf_order(w->t, w->as, list[k], list[k - 1]) < 0; k--) {
            size_t tmp = list[k];
            list[k] = list[k - 1];
            list[k - 1] = tmp;
        }
    for (size_t i = 0; i < n; i++)
        walk_tree(w, list[i], depth + 1);
    free(list);
}

void api_shares(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct prio *p = prio_get(c);
    usage_update(c, p, ctld_now());
    const struct job *j;
    JOB_FOREACH(c, j)   /* every user with jobs has an association */
        assocs_user(&p->as, j->user_name, prio_job_account(c, j));
    struct walk w = { &p->as, assocs_tree(&p->as), json_array() };
    walk_tree(&w, 0, 0);
    http_reply(r, 200, json_pack("{s:o, s:s}", "associations", w.out, "priority_type",
                                 c->conf->priority_type));
}
