#include "common/conf.h"
#include "common/confless.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

/*
 * The file is read in three layers: a reader that turns a file into logical
 * lines of Key=Value pairs (comments, quotes, continuations, Include), the
 * slurm.conf and gres.conf line handlers on top of it, driven by key tables,
 * and a final pass that fills defaults and resolves names across lines.
 */

#define INCLUDE_DEPTH_MAX 16

struct kv {
    char *key;
    char *val;
};

/* Where a node or partition was defined, for errors found after parsing. */
struct srcpos {
    const char *file;
    int line;
};

/* A partition while parsing: its node expression is resolved at the end,
 * once every NodeName line has been read. */
struct part_tmp {
    struct conf_part p;
    char *nodes_expr;
};

/* What gres.conf said about one node. */
struct gres_acc {
    char **files;
    size_t nfiles, capfiles;
    int count;
    bool seen;
    struct srcpos pos;
};

struct node_ref {
    const char *name;
    size_t idx;
};

struct parse {
    struct conf *c;
    char *err;
    size_t errlen;
    const char *file;           /* current position */
    int line;
    int depth;
    char **files;               /* every path read, owned, for srcpos */
    size_t nfiles;
    struct conf_node node_dflt;
    struct part_tmp part_dflt;
    struct srcpos *node_pos;    /* parallel to c->nodes */
    size_t node_cap;            /* room in c->nodes and node_pos */
    struct srcpos *part_pos;    /* parallel to c->parts */
    char **part_exprs;          /* parallel to c->parts */
    struct node_ref *index;     /* c->nodes sorted by name, after parsing */
    struct gres_acc *gres;      /* parallel to c->nodes, for gres.conf */
    bool ctld_host_set;
};

typedef int (*line_fn)(struct parse *st, struct kv *kv, size_t n);

struct key_def {
    const char *key;
    int (*set)(struct parse *st, const struct key_def *k, void *base, const char *val);
    size_t off;
};

static int perr(struct parse *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct parse *st, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (st->line > 0)
        snprintf(st->err, st->errlen, "%s:%d: %s", st->file, st->line, msg);
    else
        snprintf(st->err, st->errlen, "%s: %s", st->file, msg);
    return -1;
}

static int bad_value(struct parse *st, const struct key_def *k, const char *val)
{
    return perr(st, "invalid value '%s' for %s", val, k->key);
}

/* ---- value setters (the key tables point at these) ---- */

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s))
        return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int set_str(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    (void)st;
    char **p = (char **)((char *)base + k->off);
    free(*p);
    *p = xstrdup(val);
    return 0;
}

/* A string that is NULL when empty ("Features=" clears). */
static int set_opt_str(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    char **p = (char **)((char *)base + k->off);
    if (*val)
        return set_str(st, k, base, val);
    xfree(*p);
    return 0;
}

static int set_int(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    long v;
    if (!parse_long(val, 0, 0x7fffffff, &v))
        return bad_value(st, k, val);
    *(int *)((char *)base + k->off) = (int)v;
    return 0;
}

static int set_pos_int(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    long v;
    if (!parse_long(val, 1, 0x7fffffff, &v))
        return bad_value(st, k, val);
    *(int *)((char *)base + k->off) = (int)v;
    return 0;
}

/* ReturnToService: Slurm's 0, 1 or 2. */
static int set_rts(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    long v;
    if (!parse_long(val, 0, 2, &v))
        return bad_value(st, k, val);
    *(int *)((char *)base + k->off) = (int)v;
    return 0;
}

/* MetricsType: the one plugin Slurm 25.11 has; without it the metrics
 * endpoints answer with empty bodies, as Slurm's. */
static int set_metrics_type(struct parse *st, const struct key_def *k, void *base,
                            const char *val)
{
    if (strcasecmp(val, "metrics/openmetrics") != 0)
        return perr(st, "invalid value '%s' for %s (the one metrics plugin is "
                    "metrics/openmetrics)", val, k->key);
    return set_str(st, k, base, val);
}

/* MetricsParameters: Slurm's comma list; ignore_private_data is its one word. */
static int set_metrics_params(struct parse *st, const struct key_def *k, void *base,
                              const char *val)
{
    char *list = xstrdup(val), *save = NULL;
    int rc = 0;
    for (char *w = strtok_r(list, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save))
        if (strcasecmp(w, "ignore_private_data") != 0)
            rc = perr(st, "unknown word '%s' in %s (known: ignore_private_data)", w, k->key);
    free(list);
    return rc ? rc : set_opt_str(st, k, base, val);
}

/* PrologFlags: Slurm's comma list. Contain (X11 implies it) makes the
 * extern step that holds a job's processes on each node. */
static int set_prolog_flags(struct parse *st, const struct key_def *k, void *base,
                            const char *val)
{
    static const char *known[] = { "Alloc", "Contain", "DeferBatch", "NoHold",
                                   "ForceRequeueOnFail", "RunInJob", "Serial", "X11" };
    bool contain = false;
    char *list = xstrdup(val), *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof known / sizeof *known && strcasecmp(t, known[i]))
            i++;
        if (i == sizeof known / sizeof *known) {
            free(list);
            return bad_value(st, k, val);
        }
        contain |= i == 1 || i == 7;
    }
    free(list);
    *(bool *)((char *)base + k->off) = contain;
    return 0;
}

/* A port, or Slurm's "6817-6820" range, of which the first is used. */
static int set_port(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    long v, hi;
    char buf[32];
    snprintf(buf, sizeof buf, "%s", val);
    char *dash = strchr(buf, '-');
    if (dash)
        *dash++ = '\0';
    if (strlen(val) >= sizeof buf || !parse_long(buf, 1, 65535, &v) ||
        (dash && (!parse_long(dash, v, 65535, &hi))))
        return bad_value(st, k, val);
    *(int *)((char *)base + k->off) = (int)v;
    return 0;
}

static int set_u64(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    char *end;
    if (!isdigit((unsigned char)*val))
        return bad_value(st, k, val);
    errno = 0;
    unsigned long long v = strtoull(val, &end, 10);
    if (errno || *end)
        return bad_value(st, k, val);
    *(uint64_t *)((char *)base + k->off) = v;
    return 0;
}

static int set_bool(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    bool *p = (bool *)((char *)base + k->off);
    if (!strcasecmp(val, "YES") || !strcasecmp(val, "TRUE") || !strcmp(val, "1"))
        *p = true;
    else if (!strcasecmp(val, "NO") || !strcasecmp(val, "FALSE") || !strcmp(val, "0"))
        *p = false;
    else
        return bad_value(st, k, val);
    return 0;
}

/* AccountingStorageEnforce: a comma list; limits, qos and safe imply
 * associations, safe implies limits, all is everything but nojobs/nosteps. */
static int set_enforce(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    static const struct { const char *word; int bits; } words[] = {
        { "associations", 1 }, { "limits", 3 }, { "qos", 5 }, { "safe", 11 }, { "all", 15 },
        { "wckeys", 1 }, { "nojobs", 0 }, { "nosteps", 0 }, { "none", 0 },
    };
    int bits = 0;
    char *copy = xstrdup(val), *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        size_t i = 0;
        while (i < sizeof words / sizeof *words && strcasecmp(words[i].word, w))
            i++;
        if (i == sizeof words / sizeof *words) {
            free(copy);
            return bad_value(st, k, val);
        }
        bits |= words[i].bits;
    }
    free(copy);
    *(int *)((char *)base + k->off) = bits;
    return 0;
}

