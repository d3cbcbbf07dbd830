/*
 * resv_json: a reservation as the API shows it (docs/reservations.md: the
 * object resview's commands read) and as the store keeps it (the same
 * facts plus what was asked, so that an update can place it again).
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/resv_flags.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static int held_cpus(const struct resv *r)
{
    int n = 0;
    for (size_t k = 0; k < r->nholds; k++)
        n += r->holds[k].cpus;
    return n;
}

static int held_gpus(const struct resv *r)
{
    int n = 0;
    for (size_t k = 0; k < r->nholds; k++)
        n += __builtin_popcountll(r->holds[k].gpu_mask);
    return n;
}

/* Slurm's TRES=: the CPUs held, and the GPUs when it reserves GPUs. */
static json_t *tres_json(const struct resv *r)
{
    int cpus = held_cpus(r);
    if (!r->gpus)
        return json_sprintf("cpu=%d", cpus);
    if (!cpus)
        return json_sprintf("gres/gpu=%d", held_gpus(r));
    return json_sprintf("cpu=%d,gres/gpu=%d", cpus, held_gpus(r));
}

json_t *resv_to_json(const struct ctld *c, const struct resv *r, int64_t now, bool all)
{
    char flags[256];
    resv_flags_str(r->flags, r->purge_s, flags, sizeof flags);
    char *nodes = resv_nodes_str(c, r);
    json_t *o = json_pack("{s:i, s:s, s:I, s:I, s:I, s:s, s:i, s:i, s:o, s:s}", "id", (int)r->id,
                          "name", r->name, "start_time", (json_int_t)r->start, "end_time",
                          (json_int_t)r->end, "duration_s", (json_int_t)(r->end - r->start),
                          "nodes", nodes, "node_count", (int)r->nholds, "core_count",
                          held_cpus(r), "tres", tres_json(r), "flags", flags);
    free(nodes);
    json_object_set_new(o, "features", str_or_null(r->features));
    json_object_set_new(o, "partition", str_or_null(r->partition));
    json_object_set_new(o, "users", str_or_null(r->users));
    json_object_set_new(o, "accounts", str_or_null(r->accounts));
    json_object_set_new(o, "groups", str_or_null(r->groups));
    json_object_set_new(o, "comment", str_or_null(r->comment));
    json_object_set_new(o, "state", json_string(resv_active(r, now) ? "ACTIVE" : "INACTIVE"));
    if (all)
        json_object_set_new(o, "deleted", json_boolean(r->deleted));
    if (all && r->deleted)
        json_object_set_new(o, "deleted_time", json_integer(r->deleted_time));
    return o;
}

static json_t *holds_json(const struct ctld *c, const struct resv *r)
{
    json_t *a = json_array();
    for (size_t k = 0; k < r->nholds; k++) {
        const struct sched_alloc *h = &r->holds[k];
        json_array_append_new(a, json_pack("{s:s, s:i, s:I, s:I}", "node",
                                           c->conf->nodes[h->node].name, "cpus", h->cpus,
                                           "mem_mb", (json_int_t)h->mem_mb, "gpu_mask",
                                           (json_int_t)h->gpu_mask));
    }
    return a;
}

json_t *resv_record(const struct ctld *c, const struct resv *r)
{
    json_t *o = resv_to_json(c, r, 0, true);
    json_object_update_new(o, json_pack("{s:i, s:I, s:i, s:i, s:i, s:o, s:o, s:o}", "flag_bits",
                                        (int)r->flags, "purge_s", (json_int_t)r->purge_s,
                                        "node_cnt_asked", r->node_cnt, "core_cnt_asked",
                                        r->core_cnt, "gpus_asked", r->gpus, "gpu_type",
                                        str_or_null(r->gpu_type), "node_expr",
                                        str_or_null(r->node_expr), "holds", holds_json(c, r)));
    return o;
}

static char *dup_or_null(json_t *rec, const char *key)
{
    const char *s = json_string_value(json_object_get(rec, key));
    return s ? xstrdup(s) : NULL;
}

/* The holds again, on the nodes the configuration still has. */
static void holds_read(const struct ctld *c, struct resv *r, json_t *a)
{
    size_t i;
    json_t *h;
    r->holds = xcalloc(json_array_size(a) ? json_array_size(a) : 1, sizeof *r->holds);
    json_array_foreach(a, i, h) {
        struct node *n = node_find((struct ctld *)c, json_string_value(json_object_get(h, "node")));
        if (!n)
            continue;
        r->holds[r->nholds++] = (struct sched_alloc){
            .node = node_index(c, n),
            .cpus = (int)json_integer_value(json_object_get(h, "cpus")),
            .mem_mb = (uint64_t)json_integer_value(json_object_get(h, "mem_mb")),
            .gpu_mask = (uint64_t)json_integer_value(json_object_get(h, "gpu_mask")) };
    }
}

struct resv *resv_from_record(const struct ctld *c, json_t *rec)
{
    const char *name = json_string_value(json_object_get(rec, "name"));
    if (!name)
        return NULL;
    struct resv *r = xcalloc(1, sizeof *r);
    r->name = xstrdup(name);
    r->start = json_integer_value(json_object_get(rec, "start_time"));
    r->end = json_integer_value(json_object_get(rec, "end_time"));
    r->flags = (uint32_t)json_integer_value(json_object_get(rec, "flag_bits"));
    r->purge_s = json_integer_value(json_object_get(rec, "purge_s"));
    r->users = dup_or_null(rec, "users");
    r->accounts = dup_or_null(rec, "accounts");
    r->groups = dup_or_null(rec, "groups");
    r->features = dup_or_null(rec, "features");
    r->partition = dup_or_null(rec, "partition");
    r->comment = dup_or_null(rec, "comment");
    r->node_expr = dup_or_null(rec, "node_expr");
    r->gpu_type = dup_or_null(rec, "gpu_type");
    r->node_cnt = (int)json_integer_value(json_object_get(rec, "node_cnt_asked"));
    r->core_cnt = (int)json_integer_value(json_object_get(rec, "core_cnt_asked"));
    r->gpus = (int)json_integer_value(json_object_get(rec, "gpus_asked"));
    r->deleted = json_is_true(json_object_get(rec, "deleted"));
    r->deleted_time = json_integer_value(json_object_get(rec, "deleted_time"));
    holds_read(c, r, json_object_get(rec, "holds"));
    return r;
}
