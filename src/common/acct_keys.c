/*
 * acct_keys: sacctmgr's words and values (acct_keys.h). Slurm's spellings,
 * including the short ones its man page gives (MaxTRESPU, QosLevel).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

#define A_ASSOC (AK_ACCOUNT | AK_USER)
#define A_ALL (AK_ACCOUNT | AK_USER | AK_QOS)

static const struct acct_key keys[] = {
    { "Description", "Descr", AK_TEXT, AK_ACCOUNT | AK_QOS, 0 },
    { "Organization", "Org", AK_TEXT, AK_ACCOUNT, 0 },
    { "DefaultAccount", "DefAcct", AK_NAME, AK_USER, 0 },
    { "AdminLevel", "Admin", AK_ADMIN, AK_USER, 0 },
    { "Account", "Accounts", AK_NAMES, AK_USER, 1 },
    { "Parent", "ParentName", AK_NAME, AK_ACCOUNT, 1 },
    { "Fairshare", "Shares,Share", AK_COUNT, A_ASSOC, 1 },
    { "Priority", "", AK_COUNT, A_ALL, 1 },
    { "QOS", "QosLevel", AK_QOSLIST, A_ASSOC, 1 },
    { "DefaultQOS", "DefQOS", AK_NAME, A_ASSOC, 1 },
    { "Flags", "", AK_FLAGS, AK_QOS, 0 },
    { "UsageFactor", "", AK_FACTOR, AK_QOS, 0 },
    { "Preempt", "", AK_QOSLIST, AK_QOS, 0 },
    { "PreemptMode", "", AK_PMODE, AK_QOS, 0 },
    { "GraceTime", "", AK_GRACE, AK_QOS, 0 },
    { "PreemptExemptTime", "", AK_DURATION, AK_QOS, 0 },
    { "GrpJobs", "", AK_COUNT, A_ALL, 1 },
    { "GrpSubmitJobs", "GrpSubmit", AK_COUNT, A_ALL, 1 },
    { "GrpTRES", "", AK_TRES, A_ALL, 1 },
    { "GrpTRESMins", "", AK_TRES, A_ALL, 1 },
    { "GrpTRESRunMins", "GrpTRESRunMin", AK_TRES, A_ALL, 1 },
    { "GrpWall", "", AK_WALL, A_ALL, 1 },
    { "MaxJobs", "", AK_COUNT, A_ASSOC, 1 },
    { "MaxSubmitJobs", "MaxSubmit", AK_COUNT, A_ASSOC, 1 },
    { "MaxTRES", "MaxTRESPerJob,MaxTRESPJ", AK_TRES, A_ASSOC, 1 },
    { "MaxTRESPerJob", "MaxTRES,MaxTRESPJ", AK_TRES, AK_QOS, 0 },
    { "MaxTRESPerNode", "MaxTRESPN", AK_TRES, A_ALL, 1 },
    { "MaxTRESMins", "MaxTRESMinsPerJob,MaxTRESMinsPJ", AK_TRES, A_ALL, 1 },
    { "MaxWall", "MaxWallDurationPerJob", AK_WALL, A_ALL, 1 },
    { "MaxTRESPerUser", "MaxTRESPU", AK_TRES, AK_QOS, 0 },
    { "MaxJobsPerUser", "MaxJobsPU", AK_COUNT, AK_QOS, 0 },
    { "MaxSubmitJobsPerUser", "MaxSubmitPU,MaxSubmitJobsPU", AK_COUNT, AK_QOS, 0 },
    { "MaxTRESPerAccount", "MaxTRESPA", AK_TRES, AK_QOS, 0 },
    { "MaxJobsPerAccount", "MaxJobsPA", AK_COUNT, AK_QOS, 0 },
    { "MaxSubmitJobsPerAccount", "MaxSubmitPA,MaxSubmitJobsPA", AK_COUNT, AK_QOS, 0 },
    { "MinTRESPerJob", "MinTRES", AK_TRES, AK_QOS, 0 },
    { "MaxTRESRunMinsPerUser", "MaxTRESRunMinsPU,MaxTRESRunMinsPerUsr", AK_TRES, AK_QOS, 0 },
    { "MaxTRESRunMinsPerAccount", "MaxTRESRunMinsPA,MaxTRESRunMinsPerAcct", AK_TRES, AK_QOS, 0 },
};

bool acct_list_has(const json_t *list, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        if (s && json_string_value(v) && !strcmp(json_string_value(v), s))
            return true;
    return false;
}

bool acct_list_wants(const json_t *list, const char *s)
{
    return !json_array_size(list) || acct_list_has(list, s);
}

bool acct_word_in(const char *list, const char *w, size_t len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncasecmp(p, w, len))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

const struct acct_key *acct_key_find(const char *word, size_t len, unsigned entity)
{
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const struct acct_key *k = &keys[i];
        if (!(k->applies & entity))
            continue;
        if ((strlen(k->name) == len && !strncasecmp(k->name, word, len)) ||
            acct_word_in(k->aliases, word, len))
            return k;
    }
    return NULL;
}

/* Slurm's TRES order: the fixed ones by id, then the rest by name. */
static int tres_rank(const char *name)
{
    static const char *fixed[] = { "cpu", "mem", "energy", "node", "billing", "fs/disk",
                                   "vmem", "pages", NULL };
    for (int i = 0; fixed[i]; i++)
        if (!strcmp(fixed[i], name))
            return i;
    return 100;
}