static int set_limit(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    int64_t v;
    if (timefmt_parse_limit(val, &v) < 0)
        return bad_value(st, k, val);
    *(int64_t *)((char *)base + k->off) = v;
    return 0;
}

/* "host" or "host(addr)"; later SlurmctldHost lines are backups. */
static int set_ctld_host(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    struct conf *c = base;
    const char *paren = strchr(val, '(');
    size_t hlen = paren ? (size_t)(paren - val) : strlen(val);
    if (hlen == 0 || (paren && (val[strlen(val) - 1] != ')' || paren[1] == ')')))
        return bad_value(st, k, val);
    if (st->ctld_host_set)
        return 0;
    st->ctld_host_set = true;
    free(c->ctld_host);
    c->ctld_host = xstrndup(val, hlen);
    if (paren) {
        free(c->ctld_addr);
        c->ctld_addr = xstrndup(paren + 1, strlen(paren + 1) - 1);
    }
    return 0;
}

/* "socket=/path,cred_expire=120,ttl=60": the socket, and cred_expire, which
 * also delays a requeued job's next start (Slurm's BeginTime on requeue). */
static int set_authinfo(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    (void)st;
    (void)k;
    struct conf *c = base;
    char *copy = xstrdup(val), *save = NULL;
    for (char *opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
        if (strncasecmp(opt, "socket=", 7) == 0) {
            free(c->munge_socket);
            c->munge_socket = xstrdup(opt + 7);
        } else if (strncasecmp(opt, "cred_expire=", 12) == 0) {
            c->cred_expire = atoi(opt + 12);
        }
    }
    free(copy);
    return 0;
}

/* "gpu:4", "gpu:a100:8", "gpu:a100:4(S:0-1),mps:100"; other gres ignored. */
static int set_gres(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    struct conf_node *nd = base;
    char *copy = xstrdup(val), *save = NULL;
    int rc = 0;
    nd->gpus = 0;
    xfree(nd->gpu_type);
    for (char *g = strtok_r(copy, ",", &save); g && rc == 0; g = strtok_r(NULL, ",", &save)) {
        g[strcspn(g, "(")] = '\0';
        char *f[4] = { 0 };
        int n = 0;
        for (char *p = g; p && n < 4; n++) {
            f[n] = p;
            p = strchr(p, ':');
            if (p)
                *p++ = '\0';
        }
        if (strcasecmp(f[0], "gpu") != 0)
            continue;
        long cnt = 1;
        const char *type = NULL;
        if (n == 2 && isdigit((unsigned char)f[1][0]))
            rc = parse_long(f[1], 0, 1 << 20, &cnt) ? 0 : -1;
        else if (n == 2 || n == 3) {
            type = f[1];
            if (!*type || (n == 3 && !parse_long(f[2], 0, 1 << 20, &cnt)))
                rc = -1;
        } else if (n != 1)
            rc = -1;
        if (rc == 0 && cnt > (1 << 20) - nd->gpus)
            rc = -1;   /* "gpu:1048576,gpu:1048576,...": the sum would overflow */
        if (rc == 0) {
            nd->gpus += (int)cnt;
            if (type && !nd->gpu_type)
                nd->gpu_type = xstrdup(type);
        }
    }
    free(copy);
    return rc < 0 ? bad_value(st, k, val) : 0;
}

static int set_node_state(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    static const char *const states[] = {
        "CLOUD", "DOWN", "DRAIN", "FAIL", "FAILING", "FUTURE", "IDLE", "UNKNOWN",
    };
    struct conf_node *nd = base;
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        if (strcasecmp(val, states[i]) == 0) {
            free(nd->state);
            nd->state = xstrdup(states[i]);
            return 0;
        }
    }
    return bad_value(st, k, val);
}

static int set_part_state(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    struct conf_part *p = (struct conf_part *)((char *)base + k->off);
    if (strcasecmp(val, "UP") == 0)
        p->up = true;
    else if (!strcasecmp(val, "DOWN") || !strcasecmp(val, "INACTIVE") ||
             !strcasecmp(val, "DRAIN"))
        p->up = false;
    else
        return bad_value(st, k, val);
    return 0;
}

/* ---- preemption (the words: conf_preempt.c) ---- */

static int set_preempt_type(struct parse *st, const struct key_def *k, void *base,
                            const char *val)
{
    if (conf_preempt_type_parse(val, (int *)((char *)base + k->off)) < 0)
        return perr(st, "invalid value '%s' for %s (preempt/none, preempt/qos, "
                    "preempt/partition_prio)", val, k->key);
    return 0;
}

static int set_preempt_mode(struct parse *st, const struct key_def *k, void *base,
                            const char *val)
{
    char why[160];
    if (conf_preempt_mode_parse(val, (int *)((char *)base + k->off), why, sizeof why) < 0)
        return perr(st, "invalid value '%s' for %s: %s", val, k->key, why);
    return 0;
}

static int set_preempt_params(struct parse *st, const struct key_def *k, void *base,
                              const char *val)
{
    char why[200];
    if (conf_preempt_params_parse(base, val, why, sizeof why) < 0)
        return perr(st, "invalid value '%s' for %s: %s", val, k->key, why);
    return 0;
}

static int set_acctg_freq(struct parse *st, const struct key_def *k, void *base,
                          const char *val)
{
    char why[160];
    if (conf_acctg_freq_parse(val, (int *)((char *)base + k->off), why, sizeof why) < 0)
        return perr(st, "invalid value '%s' for %s: %s", val, k->key, why);
    return 0;
}

static int set_idle_gpu(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    char why[240];
    if (conf_idle_gpu_parse((struct conf_idle_gpu *)((char *)base + k->off), val, why,
                            sizeof why) < 0)
        return perr(st, "invalid value '%s' for %s: %s", val, k->key, why);
    return 0;
}

/* Slurm's time format, kept in seconds. */
static int set_secs(struct parse *st, const struct key_def *k, void *base, const char *val)
{
    int64_t v;
    if (timefmt_parse_secs(val, &v) < 0)
        return bad_value(st, k, val);
    *(int64_t *)((char *)base + k->off) = v;
    return 0;
}

/* ---- key tables ---- */

#define C(f) offsetof(struct conf, f)
#define N(f) offsetof(struct conf_node, f)
#define P(f) offsetof(struct part_tmp, f)

