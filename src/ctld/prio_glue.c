/*
 * prio_glue: the priority inputs from the controller's state. Each pass
 * brings usage up to date, ranks associations (Fair Tree), computes every
 * pending job's multifactor priority with src/sched and orders the pending
 * jobs by it; a timer saves usage every PriorityCalcPeriod.
 */
#include <event2/event.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/acctdb.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/store.h"

static void prio_tick(evutil_socket_t fd, short what, void *arg)
{
    const struct ctld *c = arg;
    (void)fd;
    (void)what;
    usage_update(c, c->prio, ctld_now());
    usage_save(c, c->prio);
}

static char *assoc_path(const struct conf *conf)
{
    const char *env = getenv("HERD_ASSOC_CONF");
    if (env && *env)
        return xstrdup(env);
    char *copy = xstrdup(conf->path);
    char *path = xasprintf("%s/herd-assoc.conf", dirname(copy));
    free(copy);
    return path;
}

/* The stored accounting database, or a new one seeded from herd-assoc.conf
 * (and stored at once, so the file is read only on the first start). */
static int acctdb_open(const struct ctld *c, struct prio *p, char *err, size_t errlen)
{
    p->db = c->store ? store_doc_load(c->store, "acctdb") : NULL;
    if (!p->db) {
        p->db = acctdb_new();
        char *path = assoc_path(c->conf);
        int rc = acctdb_seed(p->db, path, err, errlen);
        free(path);
        if (rc < 0)
            return -1;
        if (c->store)
            store_doc_save(c->store, "acctdb", p->db);
    }
    assocs_build(&p->as, p->db);
    preempt_qos_note(c);
    return 0;
}

void prio_acctdb_replace(struct ctld *c, json_t *db)
{
    struct prio *p = prio_get(c);
    json_decref(p->db);
    p->db = db;
    if (c->store)
        store_doc_save(c->store, "acctdb", db);
    assocs_build(&p->as, db);
    preempt_qos_note(c);
}

static void prio_weights(const struct ctld *c, struct prio *p)
{
    const struct conf *cf = c->conf;
    p->w = (struct sched_prio_weights){
        .age = (uint32_t)cf->prio_weight_age, .assoc = (uint32_t)cf->prio_weight_assoc,
        .fairshare = (uint32_t)cf->prio_weight_fairshare,
        .job_size = (uint32_t)cf->prio_weight_job_size,
        .partition = (uint32_t)cf->prio_weight_partition, .qos = (uint32_t)cf->prio_weight_qos,
        .max_age_s = cf->prio_max_age_min > 0 ? cf->prio_max_age_min * 60 : 0,
        .favor_small = cf->prio_favor_small, .cluster_nodes = (int64_t)c->nnodes };
    for (size_t i = 0; i < c->nnodes; i++)
        p->w.cluster_cpus += c->conf->nodes[i].cpus;
    for (size_t i = 0; i < cf->nparts; i++)
        if (cf->parts[i].priority_job_factor > p->max_part_factor)
            p->max_part_factor = cf->parts[i].priority_job_factor;
    p->half_life_s = cf->prio_decay_half_life_min > 0 ? cf->prio_decay_half_life_min * 60 : 0;
}

int prio_init(struct ctld *c, char *err, size_t errlen)
{
    struct prio *p = c->prio = xcalloc(1, sizeof(*p));
    p->multifactor = strcmp(c->conf->priority_type, "priority/basic") != 0;
    prio_weights(c, p);
    if (acctdb_open(c, p, err, errlen) < 0)
        return -1;
    usage_init(c, p);
    if (c->base) {
        int64_t period = c->conf->prio_calc_period_min > 0 ? c->conf->prio_calc_period_min : 5;
        struct timeval tv = { period * 60, 0 };
        /* The timer only reads c; the cast is for libevent's void *. */
        p->tick = event_new(c->base, -1, EV_PERSIST, prio_tick, (void *)c);
        event_add(p->tick, &tv);
    }
    return 0;
}

