/*
 * scontrol: Slurm's administration command. `show` lives in scontrol_show.c;
 * this file reads the options and the command word and does the changes:
 * hold, uhold, release, requeue, suspend, resume, update (jobs, nodes,
 * partitions), ping,
 * reconfigure. Words may be abbreviated and are case-insensitive, as Slurm's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "client/begintime.h"
#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "client/version.h"
#include "cmd/cmds.h"
#include "cmd/scontrol/scontrol.h"
#include "common/conf.h"
#include "common/rawstr.h"
#include "common/slurm_errno.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define PROG SCONTROL_PROG

bool scontrol_word(const char *a, const char *word, size_t min)
{
    size_t n = strlen(a);
    return n >= min && n <= strlen(word) && strncasecmp(a, word, n) == 0;
}

static void scontrol_usage(FILE *out)
{
    fprintf(out,
            "Usage: scontrol [-o] [-d] [-Q] COMMAND\n"
            "  show job [ID] | node [NAME] | partition [NAME] | config\n"
            "  show hostnames [LIST] | hostlist NAMES\n"
            "  hold|uhold|release|requeue|requeuehold JOBID[,JOBID...]\n"
            "  suspend|resume JOBID[,JOBID...]\n"
            "  update JobId=ID TimeLimit= Partition= NumNodes= Gres= Name= Nice= Comment=\n"
            "         WCKey= Account= StartTime=\n"
            "  update NodeName=LIST State=DRAIN|DOWN|RESUME|IDLE|UNDRAIN Reason=TEXT\n"
            "  update PartitionName=NAME State=UP|DOWN MaxTime= DefaultTime=\n"
            "  create reservation StartTime= Duration=|EndTime= Users=|Accounts= Nodes=|NodeCnt=\n"
            "         CoreCnt= TRES= PartitionName= Flags= ReservationName=\n"
            "  update ReservationName=NAME KEY=VALUE... | delete reservation NAME\n"
            "  show reservation [NAME]\n"
            "  ping | reconfigure | version\n");
}

/* Slurm's update names the job in a reservation's refusal only. */
static bool per_job_error(const json_t *resp)
{
    int64_t code = jget_int(resp, "code", 0);
    return code == ESLURM_RESERVATION_ACCESS || code == ESLURM_RESERVATION_INVALID;
}

/* POST path body; 0, or 1 with "MESSAGE for job ID" (Slurm's hold form;
 * with a context, only for the errors Slurm names a job in) or
 * "CONTEXT: MESSAGE" printed. */
static int post(const char *path, json_t *body, const char *job, const char *context)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "POST", path, body, &resp, err, sizeof err);
    const char *msg = st < 0 ? err : client_error_text(resp, st);
    int rc = st == 200 ? 0 : 1;
    if (job && context && !(st > 0 && per_job_error(resp)))
        job = NULL;
    if (rc && job)
        fprintf(stderr, "%s for job %s\n", msg, job);
    else if (rc)
        fprintf(stderr, "%s: %s\n", context, msg);
    const char *warn = st == 200 ? jget_str(resp, "warning", NULL) : NULL;
    if (warn)
        cmd_error(PROG, "%s", warn);
    json_decref(resp);
    return rc;
}

/* The job ids of "1,2 3" style arguments; NULL and an error on a bad one. */
static int job_ids(int argc, char **argv, struct strlist *ids)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strncasecmp(a, "JobId=", 6))
            a += 6;
        else if (!strncasecmp(a, "Job=", 4))
            a += 4;
        strlist_split(ids, a);
    }
    for (size_t i = 0; i < ids->n; i++)
        if (!cmd_parse_job_id(ids->items[i])) {
            fprintf(stderr, "Invalid job id specified for job %s\n", ids->items[i]);
            return -1;
        }
    if (ids->n == 0) {
        cmd_error(PROG, "No job id given");
        return -1;
    }
    return 0;
}

/* hold, uhold, release, requeue, requeuehold on each job given. */
static int job_action(const char *action, bool user, bool hold, int argc, char **argv)
{
    struct strlist ids = { 0 };
    int rc = 0;
    if (job_ids(argc, argv, &ids) < 0) {
        strlist_clear(&ids);
        return 1;
    }
    for (size_t i = 0; i < ids.n; i++) {
        char path[96];
        snprintf(path, sizeof path, PATH_JOB_ACTION("%s", "%s"), ids.items[i], action);
        json_t *body = json_pack("{s:b, s:b}", "user", user, "hold", hold);
        rc |= post(path, body, ids.items[i], NULL);
        json_decref(body);
    }
    strlist_clear(&ids);
    return rc;
}

static int bad_value(const char *kv)
{
    cmd_error(PROG, "Invalid input: %s", kv);
    cmd_error(PROG, "Request aborted");
    return -1;
}

static int set_minutes(json_t *body, const char *key, const char *kv, const char *v)
{
    int64_t min;
    if (timefmt_parse_limit(v, &min) < 0)
        return bad_value(kv);
    json_object_set_new(body, key, json_integer(min));
    return 0;
}

