/*
 * sinfo's format codes, with the headers and values of Slurm's
 * sinfo/print.c. The node fields that split rows carry FMT_GROUP_BY.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/version.h"
#include "cmd/sinfo/sinfo.h"
#include "common/conf.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

#define UNUSED __attribute__((unused))
#define FIELD(fn) \
    static char *fn(UNUSED const void *rec, UNUSED const void *ctx, UNUSED bool *cut)
#define G ((const struct sinfo_group *)rec)

/* Slurm's min/max form: "8", or "4+" when the row's nodes differ. */
static char *min_plus(int64_t min, int64_t max)
{
    return min == max ? xasprintf("%lld", (long long)max) : xasprintf("%lld+", (long long)min);
}

/* Partition limits in minutes as sinfo prints them: "infinite", "1:00:00". */
static char *part_time(const json_t *part, const char *key)
{
    char buf[64];
    int64_t m = jget_int(part, key, TIME_INFINITE);
    if (m == TIME_INFINITE)
        return xstrdup("infinite");
    timefmt_elapsed(m * 60, buf, sizeof buf);
    return xstrdup(buf);
}

FIELD(f_partition)
{
    const char *name = jget_str(G->part, "name", "");
    return xasprintf("%s%s", name, jget_bool(G->part, "default", false) ? "*" : "");
}

FIELD(f_partition_name) { return xstrdup(jget_str(G->part, "name", "")); }
FIELD(f_avail) { return xstrdup(jget_bool(G->part, "up", true) ? "up" : "down"); }
FIELD(f_timelimit) { return part_time(G->part, "max_time"); }

/* A partition without DefaultTime= shows "n/a" (Slurm's NO_VAL). */
FIELD(f_default_time)
{
    if (jget_int(G->part, "default_time", TIME_INFINITE) == TIME_INFINITE)
        return xstrdup("n/a");
    return part_time(G->part, "default_time");
}
FIELD(f_job_size) { return xstrdup("1-infinite"); }
FIELD(f_root) { return xstrdup("no"); }
FIELD(f_oversubscribe) { return xstrdup("NO"); }
FIELD(f_groups) { return xstrdup("all"); }
FIELD(f_nodes) { return xasprintf("%d", G->nnodes); }
FIELD(f_nodes_ai) { return xasprintf("%d/%d", G->nodes_alloc, G->nodes_idle); }
FIELD(f_cpus) { return min_plus(G->cpus_min, G->cpus_max); }
FIELD(f_memory) { return min_plus(G->mem_min, G->mem_max); }
FIELD(f_sockets) { return min_plus(G->cpus_min, G->cpus_max); }
FIELD(f_one) { return xstrdup("1"); }
FIELD(f_weight) { return xasprintf("%lld", (long long)jget_int(G->node, "weight", 1)); }
FIELD(f_alloc_mem) { return xasprintf("%lld", (long long)jget_int(G->node, "alloc_mem_mb", 0)); }
FIELD(f_zero) { return xstrdup("0"); }
FIELD(f_na) { return xstrdup("N/A"); }
FIELD(f_features)
{
    const char *f = jget_str(G->node, "features", "");
    return xstrdup(*f ? f : "(null)");
}
FIELD(f_node_list) { return hostlist_ranged_string(G->hl); }
FIELD(f_node_addr) { return xstrdup(jget_str(G->node, "addr", "N/A")); }
FIELD(f_version) { return xstrdup(SLURM_COMPAT_VERSION); }
/* Slurm's values for what Herd does not configure: no per-node CPU cap,
 * no preemption, one priority tier, any node may allocate; %V is a
 * cluster's name only under -M, N/A otherwise. */
FIELD(f_unlimited) { return xstrdup("UNLIMITED"); }
FIELD(f_all) { return xstrdup("all"); }

FIELD(f_prio_job_factor)
{
    const struct conf_part *cp = conf_part_find(client_conf("sinfo"), jget_str(G->part, "name", ""));
    return xasprintf("%d", cp ? cp->priority_job_factor : 1);
}

FIELD(f_prio_tier)
{
    const struct conf_part *cp = conf_part_find(client_conf("sinfo"), jget_str(G->part, "name", ""));
    return xasprintf("%d", cp ? cp->priority_tier : 1);
}

/* The partition's PreemptMode, or the cluster's when it sets none. */
FIELD(f_preempt_mode)
{
    const struct conf *c = client_conf("sinfo");
    const struct conf_part *cp = conf_part_find(c, jget_str(G->part, "name", ""));
    char buf[64];
    conf_preempt_mode_name(cp && cp->preempt_mode != CONF_PM_UNSET ? cp->preempt_mode
                                                                   : c->preempt_mode,
                           false, buf, sizeof buf);
    return xstrdup(buf);
}

