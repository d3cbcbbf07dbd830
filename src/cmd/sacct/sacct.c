/*
 * sacct: the accounting records of jobs, as Slurm's sacct shows them, read
 * from the controller (GET /v1/accounting), which keeps every job's record.
 * The controller selects (ids, users, names, partitions, states, the time
 * window, nodes); this side chooses the window as Slurm does and prints.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/jobstate.h"
#include "common/json_fast.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "client/pasttime.h"
#include "cmd/sacct/sacct.h"
#include "common/conf.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define PROG "sacct"

enum {
    OPT_NAME = 0x100, OPT_DELIM, OPT_UNITS, OPT_JSON, OPT_NOCONVERT, OPT_HELP, OPT_USAGE,
};

static const struct option sacct_options[] = {
    {"allusers", no_argument, NULL, 'a'},
    {"accounts", required_argument, NULL, 'A'},
    {"allocations", no_argument, NULL, 'X'},
    {"allclusters", no_argument, NULL, 'L'},
    {"brief", no_argument, NULL, 'b'},
    {"clusters", required_argument, NULL, 'M'},
    {"delimiter", required_argument, NULL, OPT_DELIM},
    {"duplicates", no_argument, NULL, 'D'},
    {"endtime", required_argument, NULL, 'E'},
    {"format", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, OPT_HELP},
    {"helpformat", no_argument, NULL, 'e'},
    {"jobs", required_argument, NULL, 'j'},
    {"job", required_argument, NULL, 'j'},
    {"json", no_argument, NULL, OPT_JSON},
    {"long", no_argument, NULL, 'l'},
    {"name", required_argument, NULL, OPT_NAME},
    {"noconvert", no_argument, NULL, OPT_NOCONVERT},
    {"nodelist", required_argument, NULL, 'N'},
    {"noheader", no_argument, NULL, 'n'},
    {"parsable", no_argument, NULL, 'p'},
    {"parsable2", no_argument, NULL, 'P'},
    {"partition", required_argument, NULL, 'r'},
    {"starttime", required_argument, NULL, 'S'},
    {"state", required_argument, NULL, 's'},
    {"truncate", no_argument, NULL, 'T'},
    {"units", required_argument, NULL, OPT_UNITS},
    {"usage", no_argument, NULL, OPT_USAGE},
    {"user", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

struct sacct_opts {
    const char *format;
    bool all_users, brief, long_fmt, json, duplicates;
    struct strlist jobs, users, names, parts, states;
    const char *start, *end, *nodes;
    struct sacct_out out;
    struct sacct_ctx ctx;
};

static void sacct_usage(void)
{
    printf("Usage: sacct [-a] [-b] [-e] [-j jobs] [-l] [-n] [-N nodes] [-o format] [-p|-P]\n"
           "             [-r partitions] [-s states] [-S start] [-E end] [-u users] [-X] [-D]\n"
           "             [--name names] [--delimiter c] [--units K|M|G|T|P] [--json]\n");
}

static int opt_units(struct sacct_opts *o, const char *s)
{
    char u = (char)toupper((unsigned char)s[0]);
    if (!s[0] || (s[1] && !(toupper((unsigned char)s[1]) == 'B' && !s[2])) ||
        !strchr("KMGTP", u)) {
        cmd_error(PROG, "Invalid --units value: %s", s);
        return -1;
    }
    o->ctx.units = u;
    return 0;
}

static int opt_states(struct sacct_opts *o, const char *csv)
{
    struct strlist l = {0};
    int rc = 0;
    strlist_split(&l, csv);
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        const char *name = jobstate_parse(l.items[i]);
        if (!name) {
            cmd_error(PROG, "Invalid state: %s", l.items[i]);
            rc = -1;
        } else {
            strlist_split(&o->states, name);
        }
    }
    strlist_clear(&l);
    return rc;
}

static int sacct_option(struct sacct_opts *o, int c)
{
    switch (c) {
    case 'a': o->all_users = true; return 0;
    case 'b': o->brief = true; return 0;
    case 'l': o->long_fmt = true; return 0;
    case 'n': o->out.noheader = true; return 0;
    case 'p': o->out.parsable = 1; return 0;
    case 'P': o->out.parsable = 2; return 0;
    case 'X': o->out.allocations = true; return 0;
    case 'o': o->format = optarg; return 0;
    case 'j': strlist_split(&o->jobs, optarg); return 0;
    case 'u': strlist_split(&o->users, optarg); return 0;
    case 'r': strlist_split(&o->parts, optarg); return 0;
    case 's': return opt_states(o, optarg);
    case 'S': o->start = optarg; return 0;
    case 'E': o->end = optarg; return 0;
    case 'N': o->nodes = optarg; return 0;
    case OPT_NAME: strlist_split_raw(&o->names, optarg); return 0;
    case OPT_DELIM: o->out.delim = optarg; return 0;
    case OPT_UNITS: return opt_units(o, optarg);
    case OPT_JSON: o->json = true; return 0;
    case OPT_NOCONVERT: o->ctx.noconvert = true; return 0;
    case 'D': o->duplicates = true; return 0;
    case 'A': case 'L': case 'M': case 'T': case 'v': return 0;
    case 'e': sacct_helpformat(sacct_fields); exit(0);
    case OPT_HELP: case OPT_USAGE: sacct_usage(); exit(0);
    default:    /* getopt has spoken; Slurm's sacct adds no hint */
        return -1;
    }
}

