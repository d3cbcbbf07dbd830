/*
 * rest_nodes: slurmrestd's node, partition and reservation endpoints
 * (/slurm/v0.0.40/nodes, /node/{name}, /partitions, /partition/{name},
 * /reservations, /reservation/{name}), written from the objects the /v1
 * handlers answer with (node_to_json, part_to_json, resv_to_json).
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/slurm_errno.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/rest.h"

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* "gpu:a100:2" (Slurm's Gres=), or "" without GPUs. */
static void gres_str(char *buf, size_t len, const char *type, json_int_t n)
{
    if (!n)
        snprintf(buf, len, "%s", "");
    else if (*type)
        snprintf(buf, len, "gpu:%s:%lld", type, (long long)n);
    else
        snprintf(buf, len, "gpu:%lld", (long long)n);
}

static json_t *tres_str(json_int_t cpus, json_int_t mem, json_int_t gpus)
{
    char buf[160];
    int n = snprintf(buf, sizeof buf, "cpu=%lld,mem=%lldM,billing=%lld", (long long)cpus,
                     (long long)mem, (long long)cpus);
    if (gpus && n > 0 && (size_t)n < sizeof buf)
        snprintf(buf + n, sizeof buf - (size_t)n, ",gres/gpu=%lld", (long long)gpus);
    return json_string(buf);
}

static json_t *node_info(json_t *n)
{
    char gres[96], used[96];
    const char *type = str(n, "gpu_type");
    json_int_t cpus = num(n, "cpus"), alloc = num(n, "alloc_cpus");
    gres_str(gres, sizeof gres, type, num(n, "gpus"));
    gres_str(used, sizeof used, type, num(n, "alloc_gpus"));
    struct passwd *pw = num(n, "reason_time") ? getpwuid((uid_t)num(n, "reason_uid")) : NULL;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s}",
                          "name", str(n, "name"), "hostname", str(n, "name"), "address",
                          str(n, "addr"), "port", num(n, "port"), "state",
                          rest_state_words(str(n, "state")), "reason", str(n, "reason"), "cpus",
                          cpus, "alloc_cpus", alloc, "alloc_idle_cpus", cpus - alloc,
                          "effective_cpus", cpus, "real_memory", num(n, "mem_mb"),
                          "alloc_memory", num(n, "alloc_mem_mb"), "gres", gres, "gres_used",
                          used);
    json_object_set_new(o, "gres_drained", json_string("N/A"));
    json_object_set_new(o, "reason_changed_at", rest_noval_time(num(n, "reason_time")));
    json_object_set_new(o, "reason_set_by_user", json_string(pw ? pw->pw_name : ""));
    json_object_set_new(o, "partitions", json_deep_copy(json_object_get(n, "partitions")));
    json_object_set_new(o, "features", rest_csv(str(n, "features")));
    json_object_set_new(o, "active_features", rest_csv(str(n, "features")));
    json_object_set_new(o, "weight", json_integer(num(n, "weight")));
    json_object_set_new(o, "sockets", json_integer(1));
    json_object_set_new(o, "cores", json_integer(cpus));
    json_object_set_new(o, "threads", json_integer(1));
    json_object_set_new(o, "boards", json_integer(1));
    json_object_set_new(o, "tres", tres_str(cpus, num(n, "mem_mb"), num(n, "gpus")));
    json_object_set_new(o, "tres_used",
                        tres_str(alloc, num(n, "alloc_mem_mb"), num(n, "alloc_gpus")));
    json_object_set_new(o, "last_busy", rest_noval_time(num(n, "last_seen")));
    json_object_set_new(o, "free_mem", rest_noval_unset());
    json_object_set_new(o, "reservation", json_string(str(n, "reservation")));
    json_object_set_new(o, "owner", json_string(""));
    return o;
}

static json_t *nodes_resp(json_t *nodes)
{
    return json_pack("{s:o, s:o}", "nodes", nodes, "last_update", rest_noval(ctld_now()));
}

/* The nodes (all, or the one named: -1 when there is none such). */
static json_t *nodes_list(const struct ctld *c, const char *only, int *found)
{
    struct node_usage *u = node_usage_get(c);
    json_t *a = json_array();
    *found = 0;
    for (size_t i = 0; i < c->nnodes; i++) {
        if (only && strcmp(c->nodes[i].conf->name, only) != 0)
            continue;
        json_t *n = node_to_json(c, i, u);
        json_array_append_new(a, node_info(n));
        json_decref(n);
        (*found)++;
    }
    free(u);
    return a;
}

void rest_nodes(struct http_req *r)
{
    int found;
    rest_reply(r, nodes_resp(nodes_list(r->ctx, NULL, &found)), NULL);
}

