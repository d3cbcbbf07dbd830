/*
 * sreport: the command line (sreport.h). Options, then the report's kind
 * and name (cluster Utilization|AccountUtilizationByUser|
 * UserUtilizationByAccount, user TopUsage, job SizesByAccount,
 * reservation Utilization, user|account GPUUtilization), then
 * start=, end=, users=, accounts=, topcount=. The period is yesterday by
 * default; its ends are rounded to whole hours as Slurm's are.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/clock.h"
#include "client/pasttime.h"
#include "cmd/cmds.h"
#include "cmd/sreport/sreport.h"

static bool word_is(const char *w, const char *full, size_t min)
{
    size_t n = strlen(w);
    return n >= min && n <= strlen(full) && !strncasecmp(w, full, n);
}

static void set_unit(struct sreport *r, const char *s)
{
    static const struct { const char *name; enum sr_unit u; } units[] = {
        { "minutes", U_MINUTES }, { "seconds", U_SECONDS }, { "hours", U_HOURS },
        { "percent", U_PERCENT }, { "minper", U_MINPER }, { "secper", U_SECPER },
        { "hourper", U_HOURPER },
    };
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (word_is(s, units[i].name, 1) || (s[0] == '%' && units[i].u == U_PERCENT)) {
            r->unit = units[i].u;
            r->unit_given = true;
            return;
        }
    fprintf(stderr, "unknown time format %s\n", s);
}

static int set_tres(struct sreport *r, const char *list)
{
    char *copy = strdup(list), *save = NULL;
    r->ntres = 0;
    r->tres_given = true;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        while (k < T_N && strcasecmp(t, sr_tres_names[k]) && strcasecmp(t, "ALL"))
            k++;
        if (k == T_N) {
            fprintf(stderr, "sreport: error: Invalid TRES name: %s\n", t);
            free(copy);
            return -1;
        }
        for (int x = !strcasecmp(t, "ALL") ? 0 : k; x < (!strcasecmp(t, "ALL") ? T_N : k + 1);
             x++)
            r->tres[r->ntres++ % T_N] = x;
    }
    free(copy);
    return 0;
}

static int parse_opts(struct sreport *r, int argc, char **argv)
{
    static const struct option opts[] = {
        { "noheader", no_argument, NULL, 'n' }, { "parsable", no_argument, NULL, 'p' },
        { "parsable2", no_argument, NULL, 'P' }, { "time-format", required_argument, NULL, 't' },
        { "tres", required_argument, NULL, 'T' }, { "quiet", no_argument, NULL, 'Q' },
        { "verbose", no_argument, NULL, 'v' }, { "json", no_argument, NULL, 'J' },
        { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+npPt:T:Qv", opts, NULL)) != -1) {
        switch (c) {
        case 'n': r->noheader = true; break;
        case 'p': r->parsable = 1; break;
        case 'P': r->parsable = 2; break;
        case 't': set_unit(r, optarg); break;
        case 'T': if (set_tres(r, optarg) < 0) return -1; break;
        case 'J': r->json = true; break;
        case 'Q': case 'v': break;
        default: return -1;
        }
    }
    return optind;
}

static time_t hour_floor(time_t t)
{
    return t - t % 3600;
}

static void add_list(json_t **to, const char *list)
{
    if (!*to)
        *to = json_array();
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        json_array_append_new(*to, json_string(t));
    free(copy);
}

/* start=, end=, users=, accounts=, topcount=; others (cluster=) are the
 * one cluster there is. */
static int parse_conditions(struct sreport *r, int argc, char **argv)
{
    time_t now = (time_t)client_now();
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        char key[32];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - argv[i]) : 0, argv[i]);
        time_t *t = word_is(key, "start", 1) ? &r->start : word_is(key, "end", 1) ? &r->end
                                                                                 : NULL;
        if (!eq)
            continue;
        if (t && client_parse_past_time(eq + 1, now, t) < 0) {
            fprintf(stderr, "sreport: error: Invalid time specification: %s\n", eq + 1);
            return -1;
        }
        if (word_is(key, "users", 1))
            add_list(&r->users, eq + 1);
        else if (word_is(key, "accounts", 2))
            add_list(&r->accounts, eq + 1);
        else if (word_is(key, "topcount", 1))
            r->top = strtol(eq + 1, NULL, 10);
    }
    return 0;
}