static int sacct_parse(int argc, char **argv, struct sacct_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "aA:bDE:ehj:lLM:nN:o:pPr:s:S:Tu:vX", sacct_options,
                            NULL)) != -1)
        if (sacct_option(o, c) < 0)
            return -1;
    if (optind < argc) {
        cmd_error(PROG, "Unrecognized option: %s", argv[optind]);
        sacct_usage();
        return -1;
    }
    const char *fmt = o->format ? o->format : getenv("SACCT_FORMAT");
    if (!fmt || !*fmt)
        fmt = o->long_fmt ? SACCT_FORMAT_LONG : o->brief ? SACCT_FORMAT_BRIEF : SACCT_FORMAT;
    if (!o->out.delim)
        o->out.delim = "|";
    return sacct_parse_format(&o->out, sacct_fields, PROG, fmt);
}

static void opts_clear(struct sacct_opts *o)
{
    strlist_clear(&o->jobs);
    strlist_clear(&o->users);
    strlist_clear(&o->names);
    strlist_clear(&o->parts);
    strlist_clear(&o->states);
    free(o->out.cols);
}

/* RFC 3986 percent-encoding of a query value. */
static void add_encoded(char **q, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        char *next = isalnum(*p) || strchr("-._~,", *p) ? xasprintf("%s%c", *q, *p)
                                                         : xasprintf("%s%%%02X", *q, *p);
        free(*q);
        *q = next;
    }
}

static void add_param(char **q, const char *key, const char *value)
{
    char *next = xasprintf("%s%s%s=", *q, strchr(*q, '?') ? "&" : "?", key);
    free(*q);
    *q = next;
    add_encoded(q, value);
}

static void add_list(char **q, const char *key, const struct strlist *l)
{
    if (!l->n)
        return;
    char *csv = xstrdup("");
    for (size_t i = 0; i < l->n; i++) {
        char *next = xasprintf("%s%s%s", csv, i ? "," : "", l->items[i]);
        free(csv);
        csv = next;
    }
    add_param(q, key, csv);
    free(csv);
}

/* -j items: "123", "123.batch", "123_4", "123_4.batch"; the ids (of an
 * array for 123_4) go to the controller, tasks and steps choose rows here. */
static int parse_jobs(struct sacct_opts *o, struct sacct_want **want, struct strlist *ids)
{
    *want = xcalloc(o->jobs.n + 1, sizeof **want);
    for (size_t i = 0; i < o->jobs.n; i++) {
        char *item = o->jobs.items[i], *dot = strchr(item, '.'), num[16];
        if (dot)
            *dot = '\0';
        uint32_t id = cmd_parse_job_id(item), task = 0;
        bool one_task = !id && cmd_parse_task_id(item, &id, &task);
        if (!id) {
            cmd_error(PROG, "Invalid job id: %s", item);
            return -1;
        }
        (*want)[i] = (struct sacct_want){ id, dot ? dot + 1 : NULL, one_task ? (int64_t)task : -1 };
        snprintf(num, sizeof num, "%u", id);
        strlist_split(ids, num);
    }
    return 0;
}

static int add_users(struct sacct_opts *o, char **q)
{
    struct strlist uids = {0};
    int rc = 0;
    char num[24];
    for (size_t i = 0; i < o->users.n && rc == 0; i++) {
        uid_t uid;
        if (cmd_parse_user(o->users.items[i], &uid) < 0) {
            cmd_error(PROG, "Invalid user id: %s", o->users.items[i]);
            rc = -1;
        } else {
            snprintf(num, sizeof num, "%u", (unsigned)uid);
            strlist_split(&uids, num);
        }
    }
    /* as Slurm: a user sees their own jobs unless -a or -u; root sees all */
    if (!o->users.n && !o->all_users && geteuid() != 0) {
        snprintf(num, sizeof num, "%u", (unsigned)geteuid());
        strlist_split(&uids, num);
    }
    add_list(q, "users", &uids);
    strlist_clear(&uids);
    return rc;
}

