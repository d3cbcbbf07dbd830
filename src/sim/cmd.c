/* `herd sim TRACE.swf[.gz]`: options, the run (the report is report.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/sim.h"

/* Takes out the jobs that no per-user limit would ever let run, as Herd
 * refuses them at submission; how many. */
static size_t sim_refuse(struct sim_job *jobs, size_t *n, const struct sim_limits *l)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++)
        if (!l->procs_per_user || jobs[i].procs <= l->procs_per_user)
            jobs[k++] = jobs[i];
    size_t refused = *n - k;
    *n = k;
    return refused;
}

/* Under maintenance windows time limits are enforced (a run is cut at its
 * estimate), and a job longer than the time between two windows is
 * refused, as it could never start; how many. */
static size_t sim_maint_prepare(struct sim_job *jobs, size_t *n, const struct sim_maint *m)
{
    size_t k = 0;

    if (m->duration <= 0)
        return 0;
    for (size_t i = 0; i < *n; i++) {
        if (sim_maint_never_fits(m, jobs[i].est))
            continue;
        if (jobs[i].run > jobs[i].est)
            jobs[i].run = jobs[i].est;
        jobs[k++] = jobs[i];
    }
    size_t refused = *n - k;
    *n = k;
    return refused;
}

int sim_run(const struct sim_opts *o, struct sim_result *r, char **err)
{
    struct swf_trace t;
    struct sim_job *jobs;
    size_t n;
    int64_t procs;
    int cpn = o->cpus_per_node > 0 ? o->cpus_per_node : 1;

    memset(r, 0, sizeof(*r));
    if (swf_read(o->path, &t, err) < 0)
        return -1;
    procs = o->procs > 0 ? o->procs : t.max_procs;
    if (procs <= 0) {
        *err = xasprintf("%s: no MaxProcs in the header; give --procs", o->path);
        swf_free(&t);
        return -1;
    }
    swf_clean(&t, procs, o->truncate, &jobs, &n);
    swf_free(&t);
    sim_scav_mark(jobs, &n, &o->scav);
    r->refused = sim_refuse(jobs, &n, &o->limits);
    r->maint_refused = sim_maint_prepare(jobs, &n, &o->maint);
    sim_replay(&jobs, &n, procs, o, r);
    sim_metrics(jobs, n, procs, o->warmup, r);
    r->nodes = (procs + cpn - 1) / cpn;
    int rc = o->jobs_out ? sim_write_jobs(o->jobs_out, jobs, n, err) : 0;
    free(jobs);
    return rc;
}

static int sim_usage(FILE *out)
{
    fprintf(out, "Usage: herd sim [--policy fcfs|easy|conservative|herd] [--procs P]\n"
                 "                [--cpus-per-node C] [--warmup F] [--truncate] [--json]\n"
                 "                [--max-procs-per-user N] [--max-jobs-per-user N]\n"
                 "                [--scavenger-users PCT] [--scavenger-stream K] [--owners-only]\n"
                 "                [--preempt off|requeue|cancel] [--grace S] [--seed N]\n"
                 "                [--maint START,DURATION[,PERIOD]] [--jobs-out FILE]\n"
                 "                [--age-bound S] [--age-resv N]\n"
                 "                [--predict class|user|easy++|estimate] [--plan-predicted]\n"
                 "                TRACE.swf[.gz]\n");
    return out == stdout ? 0 : 1;
}

static int bad(const char *opt, const char *arg, const char *why)
{
    fprintf(stderr, "herd sim: bad --%s '%s'%s%s\n", opt, arg, why ? ": " : "", why ? why : "");
    return 1;
}

static int parse_i64(const char *s, int64_t *v)
{
    char *end;

    errno = 0;
    *v = strtoll(s, &end, 10);
    return end == s || *end || errno ? -1 : 0;
}

/* The options of preemption and maintenance; 0, or 1 after a message. */
static int sim_parse_scav(int c, const char *arg, struct sim_opts *o)
{
    int64_t v;
    char *end, *err = NULL;

    switch (c) {
    case 'S':
        o->scav.users_pct = strtod(arg, &end);
        if (end == arg || *end || !(o->scav.users_pct > 0 && o->scav.users_pct < 100))
            return bad("scavenger-users", arg, "a percentage of users, 0 < PCT < 100");
        return 0;
    case 'K':
        if (parse_i64(arg, &v) < 0 || v < 1 || v > 1000000)
            return bad("scavenger-stream", arg, "the number of jobs kept queued, 1 to 1000000");
        o->scav.stream = (int)v;
        return 0;
    case 'E':
        if (!strcmp(arg, "off"))
            o->scav.preempt = SIM_PREEMPT_OFF;
        else if (!strcmp(arg, "requeue"))
            o->scav.preempt = SIM_PREEMPT_REQUEUE;
        else if (!strcmp(arg, "cancel"))
            o->scav.preempt = SIM_PREEMPT_CANCEL;
        else
            return bad("preempt", arg, "off, requeue or cancel");
        return 0;
    case 'G':
        if (parse_i64(arg, &o->scav.grace_s) < 0 || o->scav.grace_s < 0)
            return bad("grace", arg, "seconds, >= 0");
        return 0;
    case 'D':
        if (parse_i64(arg, &v) < 0 || v < 0)
            return bad("seed", arg, "an integer >= 0");
        o->scav.seed = (uint64_t)v;
        return 0;
    case 'M':
        if (sim_maint_parse(arg, &o->maint, &err) < 0) {
            fprintf(stderr, "herd sim: %s\n", err);
            free(err);
            return 1;
        }
        return 0;
    }
    return 1;
}