static int set_count(json_t *body, const char *key, const char *kv, const char *v, long lo)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || (*end && *end != '-') || n < lo)   /* "2-4": the minimum */
        return bad_value(kv);
    json_object_set_new(body, key, json_integer(n));
    return 0;
}

/* One Key=Value of `update JobId=...` into the request body. */
static int job_field(json_t *body, const char *kv)
{
    const char *eq = strchr(kv, '=');
    char key[64];
    snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - kv) : 0, kv);
    const char *v = eq ? eq + 1 : "";
    static const struct { const char *word; const char *field; } strs[] = {
        { "partition", "partition" }, { "name", "name" }, { "jobname", "name" },
        { "comment", "comment" }, { "wckey", "wckey" }, { "account", "account" },
        { "gres", "gres" }, { "tresperNode", "gres" }, { "dependency", "dependency" },
        { "reservation", "reservation" },
    };
    if (!eq)
        return bad_value(kv);
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (strcasecmp(key, strs[i].word) == 0) {
            json_object_set_new(body, strs[i].field, json_rawstr(v));
            return 0;
        }
    if (strcasecmp(key, "TimeLimit") == 0) {
        int64_t min;
        if (timefmt_parse_limit(v, &min) < 0) {
            cmd_error(PROG, "Invalid TimeLimit value");   /* Slurm's words */
            return -1;
        }
        json_object_set_new(body, "time_limit", json_integer(min));
        return 0;
    }
    if (strcasecmp(key, "NumNodes") == 0 || strcasecmp(key, "ReqNodes") == 0)
        return set_count(body, "nodes", kv, v, 1);
    if (strcasecmp(key, "Nice") == 0)
        return set_count(body, "nice", kv, *v ? v : "100", -2147483645L);
    if (strcasecmp(key, "StartTime") == 0 || strcasecmp(key, "BeginTime") == 0) {
        int64_t t;
        if (begintime_parse(v, client_now(), &t) < 0)
            return bad_value(kv);
        json_object_set_new(body, "begin_time", json_integer(t));
        return 0;
    }
    /* a job's update says it bare, as Slurm's scontrol does */
    fprintf(stderr, "Update of this parameter is not supported: %s\nRequest aborted\n", kv);
    return -1;
}

static int update_jobs(const char *idlist, int argc, char **argv)
{
    json_t *body = json_object();
    struct strlist ids = { 0 };
    char *list[] = { (char *)idlist };
    int rc = job_ids(1, list, &ids) < 0 ? 1 : 0;
    for (int i = 0; i < argc && !rc; i++)
        if (job_field(body, argv[i]) < 0)
            rc = 1;
    for (size_t i = 0; i < ids.n && !rc; i++) {
        char path[96];
        snprintf(path, sizeof path, PATH_JOB_UPDATE("%s"), ids.items[i]);
        rc |= post(path, body, ids.items[i], "slurm_update error");
    }
    strlist_clear(&ids);
    json_decref(body);
    return rc;
}

/* Node and partition updates: Key=Value pairs mapped to body fields. */
struct field_map {
    const char *word, *field;
    bool minutes;
};

static int update_simple(const char *path, json_t *body, const struct field_map *map, int argc,
                         char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t klen = eq ? (size_t)(eq - argv[i]) : 0;
        const struct field_map *m = map;
        while (m->word && !(klen == strlen(m->word) && !strncasecmp(argv[i], m->word, klen)))
            m++;
        if (!eq || !m->word) {
            cmd_error(PROG, "Update of this parameter is not supported: %s", argv[i]);
            cmd_error(PROG, "Request aborted");
            return 1;
        }
        if (m->minutes ? set_minutes(body, m->field, argv[i], eq + 1) < 0 : 0)
            return 1;
        if (!m->minutes)
            json_object_set_new(body, m->field, json_rawstr(eq + 1));
    }
    return post(path, body, NULL, "slurm_update error");
}

static int cmd_update(int argc, char **argv)
{
    static const struct field_map node_map[] = {
        { "State", "state", false }, { "Reason", "reason", false }, { NULL, NULL, false } };
    static const struct field_map part_map[] = {
        { "State", "state", false }, { "MaxTime", "max_time", true },
        { "DefaultTime", "default_time", true }, { NULL, NULL, false } };
    if (argc > 1 && scontrol_word(argv[0], "reservation", 3))
        return scontrol_resv_update(argc - 1, argv + 1);
    if (argc < 1 || !strchr(argv[0], '=')) {
        cmd_error(PROG, "No JobId, NodeName or PartitionName given");
        return 1;
    }
    const char *v = strchr(argv[0], '=') + 1;
    int rc;
    json_t *body = json_object();
    if (!strncasecmp(argv[0], "ReservationName=", 16))
        rc = scontrol_resv_update(argc, argv);
    else if (!strncasecmp(argv[0], "JobId=", 6) || !strncasecmp(argv[0], "Job=", 4))
        rc = update_jobs(v, argc - 1, argv + 1);
    else if (!strncasecmp(argv[0], "NodeName=", 9)) {
        json_object_set_new(body, "nodes", json_rawstr(v));
        rc = update_simple(PATH_NODES_UPDATE, body, node_map, argc - 1, argv + 1);
    } else if (!strncasecmp(argv[0], "PartitionName=", 14)) {
        json_object_set_new(body, "name", json_rawstr(v));
        rc = update_simple(PATH_PARTITIONS_UPDATE, body, part_map, argc - 1, argv + 1);
    } else {
        cmd_error(PROG, "Update of this parameter is not supported: %s", argv[0]);
        rc = 1;
    }
    json_decref(body);
    return rc;
}