static time_t midnight(time_t now)
{
    struct tm tm;
    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static int parse_when(const char *s, time_t now, time_t *t)
{
    if (client_parse_past_time(s, now, t) == 0)
        return 0;
    fprintf(stderr, "Invalid time specification (pos=0): %s\n", s);
    return -1;
}

/* Slurm's window: -S, else none with -j, else now with -s, else midnight
 * today; -E, else now. */
static int add_window(struct sacct_opts *o, char **q)
{
    time_t now = (time_t)client_now(), start, end = now;
    if ((o->start && parse_when(o->start, now, &start) < 0) ||
        (o->end && parse_when(o->end, now, &end) < 0))
        return -1;
    if (!o->start) {
        if (o->jobs.n && !o->end)
            return 0;
        start = o->jobs.n ? 0 : o->states.n ? now : midnight(now);
    }
    if (start > end) {
        char a[64], b[64];
        struct tm tm;
        strftime(a, sizeof a, "%Y-%m-%dT%H:%M:%S", localtime_r(&start, &tm));
        strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%S", localtime_r(&end, &tm));
        cmd_error(PROG, "Start time (%s) requested is after end time (%s).", a, b);
        return -1;
    }
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)start);
    add_param(q, "start", num);
    snprintf(num, sizeof num, "%lld", (long long)end);
    add_param(q, "end", num);
    return 0;
}

/* What outside_window, and take_runs for -D, read of a record. */
#define WINDOW_KEYS "held_user,held_admin,spec.array"
#define RUNS_KEYS "submit_time"

/* Adds csv's keys that keys lacks. */
static void keys_add(struct strlist *keys, const char *csv)
{
    struct strlist l = {0};
    strlist_split(&l, csv);
    for (size_t i = 0; i < l.n; i++)
        if (!strlist_has(keys, l.items[i], false))
            strlist_split(keys, l.items[i]);
    strlist_clear(&l);
}

/* &keys=: the members of each record that the rows read, so that the
 * controller sends, and this side parses, no more (100,000 whole records
 * cost both most of a second). --json prints them all. */
static void add_keys(const struct sacct_opts *o, char **q)
{
    struct strlist keys = {0};
    keys_add(&keys, SACCT_ROW_KEYS "," WINDOW_KEYS);
    if (o->duplicates)
        keys_add(&keys, RUNS_KEYS);
    if (!o->out.allocations)
        keys_add(&keys, SACCT_STEP_KEYS);
    bool all = o->json;
    for (size_t i = 0; i < o->out.ncols && !all; i++)
        if (!(all = !o->out.cols[i].f->keys))
            keys_add(&keys, o->out.cols[i].f->keys);
    if (!all)
        add_list(q, "keys", &keys);
    strlist_clear(&keys);
}

static char *sacct_path(struct sacct_opts *o, struct sacct_want **want)
{
    char *q = xstrdup(PATH_ACCOUNTING);
    struct strlist ids = {0};
    int rc = parse_jobs(o, want, &ids);
    if (rc == 0)
        rc = add_users(o, &q);
    if (rc == 0)
        rc = add_window(o, &q);
    add_list(&q, "ids", &ids);
    add_list(&q, "names", &o->names);
    add_list(&q, "partitions", &o->parts);
    add_list(&q, "states", &o->states);
    if (o->nodes)
        add_param(&q, "nodes", o->nodes);
    if (o->duplicates)
        add_param(&q, "duplicates", "1");
    add_keys(o, &q);
    strlist_clear(&ids);
    if (rc < 0) {
        free(q);
        return NULL;
    }
    return q;
}

/* Whether a window query (no -j) leaves the job out: Slurm 22.05 lists a
 * job in a window only once it was eligible to run, so never a held job
 * that did not run (pending, or cancelled so), nor an array's record once
 * tasks have left it: both show Eligible Unknown (slurm-ref, 2026-12).
 * With -s the window is the time in those states, and only a pending job
 * needs to have been eligible. */
static bool outside_window(const json_t *rec, bool by_state)
{
    if (json_array_size(json_object_get(rec, "allocs")) > 0)
        return false;   /* it ran */
    if (by_state && strcmp(jget_str(rec, "state", ""), "PENDING"))
        return false;
    if (jget_bool(rec, "held_user", false) || jget_bool(rec, "held_admin", false))
        return true;
    const char *tasks = jget_str(rec, "array_task_str", "");
    return *tasks && strcmp(tasks, jget_str(json_object_get(rec, "spec"), "array", ""));
}

/* What is done with each job of the answer, in the answer's order: a
 * table row, or --json's document. An array's pending record is printed
 * after the tasks that follow it, as in Slurm 22.05 (its tasks left it and
 * were recorded after it). */