static bool tres_name_ok(const char *n)
{
    if (tres_rank(n) < 100)
        return true;
    if (strncmp(n, "gres/", 5) || !n[5])
        return false;
    for (const char *p = n + 5; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr(":_-.", *p))
            return false;
    return true;
}

static int tres_item(json_t *out, char *item, char *err, size_t errlen)
{
    char *eq = strchr(item, '=');
    if (!eq) {
        snprintf(err, errlen, "Invalid TRES '%s': expected name=count", item);
        return -1;
    }
    *eq = '\0';
    for (char *p = item; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    if (!tres_name_ok(item)) {
        snprintf(err, errlen, "Invalid TRES name '%s'", item);
        return -1;
    }
    if (!strcmp(eq + 1, "-1")) {
        json_object_set_new(out, item, json_null());
        return 0;
    }
    uint64_t v;
    char *end;
    errno = 0;
    v = !strcmp(item, "mem") ? 0 : strtoull(eq + 1, &end, 10);
    if (!strcmp(item, "mem") ? sizefmt_parse_mb(eq + 1, &v) < 0
                             : (!eq[1] || *end || errno || eq[1] == '-')) {
        snprintf(err, errlen, "Invalid TRES count '%s' for %s", eq + 1, item);
        return -1;
    }
    json_object_set_new(out, item, json_integer((json_int_t)v));
    return 0;
}

static json_t *tres_parse(const char *text, char *err, size_t errlen)
{
    json_t *out = json_object();
    char *copy = xstrdup(text), *save = NULL;
    int rc = 0;
    for (char *it = strtok_r(copy, ",", &save); it && rc == 0; it = strtok_r(NULL, ",", &save))
        rc = tres_item(out, it, err, errlen);
    free(copy);
    if (rc < 0 || json_object_size(out) == 0) {
        if (rc == 0)
            snprintf(err, errlen, "Invalid TRES '%s'", text);
        json_decref(out);
        return NULL;
    }
    return out;
}

static json_t *list_parse(const char *text)
{
    json_t *a = json_array();
    char *copy = xstrdup(text), *save = NULL;
    for (char *it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save))
        json_array_append_new(a, json_string(it));
    free(copy);
    return a;
}

static json_t *flags_parse(const char *text, char *err, size_t errlen)
{
    static const char *known[] = { "DenyOnLimit", "EnforceUsageThreshold", "NoDecay",
                                   "NoReserve", "OverPartQOS", "PartitionMaxNodes",
                                   "PartitionMinNodes", "PartitionTimeLimit", "Relative",
                                   "RequiresReservation", "UsageFactorSafe", NULL };
    json_t *in = list_parse(text), *out = json_array(), *v;
    size_t i;
    json_array_foreach(in, i, v) {
        const char **k = known;
        while (*k && strcasecmp(*k, json_string_value(v)))
            k++;
        if (!*k) {
            snprintf(err, errlen, "Unknown QOS flag '%s'", json_string_value(v));
            json_decref(in);
            json_decref(out);
            return NULL;
        }
        json_array_append_new(out, json_string(*k));
    }
    json_decref(in);
    return out;
}

static json_t *admin_parse(const char *t, char *err, size_t errlen)
{
    size_t n = strlen(t);
    if (n >= 2 && !strncasecmp(t, "None", n))
        return json_string("None");
    if (n >= 2 && !strncasecmp(t, "Operator", n))
        return json_string("Operator");
    if (n >= 2 && (!strncasecmp(t, "Administrator", n) || !strncasecmp(t, "SuperUser", n)))
        return json_string("Administrator");
    snprintf(err, errlen, "Unknown AdminLevel '%s'", t);
    return NULL;
}

static json_t *count_parse(const char *t, const char *name, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (!*t || *end || errno || v < -1) {
        snprintf(err, errlen, "Bad %s value: %s", name, t);
        return NULL;
    }
    return v == -1 ? json_null() : json_integer(v);
}

static json_t *pmode_parse(const struct acct_key *k, const char *t, char *err, size_t errlen)
{
    int mode;
    char buf[64];
    if (conf_preempt_mode_parse(t, &mode, NULL, 0) < 0) {
        snprintf(err, errlen, "Bad Preempt Mode given: %s=%s", k->name, t);
        return NULL;
    }
    if (mode == CONF_PM_OFF)
        return json_null();
    conf_preempt_mode_name(mode, true, buf, sizeof buf);
    return json_string(buf);
}

