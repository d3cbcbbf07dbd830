/*
 * preempt_snap: preemption as a pass's snapshot tells the core (preempt.h).
 * Classes are numbered 1..63 (bit c of a pending job's mask: it may
 * preempt class c). preempt/qos gives each QOS a class, in name order;
 * preempt/partition_prio gives each distinct PriorityTier its rank, lowest
 * first, and a pending job may preempt every lower tier. A running job is a
 * class's member only while it may be preempted at all: its PreemptMode is
 * not OFF, it has run PreemptExemptTime, and its priority is under
 * min_exempt_priority.
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/sched_snap.h"

#define CLASS_MAX 63

struct classes {
    const char **qos;      /* preempt/qos: the names with a class, sorted */
    size_t nqos;
    int tiers[CLASS_MAX];  /* partition_prio: the distinct tiers, ascending */
    size_t ntiers;
};

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void qos_classes(const struct ctld *c, struct classes *k)
{
    const json_t *all = json_object_get(prio_get(c)->db, "qos");
    size_t n = json_object_size(all), i = 0;
    const char *name;
    json_t *q;
    k->qos = xcalloc(n ? n : 1, sizeof *k->qos);
    json_object_foreach((json_t *)all, name, q)
        k->qos[i++] = name;
    qsort(k->qos, n, sizeof *k->qos, name_cmp);
    k->nqos = n > CLASS_MAX ? CLASS_MAX : n;
}

static void tier_classes(const struct ctld *c, struct classes *k)
{
    for (size_t i = 0; i < c->conf->nparts; i++) {
        int t = c->conf->parts[i].priority_tier;
        bool seen = false;
        for (size_t j = 0; j < k->ntiers; j++)
            seen |= k->tiers[j] == t;
        if (!seen && k->ntiers < CLASS_MAX)
            k->tiers[k->ntiers++] = t;
    }
    qsort(k->tiers, k->ntiers, sizeof *k->tiers, int_cmp);
}

/* The class of a QOS name or a partition; 0: none. */
static int class_of(const struct ctld *c, const struct classes *k, const char *qos, size_t part)
{
    if (c->conf->preempt_type == CONF_PT_QOS) {
        const char **hit = qos ? bsearch(&qos, k->qos, k->nqos, sizeof *k->qos, name_cmp) : NULL;
        return hit ? (int)(hit - k->qos) + 1 : 0;
    }
    if (part >= c->conf->nparts)
        return 0;
    for (size_t j = 0; j < k->ntiers; j++)
        if (k->tiers[j] == c->conf->parts[part].priority_tier)
            return (int)j + 1;
    return 0;
}

static bool exempt(const struct ctld *c, const struct job *j, int64_t now)
{
    int mode = preempt_job_mode(c, j);
    if (!(mode & (CONF_PM_CANCEL | CONF_PM_REQUEUE | CONF_PM_SUSPEND)))
        return true;
    if (now - j->start_time < preempt_job_exempt(c, j))
        return true;
    return c->conf->min_exempt_prio > 0 && j->priority >= (uint64_t)c->conf->min_exempt_prio;
}

static void running_classes(const struct ctld *c, const struct classes *k, struct sched_snap *s)
{
    struct sched_running *run = (struct sched_running *)s->in.running;
    for (size_t i = 0; i < s->in.nrunning; i++) {
        const struct job *j = job_find((struct ctld *)c, run[i].job_id);
        if (!j)
            continue;
        /* in its grace, its class still says who may count it free */
        if (j->preempt) {
            run[i].preempting = true;
            run[i].end_time = j->preempt->grace_end;
        }
        if (j->preempt || !exempt(c, j, s->now))
            run[i].preempt_class = class_of(c, k, prio_job_qos(c, j), j->part);
    }
}

/* preempt/qos: the classes of the QOS its QOS's Preempt= names (and its
 * own under PreemptMode=WITHIN); partition_prio: every lower tier. */
