/*
 * sreport_reports: cluster AccountUtilizationByUser (each account with what
 * it and the accounts under it used, then its users), UserUtilizationByAccount
 * and user top (users in accounts, most used first), job sizesbyaccount
 * (CPU time by job size). Without --tres one column "Used" of CPU time (and
 * Slurm's Energy, 0 here); with it, a row per TRES.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmdutil.h"
#include "cmd/sreport/sreport.h"
#include "common/acct_keys.h"
#include "common/xmalloc.h"

void sr_proper_name(const char *user, char *buf, size_t n)
{
    struct passwd *pw = user ? getpwnam(user) : NULL;
    snprintf(buf, n, "%.*s", pw && pw->pw_gecos ? (int)strcspn(pw->pw_gecos, ",") : 0,
             pw && pw->pw_gecos ? pw->pw_gecos : "");
}

static bool any_used(const struct sreport *r, const double secs[T_N])
{
    for (size_t k = 0; k < r->ntres; k++)
        if (secs[r->tres[k]] > 0)
            return true;
    return false;
}

/* The columns of a usage report: the leading ones, then Used and Energy,
 * or TRES Name and Used. */
static void usage_table(const struct sreport *r, struct sr_table *t, const char *const *lead,
                        const int *lead_w, size_t nlead)
{
    int vw = sr_value_width(r, r->cap, T_N, 1);
    t->n = 0;
    for (size_t i = 0; i < nlead; i++) {
        t->names[t->n] = lead[i];
        t->widths[t->n++] = lead_w[i];
    }
    if (r->tres_given) {
        t->names[t->n] = "TRES Name";
        t->widths[t->n++] = 14;
    }
    t->names[t->n] = "Used";
    t->widths[t->n++] = vw;
    if (!r->tres_given) {
        t->names[t->n] = "Energy";
        t->widths[t->n++] = vw;
    }
}

/* One entity's rows: the leading fields, then per TRES its use. */
static void usage_rows(const struct sr_table *t, const char *const *lead, size_t nlead,
                       const double secs[T_N])
{
    const struct sreport *r = t->r;
    for (size_t k = 0; k < r->ntres; k++) {
        int x = r->tres[k];
        size_t c = 0;
        for (; c < nlead; c++)
            sr_put(t, c, lead[c], false);
        if (r->tres_given)
            sr_put(t, c++, sr_tres_names[x], false);
        char *s = sr_value(r, secs[x], r->cap[x]);
        sr_put(t, c++, s, false);
        free(s);
        if (!r->tres_given)
            sr_put(t, c, "0", false);
    }
}

int sr_account_by_user(const struct sreport *r)
{
    static const char *const lead[] = { "Cluster", "Account", "Login", "Proper Name" };
    static const int lw[] = { 9, 15, 9, 15 };
    const char *names[8];
    int widths[8];
    struct sr_table t = { r, names, widths, 0 };
    usage_table(r, &t, lead, lw, 4);
    sr_banner(r, "Cluster/Account/User Utilization", true, "Usage");
    sr_header(&t);
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(r->db, "assocs"), i, a) {
        const char *acct = jget_str(a, "account", ""), *user = jget_str(a, "user", NULL);
        double secs[T_N];
        char proper[128];
        if (!acct_list_wants(r->accounts, acct) || (user && !acct_list_wants(r->users, user)))
            continue;
        if (!user)
            sreport_account_total(r, acct, secs);
        for (size_t k = 0; user && k < T_N; k++) {
            secs[k] = 0;
            for (size_t u = 0; u < r->nuse; u++)
                if (!strcmp(r->use[u].user, user) && !strcmp(r->use[u].account, acct))
                    secs[k] += r->use[u].secs[k];
        }
        if (!any_used(r, secs) && (user || strcmp(acct, "root")))
            continue;
        sr_proper_name(user, proper, sizeof proper);
        const char *row[] = { r->cluster, acct, user ? user : "", proper };
        usage_rows(&t, row, 4, secs);
    }
    return 0;
}

static int by_use(const void *a, const void *b)
{
    const struct sr_use *x = *(const struct sr_use *const *)a, *y = *(const struct sr_use *const *)b;
    double dx = x->secs[T_CPU] + x->secs[T_GPU], dy = y->secs[T_CPU] + y->secs[T_GPU];
    return dx < dy ? 1 : dx > dy ? -1 : strcmp(x->user, y->user);
}

int sr_user_by_account(const struct sreport *r, bool top)
{
    static const char *const lead[] = { "Cluster", "Login", "Proper Name", "Account" };
    static const int lw[] = { 9, 9, 15, 15 };
    const char *names[8];
    int widths[8];
    char title[64];
    struct sr_table t = { r, names, widths, 0 };
    usage_table(r, &t, lead, lw, 4);
    if (top && r->top < 0)
        snprintf(title, sizeof title, "Top ALL Users");
    else
        snprintf(title, sizeof title, top ? "Top %ld Users" : "Cluster/User/Account Utilization",
                 r->top);
    sr_banner(r, title, true, "Usage");
    sr_header(&t);
    const struct sr_use **rows = xcalloc(r->nuse + 1, sizeof *rows);
    size_t n = 0;
    for (size_t i = 0; i < r->nuse; i++)
        if (acct_list_wants(r->users, r->use[i].user) && acct_list_wants(r->accounts, r->use[i].account) &&
            any_used(r, r->use[i].secs))
            rows[n++] = &r->use[i];
    qsort(rows, n, sizeof *rows, by_use);
    for (size_t i = 0; i < n && (!top || r->top < 0 || (long)i < r->top); i++) {
        char proper[128];
        sr_proper_name(rows[i]->user, proper, sizeof proper);
        const char *row[] = { r->cluster, rows[i]->user, proper, rows[i]->account };
        usage_rows(&t, row, 4, rows[i]->secs);
    }
    free(rows);
    return 0;
}

int sr_job_sizes(const struct sreport *r)
{
    static const char *const names_[] = { "Cluster", "Account", "0-49 CPUs", "50-249 CPUs",
                                          "250-499 CPUs", "500-999 CPUs", ">= 1000 CPUs",
                                          "% of cluster" };
    int widths[] = { 9, 9, 13, 13, 13, 13, 13, 12 };
    struct sr_table t = { r, (const char **)names_, widths, 8 };
    double total = 0;
    for (size_t i = 0; i < r->nsizes; i++)
        for (int b = 0; b < SR_SIZES; b++)
            total += r->sizes[i].secs[b];
    sr_banner(r, "Job Sizes", true, "Time");
    sr_header(&t);
    for (size_t i = 0; i < r->nsizes; i++) {
        const struct sr_size *z = &r->sizes[i];
        double sum = 0;
        if (!acct_list_wants(r->accounts, z->account))
            continue;
        sr_put(&t, 0, r->cluster, false);
        sr_put(&t, 1, z->account, false);
        for (int b = 0; b < SR_SIZES; b++) {
            char *s = sr_value(r, z->secs[b], total);
            sr_put(&t, 2 + (size_t)b, s, false);
            free(s);
            sum += z->secs[b];
        }
        char pct[32];
        snprintf(pct, sizeof pct, "%.2lf%%", total > 0 ? sum * 100.0 / total : 0.0);
        sr_put(&t, 7, pct, false);
    }
    return 0;
}