FIELD(f_nodes_aiot)
{
    return xasprintf("%d/%d/%d/%d", G->nodes_alloc, G->nodes_idle, G->nodes_other, G->nnodes);
}

FIELD(f_cpus_aiot)
{
    return xasprintf("%lld/%lld/%lld/%lld", (long long)G->cpus_alloc, (long long)G->cpus_idle,
                     (long long)G->cpus_other, (long long)G->cpus_total);
}

FIELD(f_state)
{
    char buf[32];
    if (!G->nnodes)
        return xstrdup("n/a");
    nodestate_short(&G->state, buf, sizeof buf);
    return xstrdup(buf);
}

FIELD(f_state_long)
{
    char buf[32];
    if (!G->nnodes)
        return xstrdup("n/a");
    nodestate_long(&G->state, buf, sizeof buf);
    return xstrdup(buf);
}

/* Slurm's nodes with only CPUs= configured have one core per socket. */
FIELD(f_sct) { return xasprintf("%lld:1:1", (long long)G->cpus_min); }

FIELD(f_gres)
{
    int64_t gpus = jget_int(G->node, "gpus", 0);
    const char *type = jget_str(G->node, "gpu_type", "");
    if (gpus <= 0)
        return xstrdup("(null)");
    if (*type)
        return xasprintf("gpu:%s:%lld", type, (long long)gpus);
    return xasprintf("gpu:%lld", (long long)gpus);
}

FIELD(f_reason)
{
    const char *r = jget_str(G->node, "reason", "");
    return xstrdup(*r ? r : "none");
}

/* Who set the reason and when: Slurm forgets both when the reason goes. */
static bool has_reason(const struct sinfo_group *g)
{
    return g->node && *jget_str(g->node, "reason", "");
}

static char *reason_user(const struct sinfo_group *g, bool with_uid)
{
    if (!has_reason(g))
        return xstrdup("Unknown");
    long long uid = (long long)jget_int(g->node, "reason_uid", 0);
    struct passwd *pw = getpwuid((uid_t)uid);
    if (!pw)
        return xasprintf("Unk(%lld)", uid);
    return with_uid ? xasprintf("%s(%lld)", pw->pw_name, uid) : xstrdup(pw->pw_name);
}

FIELD(f_user) { return reason_user(G, false); }
FIELD(f_user_long) { return reason_user(G, true); }

FIELD(f_timestamp)
{
    char buf[64];
    timefmt_iso(has_reason(G) ? jget_int(G->node, "reason_time", 0) : 0, buf, sizeof buf);
    return xstrdup(buf);
}

/* The held GPU indices folded into ranges: "0-1,3", or "N/A" for none. */
static char *gpu_ranges(const json_t *ids)
{
    char *s = xstrdup("");
    size_t i, n = json_array_size(ids);
    for (i = 0; i < n; i++) {
        json_int_t first = json_integer_value(json_array_get(ids, i)), last = first;
        while (i + 1 < n && json_integer_value(json_array_get(ids, i + 1)) == last + 1)
            last = json_integer_value(json_array_get(ids, ++i));
        char *next = last > first ? xasprintf("%s%s%lld-%lld", s, *s ? "," : "",
                                              (long long)first, (long long)last)
                                  : xasprintf("%s%s%lld", s, *s ? "," : "", (long long)first);
        free(s);
        s = next;
    }
    if (!*s) {
        free(s);
        s = xstrdup("N/A");
    }
    return s;
}

/* Slurm's gres_used: "gpu:a100:2(IDX:0-1)", "gpu:0(IDX:N/A)". */
char *sinfo_gres_used(const json_t *node)
{
    int64_t gpus = jget_int(node, "gpus", 0);
    const char *type = jget_str(node, "gpu_type", "");
    if (gpus <= 0)
        return NULL;
    char *idx = gpu_ranges(json_object_get(node, "alloc_gpu_ids"));
    char *s = xasprintf("gpu:%s%s%lld(IDX:%s)", type, *type ? ":" : "",
                        (long long)jget_int(node, "alloc_gpus", 0), idx);
    free(idx);
    return s;
}

FIELD(f_gres_used)
{
    char *s = G->node ? sinfo_gres_used(G->node) : NULL;
    return s ? s : xstrdup("(null)");
}

#define NODE (FMT_GROUP_BY)
#define PART (SINFO_PART)

