/*
 * fairshare: Slurm's Fair Tree. Usage flows up the association tree; each
 * level ranks its siblings by Level Fairshare (shares over usage, both
 * relative to the siblings); a depth-first walk in that order hands out the
 * users' ranks, so a user of an account that used less than its share comes
 * before every user of an account that used more, whatever their own usage.
 */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "sched/sched.h"

struct ftree {
    struct sched_assoc *a;
    size_t *child;                 /* children of i: child[first[i] .. first[i + 1]) */
    size_t *first;
    size_t nusers;
    size_t rank;                   /* the next rank to hand out, counting down */
    size_t rnt;                    /* the rank given to the last user (ties share it) */
};

static int lf_cmp_ctx(const struct sched_assoc *a, size_t x, size_t y)
{
    if (a[x].level_fs != a[y].level_fs)
        return a[x].level_fs > a[y].level_fs ? -1 : 1;
    int c = strcmp(a[x].name ? a[x].name : "", a[y].name ? a[y].name : "");
    if (c)
        return c;
    return x < y ? -1 : x > y;
}

/* qsort has no context argument: sort with insertion on small sibling
 * lists, which association levels are. */
static void sort_level(const struct sched_assoc *a, size_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t x = v[i], k = i;
        while (k > 0 && lf_cmp_ctx(a, x, v[k - 1]) < 0) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = x;
    }
}

static void ftree_walk(struct ftree *t, size_t *sib, size_t n);

/* Accounts tied on LF are ranked as one: their children merge. */
static size_t walk_accounts(struct ftree *t, size_t *sib, size_t n, size_t i)
{
    struct sched_assoc *a = t->a;
    size_t end = i + 1, total = 0, k = 0;

    while (end < n && !a[sib[end]].user && a[sib[end]].level_fs == a[sib[i]].level_fs)
        end++;
    for (size_t m = i; m < end; m++)
        total += t->first[sib[m] + 1] - t->first[sib[m]];
    size_t *merged = xcalloc(total ? total : 1, sizeof(*merged));
    for (size_t m = i; m < end; m++)
        for (size_t c = t->first[sib[m]]; c < t->first[sib[m] + 1]; c++)
            merged[k++] = t->child[c];
    ftree_walk(t, merged, total);
    xfree(merged);
    return end;
}

static void ftree_walk(struct ftree *t, size_t *sib, size_t n)
{
    struct sched_assoc *a = t->a;
    size_t i = 0;

    sort_level(a, sib, n);
    while (i < n) {
        struct sched_assoc *s = &a[sib[i]];
        if (!s->user) {
            i = walk_accounts(t, sib, n, i);
            continue;
        }
        if (i == 0 || !a[sib[i - 1]].user || a[sib[i - 1]].level_fs != s->level_fs)
            t->rnt = t->rank;
        s->fs_factor = t->nusers ? (double)t->rnt / (double)t->nusers : 0.0;
        if (t->rank > 0)
            t->rank--;
        i++;
    }
}

/* usage_tree, norm_shares, eff_usage and level_fs of every entry. */
static void ftree_levels(struct sched_assoc *a, size_t n)
{
    double *shares = xcalloc(n, sizeof(*shares));

    for (size_t i = 0; i < n; i++) {
        a[i].usage_tree = a[i].user ? a[i].usage : 0.0;
        a[i].fs_factor = 0.0;
    }
    for (size_t i = n; i-- > 1;)
        if (a[i].parent < i) {
            a[a[i].parent].usage_tree += a[i].usage_tree;
            shares[a[i].parent] += a[i].shares;
        }
    a[0].norm_shares = 1.0;
    a[0].eff_usage = 1.0;
    a[0].level_fs = 1.0;
    for (size_t i = 1; i < n; i++) {
        size_t p = a[i].parent < i ? a[i].parent : 0;
        a[i].norm_shares = shares[p] > 0 ? a[i].shares / shares[p] : 0.0;
        a[i].eff_usage = a[p].usage_tree > 0 ? a[i].usage_tree / a[p].usage_tree : 0.0;
        if (a[i].norm_shares <= 0)
            a[i].level_fs = 0.0;
        else if (a[i].eff_usage <= 0)
            a[i].level_fs = HUGE_VAL;
        else
            a[i].level_fs = a[i].norm_shares / a[i].eff_usage;
    }
    xfree(shares);
}

void sched_fairtree(struct sched_assoc *a, size_t n)
{
    struct ftree t = { .a = a };

    if (n == 0)
        return;
    ftree_levels(a, n);
    t.first = xcalloc(n + 1, sizeof(*t.first));
    t.child = xcalloc(n, sizeof(*t.child));
    for (size_t i = 1; i < n; i++) {
        size_t p = a[i].parent < i ? a[i].parent : 0;
        t.first[p + 1]++;
        t.nusers += a[i].user;
    }
    for (size_t i = 0; i < n; i++)
        t.first[i + 1] += t.first[i];
    size_t *fill = xcalloc(n, sizeof(*fill));
    for (size_t i = 1; i < n; i++) {
        size_t p = a[i].parent < i ? a[i].parent : 0;
        t.child[t.first[p] + fill[p]++] = i;
    }
    xfree(fill);
    t.rank = t.rnt = t.nusers;
    size_t nroot = t.first[1] - t.first[0];
    size_t *top = xcalloc(nroot ? nroot : 1, sizeof(*top));
    memcpy(top, t.child, nroot * sizeof(*top));
    ftree_walk(&t, top, nroot);
    xfree(top);
    xfree(t.first);
    xfree(t.child);
}

/* ---- billing and decay ---- */

/* Memory weights are per MB, or per the unit of a K/M/G/T suffix. */
static int bill_one(const char *key, const char *val, struct sched_billing *b)
{
    char *end;
    double v = strtod(val, &end), unit_mb;

    if (end == val || v < 0 || (end[0] && end[1]))
        return -1;
    switch (*end) {
    case '\0': case 'M': case 'm': unit_mb = 1.0; break;
    case 'K': case 'k': unit_mb = 1.0 / 1024.0; break;
    case 'G': case 'g': unit_mb = 1024.0; break;
    case 'T': case 't': unit_mb = 1024.0 * 1024.0; break;
    default: return -1;
    }
    if (!strcasecmp(key, "CPU"))
        b->cpu = v;
    else if (!strcasecmp(key, "Mem"))
        b->mem_mb = v / unit_mb;
    else if (!strcasecmp(key, "GRES/gpu") || !strncasecmp(key, "GRES/gpu:", 9))
        b->gpu = v;
    else if (!strcasecmp(key, "Node"))
        b->node = v;
    return 0;
}

int sched_billing_parse(const char *s, struct sched_billing *out, char *err, size_t errlen)
{
    char *copy = xstrdup(s ? s : ""), *save = NULL;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            rc = -1;
        } else {
            *eq = '\0';
            rc = bill_one(tok, eq + 1, out);
            *eq = '=';
        }
        if (rc < 0)
            snprintf(err, errlen, "TRESBillingWeights: invalid entry '%s'", tok);
    }
    xfree(copy);
    return rc;
}

double sched_billing_rate(const struct sched_billing *b, int64_t cpus, uint64_t mem_mb,
                          int64_t gpus, int64_t nodes)
{
    return b->cpu * (double)cpus + b->mem_mb * (double)mem_mb + b->gpu * (double)gpus +
           b->node * (double)nodes;
}

double sched_usage_decay(double usage, int64_t dt_s, int64_t half_life_s)
{
    if (half_life_s <= 0 || dt_s <= 0)
        return usage;
    return usage * exp2(-(double)dt_s / (double)half_life_s);
}