static uint64_t mask_of(const struct ctld *c, const struct classes *k, const struct job *j)
{
    uint64_t m = 0;
    if (c->conf->preempt_type == CONF_PT_PARTITION_PRIO) {
        int own = class_of(c, k, NULL, j->part);
        return own > 1 ? ((1ULL << own) - 1) & ~1ULL : 0;
    }
    const char *qos = prio_job_qos(c, j);
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(preempt_qos(c, qos), "Preempt"), i, n) {
        int cl = class_of(c, k, json_string_value(n), 0);
        if (cl)
            m |= 1ULL << cl;
    }
    int own = class_of(c, k, qos, 0);
    if ((c->conf->preempt_mode & CONF_PM_WITHIN) && own)
        m |= 1ULL << own;
    return m;
}

static uint64_t pending_id(const struct sched_snap *s, size_t i)
{
    return s->metas[i] ? s->metas[i] : s->in.pending[i].job_id;
}

static bool waits_for_victims(const struct sched_snap *s, size_t i, const uint64_t *by, size_t nby)
{
    for (size_t v = 0; v < nby; v++)
        if (by[v] == pending_id(s, i))
            return true;
    return false;
}

/* The jobs whose victims are in their grace go first, so that what the
 * victims free goes to them and not to a job that came meanwhile. */
static void preemptors_first(struct sched_snap *s, const uint64_t *by, size_t nby)
{
    size_t n = s->in.npending, at = 0;
    struct sched_job *pend = (struct sched_job *)s->in.pending, *jobs;
    unsigned *gens;
    uint64_t *metas;
    if (!nby || !n)
        return;
    jobs = xmalloc(n * sizeof *jobs);
    gens = xmalloc(n * sizeof *gens);
    metas = xmalloc(n * sizeof *metas);
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++)
            if (waits_for_victims(s, i, by, nby) == (pass == 0)) {
                jobs[at] = pend[i];
                gens[at] = s->gens[i];
                metas[at++] = s->metas[i];
            }
    memcpy(pend, jobs, n * sizeof *jobs);
    memcpy(s->gens, gens, n * sizeof *gens);
    memcpy(s->metas, metas, n * sizeof *metas);
    free(jobs);
    free(gens);
    free(metas);
}

static void pending_masks(const struct ctld *c, const struct classes *k, struct sched_snap *s)
{
    struct sched_job *pend = (struct sched_job *)s->in.pending;
    for (size_t i = 0; i < s->in.npending; i++) {
        const struct job *j = job_find((struct ctld *)c, pending_id(s, i));
        pend[i].preempts = j ? mask_of(c, k, j) : 0;
    }
}

void preempt_qos_note(const struct ctld *c)
{
    if (c->conf->preempt_type != CONF_PT_QOS)
        return;
    struct classes k = { 0 };
    qos_classes(c, &k);
    size_t n = json_object_size(json_object_get(prio_get(c)->db, "qos"));
    if (n > CLASS_MAX)
        log_warnx("preempt/qos: %zu QOS; jobs of the ones after the first %d by name (%s on) "
                  "are never preempted", n, CLASS_MAX, k.qos[CLASS_MAX]);
    free(k.qos);
}

void preempt_snap(const struct ctld *c, struct sched_snap *s)
{
    if (!preempt_enabled(c))
        return;
    struct classes k = { 0 };
    if (c->conf->preempt_type == CONF_PT_QOS)
        qos_classes(c, &k);
    else
        tier_classes(c, &k);
    running_classes(c, &k, s);
    pending_masks(c, &k, s);
    size_t nby = 0;
    uint64_t *by = xcalloc(s->in.nrunning ? s->in.nrunning : 1, sizeof *by);
    for (size_t i = 0; i < s->in.nrunning; i++) {
        const struct job *j = job_find((struct ctld *)c, s->in.running[i].job_id);
        if (j && j->preempt)
            by[nby++] = j->preempt->by;
    }
    preemptors_first(s, by, nby);
    free(by);
    free(k.qos);
}