void rest_node(struct http_req *r)
{
    int found;
    json_t *a = nodes_list(r->ctx, r->args[0], &found);
    if (!found) {
        json_decref(a);
        rest_error(r, ESLURM_INVALID_NODE_NAME, "Invalid node name specified",
                   "_dump_nodes", "Unable to query node %s", r->args[0]);
        return;
    }
    rest_reply(r, nodes_resp(a), NULL);
}

static json_t *part_info(const struct ctld *c, json_t *p)
{
    json_int_t max = num(p, "max_time"), dflt = num(p, "default_time");
    return json_pack("{s:s, s:s, s:{s:s, s:I, s:s}, s:{s:[s]}, s:{s:I, s:I}, s:{s:o, s:o},"
                     " s:{s:o}, s:[s], s:{s:s}}",
                     "name", str(p, "name"), "cluster", c->conf->cluster_name, "nodes",
                     "configured", str(p, "nodes"), "total",
                     (json_int_t)json_array_size(json_object_get(p, "node_names")),
                     "allowed_allocation", "", "partition", "state",
                     json_is_true(json_object_get(p, "up")) ? "UP" : "DOWN", "cpus", "total",
                     num(p, "total_cpus"), "task_binding", (json_int_t)0, "maximums", "time",
                     max < 0 ? rest_noval_infinite() : rest_noval(max), "nodes",
                     rest_noval_infinite(), "defaults", "time",
                     dflt < 0 ? rest_noval_infinite() : rest_noval(dflt), "flags",
                     json_is_true(json_object_get(p, "default")) ? "DEFAULT" : "",
                     "qos", "allowed", "");
}

/* The partitions (all, or the one named). */
static json_t *parts_list(const struct ctld *c, const char *only)
{
    json_t *a = json_array();
    for (size_t i = 0; i < c->conf->nparts; i++) {
        if (only && strcmp(c->conf->parts[i].name, only) != 0)
            continue;
        json_t *p = part_to_json(c, i);
        json_t *o = part_info(c, p);
        json_t *flags = json_object_get(o, "flags");
        if (!*json_string_value(json_array_get(flags, 0)))
            json_array_clear(flags);
        json_array_append_new(a, o);
        json_decref(p);
    }
    return a;
}

static void parts_reply(struct http_req *r, json_t *a)
{
    rest_reply(r, json_pack("{s:o, s:o}", "partitions", a, "last_update", rest_noval(ctld_now())),
               NULL);
}

void rest_partitions(struct http_req *r)
{
    parts_reply(r, parts_list(r->ctx, NULL));
}

void rest_partition(struct http_req *r)
{
    json_t *a = parts_list(r->ctx, r->args[0]);
    if (!json_array_size(a)) {
        json_decref(a);
        rest_error(r, ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified",
                   "_dump_part", "Unable to find partition %s", r->args[0]);
        return;
    }
    parts_reply(r, a);
}

static json_t *resv_info(json_t *v)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:s}",
                          "name", str(v, "name"), "node_list", str(v, "nodes"), "node_count",
                          num(v, "node_count"), "core_count", num(v, "core_count"), "start_time",
                          rest_noval_time(num(v, "start_time")), "end_time",
                          rest_noval_time(num(v, "end_time")), "flags",
                          rest_csv(str(v, "flags")), "partition", str(v, "partition"), "users",
                          str(v, "users"), "accounts", str(v, "accounts"), "groups",
                          str(v, "groups"), "features", str(v, "features"), "tres",
                          str(v, "tres"));
    json_object_set_new(o, "licenses", json_string(""));
    json_object_set_new(o, "burst_buffer", json_string(""));
    json_object_set_new(o, "watts", rest_noval_unset());
    json_object_set_new(o, "max_start_delay", json_integer(0));
    return o;
}

/* The live reservations (all, or the one named), as scontrol show res. */
static json_t *resv_list(const struct ctld *c, const char *only)
{
    int64_t now = ctld_now();
    json_t *a = json_array();
    for (size_t i = 0; i < c->resvs->n; i++) {
        const struct resv *v = c->resvs->v[i];
        if (!resv_live(v, now) || (only && strcmp(v->name, only) != 0))
            continue;
        json_t *o = resv_to_json(c, v, now, false);
        json_array_append_new(a, resv_info(o));
        json_decref(o);
    }
    return a;
}

static void resv_reply(struct http_req *r, json_t *a)
{
    rest_reply(r, json_pack("{s:o, s:o}", "reservations", a, "last_update",
                            rest_noval(ctld_now())), NULL);
}

void rest_reservations(struct http_req *r)
{
    resv_reply(r, resv_list(r->ctx, NULL));
}

void rest_reservation(struct http_req *r)
{
    json_t *a = resv_list(r->ctx, r->args[0]);
    if (!json_array_size(a)) {
        json_decref(a);
        rest_error(r, ESLURM_RESERVATION_INVALID, "Requested reservation is invalid",
                   "_dump_resv", "Unable to find reservation %s", r->args[0]);
        return;
    }
    resv_reply(r, a);
}