/* Keys with a NULL setter are Slurm's, accepted and not used by Herd. */
static const struct key_def conf_keys[] = {
    { "AccountingStorageEnforce", set_enforce, C(acct_enforce) }, { "AccountingStorageHost", NULL, 0 },
    { "AccountingStorageLoc", NULL, 0 }, { "AccountingStoragePass", NULL, 0 },
    { "AccountingStoragePort", NULL, 0 }, { "AccountingStorageTRES", NULL, 0 },
    { "AccountingStorageType", NULL, 0 }, { "AccountingStorageUser", NULL, 0 },
    { "AccountingStoreFlags", NULL, 0 }, { "AcctGatherEnergyType", NULL, 0 },
    { "AcctGatherFilesystemType", NULL, 0 }, { "AcctGatherInterconnectType", NULL, 0 },
    { "AcctGatherNodeFreq", NULL, 0 }, { "AcctGatherProfileType", NULL, 0 },
    { "AllowSpecResourcesUsage", NULL, 0 }, { "AuthAltParameters", set_opt_str, C(auth_alt_params) },
    { "AuthAltTypes", set_opt_str, C(auth_alt_types) }, { "AuthInfo", set_authinfo, 0 },
    { "AuthType", NULL, 0 }, { "BackupAddr", NULL, 0 }, { "BackupController", NULL, 0 },
    { "BatchStartTimeout", NULL, 0 }, { "BurstBufferType", NULL, 0 },
    { "CliFilterPlugins", NULL, 0 }, { "ClusterName", set_str, C(cluster_name) },
    { "CommunicationParameters", NULL, 0 }, { "CompleteWait", NULL, 0 },
    { "ControlAddr", set_str, C(ctld_addr) }, { "ControlMachine", set_ctld_host, 0 },
    { "CoreSpecPlugin", NULL, 0 }, { "CredType", NULL, 0 }, { "DebugFlags", NULL, 0 },
    { "DefCpuPerGPU", NULL, 0 }, { "DefMemPerCPU", set_u64, C(def_mem_per_cpu) },
    { "DefMemPerGPU", NULL, 0 }, { "DefMemPerNode", NULL, 0 },
    { "DependencyParameters", set_str, C(dependency_params) }, { "DisableRootJobs", NULL, 0 },
    { "EioTimeout", NULL, 0 }, { "EnforcePartLimits", NULL, 0 }, { "Epilog", NULL, 0 },
    { "EpilogMsgTime", NULL, 0 }, { "EpilogSlurmctld", NULL, 0 },
    { "ExtSensorsType", NULL, 0 }, { "FairShareDampeningFactor", NULL, 0 },
    { "FirstJobId", NULL, 0 }, { "GetEnvTimeout", NULL, 0 }, { "GpuFreqDef", NULL, 0 },
    { "GresTypes", set_str, C(gres_types) }, { "GroupUpdateForce", NULL, 0 },
    { "GroupUpdateTime", NULL, 0 }, { "HashPlugin", NULL, 0 },
    { "HealthCheckInterval", NULL, 0 }, { "HealthCheckNodeState", NULL, 0 },
    { "HealthCheckProgram", NULL, 0 }, { "IdleGPUPolicy", set_idle_gpu, C(idle_gpu) },
    { "InactiveLimit", NULL, 0 },
    { "InteractiveStepOptions", NULL, 0 }, { "JobAcctGatherFrequency", set_acctg_freq, C(acctg_freq) },
    { "JobAcctGatherParams", NULL, 0 }, { "JobAcctGatherType", NULL, 0 },
    { "JobCompHost", NULL, 0 }, { "JobCompLoc", NULL, 0 }, { "JobCompPass", NULL, 0 },
    { "JobCompPort", NULL, 0 }, { "JobCompType", NULL, 0 }, { "JobCompUser", NULL, 0 },
    { "JobContainerType", NULL, 0 }, { "JobFileAppend", NULL, 0 },
    { "JobRequeue", set_bool, C(job_requeue) }, { "JobSubmitPlugins", NULL, 0 },
    { "KillOnBadExit", NULL, 0 }, { "KillWait", set_int, C(kill_wait) },
    { "LaunchParameters", NULL, 0 }, { "Licenses", NULL, 0 }, { "LogTimeFormat", NULL, 0 },
    { "MailProg", set_opt_str, C(mail_prog) }, { "MaxArraySize", set_int, C(max_array_size) }, { "MaxDBDMsgs", NULL, 0 },
    { "MaxJobCount", set_pos_int, C(max_job_count) }, { "MaxJobId", NULL, 0 },
    { "MaxMemPerCPU", NULL, 0 },
    { "MaxMemPerNode", NULL, 0 }, { "MaxNodeCount", NULL, 0 }, { "MaxStepCount", NULL, 0 },
    { "MaxTasksPerNode", NULL, 0 }, { "MCSParameters", NULL, 0 }, { "MCSPlugin", NULL, 0 },
    { "MessageTimeout", set_pos_int, C(msg_timeout) },
    { "MetricsAuthUsers", set_opt_str, C(metrics_auth_users) },
    { "MetricsParameters", set_metrics_params, C(metrics_params) },
    { "MetricsType", set_metrics_type, C(metrics_type) }, { "MinJobAge", set_int, C(min_job_age) },
    { "MpiDefault", set_str, C(mpi_default) }, { "MpiParams", NULL, 0 }, { "OverTimeLimit", NULL, 0 },
    { "PluginDir", NULL, 0 }, { "PlugStackConfig", NULL, 0 }, { "PreemptExemptTime", set_secs, C(preempt_exempt_s) },
    { "PreemptMode", set_preempt_mode, C(preempt_mode) },
    { "PreemptParameters", set_preempt_params, 0 },
    { "PreemptType", set_preempt_type, C(preempt_type) },
    { "PrEpParameters", NULL, 0 }, { "PrEpPlugins", NULL, 0 },
    { "PriorityCalcPeriod", set_limit, C(prio_calc_period_min) },
    { "PriorityDecayHalfLife", set_limit, C(prio_decay_half_life_min) },
    { "PriorityFavorSmall", set_bool, C(prio_favor_small) },
    { "PriorityFlags", set_opt_str, C(prio_flags) },
    { "PriorityMaxAge", set_limit, C(prio_max_age_min) }, { "PriorityParameters", NULL, 0 },
    { "PrioritySiteFactorParameters", NULL, 0 }, { "PrioritySiteFactorPlugin", NULL, 0 },
    { "PriorityType", set_str, C(priority_type) },
    { "PriorityUsageResetPeriod", set_opt_str, C(prio_usage_reset) },
    { "PriorityWeightAge", set_int, C(prio_weight_age) },
    { "PriorityWeightAssoc", set_int, C(prio_weight_assoc) },
    { "PriorityWeightFairshare", set_int, C(prio_weight_fairshare) },
    { "PriorityWeightJobSize", set_int, C(prio_weight_job_size) },
    { "PriorityWeightPartition", set_int, C(prio_weight_partition) },
    { "PriorityWeightQOS", set_int, C(prio_weight_qos) },
    { "PriorityWeightTRES", NULL, 0 }, { "PrivateData", set_opt_str, C(private_data) },
    { "ProctrackType", NULL, 0 }, { "Prolog", NULL, 0 }, { "PrologEpilogTimeout", NULL, 0 },
    { "PrologFlags", set_prolog_flags, C(prolog_contain) }, { "PrologSlurmctld", NULL, 0 },
    { "PropagatePrioProcess", NULL, 0 }, { "PropagateResourceLimits", NULL, 0 },
    { "PropagateResourceLimitsExcept", NULL, 0 }, { "RebootProgram", NULL, 0 },
    { "ReconfigFlags", NULL, 0 }, { "RequeueExit", NULL, 0 }, { "RequeueExitHold", NULL, 0 },
    { "ResumeFailProgram", NULL, 0 }, { "ResumeProgram", NULL, 0 },
    { "ResumeRate", NULL, 0 }, { "ResumeTimeout", NULL, 0 }, { "ResvEpilog", NULL, 0 },
    { "ResvOverRun", NULL, 0 }, { "ResvProlog", NULL, 0 },
    { "ReturnToService", set_rts, C(return_to_service) },
    { "RoutePlugin", NULL, 0 }, { "SchedulerParameters", set_str, C(sched_params) },
    { "SchedulerTimeSlice", NULL, 0 }, { "SchedulerType", set_str, C(sched_type) },
    { "ScronParameters", NULL, 0 }, { "SelectType", set_str, C(select_type) },
    { "SelectTypeParameters", NULL, 0 }, { "SlurmctldAddr", NULL, 0 },
    { "SlurmctldDebug", NULL, 0 }, { "SlurmctldHost", set_ctld_host, 0 },
    { "SlurmctldLogFile", set_str, C(log_file_ctld) }, { "SlurmctldParameters", set_str, C(ctld_params) },
    { "SlurmctldPidFile", set_str, C(pid_file_ctld) },
    { "SlurmctldPort", set_port, C(ctld_port) }, { "SlurmctldPrimaryOffProg", NULL, 0 },
    { "SlurmctldPrimaryOnProg", NULL, 0 }, { "SlurmctldSyslogDebug", NULL, 0 },
    { "SlurmctldTimeout", NULL, 0 }, { "SlurmdDebug", NULL, 0 },
    { "SlurmdLogFile", set_str, C(log_file_d) }, { "SlurmdParameters", set_str, C(slurmd_params) },
    { "SlurmdPidFile", set_str, C(pid_file_d) }, { "SlurmdPort", set_port, C(slurmd_port) },
    { "SlurmdSpoolDir", set_str, C(spool_dir) }, { "SlurmdSyslogDebug", NULL, 0 },
    { "SlurmdTimeout", set_int, C(slurmd_timeout) }, { "SlurmdUser", NULL, 0 },
    { "SlurmSchedLogFile", NULL, 0 }, { "SlurmSchedLogLevel", NULL, 0 },
    { "SlurmUser", set_str, C(slurm_user) }, { "SrunEpilog", NULL, 0 }, { "SrunPortRange", NULL, 0 },
    { "SrunProlog", NULL, 0 }, { "StateSaveLocation", set_str, C(state_save) },
    { "SuspendExcNodes", NULL, 0 }, { "SuspendExcParts", NULL, 0 },
    { "SuspendExcStates", NULL, 0 }, { "SuspendProgram", NULL, 0 },
    { "SuspendRate", NULL, 0 }, { "SuspendTime", NULL, 0 }, { "SuspendTimeout", NULL, 0 },
    { "SwitchParameters", NULL, 0 }, { "SwitchType", NULL, 0 }, { "TaskEpilog", NULL, 0 },
    { "TaskPlugin", NULL, 0 }, { "TaskPluginParam", NULL, 0 }, { "TaskProlog", NULL, 0 },
    { "TCPTimeout", NULL, 0 }, { "TmpFS", NULL, 0 }, { "TopologyParam", NULL, 0 },
    { "TopologyPlugin", NULL, 0 }, { "TrackWCKey", NULL, 0 }, { "TreeWidth", NULL, 0 },
    { "UnkillableStepProgram", NULL, 0 }, { "UnkillableStepTimeout", NULL, 0 },
    { "UsePAM", NULL, 0 }, { "VSizeFactor", NULL, 0 }, { "WaitTime", NULL, 0 },
    { "X11Parameters", NULL, 0 },
    { NULL, NULL, 0 }
};

