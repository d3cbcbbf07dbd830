/* `herd sim TRACE.swf[.gz]`: options, the run, the report (text or JSON). */
#include <getopt.h>
#include <jansson.h>
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
    r->refused = sim_refuse(jobs, &n, &o->limits);
    r->passes = sim_replay(jobs, n, procs, cpn, o->policy, &o->limits);
    sim_metrics(jobs, n, procs, o->warmup, r);
    r->nodes = (procs + cpn - 1) / cpn;
    free(jobs);
    return 0;
}

static void sim_print(const struct sim_opts *o, const struct sim_result *r, bool json)
{
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:f, s:b, s:f,"
                              " s:I, s:I, s:I}",
                              "trace", o->path, "policy", sched_policy_name(o->policy),
                              "procs", (json_int_t)r->procs, "nodes", (json_int_t)r->nodes,
                              "jobs", (json_int_t)r->jobs, "averaged", (json_int_t)r->averaged,
                              "makespan_s", (json_int_t)r->makespan_s,
                              "utilization", r->utilization, "avg_wait_s", r->avg_wait_s,
                              "max_wait_s", (json_int_t)r->max_wait_s, "avg_bsld", r->avg_bsld,
                              "truncate", o->truncate, "warmup", o->warmup,
                              "max_procs_per_user", (json_int_t)o->limits.procs_per_user,
                              "max_jobs_per_user", (json_int_t)o->limits.jobs_per_user,
                              "refused", (json_int_t)r->refused);
        char *s = json_dumps(j, JSON_COMPACT);
        printf("%s\n", s);
        free(s);
        json_decref(j);
        return;
    }
    printf("trace: %s\npolicy: %s, %lld processors on %lld nodes%s\n", o->path,
           sched_policy_name(o->policy), (long long)r->procs, (long long)r->nodes,
           o->truncate ? ", runs cut at the estimate" : "");
    printf("jobs: %zu (%zu averaged)\n", r->jobs, r->averaged);
    if (o->limits.procs_per_user || o->limits.jobs_per_user)
        printf("per-user limits: %lld processors, %lld jobs (0: none); %zu jobs refused\n",
               (long long)o->limits.procs_per_user, (long long)o->limits.jobs_per_user,
               r->refused);
    printf("makespan: %lld s\nutilization: %.4f\n", (long long)r->makespan_s, r->utilization);
    printf("average wait: %.1f s (max %lld s)\n", r->avg_wait_s, (long long)r->max_wait_s);
    printf("average bounded slowdown (tau = %d s): %.2f\n", SIM_TAU_S, r->avg_bsld);
}

static int sim_usage(FILE *out)
{
    fprintf(out, "Usage: herd sim [--policy fcfs|easy|conservative|herd] [--procs P]\n"
                 "                [--cpus-per-node C] [--warmup F] [--truncate] [--json]\n"
                 "                [--max-procs-per-user N] [--max-jobs-per-user N] "
                 "TRACE.swf[.gz]\n");
    return out == stdout ? 0 : 1;
}

/* 0, or 1 after a message. */
static int sim_parse(int argc, char **argv, struct sim_opts *o, bool *json)
{
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, 'p'}, {"procs", required_argument, NULL, 'P'},
        {"cpus-per-node", required_argument, NULL, 'c'}, {"warmup", required_argument, NULL, 'w'},
        {"truncate", no_argument, NULL, 't'}, {"json", no_argument, NULL, 'j'},
        {"max-procs-per-user", required_argument, NULL, 'U'},
        {"max-jobs-per-user", required_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
    };
    int c;
    char *end;

    memset(o, 0, sizeof(*o));
    o->policy = SCHED_POLICY_EASY;
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
        case 't': o->truncate = true; break;
        case 'j': *json = true; break;
        case 'h': exit(sim_usage(stdout));
        default: return sim_usage(stderr);
        }
    }
    if (optind != argc - 1)
        return sim_usage(stderr);
    o->path = argv[optind];
    return 0;
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
