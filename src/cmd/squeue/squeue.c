/*
 * squeue: the jobs the controller holds, filtered and printed as Slurm's
 * squeue prints them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "client/client.h"
#include "client/jobstate.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "cmd/squeue/squeue.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

#define PROG "squeue"

enum { OPT_ME = 0x100, OPT_HELP, OPT_USAGE, OPT_START, OPT_JSON, OPT_NOCONVERT, OPT_ONLY_STATE };

static const struct option squeue_options[] = {
    {"account", required_argument, NULL, 'A'},
    {"accounts", required_argument, NULL, 'A'},
    {"all", no_argument, NULL, 'a'},
    {"array", no_argument, NULL, 'r'},
    {"format", required_argument, NULL, 'o'},
    {"Format", required_argument, NULL, 'O'},
    {"help", no_argument, NULL, OPT_HELP},
    {"jobs", optional_argument, NULL, 'j'},
    {"json", no_argument, NULL, OPT_JSON},
    {"long", no_argument, NULL, 'l'},
    {"me", no_argument, NULL, OPT_ME},
    {"name", required_argument, NULL, 'n'},
    {"nodelist", required_argument, NULL, 'w'},
    {"nodes", required_argument, NULL, 'w'},
    {"noconvert", no_argument, NULL, OPT_NOCONVERT},
    {"noheader", no_argument, NULL, 'h'},
    {"only-job-state", no_argument, NULL, OPT_ONLY_STATE},
    {"partition", required_argument, NULL, 'p'},
    {"partitions", required_argument, NULL, 'p'},
    {"qos", required_argument, NULL, 'q'},
    {"reservation", required_argument, NULL, 'R'},
    {"sort", required_argument, NULL, 'S'},
    {"start", no_argument, NULL, OPT_START},
    {"states", required_argument, NULL, 't'},
    {"steps", optional_argument, NULL, 's'},
    {"usage", no_argument, NULL, OPT_USAGE},
    {"user", required_argument, NULL, 'u'},
    {"users", required_argument, NULL, 'u'},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

static void squeue_usage(void)
{
    printf("Usage: squeue [-a] [-h] [-l] [-r] [-A accounts] [-j jobs] [-n names] [-o format]\n"
           "              [-O fields] [-p partitions] [-q qos] [-R reservation] [-s [steps]]\n"
           "              [-S sort] [-t states] [-u users] [--me] [--start] [-w nodes]\n"
           "              [--json] [--noconvert] [--only-job-state] [-v]\n");
}

static int squeue_add_users(struct squeue_opts *o, const char *csv)
{
    struct strlist l = {0};
    strlist_split(&l, csv);
    o->users_given = true;
    for (size_t i = 0; i < l.n; i++) {
        uid_t uid;
        if (cmd_parse_user(l.items[i], &uid) < 0) {
            /* Slurm 22.05 gives its error() a "\n" more: a blank line follows */
            cmd_error(PROG, "Invalid user: %s\n", l.items[i]);
            continue;
        }
        o->uids = xrealloc(o->uids, (o->nuids + 1) * sizeof *o->uids);
        o->uids[o->nuids++] = uid;
    }
    strlist_clear(&l);
    return 0;
}

static int squeue_add_states(struct squeue_opts *o, const char *csv)
{
    struct strlist l = {0};
    int rc = 0;
    strlist_split(&l, csv);
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        const char *name = jobstate_parse(l.items[i]);
        if (!strcasecmp(l.items[i], "all")) {
            o->all_states = true;
        } else if (!name) {
            cmd_error(PROG, "Invalid job state specified: %s", l.items[i]);
            /* Slurm's message ends in an empty line */
            cmd_error(PROG, "Valid job states include: %s\n", jobstate_all_names());
            rc = -1;
        } else {
            strlist_split(&o->states, name);
        }
    }
    strlist_clear(&l);
    return rc;
}

