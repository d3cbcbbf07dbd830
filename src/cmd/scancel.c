/*
 * scancel: cancels or signals jobs, named by id or picked by filters (user,
 * name, partition, state) from the controller's list of active jobs.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/jobstate.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "common/rawstr.h"
#include "common/xmalloc.h"
#include "common/slurm_errno.h"

#define PROG "scancel"

enum { OPT_ME = 0x100, OPT_HELP, OPT_USAGE };

struct scancel_opts {
    struct strlist ids;
    const char *user, *name, *partition, *state;
    uid_t uid;
    int signal;                /* 0: cancel */
    bool batch;                /* -b: a signal goes to the batch shell only */
    bool full;                 /* -f: to the batch shell and the steps; else the steps only */
    int verbose;               /* -v adds one; -Q sets -1 (Slurm's opt.verbose) */
};

/* Slurm's codes (slurm_errno.h) in the controller's error answers. */

static const struct option scancel_options[] = {
    {"batch", no_argument, NULL, 'b'},
    {"full", no_argument, NULL, 'f'},
    {"help", no_argument, NULL, OPT_HELP},
    {"jobname", required_argument, NULL, 'n'},
    {"me", no_argument, NULL, OPT_ME},
    {"name", required_argument, NULL, 'n'},
    {"partition", required_argument, NULL, 'p'},
    {"quiet", no_argument, NULL, 'Q'},
    {"signal", required_argument, NULL, 's'},
    {"state", required_argument, NULL, 't'},
    {"usage", no_argument, NULL, OPT_USAGE},
    {"user", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

/* "KILL", "SIGKILL", "9"; 0 when none of these. */
static int scancel_signal(const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s && !*end)
        return n > 0 && n < NSIG ? (int)n : 0;
    if (!strncasecmp(s, "SIG", 3))
        s += 3;
    for (int i = 1; i < NSIG; i++) {
        const char *abbrev = sigabbrev_np(i);
        if (abbrev && !strcasecmp(abbrev, s))
            return i;
    }
    return 0;
}

/* "123_4" or "123_[1-3,7]": an array's tasks. Into base the array's id,
 * into tasks the task list; false when s is no such form. */
static bool array_task_id(const char *s, char *base, size_t blen, char *tasks, size_t tlen)
{
    const char *us = strchr(s, '_');
    if (!us || (size_t)(us - s) >= blen)
        return false;
    snprintf(base, blen, "%.*s", (int)(us - s), s);
    const char *t = us + 1;
    size_t n = strlen(t);
    if (n > 2 && t[0] == '[' && t[n - 1] == ']')
        snprintf(tasks, tlen, "%.*s", (int)(n - 2), t + 1);
    else
        snprintf(tasks, tlen, "%s", t);
    return cmd_parse_job_id(base) && tasks[0] >= '0' && tasks[0] <= '9' && !strchr(tasks, '%');
}

static bool valid_job_id(const char *s)
{
    char base[24], tasks[256];
    return cmd_parse_job_id(s) || array_task_id(s, base, sizeof base, tasks, sizeof tasks);
}

static int scancel_option(struct scancel_opts *o, int c)
{
    static char me[24];
    switch (c) {
    case 'b': o->batch = true; o->full = false; return 0;
    case 'f': o->full = true; o->batch = false; return 0;
    case 'v': o->verbose++; return 0;
    case 'Q': o->verbose = -1; return 0;
    case 'n': o->name = optarg; return 0;
    case 'p': o->partition = optarg; return 0;
    case 'u': o->user = optarg; return 0;
    case OPT_ME:
        snprintf(me, sizeof me, "%u", (unsigned)getuid());
        o->user = me;
        return 0;
    case 't':
        if (!(o->state = jobstate_parse(optarg))) {
            fprintf(stderr, "Invalid job state specified: %s\n", optarg);
            fprintf(stderr, "Valid job states are PENDING, RUNNING, and SUSPENDED\n");
            return -1;
        }
        return 0;
    case 's':
        if (!(o->signal = scancel_signal(optarg))) {
            fprintf(stderr, "Unknown job signal: %s\n", optarg);
            return -1;
        }
        return 0;
    case OPT_HELP: case OPT_USAGE:
        printf("Usage: scancel [-bfQv] [-n job_name] [-p partition] [-s signal] [-t state]\n"
               "               [-u user_name] [--me] [job_id ...]\n");
        exit(0);
    default:
        fprintf(stderr, "Try \"scancel --help\" for more information\n");
        return -1;
    }
}

static int scancel_parse(int argc, char **argv, struct scancel_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "bfn:p:Qs:t:u:v", scancel_options, NULL)) != -1)
        if (scancel_option(o, c) < 0)
            return -1;
    for (; optind < argc; optind++) {
        if (strchr(argv[optind], '[')) {   /* 123_[1,3]: its commas are the array's */
            o->ids.items = xrealloc(o->ids.items, (o->ids.n + 1) * sizeof *o->ids.items);
            o->ids.items[o->ids.n++] = xstrdup(argv[optind]);
        } else {
            strlist_split(&o->ids, argv[optind]);
        }
    }
    for (size_t i = 0; i < o->ids.n; i++) {
        if (!valid_job_id(o->ids.items[i])) {
            cmd_error(PROG, "Invalid job id %s", o->ids.items[i]);
            return -1;
        }
    }
    if (o->user && cmd_parse_user(o->user, &o->uid) < 0) {
        cmd_error(PROG, "Invalid user name: %s", o->user);
        return -1;
    }
    if (!o->ids.n && !o->user && !o->name && !o->partition && !o->state) {
        cmd_error(PROG, "No job identification provided");
        return -1;
    }
    return 0;
}