struct sacct_run {
    const struct sacct_opts *o;
    const struct sacct_want *want;
    json_t *held;   /* that pending record, until its tasks are printed */
    json_t *json;   /* --json: the jobs' documents */
    json_t *runs;   /* -D: every record, printed once all are in (take_runs) */
};

static void release_held(struct sacct_run *s)
{
    if (s->held)
        sacct_print_job(stdout, &s->o->out, &s->o->ctx, s->held, s->want, s->o->jobs.n);
    json_decref(s->held);
    s->held = NULL;
}

static void take_job(struct sacct_run *s, json_t *j)
{
    const struct sacct_opts *o = s->o;
    const json_t *rec = json_object_get(j, "record");
    if (s->json) {
        sacct_json_add(s->json, j, &o->ctx, s->want, o->jobs.n);
        return;
    }
    if (!o->jobs.n && outside_window(rec, o->states.n > 0))
        return;
    int64_t array = jget_int(rec, "array_job_id", 0);
    if (s->held && array != jget_int(json_object_get(s->held, "record"), "array_job_id", 0))
        release_held(s);
    if (!s->held && array && sacct_is_pending_array(rec))
        s->held = json_incref(j);
    else
        sacct_print_job(stdout, &o->out, &o->ctx, j, s->want, o->jobs.n);
}

/* The answer of ?format=lines as it arrives: {"now": T}, then a job a
 * line, each parsed and handed on alone (100,000 records as one tree cost
 * seconds, and as one text most of a second in page faults). */
struct sacct_lines {
    struct sacct_opts *o;
    struct sacct_run *s;
    size_t n;
    bool bad;
};

static int take_line(char *line, size_t len, void *arg)
{
    struct sacct_lines *l = arg;
    if (!len)
        return 0;
    json_t *j = json_fast_loadb(line, len, NULL);
    if (!j) {
        l->bad = true;
        return 1;
    }
    if (l->n++ == 0) {
        l->o->ctx.now = jget_int(j, "now", client_now());
        if (!l->o->json)
            sacct_print_header(stdout, &l->o->out);
    } else if (l->s->runs) {
        json_array_append(l->s->runs, j);
    } else {
        take_job(l->s, j);
    }
    json_decref(j);
    return 0;
}

struct run_key {
    int64_t submit;
    size_t at;
    json_t *job;
};

static int run_cmp(const void *a, const void *b)
{
    const struct run_key *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* -D: Slurm lists records in the order its database made them, a requeued
 * run's next record at the requeue (its SubmitTime), so a job requeued
 * twice comes after the jobs submitted between (slurm-ref, 2026-12). The
 * answer is by id, each job's runs first: ordered by SubmitTime, stable. */
static void take_runs(struct sacct_run *s)
{
    size_t n = json_array_size(s->runs), i;
    struct run_key *k = xcalloc(n + 1, sizeof *k);
    json_t *j;
    json_array_foreach(s->runs, i, j)
        k[i] = (struct run_key){ jget_int(json_object_get(j, "record"), "submit_time", 0), i, j };
    qsort(k, n, sizeof *k, run_cmp);
    for (i = 0; i < n; i++)
        take_job(s, k[i].job);
    free(k);
}

int cmd_sacct(int argc, char **argv)
{
    struct sacct_opts o = {0};
    struct sacct_want *want = NULL;
    json_t *error = NULL;
    char err[256], *path = NULL;
    int rc = 1;
    if (sacct_parse(argc, argv, &o) < 0 || !(path = sacct_path(&o, &want)))
        goto out;
    add_param(&path, "format", "lines");
    o.ctx.cluster = client_conf(PROG)->cluster_name;
    struct sacct_run s = { &o, want, NULL, o.json ? json_array() : NULL,
                           o.duplicates ? json_array() : NULL };
    struct sacct_lines l = { &o, &s, 0, false };
    int status = client_get_lines(PROG, path, take_line, &l, &error, err, sizeof err);
    if (status != 200) {
        cmd_error(PROG, "%s", status < 0 ? err : client_error_text(error, status));
    } else if (l.bad) {
        cmd_error(PROG, "Unexpected message received");
    } else {
        if (!l.n && !o.json)
            sacct_print_header(stdout, &o.out);
        if (s.runs)
            take_runs(&s);
        release_held(&s);
        if (s.json)
            sacct_print_json(stdout, s.json, &o.ctx);
        rc = 0;
    }
    json_decref(s.held);
    json_decref(s.json);
    json_decref(s.runs);
out:
    free(path);
    free(want);
    json_decref(error);
    opts_clear(&o);
    return rc;
}