static int squeue_add_jobs(struct squeue_opts *o, const char *csv)
{
    struct strlist l = {0};
    int rc = 0;
    strlist_split(&l, csv);
    uint32_t job, task;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        if (!cmd_parse_job_id(l.items[i]) && !cmd_parse_task_id(l.items[i], &job, &task)) {
            cmd_error(PROG, "Invalid job id: %s", l.items[i]);
            rc = -1;
        }
    }
    if (rc == 0)
        strlist_split(&o->jobs, csv);
    strlist_clear(&l);
    return rc;
}

static int squeue_option(struct squeue_opts *o, int c, bool *jobs_flag)
{
    switch (c) {
    /* --only-job-state (Slurm 23.02; Nextflow's and SkyPilot's polls) asks
     * for less work: squeue here always asks only for what its format reads */
    case 'a': case 'v': case OPT_ONLY_STATE: return 0;
    case 'h': o->noheader = true; return 0;
    case 'l': o->long_list = true; return 0;
    case 'o': o->format = optarg; return 0;
    case 'O': o->long_format = optarg; return 0;
    case 'r': o->array = true; return 0;
    case 's':
        o->steps = true;
        if (optarg)
            strlist_split(&o->step_list, optarg);
        return 0;
    case OPT_JSON: o->json = true; return 0;
    case OPT_NOCONVERT: o->noconvert = true; return 0;
    case 'n': strlist_split_raw(&o->names, optarg); return 0;
    case 'p': strlist_split(&o->parts, optarg); return 0;
    case 'A': strlist_split(&o->accounts, optarg); return 0;
    case 'q': strlist_split(&o->qos, optarg); return 0;
    case 'S': squeue_sort_parse(o, optarg); return 0;
    case 'R': o->resv = optarg; return 0;
    case 't': return squeue_add_states(o, optarg);
    case 'u': return squeue_add_users(o, optarg);
    case 'j':
        *jobs_flag = true;
        return optarg ? squeue_add_jobs(o, optarg) : 0;
    case OPT_ME: {
        char uid[24];
        snprintf(uid, sizeof uid, "%u", (unsigned)geteuid());
        return squeue_add_users(o, uid);
    }
    case 'w':
        hostlist_destroy(o->nodes);
        if (!(o->nodes = hostlist_create(optarg))) {
            cmd_error(PROG, "'%s' invalid entry for --nodelist", optarg);
            return -1;
        }
        return 0;
    case OPT_START:
        o->start = true;
        return 0;
    case OPT_HELP: case OPT_USAGE: squeue_usage(); exit(0);
    default:
        fprintf(stderr, "Try \"squeue --help\" for more information\n");
        return -1;
    }
}

static int squeue_parse(int argc, char **argv, struct squeue_opts *o)
{
    bool jobs_flag = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "A:ahj::ln:o:O:p:q:rR:S:s::t:u:vw:", squeue_options, NULL)) != -1)
        if (squeue_option(o, c, &jobs_flag) < 0)
            return -1;
    if (optind < argc && jobs_flag && squeue_add_jobs(o, argv[optind++]) < 0)
        return -1;
    if (optind < argc) {
        cmd_error(PROG, "Unrecognized option: %s", argv[optind]);
        squeue_usage();
        return -1;
    }
    /* Slurm's defaults from the environment: -o, -O and -l win, and
     * SQUEUE_FORMAT wins over SQUEUE_FORMAT2 */
    const char *env = getenv("SQUEUE_FORMAT"), *env2 = getenv("SQUEUE_FORMAT2");
    if (!o->format && !o->long_format && !o->long_list) {
        if (env && *env)
            o->format = env;
        else if (env2 && *env2)
            o->long_format = env2;
    }
    if (o->start && !o->states.n && !o->all_states)
        strlist_split(&o->states, "PENDING");   /* --start means -t PENDING, as in Slurm */
    /* a -O naming an unknown field fails before the controller is asked */
    struct fmt *f = o->long_format ? fmt_parse_long(o->long_format, squeue_codes, squeue_names,
                                                    PROG, "job")
                                   : NULL;
    if (o->long_format && !f)
        return -1;
    fmt_destroy(f);
    if (o->long_list && o->format) {
        fprintf(stderr, "squeue: fatal: Options -o(--format) and -l(--long) are mutually "
                        "exclusive. Please remove one and retry.\n");
        return -1;
    }
    return 0;
}

