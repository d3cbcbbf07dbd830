/*
 * sinfo --json: Slurm 22.05 dumps its node and partition records in the
 * openapi v0.0.38 shape, {"meta": ..., "errors": [], "nodes": [...],
 * "partitions": [...]}: a node's "state" is its base state in lower case,
 * its flags (DRAIN, NOT_RESPONDING ...) are in "state_flags". Only the
 * fields Herd knows are written.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sinfo/sinfo.h"
#include "common/xmalloc.h"

/* Slurm's INFINITE as its JSON writes it. */
#define SLURM_INFINITE 4294967295LL

static const char *const base_names[] = {
    [NODESTATE_UNKNOWN] = "unknown", [NODESTATE_DOWN] = "down",
    [NODESTATE_IDLE] = "idle",       [NODESTATE_ALLOCATED] = "allocated",
    [NODESTATE_ERROR] = "error",     [NODESTATE_MIXED] = "mixed",
    [NODESTATE_FUTURE] = "future",
};

static json_t *node_state_flags(const struct nodestate *st)
{
    json_t *a = json_array();
    if (st->drain)
        json_array_append_new(a, json_string("DRAIN"));
    if (st->completing)
        json_array_append_new(a, json_string("COMPLETING"));
    if (st->no_respond)
        json_array_append_new(a, json_string("NOT_RESPONDING"));
    if (st->maint)
        json_array_append_new(a, json_string("MAINTENANCE"));
    if (st->reserved)
        json_array_append_new(a, json_string("RESERVED"));
    return a;
}

static char *json_gres(const json_t *node)
{
    int64_t gpus = jget_int(node, "gpus", 0);
    const char *type = jget_str(node, "gpu_type", "");
    if (gpus <= 0)
        return xstrdup("");
    return xasprintf("gpu:%s%s%lld", type, *type ? ":" : "", (long long)gpus);
}

static const char *reason_user_name(const json_t *node)
{
    struct passwd *pw = getpwuid((uid_t)jget_int(node, "reason_uid", 0));
    return *jget_str(node, "reason", "") && pw ? pw->pw_name : "";
}

static json_t *node_record(const json_t *node)
{
    int64_t cpus = jget_int(node, "cpus", 1), alloc = jget_int(node, "alloc_cpus", 0);
    struct nodestate st;
    sinfo_node_state(node, &st);
    const json_t *parts = json_object_get(node, "partitions");
    char *gres = json_gres(node);
    const char *reason = jget_str(node, "reason", "");
    json_t *o = json_pack(
        "{s:s, s:s, s:s, s:I, s:s, s:o, s:I, s:I, s:I, s:I, s:I, s:s, s:o, s:s, s:I, s:s,"
        " s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
        "name", jget_str(node, "name", ""), "hostname", jget_str(node, "name", ""), "address",
        jget_str(node, "addr", ""), "port", (json_int_t)jget_int(node, "port", 0), "state",
        base_names[st.base], "state_flags", node_state_flags(&st), "cpus", (json_int_t)cpus,
        "alloc_cpus", (json_int_t)alloc, "idle_cpus", (json_int_t)(cpus - alloc),
        "real_memory", (json_int_t)jget_int(node, "mem_mb", 1), "alloc_memory",
        (json_int_t)jget_int(node, "alloc_mem_mb", 0), "gres", gres, "partitions",
        json_is_array(parts) ? json_deep_copy(parts) : json_array(), "reason", reason,
        "reason_changed_at", (json_int_t)(*reason ? jget_int(node, "reason_time", 0) : 0),
        "reason_set_by_user", reason_user_name(node), "features",
        jget_str(node, "features", ""), "active_features", jget_str(node, "features", ""),
        "weight", (json_int_t)jget_int(node, "weight", 1), "sockets", (json_int_t)cpus,
        "cores", (json_int_t)1, "threads", (json_int_t)1, "boards", (json_int_t)1,
        "temporary_disk", (json_int_t)0);
    free(gres);
    char *used = sinfo_gres_used(node);
    json_object_set_new(o, "gres_used", json_string(used ? used : ""));
    free(used);
    return o;
}

static json_int_t limit_minutes(const json_t *part, const char *key)
{
    int64_t m = jget_int(part, key, -1);
    return (json_int_t)(m < 0 ? SLURM_INFINITE : m);
}

static json_t *part_record(const json_t *part)
{
    json_t *flags = json_array();
    if (jget_bool(part, "default", false))
        json_array_append_new(flags, json_string("default"));
    const json_t *names = json_object_get(part, "node_names");
    return json_pack("{s:s, s:s, s:s, s:o, s:I, s:I, s:I, s:I}", "name",
                     jget_str(part, "name", ""), "nodes", jget_str(part, "nodes", ""), "state",
                     jget_bool(part, "up", true) ? "UP" : "DOWN", "flags", flags, "total_cpus",
                     (json_int_t)jget_int(part, "total_cpus", 0), "total_nodes",
                     (json_int_t)json_array_size(names), "max_time_limit",
                     limit_minutes(part, "max_time"), "default_time_limit",
                     limit_minutes(part, "default_time"));
}

static bool part_wanted(const json_t *part, const struct sinfo_opts *o)
{
    return !o->parts.n || strlist_has(&o->parts, jget_str(part, "name", ""), false);
}

/* A node is kept when it passes -n/-t and sits in a partition -p keeps. */
static bool node_in_parts(const json_t *node, const struct sinfo_opts *o)
{
    const json_t *parts = json_object_get(node, "partitions");
    for (size_t i = 0; o->parts.n && i < json_array_size(parts); i++)
        if (strlist_has(&o->parts, json_string_value(json_array_get(parts, i)), false))
            return true;
    return !o->parts.n;
}

void sinfo_print_json(FILE *out, const json_t *parts, const json_t *nodes,
                      const struct sinfo_opts *o)
{
    size_t i, n = 0;
    json_t *v;
    cmd_json_meta(out);
    fputs("  \"nodes\": [", out);
    json_array_foreach(json_object_get(nodes, "nodes"), i, v)
        if (sinfo_node_wanted(v, o) && node_in_parts(v, o))
            cmd_json_item(out, node_record(v), n++ == 0);
    fputs("\n  ],\n  \"partitions\": [", out);
    n = 0;
    json_array_foreach(json_object_get(parts, "partitions"), i, v)
        if (part_wanted(v, o))
            cmd_json_item(out, part_record(v), n++ == 0);
    fputs("\n  ]\n}\n", out);
}
