/*
 * scontrol_resv: advance reservations. `create reservation`, `update
 * reservation` (or `update ReservationName=...`), `delete reservation NAME`
 * and `show reservation [NAME]`, with Slurm 22.05's words and layout. What
 * Slurm's scontrol checks itself (a missing StartTime, an unknown key or
 * flag, a bad time) is checked here, before the controller is asked;
 * StartTime and EndTime are sent as Unix times, the other values as typed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/begintime.h"
#include "client/client.h"
#include "client/clock.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/scontrol/scontrol.h"
#include "common/resv_flags.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

#define PROG SCONTROL_PROG
#define PATH_RESVS "/v1/reservations"

/* The keys scontrol takes, with the words Slurm accepts for each. */
static const char *const resv_keys[] = {
    "ReservationName", "Reservation", "ResName", "StartTime", "EndTime", "Duration", "Users",
    "User", "Accounts", "Account", "Groups", "Group", "Nodes", "NodeList", "Node", "NodeCnt",
    "NodeCount", "CoreCnt", "CoreCount", "TRES", "PartitionName", "Partition", "Features",
    "Feature", "Flags", "Flag", "Comment", NULL,
};

struct resv_req {
    json_t *body;
    const char *verb;          /* "created" or "update": Slurm's "No reservation ..." */
    const char *name;          /* ReservationName= (argv's) */
    bool start, end, dur, nodes, who;
};

static int refuse(const struct resv_req *q, const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    cmd_error(PROG, "%s.  No reservation %s.", msg, q->verb);
    return -1;
}

static bool key_is(const char *k, size_t n, const char *word)
{
    return strlen(word) == n && !strncasecmp(k, word, n);
}

static int put_time(struct resv_req *q, const char *key, const char *what, const char *kv,
                    const char *v)
{
    int64_t t;
    if (begintime_parse(v, client_now(), &t) < 0)
        return refuse(q, what, kv);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)t);
    json_object_set_new(q->body, key, json_string(buf));
    return 0;
}

/* TRES=cpu=N,node=N,gres/gpu[:type]=N: Slurm's words for an unknown one. */
static int check_tres(const char *v)
{
    char *copy = xstrdup(v), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (eq)
            *eq = '\0';
        if (strcasecmp(t, "cpu") && strcasecmp(t, "node") && strncasecmp(t, "gres/gpu", 8)) {
            cmd_error(PROG, "couldn't identify configured TRES '%s'", t);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

static int check_value(struct resv_req *q, const char *k, size_t n, const char *kv, const char *v)
{
    if (key_is(k, n, "ReservationName") || key_is(k, n, "Reservation") || key_is(k, n, "ResName"))
        q->name = v;
    if (key_is(k, n, "StartTime"))
        return q->start = true, put_time(q, "StartTime", "Invalid start time %s", kv, v);
    if (key_is(k, n, "EndTime"))
        return q->end = true, put_time(q, "EndTime", "Invalid end time %s", kv, v);
    if (key_is(k, n, "Duration")) {
        int64_t min;
        q->dur = true;
        if (timefmt_parse_limit(v, &min) < 0)
            return refuse(q, "Invalid duration %s", kv);
    }
    if (key_is(k, n, "Flags") || key_is(k, n, "Flag")) {
        uint32_t set, clear;
        int64_t purge;
        const char *bad;
        size_t blen;
        if (resv_flags_parse(v, &set, &clear, &purge, &bad, &blen) < 0) {
            char word[128];
            snprintf(word, sizeof word, "%.*s", (int)blen, bad);
            return refuse(q, "Error parsing flags %s", word);
        }
    }
    if (key_is(k, n, "TRES") && check_tres(v) < 0)
        return -1;
    q->nodes |= key_is(k, n, "Nodes") || key_is(k, n, "NodeList") || key_is(k, n, "Node") ||
                key_is(k, n, "NodeCnt") || key_is(k, n, "NodeCount") || key_is(k, n, "CoreCnt") ||
                key_is(k, n, "CoreCount") || key_is(k, n, "TRES");
    q->who |= key_is(k, n, "Users") || key_is(k, n, "User") || key_is(k, n, "Accounts") ||
              key_is(k, n, "Account") || key_is(k, n, "Groups") || key_is(k, n, "Group");
    char *key = xasprintf("%.*s", (int)n, k);
    json_object_set_new(q->body, key, json_string(v));
    free(key);
    return 0;
}

/* Every Key=Value into q->body; -1 once one is refused (said). */
static int read_pairs(struct resv_req *q, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t n = eq ? (size_t)(eq - argv[i]) : 0;
        const char *const *k = resv_keys;
        while (eq && *k && !key_is(argv[i], n, *k))
            k++;
        if (!eq || !*k)
            return refuse(q, "Unknown parameter %s", argv[i]);
        if (check_value(q, argv[i], n, argv[i], eq + 1) < 0)
            return -1;
    }
    return 0;
}

/* Slurm's own checks of a creation, in its order. */
static int check_create(struct resv_req *q)
{
    if (!q->start)
        return refuse(q, "A start time must be given%s", "");
    if (!q->end && !q->dur)
        return refuse(q, "An end time or duration must be given%s", "");
    const char *s = json_string_value(json_object_get(q->body, "StartTime"));
    const char *e = json_string_value(json_object_get(q->body, "EndTime"));
    if (s && e && strtoll(s, NULL, 10) > strtoll(e, NULL, 10))
        return refuse(q, "Start time cannot be after end time%s", "");
    if (!q->nodes)
        return refuse(q, "CoreCnt, Nodes, NodeCnt, BurstBuffer, Licenses or Watts must be "
                         "specified%s", "");
    if (!q->who)
        return refuse(q, "Either Users/Groups and/or Accounts must be specified%s", "");
    return 0;
}

static void busy_note(int code_is_busy)
{
    if (code_is_busy)   /* on stdout, after the error, as Slurm's */
        printf("Note, unless nodes are directly requested a reservation must exist in a single "
               "partition.\nIf no partition is requested the default partition is assumed.\n");
}

int scontrol_resv_create(int argc, char **argv)
{
    struct resv_req q = { .body = json_object(), .verb = "created" };
    int rc = read_pairs(&q, argc, argv) < 0 || check_create(&q) < 0 ? 1 : 0;
    json_t *resp = NULL;
    char err[256];
    int st = rc ? 0 : client_call(PROG, "POST", PATH_RESVS, q.body, &resp, err, sizeof err);
    if (!rc && st == 200)
        printf("Reservation created: %s\n", jget_str(resp, "name", ""));
    else if (!rc) {
        const char *msg = st < 0 ? err : client_error_text(resp, st);
        fprintf(stderr, "Error creating the reservation: %s\n", msg);
        busy_note(strcmp(msg, "Requested nodes are busy") == 0);
        rc = 1;
    }
    json_decref(resp);
    json_decref(q.body);
    return rc;
}

int scontrol_resv_update(int argc, char **argv)
{
    struct resv_req q = { .body = json_object(), .verb = "update" };
    int rc = read_pairs(&q, argc, argv) < 0 ? 1 : 0;
    const char *name = q.name;
    if (rc) {
        fprintf(stderr, "slurm_update error: No error\n");   /* Slurm says this too */
        json_decref(q.body);
        return 1;
    }
    char *path = xasprintf(PATH_RESVS "/%s", name ? name : "");
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "POST", path, q.body, &resp, err, sizeof err);
    if (st == 200)
        printf("Reservation updated.\n");
    else {
        const char *msg = st < 0 ? err : client_error_text(resp, st);
        fprintf(stderr, "Error updating the reservation: %s\nslurm_update error: %s\n", msg, msg);
        rc = 1;
    }
    free(path);
    json_decref(resp);
    json_decref(q.body);
    return rc;
}