/* GET /v1/jobs with the filters the controller applies and the fields the
 * format reads, as a table (squeue_rows.h). One job id asks for that job
 * in whatever state, so that an unknown id is an error as in Slurm. The
 * controller filters by state and user first, so that a large queue is not
 * sent whole; the client applies every filter again. */
static char *squeue_path(const struct squeue_opts *o)
{
    /* one task, "123_4": the array's records hold it */
    uint32_t job, task;
    char one[24] = "";
    if (o->jobs.n == 1 && cmd_parse_task_id(o->jobs.items[0], &job, &task))
        snprintf(one, sizeof one, "%u", job);
    else if (o->jobs.n == 1)
        snprintf(one, sizeof one, "%.20s", o->jobs.items[0]);
    char *states = NULL;
    if (o->jobs.n == 1)
        ;
    else if (!o->all_states && o->states.n == 0)
        states = xstrdup("PENDING,RUNNING,SUSPENDED,COMPLETING,CONFIGURING");
    for (size_t i = 0; o->jobs.n != 1 && !o->all_states && i < o->states.n; i++) {
        char *next = xasprintf("%s%s%s", states ? states : "", states ? "," : "",
                               o->states.items[i]);
        free(states);
        states = next;
    }
    char *users = NULL;
    for (size_t i = 0; i < o->nuids; i++) {
        char *next = xasprintf("%s%s%u", users ? users : "", users ? "," : "",
                               (unsigned)o->uids[i]);
        free(users);
        users = next;
    }
    char *path = xasprintf(PATH_JOBS "?format=tsv%s%s%s%s%s%s", states ? "&states=" : "",
                           states ? states : "", users ? "&users=" : "", users ? users : "",
                           o->jobs.n == 1 ? "&ids=" : "", one);
    struct fmt *f = o->json ? NULL : squeue_format(o, PROG);
    char *fields = squeue_fields_param(f);
    /* -R, -A, -q filter and -S sorts here, on fields the format may not show */
    char *sort = squeue_sort_fields(o);
    char *full = xasprintf("%s&fields=%s%s%s%s%s", path, fields,
                           o->resv && !o->json ? ",reservation" : "",
                           o->accounts.n && !o->json ? ",account" : "",
                           o->qos.n && !o->json ? ",qos" : "", o->json ? "" : sort);
    free(sort);
    fmt_destroy(f);
    free(fields);
    free(path);
    free(states);
    free(users);
    return full;
}

static int squeue_fetch(const struct squeue_opts *o, struct sq_rows *jobs)
{
    char err[256], *text;
    size_t len;
    json_t *error;
    char *path = squeue_path(o);
    int status = client_get_text(PROG, path, &text, &len, &error, err, sizeof err);
    free(path);
    if (status == 200 && sq_rows_parse(jobs, text, len) == 0)
        return 0;
    fprintf(stderr, "slurm_load_jobs error: %s\n",
            status < 0 ? err : status == 200 ? "Unexpected message received"
                                             : client_error_text(error, status));
    json_decref(error);
    sq_rows_free(jobs);
    return -1;
}

int cmd_squeue(int argc, char **argv)
{
    struct squeue_opts o = {0};
    struct sq_rows jobs = {0};
    int rc = 1;
    int parsed = squeue_parse(argc, argv, &o);
    if (parsed == 0 && o.steps) {
        rc = squeue_steps(&o, PROG);
    } else if (parsed == 0 && squeue_fetch(&o, &jobs) == 0) {
        if (o.json)
            squeue_print_json(stdout, &jobs, &o);
        rc = o.json ? 0 : squeue_print(stdout, &jobs, &o, PROG) < 0;
    }
    sq_rows_free(&jobs);
    squeue_opts_clear(&o);
    return rc;
}