/* NodeName and NodeAddr are handled by node_line itself. */
static const struct key_def node_keys[] = {
    { "Bcast", NULL, 0 }, { "Boards", NULL, 0 }, { "CoreSpecCount", NULL, 0 },
    { "CoresPerSocket", NULL, 0 }, { "CpuBind", NULL, 0 }, { "CPUs", set_pos_int, N(cpus) },
    { "CpuSpecList", NULL, 0 }, { "Feature", set_opt_str, N(features) },
    { "Features", set_opt_str, N(features) }, { "Gres", set_gres, 0 },
    { "MemSpecLimit", NULL, 0 }, { "NodeHostname", NULL, 0 }, { "Port", set_port, N(port) },
    { "Procs", set_pos_int, N(cpus) }, { "RealMemory", set_u64, N(mem_mb) },
    { "Reason", NULL, 0 }, { "RestrictedCoresPerGPU", NULL, 0 },
    { "Sockets", NULL, 0 }, { "SocketsPerBoard", NULL, 0 },
    { "State", set_node_state, 0 }, { "ThreadsPerCore", NULL, 0 },
    { "TmpDisk", NULL, 0 }, { "TRESWeights", NULL, 0 }, { "Weight", set_int, N(weight) },
    { NULL, NULL, 0 }
};

static const struct key_def part_keys[] = {
    { "AllocNodes", NULL, 0 }, { "AllowAccounts", NULL, 0 }, { "AllowGroups", NULL, 0 },
    { "AllowQos", NULL, 0 }, { "Alternate", NULL, 0 }, { "CpuBind", NULL, 0 },
    { "Default", set_bool, P(p.is_default) }, { "DefaultTime", set_limit, P(p.default_time_min) },
    { "DefCpuPerGPU", NULL, 0 }, { "DefMemPerCPU", NULL, 0 }, { "DefMemPerGPU", NULL, 0 },
    { "DefMemPerNode", NULL, 0 }, { "DenyAccounts", NULL, 0 }, { "DenyQos", NULL, 0 },
    { "DisableRootJobs", NULL, 0 }, { "ExclusiveTopo", NULL, 0 },
    { "ExclusiveUser", NULL, 0 }, { "GraceTime", set_int, P(p.grace_time) }, { "Hidden", NULL, 0 },
    { "LLN", NULL, 0 }, { "MaxCPUsPerNode", NULL, 0 }, { "MaxCPUsPerSocket", NULL, 0 },
    { "MaxMemPerCPU", NULL, 0 }, { "MaxMemPerNode", NULL, 0 }, { "MaxNodes", NULL, 0 },
    { "MaxTime", set_limit, P(p.max_time_min) }, { "MinNodes", NULL, 0 },
    { "Nodes", set_str, P(nodes_expr) }, { "OverSubscribe", NULL, 0 },
    { "OverTimeLimit", NULL, 0 }, { "PowerDownOnIdle", NULL, 0 }, { "PreemptMode", set_preempt_mode, P(p.preempt_mode) },
    { "Priority", NULL, 0 },
    { "PriorityJobFactor", set_int, P(p.priority_job_factor) }, { "PriorityTier", set_int, P(p.priority_tier) },
    { "QOS", set_opt_str, P(p.qos) }, { "ReqResv", NULL, 0 }, { "ResumeTimeout", NULL, 0 },
    { "RootOnly", NULL, 0 }, { "SelectTypeParameters", NULL, 0 }, { "Shared", NULL, 0 },
    { "State", set_part_state, P(p) }, { "SuspendTime", NULL, 0 },
    { "SuspendTimeout", NULL, 0 },
    { "TRESBillingWeights", set_opt_str, P(p.tres_billing_weights) },
    { NULL, NULL, 0 }
};

/* Lines whose first key names something Herd does not model. */
static const char *const ignored_lines[] = {
    "DownNodes", "FrontendName", "NodeSet", "SwitchName", NULL,
};