/* `create reservation Key=Value...` (also `create res`). */
static int cmd_create(int argc, char **argv)
{
    if (argc < 1 || !scontrol_word(argv[0], "reservation", 3)) {
        fprintf(stderr, "invalid keyword: %s\n", argc ? argv[0] : "create");
        return 1;
    }
    return scontrol_resv_create(argc - 1, argv + 1);
}

/* `delete reservation NAME` or `delete ReservationName=NAME`. */
static int cmd_delete(int argc, char **argv)
{
    const char *eq = argc > 0 ? strchr(argv[0], '=') : NULL;
    if (eq && !strncasecmp(argv[0], "ReservationName=", 16))
        return scontrol_resv_delete(argv[0], eq + 1);
    if (argc > 1 && scontrol_word(argv[0], "reservation", 3))
        return scontrol_resv_delete(argv[0], argv[1]);
    fprintf(stderr, "invalid keyword: %s\n", argc ? argv[0] : "delete");
    return 1;
}

static int cmd_ping(void)
{
    const struct conf *c = client_conf(PROG);
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "GET", PATH_PING, NULL, &resp, err, sizeof err);
    json_decref(resp);
    printf("Slurmctld(primary) at %s is %s\n", c->ctld_host, st == 200 ? "UP" : "DOWN");
    return st == 200 ? 0 : 1;
}

static int scontrol_command(const struct scontrol_opts *o, int argc, char **argv)
{
    const char *w = argv[0];
    if (scontrol_word(w, "show", 3))
        return scontrol_show(o, argc - 1, argv + 1);
    if (!strcasecmp(w, "hold"))
        return job_action("hold", false, false, argc - 1, argv + 1);
    if (!strcasecmp(w, "uhold") || !strcasecmp(w, "holdu"))
        return job_action("hold", true, false, argc - 1, argv + 1);
    if (scontrol_word(w, "release", 3))
        return job_action("release", false, false, argc - 1, argv + 1);
    if (!strcasecmp(w, "requeue"))
        return job_action("requeue", false, false, argc - 1, argv + 1);
    if (!strcasecmp(w, "requeuehold"))
        return job_action("requeue", false, true, argc - 1, argv + 1);
    bool stop = scontrol_word(w, "suspend", 2);
    if (stop || scontrol_word(w, "resume", 3)) {
        if (argc < 2) {   /* Slurm's words */
            fprintf(stderr, "too few arguments for keyword:%s\n", w);
            return 1;
        }
        return job_action(stop ? "suspend" : "resume", false, false, argc - 1, argv + 1);
    }
    if (scontrol_word(w, "update", 1))
        return cmd_update(argc - 1, argv + 1);
    if (scontrol_word(w, "create", 2))
        return cmd_create(argc - 1, argv + 1);
    if (scontrol_word(w, "delete", 3))
        return cmd_delete(argc - 1, argv + 1);
    if (!strcasecmp(w, "token"))
        return scontrol_token(argc - 1, argv + 1);
    if (scontrol_word(w, "ping", 2))
        return cmd_ping();
    if (scontrol_word(w, "reconfigure", 3))
        return post(PATH_RECONFIGURE, NULL, NULL, "slurm_reconfigure error");
    if (scontrol_word(w, "version", 1)) {
        printf("slurm %s\n", SLURM_COMPAT_VERSION);
        return 0;
    }
    if (scontrol_word(w, "help", 1)) {
        scontrol_usage(stdout);
        return 0;
    }
    fprintf(stderr, "invalid keyword: %s\n", w);
    return 1;
}

int cmd_scontrol(int argc, char **argv)
{
    static const struct option opts[] = {
        { "oneliner", no_argument, NULL, 'o' }, { "details", no_argument, NULL, 'd' },
        { "quiet", no_argument, NULL, 'Q' },    { "help", no_argument, NULL, 'h' },
        { "usage", no_argument, NULL, 'h' },    { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    struct scontrol_opts o = { 0 };
    int c;
    optind = 1;
    /* options may follow the command too: `scontrol show job 5 -d` */
    while ((c = getopt_long(argc, argv, "odQhvV", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o.oneliner = true; break;
        case 'd': o.details++; break;
        case 'Q': o.quiet = true; break;
        case 'v': break;
        case 'V': printf("slurm %s\n", SLURM_COMPAT_VERSION); return 0;
        case 'h': scontrol_usage(stdout); return 0;
        default: fprintf(stderr, "Try \"scontrol --help\" for more information\n"); return 1;
        }
    }
    if (optind >= argc) {
        scontrol_usage(stderr);
        return 1;
    }
    return scontrol_command(&o, argc - optind, argv + optind);
}