const struct fmt_code sinfo_codes[] = {
    {'A', "NODES(A/I)", 0, f_nodes_ai, NULL},
    {'B', "MAX_CPUS_PER_NODE", PART, f_unlimited, NULL},
    {'C', "CPUS(A/I/O/T)", 0, f_cpus_aiot, NULL},
    {'D', "NODES", 0, f_nodes, NULL},
    {'E', "REASON", NODE, f_reason, NULL},
    {'F', "NODES(A/I/O/T)", 0, f_nodes_aiot, NULL},
    {'G', "GRES", NODE, f_gres, NULL},
    {'H', "TIMESTAMP", NODE, f_timestamp, NULL},
    {'I', "PRIO_JOB_FACTOR", PART, f_prio_job_factor, NULL},
    {'L', "DEFAULTTIME", PART, f_default_time, NULL},
    {'M', "PREEMPT_MODE", PART, f_preempt_mode, NULL},
    {'N', "NODELIST", FMT_NOCUT_HEADER, f_node_list, NULL},
    {'O', "CPU_LOAD", NODE, f_na, NULL},
    {'P', "PARTITION", PART, f_partition, NULL},
    {'R', "PARTITION", PART, f_partition_name, NULL},
    {'S', "ALLOCNODES", PART, f_all, NULL},
    {'T', "STATE", NODE, f_state_long, NULL},
    {'U', "USER", NODE, f_user_long, NULL},
    {'V', "CLUSTER", 0, f_na, NULL},
    {'X', "SOCKETS", NODE, f_sockets, NULL},
    {'Y', "CORES", NODE, f_one, NULL},
    {'Z', "THREADS", NODE, f_one, NULL},
    {'a', "AVAIL", PART, f_avail, NULL},
    {'b', "ACTIVE_FEATURES", NODE, f_features, NULL},
    {'c', "CPUS", NODE, f_cpus, NULL},
    {'d', "TMP_DISK", NODE, f_zero, NULL},
    {'e', "FREE_MEM", NODE, f_na, NULL},
    {'f', "AVAIL_FEATURES", NODE, f_features, NULL},
    {'g', "GROUPS", PART, f_groups, NULL},
    {'h', "OVERSUBSCRIBE", PART, f_oversubscribe, NULL},
    {'l', "TIMELIMIT", PART, f_timelimit, NULL},
    {'m', "MEMORY", NODE, f_memory, NULL},
    {'n', "HOSTNAMES", FMT_NOCUT_HEADER, f_node_list, NULL},
    {'o', "NODE_ADDR", NODE, f_node_addr, NULL},
    {'p', "PRIO_TIER", PART, f_prio_tier, NULL},
    {'r', "ROOT", PART, f_root, NULL},
    {'s', "JOB_SIZE", PART, f_job_size, NULL},
    {'t', "STATE", NODE, f_state, NULL},
    {'u', "USER", NODE, f_user, NULL},
    {'v', "VERSION", NODE, f_version, NULL},
    {'w', "WEIGHT", NODE, f_weight, NULL},
    {'z', "S:C:T", NODE, f_sct, NULL},
    /* -O only */
    {SINFO_CODE_ALLOC_MEM, "ALLOCMEM", NODE, f_alloc_mem, NULL},
    {SINFO_CODE_GRES_USED, "GRES_USED", NODE, f_gres_used, NULL},
    {0, NULL, 0, NULL, NULL},
};

/* Slurm's sinfo/opts.c -O names. */
const struct fmt_name sinfo_names[] = {
    {"AllocMem", SINFO_CODE_ALLOC_MEM}, {"Available", 'a'}, {"Cores", 'Y'}, {"CPUs", 'c'},
    {"CPUsLoad", 'O'}, {"CPUsState", 'C'}, {"DefaultTime", 'L'}, {"Disk", 'd'},
    {"Features", 'f'}, {"FreeMem", 'e'}, {"Gres", 'G'}, {"GresUsed", SINFO_CODE_GRES_USED},
    {"Groups", 'g'}, {"Memory", 'm'}, {"NodeAI", 'A'}, {"NodeAIOT", 'F'}, {"NodeHost", 'n'},
    {"NodeList", 'N'}, {"Nodes", 'D'}, {"OverSubscribe", 'h'}, {"Partition", 'P'},
    {"PartitionName", 'R'}, {"Reason", 'E'}, {"Root", 'r'}, {"Size", 's'},
    {"SocketCoreThread", 'z'}, {"Sockets", 'X'}, {"State", 'T'}, {"StateCompact", 't'},
    {"StateLong", 'T'},
    {"Threads", 'Z'}, {"Time", 'l'}, {"Timestamp", 'H'}, {"User", 'u'}, {"UserLong", 'U'},
    {"Weight", 'w'}, {"AllocNodes", 'S'}, {"Cluster", 'V'}, {"FeaturesAct", 'b'},
    {"MaxCPUsPerNode", 'B'}, {"NodeAddr", 'o'}, {"PreemptMode", 'M'},
    {"PriorityJobFactor", 'I'}, {"PriorityTier", 'p'}, {"Version", 'v'},
    {NULL, 0},
};
