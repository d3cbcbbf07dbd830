/*
 * Run time predictions from history, with a measure of how well each
 * history predicts. Tsafrir, Etsion and Feitelson's EASY++ predicts the
 * mean of the user's last two runs; a user whose runs do not follow each
 * other (or a workload where nobody's do) makes that prediction worse than
 * the user's own estimate, so each user keeps two running errors: of the
 * history's prediction and of the estimate, each |ln(predicted / run)|
 * over max(x, 10 s) (the bounded slowdown's tau), as a moving average. The
 * prediction is the history's only where its error is the smaller one.
 * Where a job class (user and requested time: one script) has a history
 * of its own and predicts better than the user's, the class's is used.
 * An open-addressing table keyed by user or class; no globals.
 */
#include <math.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "sched/sched.h"

struct pred_key {
    uint64_t key;                  /* hash of user (and class) | 1; 0: empty slot */
    int64_t last[2];
    int n;                         /* runs remembered, at most 2 */
    int nerr;                      /* runs scored */
    double herr, eerr;             /* moving |ln| errors: history's, estimate's */
};

struct sched_predict {
    struct pred_key *t;
    size_t cap, used;              /* cap: a power of two */
};

#define PRED_TAU_S 10.0
#define PRED_ALPHA 0.25            /* weight of the newest run in the moving errors */
#define PRED_MIN_SCORED 2          /* runs scored before a history is trusted */

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

static uint64_t pred_hash(uint64_t user, int64_t cls)
{
    uint64_t h = (user + 1) * UINT64_C(0x9E3779B97F4A7C15);

    if (cls > 0)
        h = (h ^ (uint64_t)cls) * UINT64_C(0xBF58476D1CE4E5B9) ^ UINT64_C(0x94D049BB133111EB);
    return h | 1;
}

static size_t pred_slot(const struct sched_predict *p, uint64_t key)
{
    size_t i = (size_t)(key >> 20) & (p->cap - 1);

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

static const struct pred_key *pred_find(const struct sched_predict *p, uint64_t key)
{
    const struct pred_key *k = &p->t[pred_slot(p, key)];

    return k->key ? k : NULL;
}

/* The history's prediction: the mean of the last two runs (one: that run). */
static int64_t pred_hist(const struct pred_key *k)
{
    int64_t v = k->n == 1 ? k->last[0] : (k->last[0] + k->last[1] + 1) / 2;

    return v < 1 ? 1 : v;
}

static bool pred_trusted(const struct pred_key *k)
{
    return k && k->n > 0 && k->nerr >= PRED_MIN_SCORED && k->herr <= k->eerr;
}

static int64_t cap_at(int64_t v, int64_t estimate_s)
{
    return estimate_s > 0 && v > estimate_s ? estimate_s : v;
}

int64_t sched_predict_job(const struct sched_predict *p, uint64_t user, int64_t cls,
                          int64_t estimate_s, enum sched_predict_src *src)
{
    const struct pred_key *c = cls > 0 ? pred_find(p, pred_hash(user, cls)) : NULL;
    const struct pred_key *u = pred_find(p, pred_hash(user, 0));
    enum sched_predict_src s = SCHED_PREDICT_ESTIMATE;
    int64_t v = estimate_s;

    if (pred_trusted(c) && (!pred_trusted(u) || c->herr <= u->herr)) {
        s = SCHED_PREDICT_CLASS;
        v = cap_at(pred_hist(c), estimate_s);
    } else if (pred_trusted(u)) {
        s = SCHED_PREDICT_USER;
        v = cap_at(pred_hist(u), estimate_s);
    }
    if (src)
        *src = s;
    return v;
}

int64_t sched_predict_history(const struct sched_predict *p, uint64_t user, int64_t cls,
                              int64_t estimate_s)
{
    const struct pred_key *k = pred_find(p, pred_hash(user, cls));

    return k && k->n > 0 ? cap_at(pred_hist(k), estimate_s) : estimate_s;
}

static double pred_err(int64_t predicted, int64_t run)
{
    double a = (double)predicted, b = (double)run;

    return fabs(log((a > PRED_TAU_S ? a : PRED_TAU_S) / (b > PRED_TAU_S ? b : PRED_TAU_S)));
}

static void pred_learn(struct sched_predict *p, uint64_t key, int64_t run_s, int64_t estimate_s)
{
    struct pred_key *k;

    if (2 * (p->used + 1) > p->cap)
        pred_grow(p);
    k = &p->t[pred_slot(p, key)];
    if (!k->key) {
        k->key = key;
        p->used++;
    }
    if (k->n > 0) {
        double w = k->nerr < 4 ? 1.0 / (k->nerr + 1) : PRED_ALPHA;
        double he = pred_err(cap_at(pred_hist(k), estimate_s), run_s);
        double ee = pred_err(estimate_s > 0 ? estimate_s : run_s, run_s);
        k->herr += w * (he - k->herr);
        k->eerr += w * (ee - k->eerr);
        k->nerr++;
    }
    k->last[1] = k->last[0];
    k->last[0] = run_s;
    if (k->n < 2)
        k->n++;
}

void sched_predict_learn(struct sched_predict *p, uint64_t user, int64_t cls, int64_t run_s,
                         int64_t estimate_s)
{
    pred_learn(p, pred_hash(user, 0), run_s, estimate_s);
    if (cls > 0)
        pred_learn(p, pred_hash(user, cls), run_s, estimate_s);
}

/* Tsafrir et al.'s standard steps: a running job that outlives its
 * prediction is predicted to run the next step longer than it has. */
static const int64_t pred_steps[] = { 60, 300, 900, 1800, 3600, 7200, 18000, 36000,
                                      72000, 180000, 360000 };

int64_t sched_predict_expired(int64_t predicted_s, int64_t elapsed_s, int64_t estimate_s)
{
    size_t k = 0, n = sizeof(pred_steps) / sizeof(pred_steps[0]);
    int64_t v = predicted_s > 0 ? predicted_s : 1;

    while (v <= elapsed_s) {
        v += pred_steps[k];
        if (k + 1 < n)
            k++;
    }
    if (estimate_s > elapsed_s && v > estimate_s)
        v = estimate_s;
    return v;
}