static const struct key_def *key_lookup(const struct key_def *tab, const char *key)
{
    for (; tab->key; tab++)
        if (strcasecmp(tab->key, key) == 0)
            return tab;
    return NULL;
}

/* Applies one pair through a table; an unknown key only warns. */
static int key_apply(struct parse *st, const struct key_def *tab, void *base, struct kv *kv)
{
    const struct key_def *k = key_lookup(tab, kv->key);
    if (!k) {
        log_warnx("%s:%d: unknown key '%s' ignored", st->file, st->line, kv->key);
        return 0;
    }
    return k->set ? k->set(st, k, base, kv->val) : 0;
}

/* ---- the reader: files into logical lines of pairs ---- */

static int read_file(struct parse *st, const char *path, line_fn fn);

static const char *keep_path(struct parse *st, const char *path)
{
    st->files = xrealloc(st->files, (st->nfiles + 1) * sizeof *st->files);
    st->files[st->nfiles] = xstrdup(path);
    return st->files[st->nfiles++];
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int do_include(struct parse *st, char *arg, line_fn fn)
{
    char *name = trim(arg), *path;
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
        name[n - 1] = '\0';
        name++;
    }
    if (!*name)
        return perr(st, "Include without a file name");
    if (st->depth >= INCLUDE_DEPTH_MAX)
        return perr(st, "Include nested too deep (%d levels)", INCLUDE_DEPTH_MAX);
    const char *slash = strrchr(st->file, '/');
    if (name[0] == '/' || !slash)
        path = xstrdup(name);
    else
        path = xasprintf("%.*s/%s", (int)(slash - st->file), st->file, name);
    FILE *probe = fopen(path, "r");
    if (!probe) {
        int e = errno;
        free(path);
        return perr(st, "cannot open include file '%s': %s", name, strerror(e));
    }
    fclose(probe);
    const char *file = st->file;
    int line = st->line;
    st->depth++;
    int rc = read_file(st, path, fn);
    st->depth--;
    st->file = file;
    st->line = line;
    free(path);
    return rc;
}

static bool is_key_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* Splits a logical line in place into Key=Value pairs. */
static int line_split(struct parse *st, char *s, struct kv **kv, size_t *n)
{
    size_t cap = 0;
    *n = 0;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            return 0;
        char *key = s;
        while (is_key_char(*s))
            s++;
        char *kend = s;
        while (*s == ' ' || *s == '\t')
            s++;
        if (kend == key || *s != '=')
            return perr(st, "expected Key=Value, got '%.*s'",
                        (int)strcspn(key, " \t"), key);
        *kend = '\0';
        char *val = ++s;
        if (*s == '"') {
            val = ++s;
            s = strchr(s, '"');
            if (!s)
                return perr(st, "unterminated quote in value of %s", key);
            *s++ = '\0';
            if (*s && !isspace((unsigned char)*s))
                return perr(st, "junk after quoted value of %s", key);
        } else {
            while (*s && !isspace((unsigned char)*s))
                s++;
        }
        if (*s)
            *s++ = '\0';
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            *kv = xrealloc(*kv, cap * sizeof **kv);
        }
        (*kv)[(*n)++] = (struct kv){ key, val };
    }
}

static int line_process(struct parse *st, char *line, line_fn fn)
{
    char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    if (strncasecmp(s, "include", 7) == 0 &&
        (s[7] == '\0' || isspace((unsigned char)s[7])))
        return do_include(st, s + 7, fn);
    struct kv *kv = NULL;
    size_t n = 0;
    int rc = line_split(st, s, &kv, &n);
    if (rc == 0 && n > 0)
        rc = fn(st, kv, n);
    free(kv);
    return rc;
}

/* Drops a '#' comment (outside quotes); *inq carries quote state across
 * continued lines. Returns true when the line ends in a continuation. */
static bool phys_clean(char *s, bool *inq)
{
    for (char *p = s; *p; p++) {
        if (*p == '"')
            *inq = !*inq;
        else if (*p == '#' && !*inq) {
            *p = '\0';
            break;
        }
    }
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    if (n > 0 && s[n - 1] == '\\') {
        s[n - 1] = '\0';
        return true;
    }
    return false;
}

static void buf_append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

static int read_lines(struct parse *st, FILE *f, line_fn fn)
{
    char *phys = NULL, *logical = NULL;
    size_t physcap = 0, len = 0, cap = 0;
    int lineno = 0, start = 0, rc = 0;
    bool cont = false, inq = false;
    while (rc == 0 && getline(&phys, &physcap, f) != -1) {
        lineno++;
        if (!cont) {
            len = 0;
            start = lineno;
            inq = false;
        }
        cont = phys_clean(phys, &inq);
        buf_append(&logical, &len, &cap, phys);
        if (!cont) {
            st->line = start;
            rc = line_process(st, logical, fn);
        }
    }
    if (rc == 0 && cont) {
        st->line = start;
        rc = line_process(st, logical, fn);
    }
    if (rc == 0 && ferror(f)) {
        st->line = 0;
        rc = perr(st, "read error: %s", strerror(errno));
    }
    free(phys);
    free(logical);
    return rc;
}

static int read_file(struct parse *st, const char *path, line_fn fn)
{
    st->file = keep_path(st, path);
    st->line = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return perr(st, "cannot open: %s", strerror(errno));
    int rc = read_lines(st, f, fn);
    fclose(f);
    return rc;
}

/* ---- slurm.conf lines ---- */

static void node_free(struct conf_node *nd)
{
    free(nd->name);
    free(nd->addr);
    free(nd->gpu_type);
    if (nd->gpu_files)
        for (int i = 0; i < nd->gpus; i++)
            free(nd->gpu_files[i]);
    free(nd->gpu_files);
    free(nd->state);
    free(nd->features);
}

static void node_copy(struct conf_node *dst, const struct conf_node *src)
{
    *dst = *src;
    dst->name = xstrdup(src->name);
    dst->addr = xstrdup(src->addr);
    dst->gpu_type = xstrdup(src->gpu_type);
    dst->gpu_files = NULL;
    dst->state = xstrdup(src->state);
    dst->features = xstrdup(src->features);
}

static void part_tmp_free(struct part_tmp *pt)
{
    free(pt->p.name);
    free(pt->nodes_expr);
    free(pt->p.tres_billing_weights);
    free(pt->p.qos);
}

static void part_tmp_copy(struct part_tmp *dst, const struct part_tmp *src)
{
    *dst = *src;
    dst->p.name = xstrdup(src->p.name);
    dst->p.tres_billing_weights = xstrdup(src->p.tres_billing_weights);
    dst->p.qos = xstrdup(src->p.qos);
    dst->p.nodes = NULL;
    dst->p.nnodes = 0;
    dst->nodes_expr = xstrdup(src->nodes_expr);
}

static int apply_all(struct parse *st, const struct key_def *tab, void *base,
                     struct kv *kv, size_t n, const char *skip)
{
    for (size_t i = 1; i < n; i++) {
        if (skip && strcasecmp(kv[i].key, skip) == 0)
            continue;
        if (key_apply(st, tab, base, &kv[i]) < 0)
            return -1;
    }
    return 0;
}

static const char *kv_get(struct kv *kv, size_t n, const char *key)
{
    const char *v = NULL;
    for (size_t i = 1; i < n; i++)
        if (strcasecmp(kv[i].key, key) == 0)
            v = kv[i].val;
    return v;
}