/* GraceTime: seconds; PreemptExemptTime: Slurm's time format. */
static json_t *secs_parse(const struct acct_key *k, const char *t, char *err, size_t errlen)
{
    int64_t secs;
    if (!strcmp(t, "-1"))
        return json_null();
    if (k->kind == AK_GRACE) {
        json_t *v = count_parse(t, k->name, err, errlen);
        if (v && json_integer_value(v) > 0x7fffffff) {
            json_decref(v);
            snprintf(err, errlen, "Bad %s value: %s", k->name, t);
            return NULL;
        }
        return v;
    }
    if (timefmt_parse_secs(t, &secs) < 0) {
        snprintf(err, errlen, "Bad %s time format: %s", k->name, t);
        return NULL;
    }
    return json_integer(secs);
}

json_t *acct_value_parse(const struct acct_key *k, const char *t, char *err, size_t errlen)
{
    int64_t mins;
    switch (k->kind) {
    case AK_PMODE:
        return pmode_parse(k, t, err, errlen);
    case AK_GRACE:
    case AK_DURATION:
        return secs_parse(k, t, err, errlen);
    case AK_TEXT:
    case AK_NAME:
        return json_string(t);
    case AK_NAMES:
    case AK_QOSLIST:
        return list_parse(t);
    case AK_COUNT:
        return count_parse(t, k->name, err, errlen);
    case AK_TRES:
        return tres_parse(t, err, errlen);
    case AK_WALL:
        if (!strcmp(t, "-1"))
            return json_null();
        if (timefmt_parse_limit(t, &mins) < 0 || mins < 0) {
            snprintf(err, errlen, "Bad %s time format: %s", k->name, t);
            return NULL;
        }
        return json_integer(mins);
    case AK_FACTOR: {
        char *end;
        double d = strtod(t, &end);
        if (!*t || *end || d < 0) {
            snprintf(err, errlen, "Bad %s value: %s", k->name, t);
            return NULL;
        }
        return json_real(d);
    }
    case AK_FLAGS:
        return !strcmp(t, "-1") ? json_array() : flags_parse(t, err, errlen);
    case AK_ADMIN:
        return admin_parse(t, err, errlen);
    }
    return NULL;
}

void acct_wall_format(long long m, char *buf, size_t n)
{
    long long d = m / 1440, h = m % 1440 / 60, mi = m % 60;
    if (d)
        snprintf(buf, n, "%lld-%02lld:%02lld:00", d, h, mi);
    else
        snprintf(buf, n, "%02lld:%02lld:00", h, mi);
}

static int tres_cmp(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    int rx = tres_rank(x), ry = tres_rank(y);
    return rx != ry ? rx - ry : strcmp(x, y);
}

static void tres_one(char **out, const char *name, json_int_t v)
{
    char *prev = *out;
    if (!strcmp(name, "mem") && v % 1024 == 0 && v)
        *out = xasprintf("%s%s%s=%lldG", prev, *prev ? "," : "", name, (long long)v / 1024);
    else
        *out = xasprintf("%s%s%s=%lld%s", prev, *prev ? "," : "", name, (long long)v,
                         strcmp(name, "mem") ? "" : "M");
    free(prev);
}

char *acct_tres_format(const json_t *tres)
{
    size_t n = json_object_size(tres), i = 0;
    const char **names = xcalloc(n ? n : 1, sizeof *names), *key;
    json_t *v;
    json_object_foreach((json_t *)tres, key, v)
        if (json_is_integer(v))
            names[i++] = key;
    qsort(names, i, sizeof *names, tres_cmp);
    char *out = xstrdup("");
    for (size_t k = 0; k < i; k++)
        tres_one(&out, names[k], json_integer_value(json_object_get(tres, names[k])));
    free(names);
    return out;
}

static char *join(const json_t *a)
{
    char *out = xstrdup("");
    size_t i;
    json_t *v;
    json_array_foreach(a, i, v) {
        char *prev = out;
        out = xasprintf("%s%s%s", prev, i ? "," : "", json_string_value(v));
        free(prev);
    }
    return out;
}

/* Slurm's secs2time_str: "00:00:30", "1-00:00:00". */
static char *secs_format(long long s)
{
    if (s >= 86400)
        return xasprintf("%lld-%02lld:%02lld:%02lld", s / 86400, s / 3600 % 24, s / 60 % 60,
                         s % 60);
    return xasprintf("%02lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
}

char *acct_value_format(const struct acct_key *k, const json_t *v)
{
    char buf[64];
    bool none = !v || json_is_null(v);
    if (k->kind == AK_GRACE)   /* sacctmgr shows a QOS's grace even when never set */
        return secs_format(none ? 0 : (long long)json_integer_value(v));
    if (k->kind == AK_PMODE && none)
        return xstrdup("cluster");
    if (none)
        return xstrdup("");
    switch (k->kind) {
    case AK_DURATION:
        return secs_format((long long)json_integer_value(v));
    case AK_TRES:
        return acct_tres_format(v);
    case AK_WALL:
        acct_wall_format((long long)json_integer_value(v), buf, sizeof buf);
        return xstrdup(buf);
    case AK_FACTOR:
        return xasprintf("%f", json_number_value(v));
    case AK_COUNT:
        return xasprintf("%lld", (long long)json_integer_value(v));
    case AK_NAMES:
    case AK_QOSLIST:
    case AK_FLAGS:
        return join(v);
    default:
        return xstrdup(json_is_string(v) ? json_string_value(v) : "");
    }
}
