/*
 * sdiag: the controller's diagnostics as Slurm's sdiag prints them: job
 * counters since start-up (or the last --reset), the jobs pending and
 * running, and the scheduling passes' times in microseconds. Herd plans
 * backfill in the same pass as the main scheduler, so only the main block
 * is printed; lines Herd has nothing behind (agent and DBD queues) are left
 * out rather than printed as zeros. --json prints {"statistics": {...}}.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"

#define PROG "sdiag"

static void when(const char *label, int64_t t)
{
    char buf[64];
    time_t tt = (time_t)t;
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);
    printf("%s%s (%lld)\n", label, buf, (long long)t);
}

static void sdiag_print(const json_t *s)
{
    int64_t now = jget_int(s, "req_time", 0), since = jget_int(s, "req_time_start", 0);
    int64_t cycles = jget_int(s, "schedule_cycle_total", 0);
    int64_t minutes = (now - since) / 60;
    puts("*******************************************************");
    when("sdiag output at ", now);
    when("Data since      ", since);
    puts("*******************************************************");
    /* the event loop, and the pass's thread while it plans */
    bool planning = json_is_true(json_object_get(s, "schedule_in_flight"));
    printf("Server thread count:  %d\n\n", planning ? 2 : 1);
    printf("Jobs submitted: %lld\n", (long long)jget_int(s, "jobs_submitted", 0));
    printf("Jobs started:   %lld\n", (long long)jget_int(s, "jobs_started", 0));
    printf("Jobs completed: %lld\n", (long long)jget_int(s, "jobs_completed", 0));
    printf("Jobs canceled:  %lld\n", (long long)jget_int(s, "jobs_canceled", 0));
    printf("Jobs failed:    %lld\n\n", (long long)jget_int(s, "jobs_failed", 0));
    when("Job states ts:  ", now);
    printf("Jobs pending:   %lld\n", (long long)jget_int(s, "jobs_pending", 0));
    printf("Jobs running:   %lld\n\n", (long long)jget_int(s, "jobs_running", 0));
    puts("Main schedule statistics (microseconds):");
    printf("\tLast cycle:   %lld\n", (long long)jget_int(s, "schedule_cycle_last", 0));
    printf("\tMax cycle:    %lld\n", (long long)jget_int(s, "schedule_cycle_max", 0));
    printf("\tTotal cycles: %lld\n", (long long)cycles);
    printf("\tMean cycle:   %lld\n", (long long)jget_int(s, "schedule_cycle_mean", 0));
    printf("\tMean depth cycle:  %lld\n", (long long)jget_int(s, "schedule_cycle_depth_mean", 0));
    printf("\tCycles per minute: %lld\n", (long long)(minutes > 0 ? cycles / minutes : cycles));
    printf("\tLast queue length: %lld\n", (long long)jget_int(s, "schedule_queue_length", 0));
}

static void print_json(json_t *stats)
{
    json_t *o = json_pack("{s:O, s:[]}", "statistics", stats, "errors");
    json_dumpf(o, stdout, JSON_INDENT(2));
    putchar('\n');
    json_decref(o);
}

static const struct option sdiag_options[] = {
    {"all", no_argument, NULL, 'a'},
    {"reset", no_argument, NULL, 'r'},
    {"json", no_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

int cmd_sdiag(int argc, char **argv)
{
    bool reset = false, as_json = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "arh", sdiag_options, NULL)) != -1) {
        switch (opt) {
        case 'a': break;
        case 'r': reset = true; break;
        case 'j': as_json = true; break;
        case 'h': printf("Usage: sdiag [-a|--all] [-r|--reset] [--json]\n"); return 0;
        default: fprintf(stderr, "Try \"sdiag --help\" for more information\n"); return 1;
        }
    }
    json_t *answer = NULL;
    char err[256];
    int st = client_call(PROG, reset ? "POST" : "GET", reset ? PATH_DIAG_RESET : PATH_DIAG,
                         NULL, &answer, err, sizeof err);
    int rc = st == 200 ? 0 : 1;
    if (st != 200)
        cmd_error(PROG, "%s", st < 0 ? err : client_error_text(answer, st));
    else if (reset)
        printf("Reset scheduling statistics\n");
    else if (as_json)
        print_json(answer);
    else
        sdiag_print(answer);
    json_decref(answer);
    return rc;
}