static void node_add(struct parse *st, const struct conf_node *tmpl, const char *name,
                     const char *addr)
{
    struct conf *c = st->c;
    if (c->nnodes == st->node_cap) {   /* doubling: NodeName=n[0-99999] adds one by one */
        st->node_cap = st->node_cap ? st->node_cap * 2 : 16;
        c->nodes = xrealloc(c->nodes, st->node_cap * sizeof *c->nodes);
        st->node_pos = xrealloc(st->node_pos, st->node_cap * sizeof *st->node_pos);
    }
    struct conf_node *nd = &c->nodes[c->nnodes];
    node_copy(nd, tmpl);
    free(nd->name);
    free(nd->addr);
    nd->name = xstrdup(name);
    nd->addr = xstrdup(addr);
    st->node_pos[c->nnodes++] = (struct srcpos){ st->file, st->line };
}

/* Creates one node per name; NodeAddr is one address or one per name. */
static int node_expand(struct parse *st, struct conf_node *tmpl, const char *expr,
                       const char *addr_expr)
{
    struct hostlist *names = hostlist_create(expr), *addrs = NULL;
    int rc = 0;
    if (!names || hostlist_count(names) == 0)
        rc = perr(st, "NodeName=%s: bad host list", expr);
    else if (addr_expr && !(addrs = hostlist_create(addr_expr)))
        rc = perr(st, "NodeAddr=%s: bad host list", addr_expr);
    else if (addrs && hostlist_count(addrs) != hostlist_count(names))
        rc = perr(st, "NodeAddr=%s names %zu addresses for %zu nodes", addr_expr,
                  hostlist_count(addrs), hostlist_count(names));
    for (size_t i = 0; rc == 0 && i < hostlist_count(names); i++)
        node_add(st, tmpl, hostlist_nth(names, i), addrs ? hostlist_nth(addrs, i) : NULL);
    hostlist_destroy(names);
    hostlist_destroy(addrs);
    return rc;
}

static int node_line(struct parse *st, struct kv *kv, size_t n)
{
    const char *expr = kv[0].val, *addr = kv_get(kv, n, "NodeAddr");
    if (strcasecmp(expr, "DEFAULT") == 0)
        return apply_all(st, node_keys, &st->node_dflt, kv, n, "NodeAddr");
    struct conf_node tmpl;
    node_copy(&tmpl, &st->node_dflt);
    int rc = apply_all(st, node_keys, &tmpl, kv, n, "NodeAddr");
    if (rc == 0)
        rc = node_expand(st, &tmpl, expr, addr);
    node_free(&tmpl);
    return rc;
}

static int part_line(struct parse *st, struct kv *kv, size_t n)
{
    struct conf *c = st->c;
    const char *name = kv[0].val;
    if (strcasecmp(name, "DEFAULT") == 0)
        return apply_all(st, part_keys, &st->part_dflt, kv, n, NULL);
    if (!*name)
        return perr(st, "PartitionName without a name");
    if (conf_part_find(c, name))
        return perr(st, "partition '%s' defined twice", name);
    struct part_tmp pt;
    part_tmp_copy(&pt, &st->part_dflt);
    if (apply_all(st, part_keys, &pt, kv, n, NULL) < 0) {
        part_tmp_free(&pt);
        return -1;
    }
    free(pt.p.name);
    pt.p.name = xstrdup(name);
    c->parts = xrealloc(c->parts, (c->nparts + 1) * sizeof *c->parts);
    st->part_pos = xrealloc(st->part_pos, (c->nparts + 1) * sizeof *st->part_pos);
    st->part_exprs = xrealloc(st->part_exprs, (c->nparts + 1) * sizeof *st->part_exprs);
    c->parts[c->nparts] = pt.p;
    st->part_exprs[c->nparts] = pt.nodes_expr;
    st->part_pos[c->nparts++] = (struct srcpos){ st->file, st->line };
    return 0;
}

static int slurm_line(struct parse *st, struct kv *kv, size_t n)
{
    if (strcasecmp(kv[0].key, "NodeName") == 0)
        return node_line(st, kv, n);
    if (strcasecmp(kv[0].key, "PartitionName") == 0)
        return part_line(st, kv, n);
    for (size_t i = 0; ignored_lines[i]; i++)
        if (strcasecmp(kv[0].key, ignored_lines[i]) == 0)
            return 0;
    for (size_t i = 0; i < n; i++)
        if (key_apply(st, conf_keys, st->c, &kv[i]) < 0)
            return -1;
    return 0;
}

/* ---- resolving names once everything is read ---- */

static int ref_cmp(const void *a, const void *b)
{
    return strcmp(((const struct node_ref *)a)->name, ((const struct node_ref *)b)->name);
}

static int node_index(const struct parse *st, const char *name)
{
    struct node_ref key = { name, 0 };
    const struct node_ref *r = bsearch(&key, st->index, st->c->nnodes, sizeof key, ref_cmp);
    return r ? (int)r->idx : -1;
}

/* Sorts the nodes' names for lookup; a name defined twice is an error. */
static int index_build(struct parse *st)
{
    struct conf *c = st->c;
    st->index = xcalloc(c->nnodes, sizeof *st->index);
    for (size_t i = 0; i < c->nnodes; i++)
        st->index[i] = (struct node_ref){ c->nodes[i].name, i };
    qsort(st->index, c->nnodes, sizeof *st->index, ref_cmp);
    for (size_t i = 1; i < c->nnodes; i++) {
        if (strcmp(st->index[i].name, st->index[i - 1].name) == 0) {
            size_t later = st->index[i].idx > st->index[i - 1].idx ?
                           st->index[i].idx : st->index[i - 1].idx;
            st->file = st->node_pos[later].file;
            st->line = st->node_pos[later].line;
            return perr(st, "node '%s' defined twice", st->index[i].name);
        }
    }
    return 0;
}

static int part_resolve(struct parse *st, size_t pi)
{
    struct conf *c = st->c;
    struct conf_part *p = &c->parts[pi];
    const char *expr = st->part_exprs[pi];
    st->file = st->part_pos[pi].file;
    st->line = st->part_pos[pi].line;
    if (!expr)
        return 0;
    if (strcasecmp(expr, "ALL") == 0) {
        p->nodes = xcalloc(c->nnodes, sizeof *p->nodes);
        for (size_t i = 0; i < c->nnodes; i++)
            p->nodes[p->nnodes++] = xstrdup(c->nodes[i].name);
        return 0;
    }
    struct hostlist *hl = hostlist_create(expr);
    if (!hl)
        return perr(st, "partition %s: Nodes=%s: bad host list", p->name, expr);
    int rc = 0;
    /* each node once, in the list's order; seen by index (a search of the
     * nodes added so far made Nodes=n[1-100000] quadratic) */
    bool *seen = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *seen);
    p->nodes = xcalloc(hostlist_count(hl) ? hostlist_count(hl) : 1, sizeof *p->nodes);
    for (size_t i = 0; rc == 0 && i < hostlist_count(hl); i++) {
        const char *name = hostlist_nth(hl, i);
        int ni = node_index(st, name);
        if (ni < 0) {
            rc = perr(st, "partition %s: unknown node '%s'", p->name, name);
        } else if (!seen[ni]) {
            seen[ni] = true;
            p->nodes[p->nnodes++] = xstrdup(name);
        }
    }
    free(seen);
    hostlist_destroy(hl);
    return rc;
}