/* herd's guard and predictor; 0, or 1 after a message. */
static int sim_parse_herd(int c, const char *arg, struct sim_opts *o)
{
    static const char *const pred[] = { "class", "user", "easy++", "estimate" };
    int64_t v;

    if (c == 'Q') {
        for (size_t i = 0; i < sizeof(pred) / sizeof(*pred); i++)
            if (!strcmp(arg, pred[i])) {
                o->predict = (enum sim_predict)i;
                return 0;
            }
        return bad("predict", arg, "class, user, easy++ or estimate");
    }
    if (parse_i64(arg, &v) < 0 || v < 0 || v > 100000000)
        return bad(c == 'A' ? "age-bound" : "age-resv", arg, "an integer >= 0 (0: none)");
    if (c == 'A')
        o->age_bound_s = v ? v : -1;
    else
        o->age_resv = v ? (int)v : -1;
    return 0;
}

/* What a preemption option means without scavengers: nothing, so say so. */
static int sim_check(const struct sim_opts *o, bool preempt_given)
{
    bool scav = o->scav.users_pct > 0 || o->scav.stream > 0;

    if (!scav && (preempt_given || o->scav.grace_s > 0 || o->scav.owners_only)) {
        fprintf(stderr, "herd sim: --preempt, --grace and --owners-only need scavengers "
                        "(--scavenger-users or --scavenger-stream)\n");
        return 1;
    }
    if (o->scav.grace_s > 0 && o->scav.preempt == SIM_PREEMPT_OFF) {
        fprintf(stderr, "herd sim: --grace needs --preempt requeue or cancel\n");
        return 1;
    }
    return 0;
}

static const struct option longopts[] = {
    {"policy", required_argument, NULL, 'p'}, {"procs", required_argument, NULL, 'P'},
    {"cpus-per-node", required_argument, NULL, 'c'}, {"warmup", required_argument, NULL, 'w'},
    {"truncate", no_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
    {"max-procs-per-user", required_argument, NULL, 'U'},
    {"max-jobs-per-user", required_argument, NULL, 'J'},
    {"scavenger-users", required_argument, NULL, 'S'},
    {"scavenger-stream", required_argument, NULL, 'K'},
    {"owners-only", no_argument, NULL, 'O'}, {"preempt", required_argument, NULL, 'E'},
    {"grace", required_argument, NULL, 'G'}, {"seed", required_argument, NULL, 'D'},
    {"maint", required_argument, NULL, 'M'}, {"jobs-out", required_argument, NULL, 'o'},
    {"age-bound", required_argument, NULL, 'A'}, {"age-resv", required_argument, NULL, 'R'},
    {"predict", required_argument, NULL, 'Q'}, {"plan-predicted", no_argument, NULL, 'X'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
};

/* 0, or 1 after a message. */
static int sim_parse(int argc, char **argv, struct sim_opts *o, bool *json)
{
    int c;
    char *end;
    bool preempt_given = false;

    memset(o, 0, sizeof(*o));
    o->policy = SCHED_POLICY_EASY;
    o->scav.seed = 1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (!sched_policy_parse(optarg, &o->policy))
                return fprintf(stderr, "herd sim: unknown policy '%s'\n", optarg), 1;
            break;
        case 'P':
            o->procs = strtoll(optarg, &end, 10);
            if (*end || o->procs <= 0)
                return fprintf(stderr, "herd sim: bad --procs '%s'\n", optarg), 1;
            break;
        case 'c':
            o->cpus_per_node = (int)strtol(optarg, &end, 10);
            if (*end || o->cpus_per_node <= 0)
                return fprintf(stderr, "herd sim: bad --cpus-per-node '%s'\n", optarg), 1;
            break;
        case 'w':
            o->warmup = strtod(optarg, &end);
            if (*end || o->warmup < 0 || o->warmup >= 1)
                return fprintf(stderr, "herd sim: bad --warmup '%s' (0 <= F < 1)\n", optarg), 1;
            break;
        case 'U':
        case 'J': {
            int64_t v = strtoll(optarg, &end, 10);
            if (*end || v <= 0)
                return fprintf(stderr, "herd sim: bad --%s '%s'\n", c == 'U'
                               ? "max-procs-per-user" : "max-jobs-per-user", optarg), 1;
            *(c == 'U' ? &o->limits.procs_per_user : &o->limits.jobs_per_user) = v;
            break;
        }
        case 'S': case 'K': case 'E': case 'G': case 'D': case 'M':
            preempt_given |= c == 'E';
            if (sim_parse_scav(c, optarg, o))
                return 1;
            break;
        case 'A': case 'R': case 'Q':
            if (sim_parse_herd(c, optarg, o))
                return 1;
            break;
        case 'X': o->plan_predicted = true; break;
        case 'O': o->scav.owners_only = true; break;
        case 'o': o->jobs_out = optarg; break;
        case 't': o->truncate = true; break;
        case 'j': *json = true; break;
        case 'h': exit(sim_usage(stdout));
        default: return sim_usage(stderr);
        }
    }
    if (optind != argc - 1)
        return sim_usage(stderr);
    o->path = argv[optind];
    return sim_check(o, preempt_given);
}

int cmd_herd_sim(int argc, char **argv)
{
    struct sim_opts o;
    struct sim_result r;
    bool json = false;
    char *err = NULL;

    if (sim_parse(argc, argv, &o, &json))
        return 1;
    if (sim_run(&o, &r, &err) < 0) {
        fprintf(stderr, "herd sim: %s\n", err);
        free(err);
        return 1;
    }
    sim_print(&o, &r, json);
    return 0;
}