/* Slurm's: yesterday by default; the start rounded up to the hour, the
 * end down, at least an hour. */
static void set_period(struct sreport *r, bool start_given)
{
    struct tm tm;
    time_t now = (time_t)client_now();
    if (!start_given) {
        localtime_r(&now, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_isdst = -1;
        r->end = r->end ? r->end : mktime(&tm);
        tm.tm_mday -= 1;
        r->start = mktime(&tm);
    }
    if (!r->end)
        r->end = now;
    if (r->start % 3600)
        r->start = hour_floor(r->start) + 3600;
    r->end = hour_floor(r->end);
    if (r->end <= r->start)
        r->end = r->start + 3600;
}

/* user|account GPUUtilization: GPU time in hours unless -t says otherwise. */
static int run_gpu(struct sreport *r, bool by_account)
{
    r->gpu = true;
    if (!r->unit_given)
        r->unit = U_HOURS;
    return sr_gpu_utilization(r, by_account);
}

static int run(struct sreport *r, const char *kind, const char *name)
{
    bool gpu = word_is(name, "GPUUtilization", 3);
    if (gpu && word_is(kind, "user", 1))
        return run_gpu(r, false);
    if (gpu && word_is(kind, "account", 2))
        return run_gpu(r, true);
    if (r->json) {
        fprintf(stderr, "sreport: error: --json is for the GPU reports only (user "
                        "GPUUtilization, account GPUUtilization)\n");
        return 1;
    }
    if (word_is(kind, "cluster", 1) && word_is(name, "Utilization", 2))
        return sr_cluster_utilization(r);
    if (word_is(kind, "cluster", 1) && word_is(name, "AccountUtilizationByUser", 2))
        return sr_account_by_user(r);
    if (word_is(kind, "cluster", 1) && word_is(name, "UserUtilizationByAccount", 2))
        return sr_user_by_account(r, false);
    if (word_is(kind, "user", 1) && (word_is(name, "TopUsage", 2) || word_is(name, "top", 3)))
        return sr_user_by_account(r, true);
    if (word_is(kind, "job", 1) && word_is(name, "SizesByAccount", 2))
        return sr_job_sizes(r);
    bool resv = word_is(kind, "reservation", 2) || word_is(kind, "resv", 2);
    if (resv && word_is(name, "Utilization", 2))
        return sr_resv_utilization(r);
    fprintf(stderr, "Not valid report %s\n", name);
    if (resv)
        fprintf(stderr, "Valid reservation reports are, \"Utilization\"\n");
    if (word_is(kind, "user", 1))
        fprintf(stderr, "Valid user reports are, \"GPUUtilization\" and \"TopUsage\"\n");
    if (word_is(kind, "account", 2))
        fprintf(stderr, "Valid account reports are, \"GPUUtilization\"\n");
    if (word_is(kind, "cluster", 1))
        fprintf(stderr, "Valid cluster reports are, \"AccountUtilizationByUser\", "
                        "\"UserUtilizationByAccount\", \"UserUtilizationByWckey\", "
                        "\"Utilization\", and \"WCKeyUtilizationByUser\"\n");
    return 1;
}

int cmd_sreport(int argc, char **argv)
{
    struct sreport r = { .unit = U_MINUTES, .top = 10, .ntres = 1, .tres = { T_CPU } };
    int first = parse_opts(&r, argc, argv), rc = 1;
    if (first >= 0 && first + 2 > argc)
        fprintf(stderr, "sreport: error: a report is needed: sreport cluster Utilization, "
                        "cluster AccountUtilizationByUser, user TopUsage, user GPUUtilization, ...\n");
    else if (first >= 0 && parse_conditions(&r, argc - first - 2, argv + first + 2) == 0) {
        bool start_given = r.start != 0;
        set_period(&r, start_given);
        rc = sreport_load(&r);
        if (rc == 0)
            rc = run(&r, argv[first], argv[first + 1]);
    }
    sreport_free(&r);
    return rc;
}