static void fill_defaults(struct parse *st)
{
    struct conf *c = st->c;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (!c->nodes[i].addr)
            c->nodes[i].addr = xstrdup(c->nodes[i].name);
        if (c->nodes[i].port == 0)
            c->nodes[i].port = c->slurmd_port;
    }
    if (!c->ctld_host)
        c->ctld_host = xstrdup("localhost");
    if (!c->ctld_addr)
        c->ctld_addr = xstrdup(c->ctld_host);
    /* As in Slurm, the last partition marked Default=YES is the default. */
    bool seen = false;
    for (size_t i = c->nparts; i-- > 0;) {
        if (seen)
            c->parts[i].is_default = false;
        else if (c->parts[i].is_default)
            seen = true;
    }
}

/* ---- gres.conf ---- */

/* A node's GPUs as gres.conf may name them: its Gres= count from slurm.conf
 * when it has one, else at most GRES_FILES_MAX device files (or Count=). */
#define GRES_FILES_MAX 1024

static size_t gres_limit(const struct conf_node *nd)
{
    return nd->gpus > 0 ? (size_t)nd->gpus : GRES_FILES_MAX;
}

/* Each line adds its devices to the node's (several lines may share a
 * node). More than the node can have is refused at the line that goes
 * over: repeated lines used to grow the list without bound, one device at
 * a time (a 432-byte gres.conf took 13 min under ASan). */
static int gres_add(struct parse *st, size_t ni, const char *type, struct hostlist *files,
                    long count)
{
    struct gres_acc *g = &st->gres[ni];
    struct conf_node *nd = &st->c->nodes[ni];
    size_t limit = gres_limit(nd), n = hostlist_count(files);
    if (n > limit - g->nfiles)
        return perr(st, "node %s: File= names more than its %zu GPUs%s", nd->name, limit,
                    nd->gpus > 0 ? "" : " (no Gres= in slurm.conf: at most 1024)");
    if ((size_t)count > limit - (size_t)g->count)
        return perr(st, "node %s: Count= adds up to more than its %zu GPUs", nd->name, limit);
    g->seen = true;
    g->pos = (struct srcpos){ st->file, st->line };
    g->count += (int)count;
    if (g->nfiles + n > g->capfiles) {
        g->capfiles = g->nfiles + n > 2 * g->capfiles ? g->nfiles + n : 2 * g->capfiles;
        g->files = xrealloc(g->files, g->capfiles * sizeof *g->files);
    }
    for (size_t i = 0; i < n; i++)
        g->files[g->nfiles++] = xstrdup(hostlist_nth(files, i));
    if (type && !nd->gpu_type)
        nd->gpu_type = xstrdup(type);
    return 0;
}

static int gres_apply(struct parse *st, const char *nodes, const char *type,
                      struct hostlist *files, long count)
{
    int rc = 0;
    if (!nodes) {
        for (size_t i = 0; rc == 0 && i < st->c->nnodes; i++)
            rc = gres_add(st, i, type, files, count);
        return rc;
    }
    struct hostlist *hl = hostlist_create(nodes);
    if (!hl)
        return perr(st, "NodeName=%s: bad host list", nodes);
    for (size_t i = 0; rc == 0 && i < hostlist_count(hl); i++) {
        int ni = node_index(st, hostlist_nth(hl, i));
        if (ni < 0)
            log_warnx("%s:%d: node '%s' is not in slurm.conf; ignored", st->file,
                      st->line, hostlist_nth(hl, i));
        else
            rc = gres_add(st, (size_t)ni, type, files, count);
    }
    hostlist_destroy(hl);
    return rc;
}

static const char *const gres_keys[] = {
    "AutoDetect", "Cores", "CoreCnt", "Count", "CPUs", "File", "Flags", "Links",
    "MultipleFiles", "Name", "NodeName", "Type", NULL,
};

static int gres_line(struct parse *st, struct kv *kv, size_t n)
{
    const char *name = NULL, *type = NULL, *file = NULL, *nodes = NULL, *count = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *k = kv[i].key, *v = kv[i].val;
        size_t j = 0;
        while (gres_keys[j] && strcasecmp(gres_keys[j], k) != 0)
            j++;
        if (!gres_keys[j])
            log_warnx("%s:%d: unknown key '%s' ignored", st->file, st->line, k);
        else if (!strcasecmp(k, "Name"))
            name = v;
        else if (!strcasecmp(k, "Type"))
            type = v;
        else if (!strcasecmp(k, "File") || !strcasecmp(k, "MultipleFiles"))
            file = v;
        else if (!strcasecmp(k, "NodeName"))
            nodes = v;
        else if (!strcasecmp(k, "Count"))
            count = v;
    }
    if (!name) {
        if (file || type || count)
            return perr(st, "gres line without Name=");
        return 0;
    }
    if (strcasecmp(name, "gpu") != 0)
        return 0;
    long cnt = 0;
    if (count && !file && !parse_long(count, 0, 1 << 20, &cnt))
        return perr(st, "invalid value '%s' for Count", count);
    struct hostlist *files = NULL;
    if (file && !(files = hostlist_create(file)))
        return perr(st, "File=%s: bad file list", file);
    int rc = gres_apply(st, nodes, type, files, cnt);
    hostlist_destroy(files);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A device named twice for one node (one GPU would be given twice), or
 * NULL; sorted, so that a node of many devices is checked in n log n. */
static const char *gres_dup_file(const struct gres_acc *g)
{
    char **v = xmalloc(g->nfiles * sizeof *v);
    memcpy(v, g->files, g->nfiles * sizeof *v);
    qsort(v, g->nfiles, sizeof *v, cmp_str);
    const char *dup = NULL;
    for (size_t i = 1; !dup && i < g->nfiles; i++)
        if (strcmp(v[i - 1], v[i]) == 0)
            dup = v[i];
    free(v);
    return dup;
}

/* Moves the device files onto each node; their count must match its GPUs,
 * each device named once. */
static int gres_finish(struct parse *st)
{
    for (size_t i = 0; i < st->c->nnodes; i++) {
        struct gres_acc *g = &st->gres[i];
        struct conf_node *nd = &st->c->nodes[i];
        if (!g->seen)
            continue;
        if (nd->gpus == 0)
            nd->gpus = g->nfiles ? (int)g->nfiles : g->count;
        if (g->nfiles == 0)
            continue;
        const char *dup = gres_dup_file(g);
        if (dup || (size_t)nd->gpus != g->nfiles) {
            st->file = g->pos.file;
            st->line = g->pos.line;
            if (dup)
                return perr(st, "node %s: File= names device %s twice", nd->name, dup);
            return perr(st, "node %s: File= names %zu devices but Gres= has %d GPUs",
                        nd->name, g->nfiles, nd->gpus);
        }
        nd->gpu_files = g->files;
        g->files = NULL;
        g->nfiles = 0;
    }
    return 0;
}

