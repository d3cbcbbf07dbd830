/*
 * limits_spent: GrpTRESMins and GrpWall, limits on what a group has used
 * (decayed as fair share's usage: usage.c), not on what it holds. A QOS's
 * is what its jobs used; an association's, what the jobs of every
 * association under it used. Once used reaches the limit the group's new
 * jobs wait; under AccountingStorageEnforce=safe a job starts only if what
 * it may use by its time limit fits what is left. (Slurm without "safe"
 * also ends running jobs at the limit; Herd lets them finish.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/limits_int.h"
#include "ctld/prio.h"

static const struct { enum sched_res r; int what; } dims[] = {
    { SCHED_RES_CPU_SPENT, USAGE_SPENT_CPU }, { SCHED_RES_GPU_SPENT, USAGE_SPENT_GPU },
    { SCHED_RES_BILLING_SPENT, USAGE_SPENT_BILLING }, { SCHED_RES_WALL_SPENT, USAGE_SPENT_WALL },
};

static bool under(const struct assocs *as, size_t a, size_t x)
{
    for (size_t i = a; i != SCHED_ASSOC_NONE; i = as->a[i].parent)
        if (i == x)
            return true;
    return false;
}

/* Minutes the group used: a QOS's own, or the sum under an association. */
static double used(const struct ctld *c, const struct limit_src *src, int what)
{
    struct prio *p = prio_get(c);
    if (src->kind == LK_QOS_GROUP) {
        char *k = xasprintf("q:%s", src->name);
        double u = usage_spent(p, k, what);
        free(k);
        return u;
    }
    size_t x = src->holder ? assocs_user(&p->as, src->holder, src->name)
                           : assocs_account(&p->as, src->name);
    double sum = 0;
    const char *key;
    json_t *v;
    json_object_foreach(p->spent, key, v) {
        char acct[256];
        const char *user = key[0] == 'a' ? strchr(key + 2, ':') : NULL;
        if (!user || (size_t)(user - key - 2) >= sizeof acct)
            continue;
        snprintf(acct, sizeof acct, "%.*s", (int)(user - key - 2), key + 2);
        if (under(&p->as, assocs_user(&p->as, user + 1, acct), x))
            sum += usage_spent(p, key, what);
    }
    return sum;
}

/* Under "safe" a job starts only if what it may spend by its time limit
 * fits what is left; otherwise while anything is left. */
void limits_spent(const struct ctld *c, const struct limit_src *src, struct sched_limit *l,
                  struct limit_info *li)
{
    bool safe = c->conf->acct_enforce & ENFORCE_SAFE;
    for (size_t i = 0; i < sizeof dims / sizeof *dims; i++) {
        int64_t cap = l->left[dims[i].r];
        if (cap < 0)
            continue;
        double u = used(c, src, dims[i].what);
        li->cap[dims[i].r] = cap;
        li->spent[dims[i].what] = u;
        l->left[dims[i].r] = u >= (double)cap ? 0 : safe ? (int64_t)((double)cap - u)
                                                         : SCHED_SPEND_UNBOUNDED;
    }
}
