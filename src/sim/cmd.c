/* `herd sim TRACE.swf[.gz]`: options, the run, the report (text or JSON). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "sim/sim.h"

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
    r->passes = sim_replay(jobs, n, procs, cpn, o->policy);
    sim_metrics(jobs, n, procs, o->warmup, r);
    r->nodes = (procs + cpn - 1) / cpn;
    free(jobs);
    return 0;
}

static void sim_print(const struct sim_opts *o, const struct sim_result *r, bool json)
{
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:f, s:b, s:f}",
                              "trace", o->path, "policy", sched_policy_name(o->policy),
                              "procs", (json_int_t)r->procs, "nodes", (json_int_t)r->nodes,
                              "jobs", (json_int_t)r->jobs, "averaged", (json_int_t)r->averaged,
                              "makespan_s", (json_int_t)r->makespan_s,
                              "utilization", r->utilization, "avg_wait_s", r->avg_wait_s,
                              "max_wait_s", (json_int_t)r->max_wait_s, "avg_bsld", r->avg_bsld,
                              "truncate", o->truncate, "warmup", o->warmup);
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
    printf("makespan: %lld s\nutilization: %.4f\n", (long long)r->makespan_s, r->utilization);
    printf("average wait: %.1f s (max %lld s)\n", r->avg_wait_s, (long long)r->max_wait_s);
    printf("average bounded slowdown (tau = %d s): %.2f\n", SIM_TAU_S, r->avg_bsld);
}

static int sim_usage(FILE *out)
{
    fprintf(out, "Usage: herd sim [--policy fcfs|easy|conservative|herd] [--procs P]\n"
                 "                [--cpus-per-node C] [--warmup F] [--truncate] [--json] "
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
