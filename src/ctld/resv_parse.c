/*
 * resv_parse: the Key=Value pairs of `scontrol create|update reservation`,
 * as a JSON object of strings (keys as typed, any case), into a
 * reservation. scontrol has already refused what Slurm's scontrol refuses
 * itself (a missing StartTime, an unknown key, a bad flag word) and turned
 * StartTime and EndTime into Unix times; these checks repeat it for other
 * callers of the API, and add what only the controller knows (users,
 * partitions).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/resv_flags.h"
#include "common/slurm_errno.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/resv.h"

#define YEAR_S (365 * 86400)   /* Slurm 22.05's "UNLIMITED" Duration */

struct rparse {
    int *code;
    char *err;
    size_t errlen;
    int64_t start, end, dur_s;   /* -1: not given */
    bool failed;
};

static int bad(struct rparse *p, int code, const char *fmt, const char *arg)
{
    if (!p->failed) {
        p->failed = true;
        *p->code = code;
        snprintf(p->err, p->errlen, fmt, arg);
    }
    return -1;
}

static void set_str(char **dst, const char *v)
{
    free(*dst);
    *dst = *v ? xstrdup(v) : NULL;
}

/* The latest time taken, 9999-12-31T23:59:59Z: beyond it a start plus a
 * duration could overflow (strtoll's LLONG_MAX + 7200 did). */
#define TIME_MAX 253402300799LL

/* "now" or a Unix time. */
static int64_t parse_when(struct rparse *p, const char *v, int64_t now)
{
    char *end;
    if (strcasecmp(v, "now") == 0)
        return now;
    errno = 0;
    long long t = strtoll(v, &end, 10);
    if (end == v || *end || t <= 0 || errno == ERANGE || t > TIME_MAX)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "Invalid time specified%s", "");
    return t;
}

static int parse_count(struct rparse *p, const char *key, const char *v, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end || n < 0 || n > 1000000)
        return bad(p, SLURM_ERROR, "Invalid %s value", key);
    *out = (int)n;
    return 0;
}

/* TRES=cpu=N,node=N,gres/gpu[:type]=N */
static int parse_tres(struct rparse *p, struct resv *r, const char *v)
{
    char *copy = xstrdup(v), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && !p->failed; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (!eq) {
            bad(p, SLURM_ERROR, "Invalid TRES specification %s", t);
            break;
        }
        *eq = '\0';
        if (strcasecmp(t, "cpu") == 0)
            parse_count(p, "TRES cpu", eq + 1, &r->core_cnt);
        else if (strcasecmp(t, "node") == 0)
            parse_count(p, "TRES node", eq + 1, &r->node_cnt);
        else if (strncasecmp(t, "gres/gpu", 8) == 0 && (t[8] == '\0' || t[8] == ':')) {
            parse_count(p, "TRES gres/gpu", eq + 1, &r->gpus);
            set_str(&r->gpu_type, t[8] == ':' ? t + 9 : "");
        } else
            bad(p, SLURM_ERROR, "couldn't identify configured TRES '%s'", t);
    }
    free(copy);
    return p->failed ? -1 : 0;
}

static int parse_flags(struct rparse *p, struct resv *r, const char *v)
{
    uint32_t set, clear;
    const char *w;
    size_t n;
    if (resv_flags_parse(v, &set, &clear, &r->purge_s, &w, &n) < 0) {
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)n, w);
        return bad(p, SLURM_ERROR, "Error parsing flags %s", word);
    }
    r->flags = (r->flags | (set & RESV_SETTABLE)) & ~clear;
    return 0;
}

static int check_users(struct rparse *p, const char *list)
{
    char *copy = xstrdup(list + (*list == '-')), *save = NULL;
    for (char *u = strtok_r(copy, ",", &save); u; u = strtok_r(NULL, ",", &save))
        if (!getpwnam(u)) {
            free(copy);
            return bad(p, ESLURM_USER_ID_MISSING, "Invalid user id%s", "");
        }
    free(copy);
    return 0;
}

/* Every account named must be known to accounting (sacctmgr). */
static int check_accounts(const struct ctld *c, struct rparse *p, const char *list)
{
    const struct prio *pr = prio_get(c);
    char *copy = xstrdup(list + (*list == '-')), *save = NULL;
    int rc = 0;
    for (char *a = strtok_r(copy, ",", &save); a && !rc; a = strtok_r(NULL, ",", &save))
        if (pr && pr->db && !acctdb_assoc(pr->db, a, NULL))
            rc = bad(p, ESLURM_INVALID_ACCOUNT,
                     "Invalid account or account/partition combination specified%s", "");
    free(copy);
    return rc;
}

static bool key_is(const char *k, const char *word)
{
    return strcasecmp(k, word) == 0;
}

