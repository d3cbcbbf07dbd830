/*
 * sreport_print: the reports in Slurm's layout. A banner (the title, the
 * period with its end one second before the next hour, the unit), then
 * right-justified columns as sacctmgr prints them; -n drops the banner and
 * the header, -p and -P print '|'-separated fields.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sreport/sreport.h"
#include "common/xmalloc.h"

#define RULE "--------------------------------------------------------------------------------"

static bool combined(enum sr_unit u)
{
    return u == U_MINPER || u == U_SECPER || u == U_HOURPER;
}

static void unit_label(const struct sreport *r, char *buf, size_t n);

static const char *unit_words(const struct sreport *r)
{
    static char buf[64];
    unit_label(r, buf, sizeof buf);
    return buf;
}

static void unit_label(const struct sreport *r, char *buf, size_t n)
{
    static const char *const words[] = { [U_MINUTES] = "Minutes", [U_SECONDS] = "Seconds",
                                         [U_HOURS] = "Hours", [U_MINPER] = "Minutes",
                                         [U_SECPER] = "Seconds", [U_HOURPER] = "Hours" };
    if (r->unit == U_PERCENT)
        snprintf(buf, n, "Percentage of Total");
    else
        snprintf(buf, n, "%s %s%s", r->gpu ? "GPU" : r->tres_given ? "TRES" : "CPU", words[r->unit],
                 combined(r->unit) ? "/Percentage of Total" : "");
}

void sr_banner(const struct sreport *r, const char *title, bool secs, const char *what)
{
    char a[32], b[32], unit[64];
    struct tm tm;
    time_t last = r->end - 1;
    if (r->noheader)
        return;
    strftime(a, sizeof a, "%Y-%m-%dT%H:%M:%S", localtime_r(&r->start, &tm));
    strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", localtime_r(&last, &tm));
    if (!strcmp(what, "Time"))   /* job sizes: "Time reported in Minutes" */
        snprintf(unit, sizeof unit, "%s", r->unit == U_PERCENT ? "Percentage of Total"
                 : strchr(unit_words(r), ' ') + 1);
    else
        unit_label(r, unit, sizeof unit);
    printf("%s\n%s %s - %s", RULE, title, a, b);
    if (secs)
        printf(" (%lld secs)", (long long)(r->end - r->start));
    printf("\n%s reported in %s\n%s\n", what, unit, RULE);
}

char *sr_value(const struct sreport *r, double secs, double total)
{
    static const double per[] = { [U_MINUTES] = 60, [U_SECONDS] = 1, [U_HOURS] = 3600,
                                  [U_PERCENT] = 1, [U_MINPER] = 60, [U_SECPER] = 1,
                                  [U_HOURPER] = 3600 };
    double pct = total > 0 ? secs * 100.0 / total : 0.0;
    if (r->unit == U_PERCENT)
        return xasprintf("%.2lf%%", pct);
    if (combined(r->unit))
        return xasprintf("%.0lf(%.2lf%%)", secs / per[r->unit], pct);
    return xasprintf("%.0lf", secs / per[r->unit]);
}

void sr_put(const struct sr_table *t, size_t i, const char *s, bool header)
{
    int w = t->widths[i];
    if (t->r->parsable) {
        fputs(s, stdout);
        if (t->r->parsable == 1 || i + 1 < t->n)
            fputc('|', stdout);
        if (i + 1 == t->n)
            fputc('\n', stdout);
        return;
    }
    if ((int)strlen(s) > w)
        printf(header ? "%.*s " : "%.*s+ ", header ? w : w - 1, s);
    else
        printf("%*s ", w, s);
    if (i + 1 == t->n)
        fputc('\n', stdout);
}

void sr_header(const struct sr_table *t)
{
    if (t->r->noheader)
        return;
    for (size_t i = 0; i < t->n; i++)
        sr_put(t, i, t->names[i], true);
    for (size_t i = 0; !t->r->parsable && i < t->n; i++)
        printf("%.*s %s", t->widths[i], RULE RULE, i + 1 == t->n ? "\n" : "");
}

/* The width of the value columns: at least 8 (17 for "N(P%)"), or the
 * longest value. */
int sr_value_width(const struct sreport *r, const double *vals, size_t n, double total)
{
    int w = combined(r->unit) ? 17 : 8;
    for (size_t i = 0; i < n; i++) {
        bool shown = false;
        for (size_t k = 0; k < r->ntres; k++)
            shown |= (size_t)r->tres[k] == i;
        if (!shown)
            continue;
        char *s = sr_value(r, vals[i], total);
        if ((int)strlen(s) > w)
            w = (int)strlen(s);
        free(s);
    }
    return w;
}

int sr_cluster_utilization(const struct sreport *r)
{
    static const char *const with[] = { "Cluster", "TRES Name", "Allocated", "Down",
                                         "PLND Down", "Idle", "Planned", "Reported" };
    double alloc[T_N] = { 0 };
    for (size_t i = 0; i < r->nuse; i++)
        for (int k = 0; k < T_N; k++)
            alloc[k] += r->use[i].secs[k];
    int vw = sr_value_width(r, r->cap, T_N, 1);
    bool tres = r->tres_given;
    const char *names[8];
    int widths[8];
    struct sr_table t = { r, names, widths, 0 };
    names[t.n] = "Cluster";
    widths[t.n++] = 9;
    if (tres) {
        names[t.n] = "TRES Name";
        widths[t.n++] = 14;
    }
    for (size_t i = 2; i < 8; i++) {
        names[t.n] = with[i];
        widths[t.n++] = vw;
    }
    sr_banner(r, "Cluster Utilization", false, "Usage");
    sr_header(&t);
    for (size_t k = 0; k < r->ntres; k++) {
        int x = r->tres[k];
        double v[] = { alloc[x], 0, 0, r->cap[x] - alloc[x], 0, r->cap[x] };
        size_t c = 0;
        sr_put(&t, c++, r->cluster, false);
        if (tres)
            sr_put(&t, c++, sr_tres_names[x], false);
        for (size_t i = 0; i < 6; i++, c++) {
            char *s = sr_value(r, v[i], r->cap[x]);
            sr_put(&t, c, s, false);
            free(s);
        }
    }
    return 0;
}
