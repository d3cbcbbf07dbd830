/*
 * sprio: each pending job's priority and the factors it is made of, as
 * Slurm's sprio prints them. The default formats leave out the factors whose
 * weight is zero, as Slurm's do; -w prints the weights as a row.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/format.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "common/xmalloc.h"

#define PROG "sprio"
#define UNUSED __attribute__((unused))

#define SPRIO_FORMAT "%.15i %9r %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %20T"
#define SPRIO_FORMAT_LONG \
    "%.15i %9r %.8u %.8o %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10n %.10Q %.11N %.20T"

/* What a row shows: a job, or (weights_row) the weights. */
struct row {
    const json_t *job;
    const json_t *weights;
    bool weights_row;
};

struct sprio_opts {
    const char *format;
    bool long_list, norm, noheader, weights;
    struct strlist jobs;
    uid_t *uids;
    size_t nuids;
};

static char *factor(const struct row *r, const char *key, bool norm)
{
    if (r->weights_row)
        return xasprintf("%lld", (long long)jget_int(r->weights, key, 0));
    const json_t *set = json_object_get(r->job, norm ? "factors" : "weighted");
    double v = json_number_value(json_object_get(set, key));
    return norm ? xasprintf("%.7f", v) : xasprintf("%.0f", v);
}

static char *job_str(const struct row *r, const char *key)
{
    return xstrdup(r->weights_row ? "" : jget_str(r->job, key, ""));
}

#define FACTOR(fn, key, norm) \
    static char *fn(const void *rec, UNUSED const void *ctx, UNUSED bool *cut) \
    { return factor(rec, key, norm); }
#define STR(fn, key) \
    static char *fn(const void *rec, UNUSED const void *ctx, UNUSED bool *cut) \
    { return job_str(rec, key); }

FACTOR(f_age_n, "age", true)
FACTOR(f_age, "age", false)
FACTOR(f_assoc_n, "assoc", true)
FACTOR(f_assoc, "assoc", false)
FACTOR(f_fs_n, "fairshare", true)
FACTOR(f_fs, "fairshare", false)
FACTOR(f_size_n, "job_size", true)
FACTOR(f_size, "job_size", false)
FACTOR(f_part_n, "partition", true)
FACTOR(f_part, "partition", false)
FACTOR(f_qos_n, "qos", true)
FACTOR(f_qos, "qos", false)
STR(f_part_name, "partition")
STR(f_user, "user_name")
STR(f_account, "account")
STR(f_qos_name, "qos")
STR(f_tres, "tres")