static int one_key(const struct ctld *c, struct rparse *p, struct resv *r, const char *k,
                   const char *v, int64_t now)
{
    if (key_is(k, "ReservationName") || key_is(k, "Reservation") || key_is(k, "ResName"))
        return 0;   /* the API's caller names it */
    if (key_is(k, "StartTime"))
        return (p->start = parse_when(p, v, now)) < 0 ? -1 : 0;
    if (key_is(k, "EndTime"))
        return (p->end = parse_when(p, v, now)) < 0 ? -1 : 0;
    if (key_is(k, "Duration")) {
        int64_t min;
        if (timefmt_parse_limit(v, &min) < 0)
            return bad(p, SLURM_ERROR, "Invalid duration Duration=%s", v);
        p->dur_s = min < 0 ? YEAR_S : min * 60;
        return 0;
    }
    if (key_is(k, "Users") || key_is(k, "User")) {
        set_str(&r->users, v);
        return *v ? check_users(p, v) : 0;
    }
    if (key_is(k, "Accounts") || key_is(k, "Account")) {
        set_str(&r->accounts, v);
        return *v ? check_accounts(c, p, v) : 0;
    }
    if (key_is(k, "Groups") || key_is(k, "Group"))
        return set_str(&r->groups, v), 0;
    if (key_is(k, "Features") || key_is(k, "Feature"))
        return set_str(&r->features, v), 0;
    if (key_is(k, "Comment"))
        return set_str(&r->comment, v), 0;
    if (key_is(k, "PartitionName") || key_is(k, "Partition")) {
        for (size_t i = 0; i < c->conf->nparts; i++)
            if (strcmp(c->conf->parts[i].name, v) == 0)
                return set_str(&r->partition, v), 0;
        return bad(p, ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified%s", "");
    }
    if (key_is(k, "Nodes") || key_is(k, "NodeList") || key_is(k, "Node"))
        return set_str(&r->node_expr, v), 0;
    if (key_is(k, "NodeCnt") || key_is(k, "NodeCount"))
        return parse_count(p, "NodeCnt", v, &r->node_cnt);
    if (key_is(k, "CoreCnt") || key_is(k, "CoreCount"))
        return parse_count(p, "CoreCnt", v, &r->core_cnt);
    if (key_is(k, "TRES"))
        return parse_tres(p, r, v);
    if (key_is(k, "Flags") || key_is(k, "Flag"))
        return parse_flags(p, r, v);
    char kv[160];
    snprintf(kv, sizeof kv, "%s=%s", k, v);
    return bad(p, SLURM_ERROR, "Unknown parameter %s", kv);
}

/* The times: an update moves what it names and keeps the rest. */
static int settle_times(struct rparse *p, struct resv *r, bool create, int64_t now)
{
    if (create && p->start < 0)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "A start time must be given%s", "");
    if (create && p->end < 0 && p->dur_s < 0)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "An end time or duration must be given%s", "");
    int64_t dur = r->end - r->start;
    if (p->start >= 0)
        r->start = p->start;
    if (p->end >= 0 && p->dur_s >= 0 && p->end != r->start + p->dur_s)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "StartTime + Duration does not equal EndTime%s",
                   "");
    r->end = p->end >= 0 ? p->end : r->start + (p->dur_s >= 0 ? p->dur_s : dur);
    if (r->end <= r->start)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "Start time cannot be after end time%s", "");
    /* as Slurm: a start in the past is refused (a minute's grace for "now") */
    if (p->start >= 0 && r->start < now - 60)
        return bad(p, ESLURM_INVALID_TIME_VALUE, "Invalid time specified%s", "");
    return 0;
}

int resv_parse(const struct ctld *c, struct resv *r, json_t *body, bool create, int64_t now,
               int *code, char *err, size_t errlen)
{
    struct rparse p = { .code = code, .err = err, .errlen = errlen, .start = -1, .end = -1,
                        .dur_s = -1 };
    const char *k;
    json_t *v;
    json_object_foreach(body, k, v) {
        if (!json_is_string(v)) {
            bad(&p, SLURM_ERROR, "Invalid value for %s", k);
            break;
        }
        if (one_key(c, &p, r, k, json_string_value(v), now) < 0)
            break;
    }
    if (!p.failed)
        settle_times(&p, r, create, now);
    if (!p.failed && !r->users && !r->accounts && !r->groups)
        bad(&p, SLURM_ERROR, "Either Users/Groups and/or Accounts must be specified%s", "");
    if (!p.failed && !r->node_expr && !r->node_cnt && !r->core_cnt && !r->gpus)
        bad(&p, SLURM_ERROR, "CoreCnt, Nodes, NodeCnt or TRES must be specified%s", "");
    return p.failed ? -1 : 0;
}
