/* Per-user run time history for predictions: an open-addressing table. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/sched.h"

struct pred_user {
    uint64_t key;                  /* user + 1; 0: empty slot */
    int64_t last[2];
    int n;
};

struct sched_predict {
    struct pred_user *t;
    size_t cap, used;              /* cap: a power of two */
};

struct sched_predict *sched_predict_new(void)
{
    struct sched_predict *p = xcalloc(1, sizeof(*p));

    p->cap = 64;
    p->t = xcalloc(p->cap, sizeof(*p->t));
    return p;
}

void sched_predict_free(struct sched_predict *p)
{
    if (!p)
        return;
    free(p->t);
    free(p);
}

static size_t pred_slot(const struct sched_predict *p, uint64_t key)
{
    size_t i = (size_t)(key * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (p->cap - 1);

    while (p->t[i].key && p->t[i].key != key)
        i = (i + 1) & (p->cap - 1);
    return i;
}

static void pred_grow(struct sched_predict *p)
{
    struct sched_predict old = *p;

    p->cap *= 2;
    p->t = xcalloc(p->cap, sizeof(*p->t));
    for (size_t i = 0; i < old.cap; i++)
        if (old.t[i].key)
            p->t[pred_slot(p, old.t[i].key)] = old.t[i];
    free(old.t);
}

int64_t sched_predict_run(const struct sched_predict *p, uint64_t user, int64_t estimate_s)
{
    const struct pred_user *u = &p->t[pred_slot(p, user + 1)];
    int64_t v;

    if (!u->key || u->n == 0)
        return estimate_s;
    v = u->n == 1 ? u->last[0] : (u->last[0] + u->last[1] + 1) / 2;
    if (v < 1)
        v = 1;
    return estimate_s > 0 && v > estimate_s ? estimate_s : v;
}

void sched_predict_done(struct sched_predict *p, uint64_t user, int64_t run_s)
{
    struct pred_user *u;

    if (2 * (p->used + 1) > p->cap)
        pred_grow(p);
    u = &p->t[pred_slot(p, user + 1)];
    if (!u->key) {
        u->key = user + 1;
        p->used++;
    }
    u->last[1] = u->last[0];
    u->last[0] = run_s;
    if (u->n < 2)
        u->n++;
}