/* -n compares the bytes the user gave with the name's (common/rawstr.h). */
static bool name_is(const json_t *job, const char *name)
{
    char *mine = rawstr_decode(jget_str(job, "name", ""));
    bool same = strcmp(mine, name) == 0;
    free(mine);
    return same;
}

static bool scancel_matches(const json_t *job, const struct scancel_opts *o)
{
    const char *state = jget_str(job, "state", "");
    if (!jobstate_is_active(state) || (o->state && strcmp(o->state, state)))
        return false;
    if (o->ids.n) {   /* an array's id names its tasks too */
        char id[24], array[24];
        snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
        snprintf(array, sizeof array, "%lld", (long long)jget_int(job, "array_job_id", 0));
        if (!strlist_has(&o->ids, id, false) && !strlist_has(&o->ids, array, false))
            return false;
    }
    if (o->user && (uid_t)jget_int(job, "user_id", -1) != o->uid)
        return false;
    if (o->name && !name_is(job, o->name))
        return false;
    return !o->partition || !strcmp(jget_str(job, "partition", ""), o->partition);
}

/* -v's line when the filters picked nothing, as Slurm 22.05 writes it
 * (its filters in its order, each followed by a blank). */
static void say_none_match(const struct scancel_opts *o)
{
    fprintf(stderr, "scancel: error: No active jobs match ALL job filters, including: ");
    if (o->name)
        fprintf(stderr, "job_name=%s ", o->name);
    if (o->partition)
        fprintf(stderr, "partition=%s ", o->partition);
    if (o->state)
        fprintf(stderr, "state=%s ", o->state);
    if (o->user)
        fprintf(stderr, "user_name=%s ", o->user);
    fputc('\n', stderr);
}

/* With filters, the ids become those of the active jobs that pass them. */
static int scancel_select(struct scancel_opts *o)
{
    char err[256];
    json_t *answer, *job;
    size_t i;
    /* only what scancel_matches reads: the whole jobs cost more than the cancel */
    int status = client_call(PROG, "GET",
                             PATH_JOBS "?fields=job_id,state,user_id,name,partition,array_job_id",
                             NULL, &answer, err, sizeof err);
    if (status != 200) {
        cmd_error(PROG, "%s", status < 0 ? err : client_error_text(answer, status));
        json_decref(answer);
        return -1;
    }
    struct strlist picked = {0};
    /* each record on its own, as Slurm's scancel: an array's id picks its
     * pending tasks, and a task that started is picked (or not) by itself */
    json_array_foreach(json_object_get(answer, "jobs"), i, job) {
        if (scancel_matches(job, o)) {
            snprintf(err, sizeof err, "%lld", (long long)jget_int(job, "job_id", 0));
            strlist_split(&picked, err);
        }
    }
    json_decref(answer);
    strlist_clear(&o->ids);
    o->ids = picked;
    if (!picked.n && o->verbose > 0)
        say_none_match(o);
    return 0;
}