static int gres_load(struct parse *st)
{
    const char *slash = strrchr(st->c->path, '/');
    char *path = slash ? xasprintf("%.*s/gres.conf", (int)(slash - st->c->path), st->c->path)
                       : xstrdup("gres.conf");
    FILE *probe = fopen(path, "r");
    int rc = 0;
    if (!probe && errno != ENOENT) {
        st->file = keep_path(st, path);
        st->line = 0;
        rc = perr(st, "cannot open: %s", strerror(errno));
    } else if (probe) {
        fclose(probe);
        st->gres = xcalloc(st->c->nnodes ? st->c->nnodes : 1, sizeof *st->gres);
        rc = read_file(st, path, gres_line);
        if (rc == 0)
            rc = gres_finish(st);
    }
    free(path);
    return rc;
}

/* ---- the public face ---- */

static void conf_set_defaults(struct conf *c, const char *path)
{
    c->path = xstrdup(path);
    c->cluster_name = xstrdup("cluster");
    c->ctld_port = 6817;
    c->slurmd_port = 6818;
    c->state_save = xstrdup("/var/spool/herd/ctld");
    c->spool_dir = xstrdup("/var/spool/herd/d");
    c->sched_type = xstrdup("sched/backfill");
    c->select_type = xstrdup("select/cons_tres");
    c->kill_wait = 30;
    c->cred_expire = 120;
    c->slurmd_timeout = 300;
    c->min_job_age = 300;
    c->msg_timeout = 10;
    c->max_job_count = 10000;
    c->max_array_size = 1001;
    c->priority_type = xstrdup("priority/multifactor");
    c->prio_max_age_min = 7 * 1440;
    c->prio_decay_half_life_min = 7 * 1440;
    c->prio_calc_period_min = 5;
    c->suspend_grace_s = 2;
    c->job_requeue = true;
    c->acctg_freq = 30;
    conf_idle_gpu_clear(&c->idle_gpu);
}

static void parse_init(struct parse *st, struct conf *c, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    st->c = c;
    st->err = err;
    st->errlen = errlen;
    st->node_dflt.cpus = 1;
    st->node_dflt.mem_mb = 1;
    st->node_dflt.weight = 1;
    st->node_dflt.state = xstrdup("UNKNOWN");
    st->part_dflt.p.max_time_min = TIME_INFINITE;
    st->part_dflt.p.default_time_min = -1;
    st->part_dflt.p.up = true;
    st->part_dflt.p.priority_job_factor = 1;
    st->part_dflt.p.priority_tier = 1;
    st->part_dflt.p.preempt_mode = CONF_PM_UNSET;
}

static void parse_done(struct parse *st)
{
    for (size_t i = 0; i < st->nfiles; i++)
        free(st->files[i]);
    free(st->files);
    node_free(&st->node_dflt);
    part_tmp_free(&st->part_dflt);
    for (size_t i = 0; i < st->c->nparts; i++)
        free(st->part_exprs[i]);
    free(st->part_exprs);
    free(st->part_pos);
    free(st->node_pos);
    free(st->index);
    for (size_t i = 0; st->gres && i < st->c->nnodes; i++) {
        for (size_t j = 0; j < st->gres[i].nfiles; j++)
            free(st->gres[i].files[j]);
        free(st->gres[i].files);
    }
    free(st->gres);
}

struct conf *conf_load(const char *path, char *err, size_t errlen)
{
    struct conf *c = xcalloc(1, sizeof *c);
    struct parse st;
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
    conf_set_defaults(c, path);
    parse_init(&st, c, err, errlen);
    int rc = read_file(&st, path, slurm_line);
    if (rc == 0)
        rc = index_build(&st);
    for (size_t i = 0; rc == 0 && i < c->nparts; i++)
        rc = part_resolve(&st, i);
    if (rc == 0) {
        fill_defaults(&st);
        rc = gres_load(&st);
    }
    if (rc == 0)
        rc = conf_preempt_check(c, err, errlen);
    parse_done(&st);
    if (rc < 0) {
        conf_destroy(c);
        return NULL;
    }
    return c;
}

void conf_destroy(struct conf *c)
{
    if (!c)
        return;
    char **strs[] = {
        &c->path, &c->cluster_name, &c->slurm_user, &c->mpi_default, &c->ctld_host, &c->ctld_addr, &c->state_save,
        &c->spool_dir, &c->log_file_ctld, &c->log_file_d, &c->pid_file_ctld,
        &c->pid_file_d, &c->gres_types, &c->munge_socket, &c->sched_type, &c->sched_params,
        &c->dependency_params, &c->ctld_params, &c->slurmd_params, &c->select_type, &c->priority_type, &c->prio_usage_reset, &c->prio_flags,
        &c->metrics_type, &c->mail_prog, &c->auth_alt_types, &c->auth_alt_params, &c->metrics_auth_users, &c->metrics_params, &c->private_data,
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    conf_idle_gpu_clear(&c->idle_gpu);
    for (size_t i = 0; i < c->nnodes; i++)
        node_free(&c->nodes[i]);
    free(c->nodes);
    for (size_t i = 0; i < c->nparts; i++) {
        free(c->parts[i].name);
        free(c->parts[i].tres_billing_weights);
        free(c->parts[i].qos);
        for (size_t j = 0; j < c->parts[i].nnodes; j++)
            free(c->parts[i].nodes[j]);
        free(c->parts[i].nodes);
    }
    free(c->parts);
    free(c);
}

const struct conf_node *conf_node_find(const struct conf *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->nnodes; i++)
        if (strcmp(c->nodes[i].name, name) == 0)
            return &c->nodes[i];
    return NULL;
}

const struct conf_part *conf_part_find(const struct conf *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->nparts; i++)
        if (strcmp(c->parts[i].name, name) == 0)
            return &c->parts[i];
    return NULL;
}

const struct conf_part *conf_part_default(const struct conf *c)
{
    for (size_t i = 0; c && i < c->nparts; i++)
        if (c->parts[i].is_default)
            return &c->parts[i];
    return NULL;
}

int64_t conf_max_script_size(const struct conf *c)
{
    static const char key[] = "max_script_size=";
    const char *p = c->sched_params;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        if (n > sizeof key - 1 && !strncasecmp(p, key, sizeof key - 1)) {
            char *end;
            long long v = strtoll(p + sizeof key - 1, &end, 10);
            if (end == p + n && v >= 0)
                return v;
        }
        p += n + (p[n] == ',');
    }
    return CONF_MAX_SCRIPT_SIZE;
}

const char *conf_default_path(void)
{
    const char *p = getenv("SLURM_CONF");
    if (p && *p)
        return p;
    /* a configless host's fetched copy (herd conf-fetch), as Slurm's
     * commands read sackd's /run/slurm/conf */
    if (access("/etc/herd/slurm.conf", F_OK) != 0 &&
        access(CONFLESS_CACHE "/slurm.conf", F_OK) == 0)
        return CONFLESS_CACHE "/slurm.conf";
    return "/etc/herd/slurm.conf";
}

char *conf_expand_node(const char *pattern, const char *node)
{
    if (!pattern)
        return NULL;
    if (!node)
        node = "";
    size_t nl = strlen(node), len = 1;
    for (const char *p = pattern; *p; p++)
        len += (p[0] == '%' && p[1] == 'n') ? (p++, nl) : 1;
    char *out = xmalloc(len), *w = out;
    for (const char *p = pattern; *p; p++) {
        if (p[0] == '%' && p[1] == 'n') {
            w = stpcpy(w, node);
            p++;
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return out;
}