static char *f_job_id(const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
{
    const struct row *r = rec;
    return r->weights_row ? xstrdup("Weights")
                          : xasprintf("%lld", (long long)jget_int(r->job, "job_id", 0));
}

static char *f_prio(const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
{
    const struct row *r = rec;
    return r->weights_row ? xstrdup("")
                          : xasprintf("%lld", (long long)jget_int(r->job, "priority", 0));
}

static char *f_prio_n(const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
{
    const struct row *r = rec;
    if (r->weights_row)
        return xstrdup("");
    return xasprintf("%.7f", (double)jget_int(r->job, "priority", 0) / 4294967295.0);
}

/* No site factor plugin: the site factor is 0, its weight 1 as Slurm shows. */
static char *f_site(const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
{
    const struct row *r = rec;
    return xstrdup(r->weights_row ? "1" : "0");
}

static char *f_nice(const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
{
    const struct row *r = rec;
    return r->weights_row ? xstrdup("")
                          : xasprintf("%lld", (long long)jget_int(r->job, "nice", 0));
}

static const struct fmt_code sprio_codes[] = {
    {'a', "AGE", 0, f_age_n, NULL}, {'A', "AGE", 0, f_age, NULL},
    {'b', "ASSOC", 0, f_assoc_n, NULL}, {'B', "ASSOC", 0, f_assoc, NULL},
    {'f', "FAIRSHARE", 0, f_fs_n, NULL}, {'F', "FAIRSHARE", 0, f_fs, NULL},
    {'i', "JOBID", 0, f_job_id, NULL},
    {'j', "JOBSIZE", 0, f_size_n, NULL}, {'J', "JOBSIZE", 0, f_size, NULL},
    {'N', "NICE", 0, f_nice, NULL}, {'n', "QOSNAME", 0, f_qos_name, NULL},
    {'o', "ACCOUNT", 0, f_account, NULL},
    {'p', "PARTITION", 0, f_part_n, NULL}, {'P', "PARTITION", 0, f_part, NULL},
    {'q', "QOS", 0, f_qos_n, NULL}, {'Q', "QOS", 0, f_qos, NULL},
    {'r', "PARTITION", 0, f_part_name, NULL},
    {'S', "SITE", 0, f_site, NULL},
    {'t', "TRES", 0, f_tres, NULL}, {'T', "TRES", 0, f_tres, NULL},
    {'u', "USER", 0, f_user, NULL},
    {'Y', "PRIORITY", 0, f_prio, NULL}, {'y', "PRIORITY", 0, f_prio_n, NULL},
    {0, NULL, 0, NULL, NULL},
};

/* The weight a factor code shows; NULL for codes that are no factor. */
static const char *code_weight(char code)
{
    switch (code) {
    case 'a': case 'A': return "age";
    case 'b': case 'B': return "assoc";
    case 'f': case 'F': return "fairshare";
    case 'j': case 'J': return "job_size";
    case 'p': case 'P': return "partition";
    case 'q': case 'Q': return "qos";
    case 't': case 'T': return "tres";
    }
    return NULL;
}

/* The default format less the zero-weight factors (and, with -n, with the
 * normalized codes); caller frees. */
static char *default_format(const struct sprio_opts *o, const json_t *weights)
{
    char *spec = xstrdup(o->long_list ? SPRIO_FORMAT_LONG : SPRIO_FORMAT);
    char *out = xcalloc(strlen(spec) + 1, 1), *save = NULL;
    for (char *tok = strtok_r(spec, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *code = tok + strlen(tok) - 1;
        const char *w = code_weight(*code);
        if (w && jget_int(weights, w, 0) == 0)
            continue;
        if (o->norm && w)
            *code = (char)(*code | 0x20);
        if (o->norm && *code == 'Y')
            *code = 'y';
        if (*out)
            strcat(out, " ");
        strcat(out, tok);
    }
    free(spec);
    return out;
}

static bool job_wanted(const json_t *job, const struct sprio_opts *o)
{
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
    if (o->jobs.n && !strlist_has(&o->jobs, id, false))
        return false;
    if (!o->nuids)
        return true;
    for (size_t i = 0; i < o->nuids; i++)
        if ((int64_t)o->uids[i] == jget_int(job, "user_id", -1))
            return true;
    return false;
}

static void sprio_print(const struct sprio_opts *o, const json_t *answer)
{
    const json_t *weights = json_object_get(answer, "weights");
    char *spec = o->format ? xstrdup(o->format) : default_format(o, weights);
    struct fmt *f = fmt_parse(spec, sprio_codes, PROG, "job");
    struct row r = { NULL, weights, true };
    size_t i;
    json_t *job;
    if (!o->noheader)
        fmt_print_row(stdout, f, NULL, NULL);
    if (o->weights) {
        fmt_print_row(stdout, f, &r, NULL);
    } else {
        r.weights_row = false;
        json_array_foreach(json_object_get(answer, "jobs"), i, job) {
            if (!job_wanted(job, o))
                continue;
            r.job = job;
            fmt_print_row(stdout, f, &r, NULL);
        }
    }
    fmt_destroy(f);
    free(spec);
}

static int add_users(struct sprio_opts *o, const char *csv)
{
    struct strlist l = { 0 };
    strlist_split(&l, csv);
    for (size_t i = 0; i < l.n; i++) {
        uid_t uid;
        if (cmd_parse_user(l.items[i], &uid) < 0) {
            cmd_error(PROG, "Invalid user: %s", l.items[i]);
            strlist_clear(&l);
            return -1;
        }
        o->uids = xrealloc(o->uids, (o->nuids + 1) * sizeof(*o->uids));
        o->uids[o->nuids++] = uid;
    }
    strlist_clear(&l);
    return 0;
}

static void sprio_usage(void)
{
    printf("Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
           "     [--federation] [--local] [--sibling] [--usage] [-hlnvw]\n");
}

enum { OPT_HELP = 0x100, OPT_USAGE };

static const struct option sprio_options[] = {
    {"format", required_argument, NULL, 'o'}, {"help", no_argument, NULL, OPT_HELP},
    {"jobs", optional_argument, NULL, 'j'},   {"long", no_argument, NULL, 'l'},
    {"noheader", no_argument, NULL, 'h'},     {"norm", no_argument, NULL, 'n'},
    {"usage", no_argument, NULL, OPT_USAGE},  {"user", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},      {"weights", no_argument, NULL, 'w'},
    {NULL, 0, NULL, 0},
};

static int sprio_parse(int argc, char **argv, struct sprio_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "hj::lno:u:vw", sprio_options, NULL)) != -1) {
        switch (c) {
        case 'h': o->noheader = true; break;
        case 'j':
            if (optarg)
                strlist_split(&o->jobs, optarg);
            else if (optind < argc && argv[optind][0] != '-')
                strlist_split(&o->jobs, argv[optind++]);
            break;
        case 'l': o->long_list = true; break;
        case 'n': o->norm = true; break;
        case 'o': o->format = optarg; break;
        case 'u': if (add_users(o, optarg) < 0) return -1; break;
        case 'v': break;
        case 'w': o->weights = true; break;
        case OPT_HELP: case OPT_USAGE: sprio_usage(); exit(0);
        default: fprintf(stderr, "Try \"sprio --help\" for more information\n"); return -1;
        }
    }
    for (size_t i = 0; i < o->jobs.n; i++)
        if (!cmd_parse_job_id(o->jobs.items[i])) {
            cmd_error(PROG, "Invalid job id: %s", o->jobs.items[i]);
            return -1;
        }
    return 0;
}

int cmd_sprio(int argc, char **argv)
{
    struct sprio_opts o = { 0 };
    json_t *answer = NULL;
    char err[256];
    int rc = 1;
    if (sprio_parse(argc, argv, &o) == 0) {
        int st = client_call(PROG, "GET", PATH_PRIORITIES, NULL, &answer, err, sizeof err);
        if (st != 200)
            cmd_error(PROG, "%s", st < 0 ? err : client_error_text(answer, st));
        else if (strcmp(jget_str(answer, "priority_type", ""), "priority/basic") == 0)
            fprintf(stderr, "You are not running a supported priority plugin\n"
                            "(priority/basic).\nOnly 'priority/multifactor' is supported.\n");
        else {
            sprio_print(&o, answer);
            rc = 0;
        }
    }
    json_decref(answer);
    strlist_clear(&o.jobs);
    free(o.uids);
    return rc;
}