void prio_destroy(struct ctld *c)
{
    struct prio *p = c->prio;
    if (!p)
        return;
    if (p->tick)
        event_free(p->tick);
    assocs_free(&p->as);
    json_decref(p->db);
    json_decref(p->spent);
    free(p->bill);
    free(p);
    c->prio = NULL;
}

struct prio *prio_get(const struct ctld *c)
{
    return c->prio;
}

const char *prio_account_for(const struct ctld *c, const char *account, const char *user)
{
    return account ? account : assocs_default_account(&prio_get(c)->as, user);
}

const char *prio_job_account(const struct ctld *c, const struct job *j)
{
    return prio_account_for(c, j->account, j->user_name);
}

const char *prio_default_account(const struct ctld *c, const char *user, uid_t uid)
{
    const char *a = assocs_listed_account(&prio_get(c)->as, user);
    return a ? a : uid == 0 ? "root" : NULL;
}

const char *prio_job_qos(const struct ctld *c, const struct job *j)
{
    if (j->qos)
        return j->qos;
    struct prio *p = prio_get(c);
    const json_t *a = acctdb_assoc(p->db, prio_job_account(c, j), j->user_name);
    const char *d = json_string_value(json_object_get(a, "DefaultQOS"));
    return d ? d : "normal";
}

/* A negative nice from anyone but root counts as 0. */
int64_t prio_job_nice(const struct job *j)
{
    int64_t n = j->nice;
    return n < 0 && j->uid != 0 ? 0 : n;   /* only root may raise a priority, as in Slurm */
}

void prio_job(const struct ctld *c, const struct job *j, int64_t now,
              struct sched_prio_factors *out)
{
    struct prio *p = prio_get(c);
    const struct sched_job *r = &j->req;
    size_t a = assocs_user(&p->as, j->user_name, prio_job_account(c, j));
    const struct sched_assoc *tree = assocs_tree(&p->as);
    int64_t tasks = r->ntasks ? r->ntasks
                              : (int64_t)(r->ntasks_per_node ? r->ntasks_per_node : 1) *
                                (r->min_nodes ? r->min_nodes : 1);
    struct sched_prio_job in = {
        .age_s = now - j->submit_time,
        .fairshare = tree[a].fs_factor,
        .partition = p->max_part_factor > 0
                         ? c->conf->parts[j->part].priority_job_factor / p->max_part_factor : 0,
        .qos = assocs_qos_factor(&p->as, prio_job_qos(c, j)),
        .nodes = r->min_nodes ? r->min_nodes : 1,
        .cpus = tasks * (r->cpus_per_task ? r->cpus_per_task : 1),
        .nice = prio_job_nice(j),
    };
    sched_prio_job(&p->w, &in, out);
}

struct ranked {
    uint32_t prio;
    uint64_t id;
    size_t i;
};

static int ranked_cmp(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void prio_sort_pending(const struct ctld *c, struct sched_job *pend, size_t n)
{
    struct prio *p = prio_get(c);
    int64_t now = ctld_now();
    if (!p->multifactor || n < 2)
        return;   /* priority/basic: submit order, which pend is in */
    usage_update(c, p, now);
    struct ranked *rk = xcalloc(n, sizeof(*rk));
    struct sched_job *copy = xcalloc(n, sizeof(*copy));
    for (size_t i = 0; i < n; i++) {
        struct job *j = job_find((struct ctld *)c, pend[i].job_id);
        struct sched_prio_factors f = { .priority = 1 };
        if (j) {
            prio_job(c, j, now, &f);
            j->priority = f.priority;   /* what squeue %Q shows */
        }
        rk[i] = (struct ranked){ f.priority, pend[i].job_id, i };
    }
    qsort(rk, n, sizeof(*rk), ranked_cmp);
    memcpy(copy, pend, n * sizeof(*copy));
    for (size_t i = 0; i < n; i++)
        pend[i] = copy[rk[i].i];
    free(copy);
    free(rk);
}