int scontrol_resv_delete(const char *tag, const char *name)
{
    char *path = xasprintf(PATH_RESVS "/%s", name);
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "DELETE", path, NULL, &resp, err, sizeof err);
    if (st != 200)
        fprintf(stderr, "delete_reservation %s: %s\n", tag,
                st < 0 ? err : client_error_text(resp, st));
    free(path);
    json_decref(resp);
    return st == 200 ? 0 : 1;
}

static const char *or_null(const json_t *r, const char *key)
{
    const char *s = jget_str(r, key, NULL);
    return s && *s ? s : "(null)";
}

/* One record in Slurm 22.05's layout (no AllowedPartitions/QOS line; Watts
 * on the Users line). */
static void resv_print(const json_t *r, const char *sep)
{
    char st[32], et[32], dur[32];
    timefmt_iso(jget_int(r, "start_time", 0), st, sizeof st);
    timefmt_iso(jget_int(r, "end_time", 0), et, sizeof et);
    resv_duration_str(jget_int(r, "duration_s", 0), dur, sizeof dur);
    printf("ReservationName=%s StartTime=%s EndTime=%s Duration=%s", jget_str(r, "name", ""), st,
           et, dur);
    printf("%sNodes=%s NodeCnt=%lld CoreCnt=%lld Features=%s PartitionName=%s Flags=%s", sep,
           or_null(r, "nodes"), (long long)jget_int(r, "node_count", 0),
           (long long)jget_int(r, "core_count", 0), or_null(r, "features"),
           or_null(r, "partition"), jget_str(r, "flags", ""));
    printf("%sTRES=%s", sep, jget_str(r, "tres", ""));
    printf("%sUsers=%s Groups=%s Accounts=%s Licenses=(null) State=%s BurstBuffer=(null) "
           "Watts=n/a", sep, or_null(r, "users"), or_null(r, "groups"), or_null(r, "accounts"),
           jget_str(r, "state", "INACTIVE"));
    printf("%sMaxStartDelay=(null)", sep);
    if (jget_str(r, "comment", NULL))
        printf(" Comment=%s", jget_str(r, "comment", ""));
    printf(strcmp(sep, " ") ? "\n\n" : "\n");
}

int scontrol_show_resv(const struct scontrol_opts *o, const char *name)
{
    char *path = name ? xasprintf(PATH_RESVS "/%s", name) : xstrdup(PATH_RESVS);
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "GET", path, NULL, &resp, err, sizeof err);
    free(path);
    if (st == 404 && name) {
        printf("Reservation %s not found\n", name);   /* on stdout, as Slurm's */
        json_decref(resp);
        return 1;
    }
    if (st != 200) {
        fprintf(stderr, "slurm_load_reservations error: %s\n",
                st < 0 ? err : client_error_text(resp, st));
        json_decref(resp);
        return 1;
    }
    json_t *all = json_object_get(resp, "reservations");
    if (json_array_size(all) == 0)
        printf("No reservations in the system\n");
    size_t i;
    json_t *r;
    json_array_foreach(all, i, r)
        resv_print(r, o->oneliner ? " " : "\n   ");
    json_decref(resp);
    return 0;
}