/* A job that is gone (unknown, or finished), as Slurm 22.05 takes it: a
 * cancel says so only with -v and succeeds (what it asked for is true);
 * a signal (--signal, -b) says so and fails. -Q says nothing. Other
 * errors are said and fail. */
static int scancel_failed(const struct scancel_opts *o, const char *id, int status,
                          json_t *answer, const char *err)
{
    int code = status < 0 ? 0 : (int)jget_int(answer, "code", 0);
    bool gone = code == ESLURM_INVALID_JOB_ID || code == ESLURM_ALREADY_DONE;
    bool cancel = !o->signal && !o->batch;
    if (!gone || (cancel ? o->verbose > 0 : o->verbose >= 0))
        cmd_error(PROG, "Kill job error on job id %s: %s", id,
                  status < 0 ? err : client_error_text(answer, status));
    return gone && cancel ? 0 : -1;
}

/* What a cancel asks beside the job: a signal and where it goes. */
static json_t *cancel_body(const struct scancel_opts *o)
{
    json_t *body = json_object();
    if (o->signal)
        json_object_set_new(body, "signal", json_integer(o->signal));
    if (o->signal && o->batch)
        json_object_set_new(body, "batch", json_true());
    if (o->signal && o->full)
        json_object_set_new(body, "full", json_true());
    return body;
}

/* -v's line for each job asked for. */
static void cancel_say(const struct scancel_opts *o, const char *id)
{
    if (o->verbose > 0 && o->signal)
        fprintf(stderr, "scancel: Signal %d to job %s\n", o->signal, id);
    else if (o->verbose > 0)
        fprintf(stderr, "scancel: Terminating job %s\n", id);
}

static int scancel_one(const struct scancel_opts *o, const char *id)
{
    char err[256], path[64], base[24], tasks[256];
    json_t *body = cancel_body(o), *answer;
    cancel_say(o, id);
    if (array_task_id(id, base, sizeof base, tasks, sizeof tasks))
        json_object_set_new(body, "array_tasks", json_string(tasks));
    else
        snprintf(base, sizeof base, "%s", id);
    snprintf(path, sizeof path, PATH_JOB_CANCEL("%s"), base);
    int status = client_call(PROG, "POST", path, body, &answer, err, sizeof err);
    json_decref(body);
    int rc = status == 200 ? 0 : scancel_failed(o, id, status, answer, err);
    json_decref(answer);
    return rc;
}

/* The jobs a filter picked, in one request: one commit for all of them
 * (`scancel -u USER` of 10,000 jobs took 5.7 s one request each). Each
 * job refused is taken as scancel_one takes it. */
static int scancel_many(const struct scancel_opts *o)
{
    char err[256];
    json_t *ids = json_array(), *body = cancel_body(o), *answer, *e;
    for (size_t i = 0; i < o->ids.n; i++) {
        cancel_say(o, o->ids.items[i]);
        json_array_append_new(ids, json_integer(strtoll(o->ids.items[i], NULL, 10)));
    }
    json_object_set_new(body, "job_ids", ids);
    int status = client_call(PROG, "POST", PATH_JOBS_CANCEL, body, &answer, err, sizeof err);
    json_decref(body);
    int rc = 0;
    if (status != 200) {
        cmd_error(PROG, "%s", status < 0 ? err : client_error_text(answer, status));
        rc = -1;
    }
    size_t i;
    json_array_foreach(json_object_get(answer, "errors"), i, e) {
        snprintf(err, sizeof err, "%lld", (long long)jget_int(e, "job_id", 0));
        if (scancel_failed(o, err, 400, e, err) < 0)
            rc = -1;
    }
    json_decref(answer);
    return rc;
}

int cmd_scancel(int argc, char **argv)
{
    struct scancel_opts o = {0};
    int rc = 1;
    if (scancel_parse(argc, argv, &o) == 0) {
        bool filters = o.user || o.name || o.partition || o.state;
        if (filters && scancel_select(&o) == 0)
            rc = o.ids.n && scancel_many(&o) < 0;
        else if (!filters) {
            rc = 0;
            for (size_t i = 0; i < o.ids.n; i++)
                if (scancel_one(&o, o.ids.items[i]) < 0)
                    rc = 1;
        }
    }
    strlist_clear(&o.ids);
    return rc;
}
