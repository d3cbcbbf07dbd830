/*
 * sinfo's format codes, with the headers and values of Slurm's
 * sinfo/print.c. The node fields that split rows carry FMT_GROUP_BY.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/sinfo.h"
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
FIELD(f_default_time) { return part_time(G->part, "default_time"); }
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
FIELD(f_zero) { return xstrdup("0"); }
FIELD(f_na) { return xstrdup("N/A"); }
FIELD(f_unknown) { return xstrdup("Unknown"); }
FIELD(f_features)
{
    const char *f = jget_str(G->node, "features", "");
    return xstrdup(*f ? f : "(null)");
}
FIELD(f_node_list) { return hostlist_ranged_string(G->hl); }

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

#define NODE (FMT_GROUP_BY)

const struct fmt_code sinfo_codes[] = {
    {'A', "NODES(A/I)", 0, f_nodes_ai},
    {'C', "CPUS(A/I/O/T)", 0, f_cpus_aiot},
    {'D', "NODES", 0, f_nodes},
    {'E', "REASON", NODE, f_reason},
    {'F', "NODES(A/I/O/T)", 0, f_nodes_aiot},
    {'G', "GRES", NODE, f_gres},
    {'H', "TIMESTAMP", NODE, f_unknown},
    {'L', "DEFAULTTIME", 0, f_default_time},
    {'N', "NODELIST", FMT_NOCUT_HEADER, f_node_list},
    {'O', "CPU_LOAD", NODE, f_na},
    {'P', "PARTITION", 0, f_partition},
    {'R', "PARTITION", 0, f_partition_name},
    {'T', "STATE", NODE, f_state_long},
    {'X', "SOCKETS", NODE, f_sockets},
    {'Y', "CORES", NODE, f_one},
    {'Z', "THREADS", NODE, f_one},
    {'a', "AVAIL", 0, f_avail},
    {'c', "CPUS", NODE, f_cpus},
    {'d', "TMP_DISK", NODE, f_zero},
    {'e', "FREE_MEM", NODE, f_na},
    {'f', "AVAIL_FEATURES", NODE, f_features},
    {'g', "GROUPS", 0, f_groups},
    {'h', "OVERSUBSCRIBE", 0, f_oversubscribe},
    {'l', "TIMELIMIT", 0, f_timelimit},
    {'m', "MEMORY", NODE, f_memory},
    {'r', "ROOT", 0, f_root},
    {'s', "JOB_SIZE", 0, f_job_size},
    {'t', "STATE", NODE, f_state},
    {'u', "USER", NODE, f_unknown},
    {'w', "WEIGHT", NODE, f_one},
    {'z', "S:C:T", NODE, f_sct},
    {0, NULL, 0, NULL},
};
